#!/usr/bin/env python3
"""The one description of Faro's MPI API (api/*.api) and what is made from it.

The format is documented in api/README.md. This script reads the
descriptions and:

  apigen.py man --mpi-h include/mpi.h --version V --out DIR FILE.api...
      writes DIR/MPI_<name>.3 for every described function that mpi.h
      declares, and DIR/PMPI_<name>.3 (a .so link to it)
  apigen.py protos --mpi-h include/mpi.h FILE.api...
      prints a C file that redeclares every described function that mpi.h
      declares, as the description says (MPI_ and PMPI_): compiling it after
      mpi.h fails with "conflicting types" where the two disagree
  apigen.py fortran --mpi-h include/mpi.h --out DIR [--excluded LIST] FILE.api...
      writes the Fortran bindings (C and Fortran sources, apigen_fortran.py)
      into DIR; with --excluded, fails unless every declared function is
      bound or named in LIST with the reason it is not
  apigen.py check --mpi-h include/mpi.h [--tunables NAME...] FILE.api...
      checks the description against mpi.h: every declared function is
      described, every described one is declared or marked planned, a
      planned one is not declared yet, tunables named exist, references
      in "see" name described functions or pages Faro ships, mpi.h declares
      exactly the _c functions the description makes
  apigen.py bigcount --mpi-h include/mpi.h --wide src/bigcount/wide.h
                     --c src/bigcount/calls_c.c [--check] FILE.api...
      the large-count _c bindings (api/bigcount.py): rewrites mpi.h's
      block of _c prototypes and writes the C file of their entry points
      (--check: writes nothing, fails when either is stale)

Only the Python 3 standard library is used. Later generators (the
large-count _c bindings, Fortran) read the same objects: each Param has
its C declaration, direction and kinds ("count", "disp", "len=EXPR").
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bigcount  # noqa: E402  (api/bigcount.py: the large-count _c bindings)


class ApiError(Exception):
    pass


class Param:
    """One parameter: direction (IN, OUT, INOUT), C declaration as written
    in mpi.h ("const int ranks[]"), kinds and text."""

    DECL = re.compile(r'^(?P<type>.*?)(?P<name>[A-Za-z_][A-Za-z_0-9]*)\s*(?P<suffix>(\[[^\]]*\])*)$')

    def __init__(self, direction, decl, kinds, text, where):
        self.direction = direction
        self.decl = decl
        self.kinds = kinds
        self.text = text
        if decl == '...':
            self.type, self.name, self.suffix = '...', '...', ''
            return
        m = self.DECL.match(decl)
        if not m or not m.group('type').strip():
            raise ApiError('%s: cannot read the C declaration "%s"' % (where, decl))
        self.type = m.group('type').rstrip()
        self.name = m.group('name')
        self.suffix = m.group('suffix')

    @property
    def is_array(self):
        return bool(self.suffix)

    @property
    def length(self):
        for k in self.kinds:
            if k.startswith('len='):
                return k[4:]
        return None


class SharedText:
    """A block of prose several entries include ("text NAME" ... "@NAME")."""

    def __init__(self, name, where):
        self.name = name
        self.where = where
        self.body = ''


class Function:
    def __init__(self, name, chapter, where):
        self.name = name
        self.chapter = chapter
        self.where = where
        self.ret = 'int'
        self.summary = ''
        self.params = []
        self.desc = ''
        self.faro = ''
        self.errors = []        # [(class, text or '')]
        self.tunables = []
        self.see = []
        self.planned = ''
        self.no_errors = False  # "errors -": the call reports none
        self.bigcount = ''      # "bigcount no REASON": no _c form

    @property
    def base(self):
        return self.name[4:]    # MPI_Send -> Send

    def prototype(self, prefix='MPI_'):
        args = ', '.join(p.decl for p in self.params) or 'void'
        return '%s %s%s(%s)' % (self.ret, prefix, self.base, args)


KEYS_LINE = {'summary', 'return', 'param', 'errors', 'error', 'tunables', 'see', 'planned',
             'bigcount'}
KEYS_BLOCK = {'desc', 'faro'}


class Api:
    """Every description file read: functions by name, default parameter and
    error texts (api/common.api)."""

    def __init__(self):
        self.functions = {}
        self.order = []
        self.param_text = {}
        self.error_text = {}
        self.texts = {}         # text NAME blocks, included by "@NAME" lines

    def read(self, path):
        chapter = os.path.splitext(os.path.basename(path))[0]
        fn = None
        block = None            # the attribute a block's lines go to
        target = None           # ... of this object (a Function, or the text's holder)
        with open(path, encoding='utf-8') as f:
            lines = f.read().split('\n')
        for no, raw in enumerate(lines, 1):
            where = '%s:%d' % (path, no)
            line = raw.rstrip()
            if block is not None:
                if line.startswith('    ') or not line:
                    setattr(target, block, getattr(target, block) + line[4:] + '\n')
                    continue
                block = None
            if not line or line.lstrip().startswith('#'):
                continue
            if not line.startswith(' '):
                words = line.split(None, 1)
                if words[0] == 'default-param':
                    name, text = self._split(words, where)
                    self.param_text[name] = text
                    continue
                if words[0] == 'default-error':
                    name, text = self._split(words, where)
                    self.error_text[name] = text
                    continue
                if words[0] == 'text':
                    if len(words) != 2 or not re.match(r'^[a-z][a-z0-9-]*$', words[1]):
                        raise ApiError('%s: expected "text NAME" (lower case, digits, -)' % where)
                    fn = None
                    target = SharedText(words[1], where)
                    self.texts[words[1]] = target
                    block = 'body'
                    continue
                if len(words) != 1 or not re.match(r'^MPI_[A-Za-z0-9_]+$', words[0]):
                    raise ApiError('%s: expected a function name (MPI_...) at the start of '
                                   'the line, found "%s"' % (where, line))
                if words[0] in self.functions:
                    raise ApiError('%s: %s is described twice (first at %s)' %
                                   (where, words[0], self.functions[words[0]].where))
                fn = Function(words[0], chapter, where)
                self.functions[fn.name] = fn
                self.order.append(fn.name)
                continue
            if fn is None or not line.startswith('  ') or line.startswith('   '):
                raise ApiError('%s: a key line is indented by two spaces and follows a '
                               'function name: "%s"' % (where, line))
            key, _, rest = line.strip().partition(' ')
            rest = rest.strip()
            if key in KEYS_BLOCK:
                if rest:
                    raise ApiError('%s: "%s" starts a block: its text goes on the following '
                                   'lines, indented by four spaces' % (where, key))
                block = key
                target = fn
            elif key == 'summary':
                fn.summary = rest
            elif key == 'return':
                fn.ret = rest
            elif key == 'param':
                fields = [x.strip() for x in rest.split('|')]
                if len(fields) != 4 or fields[0] not in ('IN', 'OUT', 'INOUT'):
                    raise ApiError('%s: param is "IN|OUT|INOUT | C declaration | kinds | '
                                   'text", found "%s"' % (where, rest))
                kinds = [k for k in fields[2].split() if k != '-']
                for k in kinds:
                    if k not in ('count', 'disp') and not k.startswith('len='):
                        raise ApiError('%s: unknown kind "%s" (count, disp, len=EXPR)' %
                                       (where, k))
                fn.params.append(Param(fields[0], fields[1], kinds, fields[3], where))
            elif key == 'errors':
                if rest == '-':
                    fn.no_errors = True
                else:
                    known = [c for c, _ in fn.errors]
                    fn.errors += [(e, '') for e in rest.split() if e not in known]
            elif key == 'error':
                # a text of its own for a class "errors" listed, or one more class
                cls, _, text = rest.partition(' ')
                known = [c for c, _ in fn.errors]
                if cls in known:
                    fn.errors[known.index(cls)] = (cls, text.strip())
                else:
                    fn.errors.append((cls, text.strip()))
            elif key == 'tunables':
                fn.tunables += rest.split()
            elif key == 'see':
                fn.see += rest.split()
            elif key == 'planned':
                fn.planned = rest or 'not built yet'
            elif key == 'bigcount':
                if not rest.startswith('no '):
                    raise ApiError('%s: expected "bigcount no REASON"' % where)
                fn.bigcount = rest[3:].strip()
            else:
                raise ApiError('%s: unknown key "%s" (known: %s)' %
                               (where, key, ', '.join(sorted(KEYS_LINE | KEYS_BLOCK))))
        for name in self.order:
            f = self.functions[name]
            if not f.summary and f.where.startswith(path):
                raise ApiError('%s: %s has no summary' % (f.where, name))

    def expand(self, fn, text):
        """A block's text with each "@NAME" line replaced by the shared text."""
        out = []
        for line in text.split('\n'):
            m = re.match(r'^@([a-z][a-z0-9-]*)$', line.strip())
            if not m:
                out.append(line)
            elif m.group(1) in self.texts:
                out.append(self.texts[m.group(1)].body.rstrip('\n'))
            else:
                raise ApiError('%s: %s includes @%s, which no "text" block defines' %
                               (fn.where, fn.name, m.group(1)))
        return '\n'.join(out)

    @staticmethod
    def _split(words, where):
        if len(words) < 2 or '|' not in words[1]:
            raise ApiError('%s: expected "%s NAME | text"' % (where, words[0]))
        name, _, text = words[1].partition('|')
        return name.strip(), text.strip()

    def param_doc(self, fn, p):
        if p.text:
            return p.text
        if p.name in self.param_text:
            return self.param_text[p.name]
        raise ApiError('%s: %s: parameter %s has no text and no default-param' %
                       (fn.where, fn.name, p.name))

    def error_doc(self, fn, cls, text):
        if text:
            return text
        if cls in self.error_text:
            return self.error_text[cls]
        raise ApiError('%s: %s: error %s has no text and no default-error' %
                       (fn.where, fn.name, cls))


