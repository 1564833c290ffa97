/*
 * Output forwarding. Each rank writes into its own pipes; its node cuts what
 * arrives into whole lines (a line longer than the buffer goes in pieces, a
 * last line without a newline at end of file), puts the tag in front of each
 * line, and passes them on: mpiexec queues them for its own stdout or
 * stderr, a proxy sends them up the tree in OUTPUT messages of whole lines.
 * mpiexec is the only writer of its stdout and stderr and writes what it
 * queued in order, so lines of different ranks never mix.
 *
 * A rank's stream may also go to a file on its own host (-outfile-pattern,
 * -errfile-pattern, --output-filename): the raw bytes, untagged, as the rank
 * wrote them; lines go on to mpiexec too only with --output-filename
 * (without :nocopy).
 *
 * mpiexec writes without blocking: to a pipe, a socket or a terminal only
 * when poll() says there is room, at most PIPE_BUF bytes at a time (which
 * the kernel then takes whole); to a file at once. Output to a closed pipe
 * (mpiexec ... | head) is dropped.
 */
#include "config.h"

#include "mpiexec.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Reads per wakeup, so one chatty rank cannot starve the others. */
#define IO_READS_PER_WAKEUP 4
#define IO_CHUNK (64 * 1024)

/* pattern with %r the rank, %h its host, %% a percent sign: a line's tag,
 * or the name of an output file. */
static void io_expand(const struct mpx_job *job, const char *pattern, int rank, char *out,
                      size_t len)
{
    char host[256];
    if (job->hostname)
        snprintf(host, sizeof host, "%s", job->hostname[job->host_of[rank]]);
    else if (gethostname(host, sizeof host))
        snprintf(host, sizeof host, "localhost");
    host[sizeof host - 1] = 0;
    size_t o = 0;
    out[0] = 0;
    for (const char *p = pattern; p && *p && o + 1 < len; p++) {
        if (p[0] == '%' && (p[1] == 'r' || p[1] == 'h' || p[1] == '%')) {
            if (p[1] == 'r')
                o += (size_t)snprintf(out + o, len - o, "%d", rank);
            else if (p[1] == 'h')
                o += (size_t)snprintf(out + o, len - o, "%s", host);
            else
                out[o++] = '%';
            p++;
        } else {
            out[o++] = *p;
        }
        if (o >= len)
            o = len - 1;
        out[o] = 0;
    }
}

void mpx_stream_init(struct mpx_job *job, struct mpx_stream *s, int fd, int dest, int rank)
{
    s->fd = fd;
    s->dest = dest;
    s->rank = rank;
    s->midline = 0;
    s->len = 0;
    io_expand(job, job->tag, rank, s->prefix, sizeof s->prefix);
    s->plen = strlen(s->prefix);
}

/* mkdir -p of path's directories (not of its last part). */
static int io_mkdirs(char *path)
{
    for (char *p = path + 1; (p = strchr(p, '/')); p++) {
        *p = 0;
        int rc = mkdir(path, 0755);
        *p = '/';
        if (rc < 0 && errno != EEXIST)
            return -1;
    }
    return 0;
}

int mpx_stream_files(struct mpx_job *job, struct mpx_rank *r, char *err, size_t errlen)
{
    const struct mpx_opts *o = &job->opts;
    struct mpx_stream *st[2] = { &r->out, &r->err };
    const char *pattern[2] = { o->outfile_pattern, o->errfile_pattern };
    for (int i = 0; i < 2; i++) {
        char path[PATH_MAX];
        st[i]->file_fd = -1;
        st[i]->forward = 1;
        if (o->output_dir) {
            snprintf(path, sizeof path, "%s/1/rank.%d/%s", o->output_dir, r->rank,
                     i ? "stderr" : "stdout");
            st[i]->forward = o->output_copy;
        } else if (pattern[i]) {
            io_expand(job, pattern[i], r->rank, path, sizeof path);
            st[i]->forward = 0;
        } else {
            continue;
        }
        if ((o->output_dir && io_mkdirs(path) < 0) ||
            (st[i]->file_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) < 0) {
            snprintf(err, errlen, "cannot write rank %d's %s to %s: %s", r->rank,
                     i ? "stderr" : "stdout", path, strerror(errno));
            return -1;
        }
    }
    return 0;
}

/* Pass buf[0, n) on: complete lines, or one piece of an overlong/final line,
 * each behind its tag, in chunks of whole lines. */
static void io_emit(struct mpx_job *job, struct mpx_stream *s, size_t n)
{
    static char chunk[IO_CHUNK + sizeof s->prefix + 32];
    char tag[sizeof s->prefix + 32];
    size_t used = 0, tlen = 0;
    if (job->opts.timestamp) { /* when the node read the lines */
        struct timespec ts;
        struct tm tm;
        clock_gettime(CLOCK_REALTIME, &ts);
        localtime_r(&ts.tv_sec, &tm);
        tlen = strftime(tag, sizeof tag, "[%Y-%m-%d %H:%M:%S", &tm);
        tlen += (size_t)snprintf(tag + tlen, sizeof tag - tlen, ".%03ld] ",
                                 ts.tv_nsec / 1000000);
    }
    memcpy(tag + tlen, s->prefix, s->plen);
    tlen += s->plen;
    const char *p = s->buf, *end = s->buf + n;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *stop = nl ? nl + 1 : end;
        size_t len = (size_t)(stop - p), pre = s->midline ? 0 : tlen;
        if (used && used + pre + len > IO_CHUNK) {
            mpx_output(job, s->dest, chunk, used);
            used = 0;
        }
        if (pre + len > IO_CHUNK) { /* a piece as long as the buffer: on its own */
            mpx_output(job, s->dest, tag, pre);
            mpx_output(job, s->dest, p, len);
        } else {
            memcpy(chunk + used, tag, pre);
            memcpy(chunk + used + pre, p, len);
            used += pre + len;
        }
        s->midline = !nl;
        p = stop;
    }
    if (used)
        mpx_output(job, s->dest, chunk, used);
}

