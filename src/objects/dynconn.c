/*
 * Dynamic connections: MPI_Comm_accept, MPI_Comm_connect, MPI_Comm_join,
 * MPI_Comm_disconnect (MPI 3.1 section 10.4; faro-dynamic(7)).
 *
 * Accept and connect are one handshake seen from its two ends. Each group
 * (the comm of each call) does:
 *
 *  1. every member packs its descriptor (dynpeer.c: gpid, host, addresses
 *     and dynamic key); the root gathers them, in comm rank order;
 *  2. the roots make a link (port.h): the acceptor takes the oldest
 *     connection on its port, waiting for one (FARO_ACCEPT_TIMEOUT, 0: for
 *     ever); the connector connects and waits for the acceptor's first
 *     message (FARO_CONNECT_TIMEOUT; a closed port fails at once);
 *  3. the roots swap a hello (status, the acceptor's link number and
 *     agreement base, how many descriptors follow) and their group's
 *     descriptors over the link;
 *  4. each root broadcasts the outcome and the other group's descriptors to
 *     its group; every member makes those processes peers (peers.c);
 *  5. both groups agree on two context ids free at every member of both
 *     (context.c), each over its comm, the roots bridging over the link;
 *  6. each member builds the intercommunicator (remote ranks in the other
 *     comm's order) and the roots close the link.
 *
 * An error at a root (a bad port name, a refused connection, a timeout)
 * reaches its members through step 4, so every member returns it; a link
 * that breaks after that fails the agreement at every member (context.c's
 * D_FAILED). Nothing here waits without a bound except MPI_Comm_accept for
 * its connection, as the standard says it must (FARO_ACCEPT_TIMEOUT).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "objects/port.h"
#include "p2p/match.h"
#include "p2p/request.h"
#include "base/log.h"
#include "base/tunables.h"

#define DYN_MAGIC 0x46445931u /* "FDY1": also tells that both sides order bytes alike */

/* The first message each root sends over the link. */
struct hello {
    uint32_t magic;
    int32_t status;   /* MPI_SUCCESS, or the class of the error at that side */
    uint32_t link;    /* the acceptor's link number (its end's tag) */
    uint32_t base;    /* the acceptor's start for the context id agreement */
    uint32_t count;   /* descriptors that follow */
    uint32_t bytes;   /* their size */
};

/* What a root tells its group (step 4). */
struct outcome {
    int32_t status;   /* MPI_SUCCESS, or the error class the root raised */
    int32_t code;     /* the root's own code (its message lives there) */
    uint32_t base;
    uint32_t count, bytes;
};

static double deadline_in(long s)
{
    return s > 0 ? PMPI_Wtime() + (double)s : 0;
}

/* ---- the link's messages ---- */

/* Let requests that did not complete go: a receive is withdrawn, a send
 * (the transport may still hold it) is released when it completes. */
static void withdraw(MPI_Request *reqs, int n)
{
    for (int i = 0; i < n; i++) {
        struct faro_request *r = reqs[i];
        if (!r)
            continue;
        if (r->complete) {
            faro_req_release(r);
        } else if (r->kind == FARO_REQ_RECV) {
            faro_mq_unpost(faro_mq_get(r->comm->context_id), r);
            faro_req_release(r);
        } else {
            r->user_freed = 1;
        }
        reqs[i] = NULL;
    }
}

/* Wait for the requests on link l: 0, or an error class with err set when
 * the link broke or the deadline (0: none) passed first. */
static int link_wait(struct faro_link *l, MPI_Request *reqs, int n, double deadline,
                     const char *waiting_for, char *err, size_t errlen)
{
    for (;;) {
        int done = 1, failed = 0;
        for (int i = 0; i < n; i++) {
            done &= reqs[i]->complete;
            failed |= reqs[i]->complete && reqs[i]->status.MPI_ERROR;
        }
        if (done && !failed) {
            withdraw(reqs, n);
            return MPI_SUCCESS;
        }
        if (failed || l->lost) {
            snprintf(err, errlen, "the connection broke while waiting for %s: %s", waiting_for,
                     l->lost ? l->why : "a message failed");
            withdraw(reqs, n);
            return MPI_ERR_PORT;
        }
        if (deadline && PMPI_Wtime() > deadline) {
            snprintf(err, errlen, "no answer (%s) within %.0f s", waiting_for,
                     (double)faro_tun_int(FARO_TUN_CONNECT_TIMEOUT));
            withdraw(reqs, n);
            return MPI_ERR_PORT;
        }
        faro_progress_idle(faro_progress());
    }
}

