/*
 * Single copy between processes with Linux cross-memory attach (CMA):
 * process_vm_readv copies straight from the owner's buffer into ours.
 *
 * There is nothing to register: the remote key is the owner's pid and the
 * address is the owner's virtual address. Whether the kernel lets us read a
 * sibling depends on ptrace rules (Yama's ptrace_scope, container seccomp
 * profiles, capabilities), so connect proves it with a real read of a probe
 * word whose address and value the peer published in its blob. On failure
 * FARO_SHM_CMA=auto narrows the attributes (no GET, no SINGLE_COPY) and the
 * core uses the fragment pipeline; FARO_SHM_CMA=on makes it an error.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* process_vm_readv */
#endif

#include "shm.h"
#include "base/log.h"
#include "base/tunables.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

enum { SHM_CMA_AUTO, SHM_CMA_ON, SHM_CMA_OFF }; /* FARO_SHM_CMA choices, in table order */

#define SHM_GET_CHUNK ((size_t)1 << 30) /* the kernel caps one call near 2 GiB */

/* Why process_vm_readv failed, in the user's terms. Reading oneself passes
 * every ptrace rule, so EPERM there can only come from a seccomp filter. */
static const char *shm_cma_reason(int err, int self)
{
    switch (err) {
    case EPERM:
        return self ? "not permitted: a seccomp filter blocks it (in a container: allow "
                      "process_vm_readv in its seccomp profile, or --cap-add SYS_PTRACE)"
                    : "not permitted: ptrace rules forbid reading a sibling process "
                      "(kernel.yama.ptrace_scope, or a container without CAP_SYS_PTRACE)";
    case ENOSYS:
        return "the kernel has no process_vm_readv, or a seccomp filter blocks it";
    case ESRCH:
        return "the peer process is gone";
    case EFAULT:
        return "an address is not mapped";
    default:
        return strerror(err);
    }
}

static void shm_cma_disable(faro_tp_t *tp)
{
    tp->cma = 0;
    tp->attr->caps &= ~(uint32_t)(FARO_TP_CAP_GET | FARO_TP_CAP_SINGLE_COPY);
    tp->attr->max_get = 0;
    tp->attr->rkey_size = 0;
}

/* One read of 8 bytes at addr in process pid; 0 and the value, or an errno. */
static int shm_cma_read_word(pid_t pid, uint64_t addr, uint64_t *val)
{
    struct iovec l = {val, sizeof *val};
    struct iovec r = {(void *)(uintptr_t)addr, sizeof *val};
    ssize_t n = process_vm_readv(pid, &l, 1, &r, 1, 0);
    if (n == (ssize_t)sizeof *val)
        return 0;
    return n < 0 ? errno : EIO;
}

int faro_shm_cma_init(faro_tp_t *tp, char *why, size_t whylen)
{
    long long mode = faro_tun_int(FARO_TUN_SHM_CMA);
    tp->cma_forced = mode == SHM_CMA_ON;
    tp->pid = getpid();
    tp->probe_word = ((uint64_t)tp->pid << 32) ^ (uint64_t)time(NULL) ^
                     (uint64_t)(uintptr_t)tp ^ 0x9e3779b97f4a7c15ull;
    if (mode == SHM_CMA_OFF) {
        shm_cma_disable(tp);
        return 0;
    }
    /* Under Yama's ptrace_scope=1 only ancestors may read us, and local ranks are
     * siblings: allow any process of this user, as ptrace_scope=0 would. */
    if (tp->env->local_size > 1)
        (void)prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);

    /* Reading ourselves is always allowed by ptrace rules, so a failure here
     * means no CMA at all (old kernel, seccomp). */
    uint64_t v = 0;
    int err = shm_cma_read_word(tp->pid, (uint64_t)(uintptr_t)&tp->probe_word, &v);
    if (err == 0 && v != tp->probe_word)
        err = EIO;
    if (err == 0) {
        tp->cma = 1;
        return 0;
    }
    shm_cma_disable(tp);
    if (tp->cma_forced) {
        snprintf(why, whylen, "FARO_SHM_CMA=on, but process_vm_readv does not work here: %s; "
                 "use FARO_SHM_CMA=auto or off", shm_cma_reason(err, 1));
        return FARO_TP_ERR;
    }
    tp->cma_reported = 1;
    faro_info(1, "shm: single copy (CMA) is off: process_vm_readv fails: %s; large messages "
              "use the fragment pipeline (FARO_SHM_CMA=off silences this)",
              shm_cma_reason(err, 1));
    return 0;
}

int faro_shm_cma_probe(faro_tp_t *tp, const struct shm_blob *b)
{
    if (!tp->cma)
        return 0;
    uint64_t v = 0;
    int err = b->pidns == tp->pidns ? shm_cma_read_word(b->pid, b->probe_addr, &v) : ESRCH;
    if (err == 0 && v == b->probe_val)
        return 0;
    const char *reason = b->pidns != tp->pidns ? "the peer runs in another PID namespace"
                         : err                 ? shm_cma_reason(err, 0)
                                               : "it read a wrong value";
    shm_cma_disable(tp);
    if (tp->cma_forced) {
        faro_error("shm: FARO_SHM_CMA=on, but a process_vm_readv from rank %d (pid %d) failed: "
                   "%s; use FARO_SHM_CMA=auto or off", b->rank, b->pid, reason);
        return FARO_TP_ERR;
    }
    if (!tp->cma_reported)
        faro_info(1, "shm: single copy (CMA) is off: process_vm_readv from rank %d (pid %d) "
                  "failed: %s; large messages use the fragment pipeline (FARO_SHM_CMA=off "
                  "silences this)", b->rank, b->pid, reason);
    tp->cma_reported = 1;
    return 0;
}

