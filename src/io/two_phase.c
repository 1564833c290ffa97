/*
 * Collective reads and writes (MPI_File_*_all, *_at_all) and the split
 * collectives (_begin/_end).
 *
 * Two-phase I/O with collective buffering, as ROMIO introduced it: the
 * members first learn every member's byte range (one allgather). When the
 * ranges interleave (romio_cb_write/romio_cb_read = automatic) or always
 * (= enable), the span they cover is cut into one file domain per
 * aggregator (cb_nodes of them; by default the first rank of each node), and
 * each domain is handled in rounds of at most cb_buffer_size bytes. In a
 * round every member sends each aggregator the (offset, length) of its pieces
 * that fall in the aggregator's window, then the data (alltoall +
 * alltoallv); the aggregator assembles the window and writes it with one
 * pwrite (reading it first, under an fcntl lock, when the pieces leave
 * holes). Reads go the other way: one pread per window, the pieces sent
 * back. So an interleaved pattern of small blocks becomes a few large
 * contiguous accesses. Otherwise (romio_cb_* = disable, ranges that do not
 * interleave, atomic mode, a single member) every member does its own access
 * (rw.c, with data sieving).
 *
 * A member whose arguments are wrong still takes part (with nothing to move)
 * so that the others do not hang; every member returns an error then.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "io/file.h"

/* What each member tells the others first. */
struct coll_info {
    long long lo, hi;  /* byte range [lo, hi) of its extents; lo > hi when empty */
    long long bad;     /* its arguments were wrong */
    long long sorted;  /* its extents increase (monotonic view) and its stream fits the
                        * exchange's int counts: two-phase can take it */
};

