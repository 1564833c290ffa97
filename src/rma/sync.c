/*
 * One-sided synchronization: MPI_Win_fence, the PSCW calls
 * (MPI_Win_post/start/complete/wait/test), passive target
 * (MPI_Win_lock/unlock, lock_all/unlock_all, flush, flush_all, flush_local,
 * flush_local_all) and MPI_Win_sync.
 *
 * Completion rests on the target's order (rma.h): an acknowledged flush or
 * unlock covers every operation the origin posted to that target before
 * it. A fence completes each origin's operations that way, then a barrier
 * tells everyone that every origin is done. A lock is granted by the target
 * (a message and its reply) unless MPI_MODE_NOCHECK says no one else
 * competes. PSCW: MPI_Win_post sends a notice to each origin of its group,
 * MPI_Win_start waits for them, MPI_Win_complete sends a COMPLETE request
 * behind the operations (acknowledged when there were operations, so that
 * their errors come back from it) and MPI_Win_wait counts them.
 */
#include <stdlib.h>
#include <string.h>

#include "rma/rma.h"

int faro_rma_check_access(const char *fn, MPI_Win win, int target);

#define CHECK_WIN(fn, w)                                                                     \
    do {                                                                                     \
        if (faro_win_check(w))                                                               \
            return faro_win_bad(fn, w);                                                      \
    } while (0)

int faro_rma_ctrl(MPI_Win win, int kind, int flags, int target, void *reply, size_t len,
                  struct faro_request **req)
{
    struct rma_hdr *h = calloc(1, sizeof *h);
    if (!h)
        return MPI_ERR_NO_MEM;
    h->kind = (uint8_t)kind;
    h->flags = (uint8_t)flags;
    h->elem = -1;
    h->id = win->o->next_id++;
    int rc = MPI_SUCCESS;
    if (req)
        rc = faro_rma_post(win, FARO_REQ_RECV, reply, len, target, rma_reply_tag(h->id), NULL,
                           NULL, req);
    if (!rc)
        rc = faro_rma_send_free(win, h, sizeof *h, target, RMA_TAG_REQ);
    else
        free(h);
    return rc;
}

/* The error an acknowledgement carried, raised under fn. */
static int ack_error(const char *fn, MPI_Win win, int target, const struct rma_ack *a)
{
    if (!a->err)
        return MPI_SUCCESS;
    return faro_win_err(win, a->err, "%s: an operation to rank %d fell outside the memory "
                        "%s at that rank", fn, target,
                        win->flavor == MPI_WIN_FLAVOR_DYNAMIC
                            ? "attached to the dynamic window (MPI_Win_attach)"
                            : "of the window");
}

static void wait_local(MPI_Win win, int target)
{
    const struct faro_rma_origin *o = win->o;
    if (target < 0)
        FARO_WAIT_UNTIL(o->pending == 0);
    else
        FARO_WAIT_UNTIL(o->pend[target] == 0);
}

/* Acknowledged flushes to the targets in [lo, hi) that had operations. */
int faro_rma_complete(const char *fn, MPI_Win win, int target, int ack)
{
    struct faro_rma_origin *o = win->o;
    int n = win->comm->size, lo = target < 0 ? 0 : target, hi = target < 0 ? n : target + 1;
    int rc = MPI_SUCCESS;
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* direct windows' stores before what follows */
    if (ack) {
        int k = 0;
        struct faro_request **reqs = calloc((size_t)(hi - lo), sizeof *reqs);
        struct rma_ack *acks = calloc((size_t)(hi - lo), sizeof *acks);
        if (!reqs || !acks) {
            free(reqs);
            free(acks);
            return faro_win_err(win, MPI_ERR_NO_MEM, "%s: out of memory", fn);
        }
        for (int t = lo; t < hi; t++) {
            if (!o->touched[t])
                continue;
            if (faro_rma_ctrl(win, RMA_FLUSH, 0, t, &acks[k], sizeof acks[k], &reqs[k]))
                faro_fatal(MPI_ERR_INTERN, "%s: cannot send a flush to rank %d", fn, t);
            acks[k].rank = t;
            o->touched[t] = 0;
            k++;
        }
        faro_wait_reqs(fn, (struct faro_request *const *)reqs, k, 0);
        for (int i = 0; i < k; i++) {
            faro_req_release(reqs[i]);
            int e = ack_error(fn, win, reqs[i] ? acks[i].rank : 0, &acks[i]);
            if (e && !rc)
                rc = e;
        }
        free(reqs);
        free(acks);
    }
    wait_local(win, target);
    return rc;
}