static int link_post(const char *fn, struct faro_link *l, int send, void *buf, size_t len,
                     MPI_Request *r)
{
    int tag = faro_link_tag(send ? l->theirs : l->mine);
    return send ? faro_coll_isend(fn, buf, (int)len, MPI_BYTE, 0, tag, &l->comm, r)
                : faro_coll_irecv(fn, buf, (int)len, MPI_BYTE, 0, tag, &l->comm, r);
}

/* ---- the two ends ---- */

struct end {
    const char *fn;
    MPI_Comm comm;
    int root, is_root, accepting;
    uint8_t *mine;              /* root: the group's descriptors */
    uint32_t nmine, bmine;
    struct faro_link *link;     /* root */
    struct hello theirs;        /* root: the other root's hello */
    uint8_t *other;             /* the other group's descriptors */
    uint32_t base;
    int cls;                    /* root: the class of a failure of the gather */
    char err[600];
};

int faro_dyn_gather(const char *fn, MPI_Comm comm, int root, uint8_t **descs, uint32_t *bytes,
                    int *cls, char *err, size_t errlen)
{
    uint8_t self[FARO_DYN_DESC_MAX];
    char why[512] = "";
    int len = faro_dyn_self_desc(self, sizeof self, why, sizeof why);
    if (len < 0)
        len = 0;
    int n = comm->size, is_root = comm->rank == root, *lens = NULL, *displs = NULL;
    if (is_root && (!(lens = malloc((size_t)n * sizeof *lens)) ||
                    !(displs = malloc((size_t)n * sizeof *displs))))
        faro_fatal(MPI_ERR_NO_MEM, "%s: out of memory for %d members", fn, n);
    int rc = PMPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, root, comm);
    long total = 0;
    for (int i = 0; !rc && lens && i < n; i++) {
        displs[i] = (int)total;
        total += lens[i];
        if (lens[i] == 0 && !*cls) {
            snprintf(err, errlen, "rank %d of the communicator cannot take part: %s", i,
                     i == comm->rank ? why : "it has no transport with ports");
            *cls = MPI_ERR_UNSUPPORTED_OPERATION;
        }
    }
    if (is_root && total > INT32_MAX)
        faro_fatal(MPI_ERR_NO_MEM, "%s: %ld bytes of descriptors do not fit in one message",
                   fn, total);
    if (is_root && !(*descs = malloc((size_t)total + 1)))
        faro_fatal(MPI_ERR_NO_MEM, "%s: out of memory for %ld bytes of descriptors", fn,
                   total);
    if (!rc)
        rc = PMPI_Gatherv(self, len, MPI_BYTE, is_root ? *descs : NULL, lens, displs, MPI_BYTE,
                          root, comm);
    free(lens);
    free(displs);
    *bytes = (uint32_t)total;
    return rc;
}

/* Step 1: the root gathers the members' descriptors. A member without a
 * transport with ports sends none, and the root reports it. (Running out of
 * memory for a few ints per member here ends the job: the members are in
 * the gather already.) */
static int gather(struct end *e)
{
    e->nmine = (uint32_t)e->comm->size;
    return faro_dyn_gather(e->fn, e->comm, e->root, &e->mine, &e->bmine, &e->cls, e->err,
                           sizeof e->err);
}

/* Post this root's hello and descriptors to the other root and a receive of
 * len bytes into `into` (NULL: their descriptors, into e->other); wait for
 * all of them. */
static int swap(struct end *e, const struct hello *h, void *into, uint32_t len, double deadline,
                const char *waiting_for)
{
    MPI_Request r[3] = {NULL, NULL, NULL};
    if (len && !into && !(into = e->other = malloc(len)))
        return snprintf(e->err, sizeof e->err, "out of memory"), MPI_ERR_NO_MEM;
    int n = 0, rc = link_post(e->fn, e->link, 1, (void *)h, sizeof *h, &r[n++]);
    if (!rc && e->bmine)
        rc = link_post(e->fn, e->link, 1, e->mine, e->bmine, &r[n++]);
    if (!rc && len)
        rc = link_post(e->fn, e->link, 0, into, len, &r[n++]);
    if (rc) {
        withdraw(r, n);
        snprintf(e->err, sizeof e->err, "a message to the other side failed");
        return MPI_ERR_PORT;
    }
    return link_wait(e->link, r, n, deadline, waiting_for, e->err, sizeof e->err);
}

