/* PMI-1 simple wire protocol codec; the format is described in pmi_wire.h. */
#include "config.h"

#include "base/pmi_wire.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int pw_hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int pw_needs_escape(char c)
{
    return c == ' ' || c == '\n' || c == '\t' || c == '%' || c == '\r';
}

/* Decode %XX in place; a '%' not followed by two hex digits stays literal, so
 * values from peers that never escape come through unchanged. */
static size_t pw_unescape(char *s)
{
    char *w = s;
    for (const char *r = s; *r; r++) {
        int hi, lo;
        if (r[0] == '%' && (hi = pw_hexval(r[1])) >= 0 && (lo = pw_hexval(r[2])) >= 0) {
            *w++ = (char)(hi << 4 | lo);
            r += 2;
        } else {
            *w++ = *r;
        }
    }
    *w = 0;
    return (size_t)(w - s);
}

int faro_pmi_msg_load(struct faro_pmi_msg *msg, const char *text, size_t len, const char *what,
                      char *err, size_t errlen)
{
    msg->npairs = 0;
    if (len >= sizeof msg->buf) {
        snprintf(err, errlen, "%s of %zu bytes is longer than the limit of %d", what, len,
                 FARO_PMI_LINE_MAX - 1);
        return -1;
    }
    if (memchr(text, 0, len)) {
        snprintf(err, errlen, "%s contains a NUL byte", what);
        return -1;
    }
    memcpy(msg->buf, text, len);
    msg->buf[len] = 0;
    return 0;
}

int faro_pmi_msg_add(struct faro_pmi_msg *msg, const char *key, const char *val, size_t vlen,
                     const char *what, char *err, size_t errlen)
{
    size_t klen = strlen(key);
    if (klen == 0) {
        snprintf(err, errlen, "%s has a pair with an empty key (=%.64s)", what, val);
        return -1;
    }
    if (klen > FARO_PMI_KEY_MAX) {
        snprintf(err, errlen, "%s: key '%.32s...' is %zu bytes, the limit is %d", what, key,
                 klen, FARO_PMI_KEY_MAX);
        return -1;
    }
    if (vlen > FARO_PMI_VAL_MAX) {
        snprintf(err, errlen, "%s: value of key '%.64s' is %zu bytes, the limit is %d", what,
                 key, vlen, FARO_PMI_VAL_MAX);
        return -1;
    }
    if (msg->npairs == FARO_PMI_PAIRS_MAX) {
        snprintf(err, errlen, "%s has more than %d key=value pairs", what, FARO_PMI_PAIRS_MAX);
        return -1;
    }
    msg->pair[msg->npairs].key = key;
    msg->pair[msg->npairs].val = val;
    msg->npairs++;
    return 0;
}

int faro_pmi_msg_done(struct faro_pmi_msg *msg, const char *what, char *err, size_t errlen)
{
    if (msg->npairs == 0) {
        snprintf(err, errlen, "empty %s (expected cmd=NAME ...)", what);
        return -1;
    }
    if (strcmp(msg->pair[0].key, "cmd") != 0 || !msg->pair[0].val[0]) {
        snprintf(err, errlen, "%s starts with '%.64s=' instead of cmd=NAME", what,
                 msg->pair[0].key);
        msg->npairs = 0;
        return -1;
    }
    return 0;
}

int faro_pmi_parse(const char *line, size_t len, struct faro_pmi_msg *msg, char *err,
                   size_t errlen)
{
    if (len > 0 && line[len - 1] == '\n')
        len--;
    if (len > 0 && line[len - 1] == '\r')
        len--;
    if (faro_pmi_msg_load(msg, line, len, "PMI line", err, errlen) < 0)
        return -1;
    char *p = msg->buf;
    for (;;) {
        while (*p == ' ' || *p == '\t')
            p++;
        if (!*p)
            break;
        char *tok = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
        if (*p)
            *p++ = 0;
        char *eq = strchr(tok, '=');
        if (!eq) {
            snprintf(err, errlen, "PMI pair '%.64s' has no '=' (expected key=value)", tok);
            return -1;
        }
        *eq = 0;
        if (faro_pmi_msg_add(msg, tok, eq + 1, pw_unescape(eq + 1), "PMI line", err,
                             errlen) < 0)
            return -1;
    }
    return faro_pmi_msg_done(msg, "PMI line", err, errlen);
}

const char *faro_pmi_msg_get(const struct faro_pmi_msg *msg, const char *key)
{
    for (int i = 0; i < msg->npairs; i++)
        if (strcmp(msg->pair[i].key, key) == 0)
            return msg->pair[i].val;
    return NULL;
}

const char *faro_pmi_msg_cmd(const struct faro_pmi_msg *msg)
{
    return msg->npairs > 0 ? msg->pair[0].val : "";
}

