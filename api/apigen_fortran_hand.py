"""The Fortran bindings written by hand: what api/apigen_fortran.py does not
generate, each with the reason (HAND), and their Fortran interfaces for
module mpi (HAND_F90) and mpi_f08 (HAND_F08, HAND_F08_PROCS: module
procedures). Their C is fortran/hand.c.
"""

HAND = {
    'MPI_Init': 'argc/argv: Fortran has no command line arguments to pass',
    'MPI_Init_thread': 'argc/argv: Fortran has no command line arguments to pass',
    'MPI_Op_create': 'the callback is a Fortran subroutine: C calls it through a trampoline',
    'MPI_Comm_create_errhandler': 'the callback is a Fortran subroutine (trampoline)',
    'MPI_Win_create_errhandler': 'the callback is a Fortran subroutine (trampoline)',
    'MPI_File_create_errhandler': 'the callback is a Fortran subroutine (trampoline)',
    'MPI_Session_create_errhandler': 'the callback is a Fortran subroutine (trampoline)',
    'MPI_Info_create_env': 'argc/argv are C\'s: the Fortran form has only info',
    'MPI_Comm_create_keyval': 'copy and delete callbacks in Fortran (held in extra_state)',
    'MPI_Type_create_keyval': 'copy and delete callbacks in Fortran (held in extra_state)',
    'MPI_Win_create_keyval': 'copy and delete callbacks in Fortran (held in extra_state)',
    'MPI_Comm_spawn': 'argv is an array of CHARACTER strings ending with a blank one',
    'MPI_Grequest_start': 'query, free and cancel callbacks in Fortran (held in extra_state)',
    'MPI_Comm_spawn_multiple': 'commands and argv(count, *) are CHARACTER arrays',
    'MPI_Op_create_c': 'the callback is a Fortran subroutine (trampoline); mpi_f08 only',
    'MPI_Register_datarep': 'conversion and extent callbacks in Fortran (held in extra_state)',
}
# Fortran's own procedures, with no C function of the name (their C is in
# fortran/hand.c too)
FORTRAN_ONLY = {
    'MPI_Sizeof': 'mpi and mpi_f08: the byte size of a variable of any intrinsic type, kind '
                  'and rank (the element length of its descriptor)',
    'MPI_F_sync_reg': 'mpif.h, mpi and mpi_f08: an opaque call that makes the compiler store '
                      'and reload a variable',
}

# Keyval creation and its predefined callbacks, alike for the three kinds.
_KEYVAL_OBJ = (('Comm', 'comm', 'oldcomm', 'comm'), ('Type', 'type', 'oldtype', 'datatype'),
               ('Win', 'win', 'oldwin', 'win'))
# the predefined callbacks (external subroutines, in C in fortran/hand.c)
PREDEFINED_CALLBACKS = ['MPI_%s_%s' % (o.upper(), f) for o, _l, _a, _b in _KEYVAL_OBJ
                        for f in ('NULL_COPY_FN', 'DUP_FN', 'NULL_DELETE_FN')]
PREDEFINED_CALLBACKS.append('MPI_CONVERSION_FUNCTION_NULL')