/* Steps 2-3 at the root: make the link and swap hellos and descriptors (all
 * messages of a step are posted before any is waited for: with rendezvous
 * sends, each side's sends complete only at the other's receives). Returns
 * 0 or an error class, with e->err. */
static int meet(struct end *e, const char *port_name, double deadline)
{
    struct hello h = {.magic = DYN_MAGIC, .count = e->nmine, .bytes = e->bmine};
    int cls;
    if (e->accepting) {
        struct faro_port *p = faro_port_find(port_name);
        if (!p) {
            snprintf(e->err, sizeof e->err, "this process has no open port '%.80s' "
                     "(MPI_Open_port at the root gives one; it may have been closed)",
                     port_name);
            return MPI_ERR_PORT;
        }
        for (;;) {
            while (!(e->link = faro_port_take(p))) {
                if (deadline && PMPI_Wtime() > deadline) {
                    snprintf(e->err, sizeof e->err, "nobody connected within "
                             "FARO_ACCEPT_TIMEOUT=%lld s", faro_tun_int(FARO_TUN_ACCEPT_TIMEOUT));
                    return MPI_ERR_PORT;
                }
                faro_progress_idle(faro_progress());
            }
            h.link = e->link->mine;
            h.base = e->base = faro_ctx_base(e->link->mine, (int)e->link->theirs);
            /* the connector is there and waits: it answers within its own bound */
            cls = swap(e, &h, &e->theirs, sizeof e->theirs,
                       deadline_in(faro_tun_int(FARO_TUN_CONNECT_TIMEOUT)),
                       "the connecting side's answer");
            if (!cls)
                break;
            if (!e->link->lost) /* it is there, but failed: so does this accept */
                return cls;
            /* It went away before answering (it gave up waiting, or ended):
             * that was no connection; wait for the next. */
            faro_info(1, "%s: a connection on the port went away before its handshake (%s); "
                      "waiting for another", e->fn, e->link->why);
            faro_link_close(e->link);
            e->link = NULL;
            e->err[0] = 0;
        }
        deadline = deadline_in(faro_tun_int(FARO_TUN_CONNECT_TIMEOUT));
    } else {
        char err[400];
        if (!(e->link = faro_link_connect(port_name, err, sizeof err))) {
            snprintf(e->err, sizeof e->err, "%s", err);
            return MPI_ERR_PORT;
        }
        MPI_Request r = NULL;
        cls = link_post(e->fn, e->link, 0, &e->theirs, sizeof e->theirs, &r);
        if (cls || (cls = link_wait(e->link, &r, 1, deadline, "an MPI_Comm_accept on the port",
                                    err, sizeof err))) {
            if (e->link->lost)
                snprintf(e->err, sizeof e->err, "the port refused the connection or is gone "
                         "(closed, or its process ended; port names are good only while "
                         "open): %s", e->link->why);
            else
                snprintf(e->err, sizeof e->err, "%s", err);
            return MPI_ERR_PORT;
        }
        e->link->theirs = e->theirs.link;
        e->base = e->theirs.base;
    }
    if (e->theirs.magic != DYN_MAGIC) {
        snprintf(e->err, sizeof e->err, "the other side is not a compatible Faro (another "
                 "version, or another byte order)");
        return MPI_ERR_PORT;
    }
    uint32_t their = e->theirs.status ? 0 : e->theirs.bytes;
    if (e->accepting) { /* their descriptors follow their hello */
        MPI_Request r = NULL;
        if (their && !(e->other = malloc(their)))
            return snprintf(e->err, sizeof e->err, "out of memory"), MPI_ERR_NO_MEM;
        if (their && ((cls = link_post(e->fn, e->link, 0, e->other, their, &r)) ||
                      (cls = link_wait(e->link, &r, 1, deadline, "the other side's "
                                       "descriptors", e->err, sizeof e->err))))
            return MPI_ERR_PORT;
    } else if ((cls = swap(e, &h, NULL, their, deadline, "the other side's descriptors"))) {
        return cls;
    }
    if (e->theirs.status) {
        snprintf(e->err, sizeof e->err, "the other side failed (error class %d; its message "
                 "says why)", e->theirs.status);
        return e->theirs.status;
    }
    if (!e->other && !(e->other = malloc(1)))
        return snprintf(e->err, sizeof e->err, "out of memory"), MPI_ERR_NO_MEM;
    return MPI_SUCCESS;
}

