"""Fortran bindings made from the one description of the API (api/*.api).

apigen.py's "fortran" command calls write_all(). From each described
function that mpi.h declares it makes, mechanically from the parameters'
directions and C declarations:

  faro_fortran.c   the C bindings with gfortran's calling convention: for
                   MPI_Send, pmpi_send_ (all arguments by reference, integer
                   handles, the error code in the last argument, the hidden
                   lengths of CHARACTER arguments after it) and mpi_send_, a
                   weak alias of it; for a function with a choice buffer also
                   faro_f08_send, which takes the buffer as the C descriptor
                   of an assumed-rank (TYPE(*), DIMENSION(..)) argument
  mpif.h           the constants (from mpi.h's values) and the sentinels
                   (MPI_STATUS_IGNORE, MPI_IN_PLACE, ...: common blocks whose
                   addresses the C bindings recognise)
  mpi.f90          module mpi: the same constants and an explicit interface
                   for every bound function (choice buffers: TYPE(*) with
                   gfortran's NO_ARG_CHECK, so any type, kind and rank)
  mpi_f08.f90      module mpi_f08: the derived types (TYPE(MPI_Comm), ...,
                   TYPE(MPI_Status)), their == and /=, the constants, and a
                   BIND(C) interface per function straight to the C bindings
                   (ierror OPTIONAL: the C side gets NULL when it is absent)
  bindings.txt     every function: the styles it is bound in, or why not

mpi_f08 also has the large-count forms (MPI-4.0 section 19.2): for each
function with a C _c form (api/bigcount.py's, or one described on its own as
MPI_X_c), a second specific procedure MPI_X_c of the generic MPI_X whose
counts are INTEGER(KIND=MPI_COUNT_KIND), bound to the C _c function. A
program calls MPI_Send with an MPI_COUNT_KIND count and gets MPI_Send_c.
mpif.h and module mpi have none (the standard gives them none), and neither
has a function whose _c form Fortran could not tell from its int form (its
counts are MPI_Aint already: MPI_ADDRESS_KIND is MPI_COUNT_KIND).

A function is excluded, with its reason, when a parameter has no mechanical
Fortran form (callbacks, argv vectors, the C-only MPI_Fint conversions); some
of those are written by hand (apigen_fortran_hand.py's HAND; their C is
fortran/hand.c). Nothing here knows a function by name except HAND and
MPI1_ATTR; a few parameters are known by name (LOGICAL_NAMES, the sentinels'
PARAM_SENTINELS, index, array_of_indices, attribute_val, baseptr), so a new
function whose parameters are ordinary binds by itself. The constants and
mpif.h are apigen_fortran_consts.py's.
"""
import copy
import os
import re

import bigcount

from apigen_fortran_consts import CHAR_SENTINELS, HANDLE_TYPES, SENTINELS, Constants, mpifh
from apigen_fortran_hand import (FORTRAN_ONLY, HAND, HAND_F90, HAND_F08, HAND_F08_PROCS,
                                 HAND_F08_ABSTRACT, PREDEFINED_CALLBACKS)

WIDE_INTS = {'MPI_Aint': 'MPI_ADDRESS_KIND', 'MPI_Offset': 'MPI_OFFSET_KIND',
             'MPI_Count': 'MPI_COUNT_KIND'}
# int parameters that are LOGICAL in Fortran (the C declaration cannot say)
LOGICAL_NAMES = {'flag', 'periods', 'reorder', 'remain_dims', 'high', 'weighted'}
# void * parameters that hold an address or a value, not a buffer
ADDRESS_NAMES = {'attribute_val_in', 'attribute_val_out', 'attr_val', 'extra_state'}
# MPI-1's attribute calls: Fortran's value is a default INTEGER there
# (an address-sized one in their MPI-2 replacements)
MPI1_ATTR = {'MPI_Attr_get', 'MPI_Attr_put'}
# parameters that may be given a sentinel (apigen_fortran_consts.SENTINELS)
PARAM_SENTINELS = {'array_of_errcodes': ['MPI_ERRCODES_IGNORE'],
                   'sourceweights': ['MPI_UNWEIGHTED', 'MPI_WEIGHTS_EMPTY'],
                   'destweights': ['MPI_UNWEIGHTED', 'MPI_WEIGHTS_EMPTY'],
                   'weights': ['MPI_UNWEIGHTED', 'MPI_WEIGHTS_EMPTY']}


class Skip(Exception):
    pass


# Functions the standard gives only a C binding: the handle and status
# conversions (MPI_Comm_c2f ...) and the tool interface (MPI_T_*). They need
# no line in the exclusion list, so other branches' new ones merge untouched.
C_ONLY = re.compile(r'^MPI_(T_\w+|\w+_(c2f|f2c|c2f08|f082c))$')


