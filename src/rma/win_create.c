/*
 * Window creation and destruction: MPI_Win_create, MPI_Win_allocate,
 * MPI_Win_allocate_shared (+ MPI_Win_shared_query), MPI_Win_create_dynamic
 * (+ MPI_Win_attach/detach) and MPI_Win_free.
 *
 * Creation is collective over the communicator: the members agree on a
 * context id for the window's private communicator, then exchange what
 * origins need to know of each target (base, size, displacement unit) in
 * one allgather over it. From then on the window is on the list the
 * poller (am.c) serves.
 *
 * A shared window's memory is one POSIX shared-memory segment per window,
 * made by the window's rank 0 and mapped by every member. The parts of
 * MPI_Win_allocate_shared are contiguous, as MPI-3.1 11.2.3 says (part r+1
 * starts right after part r's last byte, the first on a cache line), unless
 * alloc_shared_noncontig asks for page-aligned parts; MPI_Win_allocate's,
 * which no member sees but its own, start on cache lines. Its name starts
 * with "/<jobid>-" so the launcher removes it if the job dies before the
 * segment is unlinked, which happens as soon as every member has mapped it.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "objects/arena.h"
#include "rma/rma.h"

struct faro_win *faro_rma_windows;
static int poller = -1;

/* Window objects come from a FIFO pool over their arena (objects/arena.h,
 * linked through ranks while free), so that a made-up handle is refused
 * before it is read. */
static struct faro_pool win_pool = FARO_POOL_INIT("window", FARO_ARENA_SMALL, struct faro_win,
                                                  ranks, 8);

__attribute__((constructor)) static void win_arena_init(void)
{
    faro_pool_start(&win_pool, NULL, 0, 0);
}

int faro_win_check(MPI_Win w)
{
    return w && faro_pool_has(&win_pool, w) && w->magic == FARO_WIN_MAGIC ? 0 : -1;
}

int faro_win_bad(const char *fn, MPI_Win w)
{
    return faro_err(MPI_COMM_NULL, MPI_ERR_WIN, "%s: %s", fn,
                    w == MPI_WIN_NULL ? "window is MPI_WIN_NULL"
                                      : "argument is not a valid window (uninitialised, "
                                        "freed, or never created?)");
}

static int info_true(MPI_Info info, const char *key)
{
    const char *v = info != MPI_INFO_NULL ? faro_info_value(info, key) : NULL;
    return v && strcmp(v, "true") == 0;
}

/* Arguments common to every flavour; baseptr is checked when the call has one
 * (the allocating ones: allocating = 1). */
static int check_args(const char *fn, MPI_Comm comm, MPI_Aint size, int disp_unit,
                      MPI_Info info, void *out, int allocating, const void *baseptr)
{
    if (faro_comm_check(comm))
        return faro_comm_bad(fn, comm);
    if (comm->inter)
        return faro_err(comm, MPI_ERR_COMM, "%s: the communicator is an intercommunicator "
                        "(windows are created on intracommunicators)", fn);
    if (size < 0)
        return faro_err(comm, MPI_ERR_SIZE, "%s: size %ld is negative", fn, (long)size);
    if (disp_unit <= 0)
        return faro_err(comm, MPI_ERR_DISP, "%s: disp_unit %d must be positive", fn,
                        disp_unit);
    if (info != MPI_INFO_NULL && faro_info_check(info))
        return faro_err(comm, MPI_ERR_INFO, "%s: info is not a valid info object", fn);
    if (!out)
        return faro_err(comm, MPI_ERR_ARG, "%s: win pointer is NULL", fn);
    if (allocating && !baseptr)
        return faro_err(comm, MPI_ERR_ARG, "%s: baseptr is NULL", fn);
    return MPI_SUCCESS;
}

/* The window object over comm's group, its private communicator agreed
 * (collective), not yet on the poller's list. */
