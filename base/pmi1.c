/*
 * PMI-1 backend (pmi_backend.h): the "simple" wire protocol of pmi_wire.h.
 * One request, one response, in order, on the socket named by PMI_FD, or on
 * a TCP connection to PMI_PORT (Hydra's -pmi-port: host:port, with PMI_ID
 * naming the process; the manager then sends size and rank itself).
 * Responses are matched by their cmd and read by key, so the extra keys
 * other process managers add (Hydra's msg=, value=) do not matter.
 */
#include "config.h"

#include "base/pmi_backend.h"
#include "base/pmi_wire.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static struct {
    int fd;
    char kvsname[256];
    struct faro_pmi_reader reader;
} p1 = { .fd = -1 };

/* Send one request line. */
static int p1_send(const char *line, int len, char *err, size_t errlen)
{
    if (len < 0) {
        snprintf(err, errlen, "PMI request does not fit in a %d-byte line (key or value too "
                 "long?)", FARO_PMI_LINE_MAX);
        return -1;
    }
    if (faro_pmi_write_all(p1.fd, line, (size_t)len) < 0) {
        snprintf(err, errlen, "PMI: writing to the process manager on fd %d failed: %s",
                 p1.fd, strerror(errno));
        return -1;
    }
    return 0;
}

/* Read one message, whatever its cmd. */
static int p1_read(struct faro_pmi_msg *resp, char *err, size_t errlen)
{
    char *l;
    size_t n;
    char why[256];
    enum faro_pmi_read_status st = faro_pmi_reader_next(&p1.reader, &l, &n, why, sizeof why);
    if (st == FARO_PMI_READ_EOF) {
        snprintf(err, errlen, "PMI: the process manager closed the connection (was "
                 "mpiexec killed?)");
        return -1;
    }
    if (st != FARO_PMI_READ_LINE) {
        snprintf(err, errlen, "PMI: %s", why);
        return -1;
    }
    if (faro_pmi_parse(l, n, resp, why, sizeof why) < 0) {
        snprintf(err, errlen, "PMI: bad response from the process manager: %s", why);
        return -1;
    }
    return 0;
}

/* Read the response to the last request, which must have cmd=expect.
 * Returns 0; -1 when the exchange failed; -2 when the manager answered with a
 * nonzero rc (a missing key, say); -3 when it answered cmd=error (it does
 * not serve that command). err says why. */
static int p1_reply(const char *expect, struct faro_pmi_msg *resp, char *err, size_t errlen)
{
    if (p1_read(resp, err, errlen) < 0)
        return -1;
    if (strcmp(faro_pmi_msg_cmd(resp), expect) != 0) {
        const char *msg = faro_pmi_msg_get(resp, "msg");
        snprintf(err, errlen, "PMI: expected cmd=%s from the process manager, got cmd=%s%s%s",
                 expect, faro_pmi_msg_cmd(resp), msg ? ": " : "", msg ? msg : "");
        return strcmp(faro_pmi_msg_cmd(resp), "error") ? -1 : -3;
    }
    int rc = 0;
    if (faro_pmi_msg_get(resp, "rc") && (faro_pmi_msg_int(resp, "rc", &rc) < 0 || rc != 0)) {
        const char *msg = faro_pmi_msg_get(resp, "msg");
        if (!msg) /* Hydra's name service says why in info= */
            msg = faro_pmi_msg_get(resp, "info");
        snprintf(err, errlen, "PMI: %s failed (rc=%s): %s", expect, faro_pmi_msg_get(resp, "rc"),
                 msg ? msg : "no reason given");
        return -2;
    }
    return 0;
}

/* Send one request line and read its response (p1_reply). */
static int p1_call(const char *line, int len, const char *expect, struct faro_pmi_msg *resp,
                   char *err, size_t errlen)
{
    return p1_send(line, len, err, errlen) < 0 ? -1 : p1_reply(expect, resp, err, errlen);
}

/* PMI_PORT=host:port: connect, then "cmd=initack pmiid=ID"; the manager
 * answers initack and "cmd=set size=N", "cmd=set rank=R", "cmd=set debug=D". */