def lower(fn):
    return fn.name.lower()


def base_type(p):
    """('int', pointer depth, const) of a parameter; arrays count as a pointer."""
    t = p.type.replace('const ', '').strip()
    depth = t.count('*') + (1 if p.is_array else 0)
    return t.replace('*', '').strip(), depth, 'const' in p.type


def c2f_name(t):
    return 'Type' if t == 'MPI_Datatype' else t[4:]


class Bound:
    """One parameter's C binding pieces: the Fortran-side C declaration, the
    code before the call, the argument, the code after it; and its Fortran
    declarations for mpi (F90) and mpi_f08 (F08)."""

    def __init__(self):
        self.cdecl = ''
        self.pre = []
        self.arg = ''
        self.post = []
        self.hidden = None      # name of a hidden CHARACTER length
        self.f90 = ''           # type spec in module mpi
        self.f08 = ''           # type spec in mpi_f08
        self.dim = ''
        self.choice = False
        self.string = False


def bind_param(fn, p, declared, fints):
    b = Bound()
    n = p.name
    t, depth, _ = base_type(p)
    if p.decl == '...':
        return None             # MPI_Pcontrol's varargs: Fortran passes none
    if '_function' in t or t.endswith('_fn'):
        raise Skip('%s is a callback (%s)' % (n, t))
    if t == 'MPI_Fint':
        raise Skip('takes MPI_Fint: a C-only conversion function')
    if t == 'char':
        if depth > 1:
            raise Skip('%s is an argv-style vector of strings' % n)
        b.string = True
        b.hidden = n + '_len'
        b.cdecl = 'char *%s' % n
        b.f90 = b.f08 = 'CHARACTER(LEN=*)'
        if p.direction == 'IN':
            b.pre.append('char *c_%s = faro_f_cstr(%s, %s_len);' % (n, n, n))
            b.arg = 'c_%s' % n
            b.post.append('free(c_%s);' % n)
        else:
            b.pre.append('char *c_%s = faro_f_strbuf(%s_len);' % (n, n))
            b.arg = 'c_%s' % n
            b.post.append('faro_f_fstr(%s, %s_len, c_%s);' % (n, n, n))
        return b
    if t == 'void' and n == 'attribute_val' and fn.name not in MPI1_ATTR:
        # an attribute's value: INTEGER(KIND=MPI_ADDRESS_KIND) in Fortran,
        # the void * itself in C (a predefined key's value is read through it)
        b.cdecl = 'MPI_Aint *%s' % n
        b.f90 = b.f08 = 'INTEGER(KIND=MPI_ADDRESS_KIND)'
        if p.direction == 'IN':
            b.arg = '(void *)*%s' % n
            return b
        keyval = [q.name for q in fn.params if q.name.endswith('keyval')]
        if len(keyval) != 1 or 'flag' not in [q.name for q in fn.params]:
            raise Skip('%s: an attribute value without one keyval and a flag' % n)
        b.pre.append('void *c_%s = NULL;' % n)
        b.arg = '&c_%s' % n
        b.post.append('if (rc == MPI_SUCCESS && *flag) *%s = faro_f_attr_value("%s", *%s, c_%s);'
                      % (n, fn.name, keyval[0], n))
        return b
    if t == 'void' and n == 'baseptr' and p.direction == 'OUT':
        # memory the call allocates: its address, as an integer (mpi, like a
        # Cray pointer) or TYPE(C_PTR) (mpi_f08, for C_F_POINTER): one word
        b.cdecl = 'MPI_Aint *%s' % n
        b.f90 = 'INTEGER(KIND=MPI_ADDRESS_KIND)'
        b.f08 = 'TYPE(C_PTR)'
        b.pre.append('void *c_%s = NULL;' % n)
        b.arg = '&c_%s' % n
        b.post.append('*%s = (MPI_Aint)c_%s;' % (n, n))
        return b
    if t == 'void':
        if n in ADDRESS_NAMES or n == 'attribute_val' or depth != 1:
            raise Skip('%s is an address-valued void * (INTEGER(KIND=MPI_ADDRESS_KIND) in '
                       'Fortran)' % n)
        b.choice = True
        b.cdecl = 'void *%s' % n
        b.arg = 'faro_f_buf(%s)' % n
        return b
    if t in ('int',) or t in WIDE_INTS:
        ctype = 'MPI_Fint' if t == 'int' else t
        logical = t == 'int' and n in LOGICAL_NAMES
        b.f90 = 'LOGICAL' if logical else (
            'INTEGER' if t == 'int' else 'INTEGER(KIND=%s)' % WIDE_INTS[t])
        b.f08 = 'LOGICAL' if logical else (
            'INTEGER(C_INT)' if t == 'int' else 'INTEGER(KIND=%s)' % WIDE_INTS[t])
        b.cdecl = '%s *%s' % (ctype, n)
        if depth == 0:
            b.arg = '*' + n
        elif depth == 1:
            b.arg = n
            if p.is_array:
                b.dim = '*'
                inner = re.findall(r'\[(\d+)\]', p.suffix)
                if inner:       # int ranges[][3]: Fortran's ranges(3, *)
                    b.arg = '(%s (*)%s)%s' % (t, ''.join('[%s]' % x for x in inner), n)
                    b.dim = ','.join(inner[::-1] + ['*'])
            if n in PARAM_SENTINELS:
                b.arg = 'faro_f_intarray(%s)' % n
            if logical and p.direction != 'IN' and not p.is_array:
                b.post.append('*%s = *%s != 0;' % (n, n))
            # indices into an array of requests count from 1 in Fortran
            if n == 'index' and p.direction == 'OUT' and not p.is_array:
                b.post.append('if (rc == MPI_SUCCESS && *index >= 0) *index += 1;')
            if n == 'array_of_indices' and p.direction == 'OUT':
                b.post.append('for (int i = 0; rc == MPI_SUCCESS && i < *outcount; i++) '
                              'array_of_indices[i] += 1;')
        else:
            raise Skip('%s: %s' % (n, p.decl))
        return b
    if t in HANDLE_TYPES:
        conv = c2f_name(t)
        if 'MPI_%s_f2c' % conv not in declared:
            raise Skip('%s: mpi.h has no MPI_%s_f2c' % (n, conv))
        b.f90 = 'INTEGER'
        b.f08 = 'TYPE(%s)' % t
        b.cdecl = 'MPI_Fint *%s' % n
        if depth == 0:
            b.arg = 'MPI_%s_f2c(*%s)' % (conv, n)
            return b
        if not p.is_array:
            b.pre.append('%s c_%s = MPI_%s_f2c(*%s);' % (t, n, conv, n))
            b.arg = '&c_%s' % n
            b.post.append('*%s = MPI_%s_c2f(c_%s);' % (n, conv, n))
            return b
        length = array_length(fn, p, fints)
        b.dim = '*'
        b.pre.append('%s *c_%s = faro_f_alloc(%s, sizeof *c_%s, &faro_nomem);' %
                     (t, n, length, n))
        b.pre.append('for (int i = 0; c_%s && i < %s; i++) c_%s[i] = MPI_%s_f2c(%s[i]);' %
                     (n, length, n, conv, n))
        b.arg = 'c_%s' % n
        if p.direction != 'IN':
            b.post.append('for (int i = 0; c_%s && i < %s; i++) %s[i] = MPI_%s_c2f(c_%s[i]);'
                          % (n, length, n, conv, n))
        b.post.append('free(c_%s);' % n)
        return b
    if t == 'MPI_Status':
        b.f90 = 'INTEGER'
        b.f08 = 'TYPE(MPI_Status)'
        b.cdecl = 'MPI_Fint *%s' % n
        if not p.is_array:
            b.dim = 'MPI_STATUS_SIZE'
            b.pre.append('MPI_Status c_%s;' % n)
            b.pre.append('int ign_%s = faro_f_status_in(%s, &c_%s);' % (n, n, n))
            b.arg = 'ign_%s ? MPI_STATUS_IGNORE : &c_%s' % (n, n)
            if p.direction != 'IN':
                b.post.append('if (!ign_%s) faro_f_status_out(&c_%s, %s);' % (n, n, n))
            return b
        length = array_length(fn, p, fints)
        b.dim = 'MPI_STATUS_SIZE,*'
        b.pre.append('MPI_Status *c_%s = faro_f_statuses_in(%s, %s, &faro_nomem);' %
                     (n, n, length))
        b.arg = 'c_%s' % n
        b.post.append('faro_f_statuses_out(c_%s, %s, %s);' % (n, n, length))
        return b
    raise Skip('%s: no Fortran form for %s' % (n, p.decl))