def declared_in(mpi_h, with_c=False):
    """Names of the MPI_ functions mpi.h declares (FARO_API(ret, Name, ...)
    lines, or plain "ret MPI_Name(" declarations); the generated large-count
    block only when with_c."""
    with open(mpi_h, encoding='utf-8') as f:
        text = f.read()
    if not with_c:
        text = bigcount.strip_block(text)
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    names = set('MPI_' + n for n in re.findall(r'^\s*FARO_API\(\s*[^,]+,\s*(\w+)\s*,', text, re.M))
    names |= set(re.findall(r'^\s*(?!typedef\b)[A-Za-z_][\w \*]*?\b(MPI_\w+)\s*\(', text, re.M))
    return names


# ---- man pages ----

def roff_escape(s):
    s = s.replace('\\', '\\e')
    return s


def inline(s):
    """Prose markup: *param* in italics, `code` in bold; hyphens in code are
    real minus signs (options a reader copies). Markup does not cross lines."""
    if s.count('`') % 2:
        raise ApiError('a `code` span does not end on its line: "%s"' % s)
    s = roff_escape(s)
    s = re.sub(r'`([^`]+)`', lambda m: '\\fB' + m.group(1).replace('-', '\\-') + '\\fR', s)
    s = re.sub(r'(?<![\w*])\*([A-Za-z_][\w\[\]]*)\*(?![\w*])', r'\\fI\1\\fR', s)
    return s


