/*
 * PMI-1 "simple" wire protocol: the codec shared by the client (pmi.c) and the
 * launcher's server (tools/mpiexec).
 *
 * A message is one line of space-separated key=value pairs, the first of which
 * is cmd=NAME:
 *
 *     cmd=put kvsname=faro-123-0a1b2c3d key=addr-0 value=7f0001...\n
 *     cmd=put_result rc=0 msg=success\n
 *
 * A value runs from the first '=' of its pair to the next space, so a value may
 * contain '='. Space, newline, tab and '%' inside a value travel as %20, %0A,
 * %09 and %25: the format side escapes them and the parse side turns any %XX
 * back into its byte (MPICH's Hydra stores and returns values verbatim, so the
 * escaping survives a round trip through it). Nothing else is escaped, so
 * messages stay byte-compatible with other PMI-1 peers for ordinary values.
 *
 * Peers may send keys we do not know (Hydra adds msg= and value= to replies);
 * readers look up the keys they need and ignore the rest.
 */
#ifndef FARO_PMI_WIRE_H
#define FARO_PMI_WIRE_H

#include <stdarg.h>
#include <stddef.h>

#define FARO_PMI_LINE_MAX 4096 /* bytes in one line, newline included */
#define FARO_PMI_PAIRS_MAX 16  /* key=value pairs in one message */
#define FARO_PMI_KEY_MAX 256   /* bytes in a key (without the NUL) */
#define FARO_PMI_VAL_MAX 1024  /* bytes in a decoded value (without the NUL) */

struct faro_pmi_pair {
    const char *key, *val; /* point into the message's own buffer */
};

struct faro_pmi_msg {
    int npairs;
    struct faro_pmi_pair pair[FARO_PMI_PAIRS_MAX];
    char buf[FARO_PMI_LINE_MAX];
};

/* Parse one line (with or without its trailing newline). Returns 0, or -1 with
 * a one-line reason in err (empty line, pair without '=', empty key, key or
 * value too long, too many pairs, first key not cmd). */
int faro_pmi_parse(const char *line, size_t len, struct faro_pmi_msg *msg, char *err,
                   size_t errlen);

/* The steps of a parser, shared by the PMI-1 and PMI-2 codecs; what names the
 * unit in messages ("PMI line"). Copy the text into msg->buf (not too long,
 * no NUL); add one pair (pointers into msg->buf; key not empty, key and value
 * within the limits, not too many pairs); check that there are pairs and the
 * first is cmd=NAME. Each returns 0, or -1 with a reason in err. */
int faro_pmi_msg_load(struct faro_pmi_msg *msg, const char *text, size_t len, const char *what,
                      char *err, size_t errlen);
int faro_pmi_msg_add(struct faro_pmi_msg *msg, const char *key, const char *val, size_t vlen,
                     const char *what, char *err, size_t errlen);
int faro_pmi_msg_done(struct faro_pmi_msg *msg, const char *what, char *err, size_t errlen);

/* The value of key, or NULL when the message lacks it. */
const char *faro_pmi_msg_get(const struct faro_pmi_msg *msg, const char *key);
/* The command name (the value of the first pair, cmd). */
const char *faro_pmi_msg_cmd(const struct faro_pmi_msg *msg);
/* Parse the value of key as an int. Returns 0, or -1 when missing or not a number. */
int faro_pmi_msg_int(const struct faro_pmi_msg *msg, const char *key, int *out);

/* Format "cmd=CMD k1=v1 k2=v2...\n" from NULL-terminated key, value arguments
 * (all const char *). Returns the line length, or -1 when it does not fit in
 * buflen or a key or value breaks the limits above. */
int faro_pmi_format(char *buf, size_t buflen, const char *cmd, ...)
    __attribute__((sentinel));

/* The pairs of a format call, shared by the PMI-1 and PMI-2 codecs: checks
 * every key and value (key not empty, none of bad_key_chars, within the
 * limits, not too many pairs) and calls put to write each at *pos in the
 * codec's syntax (put returns -1 when the pair does not fit). */
typedef int (*faro_pmi_put_pair_fn)(char *buf, size_t buflen, size_t *pos, const char *key,
                                    const char *val);
int faro_pmi_format_pairs(char *buf, size_t buflen, size_t *pos, va_list ap,
                          const char *bad_key_chars, faro_pmi_put_pair_fn put);

/* Write all of buf to a blocking fd, retrying on EINTR. Returns 0 or -1 (errno). */
int faro_pmi_write_all(int fd, const char *buf, size_t len);

/*
 * Line reader over one fd, blocking or not. Lines are handed out one at a time,
 * NUL-terminated, without their newline, and stay valid until the next call.
 */
struct faro_pmi_reader {
    int fd;
    size_t start, len; /* unread bytes are buf[start, len) */
    char buf[FARO_PMI_LINE_MAX];
};

enum faro_pmi_read_status {
    FARO_PMI_READ_LINE = 1,    /* *line holds one line */
    FARO_PMI_READ_AGAIN = 0,   /* no complete line yet (non-blocking fd) */
    FARO_PMI_READ_EOF = -1,    /* peer closed at a line boundary */
    FARO_PMI_READ_ERROR = -2,  /* read error, overlong line or EOF mid-line; see err */
};

void faro_pmi_reader_init(struct faro_pmi_reader *r, int fd);
enum faro_pmi_read_status faro_pmi_reader_next(struct faro_pmi_reader *r, char **line,
                                               size_t *len, char *err, size_t errlen);

#endif
