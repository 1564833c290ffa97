/*
 * PMI-1 client (see pmi.h). One request, one response, in order, on the
 * socket named by PMI_FD. Responses are matched by their cmd and read by key,
 * so the extra keys other process managers add (Hydra's msg=, value=) do not
 * matter. Without PMI_FD the process is a singleton with a local store.
 */
#include "config.h"

#include "base/pmi.h"
#include "base/pmi_wire.h"
#include "base/log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* How long abort waits for the manager to end the job before giving up. */
#define PMI_ABORT_WAIT_MS 10000

struct pmi_kv {
    char *key, *val;
};

static struct {
    int inited;
    int fd; /* -1 for a singleton */
    struct faro_pmi_info info;
    struct faro_pmi_reader reader;
    struct pmi_kv *kv; /* singleton store */
    size_t nkv, capkv;
} pmi = { .fd = -1 };

/* Parse a non-negative int from the environment: 1 ok, 0 unset, -1 bad. */
static int pmi_env_int(const char *name, int *out, char *err, size_t errlen)
{
    const char *s = getenv(name);
    if (!s)
        return 0;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < 0 || v > INT_MAX) {
        snprintf(err, errlen, "%s='%s' is not a non-negative integer; it is set by the "
                 "process manager (mpiexec), do not set it by hand", name, s);
        return -1;
    }
    *out = (int)v;
    return 1;
}

/* Send one request line. */
static int pmi_send(const char *line, int len, char *err, size_t errlen)
{
    if (len < 0) {
        snprintf(err, errlen, "PMI request does not fit in a %d-byte line (key or value too "
                 "long?)", FARO_PMI_LINE_MAX);
        return -1;
    }
    if (faro_pmi_write_all(pmi.fd, line, (size_t)len) < 0) {
        snprintf(err, errlen, "PMI: writing to the process manager on fd %d failed: %s",
                 pmi.fd, strerror(errno));
        return -1;
    }
    return 0;
}

/* Read the response to the last request, which must have cmd=expect.
 * Returns 0; -1 when the exchange failed; -2 when the manager answered with a
 * nonzero rc (a missing key, say); -3 when it answered cmd=error (it does
 * not serve that command). err says why. */
