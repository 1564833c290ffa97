"""mpi.h's constants as Fortran sees them, and mpif.h (for apigen_fortran.py).

Integers are mpi.h's #define values, evaluated; predefined handles are
numbered per handle type in mpi.h's order (docs/notes.md "Fortran" says why
new ones go at the end of their kind); sentinels are common blocks.
"""
import re

from apigen_fortran_hand import PREDEFINED_CALLBACKS

HANDLE_TYPES = ['MPI_Comm', 'MPI_Datatype', 'MPI_Group', 'MPI_Request', 'MPI_Op', 'MPI_Info',
                'MPI_Errhandler', 'MPI_Message', 'MPI_Win', 'MPI_File', 'MPI_Session']
# Pointer constants of mpi.h that Fortran spells as a variable: the common
# block that holds it, its Fortran declaration in mpif.h and in mpi_f08, and
# the C bindings' test (apigen_fortran.py's PARAM_SENTINELS names the
# parameters they may stand for).
SENTINELS = [
    # name, common block, mpif.h type, f08 type, dimension
    ('MPI_STATUS_IGNORE', 'faro_status_ignore', 'INTEGER', 'TYPE(MPI_Status)', 'MPI_STATUS_SIZE'),
    ('MPI_STATUSES_IGNORE', 'faro_statuses_ignore', 'INTEGER', 'TYPE(MPI_Status)',
     'MPI_STATUS_SIZE,1'),
    ('MPI_IN_PLACE', 'faro_in_place', 'INTEGER', 'INTEGER', ''),
    ('MPI_BOTTOM', 'faro_bottom', 'INTEGER', 'INTEGER', ''),
    ('MPI_ERRCODES_IGNORE', 'faro_errcodes_ignore', 'INTEGER', 'INTEGER', '1'),
    ('MPI_UNWEIGHTED', 'faro_unweighted', 'INTEGER', 'INTEGER', '1'),
    ('MPI_WEIGHTS_EMPTY', 'faro_weights_empty', 'INTEGER', 'INTEGER', '1'),
]
# MPI_ARGV_NULL, MPI_ARGVS_NULL: CHARACTER, so in common blocks of their own
# (hand.c's spawn)
CHAR_SENTINELS = [('MPI_ARGV_NULL', 'faro_argv_null', 'CHARACTER*1', 'CHARACTER(LEN=1)', '1'),
                  ('MPI_ARGVS_NULL', 'faro_argvs_null', 'CHARACTER*1', 'CHARACTER(LEN=1)', '1,1')]


class Constants:
    """mpi.h's constants as Fortran sees them: integers (value), handles
    (integer handle: the predefined objects are numbered in mpi.h's order
    per handle type, 1, 2, ...; null handles are 0) and sentinels."""

    def __init__(self, mpi_h):
        with open(mpi_h, encoding='utf-8') as f:
            text = re.sub(r'/\*.*?\*/', ' ', f.read(), flags=re.S)
        self.ints = []          # (name, value)
        self.handles = []       # (name, type, index)
        self.predefined = {}    # type -> [C expression in index order]
        self.skipped = []       # (name, why)
        known = {}
        objects = {}            # (type, object) -> index
        self.status_size = self._status_size(text)
        for m in re.finditer(r'^#define\s+(MPI_\w+)\s+(.+?)\s*$', text, re.M):
            name, val = m.group(1), m.group(2)
            h = re.match(r'^\(\((MPI_\w+)\)\s*(&?\w+)\)$', val)
            if h and h.group(1) in HANDLE_TYPES:
                t, obj = h.group(1), h.group(2)
                if obj == '0':
                    idx = 0
                else:
                    lst = self.predefined.setdefault(t, [])
                    if (t, obj) not in objects:
                        lst.append(name)
                        objects[(t, obj)] = len(lst)
                    idx = objects[(t, obj)]
                self.handles.append((name, t, idx))
                known[name] = ('h', t, idx)
                continue
            if val in known and known[val][0] == 'h':
                self.handles.append((name, known[val][1], known[val][2]))
                continue
            if name == 'MPI_F_STATUS_SIZE':
                self.ints.append((name, self.status_size))
                known[name] = ('i', self.status_size)
                continue
            expr = re.sub(r'\((int|long|long long|unsigned)\)', '', val)
            expr = re.sub(r'\b(MPI_\w+)\b', lambda x: str(known[x.group(1)][1])
                          if x.group(1) in known and known[x.group(1)][0] == 'i'
                          else x.group(0), expr)
            if re.match(r'^[\s\d()+\-*|<x]+$', expr) and not re.search(r'[A-Za-z_]', expr.replace('0x', '')):
                try:
                    v = int(eval(expr, {'__builtins__': {}}))
                except Exception:
                    self.skipped.append((name, 'cannot evaluate "%s"' % val))
                    continue
                self.ints.append((name, v))
                known[name] = ('i', v)
                continue
            if name not in [s[0] for s in SENTINELS]:
                self.skipped.append((name, val))
        self.ints.append(('MPI_STATUS_SIZE', self.status_size))
        for k, v in (('MPI_ADDRESS_KIND', 8), ('MPI_OFFSET_KIND', 8), ('MPI_COUNT_KIND', 8),
                     ('MPI_INTEGER_KIND', 4), ('MPI_SOURCE', 1), ('MPI_TAG', 2),
                     ('MPI_ERROR', 3)):
            self.ints.append((k, v))

    @staticmethod
    def _status_size(text):
        m = re.search(r'typedef struct MPI_Status \{(.*?)\} MPI_Status;', text, re.S)
        size = 0
        for t in re.findall(r'^\s*([\w ]+?)\s+\w+;', m.group(1), re.M):
            n = 8 if t in ('long long', 'MPI_Count', 'MPI_Offset', 'MPI_Aint', 'size_t') else 4
            size = (size + n - 1) // n * n + n
        size = (size + 7) // 8 * 8
        return size // 4


def mpifh(consts):
    """mpif.h: fixed and free form alike (code from column 7, no line past 72)."""
    out = ['! Generated by api/apigen.py fortran from include/mpi.h: do not edit.',
           '! Faro\'s mpif.h: the constants, and the sentinels as common blocks.']
    for name, v in consts.ints:
        kind = '' if -2**31 <= v < 2**31 else '(KIND=8)'
        out.append('      INTEGER%s %s' % (kind, name))
        out.append('      PARAMETER (%s=%d%s)' % (name, v, '_8' if kind else ''))
    for name, _t, idx in consts.handles:
        out.append('      INTEGER %s' % name)
        out.append('      PARAMETER (%s=%d)' % (name, idx))
    for name, block, ftype, _f08, dim in SENTINELS + CHAR_SENTINELS:
        out.append('      %s %s%s' % (ftype, name, '(%s)' % dim if dim else ''))
        out.append('      COMMON /%s/ %s' % (block, name))
        out.append('      SAVE /%s/' % block)
    for name, kind in (('MPI_WTIME', 'DOUBLE PRECISION'), ('MPI_WTICK', 'DOUBLE PRECISION'),
                       ('MPI_AINT_ADD', 'INTEGER(KIND=MPI_ADDRESS_KIND)'),
                       ('MPI_AINT_DIFF', 'INTEGER(KIND=MPI_ADDRESS_KIND)')):
        out.append('      %s %s' % (kind, name))
        out.append('      EXTERNAL %s' % name)
    for name in PREDEFINED_CALLBACKS:
        out.append('      EXTERNAL %s' % name)
    for line in out:
        assert len(line) <= 72, line
    return '\n'.join(out) + '\n'