int faro_pmi_msg_int(const struct faro_pmi_msg *msg, const char *key, int *out)
{
    const char *v = faro_pmi_msg_get(msg, key);
    if (!v || !*v)
        return -1;
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (*end || errno || x < INT_MIN || x > INT_MAX)
        return -1;
    *out = (int)x;
    return 0;
}

/* Append s to buf at *pos, escaping when asked; -1 when it does not fit. */
static int pw_append(char *buf, size_t buflen, size_t *pos, const char *s, int escape)
{
    static const char hex[] = "0123456789ABCDEF";
    for (; *s; s++) {
        size_t need = escape && pw_needs_escape(*s) ? 3 : 1;
        if (*pos + need >= buflen)
            return -1;
        if (need == 3) {
            buf[(*pos)++] = '%';
            buf[(*pos)++] = hex[(unsigned char)*s >> 4];
            buf[(*pos)++] = hex[(unsigned char)*s & 15];
        } else {
            buf[(*pos)++] = *s;
        }
    }
    return 0;
}

int faro_pmi_format_pairs(char *buf, size_t buflen, size_t *pos, va_list ap,
                          const char *bad_key_chars, faro_pmi_put_pair_fn put)
{
    int npairs = 1;
    const char *key;
    while ((key = va_arg(ap, const char *)) != NULL) {
        const char *val = va_arg(ap, const char *);
        size_t klen = strlen(key);
        if (!val || klen == 0 || klen > FARO_PMI_KEY_MAX || strlen(val) > FARO_PMI_VAL_MAX ||
            strpbrk(key, bad_key_chars) || ++npairs > FARO_PMI_PAIRS_MAX ||
            put(buf, buflen, pos, key, val) < 0)
            return -1;
    }
    return 0;
}

/* " key=value", the value escaped. */
static int pw_put_pair(char *buf, size_t buflen, size_t *pos, const char *key, const char *val)
{
    return pw_append(buf, buflen, pos, " ", 0) || pw_append(buf, buflen, pos, key, 0) ||
           pw_append(buf, buflen, pos, "=", 0) || pw_append(buf, buflen, pos, val, 1) ? -1 : 0;
}

int faro_pmi_format(char *buf, size_t buflen, const char *cmd, ...)
{
    size_t pos = 0;
    if (buflen > FARO_PMI_LINE_MAX)
        buflen = FARO_PMI_LINE_MAX;
    if (!cmd || !*cmd || pw_append(buf, buflen, &pos, "cmd=", 0) ||
        pw_append(buf, buflen, &pos, cmd, 1))
        return -1;
    va_list ap;
    va_start(ap, cmd);
    int rc = faro_pmi_format_pairs(buf, buflen, &pos, ap, " =\n\t%", pw_put_pair);
    va_end(ap);
    if (rc || pos + 2 > buflen)
        return -1;
    buf[pos++] = '\n';
    buf[pos] = 0;
    return (int)pos;
}

int faro_pmi_write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

void faro_pmi_reader_init(struct faro_pmi_reader *r, int fd)
{
    r->fd = fd;
    r->start = r->len = 0;
}

/* Hand out the next buffered line, if there is one. */
static int pw_take_line(struct faro_pmi_reader *r, char **line, size_t *len)
{
    char *s = r->buf + r->start;
    char *nl = memchr(s, '\n', r->len - r->start);
    if (!nl)
        return 0;
    *nl = 0;
    *line = s;
    *len = (size_t)(nl - s);
    r->start = (size_t)(nl + 1 - r->buf);
    return 1;
}

enum faro_pmi_read_status faro_pmi_reader_next(struct faro_pmi_reader *r, char **line,
                                               size_t *len, char *err, size_t errlen)
{
    for (;;) {
        if (pw_take_line(r, line, len))
            return FARO_PMI_READ_LINE;
        /* Move the partial line to the front so a whole line always fits. */
        if (r->start > 0) {
            memmove(r->buf, r->buf + r->start, r->len - r->start);
            r->len -= r->start;
            r->start = 0;
        }
        if (r->len == sizeof r->buf) {
            snprintf(err, errlen, "PMI line longer than %d bytes without a newline",
                     FARO_PMI_LINE_MAX);
            return FARO_PMI_READ_ERROR;
        }
        ssize_t n = read(r->fd, r->buf + r->len, sizeof r->buf - r->len);
        if (n > 0) {
            r->len += (size_t)n;
            continue;
        }
        if (n == 0) {
            if (r->len == 0)
                return FARO_PMI_READ_EOF;
            snprintf(err, errlen, "PMI connection closed in the middle of a line");
            return FARO_PMI_READ_ERROR;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return FARO_PMI_READ_AGAIN;
        snprintf(err, errlen, "reading the PMI connection: %s", strerror(errno));
        return FARO_PMI_READ_ERROR;
    }
}