def array_length(fn, p, fints):
    """C expression for a handle or status array's length (its len= kind)."""
    expr = p.length
    if expr is None:
        raise Skip('%s is an array of handles with no len= kind' % p.name)
    if expr in fints:
        return '*' + expr
    if expr == 'comm_size' and 'comm' in fints:
        return 'faro_f_comm_size(MPI_Comm_f2c(*comm))'
    if expr in ('indegree', 'outdegree') and 'comm' in fints:
        return 'faro_f_degree(MPI_Comm_f2c(*comm), %d)' % (expr == 'outdegree')
    raise Skip('%s has length %s, which only the library knows' % (p.name, expr))


class Binding:
    def __init__(self, fn, declared):
        self.fn = fn
        self.large = None       # the large-count form bound beside it (mpi_f08 only)
        self.large_of = None    # for a large-count form: the binding whose generic it joins
        fints = {p.name for p in fn.params if base_type(p)[0] in ('int', 'MPI_Count') and
                 base_type(p)[1] == 0}
        fints |= {p.name for p in fn.params if p.type in HANDLE_TYPES}
        self.params = []
        for p in fn.params:
            b = bind_param(fn, p, declared, fints)
            if b is not None:
                self.params.append((p, b))
        if fn.ret not in ('int', 'double', 'MPI_Aint'):
            raise Skip('returns %s' % fn.ret)
        self.choice = any(b.choice for _, b in self.params)
        self.string = any(b.string for _, b in self.params)
        self.is_function = fn.ret != 'int'
        # mpi_f08 passes a string's length through a module procedure and a
        # buffer as a descriptor: both at once has no template yet
        self.f08 = not (self.choice and self.string)
        if self.is_function and (self.choice or self.string or
                                 any(b.pre for _, b in self.params)):
            raise Skip('returns %s and needs conversions' % fn.ret)