static int win_new(const char *fn, MPI_Comm comm, MPI_Info info, int flavor, MPI_Win *out)
{
    uint32_t ctx;
    int rc = faro_ctx_agree(fn, comm, 1, &ctx);
    if (rc)
        return rc;
    struct faro_win *w = faro_pool_get(&win_pool);
    int *world = NULL;
    if (w && comm->world && (world = malloc((size_t)comm->size * sizeof(int))))
        memcpy(world, comm->world, (size_t)comm->size * sizeof(int));
    MPI_Comm c = w && (world || !comm->world)
                     ? faro_comm_new(comm, ctx, comm->size, world, comm->rank) : NULL;
    if (!c) {
        free(world);
        if (w)
            faro_pool_put(&win_pool, w);
        faro_ctx_release(ctx);
        return faro_err(comm, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    /* The private communicator's own errors are the window's: reported there. */
    faro_errhandler_release(c->errhandler);
    c->errhandler = MPI_ERRORS_RETURN;
    w->magic = FARO_WIN_MAGIC;
    w->comm = c;
    w->errhandler = comm->errhandler;
    faro_errhandler_retain(w->errhandler);
    w->flavor = flavor;
    w->model = MPI_WIN_UNIFIED;
    w->no_locks = info_true(info, "no_locks");
    if (info != MPI_INFO_NULL)
        w->info = faro_info_copy(info);
    w->node_local = 1;
    int node = faro.node_of[faro_comm_world_rank(c, c->rank)];
    for (int r = 0; r < c->size; r++)
        if (faro.node_of[faro_comm_world_rank(c, r)] != node)
            w->node_local = 0;
    w->ranks = calloc((size_t)c->size, sizeof *w->ranks);
    if (!w->ranks || faro_rma_origin_init(w) || faro_rma_target_init(w)) {
        *out = w;
        return faro_err(comm, MPI_ERR_NO_MEM, "%s: out of memory", fn);
    }
    *out = w;
    return MPI_SUCCESS;
}

static void win_destroy(MPI_Win w)
{
    faro_rma_single_free(w);
    faro_rma_target_free(w);
    faro_rma_origin_free(w);
    if (w->seg)
        munmap(w->seg, w->seglen);
    free(w->owned);
    free(w->ranks);
    if (w->info)
        faro_info_destroy(w->info);
    faro_errhandler_release(w->errhandler);
    faro_comm_release(w->comm);
    faro_handle_forget(FARO_H_WIN, w);
    faro_pool_put(&win_pool, w);
}

/* progress_thread.c: start the thread of FARO_ASYNC_PROGRESS if it is wanted and
 * not running; -1 when it cannot start. */
int faro_rma_thread_start(void);

static int create_fail(MPI_Win w, int rc, MPI_Win *win)
{
    if (w)
        win_destroy(w);
    *win = MPI_WIN_NULL;
    return rc;
}

/* Creation is collective: a member that fails a step (raising its error:
 * rc) must not leave the others waiting in the next exchange. After
 * win_new, every member tells the others its outcome over comm (one
 * allreduce); win_publish carries it in the exchange of the parts. A member
 * that did well raises the failing one's class, naming that rank. */
static int other_failed(const char *fn, MPI_Comm comm, int errclass, int rank)
{
    char name[MPI_MAX_ERROR_STRING];
    int len;
    PMPI_Error_string(errclass, name, &len);
    return faro_err(comm, errclass, "%s: the window could not be made at rank %d of the "
                    "communicator (%s there); every member fails the call", fn, rank, name);
}

static int agree(const char *fn, MPI_Comm comm, int rc)
{
    int mine[2] = {0, comm->rank}, worst[2] = {0, 0};
    if (rc)
        PMPI_Error_class(rc, &mine[0]);
    if (PMPI_Allreduce(mine, worst, 1, MPI_2INT, MPI_MAXLOC, comm) != MPI_SUCCESS && !rc)
        return faro_err(comm, MPI_ERR_OTHER, "%s: agreeing on the window's creation failed",
                        fn);
    return rc ? rc : worst[0] ? other_failed(fn, comm, worst[0], worst[1]) : MPI_SUCCESS;
}

/* This member's part is base (shared windows: set already), size bytes in
 * units of disp_unit: publish it, go live on the poller's list, and hand
 * the window to the program (or destroy it on failure). rc: this member's
 * failure so far (raised already), which every member learns here. */
static int win_publish(const char *fn, MPI_Comm comm, MPI_Win w, void *base, MPI_Aint size,
                       int disp_unit, int rc, MPI_Win *win)
{
    if (!w->seg)
        w->base = base;
    w->size = size;
    w->disp_unit = disp_unit;
    if (!rc && faro_rma_thread_start())
        rc = faro_err(comm, MPI_ERR_OTHER, "%s: FARO_ASYNC_PROGRESS is set but its progress "
                      "thread cannot start (out of threads or memory?)", fn);
    /* A member that failed publishes minus its error class as its unit. */
    int failed = 0;
    if (rc)
        PMPI_Error_class(rc, &failed);
    struct faro_win_rank me = {(uint64_t)(uintptr_t)w->base, (uint64_t)w->size,
                               failed ? -failed : w->disp_unit};
    if (w->seg)
        me.base = (uint64_t)((char *)w->base - (char *)w->seg);
    int xrc = PMPI_Allgather(&me, (int)sizeof me, MPI_BYTE, w->ranks, (int)sizeof me, MPI_BYTE,
                             w->comm);
    if (rc)
        return create_fail(w, rc, win);
    for (int r = 0; !xrc && r < w->comm->size; r++)
        if (w->ranks[r].disp_unit <= 0)
            return create_fail(w, other_failed(fn, comm, (int)-w->ranks[r].disp_unit, r), win);
    /* The program's memory (every member alike): single-copy keys where a transport has them. */
    if (!xrc && !w->seg && w->flavor != MPI_WIN_FLAVOR_DYNAMIC && faro_rma_direct_wanted())
        xrc = faro_rma_single_init(w);
    if (xrc)
        return create_fail(w, faro_err(comm, MPI_ERR_OTHER, "%s: exchanging the window's "
                                       "addresses failed", fn), win);
    w->next = faro_rma_windows;
    faro_rma_windows = w;
    if (poller < 0 && (poller = faro_progress_register(faro_rma_poll, NULL)) < 0)
        faro_fatal(MPI_ERR_INTERN, "%s: no progress poller slot is free", fn);
    *win = w;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_create = PMPI_Win_create
int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                    MPI_Win *win)
{
    static const char fn[] = "MPI_Win_create";
    FARO_LOCKED;
    int rc = check_args(fn, comm, size, disp_unit, info, win, 0, NULL);
    if (rc)
        return rc;
    if (!base && size > 0)
        return faro_err(comm, MPI_ERR_ARG, "%s: base is NULL but size is %ld", fn,
                        (long)size);
    MPI_Win w = NULL;
    if ((rc = agree(fn, comm, win_new(fn, comm, info, MPI_WIN_FLAVOR_CREATE, &w))))
        return create_fail(w, rc, win);
    return win_publish(fn, comm, w, base, size, disp_unit, MPI_SUCCESS, win);
}

static int shared_segment(const char *fn, MPI_Comm comm, MPI_Win w, MPI_Aint size,
                          size_t part_align, int raise);

#pragma weak MPI_Win_allocate = PMPI_Win_allocate
int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                      MPI_Win *win)
{
    static const char fn[] = "MPI_Win_allocate";
    FARO_LOCKED;
    int rc = check_args(fn, comm, size, disp_unit, info, win, 1, baseptr);
    if (rc)
        return rc;
    MPI_Win w = NULL;
    if ((rc = agree(fn, comm, win_new(fn, comm, info, MPI_WIN_FLAVOR_ALLOCATE, &w))))
        return create_fail(w, rc, win);
    /* One node: a shared segment, so that operations are loads and stores; private
     * memory (operations as messages) when /dev/shm cannot hold it. */
    if (w->node_local && faro_rma_direct_wanted() && !shared_segment(fn, comm, w, size, 64, 0)) {
        *(void **)baseptr = w->base;
        return win_publish(fn, comm, w, w->base, size, disp_unit, MPI_SUCCESS, win);
    }
    void *mem = NULL;
    if (size > 0 && posix_memalign(&mem, 64, (size_t)size))
        mem = NULL;
    w->owned = mem;
    if (size > 0 && !mem)
        rc = faro_err(comm, MPI_ERR_NO_MEM, "%s: cannot allocate %ld bytes", fn, (long)size);
    *(void **)baseptr = mem;
    return win_publish(fn, comm, w, mem, size, disp_unit, rc, win);
}

/* Map the node's segment for a shared window: rank 0 creates it with the
 * parts of every member, each rounded up to part_align bytes (1: contiguous),
 * after the lock lines; the others open it once it exists. */
static int shared_segment(const char *fn, MPI_Comm comm, MPI_Win w, MPI_Aint size,
                          size_t part_align, int raise)
{
    MPI_Comm c = w->comm;
    int n = c->size;
    long long *sizes = malloc((size_t)n * sizeof *sizes), mine = size;
    int rc = sizes ? PMPI_Allgather(&mine, 1, MPI_LONG_LONG, sizes, 1, MPI_LONG_LONG, c)
                   : MPI_ERR_NO_MEM;
    if (rc) {
        free(sizes);
        return raise ? faro_err(comm, MPI_ERR_NO_MEM, "%s: out of memory", fn) : rc;
    }
    size_t align = part_align > 64 ? part_align : 64, off = 0;
    size_t total = (faro_rma_direct_header(n) + align - 1) / align * align; /* lock lines */
    for (int r = 0; r < n; r++) {
        if (r == c->rank)
            off = total;
        total += ((size_t)sizes[r] + part_align - 1) / part_align * part_align;
    }
    free(sizes);
    char name[300];
    snprintf(name, sizeof name, "/%s-win-%u-%d", faro.jobid, (unsigned)c->context_id,
             faro_comm_world_rank(c, 0));
    int fd = -1, err = 0;
    if (c->rank == 0) {
        fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
        /* the pages are reserved now: a full /dev/shm fails here, not with SIGBUS later */
        if (fd < 0 || ftruncate(fd, (off_t)total) != 0 || posix_fallocate(fd, 0, (off_t)total))
            err = 1;
    }
    int any = 0;
    PMPI_Allreduce(&err, &any, 1, MPI_INT, MPI_MAX, c); /* rank 0 made it (or failed) */
    if (!any && c->rank != 0 && (fd = shm_open(name, O_RDWR, 0)) < 0)
        err = 1;
    void *seg = MAP_FAILED;
    if (!any && !err)
        seg = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (fd >= 0)
        close(fd);
    err = err || seg == MAP_FAILED;
    PMPI_Allreduce(&err, &any, 1, MPI_INT, MPI_MAX, c); /* everyone mapped it (or failed) */
    if (c->rank == 0)
        shm_unlink(name);
    if (any) {
        if (seg != MAP_FAILED)
            munmap(seg, total);
        if (!raise)
            return MPI_ERR_NO_MEM;
        return faro_err(comm, MPI_ERR_NO_MEM, "%s: cannot create the shared segment of %zu "
                        "bytes in /dev/shm (%s; is /dev/shm large enough? df /dev/shm)", fn,
                        total, err ? "here" : "at another member");
    }
    w->seg = seg;
    w->seglen = total;
    w->base = (char *)seg + off;
    w->direct = faro_rma_direct_wanted();
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_allocate_shared = PMPI_Win_allocate_shared
int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                             void *baseptr, MPI_Win *win)
{
    static const char fn[] = "MPI_Win_allocate_shared";
    FARO_LOCKED;
    int rc = check_args(fn, comm, size, disp_unit, info, win, 1, baseptr);
    if (rc)
        return rc;
    MPI_Win w = NULL;
    if ((rc = agree(fn, comm, win_new(fn, comm, info, MPI_WIN_FLAVOR_SHARED, &w))))
        return create_fail(w, rc, win);
    if (!w->node_local) { /* every member knows: they share the node map */
        return create_fail(w, faro_err(comm, MPI_ERR_RMA_SHARED, "%s: the communicator spans "
                                       "more than one node; shared memory windows need all "
                                       "their processes on one node (split it with "
                                       "MPI_Comm_split_type(MPI_COMM_TYPE_SHARED))", fn),
                           win);
    }
    size_t part_align = info_true(info, "alloc_shared_noncontig") ? (size_t)sysconf(_SC_PAGESIZE)
                                                                   : 1;
    if ((rc = shared_segment(fn, comm, w, size, part_align, 1)))
        return create_fail(w, rc, win);
    *(void **)baseptr = w->base;
    return win_publish(fn, comm, w, w->base, size, disp_unit, MPI_SUCCESS, win);
}

#pragma weak MPI_Win_shared_query = PMPI_Win_shared_query
int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    static const char fn[] = "MPI_Win_shared_query";
    FARO_LOCKED;
    if (faro_win_check(win))
        return faro_win_bad(fn, win);
    if (!size || !disp_unit || !baseptr)
        return faro_win_err(win, MPI_ERR_ARG, "%s: an output pointer is NULL", fn);
    if (win->flavor != MPI_WIN_FLAVOR_SHARED)
        return faro_win_err(win, MPI_ERR_RMA_FLAVOR, "%s: the window was not made by "
                            "MPI_Win_allocate_shared", fn);
    int n = win->comm->size;
    if (rank == MPI_PROC_NULL) { /* the first member with memory */
        for (rank = 0; rank < n - 1 && win->ranks[rank].size == 0; rank++)
            ;
    } else if (rank < 0 || rank >= n) {
        return faro_win_err(win, MPI_ERR_RANK, "%s: rank %d is invalid (window of %d: 0..%d, "
                            "MPI_PROC_NULL)", fn, rank, n, n - 1);
    }
    *size = (MPI_Aint)win->ranks[rank].size;
    *disp_unit = (int)win->ranks[rank].disp_unit;
    *(void **)baseptr = (char *)win->seg + win->ranks[rank].base;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_create_dynamic = PMPI_Win_create_dynamic
int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    static const char fn[] = "MPI_Win_create_dynamic";
    FARO_LOCKED;
    int rc = check_args(fn, comm, 0, 1, info, win, 0, NULL);
    if (rc)
        return rc;
    MPI_Win w = NULL;
    if ((rc = agree(fn, comm, win_new(fn, comm, info, MPI_WIN_FLAVOR_DYNAMIC, &w))))
        return create_fail(w, rc, win);
    return win_publish(fn, comm, w, MPI_BOTTOM, 0, 1, MPI_SUCCESS, win);
}