def text_line(s):
    s = inline(s)
    if s.startswith('.') or s.startswith("'"):
        s = '\\&' + s
    return s


def prose(text):
    """Paragraphs (blank lines between them), "- " items (their further lines
    indented by two spaces) and examples (lines indented by four spaces, kept
    as they are)."""
    out = []
    para = []
    mode = None     # None, 'para', 'item', 'ex'

    def flush():
        nonlocal para
        out.extend(text_line(x) for x in para)
        para = []

    def start(new):
        nonlocal mode
        flush()
        if mode == 'ex':
            out.append('.fi')
            out.append('.in')
        mode = new

    gap = False
    for line in text.rstrip('\n').split('\n'):
        if not line.strip():
            gap = True
            continue
        if line.startswith('    '):
            if mode != 'ex':
                start('ex')
                out.append('.PP')
                out.append('.in +4n')
                out.append('.nf')
            out.append(text_line(line[4:]))
        elif line.startswith('- '):
            start('item')
            out.append('.IP \\(bu 2')
            para.append(line[2:])
        elif line.startswith('  ') and mode == 'item' and not gap:
            para.append(line.strip())
        elif mode == 'para' and not gap:
            para.append(line.strip())
        else:
            start('para')
            if out:
                out.append('.PP')
            para.append(line.strip())
        gap = False
    start(None)
    return '\n'.join(out) + '\n' if out else ''


