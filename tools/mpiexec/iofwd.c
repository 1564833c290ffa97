/*
 * Output forwarding. Each rank writes into its own pipes; mpiexec is the only
 * writer of its own stdout and stderr and writes whole lines only, so lines of
 * different ranks never mix. A line longer than the buffer is written in
 * pieces, and a last line without a newline is written at end of file.
 */
#include "config.h"

#include "mpiexec.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Reads per wakeup, so one chatty rank cannot starve the others. */
#define IO_READS_PER_WAKEUP 4

void mpx_stream_init(struct mpx_stream *s, int fd, int dest, int rank)
{
    s->fd = fd;
    s->dest = dest;
    s->rank = rank;
    s->midline = 0;
    s->len = 0;
}

/* Our stdout may be a closed pipe (mpiexec ... | head); output is then dropped. */
static void io_write(int fd, const char *p, size_t n)
{
    (void)faro_pmi_write_all(fd, p, n);
}

/* Write buf[0, n): complete lines, or one piece of an overlong/final line. */
static void io_emit(struct mpx_stream *s, size_t n, int tag)
{
    const char *p = s->buf, *end = s->buf + n;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *stop = nl ? nl + 1 : end;
        if (tag && !s->midline) {
            char pre[16];
            int plen = snprintf(pre, sizeof pre, "[%d] ", s->rank);
            io_write(s->dest, pre, (size_t)plen);
        }
        io_write(s->dest, p, (size_t)(stop - p));
        s->midline = !nl;
        p = stop;
    }
}

static void io_flush_lines(struct mpx_stream *s, int tag)
{
    char *last = NULL;
    for (char *q = s->buf + s->len; q > s->buf; q--)
        if (q[-1] == '\n') {
            last = q;
            break;
        }
    if (!last) {
        if (s->len == sizeof s->buf) { /* a line longer than the buffer */
            io_emit(s, s->len, tag);
            s->len = 0;
        }
        return;
    }
    size_t n = (size_t)(last - s->buf);
    io_emit(s, n, tag);
    memmove(s->buf, last, s->len - n);
    s->len -= n;
}

void mpx_stream_close(struct mpx_stream *s, int tag)
{
    if (s->len > 0) {
        io_emit(s, s->len, tag);
        /* Tagged output stays one rank per line even when the rank forgot '\n'. */
        if (tag && s->midline)
            io_write(s->dest, "\n", 1);
        s->len = 0;
    }
    close(s->fd);
    s->fd = -1;
}

void mpx_stream_read(struct mpx_stream *s, int tag, int all)
{
    for (int i = 0; (all || i < IO_READS_PER_WAKEUP) && s->fd >= 0; i++) {
        ssize_t n = read(s->fd, s->buf + s->len, sizeof s->buf - s->len);
        if (n > 0) {
            s->len += (size_t)n;
            io_flush_lines(s, tag);
        } else if (n == 0 || (errno != EINTR && errno != EAGAIN && errno != EWOULDBLOCK)) {
            mpx_stream_close(s, tag);
        } else if (errno != EINTR) {
            return;
        }
    }
}
