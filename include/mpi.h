/*
 * Faro: the MPI C API.
 *
 * Handles are pointers to Faro objects; predefined handles are the addresses
 * of objects inside the library, null handles are NULL. A program copies the
 * predefined objects it uses into itself when it starts (ELF copy
 * relocations), with the size the library had when the program was linked: so
 * every predefined object is exported at a fixed size per kind
 * (FARO_PREDEFINED_*_SIZE, part of the binary interface), whatever the
 * library's own structures hold, and programs keep working with newer
 * libraries. Every function exists
 * under its MPI_ name and its PMPI_ profiling name (the MPI_ name is a weak
 * alias, so a tool may define its own MPI_ functions and call PMPI_).
 *
 * Only functions Faro implements are declared here: a program that needs one
 * that is missing fails to compile or link instead of running wrongly.
 */
#ifndef FARO_MPI_H
#define FARO_MPI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What this header declares is the library's interface; everything else in
 * libfaro is built hidden (-fvisibility=hidden), so internal calls bind
 * directly instead of through the PLT. */
#if defined(__GNUC__)
#pragma GCC visibility push(default)
#endif

#define FARO 1
#define FARO_VERSION_STRING "0.1.0"
#define MPI_VERSION 3
#define MPI_SUBVERSION 1

/* ---- handles ---- */
typedef struct faro_comm *MPI_Comm;
typedef struct faro_datatype *MPI_Datatype;
typedef struct faro_request *MPI_Request;
typedef struct faro_errhandler *MPI_Errhandler;
typedef struct faro_op *MPI_Op;
typedef struct faro_group *MPI_Group;
typedef struct faro_info *MPI_Info;
typedef struct faro_message *MPI_Message;
typedef struct faro_win *MPI_Win;

typedef intptr_t MPI_Aint;
typedef long long MPI_Offset;
typedef long long MPI_Count;
typedef int MPI_Fint;

typedef struct MPI_Status {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    int faro_cancelled;    /* private */
    long long faro_count;  /* private: bytes received */
} MPI_Status;

typedef void MPI_Comm_errhandler_function(MPI_Comm *, int *, ...);
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn;
typedef void MPI_Win_errhandler_function(MPI_Win *, int *, ...);
typedef MPI_Win_errhandler_function MPI_Win_errhandler_fn;

/* ---- predefined objects (inside the library) ----
 * Declared as opaque fixed-size objects (see the top of this file); the
 * handle macros cast their addresses to the handle types. */
#define FARO_PREDEFINED_COMM_SIZE 512
#define FARO_PREDEFINED_DATATYPE_SIZE 512
#define FARO_PREDEFINED_OP_SIZE 128
#define FARO_PREDEFINED_GROUP_SIZE 128
#define FARO_PREDEFINED_ERRHANDLER_SIZE 128
#define FARO_PREDEFINED_MESSAGE_SIZE 128
#define FARO_PREDEFINED_INFO_SIZE 128
#define FARO_PREDEFINED(type, name) extern struct type##_predefined name;
FARO_PREDEFINED(faro_comm, faro_mpi_comm_world)
FARO_PREDEFINED(faro_comm, faro_mpi_comm_self)
FARO_PREDEFINED(faro_errhandler, faro_mpi_errors_are_fatal)
FARO_PREDEFINED(faro_errhandler, faro_mpi_errors_return)
FARO_PREDEFINED(faro_errhandler, faro_mpi_errors_abort)
FARO_PREDEFINED(faro_message, faro_mpi_message_no_proc)

#define MPI_COMM_WORLD ((MPI_Comm)&faro_mpi_comm_world)
#define MPI_COMM_SELF ((MPI_Comm)&faro_mpi_comm_self)
#define MPI_COMM_NULL ((MPI_Comm)0)
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)&faro_mpi_errors_are_fatal)
#define MPI_ERRORS_RETURN ((MPI_Errhandler)&faro_mpi_errors_return)
#define MPI_ERRORS_ABORT ((MPI_Errhandler)&faro_mpi_errors_abort)
#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0)
#define MPI_REQUEST_NULL ((MPI_Request)0)
#define MPI_MESSAGE_NULL ((MPI_Message)0)
#define MPI_MESSAGE_NO_PROC ((MPI_Message)&faro_mpi_message_no_proc)
#define MPI_DATATYPE_NULL ((MPI_Datatype)0)
#define MPI_OP_NULL ((MPI_Op)0)
#define MPI_GROUP_NULL ((MPI_Group)0)
#define MPI_INFO_NULL ((MPI_Info)0)
#define MPI_WIN_NULL ((MPI_Win)0)

/* Predefined datatypes */
#define FARO_TYPE(name) extern struct faro_datatype_predefined faro_mpi_##name;
FARO_TYPE(char) FARO_TYPE(signed_char) FARO_TYPE(unsigned_char) FARO_TYPE(byte)
FARO_TYPE(wchar) FARO_TYPE(short) FARO_TYPE(unsigned_short) FARO_TYPE(int)
FARO_TYPE(unsigned) FARO_TYPE(long) FARO_TYPE(unsigned_long) FARO_TYPE(long_long)
FARO_TYPE(unsigned_long_long) FARO_TYPE(float) FARO_TYPE(double) FARO_TYPE(long_double)
FARO_TYPE(int8_t) FARO_TYPE(int16_t) FARO_TYPE(int32_t) FARO_TYPE(int64_t)
FARO_TYPE(uint8_t) FARO_TYPE(uint16_t) FARO_TYPE(uint32_t) FARO_TYPE(uint64_t)
FARO_TYPE(c_bool) FARO_TYPE(c_float_complex) FARO_TYPE(c_double_complex)
FARO_TYPE(c_long_double_complex) FARO_TYPE(aint) FARO_TYPE(offset) FARO_TYPE(count)
FARO_TYPE(packed) FARO_TYPE(float_int) FARO_TYPE(double_int) FARO_TYPE(long_int)
FARO_TYPE(2int) FARO_TYPE(short_int) FARO_TYPE(long_double_int)
/* Fortran and C++ types, for C programs that handle their data (no Fortran
 * or C++ bindings): the sizes of gfortran's defaults and of g++ on this ABI */
FARO_TYPE(integer) FARO_TYPE(real) FARO_TYPE(double_precision) FARO_TYPE(complex)
FARO_TYPE(double_complex) FARO_TYPE(logical) FARO_TYPE(character) FARO_TYPE(integer1)
FARO_TYPE(integer2) FARO_TYPE(integer4) FARO_TYPE(integer8) FARO_TYPE(integer16)
FARO_TYPE(real4) FARO_TYPE(real8)
FARO_TYPE(complex8) FARO_TYPE(complex16) FARO_TYPE(2integer) FARO_TYPE(2real)
FARO_TYPE(2double_precision) FARO_TYPE(cxx_bool) FARO_TYPE(cxx_float_complex)
FARO_TYPE(cxx_double_complex) FARO_TYPE(cxx_long_double_complex)
#undef FARO_TYPE

#define MPI_CHAR ((MPI_Datatype)&faro_mpi_char)
#define MPI_SIGNED_CHAR ((MPI_Datatype)&faro_mpi_signed_char)
#define MPI_UNSIGNED_CHAR ((MPI_Datatype)&faro_mpi_unsigned_char)
#define MPI_BYTE ((MPI_Datatype)&faro_mpi_byte)
#define MPI_WCHAR ((MPI_Datatype)&faro_mpi_wchar)
#define MPI_SHORT ((MPI_Datatype)&faro_mpi_short)
#define MPI_UNSIGNED_SHORT ((MPI_Datatype)&faro_mpi_unsigned_short)
#define MPI_INT ((MPI_Datatype)&faro_mpi_int)
#define MPI_UNSIGNED ((MPI_Datatype)&faro_mpi_unsigned)
#define MPI_LONG ((MPI_Datatype)&faro_mpi_long)
#define MPI_UNSIGNED_LONG ((MPI_Datatype)&faro_mpi_unsigned_long)
#define MPI_LONG_LONG_INT ((MPI_Datatype)&faro_mpi_long_long)
#define MPI_LONG_LONG ((MPI_Datatype)&faro_mpi_long_long)
#define MPI_UNSIGNED_LONG_LONG ((MPI_Datatype)&faro_mpi_unsigned_long_long)
#define MPI_FLOAT ((MPI_Datatype)&faro_mpi_float)
#define MPI_DOUBLE ((MPI_Datatype)&faro_mpi_double)
#define MPI_LONG_DOUBLE ((MPI_Datatype)&faro_mpi_long_double)
#define MPI_INT8_T ((MPI_Datatype)&faro_mpi_int8_t)
#define MPI_INT16_T ((MPI_Datatype)&faro_mpi_int16_t)
#define MPI_INT32_T ((MPI_Datatype)&faro_mpi_int32_t)
#define MPI_INT64_T ((MPI_Datatype)&faro_mpi_int64_t)
#define MPI_UINT8_T ((MPI_Datatype)&faro_mpi_uint8_t)
#define MPI_UINT16_T ((MPI_Datatype)&faro_mpi_uint16_t)
#define MPI_UINT32_T ((MPI_Datatype)&faro_mpi_uint32_t)
#define MPI_UINT64_T ((MPI_Datatype)&faro_mpi_uint64_t)
#define MPI_C_BOOL ((MPI_Datatype)&faro_mpi_c_bool)
#define MPI_C_FLOAT_COMPLEX ((MPI_Datatype)&faro_mpi_c_float_complex)
#define MPI_C_COMPLEX MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX ((MPI_Datatype)&faro_mpi_c_double_complex)
#define MPI_C_LONG_DOUBLE_COMPLEX ((MPI_Datatype)&faro_mpi_c_long_double_complex)
#define MPI_AINT ((MPI_Datatype)&faro_mpi_aint)
#define MPI_OFFSET ((MPI_Datatype)&faro_mpi_offset)
#define MPI_COUNT ((MPI_Datatype)&faro_mpi_count)
#define MPI_PACKED ((MPI_Datatype)&faro_mpi_packed)
#define MPI_FLOAT_INT ((MPI_Datatype)&faro_mpi_float_int)
#define MPI_DOUBLE_INT ((MPI_Datatype)&faro_mpi_double_int)
#define MPI_LONG_INT ((MPI_Datatype)&faro_mpi_long_int)
#define MPI_2INT ((MPI_Datatype)&faro_mpi_2int)
#define MPI_SHORT_INT ((MPI_Datatype)&faro_mpi_short_int)
#define MPI_LONG_DOUBLE_INT ((MPI_Datatype)&faro_mpi_long_double_int)
#define MPI_INTEGER ((MPI_Datatype)&faro_mpi_integer)
#define MPI_REAL ((MPI_Datatype)&faro_mpi_real)
#define MPI_DOUBLE_PRECISION ((MPI_Datatype)&faro_mpi_double_precision)
#define MPI_COMPLEX ((MPI_Datatype)&faro_mpi_complex)
#define MPI_DOUBLE_COMPLEX ((MPI_Datatype)&faro_mpi_double_complex)
#define MPI_LOGICAL ((MPI_Datatype)&faro_mpi_logical)
#define MPI_CHARACTER ((MPI_Datatype)&faro_mpi_character)
#define MPI_INTEGER1 ((MPI_Datatype)&faro_mpi_integer1)
#define MPI_INTEGER2 ((MPI_Datatype)&faro_mpi_integer2)
#define MPI_INTEGER4 ((MPI_Datatype)&faro_mpi_integer4)
#define MPI_INTEGER8 ((MPI_Datatype)&faro_mpi_integer8)
#define MPI_INTEGER16 ((MPI_Datatype)&faro_mpi_integer16)
#define MPI_REAL4 ((MPI_Datatype)&faro_mpi_real4)
#define MPI_REAL8 ((MPI_Datatype)&faro_mpi_real8)
#define MPI_COMPLEX8 ((MPI_Datatype)&faro_mpi_complex8)
#define MPI_COMPLEX16 ((MPI_Datatype)&faro_mpi_complex16)
#define MPI_2INTEGER ((MPI_Datatype)&faro_mpi_2integer)
#define MPI_2REAL ((MPI_Datatype)&faro_mpi_2real)
#define MPI_2DOUBLE_PRECISION ((MPI_Datatype)&faro_mpi_2double_precision)
#define MPI_CXX_BOOL ((MPI_Datatype)&faro_mpi_cxx_bool)
#define MPI_CXX_FLOAT_COMPLEX ((MPI_Datatype)&faro_mpi_cxx_float_complex)
#define MPI_CXX_DOUBLE_COMPLEX ((MPI_Datatype)&faro_mpi_cxx_double_complex)
#define MPI_CXX_LONG_DOUBLE_COMPLEX ((MPI_Datatype)&faro_mpi_cxx_long_double_complex)