/* Any memory of ours is readable: a registration is a token, and the remote
 * key is our pid, which the reader checks against the endpoint it came from
 * (the endpoint itself then serves as the unpacked key). */
static char shm_token;

int faro_shm_mem_reg(faro_tp_t *tp, void *buf, size_t len, unsigned flags, faro_tp_mem_t **mem)
{
    (void)buf, (void)len;
    if (!tp->cma || (flags & (FARO_TP_MEM_REMOTE_WRITE | FARO_TP_MEM_DEVICE)))
        return FARO_TP_UNSUPPORTED;
    *mem = (faro_tp_mem_t *)&shm_token;
    return FARO_TP_OK;
}

int faro_shm_mem_dereg(faro_tp_t *tp, faro_tp_mem_t *mem)
{
    (void)mem;
    return tp->cma ? FARO_TP_OK : FARO_TP_UNSUPPORTED;
}

int faro_shm_rkey_pack(faro_tp_t *tp, const faro_tp_mem_t *mem, void *buf, size_t *len)
{
    uint64_t pid = (uint64_t)tp->pid;
    memcpy(buf, &pid, sizeof pid);
    *len = sizeof pid;
    return FARO_TP_OK;
}

int faro_shm_rkey_unpack(faro_tp_t *tp, struct faro_tp_ep *p, const void *buf, size_t len,
                         faro_tp_rkey_t **rkey)
{
    uint64_t pid;
    /* A refused key is the owner's to report (the MPI core falls back to the
     * pipeline), so only the debug log says why. */
    if (len != sizeof pid || !tp->cma) {
        faro_info(2, "shm: a remote key of %zu bytes (expected %zu)%s", len, sizeof pid,
                  tp->cma ? "" : " while single copy is off");
        return FARO_TP_ERR;
    }
    memcpy(&pid, buf, sizeof pid);
    if (pid != (uint64_t)p->pid) {
        faro_info(2, "shm: a remote key for pid %llu came from rank %d, which is pid %d",
                  (unsigned long long)pid, p->rank, (int)p->pid);
        return FARO_TP_ERR;
    }
    *rkey = (faro_tp_rkey_t *)p;
    return FARO_TP_OK;
}

int faro_shm_rkey_release(faro_tp_t *tp, faro_tp_rkey_t *rkey) { return FARO_TP_OK; }

/* process_vm_readv moves at most ~2 GiB per call and may stop short (a page
 * that is not mapped, a signal): each call takes the local iovecs that fit in
 * SHM_GET_CHUNK, and a short read resumes at the byte where it stopped. */
int faro_shm_get(faro_tp_t *tp, struct faro_tp_ep *p, const struct iovec *local, int iovcnt,
                 faro_tp_mem_t *lmem, const faro_tp_rkey_t *rkey, uint64_t raddr,
                 faro_tp_done_fn done, void *arg)
{
    (void)done, (void)arg, (void)lmem; /* one system call completes it: FARO_TP_DONE */
    if (!tp->cma)
        return FARO_TP_UNSUPPORTED;
    pid_t pid = p->pid;
    int peer = p->rank;
    if ((const void *)rkey != (const void *)p || iovcnt > FARO_TP_MAX_IOV) {
        faro_error("shm: get from rank %d: %s", peer,
                   iovcnt > FARO_TP_MAX_IOV ? "more local iovecs than FARO_TP_MAX_IOV"
                                            : "the remote key belongs to another endpoint");
        return FARO_TP_ERR;
    }
    struct iovec l[FARO_TP_MAX_IOV];
    int i = 0;          /* next local iovec */
    size_t skip = 0;    /* bytes of local[i] already read */
    uint64_t at = raddr;
    while (i < iovcnt) {
        int n = 0;
        size_t chunk = 0;
        for (int k = i; k < iovcnt && chunk < SHM_GET_CHUNK; k++, n++) {
            size_t off = k == i ? skip : 0;
            size_t len = local[k].iov_len - off;
            if (len > SHM_GET_CHUNK - chunk)
                len = SHM_GET_CHUNK - chunk;
            l[n].iov_base = (char *)local[k].iov_base + off;
            l[n].iov_len = len;
            chunk += len;
        }
        if (chunk == 0) { /* only empty iovecs left */
            break;
        }
        struct iovec r = {(void *)(uintptr_t)at, chunk};
        ssize_t got = process_vm_readv(pid, l, (unsigned long)n, &r, 1, 0);
        if (got <= 0) {
            int err = got < 0 ? errno : EFAULT;
            faro_error("shm: get of %zu bytes from rank %d (pid %d) at 0x%" PRIx64
                       " failed after %" PRIu64 " bytes: %s",
                       chunk, peer, (int)pid, raddr, at - raddr, shm_cma_reason(err, 0));
            return FARO_TP_ERR;
        }
        at += (uint64_t)got;
        for (size_t left = (size_t)got; left > 0 && i < iovcnt;) {
            size_t rest = local[i].iov_len - skip;
            if (left < rest) {
                skip += left;
                left = 0;
            } else {
                left -= rest;
                skip = 0;
                i++;
            }
        }
        while (i < iovcnt && local[i].iov_len == skip) { /* step over empty iovecs */
            skip = 0;
            i++;
        }
    }
    return FARO_TP_DONE;
}

/* Gets complete inside the call; only queued isends can still be held here. */
int faro_shm_flush(faro_tp_t *tp, struct faro_tp_ep *ep)
{
    if (ep)
        return ep->qhead ? FARO_TP_AGAIN : FARO_TP_DONE;
    return tp->nqueued ? FARO_TP_AGAIN : FARO_TP_DONE;
}
