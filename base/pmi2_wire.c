/* PMI-2 wire protocol codec; the format is described in pmi2_wire.h. */
#include "config.h"

#include "base/pmi2_wire.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Append len bytes of s at *pos, doubling ';' when escape is set. */
static int p2w_append(char *buf, size_t buflen, size_t *pos, const char *s, int escape)
{
    for (; *s; s++) {
        size_t need = escape && *s == ';' ? 2 : 1;
        if (*pos + need >= buflen)
            return -1;
        if (need == 2)
            buf[(*pos)++] = ';';
        buf[(*pos)++] = *s;
    }
    return 0;
}

/* "key=value;", a ';' in the value doubled. */
static int p2w_put_pair(char *buf, size_t buflen, size_t *pos, const char *key, const char *val)
{
    return p2w_append(buf, buflen, pos, key, 0) || p2w_append(buf, buflen, pos, "=", 0) ||
           p2w_append(buf, buflen, pos, val, 1) || p2w_append(buf, buflen, pos, ";", 0) ? -1 : 0;
}

int faro_pmi2_format(char *buf, size_t buflen, const char *cmd, ...)
{
    if (buflen > FARO_PMI_LINE_MAX)
        buflen = FARO_PMI_LINE_MAX;
    size_t pos = FARO_PMI2_HDR_LEN;
    if (!cmd || !*cmd || buflen <= pos || strpbrk(cmd, ";") ||
        p2w_append(buf, buflen, &pos, "cmd=", 0) || p2w_append(buf, buflen, &pos, cmd, 0) ||
        p2w_append(buf, buflen, &pos, ";", 0))
        return -1;
    va_list ap;
    va_start(ap, cmd);
    int rc = faro_pmi_format_pairs(buf, buflen, &pos, ap, "=;", p2w_put_pair);
    va_end(ap);
    if (rc)
        return -1;
    char hdr[FARO_PMI2_HDR_LEN + 1];
    snprintf(hdr, sizeof hdr, "%-6zu", pos - FARO_PMI2_HDR_LEN);
    memcpy(buf, hdr, FARO_PMI2_HDR_LEN);
    buf[pos] = 0;
    return (int)pos;
}

int faro_pmi2_format_array(char **out, const char *cmd, char *const *kv)
{
    size_t cap = FARO_PMI2_HDR_LEN + 6 + strlen(cmd), pos = FARO_PMI2_HDR_LEN;
    for (size_t i = 0; kv[i]; i += 2) {
        if (!kv[i + 1] || !*kv[i] || strpbrk(kv[i], "=;") ||
            strlen(kv[i + 1]) > FARO_PMI_VAL_MAX)
            return -1;
        cap += strlen(kv[i]) + 2 * strlen(kv[i + 1]) + 2; /* every ';' doubled at worst */
    }
    char *buf = malloc(cap + 1);
    if (!buf || !*cmd || strpbrk(cmd, ";") || p2w_append(buf, cap, &pos, "cmd=", 0) ||
        p2w_append(buf, cap, &pos, cmd, 0) || p2w_append(buf, cap, &pos, ";", 0))
        return free(buf), -1;
    for (size_t i = 0; kv[i]; i += 2)
        if (p2w_put_pair(buf, cap, &pos, kv[i], kv[i + 1]))
            return free(buf), -1;
    if (pos - FARO_PMI2_HDR_LEN > 999999)
        return free(buf), -1;
    char hdr[FARO_PMI2_HDR_LEN + 1];
    snprintf(hdr, sizeof hdr, "%-6zu", pos - FARO_PMI2_HDR_LEN);
    memcpy(buf, hdr, FARO_PMI2_HDR_LEN);
    buf[pos] = 0;
    *out = buf;
    return (int)pos;
}

int faro_pmi2_header(const char hdr[FARO_PMI2_HDR_LEN], size_t *len, char *err, size_t errlen)
{
    size_t v = 0;
    int digits = 0, after = 0;
    for (int i = 0; i < FARO_PMI2_HDR_LEN; i++) {
        char c = hdr[i];
        if (c >= '0' && c <= '9' && !after) {
            v = v * 10 + (size_t)(c - '0');
            digits++;
        } else if (c == ' ') {
            after = digits > 0;
        } else {
            digits = 0;
            break;
        }
    }
    if (digits == 0 || v == 0 || v >= FARO_PMI_LINE_MAX) {
        snprintf(err, errlen, "PMI-2 length field '%.6s' is not a length of 1..%d bytes (is "
                 "the process manager speaking PMI-2?)", hdr, FARO_PMI_LINE_MAX - 1);
        return -1;
    }
    *len = v;
    return 0;
}

int faro_pmi2_parse(const char *body, size_t len, struct faro_pmi_msg *msg, char *err,
                    size_t errlen)
{
    if (faro_pmi_msg_load(msg, body, len, "PMI-2 message", err, errlen) < 0)
        return -1;
    char *p = msg->buf;
    while (*p) {
        char *key = p;
        while (*p && *p != '=' && *p != ';')
            p++;
        if (*p != '=') {
            snprintf(err, errlen, "PMI-2 pair '%.*s' has no '=' (expected key=value;)",
                     (int)(p - key > 64 ? 64 : p - key), key);
            return -1;
        }
        *p++ = 0;
        /* The value runs to the first ';' that is not doubled, or the end. */
        char *val = p, *w = p;
        while (*p && !(p[0] == ';' && p[1] != ';')) {
            if (p[0] == ';') /* ";;" is one ';' */
                p++;
            *w++ = *p++;
        }
        if (*p)
            p++;
        *w = 0;
        if (faro_pmi_msg_add(msg, key, val, (size_t)(w - val), "PMI-2 message", err,
                             errlen) < 0)
            return -1;
    }
    return faro_pmi_msg_done(msg, "PMI-2 message", err, errlen);
}

/* Read exactly len bytes; 0, or -1 with errno (0 for an end of file). */
static int p2w_read_all(int fd, char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = read(fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = 0;
            return -1;
        }
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

static int p2w_read_failed(const char *where, char *err, size_t errlen)
{
    if (errno)
        snprintf(err, errlen, "reading the PMI-2 connection: %s", strerror(errno));
    else
        snprintf(err, errlen, "the process manager closed the PMI-2 connection%s", where);
    return -1;
}

int faro_pmi2_read(int fd, struct faro_pmi_msg *msg, char *err, size_t errlen)
{
    char hdr[FARO_PMI2_HDR_LEN], body[FARO_PMI_LINE_MAX];
    size_t len;
    if (p2w_read_all(fd, hdr, sizeof hdr) < 0)
        return p2w_read_failed("", err, errlen);
    if (faro_pmi2_header(hdr, &len, err, errlen) < 0)
        return -1;
    if (p2w_read_all(fd, body, len) < 0)
        return p2w_read_failed(" in the middle of a message", err, errlen);
    return faro_pmi2_parse(body, len, msg, err, errlen);
}