static int pmi_reply(const char *expect, struct faro_pmi_msg *resp, char *err, size_t errlen)
{
    char *l;
    size_t n;
    char why[256];
    enum faro_pmi_read_status st = faro_pmi_reader_next(&pmi.reader, &l, &n, why, sizeof why);
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

/* Send one request line and read its response (pmi_reply). */
static int pmi_call(const char *line, int len, const char *expect, struct faro_pmi_msg *resp,
                    char *err, size_t errlen)
{
    return pmi_send(line, len, err, errlen) < 0 ? -1 : pmi_reply(expect, resp, err, errlen);
}

static int pmi_handshake(struct faro_pmi_info *info, char *err, size_t errlen)
{
    struct faro_pmi_msg m;
    char line[FARO_PMI_LINE_MAX];
    int v;

    if (pmi_call(line, faro_pmi_format(line, sizeof line, "init", "pmi_version", "1",
                                       "pmi_subversion", "1", NULL),
                 "response_to_init", &m, err, errlen) < 0)
        return -1;
    if (faro_pmi_msg_int(&m, "pmi_version", &v) == 0 && v != 1) {
        snprintf(err, errlen, "PMI: the process manager speaks PMI version %d, Faro needs 1", v);
        return -1;
    }

    if (pmi_call(line, faro_pmi_format(line, sizeof line, "get_maxes", NULL), "maxes", &m,
                 err, errlen) < 0)
        return -1;
    if (faro_pmi_msg_int(&m, "keylen_max", &info->key_max) < 0 ||
        faro_pmi_msg_int(&m, "vallen_max", &info->val_max) < 0) {
        snprintf(err, errlen, "PMI: maxes response lacks keylen_max or vallen_max");
        return -1;
    }
    /* Our own line limits bound what we can send, whatever the manager allows. */
    if (info->key_max > FARO_PMI_KEY_MAX)
        info->key_max = FARO_PMI_KEY_MAX;
    if (info->val_max > FARO_PMI_VAL_MAX)
        info->val_max = FARO_PMI_VAL_MAX;

    if (pmi_call(line, faro_pmi_format(line, sizeof line, "get_my_kvsname", NULL),
                 "my_kvsname", &m, err, errlen) < 0)
        return -1;
    const char *kvs = faro_pmi_msg_get(&m, "kvsname");
    if (!kvs || !*kvs || strlen(kvs) >= sizeof info->kvsname) {
        snprintf(err, errlen, "PMI: my_kvsname response has a missing or too long kvsname");
        return -1;
    }
    strcpy(info->kvsname, kvs);

    if (pmi_call(line, faro_pmi_format(line, sizeof line, "get_appnum", NULL), "appnum", &m,
                 err, errlen) < 0)
        return -1;
    if (faro_pmi_msg_int(&m, "appnum", &info->appnum) < 0)
        info->appnum = 0;
    return 0;
}

int faro_pmi_init(struct faro_pmi_info *info, char *err, size_t errlen)
{
    memset(info, 0, sizeof *info);
    int fd = -1, rank = 0, size = 1;
    int have_fd = pmi_env_int("PMI_FD", &fd, err, errlen);
    if (have_fd < 0)
        return -1;

    int spawned = 0; /* Hydra's name, which Faro's mpiexec sets too */
    if (pmi_env_int("PMI_SPAWNED", &spawned, err, errlen) < 0)
        return -1;
    info->spawned = spawned != 0 && have_fd;

    if (have_fd == 0) {
        info->rank = 0;
        info->size = 1;
        info->singleton = 1;
        info->key_max = FARO_PMI_KEY_MAX;
        info->val_max = FARO_PMI_VAL_MAX;
        snprintf(info->kvsname, sizeof info->kvsname, "faro-%ld-singleton", (long)getpid());
        pmi.fd = -1;
        pmi.info = *info;
        pmi.inited = 1;
        return 0;
    }

    if (pmi_env_int("PMI_RANK", &rank, err, errlen) <= 0 ||
        pmi_env_int("PMI_SIZE", &size, err, errlen) <= 0) {
        if (!getenv("PMI_RANK") || !getenv("PMI_SIZE"))
            snprintf(err, errlen, "PMI_FD is set but PMI_RANK or PMI_SIZE is not; start the "
                     "program with mpiexec, or unset PMI_FD to run it as a singleton");
        return -1;
    }
    if (size < 1 || rank >= size) {
        snprintf(err, errlen, "PMI_RANK=%d and PMI_SIZE=%d are inconsistent (need "
                 "0 <= rank < size)", rank, size);
        return -1;
    }
    if (fcntl(fd, F_GETFD) < 0) {
        snprintf(err, errlen, "PMI_FD=%d is not an open file descriptor; start the program "
                 "with mpiexec, or unset PMI_FD to run it as a singleton", fd);
        return -1;
    }
    /* Programs the rank starts must not inherit the job's PMI connection. */
    fcntl(fd, F_SETFD, FD_CLOEXEC);

    pmi.fd = fd;
    faro_pmi_reader_init(&pmi.reader, fd);
    info->rank = rank;
    info->size = size;
    if (pmi_handshake(info, err, errlen) < 0) {
        pmi.fd = -1;
        return -1;
    }
    pmi.info = *info;
    pmi.inited = 1;
    return 0;
}

static int pmi_check_kv(const char *key, const char *val)
{
    if (!pmi.inited) {
        faro_error("PMI: used before faro_pmi_init");
        return -1;
    }
    if (!key || !*key || (int)strlen(key) > pmi.info.key_max || strpbrk(key, " =\n\t%")) {
        faro_error("PMI: key '%.64s' is invalid: it must be 1..%d bytes without spaces, '=' "
                   "or '%%'", key ? key : "(null)", pmi.info.key_max);
        return -1;
    }
    if (val && (int)strlen(val) > pmi.info.val_max) {
        faro_error("PMI: value of key '%s' is %zu bytes, the process manager allows %d",
                   key, strlen(val), pmi.info.val_max);
        return -1;
    }
    return 0;
}

static struct pmi_kv *pmi_local_find(const char *key)
{
    for (size_t i = 0; i < pmi.nkv; i++)
        if (strcmp(pmi.kv[i].key, key) == 0)
            return &pmi.kv[i];
    return NULL;
}

static int pmi_local_put(const char *key, const char *val)
{
    struct pmi_kv *kv = pmi_local_find(key);
    char *v = strdup(val);
    if (!v)
        return -1;
    if (kv) {
        free(kv->val);
        kv->val = v;
        return 0;
    }
    if (pmi.nkv == pmi.capkv) {
        size_t cap = pmi.capkv ? 2 * pmi.capkv : 16;
        struct pmi_kv *n = realloc(pmi.kv, cap * sizeof *n);
        if (!n) {
            free(v);
            return -1;
        }
        pmi.kv = n;
        pmi.capkv = cap;
    }
    char *k = strdup(key);
    if (!k) {
        free(v);
        return -1;
    }
    pmi.kv[pmi.nkv++] = (struct pmi_kv){ k, v };
    return 0;
}

int faro_pmi_put(const char *key, const char *val)
{
    if (pmi_check_kv(key, val ? val : "") < 0 || !val)
        return -1;
    if (pmi.fd < 0)
        return pmi_local_put(key, val);
    char line[FARO_PMI_LINE_MAX], err[512];
    struct faro_pmi_msg m;
    if (pmi_call(line, faro_pmi_format(line, sizeof line, "put", "kvsname", pmi.info.kvsname,
                                       "key", key, "value", val, NULL),
                 "put_result", &m, err, sizeof err) < 0) {
        faro_error("%s", err);
        return -1;
    }
    return 0;
}

int faro_pmi_barrier_while(void (*wait)(void *arg), void *arg)
{
    if (!pmi.inited) {
        faro_error("PMI: used before faro_pmi_init");
        return -1;
    }
    if (pmi.fd < 0)
        return 0;
    char line[FARO_PMI_LINE_MAX], err[512];
    struct faro_pmi_msg m;
    int rc = pmi_send(line, faro_pmi_format(line, sizeof line, "barrier_in", NULL), err,
                      sizeof err);
    /* Until the answer (or an end of file) is there, the caller's work. */
    while (rc == 0 && wait && pmi.reader.start == pmi.reader.len) {
        struct pollfd p = { .fd = pmi.fd, .events = POLLIN };
        if (poll(&p, 1, 0) != 0)
            break;
        wait(arg);
    }
    if (rc == 0)
        rc = pmi_reply("barrier_out", &m, err, sizeof err);
    if (rc < 0) {
        faro_error("%s", err);
        return -1;
    }
    return 0;
}

int faro_pmi_barrier(void)
{
    return faro_pmi_barrier_while(NULL, NULL);
}

int faro_pmi_get(const char *key, char *val, size_t vallen)
{
    if (pmi_check_kv(key, NULL) < 0)
        return -1;
    const char *v;
    char line[FARO_PMI_LINE_MAX], err[512];
    struct faro_pmi_msg m;
    if (pmi.fd < 0) {
        struct pmi_kv *kv = pmi_local_find(key);
        if (!kv)
            return -1;
        v = kv->val;
    } else {
        /* A missing key is an answer, not an error worth a message: callers probe. */
        int rc = pmi_call(line, faro_pmi_format(line, sizeof line, "get", "kvsname",
                                                pmi.info.kvsname, "key", key, NULL),
                          "get_result", &m, err, sizeof err);
        if (rc == -1)
            faro_error("%s", err);
        if (rc < 0)
            return -1;
        v = faro_pmi_msg_get(&m, "value");
        if (!v)
            return -1;
    }
    if (strlen(v) >= vallen) {
        faro_error("PMI: value of key '%s' is %zu bytes, the buffer holds %zu", key, strlen(v),
                   vallen ? vallen - 1 : 0);
        return -1;
    }
    strcpy(val, v);
    return 0;
}

int faro_pmi_abort(int code, const char *msg)
{
    if (!pmi.inited || pmi.fd < 0)
        return -1;
    char line[FARO_PMI_LINE_MAX], codestr[16], text[FARO_PMI_VAL_MAX + 1];
    snprintf(codestr, sizeof codestr, "%d", code);
    snprintf(text, sizeof text, "%s", msg ? msg : "");
    int len = text[0] ? faro_pmi_format(line, sizeof line, "abort", "exitcode", codestr,
                                        "message", text, NULL)
                      : faro_pmi_format(line, sizeof line, "abort", "exitcode", codestr, NULL);
    if (len < 0 || faro_pmi_write_all(pmi.fd, line, (size_t)len) < 0)
        return -1;
    /* The manager answers by killing us; wait a bounded time for it. */
    struct pollfd p = { .fd = pmi.fd, .events = POLLIN };
    char buf[256];
    if (poll(&p, 1, PMI_ABORT_WAIT_MS) > 0)
        (void)!read(pmi.fd, buf, sizeof buf);
    return -1;
}

int faro_pmi_finalize(void)
{
    if (!pmi.inited)
        return 0;
    int rc = 0;
    if (pmi.fd >= 0) {
        char line[FARO_PMI_LINE_MAX], err[512];
        struct faro_pmi_msg m;
        if (pmi_call(line, faro_pmi_format(line, sizeof line, "finalize", NULL),
                     "finalize_ack", &m, err, sizeof err) < 0) {
            faro_error("%s", err);
            rc = -1;
        }
        close(pmi.fd);
        pmi.fd = -1;
    }
    for (size_t i = 0; i < pmi.nkv; i++) {
        free(pmi.kv[i].key);
        free(pmi.kv[i].val);
    }
    free(pmi.kv);
    pmi.kv = NULL;
    pmi.nkv = pmi.capkv = 0;
    pmi.inited = 0;
    return rc;
}

/* ---- the name service ---- */

/* One request of the name service; the answer's value of key into val. */
static int pmi_names(const char *line, int len, const char *expect, const char *key, char *val,
                     size_t vallen, char *err, size_t errlen)
{
    if (!pmi.inited || pmi.fd < 0) {
        snprintf(err, errlen, "this process runs without a process manager (no mpiexec), so "
                 "no name service is here");
        return FARO_PMI_NO_SERVICE;
    }
    struct faro_pmi_msg m;
    int rc = pmi_call(line, len, expect, &m, err, errlen);
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

int faro_pmi_publish(const char *service, const char *port, char *err, size_t errlen)
{
    char line[FARO_PMI_LINE_MAX];
    return pmi_names(line, faro_pmi_format(line, sizeof line, "publish_name", "service", service,
                                           "port", port, NULL),
                     "publish_result", NULL, NULL, 0, err, errlen);
}

int faro_pmi_lookup(const char *service, char *port, size_t portlen, char *err, size_t errlen)
{
    char line[FARO_PMI_LINE_MAX];
    return pmi_names(line, faro_pmi_format(line, sizeof line, "lookup_name", "service", service,
                                           NULL),
                     "lookup_result", "port", port, portlen, err, errlen);
}

int faro_pmi_unpublish(const char *service, char *err, size_t errlen)
{
    char line[FARO_PMI_LINE_MAX];
    return pmi_names(line, faro_pmi_format(line, sizeof line, "unpublish_name", "service",
                                           service, NULL),
                     "unpublish_result", NULL, NULL, 0, err, errlen);
}

/* ---- the universe and spawn ---- */

int faro_pmi_universe_size(void)
{
    if (!pmi.inited || pmi.fd < 0)
        return 1;
    char line[FARO_PMI_LINE_MAX], err[512];
    struct faro_pmi_msg m;
    int n = 0;
    if (pmi_call(line, faro_pmi_format(line, sizeof line, "get_universe_size", NULL),
                 "universe_size", &m, err, sizeof err) < 0 ||
        faro_pmi_msg_int(&m, "size", &n) < 0 || n < 0)
        return 0; /* Hydra says -1 when it was given no -usize */
    return n;
}

/* A growable request text. */
struct pmi_text {
    char *p;
    size_t len, cap;
    int bad;
    char *err;
    size_t errlen;
};

/* Append one line "key=value\n" (value NULL: "key\n"); the server reads a
 * line at a time, so each must fit in one, and a value cannot hold a newline. */
static void pmi_line(struct pmi_text *t, const char *key, const char *val)
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

static void pmi_line_int(struct pmi_text *t, const char *key, long v)
{
    char num[24];
    snprintf(num, sizeof num, "%ld", v);
    pmi_line(t, key, num);
}

static void pmi_pairs(struct pmi_text *t, const char *num, const char *kfmt, const char *vfmt,
                      char *const *kv)
{
    long n = 0;
    char key[32];
    while (kv && kv[2 * n] && kv[2 * n + 1])
        n++;
    pmi_line_int(t, num, n);
    for (long i = 0; i < n; i++) {
        snprintf(key, sizeof key, kfmt, i);
        pmi_line(t, key, kv[2 * i]);
        snprintf(key, sizeof key, vfmt, i);
        pmi_line(t, key, kv[2 * i + 1]);
    }
}

int faro_pmi_spawn(int count, const struct faro_pmi_spawn_cmd *cmds, char *const *preput,
                   char *err, size_t errlen)
{
    if (!pmi.inited || pmi.fd < 0) {
        snprintf(err, errlen, "this process was started without a process manager (no "
                 "mpiexec), so nothing can start processes for it");
        return FARO_PMI_NO_SERVICE;
    }
    struct pmi_text t = { .err = err, .errlen = errlen };
    for (int c = 0; c < count; c++) {
        long argc = 0;
        char key[32];
        pmi_line(&t, "mcmd", "spawn");
        pmi_line_int(&t, "nprocs", cmds[c].maxprocs);
        pmi_line(&t, "execname", cmds[c].command);
        pmi_line_int(&t, "totspawns", count);
        pmi_line_int(&t, "spawnssofar", c + 1);
        while (cmds[c].argv && cmds[c].argv[argc])
            argc++;
        pmi_line_int(&t, "argcnt", argc);
        for (long i = 0; i < argc; i++) {
            snprintf(key, sizeof key, "arg%ld", i + 1);
            pmi_line(&t, key, cmds[c].argv[i]);
        }
        if (c == 0)
            pmi_pairs(&t, "preput_num", "preput_key_%ld", "preput_val_%ld", preput);
        pmi_pairs(&t, "info_num", "info_key_%ld", "info_val_%ld", cmds[c].info);
        pmi_line(&t, "endcmd", NULL);
    }
    struct faro_pmi_msg m;
    int rc = -1;
    if (!t.bad) {
        if (faro_pmi_write_all(pmi.fd, t.p, t.len) < 0)
            snprintf(err, errlen, "PMI: writing to the process manager on fd %d failed: %s",
                     pmi.fd, strerror(errno));
        else
            rc = pmi_reply("spawn_result", &m, err, errlen);
        const char *why = rc == -2 ? faro_pmi_msg_get(&m, "msg") : NULL;
        if (why) /* the manager's reason, without the protocol around it */
            snprintf(err, errlen, "%s", why);
    }
    free(t.p);
    if (rc == -3)
        snprintf(err + strlen(err), errlen - strlen(err), " (the process manager does not "
                 "spawn processes)");
    return rc == -3 ? FARO_PMI_NO_SERVICE : rc;
}