HAND_F90 = '''    SUBROUTINE MPI_Init(ierror)
      INTEGER, INTENT(OUT) :: ierror
    END SUBROUTINE MPI_Init
    SUBROUTINE MPI_Init_thread(required, provided, ierror)
      INTEGER, INTENT(IN) :: required
      INTEGER, INTENT(OUT) :: provided, ierror
    END SUBROUTINE MPI_Init_thread
    SUBROUTINE MPI_Info_create_env(info, ierror)
      INTEGER, INTENT(OUT) :: info, ierror
    END SUBROUTINE MPI_Info_create_env
    SUBROUTINE MPI_Comm_spawn(command, argv, maxprocs, info, root, comm, intercomm, array_of_errcodes, ierror)
      CHARACTER(LEN=*), INTENT(IN) :: command, argv(*)
      INTEGER, INTENT(IN) :: maxprocs, info, root, comm
      INTEGER, INTENT(OUT) :: intercomm, array_of_errcodes(*), ierror
    END SUBROUTINE MPI_Comm_spawn
    SUBROUTINE MPI_Comm_spawn_multiple(count, array_of_commands, array_of_argv, array_of_maxprocs, array_of_info, root, comm, intercomm, array_of_errcodes, ierror)
      INTEGER, INTENT(IN) :: count, array_of_maxprocs(*), array_of_info(*), root, comm
      CHARACTER(LEN=*), INTENT(IN) :: array_of_commands(*), array_of_argv(count, *)
      INTEGER, INTENT(OUT) :: intercomm, array_of_errcodes(*), ierror
    END SUBROUTINE MPI_Comm_spawn_multiple
    SUBROUTINE MPI_Grequest_start(query_fn, free_fn, cancel_fn, extra_state, request, ierror)
      IMPORT
      EXTERNAL :: query_fn, free_fn, cancel_fn
      INTEGER(KIND=MPI_ADDRESS_KIND), INTENT(IN) :: extra_state
      INTEGER, INTENT(OUT) :: request, ierror
    END SUBROUTINE MPI_Grequest_start
    SUBROUTINE MPI_Op_create(user_fn, commute, op, ierror)
      EXTERNAL :: user_fn
      LOGICAL, INTENT(IN) :: commute
      INTEGER, INTENT(OUT) :: op, ierror
    END SUBROUTINE MPI_Op_create
    SUBROUTINE MPI_Register_datarep(datarep, read_conversion_fn, write_conversion_fn, dtype_file_extent_fn, extra_state, ierror)
      IMPORT
      CHARACTER(LEN=*), INTENT(IN) :: datarep
      EXTERNAL :: read_conversion_fn, write_conversion_fn, dtype_file_extent_fn
      INTEGER(KIND=MPI_ADDRESS_KIND), INTENT(IN) :: extra_state
      INTEGER, INTENT(OUT) :: ierror
    END SUBROUTINE MPI_Register_datarep
    SUBROUTINE MPI_Sizeof(x, size, ierror) BIND(C, NAME="faro_f_sizeof")
      TYPE(*), DIMENSION(..) :: x
      INTEGER, INTENT(OUT) :: size, ierror
    END SUBROUTINE MPI_Sizeof
    SUBROUTINE MPI_F_sync_reg(buf)
!GCC$ ATTRIBUTES NO_ARG_CHECK :: buf
      TYPE(*), DIMENSION(*) :: buf
    END SUBROUTINE MPI_F_sync_reg'''.split('\n')

HAND_F08 = '''    SUBROUTINE MPI_Init(ierror) BIND(C, NAME="mpi_init_")
      IMPORT
      INTEGER(C_INT), OPTIONAL, INTENT(OUT) :: ierror
    END SUBROUTINE MPI_Init
    SUBROUTINE MPI_Init_thread(required, provided, ierror) BIND(C, NAME="mpi_init_thread_")
      IMPORT
      INTEGER(C_INT), INTENT(IN) :: required
      INTEGER(C_INT), INTENT(OUT) :: provided
      INTEGER(C_INT), OPTIONAL, INTENT(OUT) :: ierror
    END SUBROUTINE MPI_Init_thread
    SUBROUTINE MPI_Info_create_env(info, ierror) BIND(C, NAME="mpi_info_create_env_")
      IMPORT
      TYPE(MPI_Info), INTENT(OUT) :: info
      INTEGER(C_INT), OPTIONAL, INTENT(OUT) :: ierror
    END SUBROUTINE MPI_Info_create_env
    SUBROUTINE MPI_Sizeof(x, size, ierror) BIND(C, NAME="faro_f_sizeof")
      IMPORT
      TYPE(*), DIMENSION(..) :: x
      INTEGER(C_INT), INTENT(OUT) :: size
      INTEGER(C_INT), OPTIONAL, INTENT(OUT) :: ierror
    END SUBROUTINE MPI_Sizeof
    SUBROUTINE MPI_F_sync_reg(buf) BIND(C, NAME="faro_f08_f_sync_reg")
      TYPE(*), DIMENSION(..), ASYNCHRONOUS :: buf
    END SUBROUTINE MPI_F_sync_reg'''.split('\n')