static int p1_connect_port(const char *hostport, struct faro_pmi_info *info, char *err,
                           size_t errlen)
{
    int id = 0;
    if (faro_pmi_env_int("PMI_ID", &id, err, errlen) <= 0) {
        if (!getenv("PMI_ID"))
            snprintf(err, errlen, "PMI_PORT=%s is set but PMI_ID is not; start the program "
                     "with mpiexec, or unset PMI_PORT to run it as a singleton", hostport);
        return -1;
    }
    const char *colon = strrchr(hostport, ':');
    if (!colon || colon == hostport || !colon[1]) {
        snprintf(err, errlen, "PMI_PORT='%s' is not HOST:PORT", hostport);
        return -1;
    }
    char host[256];
    snprintf(host, sizeof host, "%.*s", (int)(colon - hostport), hostport);
    struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res = NULL;
    int gai = getaddrinfo(host, colon + 1, &hints, &res);
    if (gai) {
        snprintf(err, errlen, "PMI_PORT=%s: cannot resolve %s: %s", hostport, host,
                 gai_strerror(gai));
        return -1;
    }
    int fd = -1, cerr = 0;
    for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
        fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
        if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) < 0) {
            cerr = errno;
            close(fd);
            fd = -1;
        }
    }
    freeaddrinfo(res);
    if (fd < 0) {
        snprintf(err, errlen, "PMI_PORT=%s: cannot connect to the process manager: %s",
                 hostport, strerror(cerr ? cerr : errno));
        return -1;
    }
    p1.fd = fd;
    faro_pmi_reader_init(&p1.reader, fd);
    char line[FARO_PMI_LINE_MAX], num[16];
    struct faro_pmi_msg m;
    snprintf(num, sizeof num, "%d", id);
    if (p1_call(line, faro_pmi_format(line, sizeof line, "initack", "pmiid", num, NULL),
                "initack", &m, err, errlen) < 0)
        return -1;
    int got = 0;
    while (got != 7) {
        if (p1_read(&m, err, errlen) < 0)
            return -1;
        int v;
        if (strcmp(faro_pmi_msg_cmd(&m), "set")) {
            snprintf(err, errlen, "PMI_PORT: expected cmd=set after initack, got cmd=%s",
                     faro_pmi_msg_cmd(&m));
            return -1;
        }
        if (faro_pmi_msg_int(&m, "size", &v) == 0)
            info->size = v, got |= 1;
        else if (faro_pmi_msg_int(&m, "rank", &v) == 0)
            info->rank = v, got |= 2;
        else if (faro_pmi_msg_get(&m, "debug"))
            got |= 4;
    }
    return 0;
}

static int p1_handshake(struct faro_pmi_info *info, char *err, size_t errlen)
{
    struct faro_pmi_msg m;
    char line[FARO_PMI_LINE_MAX];
    int v;

    if (p1_call(line, faro_pmi_format(line, sizeof line, "init", "pmi_version", "1",
                                      "pmi_subversion", "1", NULL),
                "response_to_init", &m, err, errlen) < 0)
        return -1;
    if (faro_pmi_msg_int(&m, "pmi_version", &v) == 0 && v != 1) {
        snprintf(err, errlen, "PMI: the process manager speaks PMI version %d, Faro needs 1", v);
        return -1;
    }

    if (p1_call(line, faro_pmi_format(line, sizeof line, "get_maxes", NULL), "maxes", &m,
                err, errlen) < 0)
        return -1;
    if (faro_pmi_msg_int(&m, "keylen_max", &info->key_max) < 0 ||
        faro_pmi_msg_int(&m, "vallen_max", &info->val_max) < 0) {
        snprintf(err, errlen, "PMI: maxes response lacks keylen_max or vallen_max");
        return -1;
    }

    if (p1_call(line, faro_pmi_format(line, sizeof line, "get_my_kvsname", NULL),
                "my_kvsname", &m, err, errlen) < 0)
        return -1;
    const char *kvs = faro_pmi_msg_get(&m, "kvsname");
    if (!kvs || !*kvs || strlen(kvs) >= sizeof info->kvsname) {
        snprintf(err, errlen, "PMI: my_kvsname response has a missing or too long kvsname");
        return -1;
    }
    strcpy(info->kvsname, kvs);
    strcpy(p1.kvsname, kvs);

    if (p1_call(line, faro_pmi_format(line, sizeof line, "get_appnum", NULL), "appnum", &m,
                err, errlen) < 0)
        return -1;
    if (faro_pmi_msg_int(&m, "appnum", &info->appnum) < 0)
        info->appnum = 0;
    return 0;
}

