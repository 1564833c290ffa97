/*
 * Ports and links (owner: port.c), for MPI_Comm_accept / MPI_Comm_connect
 * (dynconn.c).
 *
 * A port is a fresh random key this process listens with on every transport
 * that has ports; its name (printable, at most MPI_MAX_PORT_NAME - 1 bytes)
 * carries the key, this process's gpid and its address on each of those
 * transports:
 *
 *     faro-port:1:<gpid, 16 hex>:<key, 32 hex>:<transport>:<address, hex>[:...]
 *
 * A link is one connection to a port, from connect until the handshake is
 * over. It has a peer entry of its own (kind FARO_PEER_LINK), never the
 * entry of the process behind it: the two processes may already talk through
 * another connection, whose order the link must not disturb. The handshake
 * runs over the point-to-point engine on a one-to-one intercommunicator over
 * the link (context FARO_CTX_LINK, shared by every link). Messages to a
 * process's end of a link carry that end's link number as their tag, so
 * several handshakes at one process never take each other's messages: the
 * connector presents its number as its connection id, and the acceptor's
 * first message tells its own.
 */
#ifndef FARO_OBJECTS_PORT_H
#define FARO_OBJECTS_PORT_H

#include <stdint.h>

#include "core.h"
#include "runtime/dyn.h"

#define FARO_PORT_PREFIX "faro-port:1:"
#define FARO_TAG_LINK_BASE (-(1 << 24))
#define FARO_TAG_LINK_SEQS (1 << 20)

struct faro_link {
    struct faro_link *next;   /* in its port's queue of arrivals */
    struct faro_port *port;   /* acceptor: the port it arrived on, while queued */
    int peer;                 /* its entry in faro.peers (kind FARO_PEER_LINK) */
    uint32_t mine, theirs;    /* link numbers of this end and the other */
    int lost;                 /* its connection ended: why says how */
    char why[256];
    struct faro_comm comm;    /* one to one over the link, context FARO_CTX_LINK */
    int world[1], remote[1];
};

struct faro_port {
    struct faro_port *next;
    char name[MPI_MAX_PORT_NAME];
    uint8_t key[FARO_DYN_KEYLEN];
    unsigned *tp_port;        /* per transport: its port number for the key (0: none) */
    struct faro_link *queue;  /* connections waiting for an accept, oldest first */
};

/* The internal tag of messages to the end of a link numbered n. */
static inline int faro_link_tag(uint32_t n)
{
    return FARO_TAG_LINK_BASE - (int)(n % FARO_TAG_LINK_SEQS);
}

/* Open a port (MPI_Open_port without raising an error): 0 and its name, or
 * an error class with err (fn names the caller in notes). */
int faro_port_open(const char *fn, char *port_name, char *err, size_t errlen);
/* Close this process's port of that name: 0, or -1 when it has none. */
int faro_port_close(const char *port_name);
/* Check a port name: 0, or -1 with err saying what is wrong with it. */
int faro_port_name_check(const char *name, char *err, size_t errlen);
/* This process's open port of that name; NULL when none. */
struct faro_port *faro_port_find(const char *name);
/* The oldest connection waiting on port (taken off its queue); NULL: none yet. */
struct faro_link *faro_port_take(struct faro_port *port);
/* Connect to the port of that name (checked). NULL with err when no transport
 * here reaches it or the connect fails at once; a refusal comes later, as
 * the link's loss. */
struct faro_link *faro_link_connect(const char *name, char *err, size_t errlen);
/* End a link: its connection closes (in order) and its entry goes. */
void faro_link_close(struct faro_link *l);

/* dynconn.c: MPI_Comm_accept (accepting) or MPI_Comm_connect for the spawn
 * calls (spawn.c), with errors raised under fn on comm. */
int faro_dyn_handshake(const char *fn, int accepting, const char *port_name, int root,
                       MPI_Comm comm, MPI_Comm *newcomm);
/* Every member of comm packs its descriptor (dynpeer.c) and root gathers
 * them, in comm rank order, into *descs (malloc'd there, *bytes long).
 * Returns the collectives' code; a member without a transport with ports
 * sends none, and root gets *cls (MPI_ERR_UNSUPPORTED_OPERATION) and err. */
int faro_dyn_gather(const char *fn, MPI_Comm comm, int root, uint8_t **descs, uint32_t *bytes,
                    int *cls, char *err, size_t errlen);
/* The arguments every member of such a call checks: comm (an
 * intracommunicator), root, and the result's pointer (named newname). */
int faro_dyn_check_args(const char *fn, int root, MPI_Comm comm, MPI_Comm *newcomm,
                        const char *newname);

#endif