HAND_F08_PROCS = '''  SUBROUTINE MPI_Comm_spawn(command, argv, maxprocs, info, root, comm, intercomm, array_of_errcodes, ierror)
    CHARACTER(LEN=*), INTENT(IN) :: command, argv(*)
    INTEGER, INTENT(IN) :: maxprocs, root
    TYPE(MPI_Info), INTENT(IN) :: info
    TYPE(MPI_Comm), INTENT(IN) :: comm
    TYPE(MPI_Comm), INTENT(OUT) :: intercomm
    INTEGER :: array_of_errcodes(*)
    INTEGER, OPTIONAL, INTENT(OUT) :: ierror
    INTEGER :: e
    EXTERNAL :: faro_f_comm_spawn
    CALL faro_f_comm_spawn(command, argv, maxprocs, info%MPI_VAL, root, comm%MPI_VAL, &
                           intercomm%MPI_VAL, array_of_errcodes, e)
    IF (PRESENT(ierror)) ierror = e
  END SUBROUTINE MPI_Comm_spawn
  SUBROUTINE MPI_Comm_spawn_multiple(count, array_of_commands, array_of_argv, array_of_maxprocs, array_of_info, root, comm, intercomm, array_of_errcodes, ierror)
    INTEGER, INTENT(IN) :: count, array_of_maxprocs(*), root
    CHARACTER(LEN=*), INTENT(IN) :: array_of_commands(*), array_of_argv(count, *)
    TYPE(MPI_Info), INTENT(IN) :: array_of_info(*)
    TYPE(MPI_Comm), INTENT(IN) :: comm
    TYPE(MPI_Comm), INTENT(OUT) :: intercomm
    INTEGER :: array_of_errcodes(*)
    INTEGER, OPTIONAL, INTENT(OUT) :: ierror
    INTEGER :: e
    EXTERNAL :: faro_f_comm_spawn_multiple
    CALL faro_f_comm_spawn_multiple(count, array_of_commands, array_of_argv, array_of_maxprocs, &
                                    array_of_info, root, comm%MPI_VAL, intercomm%MPI_VAL, &
                                    array_of_errcodes, e)
    IF (PRESENT(ierror)) ierror = e
  END SUBROUTINE MPI_Comm_spawn_multiple
  SUBROUTINE MPI_Grequest_start(query_fn, free_fn, cancel_fn, extra_state, request, ierror)
    PROCEDURE(MPI_Grequest_query_function) :: query_fn
    PROCEDURE(MPI_Grequest_free_function) :: free_fn
    PROCEDURE(MPI_Grequest_cancel_function) :: cancel_fn
    INTEGER(KIND=MPI_ADDRESS_KIND), INTENT(IN) :: extra_state
    TYPE(MPI_Request), INTENT(OUT) :: request
    INTEGER, OPTIONAL, INTENT(OUT) :: ierror
    INTEGER :: e
    EXTERNAL :: faro_f_grequest_start
    CALL faro_f_grequest_start(query_fn, free_fn, cancel_fn, extra_state, request%MPI_VAL, e)
    IF (PRESENT(ierror)) ierror = e
  END SUBROUTINE MPI_Grequest_start
  SUBROUTINE MPI_Register_datarep(datarep, read_conversion_fn, write_conversion_fn, dtype_file_extent_fn, extra_state, ierror)
    CHARACTER(LEN=*), INTENT(IN) :: datarep
    PROCEDURE(MPI_Datarep_conversion_function) :: read_conversion_fn, write_conversion_fn
    PROCEDURE(MPI_Datarep_extent_function) :: dtype_file_extent_fn
    INTEGER(KIND=MPI_ADDRESS_KIND), INTENT(IN) :: extra_state
    INTEGER, OPTIONAL, INTENT(OUT) :: ierror
    INTEGER :: e
    EXTERNAL :: faro_f_register_datarep
    CALL faro_f_register_datarep(datarep, read_conversion_fn, write_conversion_fn, &
                                 dtype_file_extent_fn, extra_state, e)
    IF (PRESENT(ierror)) ierror = e
  END SUBROUTINE MPI_Register_datarep'''.split('\n')
# MPI_Op_create and MPI_Op_create_c (mpi_f08 only) differ in the function's len
for _c in ('', '_c'):
    HAND_F08_PROCS += ('''  SUBROUTINE MPI_Op_create%(c)s(user_fn, commute, op, ierror)
    PROCEDURE(MPI_User_function%(c)s) :: user_fn
    LOGICAL, INTENT(IN) :: commute
    TYPE(MPI_Op), INTENT(OUT) :: op
    INTEGER, OPTIONAL, INTENT(OUT) :: ierror
    INTEGER :: e
    EXTERNAL :: faro_f_op_create%(c)s
    CALL faro_f_op_create%(c)s(user_fn, commute, op%%MPI_VAL, e)
    IF (PRESENT(ierror)) ierror = e
  END SUBROUTINE MPI_Op_create%(c)s''' % {'c': _c}).split('\n')