def synopsis(fn, suffix='', decl=None):
    """The prototype as .BI lines: types in bold, parameter names in italics,
    wrapped after a comma to stay within 78 columns (suffix "_c" with decl
    bigcount.wide_decl: the large-count form)."""
    head = '%s MPI_%s%s(' % (fn.ret, fn.base, suffix)
    if not fn.params:
        return '.B "%s%s);"\n' % (head, 'void')
    pieces = []
    for i, p in enumerate(fn.params):
        end = ',' if i < len(fn.params) - 1 else ');'
        if p.name == '...':
            pieces.append(('...' + end, None, ''))
            continue
        ptype = decl(p)[:-len(p.name + p.suffix)].rstrip() if decl else p.type
        t = ptype + ('' if ptype.endswith('*') else ' ')
        pieces.append((t, p.name, p.suffix + end))
    lines = []
    cur = []
    width = len(head)
    indent = ' ' * len(head)
    for t, name, tail in pieces:
        w = len(t) + len(name or '') + len(tail) + 1
        if cur and width + w > 76:
            lines.append(cur)
            cur = []
            width = len(indent)
        cur.append((t, name, tail))
        width += w
    lines.append(cur)
    out = []
    for n, chunk in enumerate(lines):
        args = []
        bold = (head if n == 0 else indent)
        for j, (t, name, tail) in enumerate(chunk):
            bold += t if j == 0 else ' ' + t
            if name is None:
                continue
            args.append('"%s"' % bold)
            args.append(name)
            bold = tail
        if bold:
            args.append('"%s"' % bold)
        out.append('.BI ' + ' '.join(args))
    return '\n'.join(out) + '\n'


def bigcount_note(fn, wide):
    """FARO NOTES' sentence on the _c form (wide: the calls of src/bigcount/wide.h)."""
    if fn.base in wide:
        return ('`MPI_%s_c` is implemented on `MPI_Count` and `MPI_Aint` arguments, in '
                'the code `MPI_%s` runs too.' % (fn.base, fn.base))
    folds = bigcount.folds(fn)
    if folds:
        other = [p.name for p in fn.params if ('count' in p.kinds or 'disp' in p.kinds) and
                 p.name not in folds and bigcount.base_elem(p) == 'int']
        text = ('`MPI_%s_c` runs the int call; a count (%s) beyond `INT_MAX` runs as one '
                'element of a contiguous type of that many elements' %
                (fn.base, ', '.join('*%s*' % c for c in folds)))
        if any(p.decl == 'MPI_Op op' for p in fn.params):
            text += ' (not with a user op, whose function takes an int length)'
        if other:
            text += '; %s beyond `INT_MAX` is refused with `MPI_ERR_UNSUPPORTED_OPERATION`' % (
                ', '.join('*%s*' % c for c in other))
        return text + '.'
    return ('`MPI_%s_c` runs the int call: a count (or displacement) beyond `INT_MAX` is '
            'refused with `MPI_ERR_UNSUPPORTED_OPERATION`.' % fn.base)