# ---- C ----

C_HEAD = '''/* Generated by api/apigen.py fortran from api/ and include/mpi.h:
 * do not edit. The Fortran bindings (gfortran's convention); see
 * api/apigen_fortran.py and docs/notes.md "Fortran". */
#include <stdlib.h>
#include <string.h>
#include <ISO_Fortran_binding.h>
#include "mpi.h"
#include "fortran/support.h"
'''


def c_binding(bd):
    fn = bd.fn
    lname = lower(fn)
    args = [b.cdecl for _, b in bd.params]
    out = []
    if bd.is_function:
        ret = fn.ret
        out.append('%s p%s_(%s)' % (ret, lname, ', '.join(args) or 'void'))
        out.append('{')
        out.append('    return %s(%s);' % (fn.name, ', '.join(b.arg for _, b in bd.params)))
        out.append('}')
        out.append('#pragma weak %s_ = p%s_' % (lname, lname))
        return out
    args.append('MPI_Fint *ierror')
    args += ['size_t %s' % b.hidden for _, b in bd.params if b.hidden]
    out.append('void p%s_(%s)' % (lname, ', '.join(args)))
    out.append('{')
    pre = [x for _, b in bd.params for x in b.pre]
    post = [x for _, b in bd.params for x in b.post]
    if any('faro_nomem' in x for x in pre):
        out.append('    int faro_nomem = 0;')
    out += ['    ' + x for x in pre]
    call = '%s(%s)' % (fn.name, ', '.join(b.arg for _, b in bd.params))
    if any('faro_nomem' in x for x in pre):
        out.append('    int rc = faro_nomem ? faro_f_nomem("%s") : %s;' % (fn.name, call))
    else:
        out.append('    int rc = %s;' % call)
    out += ['    ' + x for x in post]
    out.append('    if (ierror)')
    out.append('        *ierror = rc;')
    out.append('}')
    out.append('#pragma weak %s_ = p%s_' % (lname, lname))
    if bd.choice and not bd.string:
        # mpi_f08: the buffers come as descriptors of assumed-rank arguments
        dargs, call = [], []
        for p, b in bd.params:
            if b.choice:
                dargs.append('CFI_cdesc_t *%s' % p.name)
                call.append('faro_f08_buf(%s, &faro_nc)' % p.name)
            else:
                dargs.append(b.cdecl)
                call.append(p.name)
        out.append('void faro_f08_%s(%s, MPI_Fint *ierror)' % (lname[4:], ', '.join(dargs)))
        out.append('{')
        out.append('    int faro_nc = 0;')
        out.append('    void *b[] = {%s};' % ', '.join(call[i] for i, (p, b) in
                                                     enumerate(bd.params) if b.choice))
        k = 0
        for i, (p, b) in enumerate(bd.params):
            if b.choice:
                call[i] = 'b[%d]' % k
                k += 1
        out.append('    if (faro_nc) {')
        out.append('        if (ierror)')
        out.append('            *ierror = faro_f_noncontig("%s");' % fn.name)
        out.append('        return;')
        out.append('    }')
        out.append('    p%s_(%s, ierror);' % (lname, ', '.join(call)))
        out.append('}')
    return out


