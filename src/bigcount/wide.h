/*
 * The calls Faro implements on wide counts (MPI_Count, MPI_Aint): one
 * function per call, named faro_wide_<Name>, taking the call's name (for
 * its errors) and the parameters of its _c form. The generated entry point
 * MPI_<Name>_c (calls_c.c) calls it; the int entry point MPI_<Name> calls
 * it too or shares its inner code, so both forms run the same code.
 * api/apigen.py reads the names declared here: a call added here gets its
 * _c entry point rewired on the next make.
 */
#ifndef FARO_BIGCOUNT_WIDE_H
#define FARO_BIGCOUNT_WIDE_H

#include "core.h"

/* point-to-point (p2p/pt2pt.c, probe.c, bsend.c) */
int faro_wide_Send(const char *fn, const void *buf, MPI_Count count, MPI_Datatype datatype,
                   int dest, int tag, MPI_Comm comm);
int faro_wide_Ssend(const char *fn, const void *buf, MPI_Count count, MPI_Datatype datatype,
                    int dest, int tag, MPI_Comm comm);
int faro_wide_Rsend(const char *fn, const void *buf, MPI_Count count, MPI_Datatype datatype,
                    int dest, int tag, MPI_Comm comm);
int faro_wide_Bsend(const char *fn, const void *buf, MPI_Count count, MPI_Datatype datatype,
                    int dest, int tag, MPI_Comm comm);
int faro_wide_Recv(const char *fn, void *buf, MPI_Count count, MPI_Datatype datatype, int source,
                   int tag, MPI_Comm comm, MPI_Status *status);
int faro_wide_Isend(const char *fn, const void *buf, MPI_Count count, MPI_Datatype datatype,
                    int dest, int tag, MPI_Comm comm, MPI_Request *request);
int faro_wide_Issend(const char *fn, const void *buf, MPI_Count count, MPI_Datatype datatype,
                     int dest, int tag, MPI_Comm comm, MPI_Request *request);
int faro_wide_Irsend(const char *fn, const void *buf, MPI_Count count, MPI_Datatype datatype,
                     int dest, int tag, MPI_Comm comm, MPI_Request *request);
int faro_wide_Ibsend(const char *fn, const void *buf, MPI_Count count, MPI_Datatype datatype,
                     int dest, int tag, MPI_Comm comm, MPI_Request *request);
int faro_wide_Irecv(const char *fn, void *buf, MPI_Count count, MPI_Datatype datatype,
                    int source, int tag, MPI_Comm comm, MPI_Request *request);
int faro_wide_Send_init(const char *fn, const void *buf, MPI_Count count, MPI_Datatype datatype,
                        int dest, int tag, MPI_Comm comm, MPI_Request *request);
int faro_wide_Ssend_init(const char *fn, const void *buf, MPI_Count count,
                         MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                         MPI_Request *request);
int faro_wide_Rsend_init(const char *fn, const void *buf, MPI_Count count,
                         MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                         MPI_Request *request);
int faro_wide_Bsend_init(const char *fn, const void *buf, MPI_Count count,
                         MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                         MPI_Request *request);
int faro_wide_Recv_init(const char *fn, void *buf, MPI_Count count, MPI_Datatype datatype,
                        int source, int tag, MPI_Comm comm, MPI_Request *request);
int faro_wide_Sendrecv(const char *fn, const void *sendbuf, MPI_Count sendcount,
                       MPI_Datatype sendtype, int dest, int sendtag, void *recvbuf,
                       MPI_Count recvcount, MPI_Datatype recvtype, int source, int recvtag,
                       MPI_Comm comm, MPI_Status *status);
int faro_wide_Sendrecv_replace(const char *fn, void *buf, MPI_Count count, MPI_Datatype datatype,
                               int dest, int sendtag, int source, int recvtag, MPI_Comm comm,
                               MPI_Status *status);
