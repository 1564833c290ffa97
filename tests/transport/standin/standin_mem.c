/*
 * The verbs stand-in, memory (standin.h has the picture and the rules):
 * protection domains and memory regions. A registration faults its pages in
 * as the kernel's pinning does and records their page frame numbers (from
 * /proc/self/pagemap, readable by root); every later use of its keys checks
 * that the pages under the bytes used are still those, which is how a
 * registration left stale by free/munmap and a new mapping at the same
 * address is caught (a device would go on using the old pages). Without
 * root the frame numbers read as zero and the check is off.
 */
#include "config.h"

#include "standin.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#undef ibv_reg_mr

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#define MADV_POPULATE_WRITE 23
#endif

/* ---- protection domains ---- */

struct ibv_pd *ibv_alloc_pd(struct ibv_context *c)
{
    struct ibv_pd *pd = calloc(1, sizeof *pd);
    if (pd)
        pd->context = c;
    return pd;
}

int ibv_dealloc_pd(struct ibv_pd *pd)
{
    int mrs = 0, qps = 0;
    for (struct sd_mr *m = sd.mrs; m; m = m->next)
        mrs += m->mr.pd == pd;
    for (struct sd_qp *q = sd.qps; q; q = q->next)
        qps += q->qp.pd == pd;
    if (mrs || qps) {
        sd_error("ibv_dealloc_pd with %d memory regions and %d queue pairs still in it", mrs,
                 qps);
        return EBUSY;
    }
    free(pd);
    return 0;
}

/* ---- memory regions, and their pages ---- */

static int sd_pfns(uintptr_t page0, size_t n, uint64_t *out)
{
    if (sd.pagemap < 0 && (sd.pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC)) < 0)
        return -1;
    size_t want = n * sizeof *out;
    if (pread(sd.pagemap, out, want, (off_t)(page0 / 4096 * sizeof *out)) != (ssize_t)want)
        return -1;
    for (size_t i = 0; i < n; i++) /* bit 63: present; bits 0-54: the frame */
        out[i] = out[i] >> 63 ? out[i] & ((1ull << 55) - 1) : 0;
    return 0;
}

/* Page frame numbers are readable (root) or not (zeros): probed once. */
int sd_pfn_probe(void)
{
    if (sd.pfn_ok < 0) {
        uint64_t f = 0;
        sd.pfn_ok = sd_pfns((uintptr_t)&sd & ~(uintptr_t)4095, 1, &f) == 0 && f != 0;
    }
    return sd.pfn_ok;
}

/* Are [addr, addr + len) still the pages registered in m? */
static int sd_pages_same(const struct sd_mr *m, uint64_t addr, uint64_t len)
{
    if (!m->pfn || !len)
        return 1;
    uintptr_t p0 = (uintptr_t)addr & ~(uintptr_t)4095;
    size_t n = (((uintptr_t)(addr + len) + 4095) & ~(uintptr_t)4095) - p0;
    n /= 4096;
    uint64_t now[64];
    for (size_t done = 0; done < n;) {
        size_t k = n - done < 64 ? n - done : 64;
        if (sd_pfns(p0 + done * 4096, k, now) < 0)
            return 0;
        for (size_t i = 0; i < k; i++)
            if (now[i] != m->pfn[(p0 - m->pstart) / 4096 + done + i])
                return 0;
        done += k;
    }
    return 1;
}

struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
    sd_init();
    if ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
        !(access & IBV_ACCESS_LOCAL_WRITE)) {
        sd_error("ibv_reg_mr with remote write access but not local write (verbs requires "
                 "both)");
        errno = EINVAL;
        return NULL;
    }
    uintptr_t p0 = (uintptr_t)addr & ~(uintptr_t)4095;
    uintptr_t p1 = ((uintptr_t)addr + length + 4095) & ~(uintptr_t)4095;
    /* Pin, as the kernel does: fault every page in (for writing when the
     * mapping allows it), failing on memory that is not mapped. */
    int wants_write = access & (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    if (length && madvise((void *)p0, p1 - p0, MADV_POPULATE_WRITE) < 0) {
        int err = errno;
        if (err == ENOMEM || (wants_write && err == EFAULT)) {
            errno = EFAULT; /* not mapped, or write access to read-only memory */
            return NULL;
        }
        if (madvise((void *)p0, p1 - p0, MADV_POPULATE_READ) < 0 && errno == ENOMEM) {
            errno = EFAULT;
            return NULL;
        }
    }
    struct sd_mr *m = calloc(1, sizeof *m);
    if (!m) {
        errno = ENOMEM;
        return NULL;
    }
    m->mr = (struct ibv_mr){ .context = pd->context, .pd = pd, .addr = addr, .length = length,
                             .lkey = sd.next_key++, .rkey = sd.next_key++ };
    m->access = access;
    m->pstart = p0;
    m->npages = (p1 - p0) / 4096;
    if (length && sd_pfn_probe() && (m->pfn = malloc(m->npages * sizeof *m->pfn)) &&
        sd_pfns(p0, m->npages, m->pfn) < 0) {
        free(m->pfn);
        m->pfn = NULL;
    }
    m->mr.handle = m->mr.lkey;
    m->next = sd.mrs;
    sd.mrs = m;
    sd.mr_regs++;
    return &m->mr;
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova,
                                unsigned int access)
{
    if (iova != (uintptr_t)addr) {
        sd_error("ibv_reg_mr_iova2 with an iova other than the address (not modelled)");
        errno = EINVAL;
        return NULL;
    }
    return ibv_reg_mr(pd, addr, length, (int)(access & ~(unsigned)IBV_ACCESS_OPTIONAL_RANGE));
}

int ibv_dereg_mr(struct ibv_mr *mr)
{
    for (struct sd_mr **p = &sd.mrs; *p; p = &(*p)->next) {
        struct sd_mr *m = *p;
        if (&m->mr != mr)
            continue;
        if (m->busy)
            sd_error("ibv_dereg_mr of lkey %#x while %d posted work requests still use it "
                     "(a device would fault on them)", mr->lkey, m->busy);
        *p = m->next;
        free(m->pfn);
        free(m);
        return 0;
    }
    sd_error("ibv_dereg_mr of a region that is not registered");
    return EINVAL;
}

struct sd_mr *sd_mr_check(uint32_t key, int remote, struct ibv_pd *pd, uint64_t addr,
                                 uint64_t len, int access, const char **why)
{
    struct sd_mr *m;
    for (m = sd.mrs; m; m = m->next)
        if ((remote ? m->mr.rkey : m->mr.lkey) == key)
            break;
    if (!m)
        *why = "is not registered";
    else if (m->mr.pd != pd)
        *why = "belongs to another protection domain";
    else if (addr < (uintptr_t)m->mr.addr || addr + len > (uintptr_t)m->mr.addr + m->mr.length ||
             addr + len < addr)
        *why = "does not cover the bytes";
    else if ((m->access & access) != access)
        *why = access & IBV_ACCESS_REMOTE_READ    ? "lacks remote read access"
               : access & IBV_ACCESS_REMOTE_WRITE ? "lacks remote write access"
                                                  : "lacks local write access";
    else if (!sd_pages_same(m, addr, len))
        *why = "names pages that are no longer the ones registered (the memory was freed or "
               "unmapped and mapped again since ibv_reg_mr: a device would still use the old "
               "pages)";
    else
        return m;
    return NULL;
}

void sd_mr_busy(uint32_t lkey, int d)
{
    for (struct sd_mr *m = sd.mrs; m; m = m->next)
        if (m->mr.lkey == lkey) {
            m->busy += d;
            return;
        }
}