/* ---- constants ---- */
#define MPI_ANY_SOURCE (-1)
#define MPI_PROC_NULL (-2)
#define MPI_ROOT (-3)
#define MPI_ANY_TAG (-1)
#define MPI_UNDEFINED (-32766)
#define MPI_STATUS_IGNORE ((MPI_Status *)0)
#define MPI_STATUSES_IGNORE ((MPI_Status *)0)
#define MPI_BOTTOM ((void *)0)
#define MPI_IN_PLACE ((void *)1)
#define MPI_BSEND_OVERHEAD 96
#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_ERROR_STRING 512
#define MPI_MAX_LIBRARY_VERSION_STRING 256
#define MPI_MAX_OBJECT_NAME 64
#define MPI_MAX_PORT_NAME 1024
#define MPI_ARGV_NULL ((char **)0)
#define MPI_ARGVS_NULL ((char ***)0)
#define MPI_ERRCODES_IGNORE ((int *)0)

#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

/* Error classes */
#define MPI_SUCCESS 0
#define MPI_ERR_BUFFER 1
#define MPI_ERR_COUNT 2
#define MPI_ERR_TYPE 3
#define MPI_ERR_TAG 4
#define MPI_ERR_COMM 5
#define MPI_ERR_RANK 6
#define MPI_ERR_REQUEST 7
#define MPI_ERR_ROOT 8
#define MPI_ERR_GROUP 9
#define MPI_ERR_OP 10
#define MPI_ERR_TOPOLOGY 11
#define MPI_ERR_DIMS 12
#define MPI_ERR_ARG 13
#define MPI_ERR_UNKNOWN 14
#define MPI_ERR_TRUNCATE 15
#define MPI_ERR_OTHER 16
#define MPI_ERR_INTERN 17
#define MPI_ERR_IN_STATUS 18
#define MPI_ERR_PENDING 19
#define MPI_ERR_KEYVAL 20
#define MPI_ERR_NO_MEM 21
#define MPI_ERR_BASE 22
#define MPI_ERR_INFO_KEY 23
#define MPI_ERR_INFO_VALUE 24
#define MPI_ERR_INFO_NOKEY 25
#define MPI_ERR_SPAWN 26
#define MPI_ERR_PORT 27
#define MPI_ERR_SERVICE 28
#define MPI_ERR_NAME 29
#define MPI_ERR_WIN 30
#define MPI_ERR_SIZE 31
#define MPI_ERR_DISP 32
#define MPI_ERR_INFO 33
#define MPI_ERR_LOCKTYPE 34
#define MPI_ERR_ASSERT 35
#define MPI_ERR_RMA_CONFLICT 36
#define MPI_ERR_RMA_SYNC 37
#define MPI_ERR_FILE 38
#define MPI_ERR_NOT_SAME 39
#define MPI_ERR_AMODE 40
#define MPI_ERR_UNSUPPORTED_DATAREP 41
#define MPI_ERR_UNSUPPORTED_OPERATION 42
#define MPI_ERR_NO_SUCH_FILE 43
#define MPI_ERR_FILE_EXISTS 44
#define MPI_ERR_BAD_FILE 45
#define MPI_ERR_ACCESS 46
#define MPI_ERR_NO_SPACE 47
#define MPI_ERR_QUOTA 48
#define MPI_ERR_READ_ONLY 49
#define MPI_ERR_FILE_IN_USE 50
#define MPI_ERR_DUP_DATAREP 51
#define MPI_ERR_CONVERSION 52
#define MPI_ERR_IO 53
#define MPI_ERR_RMA_ATTACH 54
#define MPI_ERR_RMA_RANGE 55
#define MPI_ERR_RMA_SHARED 56
#define MPI_ERR_RMA_FLAVOR 57
#define MPI_ERR_PROC_ABORTED 58
#define MPI_ERR_VALUE_TOO_LARGE 59
#define MPI_ERR_ERRHANDLER 60
/* 61..78: the MPI_T_ERR_* classes, in the MPI_T block below (issue 18) */
#define MPI_ERR_SESSION 79 /* MPI-4.0 sessions (issue 18) */
#define MPI_ERR_LASTCODE 80

/* constants of the MPI-breadth areas (each area adds below its own line) */
/* area datatype: */
#define MPI_COMBINER_NAMED 1
#define MPI_COMBINER_DUP 2
#define MPI_COMBINER_CONTIGUOUS 3
#define MPI_COMBINER_VECTOR 4
#define MPI_COMBINER_HVECTOR_INTEGER 5
#define MPI_COMBINER_HVECTOR 6
#define MPI_COMBINER_INDEXED 7
#define MPI_COMBINER_HINDEXED_INTEGER 8
#define MPI_COMBINER_HINDEXED 9
#define MPI_COMBINER_INDEXED_BLOCK 10
#define MPI_COMBINER_HINDEXED_BLOCK 11
#define MPI_COMBINER_STRUCT_INTEGER 12
#define MPI_COMBINER_STRUCT 13
#define MPI_COMBINER_SUBARRAY 14
#define MPI_COMBINER_DARRAY 15
#define MPI_COMBINER_F90_REAL 16
#define MPI_COMBINER_F90_COMPLEX 17
#define MPI_COMBINER_F90_INTEGER 18
#define MPI_COMBINER_RESIZED 19
#define MPI_ORDER_C 56
#define MPI_ORDER_FORTRAN 57
#define MPI_DISTRIBUTE_BLOCK 121
#define MPI_DISTRIBUTE_CYCLIC 122
#define MPI_DISTRIBUTE_NONE 123
#define MPI_DISTRIBUTE_DFLT_DARG (-49767)
#define MPI_TYPECLASS_INTEGER 1
#define MPI_TYPECLASS_REAL 2
#define MPI_TYPECLASS_COMPLEX 3
/* area op: */
typedef void MPI_User_function(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);
FARO_PREDEFINED(faro_op, faro_mpi_op_max)
FARO_PREDEFINED(faro_op, faro_mpi_op_min)
FARO_PREDEFINED(faro_op, faro_mpi_op_sum)
FARO_PREDEFINED(faro_op, faro_mpi_op_prod)
FARO_PREDEFINED(faro_op, faro_mpi_op_land)
FARO_PREDEFINED(faro_op, faro_mpi_op_band)
FARO_PREDEFINED(faro_op, faro_mpi_op_lor)
FARO_PREDEFINED(faro_op, faro_mpi_op_bor)
FARO_PREDEFINED(faro_op, faro_mpi_op_lxor)
FARO_PREDEFINED(faro_op, faro_mpi_op_bxor)
FARO_PREDEFINED(faro_op, faro_mpi_op_maxloc)
FARO_PREDEFINED(faro_op, faro_mpi_op_minloc)
FARO_PREDEFINED(faro_op, faro_mpi_op_replace)
FARO_PREDEFINED(faro_op, faro_mpi_op_no_op)
#define MPI_MAX ((MPI_Op)&faro_mpi_op_max)
#define MPI_MIN ((MPI_Op)&faro_mpi_op_min)
#define MPI_SUM ((MPI_Op)&faro_mpi_op_sum)
#define MPI_PROD ((MPI_Op)&faro_mpi_op_prod)
#define MPI_LAND ((MPI_Op)&faro_mpi_op_land)
#define MPI_BAND ((MPI_Op)&faro_mpi_op_band)
#define MPI_LOR ((MPI_Op)&faro_mpi_op_lor)
#define MPI_BOR ((MPI_Op)&faro_mpi_op_bor)
#define MPI_LXOR ((MPI_Op)&faro_mpi_op_lxor)
#define MPI_BXOR ((MPI_Op)&faro_mpi_op_bxor)
#define MPI_MAXLOC ((MPI_Op)&faro_mpi_op_maxloc)
#define MPI_MINLOC ((MPI_Op)&faro_mpi_op_minloc)
#define MPI_REPLACE ((MPI_Op)&faro_mpi_op_replace)
#define MPI_NO_OP ((MPI_Op)&faro_mpi_op_no_op)
FARO_PREDEFINED(faro_info, faro_mpi_info_env)
#define MPI_INFO_ENV ((MPI_Info)&faro_mpi_info_env)
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024
#define MPI_F_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
#define MPI_F_SOURCE 0
#define MPI_F_TAG 1
#define MPI_F_ERROR 2
/* area comm: */
FARO_PREDEFINED(faro_group, faro_mpi_group_empty)
#define MPI_GROUP_EMPTY ((MPI_Group)&faro_mpi_group_empty)
#define MPI_IDENT 0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR 2
#define MPI_UNEQUAL 3
#define MPI_COMM_TYPE_SHARED 1
#define MPI_GRAPH 1
#define MPI_CART 2
#define MPI_DIST_GRAPH 3
extern int faro_mpi_unweighted, faro_mpi_weights_empty;
#define MPI_UNWEIGHTED (&faro_mpi_unweighted)
#define MPI_WEIGHTS_EMPTY (&faro_mpi_weights_empty)
/* area attr: */
#define MPI_KEYVAL_INVALID (-1)
/* predefined attribute keys (MPI_Comm_get_attr gives a pointer to an int) */
#define MPI_TAG_UB 1
#define MPI_HOST 2
#define MPI_IO 3
#define MPI_WTIME_IS_GLOBAL 4
#define MPI_UNIVERSE_SIZE 5
#define MPI_APPNUM 6
#define MPI_LASTUSEDCODE 7
/* predefined window attributes (MPI_Win_get_attr) */
#define MPI_WIN_BASE 8
#define MPI_WIN_SIZE 9
#define MPI_WIN_DISP_UNIT 10
#define MPI_WIN_CREATE_FLAVOR 11
#define MPI_WIN_MODEL 12
#define MPI_WIN_FLAVOR_CREATE 1
#define MPI_WIN_FLAVOR_ALLOCATE 2
#define MPI_WIN_FLAVOR_DYNAMIC 3
#define MPI_WIN_FLAVOR_SHARED 4
#define MPI_WIN_SEPARATE 1
#define MPI_WIN_UNIFIED 2
/* one-sided synchronization */
#define MPI_LOCK_EXCLUSIVE 234
#define MPI_LOCK_SHARED 235
#define MPI_MODE_NOCHECK 1024
#define MPI_MODE_NOSTORE 2048
#define MPI_MODE_NOPUT 4096
#define MPI_MODE_NOPRECEDE 8192
#define MPI_MODE_NOSUCCEED 16384
typedef int MPI_Comm_copy_attr_function(MPI_Comm oldcomm, int comm_keyval, void *extra_state,
                                        void *attribute_val_in, void *attribute_val_out,
                                        int *flag);