# ---- Fortran ----

def fortran_decls(bd, style):
    """Declaration lines of a bound function's dummies in module mpi (F90)
    or mpi_f08 (F08)."""
    lines = []
    names = []
    for p, b in bd.params:
        names.append(p.name)
        intent = p.direction
        if b.choice:
            if style == 'f90':
                lines.append('!GCC$ ATTRIBUTES NO_ARG_CHECK :: %s' % p.name)
                lines.append('TYPE(*), DIMENSION(*) :: %s' % p.name)
            else:
                lines.append('TYPE(*), DIMENSION(..)%s :: %s' %
                             (', ASYNCHRONOUS' if bd.fn.base.startswith('I') or 'init' in
                              bd.fn.name.lower() else '', p.name))
            continue
        spec = b.f90 if style == 'f90' else b.f08
        if style == 'f08' and b.string:
            spec = 'CHARACTER(KIND=C_CHAR)'
        dim = b.dim
        if style == 'f08' and spec == 'TYPE(MPI_Status)' and dim:
            dim = '' if dim == 'MPI_STATUS_SIZE' else '*'
        if style == 'f08' and b.string:
            dim = '*'
        lines.append('%s, INTENT(%s) :: %s%s' % (spec, intent, p.name,
                                                  '(%s)' % dim if dim else ''))
    return names, lines


def f90_interface(bd):
    fn = bd.fn
    names, lines = fortran_decls(bd, 'f90')
    out = []
    if bd.is_function:
        kind = 'DOUBLE PRECISION' if fn.ret == 'double' else 'INTEGER(KIND=MPI_ADDRESS_KIND)'
        out.append('FUNCTION %s(%s)' % (fn.name, ', '.join(names)))
        out.append('  IMPORT')
        out += ['  ' + x for x in lines]
        out.append('  %s :: %s' % (kind, fn.name))
        out.append('END FUNCTION %s' % fn.name)
        return out
    out.append('SUBROUTINE %s(%s)' % (fn.name, ', '.join(names + ['ierror'])))
    out.append('  IMPORT')
    out += ['  ' + x for x in lines]
    out.append('  INTEGER, INTENT(OUT) :: ierror')
    out.append('END SUBROUTINE %s' % fn.name)
    return out


def f08_interface(bd):
    """mpi_f08: a BIND(C) interface to the C binding; a string argument goes
    through a module procedure that passes its length (f08_wrapper)."""
    fn = bd.fn
    names, lines = fortran_decls(bd, 'f08')
    lname = lower(fn)
    out = []
    if bd.is_function:
        kind = 'REAL(C_DOUBLE)' if fn.ret == 'double' else 'INTEGER(KIND=MPI_ADDRESS_KIND)'
        out.append('FUNCTION %s(%s) BIND(C, NAME="%s_")' % (fn.name, ', '.join(names), lname))
        out.append('  IMPORT')
        out += ['  ' + x for x in lines]
        out.append('  %s :: %s' % (kind, fn.name))
        out.append('END FUNCTION %s' % fn.name)
        return out
    label = 'faro_f08_%s' % lname[4:] if bd.choice else lname + '_'
    name = fn.name if not bd.string else 'faro_c_' + fn.base.lower()
    extra = ['%s_len' % p.name for p, b in bd.params if b.string]
    out.append('SUBROUTINE %s(%s) BIND(C, NAME="%s")' %
               (name, ', '.join(names + ['ierror'] + extra), label))
    out.append('  IMPORT')
    out += ['  ' + x for x in lines]
    out.append('  INTEGER(C_INT), OPTIONAL, INTENT(OUT) :: ierror')
    out += ['  INTEGER(C_SIZE_T), VALUE :: %s' % x for x in extra]
    out.append('END SUBROUTINE %s' % name)
    return out


def f08_wrapper(bd):
    fn = bd.fn
    names, _ = fortran_decls(bd, 'f08')
    out = ['SUBROUTINE %s(%s)' % (fn.name, ', '.join(names + ['ierror']))]
    for p, b in bd.params:
        intent = p.direction
        if b.string:
            out.append('  CHARACTER(LEN=*), INTENT(%s) :: %s' % (intent, p.name))
        else:
            spec = b.f08
            dim = b.dim
            if spec == 'TYPE(MPI_Status)' and dim:
                dim = '' if dim == 'MPI_STATUS_SIZE' else '*'
            out.append('  %s, INTENT(%s) :: %s%s' % (spec, intent, p.name,
                                                      '(%s)' % dim if dim else ''))
    out.append('  INTEGER, OPTIONAL, INTENT(OUT) :: ierror')
    lens = ['LEN(%s, KIND=C_SIZE_T)' % p.name for p, b in bd.params if b.string]
    out.append('  CALL faro_c_%s(%s)' % (fn.base.lower(), ', '.join(names + ['ierror'] + lens)))
    out.append('END SUBROUTINE %s' % fn.name)
    return out


