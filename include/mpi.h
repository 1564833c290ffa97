/*
 * Faro: the MPI C API.
 *
 * Handles are pointers to Faro objects; predefined handles are the addresses
 * of objects inside the library, null handles are NULL. Every function exists
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

/* ---- predefined objects (inside the library) ---- */
#define FARO_PREDEFINED(type, name) extern struct type name;
FARO_PREDEFINED(faro_comm, faro_mpi_comm_world)
FARO_PREDEFINED(faro_comm, faro_mpi_comm_self)
FARO_PREDEFINED(faro_errhandler, faro_mpi_errors_are_fatal)
FARO_PREDEFINED(faro_errhandler, faro_mpi_errors_return)
FARO_PREDEFINED(faro_errhandler, faro_mpi_errors_abort)
FARO_PREDEFINED(faro_message, faro_mpi_message_no_proc)

#define MPI_COMM_WORLD (&faro_mpi_comm_world)
#define MPI_COMM_SELF (&faro_mpi_comm_self)
#define MPI_COMM_NULL ((MPI_Comm)0)
#define MPI_ERRORS_ARE_FATAL (&faro_mpi_errors_are_fatal)
#define MPI_ERRORS_RETURN (&faro_mpi_errors_return)
#define MPI_ERRORS_ABORT (&faro_mpi_errors_abort)
#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0)
#define MPI_REQUEST_NULL ((MPI_Request)0)
#define MPI_MESSAGE_NULL ((MPI_Message)0)
#define MPI_MESSAGE_NO_PROC (&faro_mpi_message_no_proc)
#define MPI_DATATYPE_NULL ((MPI_Datatype)0)
#define MPI_OP_NULL ((MPI_Op)0)
#define MPI_GROUP_NULL ((MPI_Group)0)
#define MPI_INFO_NULL ((MPI_Info)0)

/* Predefined datatypes */
#define FARO_TYPE(name) extern struct faro_datatype faro_mpi_##name;
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
#undef FARO_TYPE

#define MPI_CHAR (&faro_mpi_char)
#define MPI_SIGNED_CHAR (&faro_mpi_signed_char)
#define MPI_UNSIGNED_CHAR (&faro_mpi_unsigned_char)
#define MPI_BYTE (&faro_mpi_byte)
#define MPI_WCHAR (&faro_mpi_wchar)
#define MPI_SHORT (&faro_mpi_short)
#define MPI_UNSIGNED_SHORT (&faro_mpi_unsigned_short)
#define MPI_INT (&faro_mpi_int)
#define MPI_UNSIGNED (&faro_mpi_unsigned)
#define MPI_LONG (&faro_mpi_long)
#define MPI_UNSIGNED_LONG (&faro_mpi_unsigned_long)
#define MPI_LONG_LONG_INT (&faro_mpi_long_long)
#define MPI_LONG_LONG (&faro_mpi_long_long)
#define MPI_UNSIGNED_LONG_LONG (&faro_mpi_unsigned_long_long)
#define MPI_FLOAT (&faro_mpi_float)
#define MPI_DOUBLE (&faro_mpi_double)
#define MPI_LONG_DOUBLE (&faro_mpi_long_double)
#define MPI_INT8_T (&faro_mpi_int8_t)
#define MPI_INT16_T (&faro_mpi_int16_t)
#define MPI_INT32_T (&faro_mpi_int32_t)
#define MPI_INT64_T (&faro_mpi_int64_t)
#define MPI_UINT8_T (&faro_mpi_uint8_t)
#define MPI_UINT16_T (&faro_mpi_uint16_t)
#define MPI_UINT32_T (&faro_mpi_uint32_t)
#define MPI_UINT64_T (&faro_mpi_uint64_t)
#define MPI_C_BOOL (&faro_mpi_c_bool)
#define MPI_C_FLOAT_COMPLEX (&faro_mpi_c_float_complex)
#define MPI_C_COMPLEX MPI_C_FLOAT_COMPLEX
#define MPI_C_DOUBLE_COMPLEX (&faro_mpi_c_double_complex)
#define MPI_C_LONG_DOUBLE_COMPLEX (&faro_mpi_c_long_double_complex)
#define MPI_AINT (&faro_mpi_aint)
#define MPI_OFFSET (&faro_mpi_offset)
#define MPI_COUNT (&faro_mpi_count)
#define MPI_PACKED (&faro_mpi_packed)
#define MPI_FLOAT_INT (&faro_mpi_float_int)
#define MPI_DOUBLE_INT (&faro_mpi_double_int)
#define MPI_LONG_INT (&faro_mpi_long_int)
#define MPI_2INT (&faro_mpi_2int)
#define MPI_SHORT_INT (&faro_mpi_short_int)
#define MPI_LONG_DOUBLE_INT (&faro_mpi_long_double_int)

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
#define MPI_ERR_LASTCODE 61

/* constants of the MPI-breadth areas (each area adds below its own line) */
/* area datatype: */
/* area op: */
/* area comm: */
/* area attr: */
/* area coll: */

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

/* probe and matched receive */
FARO_API(int, Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status))
FARO_API(int, Iprobe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status))
FARO_API(int, Mprobe, (int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status))
FARO_API(int, Improbe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message, MPI_Status *status))
FARO_API(int, Mrecv, (void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status))
FARO_API(int, Imrecv, (void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request))

/* ---- sections of the MPI-breadth work; each area adds its own ---- */

/* datatype constructors, pack/unpack, addresses (area: datatype) */

/* reductions and ops (area: op) */

/* info objects (area: op) */

/* handle conversion c2f/f2c, status helpers, memory (area: op) */

/* communicators and groups (area: comm) */

/* topologies (area: comm) */

/* attributes, keyvals, error classes (area: attr) */

/* collectives (area: coll) */

#undef FARO_API

#ifdef __cplusplus
}
#endif

#endif /* FARO_MPI_H */