def man_page(api, fn, version, pages, wide=None):
    out = []
    out.append('.\\" Generated by api/apigen.py from api/%s.api: edit that, not this.' % fn.chapter)
    out.append('.TH %s 3 "" "Faro %s" "Faro MPI"' % (fn.name, version))
    out.append('.nh')
    out.append('.ad l')
    out.append('.SH NAME')
    summary = fn.summary.rstrip('.')
    out.append('%s \\- %s' % (fn.name, inline(summary[0].lower() + summary[1:])))
    out.append('.SH SYNOPSIS')
    out.append('.nf')
    out.append('.B #include <mpi.h>')
    out.append('.PP')
    out.append(synopsis(fn).rstrip('\n'))
    if bigcount.has_c(fn):
        out.append('.PP')
        out.append(synopsis(fn, '_c', bigcount.wide_decl).rstrip('\n'))
    out.append('.fi')
    if fn.desc.strip():
        out.append('.SH DESCRIPTION')
        out.append(prose(api.expand(fn, fn.desc)).rstrip('\n'))
    if fn.params:
        out.append('.SH PARAMETERS')
        for p in fn.params:
            if p.name == '...':
                out.append('.TP')
                out.append('.B ...')
            else:
                out.append('.TP')
                out.append('.IR %s " (%s)"' % (p.name, p.direction))
            out.append(text_line(api.param_doc(fn, p)))
    if fn.ret == 'int' and fn.no_errors:
        out.append('.SH ERRORS')
        out.append('This call reports no errors: it returns \\fBMPI_SUCCESS\\fR.')
    elif fn.ret == 'int':
        out.append('.SH ERRORS')
        out.append('Returns \\fBMPI_SUCCESS\\fR, or an error code whose class is one of those '
                   'below (\\fBMPI_Error_class\\fR gives the class, \\fBMPI_Error_string\\fR '
                   'Faro\'s message, which names the argument and what was allowed). The error '
                   'goes first to the error handler of the communicator or window the call '
                   'works on, or of \\fBMPI_COMM_WORLD\\fR for a call on neither: the default, '
                   '\\fBMPI_ERRORS_ARE_FATAL\\fR, ends the job with the message; the call '
                   'returns the code under \\fBMPI_ERRORS_RETURN\\fR or a handler that returns.')
        for cls, text in fn.errors:
            out.append('.TP')
            out.append('.B %s' % cls)
            out.append(text_line(api.error_doc(fn, cls, text)))
    c_note = bigcount_note(fn, wide) if wide is not None and bigcount.has_c(fn) else ''
    if fn.faro.strip() or fn.tunables or c_note:
        out.append('.SH FARO NOTES')
        if fn.faro.strip():
            out.append(prose(api.expand(fn, fn.faro)).rstrip('\n'))
        if c_note:
            if fn.faro.strip():
                out.append('.PP')
            out.append(text_line(c_note))
        if fn.tunables:
            if fn.faro.strip() or c_note:
                out.append('.PP')
            out.append('Tunables that apply (environment variables, faro-tunables(7)): ' +
                       ', '.join('\\fB%s\\fR' % t for t in fn.tunables) + '.')
    out.append('.SH PROFILING')
    out.append('Faro also provides this function as \\fBP%s\\fR, with the same arguments. '
               '\\fB%s\\fR is a weak alias of it, so a profiling tool may define its own '
               '\\fB%s\\fR and call \\fBP%s\\fR.' % (fn.name, fn.name, fn.name, fn.name))
    see = []
    for s in fn.see:
        if '(' in s:
            name, sec = s.rstrip(')').split('(')
        else:
            name, sec = s, '3'
        see.append((name, sec))
    if fn.tunables and ('faro-tunables', '7') not in see:
        see.append(('faro-tunables', '7'))
    if see:
        out.append('.SH SEE ALSO')
        for i, (name, sec) in enumerate(see):
            out.append('.BR %s (%s)%s' % (name.replace('-', '\\-'), sec,
                                          ',' if i < len(see) - 1 else ''))
    return '\n'.join(out) + '\n'


def cmd_man(api, args):
    declared = declared_in(args.mpi_h)
    declared_c = declared_in(args.mpi_h, with_c=True) & bigcount.c_names(api, declared)
    os.makedirs(args.out, exist_ok=True)
    n = 0
    for name in api.order:
        fn = api.functions[name]
        if name not in declared:
            continue
        try:
            page = man_page(api, fn, args.version, api.functions,
                            bigcount.wide_impls(args.wide) if args.wide else None)
        except ApiError as e:
            raise ApiError('%s: %s: %s' % (fn.where, name, e))
        write_if_changed(os.path.join(args.out, name + '.3'), page)
        write_if_changed(os.path.join(args.out, 'P' + name + '.3'), '.so man3/%s.3\n' % name)
        if name + '_c' in declared_c:   # the _c form is on its int form's page
            for p in ('', 'P'):
                write_if_changed(os.path.join(args.out, p + name + '_c.3'),
                                 '.so man3/%s.3\n' % name)
        n += 1
    if args.list:
        with open(args.list, 'w', encoding='utf-8') as f:
            for name in api.order:
                if name in declared:
                    f.write('%s.3\nP%s.3\n' % (name, name))
                if name + '_c' in declared_c:
                    f.write('%s_c.3\nP%s_c.3\n' % (name, name))
    return 0