/* Each synchronization call takes its own assertions (MPI-3.1 11.5.5); a bit
 * outside them is MPI_ERR_ASSERT, before anything happens. */
static int check_assert(const char *fn, MPI_Win win, int assert, int takes, const char *names)
{
    if (assert & ~takes)
        return faro_win_err(win, MPI_ERR_ASSERT, "%s: assert %#x has bits this call does not "
                            "take (0 or an OR of %s)", fn, (unsigned)assert, names);
    return MPI_SUCCESS;
}

#define FENCE_ASSERTS (MPI_MODE_NOSTORE | MPI_MODE_NOPUT | MPI_MODE_NOPRECEDE | MPI_MODE_NOSUCCEED)
#define POST_ASSERTS (MPI_MODE_NOCHECK | MPI_MODE_NOSTORE | MPI_MODE_NOPUT)

/* ---- fence ---- */

#pragma weak MPI_Win_fence = PMPI_Win_fence
int PMPI_Win_fence(int assert, MPI_Win win)
{
    static const char fn[] = "MPI_Win_fence";
    FARO_LOCKED;
    CHECK_WIN(fn, win);
    struct faro_rma_origin *o = win->o;
    int arc = check_assert(fn, win, assert, FENCE_ASSERTS, "MPI_MODE_NOSTORE, MPI_MODE_NOPUT, "
                           "MPI_MODE_NOPRECEDE, MPI_MODE_NOSUCCEED");
    if (arc)
        return arc;
    if (o->nlocks || o->lock_all || o->naccess >= 0 || win->t->exposure >= 0)
        return faro_win_err(win, MPI_ERR_RMA_SYNC, "%s: another epoch is open on the window "
                            "(%s)", fn, o->nlocks || o->lock_all ? "a passive-target lock"
                                        : "a PSCW epoch");
    int rc = faro_rma_complete(fn, win, -1, 1);
    /* The barrier also keeps the next epoch's operations from reaching a
     * process still storing into its window before this fence. */
    if (PMPI_Barrier(win->comm) != MPI_SUCCESS && !rc)
        rc = faro_win_err(win, MPI_ERR_OTHER, "%s: the barrier failed", fn);
    o->fence = !(assert & MPI_MODE_NOSUCCEED);
    return rc;
}

/* ---- PSCW ---- */

/* The window ranks of group's members (NULL with an error raised). */
static int *group_ranks(const char *fn, MPI_Win win, MPI_Group g, int *n, int *rc)
{
    *rc = MPI_SUCCESS;
    if (faro_group_check(g)) {
        *rc = faro_win_err(win, MPI_ERR_GROUP, "%s: group is not a valid group", fn);
        return NULL;
    }
    int *r = malloc((size_t)(g->size ? g->size : 1) * sizeof *r);
    if (!r) {
        *rc = faro_win_err(win, MPI_ERR_NO_MEM, "%s: out of memory", fn);
        return NULL;
    }
    MPI_Comm c = win->comm;
    for (int i = 0; i < g->size; i++) {
        r[i] = -1;
        for (int k = 0; k < c->size; k++)
            if (faro_comm_world_rank(c, k) == g->world[i])
                r[i] = k;
        if (r[i] < 0) {
            free(r);
            *rc = faro_win_err(win, MPI_ERR_GROUP, "%s: member %d of the group is not a "
                               "process of the window", fn, i);
            return NULL;
        }
    }
    *n = g->size;
    return r;
}