def wrap(lines, width=100):
    """Free-form lines continued with & so none passes the width (132 is the limit)."""
    out = []
    for line in lines:
        indent = ' ' * (len(line) - len(line.lstrip()) + 4)
        while len(line) > width and not line.lstrip().startswith('!'):
            cut = line.rfind(', ', 0, width - 2)
            if cut < 0:
                break
            out.append(line[:cut + 1] + ' &')
            line = indent + line[cut + 2:]
        out.append(line)
    return out


def module_mpi(consts, bindings):
    out = ['! Generated by api/apigen.py fortran from api/*.api and include/mpi.h: do not edit.',
           'MODULE mpi',
           '  IMPLICIT NONE']
    out += ['  INTEGER%s, PARAMETER :: %s = %d' % ('' if -2**31 <= v < 2**31 else '(KIND=8)', n, v)
            for n, v in consts.ints]
    out += ['  INTEGER, PARAMETER :: %s = %d' % (n, i) for n, _t, i in consts.handles]
    out.append('  LOGICAL, PARAMETER :: MPI_SUBARRAYS_SUPPORTED = .FALSE.')
    out.append('  LOGICAL, PARAMETER :: MPI_ASYNC_PROTECTS_NONBLOCKING = .FALSE.')
    for name, block, ftype, _f08, dim in SENTINELS + CHAR_SENTINELS:
        out.append('  %s :: %s%s' % (ftype, name, '(%s)' % dim if dim else ''))
        out.append('  COMMON /%s/ %s' % (block, name))
        out.append('  SAVE /%s/' % block)
    out += ['  EXTERNAL :: %s' % name for name in PREDEFINED_CALLBACKS]
    out.append('  INTERFACE')
    for bd in bindings:
        if not bd.large_of:     # mpi_f08 alone has the large-count forms
            out += ['    ' + x for x in f90_interface(bd)]
    out += HAND_F90
    out.append('  END INTERFACE')
    out.append('END MODULE mpi')
    return '\n'.join(wrap(out)) + '\n'


def module_f08(consts, bindings):
    out = ['! Generated by api/apigen.py fortran from api/*.api and include/mpi.h: do not edit.',
           'MODULE mpi_f08',
           '  USE, INTRINSIC :: ISO_C_BINDING',
           '  IMPLICIT NONE',
           '  PRIVATE :: C_INT, C_SIZE_T, C_CHAR, C_DOUBLE']
    ts = [t for t in HANDLE_TYPES]
    for t in ts:
        out += ['  TYPE, BIND(C) :: %s' % t, '    INTEGER(C_INT) :: MPI_VAL', '  END TYPE %s' % t]
    out += ['  TYPE, BIND(C) :: MPI_Status',
            '    INTEGER(C_INT) :: MPI_SOURCE, MPI_TAG, MPI_ERROR',
            '    INTEGER(C_INT) :: faro_private(%d)' % (consts.status_size - 3),
            '  END TYPE MPI_Status']
    out += ['  INTEGER%s, PARAMETER :: %s = %d' % ('' if -2**31 <= v < 2**31 else '(KIND=8)', n, v)
            for n, v in consts.ints if n not in ('MPI_SOURCE', 'MPI_TAG', 'MPI_ERROR')]
    out += ['  TYPE(%s), PARAMETER :: %s = %s(%d)' % (t, n, t, i) for n, t, i in consts.handles]
    out.append('  LOGICAL, PARAMETER :: MPI_SUBARRAYS_SUPPORTED = .FALSE.')
    out.append('  LOGICAL, PARAMETER :: MPI_ASYNC_PROTECTS_NONBLOCKING = .FALSE.')
    for name, block, _ftype, f08, dim in SENTINELS + CHAR_SENTINELS:
        if f08 == 'TYPE(MPI_Status)':
            dim = '1' if ',' in dim else ''
        out.append('  %s :: %s%s' % (f08, name, '(%s)' % dim if dim else ''))
        out.append('  COMMON /%s/ %s' % (block, name))
        out.append('  SAVE /%s/' % block)
    out += HAND_F08_ABSTRACT
    out.append('  INTERFACE OPERATOR(==)')
    out += ['    MODULE PROCEDURE faro_eq_%s' % t[4:].lower() for t in ts]
    out.append('  END INTERFACE')
    out.append('  INTERFACE OPERATOR(/=)')
    out += ['    MODULE PROCEDURE faro_ne_%s' % t[4:].lower() for t in ts]
    out.append('  END INTERFACE')
    out.append('  INTERFACE')
    strings, generics = [], []
    for bd in [b for b in bindings if b.f08 and not b.large_of]:
        name = bd.fn.name
        if bd.large and not bd.string:
            # a generic of the two BIND(C) interfaces: the kind of the
            # counts chooses (MPI-4.0 section 19.2)
            generics += ['  INTERFACE %s' % name]
            generics += ['    ' + x for x in f08_interface(bd) + f08_interface(bd.large)]
            generics += ['  END INTERFACE %s' % name]
            continue
        for b in [bd] + ([bd.large] if bd.large else []):
            out += ['    ' + x for x in f08_interface(b)]
            if b.string:
                strings.append(b)
        if bd.large:            # the module procedures that pass the strings' lengths
            generics += ['  INTERFACE %s' % name,
                         '    MODULE PROCEDURE %s, %s' % (name, bd.large.fn.name),
                         '  END INTERFACE %s' % name]
    out += HAND_F08
    out.append('  END INTERFACE')
    out += generics
    out.append('CONTAINS')
    for t in ts:
        s = t[4:].lower()
        for op, rel in (('eq', '=='), ('ne', '/=')):
            out += ['  ELEMENTAL LOGICAL FUNCTION faro_%s_%s(a, b)' % (op, s),
                    '    TYPE(%s), INTENT(IN) :: a, b' % t,
                    '    faro_%s_%s = a%%MPI_VAL %s b%%MPI_VAL' % (op, s, rel),
                    '  END FUNCTION']
    for bd in strings:
        out += ['  ' + x for x in f08_wrapper(bd)]
    out += HAND_F08_PROCS
    out.append('END MODULE mpi_f08')
    return '\n'.join(wrap(out)) + '\n'