def write_if_changed(path, text):
    try:
        with open(path, encoding='utf-8') as f:
            if f.read() == text:
                return
    except OSError:
        pass
    with open(path + '.tmp', 'w', encoding='utf-8') as f:
        f.write(text)
    os.replace(path + '.tmp', path)


def cmd_protos(api, args):
    declared = declared_in(args.mpi_h)
    print('/* Generated by api/apigen.py protos: every function as the api/ files describe it,')
    print(' * redeclared after mpi.h. A C compiler refuses a redeclaration whose type differs')
    print(' * ("conflicting types"), so this file compiles only where the two agree. */')
    print('#include <mpi.h>')
    for name in api.order:
        if name in declared:
            fn = api.functions[name]
            print('/* %s */' % fn.where)
            print(fn.prototype('MPI_') + ';')
            print(fn.prototype('PMPI_') + ';')
    declared_c = declared_in(args.mpi_h, with_c=True)
    for fn in bigcount.c_functions(api, declared):
        if fn.name + '_c' in declared_c:
            print('/* %s (its _c form) */' % fn.where)
            print(bigcount.c_prototype(fn, 'MPI_') + ';')
            print(bigcount.c_prototype(fn, 'PMPI_') + ';')
    print('int main(void) { return 0; }')
    return 0


def cmd_check(api, args):
    declared = declared_in(args.mpi_h)
    problems = []
    for name in sorted(declared - set(api.functions)):
        problems.append('%s is declared in mpi.h but not described in api/*.api' % name)
    want_c = bigcount.c_names(api, declared)
    have_c = declared_in(args.mpi_h, with_c=True) - declared
    for name in sorted(want_c - have_c):
        problems.append('%s: mpi.h lacks it (its int form has a count; run make to '
                        'regenerate the large-count block)' % name)
    for name in sorted(have_c - want_c):
        problems.append('%s is declared in mpi.h\'s large-count block but no described '
                        'function makes it (run make to regenerate the block)' % name)
    for name in api.order:
        fn = api.functions[name]
        if name not in declared and not fn.planned:
            problems.append('%s: %s is described but mpi.h does not declare it (mark it '
                            '"planned" while it is not built, or remove it)' % (fn.where, name))
        if name in declared and fn.planned:
            problems.append('%s: %s is declared in mpi.h now: write its Faro notes for what '
                            'was built and drop "planned"' % (fn.where, name))
        try:
            for p in fn.params:
                api.param_doc(fn, p)
            for cls, text in fn.errors:
                api.error_doc(fn, cls, text)
            api.expand(fn, fn.desc)
            api.expand(fn, fn.faro)
        except ApiError as e:
            problems.append(str(e))
        if fn.ret == 'int' and not fn.errors and not fn.no_errors and not fn.planned:
            problems.append('%s: %s returns an error code but lists no errors' % (fn.where, name))
        if args.tunables is not None:
            for t in fn.tunables:
                if t[5:] not in args.tunables or not t.startswith('FARO_'):
                    problems.append('%s: %s names tunable %s, which is not in the tunables '
                                    'table' % (fn.where, name, t))
        for s in fn.see if name in declared else []:
            if '(' in s:
                continue
            if s not in api.functions or (s not in declared and not api.functions[s].planned):
                problems.append('%s: %s refers to %s, which has no page' % (fn.where, name, s))
            elif s not in declared:
                problems.append('%s: %s refers to %s, which is not built yet' % (fn.where, name, s))
    for p in problems:
        print('FAIL: ' + p, file=sys.stderr)
    n = len([x for x in api.order if x in declared])
    if problems:
        print('%d problem(s) in the API description' % len(problems), file=sys.stderr)
        return 1
    print('api: %d functions described, %d declared in mpi.h, %d planned' %
          (len(api.order), n, len(api.order) - n))
    return 0