# the four create_errhandler procedures differ only in the object kind
ERRHANDLER_OBJECTS = ('Comm', 'Win', 'File', 'Session')
for _obj in ERRHANDLER_OBJECTS:
    HAND_F90 += ('''    SUBROUTINE MPI_%(o)s_create_errhandler(%(l)s_errhandler_fn, errhandler, ierror)
      EXTERNAL :: %(l)s_errhandler_fn
      INTEGER, INTENT(OUT) :: errhandler, ierror
    END SUBROUTINE MPI_%(o)s_create_errhandler''' % {'o': _obj, 'l': _obj.lower()}).split('\n')
    HAND_F08_PROCS += ('''  SUBROUTINE MPI_%(o)s_create_errhandler(%(l)s_errhandler_fn, errhandler, ierror)
    PROCEDURE(MPI_%(o)s_errhandler_function) :: %(l)s_errhandler_fn
    TYPE(MPI_Errhandler), INTENT(OUT) :: errhandler
    INTEGER, OPTIONAL, INTENT(OUT) :: ierror
    INTEGER :: e
    EXTERNAL :: faro_f_%(l)s_create_errhandler
    CALL faro_f_%(l)s_create_errhandler(%(l)s_errhandler_fn, errhandler%%MPI_VAL, e)
    IF (PRESENT(ierror)) ierror = e
  END SUBROUTINE MPI_%(o)s_create_errhandler''' % {'o': _obj, 'l': _obj.lower()}).split('\n')

# mpi_f08's abstract interfaces of the callbacks (the module declares
# them before its interfaces)
HAND_F08_ABSTRACT = '''  ABSTRACT INTERFACE
    SUBROUTINE MPI_User_function(invec, inoutvec, len, datatype)
      IMPORT
      TYPE(C_PTR), VALUE :: invec, inoutvec
      INTEGER :: len
      TYPE(MPI_Datatype) :: datatype
    END SUBROUTINE MPI_User_function
    SUBROUTINE MPI_User_function_c(invec, inoutvec, len, datatype)
      IMPORT
      TYPE(C_PTR), VALUE :: invec, inoutvec
      INTEGER(KIND=MPI_COUNT_KIND) :: len
      TYPE(MPI_Datatype) :: datatype
    END SUBROUTINE MPI_User_function_c
    SUBROUTINE MPI_Datarep_conversion_function(userbuf, datatype, count, filebuf, position, extra_state, ierror)
      IMPORT
      TYPE(C_PTR), VALUE :: userbuf, filebuf
      TYPE(MPI_Datatype) :: datatype
      INTEGER :: count, ierror
      INTEGER(KIND=MPI_OFFSET_KIND) :: position
      INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state
    END SUBROUTINE MPI_Datarep_conversion_function
    SUBROUTINE MPI_Datarep_extent_function(datatype, extent, extra_state, ierror)
      IMPORT
      TYPE(MPI_Datatype) :: datatype
      INTEGER(KIND=MPI_ADDRESS_KIND) :: extent, extra_state
      INTEGER :: ierror
    END SUBROUTINE MPI_Datarep_extent_function
    SUBROUTINE MPI_Grequest_query_function(extra_state, status, ierror)
      IMPORT
      INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state
      TYPE(MPI_Status) :: status
      INTEGER :: ierror
    END SUBROUTINE MPI_Grequest_query_function
    SUBROUTINE MPI_Grequest_free_function(extra_state, ierror)
      IMPORT
      INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state
      INTEGER :: ierror
    END SUBROUTINE MPI_Grequest_free_function
    SUBROUTINE MPI_Grequest_cancel_function(extra_state, complete, ierror)
      IMPORT
      INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state
      LOGICAL :: complete
      INTEGER :: ierror
    END SUBROUTINE MPI_Grequest_cancel_function
  END INTERFACE'''.split('\n')