static int p1_init(struct faro_pmi_info *info, char *err, size_t errlen)
{
    int fd = -1;
    const char *port = getenv("PMI_PORT");
    int have_fd = faro_pmi_env_fd(&fd, err, errlen);
    if (have_fd < 0)
        return -1;
    if (have_fd) {
        if (faro_pmi_env_int("PMI_RANK", &info->rank, err, errlen) <= 0 ||
            faro_pmi_env_int("PMI_SIZE", &info->size, err, errlen) <= 0) {
            if (!getenv("PMI_RANK") || !getenv("PMI_SIZE"))
                snprintf(err, errlen, "PMI_FD is set but PMI_RANK or PMI_SIZE is not; start "
                         "the program with mpiexec, or unset PMI_FD to run it as a singleton");
            return -1;
        }
        p1.fd = fd;
        faro_pmi_reader_init(&p1.reader, fd);
    } else if (!port) {
        snprintf(err, errlen, "PMI-1 needs PMI_FD or PMI_PORT, and neither is set");
        return -1;
    } else if (p1_connect_port(port, info, err, errlen) < 0) {
        return -1;
    }
    if (info->size < 1 || info->rank >= info->size) {
        snprintf(err, errlen, "PMI rank %d and size %d are inconsistent (need "
                 "0 <= rank < size)", info->rank, info->size);
        return -1;
    }
    return p1_handshake(info, err, errlen);
}

static int p1_put(const char *key, const char *val, char *err, size_t errlen)
{
    char line[FARO_PMI_LINE_MAX];
    struct faro_pmi_msg m;
    return p1_call(line, faro_pmi_format(line, sizeof line, "put", "kvsname", p1.kvsname, "key",
                                         key, "value", val, NULL),
                   "put_result", &m, err, errlen) < 0 ? -1 : 0;
}

static int p1_fence(void (*wait)(void *arg), void *arg, char *err, size_t errlen)
{
    char line[FARO_PMI_LINE_MAX];
    struct faro_pmi_msg m;
    if (p1_send(line, faro_pmi_format(line, sizeof line, "barrier_in", NULL), err, errlen) < 0)
        return -1;
    /* Until the answer (or an end of file) is there, the caller's work. */
    if (p1.reader.start == p1.reader.len)
        faro_pmi_wait_readable(p1.fd, wait, arg);
    return p1_reply("barrier_out", &m, err, errlen) < 0 ? -1 : 0;
}

/* One key is one namespace for every rank in PMI-1: the owner does not matter. */
static int p1_get(int owner, const char *key, char *val, size_t vallen, char *err,
                  size_t errlen)
{
    char line[FARO_PMI_LINE_MAX];
    struct faro_pmi_msg m;
    int rc = p1_call(line, faro_pmi_format(line, sizeof line, "get", "kvsname", p1.kvsname,
                                           "key", key, NULL),
                     "get_result", &m, err, errlen);
    if (rc == -1)
        return -1;
    const char *v = rc == 0 ? faro_pmi_msg_get(&m, "value") : NULL;
    if (!v)
        return 1; /* a missing key is an answer, not an error: callers probe */
    return faro_pmi_copy_value(key, v, val, vallen, err, errlen);
}

/* Faro's mpiexec and Hydra publish the map as a key of the job. */
static int p1_node_map(int *node, int size)
{
    char val[FARO_PMI_VAL_MAX + 1], err[256];
    if (p1_get(FARO_PMI_ANY_RANK, "PMI_process_mapping", val, sizeof val, err, sizeof err))
        return -1;
    return faro_pmi_mapping_parse(val, size, node);
}