typedef int MPI_Comm_delete_attr_function(MPI_Comm comm, int comm_keyval, void *attribute_val,
                                          void *extra_state);
typedef int MPI_Type_copy_attr_function(MPI_Datatype oldtype, int type_keyval,
                                        void *extra_state, void *attribute_val_in,
                                        void *attribute_val_out, int *flag);
typedef int MPI_Type_delete_attr_function(MPI_Datatype datatype, int type_keyval,
                                          void *attribute_val, void *extra_state);
typedef int MPI_Win_copy_attr_function(MPI_Win oldwin, int win_keyval, void *extra_state,
                                       void *attribute_val_in, void *attribute_val_out,
                                       int *flag);
typedef int MPI_Win_delete_attr_function(MPI_Win win, int win_keyval, void *attribute_val,
                                         void *extra_state);
typedef MPI_Comm_copy_attr_function MPI_Copy_function;     /* MPI-1 names */
typedef MPI_Comm_delete_attr_function MPI_Delete_function;
/* the predefined callbacks are functions in the library */
MPI_Comm_copy_attr_function faro_comm_null_copy_fn, faro_comm_dup_fn;
MPI_Comm_delete_attr_function faro_comm_null_delete_fn;
MPI_Type_copy_attr_function faro_type_null_copy_fn, faro_type_dup_fn;
MPI_Type_delete_attr_function faro_type_null_delete_fn;
MPI_Win_copy_attr_function faro_win_null_copy_fn, faro_win_dup_fn;
MPI_Win_delete_attr_function faro_win_null_delete_fn;
#define MPI_COMM_NULL_COPY_FN faro_comm_null_copy_fn
#define MPI_COMM_DUP_FN faro_comm_dup_fn
#define MPI_COMM_NULL_DELETE_FN faro_comm_null_delete_fn
#define MPI_TYPE_NULL_COPY_FN faro_type_null_copy_fn
#define MPI_TYPE_DUP_FN faro_type_dup_fn
#define MPI_TYPE_NULL_DELETE_FN faro_type_null_delete_fn
#define MPI_WIN_NULL_COPY_FN faro_win_null_copy_fn
#define MPI_WIN_DUP_FN faro_win_dup_fn
#define MPI_WIN_NULL_DELETE_FN faro_win_null_delete_fn
#define MPI_NULL_COPY_FN faro_comm_null_copy_fn
#define MPI_DUP_FN faro_comm_dup_fn
#define MPI_NULL_DELETE_FN faro_comm_null_delete_fn
/* area coll: */

/* ---- MPI-IO (issue 18) ---- */
typedef struct faro_file *MPI_File;
#define MPI_FILE_NULL ((MPI_File)0)
typedef void MPI_File_errhandler_function(MPI_File *, int *, ...);
typedef MPI_File_errhandler_function MPI_File_errhandler_fn;
typedef int MPI_Datarep_conversion_function(void *userbuf, MPI_Datatype datatype, int count,
                                            void *filebuf, MPI_Offset position,
                                            void *extra_state);
typedef int MPI_Datarep_extent_function(MPI_Datatype datatype, MPI_Aint *file_extent,
                                        void *extra_state);
#define MPI_CONVERSION_FN_NULL ((MPI_Datarep_conversion_function *)0)
#define MPI_MODE_CREATE 1
#define MPI_MODE_RDONLY 2
#define MPI_MODE_WRONLY 4
#define MPI_MODE_RDWR 8
#define MPI_MODE_DELETE_ON_CLOSE 16
#define MPI_MODE_UNIQUE_OPEN 32
#define MPI_MODE_EXCL 64
#define MPI_MODE_APPEND 128
#define MPI_MODE_SEQUENTIAL 256
#define MPI_SEEK_SET 600
#define MPI_SEEK_CUR 602
#define MPI_SEEK_END 604
#define MPI_DISPLACEMENT_CURRENT (-54278278)
#define MPI_MAX_DATAREP_STRING 128
/* ---- MPI_T tool interface (issue 18) ---- */
#define MPI_T_ERR_MEMORY 61
#define MPI_T_ERR_NOT_INITIALIZED 62
#define MPI_T_ERR_CANNOT_INIT 63
#define MPI_T_ERR_INVALID_INDEX 64
#define MPI_T_ERR_INVALID_ITEM 65
#define MPI_T_ERR_INVALID_HANDLE 66
#define MPI_T_ERR_OUT_OF_HANDLES 67
#define MPI_T_ERR_OUT_OF_SESSIONS 68
#define MPI_T_ERR_INVALID_SESSION 69
#define MPI_T_ERR_CVAR_SET_NOT_NOW 70
#define MPI_T_ERR_CVAR_SET_NEVER 71
#define MPI_T_ERR_PVAR_NO_STARTSTOP 72
#define MPI_T_ERR_PVAR_NO_WRITE 73
#define MPI_T_ERR_PVAR_NO_ATOMIC 74
#define MPI_T_ERR_INVALID_NAME 75
#define MPI_T_ERR_INVALID 76
#define MPI_T_ERR_NOT_SUPPORTED 77
#define MPI_T_ERR_NOT_ACCESSIBLE 78
/* verbosity: who the variable is for, and how much detail */
#define MPI_T_VERBOSITY_USER_BASIC 221
#define MPI_T_VERBOSITY_USER_DETAIL 222
#define MPI_T_VERBOSITY_USER_ALL 223
#define MPI_T_VERBOSITY_TUNER_BASIC 224
#define MPI_T_VERBOSITY_TUNER_DETAIL 225
#define MPI_T_VERBOSITY_TUNER_ALL 226
#define MPI_T_VERBOSITY_MPIDEV_BASIC 227
#define MPI_T_VERBOSITY_MPIDEV_DETAIL 228
#define MPI_T_VERBOSITY_MPIDEV_ALL 229
/* binding: the kind of MPI object a variable belongs to */
#define MPI_T_BIND_NO_OBJECT 9700
#define MPI_T_BIND_MPI_COMM 9701
#define MPI_T_BIND_MPI_DATATYPE 9702
#define MPI_T_BIND_MPI_ERRHANDLER 9703
#define MPI_T_BIND_MPI_FILE 9704
#define MPI_T_BIND_MPI_GROUP 9705
#define MPI_T_BIND_MPI_OP 9706
#define MPI_T_BIND_MPI_REQUEST 9707
#define MPI_T_BIND_MPI_WIN 9708
#define MPI_T_BIND_MPI_MESSAGE 9709
#define MPI_T_BIND_MPI_INFO 9710
#define MPI_T_BIND_MPI_SESSION 9711
/* scope of a control variable: who may change it and who must agree */
#define MPI_T_SCOPE_CONSTANT 9800
#define MPI_T_SCOPE_READONLY 9801
#define MPI_T_SCOPE_LOCAL 9802
#define MPI_T_SCOPE_GROUP 9803
#define MPI_T_SCOPE_GROUP_EQ 9804
#define MPI_T_SCOPE_ALL 9805
#define MPI_T_SCOPE_ALL_EQ 9806
/* classes of performance variables */
#define MPI_T_PVAR_CLASS_STATE 9900
#define MPI_T_PVAR_CLASS_LEVEL 9901
#define MPI_T_PVAR_CLASS_SIZE 9902
#define MPI_T_PVAR_CLASS_PERCENTAGE 9903
#define MPI_T_PVAR_CLASS_HIGHWATERMARK 9904
#define MPI_T_PVAR_CLASS_LOWWATERMARK 9905
#define MPI_T_PVAR_CLASS_COUNTER 9906
#define MPI_T_PVAR_CLASS_AGGREGATE 9907
#define MPI_T_PVAR_CLASS_TIMER 9908
#define MPI_T_PVAR_CLASS_GENERIC 9909
/* handles: pointers to the library's records, NULL is the null handle */
typedef const struct faro_mpit_enum *MPI_T_enum;
typedef struct faro_mpit_cvar_handle *MPI_T_cvar_handle;
typedef struct faro_mpit_pvar_handle *MPI_T_pvar_handle;
typedef struct faro_mpit_session *MPI_T_pvar_session;
typedef struct faro_mpit_event_registration *MPI_T_event_registration;
typedef struct faro_mpit_event_instance *MPI_T_event_instance;
#define MPI_T_ENUM_NULL ((MPI_T_enum)0)
#define MPI_T_CVAR_HANDLE_NULL ((MPI_T_cvar_handle)0)
#define MPI_T_PVAR_HANDLE_NULL ((MPI_T_pvar_handle)0)
#define MPI_T_PVAR_SESSION_NULL ((MPI_T_pvar_session)0)
#define MPI_T_PVAR_ALL_HANDLES ((MPI_T_pvar_handle)1)
#define MPI_T_EVENT_REGISTRATION_NULL ((MPI_T_event_registration)0)
typedef enum MPI_T_cb_safety {
    MPI_T_CB_REQUIRE_NONE = 0,
    MPI_T_CB_REQUIRE_MPI_RESTRICTED,
    MPI_T_CB_REQUIRE_THREAD_SAFE,
    MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE
} MPI_T_cb_safety;
typedef enum MPI_T_source_order { MPI_T_SOURCE_ORDERED = 0, MPI_T_SOURCE_UNORDERED } MPI_T_source_order;
typedef void MPI_T_event_cb_function(MPI_T_event_instance event_instance,
                                     MPI_T_event_registration event_registration,
                                     MPI_T_cb_safety cb_safety, void *user_data);
