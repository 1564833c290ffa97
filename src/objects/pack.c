/*
 * The pack/unpack engine and the MPI calls built on it (MPI_Pack, MPI_Unpack,
 * MPI_Pack_size, addresses).
 *
 * The packed stream of count elements is, element after element, the bytes
 * of each element's pieces in typemap order. A dense type is one memcpy.
 * Otherwise whole elements go run by run (a run is n equal pieces at a fixed
 * stride, copied by a loop specialised for small sizes), a type that is a
 * single run whose elements follow each other at that stride is one run for
 * all elements, and only a partial first or last element looks its position
 * up (binary search over the runs). Runs of mid-sized pieces prefetch the
 * typed side a few strides ahead.
 */
#include <limits.h>
#include <string.h>
#include <sys/uio.h>

#include "core.h"
#include "bigcount/wide.h"

static inline char *at(const void *p, MPI_Aint off)
{
    return (char *)((uintptr_t)p + (uintptr_t)off);
}

/* n pieces of len bytes at stride in the typed buffer <-> contiguous stream. */
#define RUN_LOOP(LEN)                                                          \
    do {                                                                       \
        if (unpack)                                                            \
            for (size_t i = 0; i < n; i++, typed += stride, stream += (LEN))   \
                memcpy(typed, stream, (LEN));                                  \
        else                                                                   \
            for (size_t i = 0; i < n; i++, typed += stride, stream += (LEN))   \
                memcpy(stream, typed, (LEN));                                  \
    } while (0)

#define PREFETCH_AHEAD 4

static inline char *copy_run(char *typed, MPI_Aint stride, size_t len, size_t n, char *stream,
                             int unpack)
{
    switch (len) {
    case 1: RUN_LOOP(1); break;
    case 2: RUN_LOOP(2); break;
    case 4: RUN_LOOP(4); break;
    case 8: RUN_LOOP(8); break;
    case 12: RUN_LOOP(12); break;
    case 16: RUN_LOOP(16); break;
    case 24: RUN_LOOP(24); break;
    case 32: RUN_LOOP(32); break;
    default:
        if (len >= 256 && len <= 16384 && n > PREFETCH_AHEAD) {
            /* Pieces of a few cache lines at a stride outrun the hardware
             * prefetcher when the data is not in cache: ask for the piece
             * PREFETCH_AHEAD strides ahead while copying this one (1 MiB of
             * 512-byte blocks at stride 1 KiB: ping-pong 213 -> 171 us). */
            for (size_t i = 0; i < n; i++, typed += stride, stream += len) {
                if (i + PREFETCH_AHEAD < n)
                    for (size_t l = 0; l < len; l += 64)
                        __builtin_prefetch(typed + PREFETCH_AHEAD * stride + (MPI_Aint)l);
                if (unpack)
                    memcpy(typed, stream, len);
                else
                    memcpy(stream, typed, len);
            }
        } else {
            RUN_LOOP(len);
        }
        break;
    }
    return stream;
}

static inline void copy_bytes(char *typed, char *stream, size_t n, int unpack)
{
    if (unpack)
        memcpy(typed, stream, n);
    else
        memcpy(stream, typed, n);
}

/* count whole elements starting at base. */
static char *whole_elements(char *base, MPI_Datatype t, size_t count, char *stream, int unpack)
{
    if (t->nrun == 1) {
        const struct faro_run *r = &t->run[0];
        /* the elements' runs continue each other: one run for all */
        if (r->n == 1 || (MPI_Aint)r->n * r->stride == t->extent) {
            MPI_Aint stride = r->n == 1 ? t->extent : r->stride;
            return copy_run(base + r->off, stride, r->len, r->n * count, stream, unpack);
        }
    }
    for (size_t e = 0; e < count; e++, base += t->extent)
        for (int k = 0; k < t->nrun; k++) {
            const struct faro_run *r = &t->run[k];
            stream = copy_run(base + r->off, r->stride, r->len, r->n, stream, unpack);
        }
    return stream;
}

