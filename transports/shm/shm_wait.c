/*
 * The wait fd: a doorbell per receiver, so that a process whose peers are
 * all on its node can sleep in poll() instead of polling its rings.
 *
 * The doorbell is a Unix datagram socket bound to a name beside the receive
 * segment, "/dev/shm/<jobid>-shm-<rank>.bell", made by its owner in init;
 * each sender connects a socket of its own to it when it maps the segment,
 * and the owner connects one too, to ring itself. Its name lives exactly as
 * long as the segment's: the last sender to attach, or wireup_done, removes
 * both (connected sockets keep working), and a job that crashes before that
 * leaves a file under the job's prefix, which mpiexec removes with the rest
 * (mpx_clean_shm). The bound socket is the wait fd: readable while a
 * datagram is queued on it. (A socket, not a FIFO: a sender that rings a
 * receiver that has just closed gets ECONNREFUSED, not SIGPIPE.) A job id
 * too long for a socket name (sun_path) leaves shm without a wait fd.
 *
 * A sender must not pay a system call per message, so it rings only when the
 * receiver said it may sleep: the flag `sleeping` in the receiver's segment
 * header, on a line of its own (read by every sender after every message,
 * written by the receiver only before a sleep, so it stays in the senders'
 * caches while the receiver is busy).
 *
 *   receiver (wait_fd)                 sender (after each publish)
 *   drain the socket                   store the slot's sequence word
 *   store sleeping = 1                 seq_cst fence            (F_s)
 *   seq_cst fence              (F_r)   load sleeping
 *   look at every inbound ring         if it was 1: exchange it for 0, and
 *   if anything is there: ring itself,   when that returned 1, send one byte
 *     so the fd polls readable
 *
 * Why a message is never missed (Dekker): the two fences are in one total
 * order. If F_s comes first, the receiver's look after F_r sees the
 * sequence word stored before F_s (C11 7.17.4), finds the message and makes
 * the fd readable itself. If F_r comes first, the sender's load after F_s
 * sees the receiver's 1 or a later value; a later value is a 0 stored by
 * another sender's exchange that read the 1, and that sender sends the byte.
 * Either way a byte is sent after the drain, so poll() returns. Exchanging
 * the flag for 0 makes one sender ring per sleep, not every sender for every
 * message; a sender that finds the socket's queue full (EAGAIN) loses nothing,
 * the fd is readable already.
 *
 * Work that no peer rings for keeps the fd readable at once: sends queued for
 * a full ring (they move when the peer frees slots, which it does not
 * announce). A peer that dies never rings; the owner's sleeps are bounded
 * (the MPI core sleeps at most a millisecond at a time), and the liveness
 * check of progress finds it.
 */
#include "shm.h"
#include "base/log.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

_Static_assert(sizeof(struct shm_seg_hdr) <= 256, "the segment header fits before the rings");

/* The doorbell's name for rank; -1 when it does not fit a socket address. */
int faro_shm_bell_addr(const faro_tp_t *tp, int rank, struct sockaddr_un *a)
{
    char name[256];
    *a = (struct sockaddr_un){.sun_family = AF_UNIX};
    if (faro_shm_seg_name(tp, rank, name, sizeof name) != 0)
        return -1;
    int n = snprintf(a->sun_path, sizeof a->sun_path, "%s%s.bell", SHM_DIR, name);
    return n > 0 && (size_t)n < sizeof a->sun_path ? 0 : -1;
}

/* A datagram socket connected to rank's doorbell, or -1 with errno. */
static int shm_bell_connect(const struct sockaddr_un *a)
{
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd >= 0 && connect(fd, (const struct sockaddr *)a, sizeof *a) != 0) {
        int err = errno;
        close(fd);
        errno = err;
        fd = -1;
    }
    return fd;
}