typedef void MPI_T_event_free_cb_function(MPI_T_event_registration event_registration,
                                          MPI_T_cb_safety cb_safety, void *user_data);
typedef void MPI_T_event_dropped_cb_function(MPI_Count count,
                                             MPI_T_event_registration event_registration,
                                             int source_index, MPI_T_cb_safety cb_safety,
                                             void *user_data);
/* ---- MPI-4.0 sessions: types and constants (issue 18) ---- */
typedef struct faro_session *MPI_Session;
#define MPI_SESSION_NULL ((MPI_Session)0)
typedef void MPI_Session_errhandler_function(MPI_Session *, int *, ...);
#define MPI_MAX_PSET_NAME_LEN 256
#define MPI_MAX_STRINGTAG_LEN 256
/* ---- large counts: types (issue 18) ---- */
typedef void MPI_User_function_c(void *invec, void *inoutvec, MPI_Count *len,
                                 MPI_Datatype *datatype);

/* ---- functions: each under its MPI_ and PMPI_ name ---- */
#define FARO_API(ret, name, args) ret MPI_##name args; ret PMPI_##name args;

/* environment */
FARO_API(int, Init, (int *argc, char ***argv))
FARO_API(int, Init_thread, (int *argc, char ***argv, int required, int *provided))
FARO_API(int, Finalize, (void))
FARO_API(int, Initialized, (int *flag))
FARO_API(int, Finalized, (int *flag))
FARO_API(int, Abort, (MPI_Comm comm, int errorcode))
FARO_API(int, Query_thread, (int *provided))
FARO_API(int, Is_thread_main, (int *flag))
FARO_API(int, Get_processor_name, (char *name, int *resultlen))
FARO_API(int, Get_version, (int *version, int *subversion))
FARO_API(int, Pcontrol, (const int level, ...))
FARO_API(int, Get_library_version, (char *version, int *resultlen))
FARO_API(double, Wtime, (void))
FARO_API(double, Wtick, (void))

/* communicators (the predefined ones) */
FARO_API(int, Comm_size, (MPI_Comm comm, int *size))
FARO_API(int, Comm_rank, (MPI_Comm comm, int *rank))

/* errors */
FARO_API(int, Error_string, (int errorcode, char *string, int *resultlen))
FARO_API(int, Error_class, (int errorcode, int *errorclass))
FARO_API(int, Comm_set_errhandler, (MPI_Comm comm, MPI_Errhandler errhandler))
FARO_API(int, Comm_get_errhandler, (MPI_Comm comm, MPI_Errhandler *errhandler))
FARO_API(int, Comm_create_errhandler, (MPI_Comm_errhandler_function *fn, MPI_Errhandler *errhandler))
FARO_API(int, Comm_call_errhandler, (MPI_Comm comm, int errorcode))
FARO_API(int, Errhandler_free, (MPI_Errhandler *errhandler))

/* datatypes */
FARO_API(int, Type_size, (MPI_Datatype datatype, int *size))
FARO_API(int, Type_get_extent, (MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent))
FARO_API(int, Get_count, (const MPI_Status *status, MPI_Datatype datatype, int *count))
FARO_API(int, Get_elements, (const MPI_Status *status, MPI_Datatype datatype, int *count))

/* point-to-point */
FARO_API(int, Send, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
FARO_API(int, Ssend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
FARO_API(int, Rsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
FARO_API(int, Bsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
FARO_API(int, Recv, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status))
FARO_API(int, Isend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Issend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Irsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Ibsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Irecv, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Sendrecv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                         void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                         MPI_Comm comm, MPI_Status *status))
FARO_API(int, Sendrecv_replace, (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                                 int source, int recvtag, MPI_Comm comm, MPI_Status *status))
FARO_API(int, Buffer_attach, (void *buffer, int size))
FARO_API(int, Buffer_detach, (void *buffer_addr, int *size))
FARO_API(int, Send_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Ssend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Rsend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Bsend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Recv_init, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Start, (MPI_Request *request))
FARO_API(int, Startall, (int count, MPI_Request array_of_requests[]))

/* completion */
FARO_API(int, Wait, (MPI_Request *request, MPI_Status *status))
FARO_API(int, Waitall, (int count, MPI_Request array_of_requests[], MPI_Status array_of_statuses[]))
FARO_API(int, Waitany, (int count, MPI_Request array_of_requests[], int *index, MPI_Status *status))
FARO_API(int, Waitsome, (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status array_of_statuses[]))
FARO_API(int, Test, (MPI_Request *request, int *flag, MPI_Status *status))
FARO_API(int, Testall, (int count, MPI_Request array_of_requests[], int *flag, MPI_Status array_of_statuses[]))
FARO_API(int, Testany, (int count, MPI_Request array_of_requests[], int *index, int *flag, MPI_Status *status))
FARO_API(int, Testsome, (int incount, MPI_Request array_of_requests[], int *outcount, int array_of_indices[], MPI_Status array_of_statuses[]))
FARO_API(int, Request_free, (MPI_Request *request))
FARO_API(int, Request_get_status, (MPI_Request request, int *flag, MPI_Status *status))
FARO_API(int, Cancel, (MPI_Request *request))
FARO_API(int, Test_cancelled, (const MPI_Status *status, int *flag))

/* generalized requests */
typedef int MPI_Grequest_query_function(void *extra_state, MPI_Status *status);
typedef int MPI_Grequest_free_function(void *extra_state);
typedef int MPI_Grequest_cancel_function(void *extra_state, int complete);
FARO_API(int, Grequest_start, (MPI_Grequest_query_function *query_fn, MPI_Grequest_free_function *free_fn,
                               MPI_Grequest_cancel_function *cancel_fn, void *extra_state, MPI_Request *request))
FARO_API(int, Grequest_complete, (MPI_Request request))

/* probe and matched receive */
FARO_API(int, Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status))
FARO_API(int, Iprobe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status))
FARO_API(int, Mprobe, (int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status))
FARO_API(int, Improbe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status))
FARO_API(int, Mrecv, (void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status))
FARO_API(int, Imrecv, (void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request))

/* ---- sections of the MPI-breadth work; each area adds its own ---- */