#pragma weak MPI_Win_post = PMPI_Win_post
int PMPI_Win_post(MPI_Group group, int assert, MPI_Win win)
{
    static const char fn[] = "MPI_Win_post";
    FARO_LOCKED;
    CHECK_WIN(fn, win);
    int arc = check_assert(fn, win, assert, POST_ASSERTS, "MPI_MODE_NOCHECK, MPI_MODE_NOSTORE, "
                           "MPI_MODE_NOPUT");
    if (arc)
        return arc;
    if (win->t->exposure >= 0)
        return faro_win_err(win, MPI_ERR_RMA_SYNC, "%s: an exposure epoch is already open "
                            "(MPI_Win_wait or MPI_Win_test ends it)", fn);
    int n, rc;
    int *r = group_ranks(fn, win, group, &n, &rc);
    if (!r)
        return rc;
    win->t->exposure = n;
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* this process's stores before the notices */
    for (int i = 0; i < n; i++)
        if (faro_rma_send_free(win, NULL, 0, r[i], RMA_TAG_POST))
            faro_fatal(MPI_ERR_INTERN, "%s: cannot notify rank %d", fn, r[i]);
    free(r);
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_start = PMPI_Win_start
int PMPI_Win_start(MPI_Group group, int assert, MPI_Win win)
{
    static const char fn[] = "MPI_Win_start";
    FARO_LOCKED;
    CHECK_WIN(fn, win);
    int arc = check_assert(fn, win, assert, MPI_MODE_NOCHECK, "MPI_MODE_NOCHECK");
    if (arc)
        return arc;
    struct faro_rma_origin *o = win->o;
    if (o->naccess >= 0)
        return faro_win_err(win, MPI_ERR_RMA_SYNC, "%s: an access epoch is already open "
                            "(MPI_Win_complete ends it)", fn);
    int n, rc;
    int *r = group_ranks(fn, win, group, &n, &rc);
    if (!r)
        return rc;
    struct faro_request **reqs = calloc((size_t)(n ? n : 1), sizeof *reqs);
    if (!reqs) {
        free(r);
        return faro_win_err(win, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    for (int i = 0; i < n; i++)
        if (faro_rma_post(win, FARO_REQ_RECV, NULL, 0, r[i], RMA_TAG_POST, NULL, NULL, &reqs[i]))
            faro_fatal(MPI_ERR_INTERN, "%s: cannot wait for rank %d", fn, r[i]);
    faro_wait_reqs(fn, (struct faro_request *const *)reqs, n, 0);
    for (int i = 0; i < n; i++) {
        faro_req_release(reqs[i]);
        o->in_access[r[i]] = 1;
    }
    free(reqs);
    o->access = r;
    o->naccess = n;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_complete = PMPI_Win_complete
int PMPI_Win_complete(MPI_Win win)
{
    static const char fn[] = "MPI_Win_complete";
    FARO_LOCKED;
    CHECK_WIN(fn, win);
    struct faro_rma_origin *o = win->o;
    if (o->naccess < 0)
        return faro_win_err(win, MPI_ERR_RMA_SYNC, "%s: no access epoch is open (call "
                            "MPI_Win_start first)", fn);
    __atomic_thread_fence(__ATOMIC_SEQ_CST); /* direct stores before the COMPLETE notices */
    /* A target that had operations acknowledges the notice, so that an
     * error it found in them (a range error of a dynamic window) comes back
     * from this call; the others only count it. */
    int n = o->naccess, k = 0, rc = MPI_SUCCESS;
    struct faro_request **reqs = calloc((size_t)(n ? n : 1), sizeof *reqs);
    struct rma_ack *acks = calloc((size_t)(n ? n : 1), sizeof *acks);
    if (!reqs || !acks)
        faro_fatal(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    for (int i = 0; i < n; i++) {
        int t = o->access[i], want = o->touched[t];
        if (faro_rma_ctrl(win, RMA_COMPLETE, want ? RMA_F_ACK : 0, t, want ? &acks[k] : NULL,
                          sizeof *acks, want ? &reqs[k] : NULL))
            faro_fatal(MPI_ERR_INTERN, "%s: cannot notify rank %d", fn, t);
        if (want)
            acks[k++].rank = t;
        o->in_access[t] = 0;
        o->touched[t] = 0;
    }
    faro_wait_reqs(fn, (struct faro_request *const *)reqs, k, 0);
    for (int i = 0; i < k; i++) {
        faro_req_release(reqs[i]);
        int e = ack_error(fn, win, acks[i].rank, &acks[i]);
        if (e && !rc)
            rc = e;
    }
    free(reqs);
    free(acks);
    for (int i = 0; i < n; i++)
        wait_local(win, o->access[i]);
    free(o->access);
    o->access = NULL;
    o->naccess = -1;
    return rc;
}

static int end_exposure(MPI_Win win)
{
    struct faro_rma_target *t = win->t;
    if (t->completes < t->exposure)
        return 0;
    t->completes -= t->exposure;
    t->exposure = -1;
    return 1;
}

#pragma weak MPI_Win_wait = PMPI_Win_wait
int PMPI_Win_wait(MPI_Win win)
{
    static const char fn[] = "MPI_Win_wait";
    FARO_LOCKED;
    CHECK_WIN(fn, win);
    if (win->t->exposure < 0)
        return faro_win_err(win, MPI_ERR_RMA_SYNC, "%s: no exposure epoch is open (call "
                            "MPI_Win_post first)", fn);
    FARO_WAIT_UNTIL(end_exposure(win));
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_test = PMPI_Win_test
int PMPI_Win_test(MPI_Win win, int *flag)
{
    static const char fn[] = "MPI_Win_test";
    FARO_LOCKED;
    CHECK_WIN(fn, win);
    if (!flag)
        return faro_win_err(win, MPI_ERR_ARG, "%s: flag is NULL", fn);
    if (win->t->exposure < 0)
        return faro_win_err(win, MPI_ERR_RMA_SYNC, "%s: no exposure epoch is open (call "
                            "MPI_Win_post first)", fn);
    faro_progress();
    *flag = end_exposure(win);
    return MPI_SUCCESS;
}

/* ---- passive target ---- */

static int check_rank(const char *fn, MPI_Win win, int rank)
{
    int n = win->comm->size;
    if (rank < 0 || rank >= n)
        return faro_win_err(win, MPI_ERR_RANK, "%s: rank %d is invalid (window of %d "
                            "processes: 0..%d)", fn, rank, n, n - 1);
    return MPI_SUCCESS;
}

/* Ask the targets [lo, hi) for a lock of the given type and wait for every grant. */
static void acquire(const char *fn, MPI_Win win, int lo, int hi, int excl)
{
    if (win->direct) { /* lock words in the segment, in rank order */
        for (int t = lo; t < hi; t++)
            faro_rma_direct_lock(win, t, excl);
        return;
    }
    int n = hi - lo;
    struct faro_request **reqs = calloc((size_t)n, sizeof *reqs);
    if (!reqs)
        faro_fatal(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    for (int t = lo; t < hi; t++)
        if (faro_rma_ctrl(win, RMA_LOCK, excl ? RMA_F_EXCL : 0, t, NULL, 0, &reqs[t - lo]))
            faro_fatal(MPI_ERR_INTERN, "%s: cannot ask rank %d for a lock", fn, t);
    faro_wait_reqs(fn, (struct faro_request *const *)reqs, n, 0);
    for (int i = 0; i < n; i++)
        faro_req_release(reqs[i]);
    free(reqs);
}

/* Release the locks of [lo, hi) (acknowledged: every operation is complete). */
static int release(const char *fn, MPI_Win win, int lo, int hi, int excl)
{
    struct faro_rma_origin *o = win->o;
    if (win->direct) {
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        for (int t = lo; t < hi; t++)
            faro_rma_direct_unlock(win, t, excl);
        return MPI_SUCCESS;
    }
    int n = hi - lo, rc = MPI_SUCCESS;
    struct faro_request **reqs = calloc((size_t)n, sizeof *reqs);
    struct rma_ack *acks = calloc((size_t)n, sizeof *acks);
    if (!reqs || !acks)
        faro_fatal(MPI_ERR_NO_MEM, "%s: out of memory", fn);
    for (int t = lo; t < hi; t++) {
        if (faro_rma_ctrl(win, RMA_UNLOCK, 0, t, &acks[t - lo], sizeof *acks, &reqs[t - lo]))
            faro_fatal(MPI_ERR_INTERN, "%s: cannot release the lock at rank %d", fn, t);
        o->touched[t] = 0;
    }
    faro_wait_reqs(fn, (struct faro_request *const *)reqs, n, 0);
    for (int i = 0; i < n; i++) {
        faro_req_release(reqs[i]);
        int e = ack_error(fn, win, lo + i, &acks[i]);
        if (e && !rc)
            rc = e;
    }
    free(reqs);
    free(acks);
    for (int t = lo; t < hi; t++)
        wait_local(win, t);
    return rc;
}

#pragma weak MPI_Win_lock = PMPI_Win_lock
int PMPI_Win_lock(int type, int rank, int assert, MPI_Win win)
{
    static const char fn[] = "MPI_Win_lock";
    FARO_LOCKED;
    CHECK_WIN(fn, win);
    struct faro_rma_origin *o = win->o;
    int rc = check_rank(fn, win, rank);
    if (rc)
        return rc;
    if (type != MPI_LOCK_SHARED && type != MPI_LOCK_EXCLUSIVE)
        return faro_win_err(win, MPI_ERR_LOCKTYPE, "%s: lock type %d is invalid "
                            "(MPI_LOCK_SHARED or MPI_LOCK_EXCLUSIVE)", fn, type);
    if ((rc = check_assert(fn, win, assert, MPI_MODE_NOCHECK, "MPI_MODE_NOCHECK")))
        return rc;
    if (win->no_locks)
        return faro_win_err(win, MPI_ERR_RMA_SYNC, "%s: the window was created with the info "
                            "no_locks=true", fn);
    if (o->lock[rank] || o->lock_all)
        return faro_win_err(win, MPI_ERR_RMA_SYNC, "%s: rank %d is already locked by this "
                            "process (%s)", fn, rank, o->lock_all ? "MPI_Win_lock_all"
                                                                  : "MPI_Win_lock");
    if (o->naccess >= 0)
        return faro_win_err(win, MPI_ERR_RMA_SYNC, "%s: a PSCW access epoch is open", fn);
    if (!(assert & MPI_MODE_NOCHECK))
        acquire(fn, win, rank, rank + 1, type == MPI_LOCK_EXCLUSIVE);
    o->lock[rank] = (unsigned char)((type == MPI_LOCK_EXCLUSIVE ? 2 : 1) |
                                    (assert & MPI_MODE_NOCHECK ? RMA_LOCK_NOCHECK : 0));
    o->nlocks++;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_unlock = PMPI_Win_unlock
int PMPI_Win_unlock(int rank, MPI_Win win)
{
    static const char fn[] = "MPI_Win_unlock";
    FARO_LOCKED;
    CHECK_WIN(fn, win);
    struct faro_rma_origin *o = win->o;
    int rc = check_rank(fn, win, rank);
    if (rc)
        return rc;
    if (!o->lock[rank])
        return faro_win_err(win, MPI_ERR_RMA_SYNC, "%s: rank %d is not locked by this process "
                            "(MPI_Win_lock first%s)", fn, rank,
                            o->lock_all ? "; MPI_Win_lock_all ends with MPI_Win_unlock_all" : "");
    int nocheck = o->lock[rank] & RMA_LOCK_NOCHECK, excl = (o->lock[rank] & 3) == 2;
    o->lock[rank] = 0;
    o->nlocks--;
    return nocheck ? faro_rma_complete(fn, win, rank, 1)
                   : release(fn, win, rank, rank + 1, excl);
}

#pragma weak MPI_Win_lock_all = PMPI_Win_lock_all
int PMPI_Win_lock_all(int assert, MPI_Win win)
{
    static const char fn[] = "MPI_Win_lock_all";
    FARO_LOCKED;
    CHECK_WIN(fn, win);
    struct faro_rma_origin *o = win->o;
    int arc = check_assert(fn, win, assert, MPI_MODE_NOCHECK, "MPI_MODE_NOCHECK");
    if (arc)
        return arc;
    if (win->no_locks)
        return faro_win_err(win, MPI_ERR_RMA_SYNC, "%s: the window was created with the info "
                            "no_locks=true", fn);
    if (o->lock_all || o->nlocks)
        return faro_win_err(win, MPI_ERR_RMA_SYNC, "%s: this process already holds %s", fn,
                            o->lock_all ? "MPI_Win_lock_all" : "a lock (MPI_Win_lock)");
    if (o->naccess >= 0)
        return faro_win_err(win, MPI_ERR_RMA_SYNC, "%s: a PSCW access epoch is open", fn);
    if (!(assert & MPI_MODE_NOCHECK))
        acquire(fn, win, 0, win->comm->size, 0);
    o->lock_all = 1 | (assert & MPI_MODE_NOCHECK ? 2 : 0);
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_unlock_all = PMPI_Win_unlock_all
int PMPI_Win_unlock_all(MPI_Win win)
{
    static const char fn[] = "MPI_Win_unlock_all";
    FARO_LOCKED;
    CHECK_WIN(fn, win);
    struct faro_rma_origin *o = win->o;
    if (!o->lock_all)
        return faro_win_err(win, MPI_ERR_RMA_SYNC, "%s: MPI_Win_lock_all was not called", fn);
    int nocheck = o->lock_all & 2;
    o->lock_all = 0;
    return nocheck ? faro_rma_complete(fn, win, -1, 1)
                   : release(fn, win, 0, win->comm->size, 0);
}

static int check_passive(const char *fn, MPI_Win win, int rank)
{
    const struct faro_rma_origin *o = win->o;
    if (rank >= 0) {
        int rc = check_rank(fn, win, rank);
        if (rc)
            return rc;
    }
    if (o->lock_all || (rank >= 0 ? o->lock[rank] != 0 : o->nlocks > 0))
        return MPI_SUCCESS;
    return faro_win_err(win, MPI_ERR_RMA_SYNC, "%s: no passive-target epoch is open%s (call "
                        "MPI_Win_lock or MPI_Win_lock_all first)", fn,
                        rank >= 0 ? " to that rank" : "");
}

/* The four flushes: every operation to rank (-1: to all) completed here,
 * and with ack at the target too. */
static int flush(const char *fn, MPI_Win win, int rank, int ack)
{
    if (faro_win_check(win))
        return faro_win_bad(fn, win);
    int rc = check_passive(fn, win, rank);
    return rc ? rc : faro_rma_complete(fn, win, rank, ack);
}

#pragma weak MPI_Win_flush = PMPI_Win_flush
int PMPI_Win_flush(int rank, MPI_Win win)
{
    FARO_LOCKED;
    return flush("MPI_Win_flush", win, rank, 1);
}

#pragma weak MPI_Win_flush_all = PMPI_Win_flush_all
int PMPI_Win_flush_all(MPI_Win win)
{
    FARO_LOCKED;
    return flush("MPI_Win_flush_all", win, -1, 1);
}

#pragma weak MPI_Win_flush_local = PMPI_Win_flush_local
int PMPI_Win_flush_local(int rank, MPI_Win win)
{
    FARO_LOCKED;
    return flush("MPI_Win_flush_local", win, rank, 0);
}

#pragma weak MPI_Win_flush_local_all = PMPI_Win_flush_local_all
int PMPI_Win_flush_local_all(MPI_Win win)
{
    FARO_LOCKED;
    return flush("MPI_Win_flush_local_all", win, -1, 0);
}

/* The memory is unified: a full barrier orders this process's loads and
 * stores with the poller's; a poll applies what has arrived. */
#pragma weak MPI_Win_sync = PMPI_Win_sync
int PMPI_Win_sync(MPI_Win win)
{
    FARO_LOCKED;
    CHECK_WIN("MPI_Win_sync", win);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    faro_progress();
    return MPI_SUCCESS;
}
