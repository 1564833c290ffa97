/*
 * PMI-2 wire protocol: the codec of the PMI-2 client (pmi2.c).
 *
 * A message is a 6-byte decimal length (space-padded: Slurm writes it
 * left-aligned, Hydra right-aligned) and then that many bytes of
 * semicolon-terminated key=value pairs, the first of which is cmd=NAME:
 *
 *     36    cmd=kvs-put;key=faro-key;value=7f01;
 *     27    cmd=kvs-put-response;rc=0;
 *
 * A ';' inside a value travels doubled (";;"), as MPICH's client writes it;
 * nothing else is escaped, since the length frames the message. A session
 * starts in PMI-1 form ("cmd=init pmi_version=2 pmi_subversion=0\n", answered
 * by a PMI-1 line: pmi_wire.h) and switches to this form for everything
 * after, starting with cmd=fullinit.
 *
 * Messages parse into the PMI-1 codec's struct faro_pmi_msg, so readers use
 * the same faro_pmi_msg_get/int/cmd on either; keys and values have the same
 * limits.
 */
#ifndef FARO_PMI2_WIRE_H
#define FARO_PMI2_WIRE_H

#include "base/pmi_wire.h"

#include <stddef.h>

#define FARO_PMI2_HDR_LEN 6 /* bytes of the length field */

/* Format the whole message (length field included) from NULL-terminated key,
 * value arguments (all const char *). Returns its length, or -1 when it does
 * not fit in buflen or FARO_PMI_LINE_MAX, or a key is empty, too long or has
 * '=' or ';', or a value is too long. */
int faro_pmi2_format(char *buf, size_t buflen, const char *cmd, ...)
    __attribute__((sentinel));

/* The same for a message of any number of pairs (kv: key, value, ...
 * NULL), which may pass FARO_PMI_LINE_MAX (the spawn command): the message
 * is malloc'ed in *out. Returns its length; -1 when a key is empty or has
 * '=' or ';', a value is longer than FARO_PMI_VAL_MAX, the message passes
 * what the length field can say, or memory ran out. */
int faro_pmi2_format_array(char **out, const char *cmd, char *const *kv);

/* The body length a 6-byte length field announces. Returns 0, or -1 with a
 * reason in err (not a number, zero, longer than a message may be). */
int faro_pmi2_header(const char hdr[FARO_PMI2_HDR_LEN], size_t *len, char *err, size_t errlen);

/* Parse one message body (without its length field). Returns 0, or -1 with a
 * reason in err (pair without '=', empty or too long key, value too long, too
 * many pairs, first key not cmd, a NUL byte). */
int faro_pmi2_parse(const char *body, size_t len, struct faro_pmi_msg *msg, char *err,
                    size_t errlen);

/* Read one whole message from a blocking fd and parse it. Returns 0; -1 with
 * a reason in err (err says "closed" when the manager closed the connection
 * at a message boundary). */
int faro_pmi2_read(int fd, struct faro_pmi_msg *msg, char *err, size_t errlen);

#endif