static void p1_abort(int code, const char *msg, int error, int lost)
{
    char line[FARO_PMI_LINE_MAX], codestr[16], loststr[16], text[FARO_PMI_VAL_MAX + 1];
    snprintf(codestr, sizeof codestr, "%d", code);
    snprintf(loststr, sizeof loststr, "%d", lost);
    snprintf(text, sizeof text, "%s", msg ? msg : "");
    /* the optional pairs, each present or not: a NULL key ends the list
     * (error and lost_rank are Faro's; other managers ignore them) */
    const char *kv[6] = {NULL};
    int n = 0;
    if (text[0]) {
        kv[n++] = "message";
        kv[n++] = text;
    }
    if (error) {
        kv[n++] = "error";
        kv[n++] = "1";
    }
    if (lost >= 0) {
        kv[n++] = "lost_rank";
        kv[n++] = loststr;
    }
    int len = faro_pmi_format(line, sizeof line, "abort", "exitcode", codestr, kv[0], kv[1],
                              kv[2], kv[3], kv[4], kv[5], NULL);
    if (len < 0 || faro_pmi_write_all(p1.fd, line, (size_t)len) < 0)
        return;
    /* The manager answers by killing us; wait a bounded time for it. */
    struct pollfd p = { .fd = p1.fd, .events = POLLIN };
    char buf[256];
    if (poll(&p, 1, FARO_PMI_ABORT_WAIT_MS) > 0)
        (void)!read(p1.fd, buf, sizeof buf);
}

static int p1_finalize(char *err, size_t errlen)
{
    char line[FARO_PMI_LINE_MAX];
    struct faro_pmi_msg m;
    int rc = p1_call(line, faro_pmi_format(line, sizeof line, "finalize", NULL),
                     "finalize_ack", &m, err, errlen) < 0 ? -1 : 0;
    close(p1.fd);
    p1.fd = -1;
    return rc;
}

/* ---- the name service ---- */

/* One request of the name service; the answer's value of key into val. */
static int p1_names(const char *line, int len, const char *expect, const char *key, char *val,
                    size_t vallen, char *err, size_t errlen)
{
    struct faro_pmi_msg m;
    int rc = p1_call(line, len, expect, &m, err, errlen);
    if (rc == -3) {
        snprintf(err + strlen(err), errlen - strlen(err), " (the process manager does not "
                 "serve names)");
        return FARO_PMI_NO_SERVICE;
    }
    if (rc < 0)
        return rc;
    const char *info = faro_pmi_msg_get(&m, "info");
    if (info && strcmp(info, "ok")) { /* Hydra answers info=ok, or a reason */
        snprintf(err, errlen, "PMI: %s: %s", expect, info);
        return -2;
    }
    const char *v = key ? faro_pmi_msg_get(&m, key) : NULL;
    if (key && (!v || strlen(v) >= vallen)) {
        snprintf(err, errlen, "PMI: %s has %s %s", expect, v ? "an overlong" : "no", key);
        return -1;
    }
    if (key)
        strcpy(val, v);
    return 0;
}

static int p1_publish(const char *service, const char *port, char *err, size_t errlen)
{
    char line[FARO_PMI_LINE_MAX];
    return p1_names(line, faro_pmi_format(line, sizeof line, "publish_name", "service", service,
                                          "port", port, NULL),
                    "publish_result", NULL, NULL, 0, err, errlen);
}

static int p1_lookup(const char *service, char *port, size_t portlen, char *err, size_t errlen)
{
    char line[FARO_PMI_LINE_MAX];
    return p1_names(line, faro_pmi_format(line, sizeof line, "lookup_name", "service", service,
                                          NULL),
                    "lookup_result", "port", port, portlen, err, errlen);
}

static int p1_unpublish(const char *service, char *err, size_t errlen)
{
    char line[FARO_PMI_LINE_MAX];
    return p1_names(line, faro_pmi_format(line, sizeof line, "unpublish_name", "service",
                                          service, NULL),
                    "unpublish_result", NULL, NULL, 0, err, errlen);
}


/* ---- the universe and spawn ---- */

static int p1_universe_size(void)
{
    char line[FARO_PMI_LINE_MAX], err[512];
    struct faro_pmi_msg m;
    int n = 0;
    if (p1_call(line, faro_pmi_format(line, sizeof line, "get_universe_size", NULL),
                "universe_size", &m, err, sizeof err) < 0 ||
        faro_pmi_msg_int(&m, "size", &n) < 0 || n < 0)
        return 0; /* Hydra says -1 when it was given no -usize */
    return n;
}

/* A growable request text. */
struct p1_text {
    char *p;
    size_t len, cap;
    int bad;
    char *err;
    size_t errlen;
};

/* Append one line "key=value\n" (value NULL: "key\n"); the server reads a
 * line at a time, so each must fit in one, and a value cannot hold a newline. */