/* Steps 4-6 at every member: learn the outcome and the other group, agree
 * on the ids, build the intercommunicator. */
static int finish(struct end *e, int status, MPI_Comm *newcomm)
{
    struct outcome o = {.status = status, .base = e->base, .count = e->theirs.count,
                        .bytes = e->theirs.bytes};
    if (status)
        o.code = faro_err(e->comm, status, "%s: %s", e->fn, e->err);
    int rc = PMPI_Bcast(&o, sizeof o, MPI_BYTE, e->root, e->comm);
    if (rc)
        return rc;
    if (o.status)
        return e->is_root ? o.code : faro_leader_failed(e->fn, e->comm, o.code, e->root);
    if (!e->is_root && !(e->other = malloc((size_t)o.bytes + 1)))
        faro_fatal(MPI_ERR_NO_MEM, "%s: out of memory for %u bytes of descriptors", e->fn,
                   o.bytes);
    if ((rc = PMPI_Bcast(e->other, (int)o.bytes, MPI_BYTE, e->root, e->comm)))
        return rc;

    /* the other group's processes become peers, in their comm's order */
    int ln = e->comm->size, rn = (int)o.count, bad = 0, mixed = 0;
    int *lw = malloc(((size_t)ln + 1) * sizeof *lw), *rw = malloc(((size_t)rn + 1) * sizeof *rw);
    char err[400] = "out of memory";
    size_t at = 0, used;
    for (int i = 0; lw && i < ln; i++)
        lw[i] = e->comm->world ? e->comm->world[i] : i;
    bad = !lw || !rw;
    for (int i = 0; !bad && i < rn; i++) {
        rw[i] = faro_dyn_add(e->other + at, o.bytes - at, &used, err, sizeof err);
        bad = rw[i] < 0;
        at += used;
        for (int k = 0; k < ln && !bad && !mixed; k++)
            if (lw[k] == rw[i]) {
                snprintf(err, sizeof err, "process %d of the other group is rank %d of this "
                         "one (a group cannot connect to a port of its own)", i, k);
                mixed = 1;
            }
    }
    /* Both groups see both lists, so all agree to stop when they share a
     * process. A failure of this member alone (memory, a full peer table):
     * it still votes in the agreement, so the others do not wait for it. */
    if (mixed) {
        free(lw);
        free(rw);
        return faro_err(e->comm, MPI_ERR_OTHER, "%s: %s", e->fn, err);
    }
    int n = e->comm->size;
    struct faro_ctx_spec s = {.fn = e->fn, .tree = e->comm, .root = e->root, .n = n,
                              .me = (e->comm->rank - e->root + n) % n,
                              .tag = faro_ctx_tag(e->comm), .take = !bad, .want = 2,
                              .base = o.base};
    if (e->is_root) {
        s.bridge = &e->link->comm;
        s.bridge_tag = faro_link_tag(e->link->mine);
        s.bridge_peer_tag = faro_link_tag(e->link->theirs);
    }
    uint32_t ids[2];
    rc = faro_ctx_agree_spec(&s, ids);
    if (rc || bad) {
        free(lw);
        free(rw);
        return rc ? rc : faro_err(e->comm, MPI_ERR_OTHER, "%s: %s", e->fn, err);
    }
    return faro_inter_new(e->fn, e->comm, ids, ln, lw, e->comm->rank, rn, rw, newcomm);
}

/* The arguments every member checks (port_name and info matter at the root
 * only: it checks them after the gather, and its verdict reaches all). */