static void io_flush_lines(struct mpx_job *job, struct mpx_stream *s)
{
    char *last = NULL;
    for (char *q = s->buf + s->len; q > s->buf; q--)
        if (q[-1] == '\n') {
            last = q;
            break;
        }
    if (!last) {
        if (s->len == sizeof s->buf) { /* a line longer than the buffer */
            io_emit(job, s, s->len);
            s->len = 0;
        }
        return;
    }
    size_t n = (size_t)(last - s->buf);
    io_emit(job, s, n);
    memmove(s->buf, last, s->len - n);
    s->len -= n;
}

void mpx_stream_close(struct mpx_job *job, struct mpx_stream *s)
{
    if (s->len > 0) {
        io_emit(job, s, s->len);
        /* Tagged output stays one rank per line even when the rank forgot '\n'. */
        if (s->plen && s->midline)
            mpx_output(job, s->dest, "\n", 1);
        s->len = 0;
    }
    close(s->fd);
    s->fd = -1;
    if (s->file_fd >= 0)
        close(s->file_fd);
    s->file_fd = -1;
}

/* The raw bytes into the stream's file; a full disk loses the rest of it
 * (said once), never the job. */
static void io_to_file(struct mpx_job *job, struct mpx_stream *s, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(s->file_fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            char msg[200];
            int len = snprintf(msg, sizeof msg, "mpiexec: rank %d: writing its %s to its "
                               "output file failed: %s; the rest goes to %s\n", s->rank,
                               s->dest == 1 ? "stdout" : "stderr", strerror(errno),
                               s->dest == 1 ? "mpiexec's stdout" : "mpiexec's stderr");
            mpx_output(job, 2, msg, (size_t)len);
            close(s->file_fd);
            s->file_fd = -1;
            s->forward = 1;
            return;
        }
        p += w;
        n -= (size_t)w;
    }
}

void mpx_stream_read(struct mpx_job *job, struct mpx_stream *s, int all)
{
    for (int i = 0; (all || i < IO_READS_PER_WAKEUP) && s->fd >= 0; i++) {
        ssize_t n = read(s->fd, s->buf + s->len, sizeof s->buf - s->len);
        if (n > 0) {
            if (s->file_fd >= 0)
                io_to_file(job, s, s->buf + s->len, (size_t)n);
            if (!s->forward)
                continue;
            s->len += (size_t)n;
            io_flush_lines(job, s);
        } else if (n == 0 || (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)) {
            mpx_stream_close(job, s);
        } else if (errno != EINTR) {
            return;
        }
    }
}

/* ---- mpiexec's own stdout and stderr ---- */

/* Can a write to fd block (a pipe, a socket, a terminal)? */
static int io_may_block(struct mpx_job *job, int dest)
{
    if (!job->out_kind[dest]) {
        struct stat st;
        int careful = fstat(dest, &st) < 0 || S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode) ||
                      isatty(dest);
        job->out_kind[dest] = careful ? 2 : 1;
    }
    return job->out_kind[dest] == 2;
}

void mpx_output_flush(struct mpx_job *job, int dest)
{
    struct mpx_buf *q = &job->outq[dest];
    size_t *off = &job->outq_off[dest];
    int careful = io_may_block(job, dest);
    while (*off < q->len) {
        size_t n = q->len - *off;
        if (careful) {
            struct pollfd p = { .fd = dest, .events = POLLOUT };
            if (poll(&p, 1, 0) <= 0)
                break;
            if (p.revents & (POLLERR | POLLHUP)) {
                *off = q->len; /* nobody reads it any more: drop */
                break;
            }
            if (n > PIPE_BUF)
                n = PIPE_BUF;
        }
        ssize_t w = write(dest, q->p + *off, n);
        if (w > 0)
            *off += (size_t)w;
        else if (w < 0 && errno == EINTR)
            continue;
        else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        else
            *off = q->len; /* a closed pipe (| head): drop */
    }
    if (*off == q->len)
        q->len = *off = 0;
}

size_t mpx_output_queued(const struct mpx_job *job, int dest)
{
    return job->outq[dest].len - job->outq_off[dest];
}

size_t mpx_output_pending(const struct mpx_job *job)
{
    return mpx_output_queued(job, 1) + mpx_output_queued(job, 2);
}

void mpx_output(struct mpx_job *job, int dest, const char *p, size_t n)
{
    if (!job->is_root) {
        uint32_t d = htonl((uint32_t)dest);
        mpx_conn_send(job->parent, MPX_MSG_OUTPUT, &d, 4, p, n);
        return;
    }
    if (n == 0)
        return;
    if (dest == 2)
        mpx_hang_feed(job, p, n);
    /* stderr and stdout keep their own order; mpiexec's own messages go
     * straight to stderr, so flush what is queued there first. */
    mpx_buf_put(&job->outq[dest], p, n);
    mpx_output_flush(job, dest);
}

void mpx_output_drain(struct mpx_job *job, int ms)
{
    long long until = mpx_now_ms() + ms;
    for (int dest = 1; dest <= 2; dest++)
        while (mpx_output_queued(job, dest) && mpx_now_ms() < until) {
            struct pollfd p = { .fd = dest, .events = POLLOUT };
            poll(&p, 1, (int)(until - mpx_now_ms()));
            mpx_output_flush(job, dest);
        }
}