for _obj in ERRHANDLER_OBJECTS:
    HAND_F08_ABSTRACT[-1:-1] = ('''    SUBROUTINE MPI_%(o)s_errhandler_function(%(l)s, error_code)
      IMPORT
      TYPE(MPI_%(o)s) :: %(l)s
      INTEGER :: error_code
    END SUBROUTINE MPI_%(o)s_errhandler_function''' % {'o': _obj, 'l': _obj.lower()}).split('\n')

_abstract, _externals = [], []
for _o, _l, _old, _obj in _KEYVAL_OBJ:
    _t = 'Datatype' if _o == 'Type' else _o
    _v = {'o': _o, 'l': _l, 'old': _old, 'obj': _obj, 't': _t}
    HAND_F90 += ('''    SUBROUTINE MPI_%(o)s_create_keyval(%(l)s_copy_attr_fn, %(l)s_delete_attr_fn, %(l)s_keyval, extra_state, ierror)
      IMPORT
      EXTERNAL :: %(l)s_copy_attr_fn, %(l)s_delete_attr_fn
      INTEGER, INTENT(OUT) :: %(l)s_keyval, ierror
      INTEGER(KIND=MPI_ADDRESS_KIND), INTENT(IN) :: extra_state
    END SUBROUTINE MPI_%(o)s_create_keyval''' % _v).split('\n')
    HAND_F08_PROCS += ('''  SUBROUTINE MPI_%(o)s_create_keyval(%(l)s_copy_attr_fn, %(l)s_delete_attr_fn, %(l)s_keyval, extra_state, ierror)
    PROCEDURE(MPI_%(o)s_copy_attr_function) :: %(l)s_copy_attr_fn
    PROCEDURE(MPI_%(o)s_delete_attr_function) :: %(l)s_delete_attr_fn
    INTEGER, INTENT(OUT) :: %(l)s_keyval
    INTEGER(KIND=MPI_ADDRESS_KIND), INTENT(IN) :: extra_state
    INTEGER, OPTIONAL, INTENT(OUT) :: ierror
    INTEGER :: e
    EXTERNAL :: faro_f_%(l)s_create_keyval
    CALL faro_f_%(l)s_create_keyval(%(l)s_copy_attr_fn, %(l)s_delete_attr_fn, %(l)s_keyval, extra_state, e)
    IF (PRESENT(ierror)) ierror = e
  END SUBROUTINE MPI_%(o)s_create_keyval''' % _v).split('\n')
    _abstract += ('''    SUBROUTINE MPI_%(o)s_copy_attr_function(%(old)s, %(l)s_keyval, extra_state, attribute_val_in, attribute_val_out, flag, ierror)
      IMPORT
      TYPE(MPI_%(t)s) :: %(old)s
      INTEGER :: %(l)s_keyval, ierror
      INTEGER(KIND=MPI_ADDRESS_KIND) :: extra_state, attribute_val_in, attribute_val_out
      LOGICAL :: flag
    END SUBROUTINE MPI_%(o)s_copy_attr_function
    SUBROUTINE MPI_%(o)s_delete_attr_function(%(obj)s, %(l)s_keyval, attribute_val, extra_state, ierror)
      IMPORT
      TYPE(MPI_%(t)s) :: %(obj)s
      INTEGER :: %(l)s_keyval, ierror
      INTEGER(KIND=MPI_ADDRESS_KIND) :: attribute_val, extra_state
    END SUBROUTINE MPI_%(o)s_delete_attr_function''' % _v).split('\n')
    # the predefined callbacks: external subroutines with these interfaces
    _externals += ['  PROCEDURE(MPI_%(o)s_copy_attr_function) :: MPI_%(u)s_NULL_COPY_FN, MPI_%(u)s_DUP_FN'
                          % dict(_v, u=_o.upper()),
                          '  PROCEDURE(MPI_%(o)s_delete_attr_function) :: MPI_%(u)s_NULL_DELETE_FN'
                          % dict(_v, u=_o.upper())]
HAND_F08_ABSTRACT[-1:-1] = _abstract     # before its END INTERFACE
HAND_F08_ABSTRACT += _externals
HAND_F08_ABSTRACT.append('  PROCEDURE(MPI_Datarep_conversion_function) :: '
                         'MPI_CONVERSION_FUNCTION_NULL')