static void p1_line(struct p1_text *t, const char *key, const char *val)
{
    if (t->bad)
        return;
    size_t need = strlen(key) + (val ? strlen(val) + 1 : 0) + 1;
    if (val && strchr(val, '\n')) {
        snprintf(t->err, t->errlen, "the %s '%.40s...' holds a newline, which the PMI spawn "
                 "command cannot carry", key, val);
        t->bad = 1;
        return;
    }
    if (need >= FARO_PMI_LINE_MAX) {
        snprintf(t->err, t->errlen, "the %s '%.40s...' is %zu bytes; the PMI spawn command "
                 "carries at most %d", key, val ? val : "", need - strlen(key) - 2,
                 FARO_PMI_LINE_MAX - (int)strlen(key) - 3);
        t->bad = 1;
        return;
    }
    if (t->len + need + 1 > t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 4096;
        while (cap < t->len + need + 1)
            cap *= 2;
        char *p = realloc(t->p, cap);
        if (!p) {
            snprintf(t->err, t->errlen, "out of memory for the spawn request");
            t->bad = 1;
            return;
        }
        t->p = p;
        t->cap = cap;
    }
    t->len += (size_t)snprintf(t->p + t->len, t->cap - t->len, "%s%s%s\n", key, val ? "=" : "",
                               val ? val : "");
}

static void p1_line_int(struct p1_text *t, const char *key, long v)
{
    char num[24];
    snprintf(num, sizeof num, "%ld", v);
    p1_line(t, key, num);
}

static void p1_pairs(struct p1_text *t, const char *num, const char *kfmt, const char *vfmt,
                     char *const *kv)
{
    long n = 0;
    char key[32];
    while (kv && kv[2 * n] && kv[2 * n + 1])
        n++;
    p1_line_int(t, num, n);
    for (long i = 0; i < n; i++) {
        snprintf(key, sizeof key, kfmt, i);
        p1_line(t, key, kv[2 * i]);
        snprintf(key, sizeof key, vfmt, i);
        p1_line(t, key, kv[2 * i + 1]);
    }
}

/* MPICH's simple PMI: one mcmd=spawn block per command, up to endcmd. */
static int p1_spawn(int count, const struct faro_pmi_spawn_cmd *cmds, char *const *preput,
                    char *err, size_t errlen)
{
    struct p1_text t = { .err = err, .errlen = errlen };
    for (int c = 0; c < count; c++) {
        long argc = 0;
        char key[32];
        p1_line(&t, "mcmd", "spawn");
        p1_line_int(&t, "nprocs", cmds[c].maxprocs);
        p1_line(&t, "execname", cmds[c].command);
        p1_line_int(&t, "totspawns", count);
        p1_line_int(&t, "spawnssofar", c + 1);
        while (cmds[c].argv && cmds[c].argv[argc])
            argc++;
        p1_line_int(&t, "argcnt", argc);
        for (long i = 0; i < argc; i++) {
            snprintf(key, sizeof key, "arg%ld", i + 1);
            p1_line(&t, key, cmds[c].argv[i]);
        }
        if (c == 0)
            p1_pairs(&t, "preput_num", "preput_key_%ld", "preput_val_%ld", preput);
        p1_pairs(&t, "info_num", "info_key_%ld", "info_val_%ld", cmds[c].info);
        p1_line(&t, "endcmd", NULL);
    }
    struct faro_pmi_msg m;
    int rc = -1;
    if (!t.bad) {
        if (faro_pmi_write_all(p1.fd, t.p, t.len) < 0)
            snprintf(err, errlen, "PMI: writing to the process manager on fd %d failed: %s",
                     p1.fd, strerror(errno));
        else
            rc = p1_reply("spawn_result", &m, err, errlen);
        const char *why = rc == -2 ? faro_pmi_msg_get(&m, "msg") : NULL;
        if (why) /* the manager's reason, without the protocol around it */
            snprintf(err, errlen, "%s", why);
    }
    free(t.p);
    return rc;
}

const struct faro_pmi_backend faro_pmi1_backend = {
    .name = "pmi1", .init = p1_init, .put = p1_put, .fence = p1_fence, .get = p1_get,
    .node_map = p1_node_map, .abort = p1_abort, .finalize = p1_finalize,
    .publish = p1_publish, .lookup = p1_lookup, .unpublish = p1_unpublish,
    .universe_size = p1_universe_size, .spawn = p1_spawn,
};