/* The run holding packed byte q of an element (binary search over run starts). */
static int run_at(MPI_Datatype t, size_t q)
{
    int lo = 0, hi = t->nrun - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (t->run[mid].pos <= q)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* Bytes [q, q + n) of the packed form of the one element at base (n > 0). */
static char *part_element(char *base, MPI_Datatype t, size_t q, size_t n, char *stream,
                          int unpack)
{
    for (int k = run_at(t, q); n > 0 && k < t->nrun; k++) {
        const struct faro_run *r = &t->run[k];
        size_t in = q - r->pos, i = in / r->len, b = in % r->len;
        char *seg = base + r->off + (MPI_Aint)i * r->stride;
        if (b) { /* finish a piece begun before */
            size_t m = r->len - b < n ? r->len - b : n;
            copy_bytes(seg + b, stream, m, unpack);
            stream += m, n -= m, q += m, i++, seg += r->stride;
        }
        size_t full = r->n - i < n / r->len ? r->n - i : n / r->len;
        if (full) {
            stream = copy_run(seg, r->stride, r->len, full, stream, unpack);
            n -= full * r->len, q += full * r->len, i += full;
            seg += (MPI_Aint)full * r->stride;
        }
        if (n > 0 && i < r->n) { /* the stream ends inside this piece */
            copy_bytes(seg, stream, n, unpack);
            stream += n;
            n = 0;
        }
    }
    return stream;
}

static void walk(const void *buf, MPI_Datatype t, size_t pos, size_t n, const void *stream_in,
                 int unpack)
{
    char *stream = (char *)stream_in;
    if (n == 0 || t->size == 0)
        return;
    if (t->dense) {
        copy_bytes(at(buf, t->run[0].off + (MPI_Aint)pos), stream, n, unpack);
        return;
    }
    size_t e = pos / t->size, q = pos % t->size;
    char *base = at(buf, (MPI_Aint)e * t->extent);
    if (q) {
        size_t m = t->size - q < n ? t->size - q : n;
        stream = part_element(base, t, q, m, stream, unpack);
        n -= m;
        base += t->extent;
    }
    size_t whole = n / t->size;
    if (whole) {
        stream = whole_elements(base, t, whole, stream, unpack);
        n -= whole * t->size;
        base += (MPI_Aint)whole * t->extent;
    }
    if (n)
        part_element(base, t, 0, n, stream, unpack);
}

/* ---- the typed side as iovecs (a get lands data straight in a typed buffer) ---- */

struct iov_out {
    struct iovec *iov;
    int n, max;
    size_t covered;
};

/* Add len bytes at p; a piece that continues the last one extends it. 0 when full. */
static int iov_add(struct iov_out *o, char *p, size_t len)
{
    if (o->n && (char *)o->iov[o->n - 1].iov_base + o->iov[o->n - 1].iov_len == p) {
        o->iov[o->n - 1].iov_len += len;
    } else {
        if (o->n == o->max)
            return 0;
        o->iov[o->n].iov_base = p;
        o->iov[o->n].iov_len = len;
        o->n++;
    }
    o->covered += len;
    return 1;
}

int faro_type_iov(const void *buf, MPI_Datatype t, size_t pos, size_t n, struct iovec *iov,
                  int max, size_t *covered)
{
    struct iov_out o = {iov, 0, max, 0};
    if (n == 0 || t->size == 0 || max <= 0) {
        *covered = 0;
        return 0;
    }
    if (t->dense) {
        iov_add(&o, at(buf, t->run[0].off + (MPI_Aint)pos), n);
        *covered = n;
        return 1;
    }
    size_t e = pos / t->size, q = pos % t->size;
    char *base = at(buf, (MPI_Aint)e * t->extent);
    int k = run_at(t, q);
    while (n > 0) {
        const struct faro_run *r = &t->run[k];
        size_t in = q - r->pos, i = in / r->len, b = in % r->len;
        for (; i < r->n && n > 0; i++, b = 0) {
            size_t m = r->len - b < n ? r->len - b : n;
            if (!iov_add(&o, base + r->off + (MPI_Aint)i * r->stride + (MPI_Aint)b, m))
                goto full;
            n -= m;
            q += m;
        }
        if (++k == t->nrun) { /* next element */
            k = 0;
            q = 0;
            base += t->extent;
        }
    }
full:
    *covered = o.covered;
    return o.n;
}

void faro_type_pack(const void *buf, size_t count, MPI_Datatype t, void *out)
{
    walk(buf, t, 0, count * t->size, out, 0);
}

void faro_type_unpack(const void *in, size_t bytes, void *buf, MPI_Datatype t)
{
    walk(buf, t, 0, bytes, in, 1);
}

void faro_type_pack_range(const void *buf, MPI_Datatype t, size_t pos, size_t n, void *out)
{
    walk(buf, t, pos, n, out, 0);
}

void faro_type_unpack_range(const void *in, MPI_Datatype t, size_t pos, size_t n, void *buf)
{
    walk(buf, t, pos, n, in, 1);
}

/* ---- MPI_Pack and friends ---- */

/* The int calls and their _c forms (bigcount/wide.h) share these, on
 * MPI_Count counts, sizes and positions; the int call narrows the position
 * it hands back. */
static int pack_args(const char *fn, MPI_Count count, MPI_Datatype t, MPI_Comm comm,
                     MPI_Count size, const MPI_Count *position)
{
    if (faro_comm_check(comm))
        return faro_err(MPI_COMM_NULL, MPI_ERR_COMM, "%s: %s", fn,
                        comm == MPI_COMM_NULL ? "communicator is MPI_COMM_NULL"
                                              : "argument is not a valid communicator");
    if (count < 0)
        return faro_err(comm, MPI_ERR_COUNT, "%s: count %lld is negative", fn,
                        (long long)count);
    if (faro_type_check(t))
        return faro_type_bad(fn, comm, t);
    if (!position)
        return faro_err(comm, MPI_ERR_ARG, "%s: position is NULL", fn);
    if (size < 0 || *position < 0 || *position > size)
        return faro_err(comm, MPI_ERR_ARG,
                        "%s: position %lld is outside the buffer of %lld bytes", fn,
                        (long long)*position, (long long)size);
    return MPI_SUCCESS;
}

int faro_wide_Pack(const char *fn, const void *inbuf, MPI_Count incount, MPI_Datatype t,
                   void *outbuf, MPI_Count outsize, MPI_Count *position, MPI_Comm comm)
{
    int rc = pack_args(fn, incount, t, comm, outsize, position);
    if (rc)
        return rc;
    size_t bytes = (size_t)incount * t->size;
    if (bytes > (size_t)(outsize - *position))
        return faro_err(comm, MPI_ERR_TRUNCATE,
                        "%s: %zu bytes (count %lld) do not fit: %lld of %lld bytes left at "
                        "position %lld (MPI_Pack_size says how much room to allow)",
                        fn, bytes, (long long)incount, (long long)(outsize - *position),
                        (long long)outsize, (long long)*position);
    faro_type_pack(inbuf, (size_t)incount, t, (char *)outbuf + *position);
    *position += (MPI_Count)bytes;
    return MPI_SUCCESS;
}

#pragma weak MPI_Pack = PMPI_Pack
int PMPI_Pack(const void *inbuf, int incount, MPI_Datatype t, void *outbuf, int outsize,
              int *position, MPI_Comm comm)
{
    MPI_Count pos = position ? *position : 0; /* within outsize: the new one fits an int */
    int rc = faro_wide_Pack("MPI_Pack", inbuf, incount, t, outbuf, outsize,
                            position ? &pos : NULL, comm);
    if (!rc)
        *position = (int)pos;
    return rc;
}

int faro_wide_Unpack(const char *fn, const void *inbuf, MPI_Count insize, MPI_Count *position,
                     void *outbuf, MPI_Count outcount, MPI_Datatype t, MPI_Comm comm)
{
    int rc = pack_args(fn, outcount, t, comm, insize, position);
    if (rc)
        return rc;
    size_t bytes = (size_t)outcount * t->size;
    if (bytes > (size_t)(insize - *position))
        return faro_err(comm, MPI_ERR_TRUNCATE,
                        "%s: count %lld needs %zu bytes but only %lld of %lld are left at "
                        "position %lld", fn, (long long)outcount, bytes,
                        (long long)(insize - *position), (long long)insize,
                        (long long)*position);
    faro_type_unpack((const char *)inbuf + *position, bytes, outbuf, t);
    *position += (MPI_Count)bytes;
    return MPI_SUCCESS;
}

#pragma weak MPI_Unpack = PMPI_Unpack
int PMPI_Unpack(const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                MPI_Datatype t, MPI_Comm comm)
{
    MPI_Count pos = position ? *position : 0;
    int rc = faro_wide_Unpack("MPI_Unpack", inbuf, insize, position ? &pos : NULL, outbuf,
                              outcount, t, comm);
    if (!rc)
        *position = (int)pos;
    return rc;
}

int faro_wide_Pack_size(const char *fn, MPI_Count incount, MPI_Datatype t, MPI_Comm comm,
                        MPI_Count *size)
{
    MPI_Count pos = 0;
    int rc = pack_args(fn, incount, t, comm, 0, &pos);
    if (rc)
        return rc;
    if (!size)
        return faro_err(comm, MPI_ERR_ARG, "%s: size is NULL", fn);
    if (t->size && (unsigned long long)incount > (unsigned long long)LLONG_MAX / t->size)
        return faro_err(comm, MPI_ERR_COUNT, "%s: count %lld of %zu-byte elements is more "
                        "bytes than an MPI_Count holds", fn, (long long)incount, t->size);
    *size = incount * (MPI_Count)t->size;
    return MPI_SUCCESS;
}

#pragma weak MPI_Pack_size = PMPI_Pack_size
int PMPI_Pack_size(int incount, MPI_Datatype t, MPI_Comm comm, int *size)
{
    MPI_Count bytes = 0;
    int rc = faro_wide_Pack_size("MPI_Pack_size", incount, t, comm, size ? &bytes : NULL);
    if (rc)
        return rc;
    if (bytes > INT_MAX)
        return faro_err(comm, MPI_ERR_COUNT,
                        "MPI_Pack_size: %lld bytes (count %d) do not fit an int "
                        "(MPI_Pack_size_c returns it)", (long long)bytes, incount);
    *size = (int)bytes;
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_address = PMPI_Get_address
int PMPI_Get_address(const void *location, MPI_Aint *address)
{
    if (!address)
        return faro_err(MPI_COMM_NULL, MPI_ERR_ARG, "MPI_Get_address: address is NULL");
    *address = (MPI_Aint)(uintptr_t)location;
    return MPI_SUCCESS;
}

#pragma weak MPI_Aint_add = PMPI_Aint_add
MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp)
{
    return (MPI_Aint)((uintptr_t)base + (uintptr_t)disp);
}

#pragma weak MPI_Aint_diff = PMPI_Aint_diff
MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2)
{
    return (MPI_Aint)((uintptr_t)addr1 - (uintptr_t)addr2);
}