int faro_dyn_check_args(const char *fn, int root, MPI_Comm comm, MPI_Comm *newcomm,
                        const char *newname)
{
    if (faro_comm_check(comm))
        return faro_comm_bad(fn, comm);
    int rc = faro_comm_intra_only(fn, comm, MPI_ERR_COMM);
    if (rc)
        return rc;
    if (!newcomm)
        return faro_err(comm, MPI_ERR_ARG, "%s: %s pointer is NULL", fn, newname);
    if (root < 0 || root >= comm->size)
        return faro_err(comm, MPI_ERR_ROOT, "%s: root %d is invalid (comm size %d: 0..%d)", fn,
                        root, comm->size, comm->size - 1);
    return MPI_SUCCESS;
}

/* Accept (accepting) or connect on comm; at the root, port_name and info
 * are checked, and deadline bounds the wait for the other side (0: none). */
static int handshake(const char *fn, int accepting, const char *port_name, MPI_Info info,
                     int root, MPI_Comm comm, MPI_Comm *newcomm, double deadline)
{
    FARO_LOCKED;
    int rc = faro_dyn_check_args(fn, root, comm, newcomm, "newcomm");
    if (rc)
        return rc;
    struct end e = {.fn = fn, .comm = comm, .root = root, .is_root = comm->rank == root,
                    .accepting = accepting};
    int status = MPI_SUCCESS, nkeys;
    rc = gather(&e);
    if (!rc && e.is_root) {
        if (e.err[0])
            status = e.cls;
        else if (!port_name)
            snprintf(e.err, sizeof e.err, "port_name is NULL at the root"), status = MPI_ERR_ARG;
        else if (info != MPI_INFO_NULL && PMPI_Info_get_nkeys(info, &nkeys) != MPI_SUCCESS)
            snprintf(e.err, sizeof e.err, "info is not a valid info object"),
                status = MPI_ERR_INFO;
        else if (faro_port_name_check(port_name, e.err, sizeof e.err))
            status = MPI_ERR_PORT;
        else
            status = meet(&e, port_name, deadline);
    }
    if (!rc)
        rc = finish(&e, status, newcomm);
    if (e.link)
        faro_link_close(e.link);
    free(e.mine);
    free(e.other);
    return rc;
}

int faro_dyn_handshake(const char *fn, int accepting, const char *port_name, int root,
                       MPI_Comm comm, MPI_Comm *newcomm)
{
    long s = faro_tun_int(accepting ? FARO_TUN_ACCEPT_TIMEOUT : FARO_TUN_CONNECT_TIMEOUT);
    return handshake(fn, accepting, port_name, MPI_INFO_NULL, root, comm, newcomm,
                     deadline_in(s));
}

#pragma weak MPI_Comm_accept = PMPI_Comm_accept
int PMPI_Comm_accept(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                     MPI_Comm *newcomm)
{
    return handshake("MPI_Comm_accept", 1, port_name, info, root, comm, newcomm,
                     deadline_in(faro_tun_int(FARO_TUN_ACCEPT_TIMEOUT)));
}

#pragma weak MPI_Comm_connect = PMPI_Comm_connect
int PMPI_Comm_connect(const char *port_name, MPI_Info info, int root, MPI_Comm comm,
                      MPI_Comm *newcomm)
{
    return handshake("MPI_Comm_connect", 0, port_name, info, root, comm, newcomm,
                     deadline_in(faro_tun_int(FARO_TUN_CONNECT_TIMEOUT)));
}

/* ---- disconnect ---- */

#pragma weak MPI_Comm_disconnect = PMPI_Comm_disconnect
int PMPI_Comm_disconnect(MPI_Comm *comm)
{
    FARO_LOCKED;
    static const char fn[] = "MPI_Comm_disconnect";
    if (!comm)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: comm pointer is NULL", fn);
    MPI_Comm c = *comm;
    int broken = faro_comm_broken(c);
    if (faro_comm_check(c) && !broken)
        return faro_comm_bad(fn, c);
    if (c->predefined)
        return faro_err(c, MPI_ERR_COMM, "%s: %s is predefined and cannot be disconnected", fn,
                        c->name);
    /* what is pending on it completes first; then the other side has done
     * the same when the barrier returns (a broken one has no other side) */
    int rc = MPI_SUCCESS;
    if (!broken) {
        while (faro_req_pending_on(c))
            faro_progress_idle(faro_progress());
        rc = PMPI_Barrier(c);
    }
    int frc = PMPI_Comm_free(comm);
    return rc ? rc : frc;
}