# ---- everything ----

def large_form(fn):
    """fn's large-count _c form as api/bigcount.py makes it for C: each count
    MPI_Count, each disp MPI_Aint."""
    w = copy.copy(fn)
    w.name = fn.name + '_c'
    w.params = []
    for p in fn.params:
        q = copy.copy(p)
        q.type, q.decl = bigcount.wide_type(p), bigcount.wide_decl(p)
        w.params.append(q)
    return w


def f08_signature(bd, kinds):
    """What Fortran's generic resolution sees of a binding in mpi_f08: per
    dummy argument its type, kind (by value: MPI_COUNT_KIND and
    MPI_ADDRESS_KIND are both 8) and rank."""
    sig = []
    for p, b in bd.params:
        if b.choice:
            sig.append('choice')
            continue
        spec = re.sub(r'KIND=(\w+)', lambda m: 'KIND=%s' % kinds.get(m.group(1), m.group(1)),
                      b.f08)
        sig.append((spec.replace('INTEGER(C_INT)', 'INTEGER'), bool(b.dim)))
    return sig


def bind_large(api, declared, bd, kinds):
    """The large-count form of binding bd for mpi_f08's generic bd.fn.name
    (a specific procedure MPI_X_c beside MPI_X), or (None, why not). It is
    the C _c function's: made from bd's description (bigcount.has_c), or
    described on its own (MPI_Type_get_envelope_c, which gains parameters)."""
    fn = bd.fn
    own = api.functions.get(fn.name + '_c')
    if own is not None and fn.name + '_c' in declared:
        wfn = own
    elif bigcount.has_c(fn):
        wfn = large_form(fn)
    else:
        return None, None
    if not bd.f08:
        return None, 'not in mpi_f08 (a string and a buffer in one call)'
    try:
        wd = Binding(wfn, declared)
    except Skip as e:
        return None, str(e)
    if f08_signature(wd, kinds) == f08_signature(bd, kinds):
        return None, ('its arguments have the int form\'s Fortran types and kinds (its counts '
                      'are MPI_Aint or MPI_Count there already, and MPI_ADDRESS_KIND is '
                      'MPI_COUNT_KIND): the int form serves both')
    return wd, None


