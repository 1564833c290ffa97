/*
 * Buffered sends. MPI_Buffer_attach hands the library a region; each buffered
 * send copies its data into a block of it (plus MPI_BSEND_OVERHEAD of
 * bookkeeping, as the standard lets users size it) and sends from the copy.
 * The user's request completes at once; the block is freed when the internal
 * send completes. Blocks are kept in address order and placed first-fit.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "bigcount/wide.h"
#include "p2p/pt2pt.h"

struct block {
    size_t off, len;     /* len includes MPI_BSEND_OVERHEAD */
    struct block *next;
};

static struct {
    char *base;
    size_t size;
    struct block *blocks; /* in address order */
    int active;           /* internal sends in flight */
} bb;

static struct block *bb_alloc(size_t len)
{
    size_t need = len + MPI_BSEND_OVERHEAD, off = 0;
    struct block **link = &bb.blocks;
    for (struct block *b = bb.blocks; b; link = &b->next, b = b->next) {
        if (b->off - off >= need)
            break;
        off = b->off + b->len;
    }
    if (off + need > bb.size)
        return NULL;
    struct block *nb = malloc(sizeof *nb);
    if (!nb)
        return NULL;
    nb->off = off;
    nb->len = need;
    nb->next = *link;
    *link = nb;
    return nb;
}

static void bb_free(struct block *b)
{
    for (struct block **link = &bb.blocks; *link; link = &(*link)->next)
        if (*link == b) {
            *link = b->next;
            free(b);
            return;
        }
}

static void bsend_done(struct faro_request *r)
{
    bb_free(r->ctx);
    bb.active--;
    faro_req_release(r);
}

int faro_bsend_start(struct faro_request *user)
{
    size_t len = (size_t)user->count * user->type->size;
    struct block *b = bb_alloc(len);
    if (!b) {
        size_t used = 0;
        for (struct block *x = bb.blocks; x; x = x->next)
            used += x->len;
        return faro_err(user->comm, MPI_ERR_BUFFER,
                        "buffered send of %zu bytes (+%d MPI_BSEND_OVERHEAD) does not fit the "
                        "attached buffer: %zu of %zu bytes in use%s; attach a larger buffer with "
                        "MPI_Buffer_attach",
                        len, MPI_BSEND_OVERHEAD, used, bb.size,
                        bb.base ? "" : " (no buffer attached)");
    }
    char *copy = bb.base + b->off + MPI_BSEND_OVERHEAD;
    faro_type_pack(user->ubuf, (size_t)user->count, user->type, copy);

    struct faro_request *r = faro_req_alloc(FARO_REQ_SEND, user->comm);
    r->internal = 1;
    r->on_complete = bsend_done;
    r->ctx = b;
    r->rank = user->rank;
    r->tag = user->tag;
    r->peer = faro_comm_world_rank(user->comm, user->rank);
    r->data = copy;
    r->len = len;
    bb.active++;
    user->complete = 1; /* the data is safe in the attached buffer */
    return faro_send_start(r);
}

/* The int calls and their _c forms (bigcount/wide.h): the buffer's size is
 * a size_t inside. */
int faro_wide_Buffer_attach(const char *fn, void *buffer, MPI_Count size)
{
    FARO_LOCKED;
    if (bb.base)
        return faro_err(MPI_COMM_NULL, MPI_ERR_BUFFER,
                        "%s: a buffer is already attached; detach it first", fn);
    if (size < 0 || (!buffer && size > 0))
        return faro_err(MPI_COMM_NULL, MPI_ERR_BUFFER, "%s: invalid buffer (%p) or size (%lld)",
                        fn, buffer, (long long)size);
    bb.base = buffer;
    bb.size = (size_t)size;
    return MPI_SUCCESS;
}

#pragma weak MPI_Buffer_attach = PMPI_Buffer_attach
int PMPI_Buffer_attach(void *buffer, int size)
{
    return faro_wide_Buffer_attach("MPI_Buffer_attach", buffer, size);
}

int faro_wide_Buffer_detach(const char *fn, void *buffer_addr, MPI_Count *size)
{
    if (!buffer_addr || !size)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "%s: %s pointer is NULL", fn,
                        buffer_addr ? "size" : "buffer_addr");
    FARO_LOCKED;
    if (bb.active) { /* detach blocks until buffered sends are out */
        struct faro_wait w = {.fn = fn};
        faro_wait_begin(&w);
        FARO_WAIT_UNTIL(bb.active == 0);
        faro_wait_end(&w);
    }
    *(void **)buffer_addr = bb.base;
    *size = (MPI_Count)bb.size;
    bb.base = NULL;
    bb.size = 0;
    return MPI_SUCCESS;
}

/* A buffer attached by MPI_Buffer_attach_c may be larger than an int: its
 * size comes back as MPI_UNDEFINED. */
#pragma weak MPI_Buffer_detach = PMPI_Buffer_detach
int PMPI_Buffer_detach(void *buffer_addr, int *size)
{
    MPI_Count n = 0;
    int rc = faro_wide_Buffer_detach("MPI_Buffer_detach", buffer_addr, size ? &n : NULL);
    if (!rc)
        *size = n > INT_MAX ? MPI_UNDEFINED : (int)n;
    return rc;
}