/* ---- join ---- */

#define JOIN_HDR 35 /* "faro-join:1:<gpid, 16 hex>:<length, 5 digits>:" */

/* Write all of buf to fd, or read exactly len bytes from it, before deadline.
 * MPI's progress goes on while the socket is not ready: the other end may be
 * waiting on this process in point-to-point (an Ssend to a receive posted
 * here) before it joins. */
static int sock_io(int fd, int writing, char *buf, size_t len, double deadline)
{
    size_t done = 0;
    while (done < len) {
        struct pollfd p = {.fd = fd, .events = writing ? POLLOUT : POLLIN};
        if (PMPI_Wtime() > deadline)
            return errno = ETIMEDOUT, -1;
        int n = poll(&p, 1, 0);
        if (n < 0 && errno != EINTR)
            return -1;
        if (n <= 0) {
            faro_progress_idle(faro_progress());
            continue;
        }
        ssize_t k = writing ? write(fd, buf + done, len - done) : read(fd, buf + done, len - done);
        if (k == 0)
            return errno = ECONNRESET, -1;
        if (k < 0 && errno != EINTR && errno != EAGAIN)
            return -1;
        if (k > 0)
            done += (size_t)k;
    }
    return 0;
}

#pragma weak MPI_Comm_join = PMPI_Comm_join
int PMPI_Comm_join(int fd, MPI_Comm *intercomm)
{
    static const char fn[] = "MPI_Comm_join";
    if (!intercomm)
        return faro_err(MPI_COMM_SELF, MPI_ERR_ARG, "%s: intercomm pointer is NULL", fn);
    if (fd < 0 || fcntl(fd, F_GETFD) < 0)
        return faro_err(MPI_COMM_SELF, MPI_ERR_ARG, "%s: fd %d is not an open file descriptor",
                        fn, fd);
    /* Each side opens a port and sends its name over the socket; the one
     * with the lower gpid accepts on its own port, the other connects to it. */
    char mine[MPI_MAX_PORT_NAME], theirs[MPI_MAX_PORT_NAME], msg[JOIN_HDR + MPI_MAX_PORT_NAME];
    int rc = PMPI_Open_port(MPI_INFO_NULL, mine);
    if (rc)
        return rc;
    unsigned long long me = faro_job_gpid(faro.rank), other = 0;
    int len = snprintf(msg, sizeof msg, "faro-join:1:%016llx:%05zu:%s", me, strlen(mine), mine);
    if (len - (int)strlen(mine) != JOIN_HDR)
        faro_fatal(MPI_ERR_INTERN, "%s: the join header is not %d bytes", fn, JOIN_HDR);
    double deadline = deadline_in(faro_tun_int(FARO_TUN_CONNECT_TIMEOUT));
    char hdr[JOIN_HDR + 1] = "";
    unsigned namelen = 0;
    const char *what = NULL;
    if (sock_io(fd, 1, msg, (size_t)len, deadline))
        what = "writing to the socket";
    else if (sock_io(fd, 0, hdr, JOIN_HDR, deadline))
        what = "reading from the socket";
    else if (sscanf(hdr, "faro-join:1:%16llx:%5u:", &other, &namelen) != 2 ||
             namelen >= MPI_MAX_PORT_NAME)
        what = "the other end did not answer as a Faro process calling MPI_Comm_join";
    else if (sock_io(fd, 0, theirs, namelen, deadline))
        what = "reading from the socket";
    else if (other == me)
        what = "both ends of the socket are this process";
    if (what) {
        int sys = errno, io = !strncmp(what, "reading", 7) || !strncmp(what, "writing", 7);
        PMPI_Close_port(mine);
        return faro_err(MPI_COMM_SELF, MPI_ERR_OTHER, "%s: %s%s%s", fn, what, io ? ": " : "",
                        io ? strerror(sys) : "");
    }
    theirs[namelen] = 0;
    if (me < other)
        rc = handshake(fn, 1, mine, MPI_INFO_NULL, 0, MPI_COMM_SELF, intercomm, deadline);
    else
        rc = handshake(fn, 0, theirs, MPI_INFO_NULL, 0, MPI_COMM_SELF, intercomm, deadline);
    PMPI_Close_port(mine);
    return rc;
}