int faro_wide_Imrecv(const char *fn, void *buf, MPI_Count count, MPI_Datatype datatype,
                     MPI_Message *message, MPI_Request *request);
int faro_wide_Mrecv(const char *fn, void *buf, MPI_Count count, MPI_Datatype datatype,
                    MPI_Message *message, MPI_Status *status);
int faro_wide_Buffer_attach(const char *fn, void *buffer, MPI_Count size);
int faro_wide_Buffer_detach(const char *fn, void *buffer_addr, MPI_Count *size);
int faro_wide_Get_count(const char *fn, const MPI_Status *status, MPI_Datatype datatype,
                        MPI_Count *count);

/* datatypes and packing (objects/datatype.c, type_create.c, pack.c) */
int faro_wide_Get_elements(const char *fn, const MPI_Status *status, MPI_Datatype datatype,
                           MPI_Count *count);
int faro_wide_Type_size(const char *fn, MPI_Datatype datatype, MPI_Count *size);
int faro_wide_Type_contiguous(const char *fn, MPI_Count count, MPI_Datatype oldtype,
                              MPI_Datatype *newtype);
int faro_wide_Type_vector(const char *fn, MPI_Count count, MPI_Count blocklength,
                          MPI_Count stride, MPI_Datatype oldtype, MPI_Datatype *newtype);
int faro_wide_Type_create_hvector(const char *fn, MPI_Count count, MPI_Count blocklength,
                                  MPI_Count stride, MPI_Datatype oldtype, MPI_Datatype *newtype);
int faro_wide_Type_indexed(const char *fn, MPI_Count count,
                           const MPI_Count array_of_blocklengths[],
                           const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                           MPI_Datatype *newtype);
int faro_wide_Type_create_hindexed(const char *fn, MPI_Count count,
                                   const MPI_Count array_of_blocklengths[],
                                   const MPI_Count array_of_displacements[], MPI_Datatype oldtype,
                                   MPI_Datatype *newtype);
int faro_wide_Type_create_indexed_block(const char *fn, MPI_Count count, MPI_Count blocklength,
                                        const MPI_Count array_of_displacements[],
                                        MPI_Datatype oldtype, MPI_Datatype *newtype);
int faro_wide_Type_create_hindexed_block(const char *fn, MPI_Count count, MPI_Count blocklength,
                                         const MPI_Count array_of_displacements[],
                                         MPI_Datatype oldtype, MPI_Datatype *newtype);
int faro_wide_Type_create_struct(const char *fn, MPI_Count count,
                                 const MPI_Count array_of_blocklengths[],
                                 const MPI_Count array_of_displacements[],
                                 const MPI_Datatype array_of_types[], MPI_Datatype *newtype);
int faro_wide_Reduce_local(const char *fn, const void *inbuf, void *inoutbuf, MPI_Count count,
                           MPI_Datatype datatype, MPI_Op op);
int faro_wide_Pack(const char *fn, const void *inbuf, MPI_Count incount, MPI_Datatype datatype,
                   void *outbuf, MPI_Count outsize, MPI_Count *position, MPI_Comm comm);
int faro_wide_Unpack(const char *fn, const void *inbuf, MPI_Count insize, MPI_Count *position,
                     void *outbuf, MPI_Count outcount, MPI_Datatype datatype, MPI_Comm comm);
int faro_wide_Pack_size(const char *fn, MPI_Count incount, MPI_Datatype datatype,
                        MPI_Comm comm, MPI_Count *size);

/* collectives (coll/) */
int faro_wide_Bcast(const char *fn, void *buffer, MPI_Count count, MPI_Datatype datatype,
                    int root, MPI_Comm comm);
int faro_wide_Allgatherv(const char *fn, const void *sendbuf, MPI_Count sendcount,
                         MPI_Datatype sendtype, void *recvbuf, const MPI_Count recvcounts[],
                         const MPI_Aint displs[], MPI_Datatype recvtype, MPI_Comm comm);

#endif