def cmd_bigcount(api, args):
    declared = declared_in(args.mpi_h)
    fns = bigcount.c_functions(api, declared)
    try:
        source = bigcount.c_source(fns, bigcount.wide_impls(args.wide))
    except ValueError as e:
        raise ApiError(str(e))
    with open(args.mpi_h, encoding='utf-8') as f:
        text = f.read()
    new = bigcount.update_mpi_h(text, bigcount.header_block(fns))
    if args.check:
        stale = []
        if new != text:
            stale.append(args.mpi_h)
        try:
            with open(args.c, encoding='utf-8') as f:
                if f.read() != source:
                    stale.append(args.c)
        except OSError:
            stale.append(args.c)
        for path in stale:
            print('FAIL: %s is not what api/apigen.py bigcount makes from the description '
                  '(run make, or the command in api/README.md)' % path, file=sys.stderr)
        return 1 if stale else 0
    write_if_changed(args.mpi_h, new)
    write_if_changed(args.c, source)
    print('bigcount: %d _c functions' % len(fns))
def cmd_fortran(api, args):
    import apigen_fortran
    declared = declared_in(args.mpi_h)
    bindings, excluded = apigen_fortran.write_all(api, declared, args.mpi_h, args.out,
                                                  write_if_changed)
    if args.excluded is None:
        return 0
    # the check: every function mpi.h declares is bound, or excluded by a
    # line of the exclusion list that says why
    listed = {}
    with open(args.excluded, encoding='utf-8') as f:
        for no, line in enumerate(f, 1):
            if line.strip() and not line.startswith('#'):
                name, _, why = line.strip().partition(' ')
                if not why.strip():
                    print('FAIL: %s:%d: %s is excluded without a reason' %
                          (args.excluded, no, name), file=sys.stderr)
                    return 1
                listed[name] = why.strip()
    problems = []
    for name, why in excluded:
        if name not in listed:
            problems.append('%s has no Fortran binding (%s): bind it by hand '
                            '(api/apigen_fortran_hand.py, fortran/hand.c) or list it in %s '
                            'with the reason'
                            % (name, why, args.excluded))
    bound = {bd.fn.name for bd in bindings} | set(apigen_fortran.HAND)
    c_only = {n for n in declared if apigen_fortran.C_ONLY.match(n)}
    for name in listed:
        if name in bound or name in c_only:
            problems.append('%s is listed in %s but is %s now: drop the line' %
                            (name, args.excluded, 'C only' if name in c_only else 'bound'))
        elif name not in declared:
            problems.append('%s is listed in %s but mpi.h does not declare it' %
                            (name, args.excluded))
    for p in problems:
        print('FAIL: ' + p, file=sys.stderr)
    if problems:
        return 1
    large = [b for b in bindings if b.large_of]
    print('fortran: %d functions generated (mpif.h, mpi, mpi_f08; %d with choice buffers; '
          '%d large-count forms in mpi_f08), %d by hand, %d excluded, %d C only' %
          (len(bindings) - len(large), len([b for b in bindings if b.choice and not b.large_of]),
           len(large), len(apigen_fortran.HAND), len(excluded), len(c_only)))
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    sub = ap.add_subparsers(dest='cmd', required=True)
    for name in ('man', 'protos', 'check', 'bigcount', 'fortran'):
        s = sub.add_parser(name)
        s.add_argument('--mpi-h', required=True)
        s.add_argument('files', nargs='+')
        if name == 'man':
            s.add_argument('--version', required=True)
            s.add_argument('--out', required=True)
            s.add_argument('--list', help='also write the names of the pages made')
            s.add_argument('--wide', help='src/bigcount/wide.h: say in FARO NOTES which _c '
                           'forms take counts beyond INT_MAX')
        if name == 'fortran':
            s.add_argument('--out', required=True)
            s.add_argument('--excluded', help='the exclusion list to check against')
        if name == 'check':
            s.add_argument('--tunables', nargs='*', help='names of the tunables (without FARO_)')
        if name == 'bigcount':
            s.add_argument('--wide', required=True, help='src/bigcount/wide.h')
            s.add_argument('--c', required=True, help='the C file of entry points to write')
            s.add_argument('--check', action='store_true',
                           help='write nothing; fail if mpi.h or the C file is stale')
    args = ap.parse_args()
    api = Api()
    try:
        for path in args.files:
            api.read(path)
        return {'man': cmd_man, 'protos': cmd_protos, 'check': cmd_check,
                'bigcount': cmd_bigcount, 'fortran': cmd_fortran}[args.cmd](api, args)
    except ApiError as e:
        print('apigen: ' + str(e), file=sys.stderr)
        return 1


if __name__ == '__main__':
    sys.exit(main())