def bind_all(api, declared, kinds):
    """(bindings, excluded [(name, why)], unpaired [(name, why)]) for every
    described function mpi.h declares; a binding's large-count form (its
    .large, mpi_f08 only) is in the list too, after the others."""
    bindings, excluded, unpaired = [], [], []
    own_large = set()
    for name in api.order:
        if name not in declared or name in HAND or C_ONLY.match(name):
            continue
        if name.endswith('_c') and name[:-2] in declared and name[:-2] not in HAND:
            own_large.add(name)     # bound as its int form's large-count form below
            continue
        fn = api.functions[name]
        try:
            bindings.append(Binding(fn, declared))
        except Skip as e:
            excluded.append((name, str(e)))
    large = []
    for bd in bindings:
        if bd.is_function:
            continue
        wd, why = bind_large(api, declared, bd, kinds)
        if wd is not None:
            bd.large, wd.large_of = wd, bd
            large.append(wd)
            own_large.discard(wd.fn.name)
        elif why:
            (excluded if bd.fn.name + '_c' in own_large else unpaired).append(
                (bd.fn.name + '_c', why))
            own_large.discard(bd.fn.name + '_c')
    for name in sorted(own_large):
        excluded.append((name, 'a large-count form whose int form %s has no generated '
                         'binding' % name[:-2]))
    return bindings + large, excluded, unpaired


def c_file(consts, bindings):
    out = [C_HEAD]
    out.append('_Static_assert(sizeof(MPI_Fint) == sizeof(int), "MPI_Fint is int");')
    out.append('_Static_assert(sizeof(MPI_Status) == %d * sizeof(MPI_Fint), '
               '"MPI_STATUS_SIZE is mpi.h\'s MPI_Status");' % consts.status_size)
    out.append('')
    out.append('/* The sentinels: Fortran names them as common blocks (mpif.h and the')
    out.append(' * modules), the bindings compare addresses. */')
    for name, block, _f, _f08, dim in SENTINELS:
        n = consts.status_size if 'STATUS' in name else 1
        out.append('MPI_Fint %s_[%d] __attribute__((aligned(16)));' % (block, n))
    for name, block, _f, _f08, dim in CHAR_SENTINELS:
        out.append('char %s_[16] __attribute__((aligned(16)));' % block)
    out.append('')
    out.append('/* The predefined handles\' integers are the constants of mpif.h: converted')
    out.append(' * once, in mpi.h\'s order, before main runs. */')
    out.append('__attribute__((constructor)) static void faro_f_number_predefined(void)')
    out.append('{')
    for t in HANDLE_TYPES:
        for i, name in enumerate(consts.predefined.get(t, []), 1):
            out.append('    faro_f_predefined(MPI_%s_c2f(%s), %d, "%s");' %
                       (c2f_name(t), name, i, name))
    out.append('}')
    for bd in bindings:
        out += c_binding(bd)
        out.append('')
    return '\n'.join(out) + '\n'


def listing(bindings, excluded, unpaired, api_c_only):
    out = ['# Generated by api/apigen.py fortran: every MPI function mpi.h declares,',
           '# and how Fortran gets it. "mpif.h mpi mpi_f08": generated in all three;',
           '# "hand": written by hand in api/apigen_fortran.py (HAND); "excluded": why not.']
    for bd in bindings:
        if bd.large_of:
            out.append('%s mpi_f08 (large count: a specific procedure of the generic %s)' %
                       (bd.fn.name, bd.large_of.fn.name))
            continue
        out.append('%s mpif.h mpi%s%s' % (bd.fn.name, ' mpi_f08' if bd.f08 else '',
                                          ' (choice)' if bd.choice else ''))
        if not bd.f08:
            out[-1] += ' (not in mpi_f08: a string and a buffer in one call)'
    for name, why in unpaired:
        out.append('%s no large-count form in mpi_f08: %s' % (name, why))
    for name in sorted(HAND):
        out.append('%s hand: %s' % (name, HAND[name]))
    for name in sorted(FORTRAN_ONLY):
        out.append('%s Fortran only, by hand: %s' % (name, FORTRAN_ONLY[name]))
    for name, why in excluded:
        out.append('%s excluded: %s' % (name, why))
    for name in api_c_only:
        out.append('%s C only (the standard gives it no Fortran binding)' % name)
    return '\n'.join(out) + '\n'


def write_all(api, declared, mpi_h, outdir, write):
    consts = Constants(mpi_h)
    bindings, excluded, unpaired = bind_all(api, declared, dict(consts.ints))
    os.makedirs(outdir, exist_ok=True)
    write(os.path.join(outdir, 'faro_fortran.c'), c_file(consts, bindings))
    write(os.path.join(outdir, 'mpif.h'), mpifh(consts))
    write(os.path.join(outdir, 'mpi.f90'), module_mpi(consts, bindings))
    write(os.path.join(outdir, 'mpi_f08.f90'), module_f08(consts, bindings))
    c_only = [n for n in api.order if n in declared and C_ONLY.match(n)]
    write(os.path.join(outdir, 'bindings.txt'), listing(bindings, excluded, unpaired, c_only))
    return bindings, excluded