static int cmp_lo(const void *a, const void *b)
{
    const struct coll_info *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Whether the non-empty ranges overlap one another (ROMIO's "interleaved"). */
static int interleaved(struct coll_info *all, int n)
{
    struct coll_info *s = malloc((size_t)n * sizeof *s);
    int k = 0, hit = 0;
    if (!s)
        return 0;
    for (int i = 0; i < n; i++)
        if (all[i].lo < all[i].hi)
            s[k++] = all[i];
    qsort(s, (size_t)k, sizeof *s, cmp_lo);
    for (int i = 1; i < k && !hit; i++)
        hit = s[i].lo < s[i - 1].hi;
    free(s);
    return hit;
}

/* The exchange state of one collective access at this member. */
struct tp {
    MPI_File fh;
    int writing;
    char *stream;
    struct faro_io_ext *e;
    int n;
    int64_t glo, ghi, domain, cb;
    int *scount, *sdispl, *rcount, *rdispl; /* [size] each */
    long long *smeta, *rmeta;
    int64_t rmeta_cap;
    char *rdata, *window;
    int64_t rdata_cap;
};

/* The window aggregator a works on in round r: [*wlo, *whi). */
static void window_of(const struct tp *t, int a, int64_t r, int64_t *wlo, int64_t *whi)
{
    int64_t start = t->glo + a * t->domain, end = start + t->domain;
    if (end > t->ghi)
        end = t->ghi;
    *wlo = start + r * t->cb;
    *whi = *wlo + t->cb < end ? *wlo + t->cb : end;
    if (*wlo > *whi)
        *wlo = *whi;
}

/* The first extent ending after off (extents increase). */
static int first_after(const struct tp *t, int64_t off)
{
    int lo = 0, hi = t->n;
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (t->e[mid].off + t->e[mid].len <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int grow(void *pp, int64_t *cap, int64_t need)
{
    if (need <= *cap)
        return 0;
    void *m = realloc(*(void **)pp, (size_t)need);
    if (!m)
        return -1;
    *(void **)pp = m;
    *cap = need;
    return 0;
}

/* One round r. Returns 0 or an errno (the aggregator's file access). */
static int round_run(struct tp *t, int64_t r)
{
    MPI_File fh = t->fh;
    int P = fh->size, err = 0;
    /* my pieces per aggregator: (off, len) pairs, and where their data lies in my stream */
    int npieces = 0;
    int64_t *first_pos = calloc((size_t)P, sizeof *first_pos);
    int *counts = calloc((size_t)2 * P, sizeof(int)), *rcounts = calloc((size_t)2 * P, sizeof(int));
    if (!first_pos || !counts || !rcounts) {
        free(first_pos), free(counts), free(rcounts);
        return ENOMEM;
    }
    for (int a = 0; a < fh->naggs; a++) {
        int64_t wlo, whi;
        window_of(t, a, r, &wlo, &whi);
        for (int i = first_after(t, wlo); i < t->n && t->e[i].off < whi; i++)
            npieces++;
    }
    free(t->smeta);
    t->smeta = malloc((size_t)(npieces ? npieces : 1) * 2 * sizeof(long long));
    if (!t->smeta) {
        free(first_pos), free(counts), free(rcounts);
        return ENOMEM;
    }
    int k = 0;
    for (int a = 0; a < fh->naggs; a++) {
        int agg = fh->aggs[a], k0 = k;
        int64_t wlo, whi, bytes = 0;
        window_of(t, a, r, &wlo, &whi);
        for (int i = first_after(t, wlo); i < t->n && t->e[i].off < whi; i++) {
            int64_t s = t->e[i].off > wlo ? t->e[i].off : wlo;
            int64_t e = t->e[i].off + t->e[i].len < whi ? t->e[i].off + t->e[i].len : whi;
            if (k == k0)
                first_pos[agg] = t->e[i].pos + (s - t->e[i].off) - t->e[0].pos;
            t->smeta[2 * k] = s;
            t->smeta[2 * k + 1] = e - s;
            bytes += e - s;
            k++;
        }
        counts[2 * agg] = 2 * (k - k0); /* meta words */
        counts[2 * agg + 1] = (int)bytes;
    }
    PMPI_Alltoall(counts, 2, MPI_INT, rcounts, 2, MPI_INT, fh->comm);
    /* metadata to the aggregators */
    int64_t mtotal = 0, dtotal = 0;
    int s_off = 0;
    for (int p = 0; p < P; p++) {
        t->scount[p] = counts[2 * p];
        t->sdispl[p] = s_off;
        s_off += counts[2 * p];
        t->rcount[p] = rcounts[2 * p];
        t->rdispl[p] = (int)mtotal;
        mtotal += rcounts[2 * p];
        dtotal += rcounts[2 * p + 1];
    }
    if (grow(&t->rmeta, &t->rmeta_cap, (mtotal ? mtotal : 1) * (int64_t)sizeof(long long)) ||
        grow(&t->rdata, &t->rdata_cap, dtotal ? dtotal : 1))
        /* the others are already in the exchange: they would hang */
        faro_fatal(MPI_ERR_NO_MEM, "%s: out of memory for %lld bytes of collective buffering "
                   "(lower the cb_buffer_size hint)", fh->path, (long long)dtotal);
    PMPI_Alltoallv(t->smeta, t->scount, t->sdispl, MPI_LONG_LONG, t->rmeta, t->rcount,
                   t->rdispl, MPI_LONG_LONG, fh->comm);
    /* data counts: my bytes per aggregator from my stream; the aggregator's per member */
    int64_t d_off = 0;
    for (int p = 0; p < P; p++) {
        t->scount[p] = counts[2 * p + 1];
        t->sdispl[p] = (int)first_pos[p];
        t->rcount[p] = rcounts[2 * p + 1];
        t->rdispl[p] = (int)d_off;
        d_off += rcounts[2 * p + 1];
    }
    /* The window this member aggregates in this round. */
    int me_agg = -1;
    for (int a = 0; a < fh->naggs; a++)
        if (fh->aggs[a] == fh->rank)
            me_agg = a;
    int64_t wlo = 0, whi = 0, plo = INT64_MAX, phi = 0, covered = 0;
    if (me_agg >= 0 && !err) {
        window_of(t, me_agg, r, &wlo, &whi);
        for (int64_t i = 0; i < mtotal; i += 2) {
            plo = t->rmeta[i] < plo ? t->rmeta[i] : plo;
            phi = t->rmeta[i] + t->rmeta[i + 1] > phi ? t->rmeta[i] + t->rmeta[i + 1] : phi;
            covered += t->rmeta[i + 1];
        }
    }
    int have_pieces = me_agg >= 0 && !err && mtotal > 0;
    int holes = have_pieces && covered < phi - plo; /* (pieces of a collective do not overlap) */
    int locked = 0;
    if (!t->writing) {
        if (have_pieces) { /* one read of the span, then the pieces go back */
            size_t got = 0;
            err = fh->ops->pread(fh->fd, t->window, (size_t)(phi - plo), plo, &got);
            if ((int64_t)got < phi - plo)
                memset(t->window + got, 0, (size_t)(phi - plo - (int64_t)got));
            for (int64_t i = 0, d = 0; i < mtotal && !err; i += 2) {
                memcpy(t->rdata + d, t->window + (t->rmeta[i] - plo), (size_t)t->rmeta[i + 1]);
                d += t->rmeta[i + 1];
            }
        }
        PMPI_Alltoallv(t->rdata, t->rcount, t->rdispl, MPI_BYTE, t->stream, t->scount,
                       t->sdispl, MPI_BYTE, fh->comm);
    } else {
        PMPI_Alltoallv(t->stream, t->scount, t->sdispl, MPI_BYTE, t->rdata, t->rcount,
                       t->rdispl, MPI_BYTE, fh->comm);
        if (have_pieces && holes && !fh->can_read) { /* write-only: the pieces one by one */
            for (int64_t i = 0, d = 0; i < mtotal && !err; i += 2) {
                err = fh->ops->pwrite(fh->fd, t->rdata + d, (size_t)t->rmeta[i + 1],
                                      t->rmeta[i]);
                d += t->rmeta[i + 1];
            }
        } else if (have_pieces) {
            if (holes) { /* read-modify-write: keep what lies in the holes */
                size_t got = 0;
                if (!(err = fh->ops->lock(fh->fd, 1, plo, phi - plo)))
                    locked = 1;
                if (!err)
                    err = fh->ops->pread(fh->fd, t->window, (size_t)(phi - plo), plo, &got);
                if (!err && (int64_t)got < phi - plo)
                    memset(t->window + got, 0, (size_t)(phi - plo - (int64_t)got));
            }
            for (int64_t i = 0, d = 0; i < mtotal && !err; i += 2) {
                memcpy(t->window + (t->rmeta[i] - plo), t->rdata + d, (size_t)t->rmeta[i + 1]);
                d += t->rmeta[i + 1];
            }
            if (!err)
                err = fh->ops->pwrite(fh->fd, t->window, (size_t)(phi - plo), plo);
            if (locked)
                fh->ops->unlock(fh->fd, plo, phi - plo);
        }
    }
    free(first_pos), free(counts), free(rcounts);
    return err;
}

/* Stream bytes of the extents that lie before the end of the file. */
static int64_t before_eof(const struct faro_io_ext *e, int n, int64_t size)
{
    int64_t got = 0;
    for (int i = 0; i < n; i++) {
        int64_t in = size - e[i].off;
        if (in <= 0)
            break;
        got += in < e[i].len ? in : e[i].len;
        if (in < e[i].len)
            break;
    }
    return got;
}

static int two_phase(struct faro_io_access *a, struct coll_info *all, int writing,
                     int64_t *got)
{
    MPI_File fh = a->fh;
    int P = fh->size;
    struct tp t = {.fh = fh, .writing = writing, .stream = a->stream};
    t.glo = INT64_MAX, t.ghi = 0;
    for (int p = 0; p < P; p++)
        if (all[p].lo < all[p].hi) {
            t.glo = all[p].lo < t.glo ? all[p].lo : t.glo;
            t.ghi = all[p].hi > t.ghi ? all[p].hi : t.ghi;
        }
    int err = 0;
    t.n = a->bytes ? faro_io_extents(fh, a->pos, a->bytes, &t.e) : 0;
    if (t.n < 0)
        t.n = 0, err = ENOMEM;
    if (t.glo >= t.ghi) /* nobody moves a byte */
        t.glo = t.ghi = 0;
    t.domain = (t.ghi - t.glo + fh->naggs - 1) / fh->naggs;
    t.cb = fh->hints.cb_buffer_size < t.domain ? fh->hints.cb_buffer_size : t.domain;
    int64_t rounds = t.cb ? (t.domain + t.cb - 1) / t.cb : 0;
    t.scount = malloc((size_t)P * sizeof(int));
    t.sdispl = malloc((size_t)P * sizeof(int));
    t.rcount = malloc((size_t)P * sizeof(int));
    t.rdispl = malloc((size_t)P * sizeof(int));
    int is_agg = 0;
    for (int i = 0; i < fh->naggs; i++)
        is_agg |= fh->aggs[i] == fh->rank;
    t.rdata = fh->cb_data, t.rdata_cap = fh->cb_data_cap;
    t.window = fh->cb_window;
    if (is_agg && t.cb && grow(&fh->cb_window, &fh->cb_window_cap, t.cb))
        err = ENOMEM;
    t.window = fh->cb_window;
    if (!t.scount || !t.sdispl || !t.rcount || !t.rdispl)
        err = ENOMEM;
    int any = 0;
    PMPI_Allreduce(&err, &any, 1, MPI_INT, MPI_MAX, fh->comm);
    for (int64_t r = 0; r < rounds && !any; r++) {
        int e2 = round_run(&t, r);
        err = err ? err : e2;
    }
    if (!err && !writing) {
        int64_t size = 0;
        err = fh->ops->size(fh->fd, &size);
        *got = before_eof(t.e, t.n, size);
    } else if (!err) {
        *got = a->bytes;
    }
    free(t.e), free(t.scount), free(t.sdispl), free(t.rcount), free(t.rdispl);
    free(t.smeta), free(t.rmeta);
    fh->cb_data = t.rdata, fh->cb_data_cap = t.rdata_cap; /* kept for the next call */
    PMPI_Allreduce(&err, &any, 1, MPI_INT, MPI_MAX, fh->comm);
    if (err)
        return faro_file_errno(fh, err, a->fn, writing ? "collective write of" : "collective "
                               "read of");
    if (any)
        return faro_file_err(fh, faro_io_errclass(any), "%s: an aggregator failed to %s %s: "
                             "%s", a->fn, writing ? "write" : "read", fh->path, strerror(any));
    return MPI_SUCCESS;
}

int faro_io_collective(const char *fn, MPI_File fh, MPI_Offset off, void *buf, int count,
                       MPI_Datatype type, MPI_Status *status, int writing)
{
    if (faro_file_check(fh))
        return faro_file_bad(fn, fh);
    struct faro_io_access a = {.fn = fn, .fh = fh};
    int rc = faro_io_check(fn, fh, buf, count, type, writing);
    if (!rc)
        rc = faro_io_prepare(&a, fn, fh, buf, count, type, off, writing);
    struct coll_info me = {.lo = 1, .hi = 0, .bad = rc != 0,
                           .sorted = rc != 0 || a.bytes < INT_MAX};
    if (!rc && a.bytes > 0) {
        struct faro_io_ext *e;
        int n = faro_io_extents(fh, a.pos, a.bytes, &e);
        if (n < 0) {
            me.bad = 1;
            rc = faro_file_err(fh, MPI_ERR_NO_MEM, "%s: out of memory", fn);
        } else {
            me.lo = e[0].off, me.hi = e[0].off + e[0].len;
            for (int i = 1; i < n; i++) {
                me.sorted &= e[i].off >= e[i - 1].off + e[i - 1].len;
                me.hi = e[i].off + e[i].len > me.hi ? e[i].off + e[i].len : me.hi;
                me.lo = e[i].off < me.lo ? e[i].off : me.lo;
            }
            free(e);
        }
    }
    struct coll_info *all = malloc((size_t)fh->size * sizeof *all);
    if (!all) /* cannot take part: the job would hang, so end it with a reason */
        faro_fatal(MPI_ERR_NO_MEM, "%s: out of memory for the collective's exchange", fn);
    PMPI_Allgather(&me, 4, MPI_LONG_LONG, all, 4, MPI_LONG_LONG, fh->comm);
    int bad = 0, sorted = 1;
    for (int p = 0; p < fh->size; p++)
        bad |= all[p].bad != 0, sorted &= all[p].sorted != 0;
    int64_t got = 0;
    if (bad) {
        free(all);
        if (a.own_stream)
            free(a.stream);
        return rc ? rc : faro_file_err(fh, MPI_ERR_OTHER, "%s: another member's arguments "
                                       "were wrong (see its error); nothing was %s", fn,
                                       writing ? "written" : "read");
    }
    int mode = writing ? fh->hints.cb_write : fh->hints.cb_read;
    int use_cb = mode != FARO_CB_DISABLE && fh->size > 1 && !fh->atomic && sorted &&
                 fh->naggs > 0 && (mode == FARO_CB_ENABLE || interleaved(all, fh->size));
    if (use_cb)
        rc = two_phase(&a, all, writing, &got);
    else
        rc = faro_io_independent(&a, writing, &got);
    free(all);
    int rc2 = faro_io_finish(&a, writing, got, status);
    return rc ? rc : rc2;
}

/* ---- the calls ---- */

static int coll_at(const char *fn, MPI_File fh, MPI_Offset off, void *buf, int count,
                   MPI_Datatype type, MPI_Status *status, int writing)
{
    if (faro_file_check(fh) == 0 && (fh->amode & MPI_MODE_SEQUENTIAL))
        return faro_file_err(fh, MPI_ERR_UNSUPPORTED_OPERATION, "%s: the file was opened with "
                             "MPI_MODE_SEQUENTIAL (only the shared file pointer may be used)",
                             fn);
    return faro_io_collective(fn, fh, off, buf, count, type, status, writing);
}

#pragma weak MPI_File_read_at_all = PMPI_File_read_at_all
int PMPI_File_read_at_all(MPI_File fh, MPI_Offset offset, void *buf, int count,
                          MPI_Datatype type, MPI_Status *status)
{
    FARO_LOCKED;
    return coll_at("MPI_File_read_at_all", fh, offset, buf, count, type, status, 0);
}

#pragma weak MPI_File_write_at_all = PMPI_File_write_at_all
int PMPI_File_write_at_all(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                           MPI_Datatype type, MPI_Status *status)
{
    FARO_LOCKED;
    return coll_at("MPI_File_write_at_all", fh, offset, (void *)buf, count, type, status, 1);
}

#pragma weak MPI_File_read_all = PMPI_File_read_all
int PMPI_File_read_all(MPI_File fh, void *buf, int count, MPI_Datatype type, MPI_Status *status)
{
    FARO_LOCKED;
    return faro_io_individual("MPI_File_read_all", fh, buf, count, type, status, 0, 1);
}

#pragma weak MPI_File_write_all = PMPI_File_write_all
int PMPI_File_write_all(MPI_File fh, const void *buf, int count, MPI_Datatype type,
                        MPI_Status *status)
{
    FARO_LOCKED;
    return faro_io_individual("MPI_File_write_all", fh, (void *)buf, count, type, status, 1, 1);
}

/* ---- split collectives: the whole operation runs at _begin, _end hands
 * back its outcome. One may be outstanding per file handle. ---- */

enum { SPLIT_AT, SPLIT_FP, SPLIT_ORDERED };

static int split_begin(const char *fn, const char *end_fn, MPI_File fh, int kind,
                       MPI_Offset off, void *buf, int count, MPI_Datatype type, int writing)
{
    if (faro_file_check(fh))
        return faro_file_bad(fn, fh);
    if (fh->split_active)
        return faro_file_err(fh, MPI_ERR_OTHER, "%s: the split collective %s is already "
                             "outstanding on this file (one at a time per file handle; call "
                             "%s_end first)", fn, fh->split_fn, fh->split_fn);
    MPI_Status st = {0};
    int rc = kind == SPLIT_AT ? coll_at(fn, fh, off, buf, count, type, &st, writing)
             : kind == SPLIT_FP ? faro_io_individual(fn, fh, buf, count, type, &st, writing, 1)
                                : faro_io_ordered(fn, fh, buf, count, type, &st, writing);
    fh->split_active = 1;
    fh->split_fn = end_fn;
    fh->split_buf = buf;
    fh->split_status = st;
    fh->split_rc = rc;
    return rc;
}

static int split_end(const char *fn, MPI_File fh, const void *buf, MPI_Status *status)
{
    if (faro_file_check(fh))
        return faro_file_bad(fn, fh);
    if (!fh->split_active)
        return faro_file_err(fh, MPI_ERR_OTHER, "%s: no split collective is outstanding on "
                             "this file (call the matching _begin first)", fn);
    size_t n = strlen(fh->split_fn);
    if (strncmp(fn, fh->split_fn, n) != 0 || strcmp(fn + n, "_end") != 0)
        return faro_file_err(fh, MPI_ERR_OTHER, "%s: the outstanding split collective ends "
                             "with %s_end, not this call", fn, fh->split_fn);
    if (buf != fh->split_buf)
        return faro_file_err(fh, MPI_ERR_BUFFER, "%s: buf is not the buffer given to the "
                             "_begin call", fn);
    fh->split_active = 0;
    if (status != MPI_STATUS_IGNORE)
        *status = fh->split_status;
    return MPI_SUCCESS;
}

#define SPLIT(Name, Cbuf)                                                     \
    _Pragma(FARO_IO_STR(weak MPI_File_##Name##_end = PMPI_File_##Name##_end))              \
    int PMPI_File_##Name##_end(MPI_File fh, Cbuf void *buf, MPI_Status *status)              \
    {                                                                                        \
        FARO_LOCKED;                                                                         \
        return split_end("MPI_File_" #Name "_end", fh, buf, status);                                \
    }
#define FARO_IO_STR(x) #x
SPLIT(read_at_all, )
SPLIT(write_at_all, const)
SPLIT(read_all, )
SPLIT(write_all, const)
SPLIT(read_ordered, )
SPLIT(write_ordered, const)

#pragma weak MPI_File_read_at_all_begin = PMPI_File_read_at_all_begin
int PMPI_File_read_at_all_begin(MPI_File fh, MPI_Offset offset, void *buf, int count,
                                MPI_Datatype type)
{
    FARO_LOCKED;
    return split_begin("MPI_File_read_at_all_begin", "MPI_File_read_at_all", fh, SPLIT_AT,
                       offset, buf, count, type, 0);
}

#pragma weak MPI_File_write_at_all_begin = PMPI_File_write_at_all_begin
int PMPI_File_write_at_all_begin(MPI_File fh, MPI_Offset offset, const void *buf, int count,
                                 MPI_Datatype type)
{
    FARO_LOCKED;
    return split_begin("MPI_File_write_at_all_begin", "MPI_File_write_at_all", fh, SPLIT_AT,
                       offset, (void *)buf, count, type, 1);
}

#pragma weak MPI_File_read_all_begin = PMPI_File_read_all_begin
int PMPI_File_read_all_begin(MPI_File fh, void *buf, int count, MPI_Datatype type)
{
    FARO_LOCKED;
    return split_begin("MPI_File_read_all_begin", "MPI_File_read_all", fh, SPLIT_FP, 0, buf,
                       count, type, 0);
}

#pragma weak MPI_File_write_all_begin = PMPI_File_write_all_begin
int PMPI_File_write_all_begin(MPI_File fh, const void *buf, int count, MPI_Datatype type)
{
    FARO_LOCKED;
    return split_begin("MPI_File_write_all_begin", "MPI_File_write_all", fh, SPLIT_FP, 0,
                       (void *)buf, count, type, 1);
}

#pragma weak MPI_File_read_ordered_begin = PMPI_File_read_ordered_begin
int PMPI_File_read_ordered_begin(MPI_File fh, void *buf, int count, MPI_Datatype type)
{
    FARO_LOCKED;
    return split_begin("MPI_File_read_ordered_begin", "MPI_File_read_ordered", fh,
                       SPLIT_ORDERED, 0, buf, count, type, 0);
}

#pragma weak MPI_File_write_ordered_begin = PMPI_File_write_ordered_begin
int PMPI_File_write_ordered_begin(MPI_File fh, const void *buf, int count, MPI_Datatype type)
{
    FARO_LOCKED;
    return split_begin("MPI_File_write_ordered_begin", "MPI_File_write_ordered", fh,
                       SPLIT_ORDERED, 0, (void *)buf, count, type, 1);
}
