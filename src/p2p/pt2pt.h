/* Internal entry points shared by the point-to-point API files. */
#ifndef FARO_P2P_PT2PT_H
#define FARO_P2P_PT2PT_H

#include "p2p/match.h"
#include "p2p/request.h"
#include "runtime/hang.h"

/* Checks a point-to-point call's arguments; MPI_DATATYPE_NULL with count 0
 * comes back as MPI_BYTE in *type (an empty message). */
int faro_check_p2p(const char *fn, MPI_Comm comm, const void *buf, MPI_Count count,
                   MPI_Datatype *type, int rank, int tag, int is_recv);
enum { FARO_POST_PERSISTENT = 1, FARO_POST_INTERNAL = 2 /* collective tag, unchecked */ };
int faro_post(const char *fn, int kind, int mode, const void *buf, MPI_Count count,
              MPI_Datatype type, int rank, int tag, MPI_Comm comm, int flags,
              struct faro_request **out);
int faro_req_start(struct faro_request *r);
/* Wait for r, fill the status, release r, raise its error if it has one. */
int faro_wait_release(const char *fn, struct faro_request *r, MPI_Status *st);

int faro_bsend_start(struct faro_request *r);
void faro_recv_take_unexp(struct faro_request *r, struct faro_unexp *u);

#endif