/* datatype constructors, pack/unpack, addresses (area: datatype) */
FARO_API(int, Type_contiguous, (int count, MPI_Datatype oldtype, MPI_Datatype *newtype))
FARO_API(int, Type_vector, (int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype))
FARO_API(int, Type_create_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype, MPI_Datatype *newtype))
FARO_API(int, Type_indexed, (int count, const int array_of_blocklengths[], const int array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
FARO_API(int, Type_create_hindexed, (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
FARO_API(int, Type_create_indexed_block, (int count, int blocklength, const int array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
FARO_API(int, Type_create_hindexed_block, (int count, int blocklength, const MPI_Aint array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
FARO_API(int, Type_create_struct, (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[], MPI_Datatype *newtype))
FARO_API(int, Type_create_subarray, (int ndims, const int array_of_sizes[], const int array_of_subsizes[], const int array_of_starts[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype))
FARO_API(int, Type_create_darray, (int size, int rank, int ndims, const int array_of_gsizes[], const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype))
FARO_API(int, Type_create_resized, (MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype))
FARO_API(int, Type_dup, (MPI_Datatype oldtype, MPI_Datatype *newtype))
FARO_API(int, Type_commit, (MPI_Datatype *datatype))
FARO_API(int, Type_free, (MPI_Datatype *datatype))
FARO_API(int, Type_size_x, (MPI_Datatype datatype, MPI_Count *size))
FARO_API(int, Type_get_extent_x, (MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent))
FARO_API(int, Type_get_true_extent, (MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent))
FARO_API(int, Type_get_true_extent_x, (MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent))
FARO_API(int, Type_get_envelope, (MPI_Datatype datatype, int *num_integers, int *num_addresses, int *num_datatypes, int *combiner))
FARO_API(int, Type_get_contents, (MPI_Datatype datatype, int max_integers, int max_addresses, int max_datatypes, int array_of_integers[], MPI_Aint array_of_addresses[], MPI_Datatype array_of_datatypes[]))
FARO_API(int, Type_set_name, (MPI_Datatype datatype, const char *type_name))
FARO_API(int, Type_get_name, (MPI_Datatype datatype, char *type_name, int *resultlen))
FARO_API(int, Get_elements_x, (const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count))
FARO_API(int, Status_set_elements, (MPI_Status *status, MPI_Datatype datatype, int count))
FARO_API(int, Status_set_elements_x, (MPI_Status *status, MPI_Datatype datatype, MPI_Count count))
FARO_API(int, Pack, (const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize, int *position, MPI_Comm comm))
FARO_API(int, Unpack, (const void *inbuf, int insize, int *position, void *outbuf, int outcount, MPI_Datatype datatype, MPI_Comm comm))
FARO_API(int, Pack_size, (int incount, MPI_Datatype datatype, MPI_Comm comm, int *size))
FARO_API(int, Pack_external, (const char datarep[], const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, MPI_Aint outsize, MPI_Aint *position))
FARO_API(int, Unpack_external, (const char datarep[], const void *inbuf, MPI_Aint insize, MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype))
FARO_API(int, Pack_external_size, (const char datarep[], int incount, MPI_Datatype datatype, MPI_Aint *size))
FARO_API(int, Get_address, (const void *location, MPI_Aint *address))
FARO_API(MPI_Aint, Aint_add, (MPI_Aint base, MPI_Aint disp))
FARO_API(MPI_Aint, Aint_diff, (MPI_Aint addr1, MPI_Aint addr2))
FARO_API(int, Type_match_size, (int typeclass, int size, MPI_Datatype *datatype))
FARO_API(int, Type_create_f90_integer, (int r, MPI_Datatype *newtype))
FARO_API(int, Type_create_f90_real, (int p, int r, MPI_Datatype *newtype))
FARO_API(int, Type_create_f90_complex, (int p, int r, MPI_Datatype *newtype))

/* reductions and ops (area: op) */
FARO_API(int, Op_create, (MPI_User_function *user_fn, int commute, MPI_Op *op))
FARO_API(int, Op_free, (MPI_Op *op))
FARO_API(int, Op_commutative, (MPI_Op op, int *commute))
FARO_API(int, Reduce_local, (const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op))

/* info objects (area: op) */
FARO_API(int, Info_create, (MPI_Info *info))
FARO_API(int, Info_create_env, (int argc, char *argv[], MPI_Info *info))
FARO_API(int, Info_set, (MPI_Info info, const char *key, const char *value))
FARO_API(int, Info_get, (MPI_Info info, const char *key, int valuelen, char *value, int *flag))
FARO_API(int, Info_get_valuelen, (MPI_Info info, const char *key, int *valuelen, int *flag))
FARO_API(int, Info_get_string, (MPI_Info info, const char *key, int *buflen, char *value, int *flag))
FARO_API(int, Info_get_nkeys, (MPI_Info info, int *nkeys))
FARO_API(int, Info_get_nthkey, (MPI_Info info, int n, char *key))
FARO_API(int, Info_delete, (MPI_Info info, const char *key))
FARO_API(int, Info_dup, (MPI_Info info, MPI_Info *newinfo))
FARO_API(int, Info_free, (MPI_Info *info))

/* handle conversion c2f/f2c, status helpers, memory (area: op) */
FARO_API(MPI_Fint, Comm_c2f, (MPI_Comm comm))
FARO_API(MPI_Comm, Comm_f2c, (MPI_Fint comm))
FARO_API(MPI_Fint, Type_c2f, (MPI_Datatype datatype))
FARO_API(MPI_Datatype, Type_f2c, (MPI_Fint datatype))
FARO_API(MPI_Fint, Group_c2f, (MPI_Group group))
FARO_API(MPI_Group, Group_f2c, (MPI_Fint group))
FARO_API(MPI_Fint, Request_c2f, (MPI_Request request))
FARO_API(MPI_Request, Request_f2c, (MPI_Fint request))
FARO_API(MPI_Fint, Op_c2f, (MPI_Op op))
FARO_API(MPI_Op, Op_f2c, (MPI_Fint op))
FARO_API(MPI_Fint, Info_c2f, (MPI_Info info))
FARO_API(MPI_Info, Info_f2c, (MPI_Fint info))
FARO_API(MPI_Fint, Errhandler_c2f, (MPI_Errhandler errhandler))
FARO_API(MPI_Errhandler, Errhandler_f2c, (MPI_Fint errhandler))
FARO_API(MPI_Fint, Message_c2f, (MPI_Message message))
FARO_API(MPI_Message, Message_f2c, (MPI_Fint message))
FARO_API(int, Status_c2f, (const MPI_Status *c_status, MPI_Fint *f_status))
FARO_API(int, Status_f2c, (const MPI_Fint *f_status, MPI_Status *c_status))
FARO_API(int, Status_set_cancelled, (MPI_Status *status, int flag))
FARO_API(int, Alloc_mem, (MPI_Aint size, MPI_Info info, void *baseptr))
FARO_API(int, Free_mem, (void *base))

/* communicators and groups (area: comm) */
FARO_API(int, Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm))
FARO_API(int, Comm_dup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm))
FARO_API(int, Comm_idup, (MPI_Comm comm, MPI_Comm *newcomm, MPI_Request *request))
FARO_API(int, Comm_idup_with_info, (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm, MPI_Request *request))
FARO_API(int, Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm))
FARO_API(int, Comm_split_type, (MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm))
FARO_API(int, Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm))
FARO_API(int, Comm_create_group, (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm))
FARO_API(int, Comm_free, (MPI_Comm *comm))
FARO_API(int, Comm_compare, (MPI_Comm comm1, MPI_Comm comm2, int *result))
FARO_API(int, Comm_group, (MPI_Comm comm, MPI_Group *group))
FARO_API(int, Comm_test_inter, (MPI_Comm comm, int *flag))
FARO_API(int, Comm_set_name, (MPI_Comm comm, const char *comm_name))
FARO_API(int, Comm_get_name, (MPI_Comm comm, char *comm_name, int *resultlen))
FARO_API(int, Comm_set_info, (MPI_Comm comm, MPI_Info info))
FARO_API(int, Comm_get_info, (MPI_Comm comm, MPI_Info *info_used))
FARO_API(int, Group_size, (MPI_Group group, int *size))
FARO_API(int, Group_rank, (MPI_Group group, int *rank))
FARO_API(int, Group_translate_ranks, (MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]))
FARO_API(int, Group_compare, (MPI_Group group1, MPI_Group group2, int *result))
FARO_API(int, Group_union, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
FARO_API(int, Group_intersection, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
FARO_API(int, Group_difference, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
FARO_API(int, Group_incl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup))
FARO_API(int, Group_excl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup))
FARO_API(int, Group_range_incl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup))
FARO_API(int, Group_range_excl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup))
FARO_API(int, Group_free, (MPI_Group *group))

/* topologies (area: comm) */
FARO_API(int, Cart_create, (MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm *comm_cart))
FARO_API(int, Cart_map, (MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank))
FARO_API(int, Cart_coords, (MPI_Comm comm, int rank, int maxdims, int coords[]))
FARO_API(int, Cart_rank, (MPI_Comm comm, const int coords[], int *rank))
FARO_API(int, Cart_shift, (MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest))
FARO_API(int, Cart_sub, (MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm))
FARO_API(int, Cart_get, (MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]))
FARO_API(int, Cartdim_get, (MPI_Comm comm, int *ndims))
FARO_API(int, Dims_create, (int nnodes, int ndims, int dims[]))
FARO_API(int, Topo_test, (MPI_Comm comm, int *status))
FARO_API(int, Graph_create, (MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder, MPI_Comm *comm_graph))
FARO_API(int, Graph_map, (MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank))
FARO_API(int, Graphdims_get, (MPI_Comm comm, int *nnodes, int *nedges))
FARO_API(int, Graph_get, (MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]))
FARO_API(int, Graph_neighbors_count, (MPI_Comm comm, int rank, int *nneighbors))
FARO_API(int, Graph_neighbors, (MPI_Comm comm, int rank, int maxneighbors, int neighbors[]))
FARO_API(int, Dist_graph_create_adjacent, (MPI_Comm comm_old, int indegree, const int sources[], const int sourceweights[], int outdegree, const int destinations[], const int destweights[], MPI_Info info, int reorder, MPI_Comm *comm_dist_graph))
FARO_API(int, Dist_graph_create, (MPI_Comm comm_old, int n, const int sources[], const int degrees[], const int destinations[], const int weights[], MPI_Info info, int reorder, MPI_Comm *comm_dist_graph))
FARO_API(int, Dist_graph_neighbors_count, (MPI_Comm comm, int *indegree, int *outdegree, int *weighted))
FARO_API(int, Dist_graph_neighbors, (MPI_Comm comm, int maxindegree, int sources[], int sourceweights[], int maxoutdegree, int destinations[], int destweights[]))

/* attributes, keyvals, error classes (area: attr) */
FARO_API(int, Comm_create_keyval, (MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                                   MPI_Comm_delete_attr_function *comm_delete_attr_fn,
                                   int *comm_keyval, void *extra_state))
FARO_API(int, Comm_free_keyval, (int *comm_keyval))
FARO_API(int, Comm_set_attr, (MPI_Comm comm, int comm_keyval, void *attribute_val))
FARO_API(int, Comm_get_attr, (MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag))
FARO_API(int, Comm_delete_attr, (MPI_Comm comm, int comm_keyval))
FARO_API(int, Type_create_keyval, (MPI_Type_copy_attr_function *type_copy_attr_fn,
                                   MPI_Type_delete_attr_function *type_delete_attr_fn,
                                   int *type_keyval, void *extra_state))
FARO_API(int, Type_free_keyval, (int *type_keyval))
FARO_API(int, Type_set_attr, (MPI_Datatype datatype, int type_keyval, void *attribute_val))
FARO_API(int, Type_get_attr, (MPI_Datatype datatype, int type_keyval, void *attribute_val,
                              int *flag))
FARO_API(int, Type_delete_attr, (MPI_Datatype datatype, int type_keyval))
FARO_API(int, Win_create_keyval, (MPI_Win_copy_attr_function *win_copy_attr_fn,
                                  MPI_Win_delete_attr_function *win_delete_attr_fn,
                                  int *win_keyval, void *extra_state))
FARO_API(int, Win_free_keyval, (int *win_keyval))
FARO_API(int, Win_set_attr, (MPI_Win win, int win_keyval, void *attribute_val))
FARO_API(int, Win_get_attr, (MPI_Win win, int win_keyval, void *attribute_val, int *flag))
FARO_API(int, Win_delete_attr, (MPI_Win win, int win_keyval))
FARO_API(int, Keyval_create, (MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn,
                              int *keyval, void *extra_state))
FARO_API(int, Keyval_free, (int *keyval))
FARO_API(int, Attr_put, (MPI_Comm comm, int keyval, void *attribute_val))
FARO_API(int, Attr_get, (MPI_Comm comm, int keyval, void *attribute_val, int *flag))
FARO_API(int, Attr_delete, (MPI_Comm comm, int keyval))
FARO_API(int, Add_error_class, (int *errorclass))
FARO_API(int, Add_error_code, (int errorclass, int *errorcode))
FARO_API(int, Add_error_string, (int errorcode, const char *string))

/* one-sided communication (src/rma/) */
FARO_API(int, Win_create, (void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win))
FARO_API(int, Win_allocate, (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win))
FARO_API(int, Win_allocate_shared, (MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win))
FARO_API(int, Win_shared_query, (MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr))
FARO_API(int, Win_create_dynamic, (MPI_Info info, MPI_Comm comm, MPI_Win *win))
FARO_API(int, Win_attach, (MPI_Win win, void *base, MPI_Aint size))
FARO_API(int, Win_detach, (MPI_Win win, const void *base))
FARO_API(int, Win_free, (MPI_Win *win))
FARO_API(int, Win_get_group, (MPI_Win win, MPI_Group *group))
FARO_API(int, Win_set_info, (MPI_Win win, MPI_Info info))
FARO_API(int, Win_get_info, (MPI_Win win, MPI_Info *info_used))
FARO_API(int, Win_set_name, (MPI_Win win, const char *win_name))
FARO_API(int, Win_get_name, (MPI_Win win, char *win_name, int *resultlen))
FARO_API(int, Win_create_errhandler, (MPI_Win_errhandler_function *win_errhandler_fn, MPI_Errhandler *errhandler))
FARO_API(int, Win_set_errhandler, (MPI_Win win, MPI_Errhandler errhandler))
FARO_API(int, Win_get_errhandler, (MPI_Win win, MPI_Errhandler *errhandler))
FARO_API(int, Win_call_errhandler, (MPI_Win win, int errorcode))
FARO_API(MPI_Fint, Win_c2f, (MPI_Win win))
FARO_API(MPI_Win, Win_f2c, (MPI_Fint win))
FARO_API(int, Put, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win))
FARO_API(int, Get, (void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win))
FARO_API(int, Accumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win))
FARO_API(int, Get_accumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win))
FARO_API(int, Fetch_and_op, (const void *origin_addr, void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Op op, MPI_Win win))
FARO_API(int, Compare_and_swap, (const void *origin_addr, const void *compare_addr, void *result_addr, MPI_Datatype datatype, int target_rank, MPI_Aint target_disp, MPI_Win win))
FARO_API(int, Rput, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request))
FARO_API(int, Rget, (void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request))
FARO_API(int, Raccumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request))
FARO_API(int, Rget_accumulate, (const void *origin_addr, int origin_count, MPI_Datatype origin_datatype, void *result_addr, int result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, int target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request))
FARO_API(int, Win_fence, (int assert, MPI_Win win))
FARO_API(int, Win_post, (MPI_Group group, int assert, MPI_Win win))
FARO_API(int, Win_start, (MPI_Group group, int assert, MPI_Win win))
FARO_API(int, Win_complete, (MPI_Win win))
FARO_API(int, Win_wait, (MPI_Win win))
FARO_API(int, Win_test, (MPI_Win win, int *flag))
FARO_API(int, Win_lock, (int lock_type, int rank, int assert, MPI_Win win))
FARO_API(int, Win_unlock, (int rank, MPI_Win win))
FARO_API(int, Win_lock_all, (int assert, MPI_Win win))
FARO_API(int, Win_unlock_all, (MPI_Win win))
FARO_API(int, Win_flush, (int rank, MPI_Win win))
FARO_API(int, Win_flush_all, (MPI_Win win))
FARO_API(int, Win_flush_local, (int rank, MPI_Win win))
FARO_API(int, Win_flush_local_all, (MPI_Win win))
FARO_API(int, Win_sync, (MPI_Win win))