int faro_shm_bell_create(faro_tp_t *tp, char *why, size_t whylen)
{
    struct sockaddr_un a;
    if (faro_shm_bell_addr(tp, tp->env->rank, &a) != 0) {
        faro_info(1, "shm: job id '%s' is too long for a doorbell's socket name: no wait fd, "
                  "a rank waiting on shm peers polls", tp->env->jobid);
        return 0;
    }
    tp->bell = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (tp->bell < 0) {
        snprintf(why, whylen, "cannot make a socket for the doorbell: %s", strerror(errno));
        return FARO_TP_UNAVAILABLE;
    }
    if (bind(tp->bell, (const struct sockaddr *)&a, sizeof a) != 0) {
        if (errno == EADDRINUSE)
            snprintf(why, whylen,
                     "%s already exists, left by an earlier job with the same id; remove it "
                     "(rm %s/%s-*)", a.sun_path, SHM_DIR, tp->env->jobid);
        else
            snprintf(why, whylen, "cannot create the doorbell %s: %s", a.sun_path,
                     strerror(errno));
        return FARO_TP_UNAVAILABLE;
    }
    tp->bell_linked = 1;
    if ((tp->bell_self = shm_bell_connect(&a)) < 0) {
        snprintf(why, whylen, "cannot connect to the doorbell %s: %s", a.sun_path,
                 strerror(errno));
        return FARO_TP_UNAVAILABLE;
    }
    return 0;
}

/* The sender's side, once p's segment is mapped. */
int faro_shm_bell_open(faro_tp_t *tp, struct faro_tp_ep *p)
{
    struct sockaddr_un a;
    p->sleeping = &((struct shm_seg_hdr *)p->map)->sleeping;
    if (faro_shm_bell_addr(tp, p->rank, &a) != 0)
        return 0; /* p has none either (the same job id): it never asks to be woken */
    p->bell = shm_bell_connect(&a);
    if (p->bell < 0) {
        faro_error("shm: cannot connect to the doorbell %s of rank %d: %s%s", a.sun_path,
                   p->rank, strerror(errno),
                   errno == ENOENT || errno == ECONNREFUSED
                       ? " (the rank exited, or connect came after wireup_done)" : "");
        return -1;
    }
    return 0;
}

void faro_shm_bell_close(struct faro_tp_ep *p)
{
    if (p->bell >= 0)
        close(p->bell);
    p->bell = -1;
    p->sleeping = NULL;
}

void faro_shm_bell_unlink(faro_tp_t *tp)
{
    struct sockaddr_un a;
    if (tp->bell_linked && faro_shm_bell_addr(tp, tp->env->rank, &a) == 0 &&
        unlink(a.sun_path) != 0 && errno != ENOENT)
        faro_warn("shm: cannot remove %s: %s", a.sun_path, strerror(errno));
    tp->bell_linked = 0;
}

/* One byte; a full queue (EAGAIN) or a receiver gone (ECONNREFUSED) is no error. */
static void shm_bell_send(int fd)
{
    (void)send(fd, "", 1, MSG_DONTWAIT | MSG_NOSIGNAL);
}

/* Out of line: reached only when the receiver said it may sleep. */
void faro_shm_ring_bell(struct faro_tp_ep *p)
{
    if (atomic_exchange_explicit(p->sleeping, 0, memory_order_relaxed) && p->bell >= 0)
        shm_bell_send(p->bell);
}

/* Anything in an inbound ring that progress has not delivered yet. */
static int shm_rx_waiting(const struct shm_rx *rx)
{
    if (rx->head != rx->tail_seen)
        return 1;
    char *slot = rx->slots + (size_t)rx->pos * rx->slot_size;
    return atomic_load_explicit(shm_slot_seq(slot), memory_order_relaxed) == rx->head + 1;
}

int faro_shm_wait_fd(faro_tp_t *tp, int *fd)
{
    if (tp->bell < 0)
        return FARO_TP_UNSUPPORTED; /* a job id too long for the doorbell's name */
    *fd = tp->bell;
    if (!tp->seg)
        return FARO_TP_OK; /* no other rank here: an unbound socket, never readable */
    struct shm_seg_hdr *h = tp->seg;
    char buf[16];
    while (recv(tp->bell, buf, sizeof buf, MSG_DONTWAIT) >= 0)
        ;
    atomic_store_explicit(&h->sleeping, 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_seq_cst);
    int work = tp->nqueued != 0;
    for (int i = 0; i < tp->nrings && !work; i++)
        work = shm_rx_waiting(&tp->in[i].rx);
    if (work) {
        atomic_store_explicit(&h->sleeping, 0, memory_order_relaxed);
        shm_bell_send(tp->bell_self);
    }
    return FARO_TP_OK;
}
