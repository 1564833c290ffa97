/*
 * Processes beyond the job (owner: dynpeer.c) and ports (owner: port.c).
 *
 * A process of another job becomes a peer (peers.c) when a handshake
 * (MPI_Comm_accept / MPI_Comm_connect, dynconn.c) hands this process its
 * descriptor: its gpid, its host, and for each transport with ports
 * (FARO_TP_CAP_PORTS) its address and its "dynamic key". Every process
 * listens with its own dynamic key on those transports, once, when it first
 * gives its descriptor away; a peer beyond the job connects lazily, at its
 * first message, with that key and its own gpid as id, exactly as job ranks
 * connect with the job key. The accepted upcall maps the gpid to the peer's
 * entry, creating it when the descriptor has not arrived here yet (the key
 * proves the connector was given it by a handshake this process took part
 * in): a process that finished its handshake may send before this one has
 * finished its own.
 *
 * When both sides connect at the same moment a pair has two connections;
 * each side sends on the one it bound first and receives on both (the second
 * one's context is an alias of the peer), so each direction keeps one order.
 *
 * Loss: a peer beyond the job that closes in order (it finalized) is just
 * unbound, and reconnected if it is ever written to again. One that breaks
 * is not the end of this job (unlike a job rank): the communicators that
 * contain it are broken (every call on them fails with MPI_ERR_PROC_ABORTED
 * naming the process, except MPI_Comm_free and MPI_Comm_disconnect), and the
 * requests waiting for it complete with that error.
 */
#ifndef FARO_RUNTIME_DYN_H
#define FARO_RUNTIME_DYN_H

#include <stddef.h>
#include <stdint.h>

#include "core.h"

#define FARO_DYN_KEYLEN 16
#define FARO_DYN_MAX_TPS 4     /* transports with ports in one descriptor or port name */
#define FARO_DYN_TPNAME 16

/* How to reach a process beyond the job (its descriptor, unpacked). */
struct faro_dyn_desc {
    uint64_t gpid;
    uint32_t check;            /* its job's faro.job_check */
    char host[MPI_MAX_PROCESSOR_NAME];
    int ntp;
    struct {
        char name[FARO_DYN_TPNAME];
        uint16_t addrlen;
        uint8_t keylen;
        uint8_t addr[FARO_TP_MAX_ADDR];
        uint8_t key[FARO_TP_MAX_KEY];
    } tp[FARO_DYN_MAX_TPS];
    char why[256];             /* why it was lost, once it was */
};

/* ---- dynpeer.c ---- */

/* Listen with key on every transport with ports: tp_port[i] is transport i's
 * port number (0: not listening there). Returns how many listen, or -1 with
 * err (no transport with ports is in use here, or all refused). */
int faro_dyn_listen(const uint8_t *key, size_t keylen, unsigned *tp_port, char *err,
                    size_t errlen);
void faro_dyn_unlisten(const unsigned *tp_port);
/* This process's descriptor, packed into buf (cap bytes): listens with the
 * dynamic key first when it does not yet. Returns its length, -1 with err. */
int faro_dyn_self_desc(uint8_t *buf, size_t cap, char *err, size_t errlen);
#define FARO_DYN_DESC_MAX 1400 /* bytes of one packed descriptor, at most */
/* Unpack the descriptor at buf (len bytes; *used: its length) and make its
 * process a peer: returns its index (a job rank for a process of this job),
 * -1 with err for a malformed descriptor or a full table. */
int faro_dyn_add(const uint8_t *buf, size_t len, size_t *used, char *err, size_t errlen);
/* The transport both sides can use for names[0..n) (as listed by the other
 * side), in FARO_TRANSPORTS order; -1 when none. *which: its index in names. */
struct faro_transport *faro_dyn_pick(const char (*names)[FARO_DYN_TPNAME], int n, int *which);
/* Upcalls from wireup.c for connections on ports and for losses of peers
 * other than job ranks; faro_peer_connect's path for them. */
void *faro_dyn_accepted(struct faro_transport *t, faro_tp_ep_t *ep, uint64_t id,
                        unsigned port);
void faro_dyn_lost(struct faro_peer *p, int orderly, const char *why);
void faro_dyn_connect(struct faro_peer *p);
void faro_dyn_finalize(void);

/* ---- port.c ---- */

struct faro_link;
/* A connection on an open port (id: the connector's link number): queued for
 * MPI_Comm_accept. NULL refuses it (no such port here any more). */
void *faro_port_accepted(struct faro_transport *t, faro_tp_ep_t *ep, uint64_t id,
                         unsigned port);
void faro_link_lost(struct faro_link *l, int orderly, const char *why);
void faro_ports_finalize(void);

#endif