/* collectives (area: coll) */
FARO_API(int, Barrier, (MPI_Comm comm))
FARO_API(int, Bcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm))
FARO_API(int, Gather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
FARO_API(int, Gatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm))
FARO_API(int, Scatter, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
FARO_API(int, Scatterv, (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
FARO_API(int, Allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
FARO_API(int, Allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm))
FARO_API(int, Alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
FARO_API(int, Alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm))
FARO_API(int, Alltoallw, (const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm))
FARO_API(int, Reduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm))
FARO_API(int, Allreduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
FARO_API(int, Reduce_scatter, (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
FARO_API(int, Reduce_scatter_block, (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
FARO_API(int, Scan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
FARO_API(int, Exscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
/* neighbourhood collectives (MPI 3.1 section 7.6), on a communicator with a topology */
FARO_API(int, Neighbor_allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
FARO_API(int, Neighbor_allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm))
FARO_API(int, Neighbor_alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
FARO_API(int, Neighbor_alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm))
FARO_API(int, Neighbor_alltoallw, (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm))

/* intercommunicators (area: inter) */
FARO_API(int, Intercomm_create, (MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag, MPI_Comm *newintercomm))
FARO_API(int, Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm *newintracomm))
FARO_API(int, Comm_remote_size, (MPI_Comm comm, int *size))
FARO_API(int, Comm_remote_group, (MPI_Comm comm, MPI_Group *group))

/* dynamic connections (area: dynamic; MPI 3.1 sections 10.4.2-10.4.6, faro-dynamic(7)) */
FARO_API(int, Open_port, (MPI_Info info, char *port_name))
FARO_API(int, Close_port, (const char *port_name))
FARO_API(int, Comm_accept, (const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm))
FARO_API(int, Comm_connect, (const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm))
FARO_API(int, Comm_disconnect, (MPI_Comm *comm))
FARO_API(int, Comm_join, (int fd, MPI_Comm *intercomm))
FARO_API(int, Publish_name, (const char *service_name, MPI_Info info, const char *port_name))
FARO_API(int, Unpublish_name, (const char *service_name, MPI_Info info, const char *port_name))
FARO_API(int, Lookup_name, (const char *service_name, MPI_Info info, char *port_name))
/* dynamic processes (area: dynamic; MPI 3.1 section 10.3, faro-dynamic(7)) */
FARO_API(int, Comm_spawn, (const char *command, char *argv[], int maxprocs, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]))
FARO_API(int, Comm_spawn_multiple, (int count, char *array_of_commands[], char **array_of_argv[], const int array_of_maxprocs[], const MPI_Info array_of_info[], int root, MPI_Comm comm, MPI_Comm *intercomm, int array_of_errcodes[]))
FARO_API(int, Comm_get_parent, (MPI_Comm *parent))

/* nonblocking collectives (area: nbc) */
FARO_API(int, Ibarrier, (MPI_Comm comm, MPI_Request *request))
FARO_API(int, Ibcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Igather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Igatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Iscatter, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Iscatterv, (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Iallgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Iallgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Ialltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Ialltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Ialltoallw, (const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request))
FARO_API(int, Ireduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Iallreduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Ireduce_scatter, (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Ireduce_scatter_block, (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Iscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Iexscan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Ineighbor_allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Ineighbor_allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Ineighbor_alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Ineighbor_alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Ineighbor_alltoallw, (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request))

/* ---- MPI-IO (issue 18) ---- */
FARO_API(int, File_open, (MPI_Comm comm, const char *filename, int amode, MPI_Info info, MPI_File *fh))
FARO_API(int, File_close, (MPI_File *fh))
FARO_API(int, File_delete, (const char *filename, MPI_Info info))
FARO_API(int, File_set_size, (MPI_File fh, MPI_Offset size))
FARO_API(int, File_preallocate, (MPI_File fh, MPI_Offset size))
FARO_API(int, File_get_size, (MPI_File fh, MPI_Offset *size))
FARO_API(int, File_get_group, (MPI_File fh, MPI_Group *group))
FARO_API(int, File_get_amode, (MPI_File fh, int *amode))
FARO_API(int, File_set_info, (MPI_File fh, MPI_Info info))
FARO_API(int, File_get_info, (MPI_File fh, MPI_Info *info_used))
FARO_API(int, File_set_view, (MPI_File fh, MPI_Offset disp, MPI_Datatype etype, MPI_Datatype filetype, const char *datarep, MPI_Info info))
FARO_API(int, File_get_view, (MPI_File fh, MPI_Offset *disp, MPI_Datatype *etype, MPI_Datatype *filetype, char *datarep))
FARO_API(int, File_read_at, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
FARO_API(int, File_read_at_all, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
FARO_API(int, File_write_at, (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
FARO_API(int, File_write_at_all, (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
FARO_API(int, File_iread_at, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
FARO_API(int, File_iwrite_at, (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
FARO_API(int, File_iread_at_all, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
FARO_API(int, File_iwrite_at_all, (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
FARO_API(int, File_read, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
FARO_API(int, File_read_all, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
FARO_API(int, File_write, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
FARO_API(int, File_write_all, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
FARO_API(int, File_iread, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
FARO_API(int, File_iwrite, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
FARO_API(int, File_iread_all, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
FARO_API(int, File_iwrite_all, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
FARO_API(int, File_seek, (MPI_File fh, MPI_Offset offset, int whence))
FARO_API(int, File_get_position, (MPI_File fh, MPI_Offset *offset))
FARO_API(int, File_get_byte_offset, (MPI_File fh, MPI_Offset offset, MPI_Offset *disp))
FARO_API(int, File_read_shared, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
FARO_API(int, File_write_shared, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
FARO_API(int, File_iread_shared, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
FARO_API(int, File_iwrite_shared, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Request *request))
FARO_API(int, File_read_ordered, (MPI_File fh, void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
FARO_API(int, File_write_ordered, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype, MPI_Status *status))
FARO_API(int, File_seek_shared, (MPI_File fh, MPI_Offset offset, int whence))
FARO_API(int, File_get_position_shared, (MPI_File fh, MPI_Offset *offset))
FARO_API(int, File_read_at_all_begin, (MPI_File fh, MPI_Offset offset, void *buf, int count, MPI_Datatype datatype))
FARO_API(int, File_read_at_all_end, (MPI_File fh, void *buf, MPI_Status *status))
FARO_API(int, File_write_at_all_begin, (MPI_File fh, MPI_Offset offset, const void *buf, int count, MPI_Datatype datatype))
FARO_API(int, File_write_at_all_end, (MPI_File fh, const void *buf, MPI_Status *status))
FARO_API(int, File_read_all_begin, (MPI_File fh, void *buf, int count, MPI_Datatype datatype))
FARO_API(int, File_read_all_end, (MPI_File fh, void *buf, MPI_Status *status))
FARO_API(int, File_write_all_begin, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype))
FARO_API(int, File_write_all_end, (MPI_File fh, const void *buf, MPI_Status *status))
FARO_API(int, File_read_ordered_begin, (MPI_File fh, void *buf, int count, MPI_Datatype datatype))
FARO_API(int, File_read_ordered_end, (MPI_File fh, void *buf, MPI_Status *status))
FARO_API(int, File_write_ordered_begin, (MPI_File fh, const void *buf, int count, MPI_Datatype datatype))
FARO_API(int, File_write_ordered_end, (MPI_File fh, const void *buf, MPI_Status *status))
FARO_API(int, File_get_type_extent, (MPI_File fh, MPI_Datatype datatype, MPI_Aint *extent))
FARO_API(int, Register_datarep, (const char *datarep, MPI_Datarep_conversion_function *read_conversion_fn, MPI_Datarep_conversion_function *write_conversion_fn, MPI_Datarep_extent_function *dtype_file_extent_fn, void *extra_state))
FARO_API(int, File_set_atomicity, (MPI_File fh, int flag))
FARO_API(int, File_get_atomicity, (MPI_File fh, int *flag))
FARO_API(int, File_sync, (MPI_File fh))
FARO_API(int, File_create_errhandler, (MPI_File_errhandler_function *file_errhandler_fn, MPI_Errhandler *errhandler))
FARO_API(int, File_set_errhandler, (MPI_File file, MPI_Errhandler errhandler))
FARO_API(int, File_get_errhandler, (MPI_File file, MPI_Errhandler *errhandler))
FARO_API(int, File_call_errhandler, (MPI_File fh, int errorcode))
FARO_API(MPI_Fint, File_c2f, (MPI_File file))
FARO_API(MPI_File, File_f2c, (MPI_Fint file))
/* ---- MPI_T tool interface (issue 18) ---- */
FARO_API(int, T_init_thread, (int required, int *provided))
FARO_API(int, T_finalize, (void))
FARO_API(int, T_enum_get_info, (MPI_T_enum enumtype, int *num, char *name, int *name_len))
FARO_API(int, T_enum_get_item, (MPI_T_enum enumtype, int index, int *value, char *name, int *name_len))
FARO_API(int, T_cvar_get_num, (int *num_cvar))
FARO_API(int, T_cvar_get_info, (int cvar_index, char *name, int *name_len, int *verbosity, MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind, int *scope))
FARO_API(int, T_cvar_get_index, (const char *name, int *cvar_index))
FARO_API(int, T_cvar_handle_alloc, (int cvar_index, void *obj_handle, MPI_T_cvar_handle *handle, int *count))
FARO_API(int, T_cvar_handle_free, (MPI_T_cvar_handle *handle))
FARO_API(int, T_cvar_read, (MPI_T_cvar_handle handle, void *buf))
FARO_API(int, T_cvar_write, (MPI_T_cvar_handle handle, const void *buf))
FARO_API(int, T_pvar_get_num, (int *num_pvar))
FARO_API(int, T_pvar_get_info, (int pvar_index, char *name, int *name_len, int *verbosity, int *var_class, MPI_Datatype *datatype, MPI_T_enum *enumtype, char *desc, int *desc_len, int *bind, int *readonly, int *continuous, int *atomic))
FARO_API(int, T_pvar_get_index, (const char *name, int var_class, int *pvar_index))
FARO_API(int, T_pvar_session_create, (MPI_T_pvar_session *session))
FARO_API(int, T_pvar_session_free, (MPI_T_pvar_session *session))
FARO_API(int, T_pvar_handle_alloc, (MPI_T_pvar_session session, int pvar_index, void *obj_handle, MPI_T_pvar_handle *handle, int *count))
FARO_API(int, T_pvar_handle_free, (MPI_T_pvar_session session, MPI_T_pvar_handle *handle))
FARO_API(int, T_pvar_start, (MPI_T_pvar_session session, MPI_T_pvar_handle handle))
FARO_API(int, T_pvar_stop, (MPI_T_pvar_session session, MPI_T_pvar_handle handle))
FARO_API(int, T_pvar_read, (MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf))
FARO_API(int, T_pvar_write, (MPI_T_pvar_session session, MPI_T_pvar_handle handle, const void *buf))
FARO_API(int, T_pvar_reset, (MPI_T_pvar_session session, MPI_T_pvar_handle handle))
FARO_API(int, T_pvar_readreset, (MPI_T_pvar_session session, MPI_T_pvar_handle handle, void *buf))
FARO_API(int, T_category_get_num, (int *num_cat))
FARO_API(int, T_category_get_info, (int cat_index, char *name, int *name_len, char *desc, int *desc_len, int *num_cvars, int *num_pvars, int *num_categories))
FARO_API(int, T_category_get_index, (const char *name, int *cat_index))
FARO_API(int, T_category_get_cvars, (int cat_index, int len, int indices[]))
FARO_API(int, T_category_get_pvars, (int cat_index, int len, int indices[]))
FARO_API(int, T_category_get_categories, (int cat_index, int len, int indices[]))
FARO_API(int, T_category_changed, (int *update_number))
FARO_API(int, T_category_get_num_events, (int cat_index, int *num_events))
FARO_API(int, T_category_get_events, (int cat_index, int len, int indices[]))
FARO_API(int, T_source_get_num, (int *num_sources))
FARO_API(int, T_source_get_info, (int source_index, char *name, int *name_len, char *desc, int *desc_len, MPI_T_source_order *ordering, MPI_Count *ticks_per_second, MPI_Count *max_ticks, MPI_Info *info))
FARO_API(int, T_source_get_timestamp, (int source_index, MPI_Count *timestamp))
FARO_API(int, T_event_get_num, (int *num_events))
FARO_API(int, T_event_get_info, (int event_index, char *name, int *name_len, int *verbosity, MPI_Datatype array_of_datatypes[], MPI_Aint array_of_displacements[], int *num_elements, MPI_T_enum *enumtype, MPI_Info *info, char *desc, int *desc_len, int *bind))
FARO_API(int, T_event_get_index, (const char *name, int *event_index))
FARO_API(int, T_event_handle_alloc, (int event_index, void *obj_handle, MPI_Info info, MPI_T_event_registration *event_registration))
FARO_API(int, T_event_handle_set_info, (MPI_T_event_registration event_registration, MPI_Info info))
FARO_API(int, T_event_handle_get_info, (MPI_T_event_registration event_registration, MPI_Info *info_used))
FARO_API(int, T_event_register_callback, (MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety, MPI_Info info, void *user_data, MPI_T_event_cb_function event_cb_function))
FARO_API(int, T_event_callback_set_info, (MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety, MPI_Info info))
FARO_API(int, T_event_callback_get_info, (MPI_T_event_registration event_registration, MPI_T_cb_safety cb_safety, MPI_Info *info_used))
FARO_API(int, T_event_handle_free, (MPI_T_event_registration event_registration, void *user_data, MPI_T_event_free_cb_function free_cb_function))
FARO_API(int, T_event_set_dropped_handler, (MPI_T_event_registration event_registration, MPI_T_event_dropped_cb_function dropped_cb_function))
FARO_API(int, T_event_read, (MPI_T_event_instance event_instance, int element_index, void *buffer))
FARO_API(int, T_event_copy, (MPI_T_event_instance event_instance, void *buffer))
FARO_API(int, T_event_get_timestamp, (MPI_T_event_instance event_instance, MPI_Count *event_timestamp))
FARO_API(int, T_event_get_source, (MPI_T_event_instance event_instance, int *source_index))
/* ---- MPI-4.0 point-to-point, persistent collectives, partitioned, sessions (issue 18) ---- */
FARO_API(int, Isendrecv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Isendrecv_replace, (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Request *request))

FARO_API(int, Barrier_init, (MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Bcast_init, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Gather_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Gatherv_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Scatter_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Scatterv_init, (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Allgather_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Allgatherv_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Alltoall_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Alltoallv_init, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Alltoallw_init, (const void *sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Reduce_init, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Allreduce_init, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Reduce_scatter_init, (const void *sendbuf, void *recvbuf, const int recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Reduce_scatter_block_init, (const void *sendbuf, void *recvbuf, int recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Scan_init, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Exscan_init, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Neighbor_allgather_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Neighbor_allgatherv_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Neighbor_alltoall_init, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Neighbor_alltoallv_init, (const void *sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Neighbor_alltoallw_init, (const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request *request))

FARO_API(int, Psend_init, (const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Precv_init, (void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Pready, (int partition, MPI_Request request))
FARO_API(int, Pready_range, (int partition_low, int partition_high, MPI_Request request))
FARO_API(int, Pready_list, (int length, const int array_of_partitions[], MPI_Request request))
FARO_API(int, Parrived, (MPI_Request request, int partition, int *flag))

FARO_API(int, Session_init, (MPI_Info info, MPI_Errhandler errhandler, MPI_Session *session))
FARO_API(int, Session_finalize, (MPI_Session *session))
FARO_API(int, Session_get_num_psets, (MPI_Session session, MPI_Info info, int *npset_names))
FARO_API(int, Session_get_nth_pset, (MPI_Session session, MPI_Info info, int n, int *pset_len, char *pset_name))
FARO_API(int, Session_get_pset_info, (MPI_Session session, const char *pset_name, MPI_Info *info))
FARO_API(int, Session_get_info, (MPI_Session session, MPI_Info *info_used))
FARO_API(int, Session_create_errhandler, (MPI_Session_errhandler_function *session_errhandler_fn, MPI_Errhandler *errhandler))
FARO_API(int, Session_set_errhandler, (MPI_Session session, MPI_Errhandler errhandler))
FARO_API(int, Session_get_errhandler, (MPI_Session session, MPI_Errhandler *errhandler))
FARO_API(int, Session_call_errhandler, (MPI_Session session, int errorcode))
FARO_API(MPI_Fint, Session_c2f, (MPI_Session session))
FARO_API(MPI_Session, Session_f2c, (MPI_Fint session))
FARO_API(int, Group_from_session_pset, (MPI_Session session, const char *pset_name, MPI_Group *newgroup))
FARO_API(int, Comm_create_from_group, (MPI_Group group, const char *stringtag, MPI_Info info, MPI_Errhandler errhandler, MPI_Comm *newcomm))
FARO_API(int, Intercomm_create_from_groups, (MPI_Group local_group, int local_leader, MPI_Group remote_group, int remote_leader, const char *stringtag, MPI_Info info, MPI_Errhandler errhandler, MPI_Comm *newintercomm))
/* ---- large counts, written by hand (issue 18) ---- */
FARO_API(int, Op_create_c, (MPI_User_function_c *user_fn, int commute, MPI_Op *op))

/* ---- large counts (issue 18) ---- */
/* Generated by api/apigen.py bigcount from the api/ descriptions: every function that
 * takes a count has a _c form whose counts are MPI_Count and displacements
 * MPI_Aint (MPI-4.0 section 19.2). Regenerated by make; edit the descriptions. */
FARO_API(int, Accumulate_c, (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win))
FARO_API(int, Allgather_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm))
FARO_API(int, Allgather_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Allgatherv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm))
FARO_API(int, Allgatherv_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Allreduce_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
FARO_API(int, Allreduce_init_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Alltoall_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm))
FARO_API(int, Alltoall_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Alltoallv_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm))
FARO_API(int, Alltoallv_init_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Alltoallw_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm))
FARO_API(int, Alltoallw_init_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Bcast_c, (void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm))
FARO_API(int, Bcast_init_c, (void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Bsend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
FARO_API(int, Bsend_init_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Buffer_attach_c, (void *buffer, MPI_Count size))
FARO_API(int, Buffer_detach_c, (void *buffer_addr, MPI_Count *size))
FARO_API(int, Exscan_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
FARO_API(int, Exscan_init_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, File_iread_c, (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request))
FARO_API(int, File_iread_all_c, (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request))
FARO_API(int, File_iread_at_c, (MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request))
FARO_API(int, File_iread_at_all_c, (MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request))
FARO_API(int, File_iread_shared_c, (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request))
FARO_API(int, File_iwrite_c, (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request))
FARO_API(int, File_iwrite_all_c, (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request))
FARO_API(int, File_iwrite_at_c, (MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request))
FARO_API(int, File_iwrite_at_all_c, (MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request))
FARO_API(int, File_iwrite_shared_c, (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Request *request))
FARO_API(int, File_read_c, (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status))
FARO_API(int, File_read_all_c, (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status))
FARO_API(int, File_read_all_begin_c, (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype))
FARO_API(int, File_read_at_c, (MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status))
FARO_API(int, File_read_at_all_c, (MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status))
FARO_API(int, File_read_at_all_begin_c, (MPI_File fh, MPI_Offset offset, void *buf, MPI_Count count, MPI_Datatype datatype))
FARO_API(int, File_read_ordered_c, (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status))
FARO_API(int, File_read_ordered_begin_c, (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype))
FARO_API(int, File_read_shared_c, (MPI_File fh, void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status))
FARO_API(int, File_write_c, (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status))
FARO_API(int, File_write_all_c, (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status))
FARO_API(int, File_write_all_begin_c, (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype))
FARO_API(int, File_write_at_c, (MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status))
FARO_API(int, File_write_at_all_c, (MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status))
FARO_API(int, File_write_at_all_begin_c, (MPI_File fh, MPI_Offset offset, const void *buf, MPI_Count count, MPI_Datatype datatype))
FARO_API(int, File_write_ordered_c, (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status))
FARO_API(int, File_write_ordered_begin_c, (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype))
FARO_API(int, File_write_shared_c, (MPI_File fh, const void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Status *status))
FARO_API(int, Gather_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
FARO_API(int, Gather_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Gatherv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root, MPI_Comm comm))
FARO_API(int, Gatherv_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Get_c, (void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win))
FARO_API(int, Get_accumulate_c, (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win))
FARO_API(int, Get_count_c, (const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count))
FARO_API(int, Get_elements_c, (const MPI_Status *status, MPI_Datatype datatype, MPI_Count *count))
FARO_API(int, Iallgather_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Iallgatherv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Iallreduce_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Ialltoall_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Ialltoallv_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Ialltoallw_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request))
FARO_API(int, Ibcast_c, (void *buffer, MPI_Count count, MPI_Datatype datatype, int root, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Ibsend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Iexscan_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Igather_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Igatherv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Imrecv_c, (void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request))
FARO_API(int, Ineighbor_allgather_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Ineighbor_allgatherv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Ineighbor_alltoall_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Ineighbor_alltoallv_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Ineighbor_alltoallw_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request))
FARO_API(int, Irecv_c, (void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Ireduce_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Ireduce_scatter_c, (const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Ireduce_scatter_block_c, (const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Irsend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Iscan_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Iscatter_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Iscatterv_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Isend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Isendrecv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Isendrecv_replace_c, (void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Issend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Mrecv_c, (void *buf, MPI_Count count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status))
FARO_API(int, Neighbor_allgather_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm))
FARO_API(int, Neighbor_allgather_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Neighbor_allgatherv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm))
FARO_API(int, Neighbor_allgatherv_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Neighbor_alltoall_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm))
FARO_API(int, Neighbor_alltoall_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Neighbor_alltoallv_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm))
FARO_API(int, Neighbor_alltoallv_init_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Neighbor_alltoallw_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm))
FARO_API(int, Neighbor_alltoallw_init_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf, const MPI_Count recvcounts[], const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Pack_c, (const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf, MPI_Count outsize, MPI_Count *position, MPI_Comm comm))
FARO_API(int, Pack_external_c, (const char datarep[], const void *inbuf, MPI_Count incount, MPI_Datatype datatype, void *outbuf, MPI_Count outsize, MPI_Count *position))
FARO_API(int, Pack_external_size_c, (const char datarep[], MPI_Count incount, MPI_Datatype datatype, MPI_Count *size))
FARO_API(int, Pack_size_c, (MPI_Count incount, MPI_Datatype datatype, MPI_Comm comm, MPI_Count *size))
FARO_API(int, Precv_init_c, (void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Psend_init_c, (const void *buf, int partitions, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Put_c, (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win))
FARO_API(int, Raccumulate_c, (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request))
FARO_API(int, Recv_c, (void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status))
FARO_API(int, Recv_init_c, (void *buf, MPI_Count count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Reduce_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm))
FARO_API(int, Reduce_init_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Reduce_local_c, (const void *inbuf, void *inoutbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op))
FARO_API(int, Reduce_scatter_c, (const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
FARO_API(int, Reduce_scatter_block_c, (const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
FARO_API(int, Reduce_scatter_block_init_c, (const void *sendbuf, void *recvbuf, MPI_Count recvcount, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Reduce_scatter_init_c, (const void *sendbuf, void *recvbuf, const MPI_Count recvcounts[], MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Rget_c, (void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request))
FARO_API(int, Rget_accumulate_c, (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, void *result_addr, MPI_Count result_count, MPI_Datatype result_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Op op, MPI_Win win, MPI_Request *request))
FARO_API(int, Rput_c, (const void *origin_addr, MPI_Count origin_count, MPI_Datatype origin_datatype, int target_rank, MPI_Aint target_disp, MPI_Count target_count, MPI_Datatype target_datatype, MPI_Win win, MPI_Request *request))
FARO_API(int, Rsend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
FARO_API(int, Rsend_init_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Scan_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
FARO_API(int, Scan_init_c, (const void *sendbuf, void *recvbuf, MPI_Count count, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Scatter_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
FARO_API(int, Scatter_init_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Scatterv_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
FARO_API(int, Scatterv_init_c, (const void *sendbuf, const MPI_Count sendcounts[], const MPI_Aint displs[], MPI_Datatype sendtype, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request *request))
FARO_API(int, Send_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
FARO_API(int, Send_init_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Sendrecv_c, (const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status *status))
FARO_API(int, Sendrecv_replace_c, (void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int sendtag, int source, int recvtag, MPI_Comm comm, MPI_Status *status))
FARO_API(int, Ssend_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
FARO_API(int, Ssend_init_c, (const void *buf, MPI_Count count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
FARO_API(int, Type_contiguous_c, (MPI_Count count, MPI_Datatype oldtype, MPI_Datatype *newtype))
FARO_API(int, Type_create_darray_c, (int size, int rank, int ndims, const MPI_Count array_of_gsizes[], const int array_of_distribs[], const int array_of_dargs[], const int array_of_psizes[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype))
FARO_API(int, Type_create_hindexed_c, (MPI_Count count, const MPI_Count array_of_blocklengths[], const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
FARO_API(int, Type_create_hindexed_block_c, (MPI_Count count, MPI_Count blocklength, const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
FARO_API(int, Type_create_hvector_c, (MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype, MPI_Datatype *newtype))
FARO_API(int, Type_create_indexed_block_c, (MPI_Count count, MPI_Count blocklength, const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
FARO_API(int, Type_create_resized_c, (MPI_Datatype oldtype, MPI_Count lb, MPI_Count extent, MPI_Datatype *newtype))
FARO_API(int, Type_create_struct_c, (MPI_Count count, const MPI_Count array_of_blocklengths[], const MPI_Count array_of_displacements[], const MPI_Datatype array_of_types[], MPI_Datatype *newtype))
FARO_API(int, Type_create_subarray_c, (int ndims, const MPI_Count array_of_sizes[], const MPI_Count array_of_subsizes[], const MPI_Count array_of_starts[], int order, MPI_Datatype oldtype, MPI_Datatype *newtype))
FARO_API(int, Type_get_extent_c, (MPI_Datatype datatype, MPI_Count *lb, MPI_Count *extent))
FARO_API(int, Type_get_true_extent_c, (MPI_Datatype datatype, MPI_Count *true_lb, MPI_Count *true_extent))
FARO_API(int, Type_indexed_c, (MPI_Count count, const MPI_Count array_of_blocklengths[], const MPI_Count array_of_displacements[], MPI_Datatype oldtype, MPI_Datatype *newtype))
FARO_API(int, Type_size_c, (MPI_Datatype datatype, MPI_Count *size))
FARO_API(int, Type_vector_c, (MPI_Count count, MPI_Count blocklength, MPI_Count stride, MPI_Datatype oldtype, MPI_Datatype *newtype))
FARO_API(int, Unpack_c, (const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf, MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm))
FARO_API(int, Unpack_external_c, (const char datarep[], const void *inbuf, MPI_Count insize, MPI_Count *position, void *outbuf, MPI_Count outcount, MPI_Datatype datatype))
FARO_API(int, Win_allocate_c, (MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win))
FARO_API(int, Win_allocate_shared_c, (MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr, MPI_Win *win))
FARO_API(int, Win_create_c, (void *base, MPI_Aint size, MPI_Aint disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win *win))
FARO_API(int, Win_shared_query_c, (MPI_Win win, int rank, MPI_Aint *size, MPI_Aint *disp_unit, void *baseptr))
/* ---- end of large counts ---- */

#undef FARO_API

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#ifdef __cplusplus
}
#endif

#endif /* FARO_MPI_H */