/* Attach and detach take dynamic windows only. */
static int check_dynamic(const char *fn, MPI_Win win)
{
    if (faro_win_check(win))
        return faro_win_bad(fn, win);
    if (win->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return faro_win_err(win, MPI_ERR_RMA_FLAVOR, "%s: the window was not made by "
                            "MPI_Win_create_dynamic", fn);
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_attach = PMPI_Win_attach
int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    static const char fn[] = "MPI_Win_attach";
    FARO_LOCKED;
    int rc = check_dynamic(fn, win);
    if (rc)
        return rc;
    if (size < 0)
        return faro_win_err(win, MPI_ERR_SIZE, "%s: size %ld is negative", fn, (long)size);
    if (!base && size > 0)
        return faro_win_err(win, MPI_ERR_ARG, "%s: base is NULL", fn);
    struct faro_rma_target *t = win->t;
    uintptr_t b = (uintptr_t)base;
    for (int i = 0; i < t->nregions; i++)
        if (b < t->regions[i].base + t->regions[i].size && t->regions[i].base < b + (size_t)size)
            return faro_win_err(win, MPI_ERR_RMA_ATTACH, "%s: [%p, +%ld) overlaps memory "
                                "already attached at %p", fn, base, (long)size,
                                (void *)t->regions[i].base);
    if (t->nregions == t->capregions) {
        int cap = t->capregions ? 2 * t->capregions : 8;
        struct rma_region *r = realloc(t->regions, (size_t)cap * sizeof *r);
        if (!r)
            return faro_win_err(win, MPI_ERR_NO_MEM, "%s: out of memory", fn);
        t->regions = r;
        t->capregions = cap;
    }
    t->regions[t->nregions++] = (struct rma_region){b, (size_t)size};
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_detach = PMPI_Win_detach
int PMPI_Win_detach(MPI_Win win, const void *base)
{
    static const char fn[] = "MPI_Win_detach";
    FARO_LOCKED;
    int rc = check_dynamic(fn, win);
    if (rc)
        return rc;
    struct faro_rma_target *t = win->t;
    for (int i = 0; i < t->nregions; i++)
        if (t->regions[i].base == (uintptr_t)base) {
            t->regions[i] = t->regions[--t->nregions];
            return MPI_SUCCESS;
        }
    return faro_win_err(win, MPI_ERR_RMA_ATTACH, "%s: no memory is attached at %p (pass the "
                        "base given to MPI_Win_attach)", fn, base);
}

/* Every member's operations on the window are complete everywhere before
 * anything goes: each completes its own, then a barrier. The attributes go
 * first (their delete callbacks may still use the window). */
#pragma weak MPI_Win_free = PMPI_Win_free
int PMPI_Win_free(MPI_Win *win)
{
    static const char fn[] = "MPI_Win_free";
    FARO_LOCKED;
    if (!win)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: win pointer is NULL", fn);
    MPI_Win w = *win;
    if (faro_win_check(w))
        return faro_win_bad(fn, w);
    if (w->o->nlocks || w->o->lock_all || w->o->naccess >= 0 || w->t->exposure >= 0)
        return faro_win_err(w, MPI_ERR_RMA_SYNC, "%s: an epoch is still open on the window "
                            "(%s)", fn, w->o->nlocks || w->o->lock_all ? "a lock is held"
                            : w->o->naccess >= 0 ? "MPI_Win_start without MPI_Win_complete"
                                                 : "MPI_Win_post without MPI_Win_wait");
    int rc = faro_rma_complete(fn, w, -1, 1);
    if (PMPI_Barrier(w->comm) != MPI_SUCCESS && !rc)
        rc = faro_win_err(w, MPI_ERR_OTHER, "%s: the closing barrier failed", fn);
    int arc = faro_attr_delete_all(FARO_ATTR_WIN, w, &w->attrs);
    if (arc)
        return faro_err_pass(MPI_COMM_NULL, arc, "%s: an attribute delete callback failed with "
                             "code %d", fn, arc);
    for (struct faro_win **pp = &faro_rma_windows; *pp; pp = &(*pp)->next)
        if (*pp == w) {
            *pp = w->next;
            break;
        }
    if (!faro_rma_windows && poller >= 0) {
        faro_progress_unregister(poller);
        poller = -1;
    }
    win_destroy(w);
    *win = MPI_WIN_NULL;
    return rc;
}
