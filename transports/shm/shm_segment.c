/*
 * The receive segment: one POSIX shared-memory object per process, holding one
 * ring per local sender.
 *
 *   offset 0              struct shm_seg_hdr
 *   offset SHM_RINGS_OFF  nrings ring control blocks (struct shm_ring)
 *   page-aligned          nrings * nslots slots of slot_size bytes
 *
 * The owner creates and fills it in init, before its address is published, so
 * a sender that maps it after the job-wide barrier finds it complete. The
 * owner allocates every page up front (posix_fallocate), which both fails
 * cleanly when /dev/shm is short (instead of SIGBUS on first touch) and puts
 * the pages on the owner's NUMA node: the reader's, which reads each byte once
 * more than the writer's cache does.
 */
#include "shm.h"

#include <stdatomic.h>
#include "base/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/un.h>
#include <unistd.h>

#define SHM_RINGS_OFF 256
#define SHM_PAGE 4096
#define MiB(x) ((double)(x) / (1024.0 * 1024.0))

static size_t shm_slots_off(uint32_t nrings)
{
    size_t end = SHM_RINGS_OFF + (size_t)nrings * sizeof(struct shm_ring);
    return (end + SHM_PAGE - 1) & ~(size_t)(SHM_PAGE - 1);
}

size_t faro_shm_seg_size(uint32_t nrings, uint32_t nslots, size_t slot_size)
{
    return shm_slots_off(nrings) + (size_t)nrings * nslots * slot_size;
}

struct shm_ring *faro_shm_seg_ring(void *seg, uint32_t i)
{
    return (struct shm_ring *)((char *)seg + SHM_RINGS_OFF) + i;
}

void *faro_shm_seg_slots(void *seg, uint32_t i)
{
    const struct shm_seg_hdr *h = seg;
    return (char *)seg + shm_slots_off(h->nrings) + (size_t)i * h->nslots * h->slot_size;
}

int faro_shm_seg_name(const faro_tp_t *tp, int rank, char *name, size_t len)
{
    int n = snprintf(name, len, "/%s-shm-%d", tp->env->jobid, rank);
    return n > 0 && (size_t)n < len && (size_t)n <= 255 ? 0 : -1;
}

/* Refuse early, with numbers, when /dev/shm cannot hold the segment. */
static int shm_check_space(faro_tp_t *tp, size_t need, char *why, size_t whylen)
{
    struct statvfs vfs;
    if (statvfs(SHM_DIR, &vfs) != 0) {
        snprintf(why, whylen, "%s is not usable (%s); shared memory needs a tmpfs there",
                 SHM_DIR, strerror(errno));
        return FARO_TP_UNAVAILABLE;
    }
    size_t avail = (size_t)vfs.f_bavail * vfs.f_frsize;
    if (avail >= need)
        return 0;
    int n = tp->env->local_size;
    snprintf(why, whylen,
             "%s has %.1f MiB free, needs %.1f MiB per rank (%.1f MiB for %d local ranks); "
             "enlarge it (mount -o remount,size=...) or lower FARO_SHM_SLOTS (now %u) / "
             "FARO_SHM_SLOT_SIZE (now %zu)",
             SHM_DIR, MiB(avail), MiB(need), MiB(need) * n, n, tp->nslots, tp->slot_size);
    return FARO_TP_UNAVAILABLE;
}

int faro_shm_seg_create(faro_tp_t *tp, char *why, size_t whylen)
{
    const faro_tp_env_t *env = tp->env;
    uint32_t nrings = (uint32_t)tp->nrings;
    size_t size = faro_shm_seg_size(nrings, tp->nslots, tp->slot_size);

    if (faro_shm_seg_name(tp, env->rank, tp->seg_name, sizeof tp->seg_name) != 0) {
        snprintf(why, whylen, "job id '%s' is too long for a shared-memory name", env->jobid);
        return FARO_TP_UNAVAILABLE;
    }
    int rc = shm_check_space(tp, size, why, whylen);
    if (rc != 0)
        return rc;

    int fd = shm_open(tp->seg_name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0) {
        if (errno == EEXIST)
            snprintf(why, whylen,
                     "%s%s already exists, left by an earlier job with the same id; "
                     "remove it (rm %s/%s-*)",
                     SHM_DIR, tp->seg_name, SHM_DIR, env->jobid);
        else
            snprintf(why, whylen, "cannot create %s%s: %s", SHM_DIR, tp->seg_name,
                     strerror(errno));
        return FARO_TP_UNAVAILABLE;
    }
    tp->seg_linked = 1;
    rc = posix_fallocate(fd, 0, (off_t)size);
    if (rc != 0) {
        snprintf(why, whylen,
                 "cannot allocate %.1f MiB in %s: %s; enlarge it (mount -o remount,size=...) "
                 "or lower FARO_SHM_SLOTS / FARO_SHM_SLOT_SIZE",
                 MiB(size), SHM_DIR, strerror(rc));
        close(fd);
        faro_shm_seg_unlink(tp);
        return FARO_TP_UNAVAILABLE;
    }
    void *seg = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int err = errno;
    close(fd);
    if (seg == MAP_FAILED) {
        snprintf(why, whylen, "cannot map %s%s (%.1f MiB): %s", SHM_DIR, tp->seg_name,
                 MiB(size), strerror(err));
        faro_shm_seg_unlink(tp);
        return FARO_TP_UNAVAILABLE;
    }
    tp->seg = seg;
    tp->seg_len = size;
    rc = faro_shm_bell_create(tp, why, whylen);
    if (rc != 0)
        return rc; /* shm_free unmaps and unlinks */

    struct shm_seg_hdr *h = seg;
    *h = (struct shm_seg_hdr){
        .magic = SHM_MAGIC,
        .version = SHM_VERSION,
        .owner_rank = env->rank,
        .owner_pid = getpid(),
        .nrings = nrings,
        .nslots = tp->nslots,
        .slot_size = (uint32_t)tp->slot_size,
        .seg_size = size,
    };
    for (uint32_t i = 0; i < nrings; i++) {
        struct shm_ring *ring = faro_shm_seg_ring(seg, i);
        shm_ring_format(ring);
        shm_rx_attach(&tp->in[i].rx, ring, faro_shm_seg_slots(seg, i), tp->nslots,
                      tp->slot_size);
    }
    return 0;
}

/* Map the segment of peer p (described by blob b) and attach to our ring in it. */
int faro_shm_seg_attach(faro_tp_t *tp, struct faro_tp_ep *p, const struct shm_blob *b)
{
    char name[256];
    struct stat st;
    if (faro_shm_seg_name(tp, p->rank, name, sizeof name) != 0)
        return FARO_TP_ERR;
    int fd = shm_open(name, O_RDWR, 0);
    if (fd < 0) {
        faro_error("shm: cannot open %s%s of rank %d: %s%s", SHM_DIR, name, p->rank,
                   strerror(errno),
                   errno == ENOENT ? " (the rank exited, or connect came after wireup_done)"
                                   : "");
        return FARO_TP_ERR;
    }
    if (fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(struct shm_seg_hdr)) {
        faro_error("shm: %s%s of rank %d is empty or unreadable", SHM_DIR, name, p->rank);
        close(fd);
        return FARO_TP_ERR;
    }
    size_t len = (size_t)st.st_size;
    void *seg = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int err = errno;
    close(fd);
    if (seg == MAP_FAILED) {
        faro_error("shm: cannot map %s%s of rank %d (%.1f MiB): %s", SHM_DIR, name, p->rank,
                   MiB(len), strerror(err));
        return FARO_TP_ERR;
    }

    const struct shm_seg_hdr *h = seg;
    const char *bad = NULL;
    if (h->magic != SHM_MAGIC || h->version != SHM_VERSION)
        bad = "it is not a Faro shm segment of this version";
    else if (h->owner_rank != p->rank || h->owner_pid != b->pid)
        bad = "it belongs to another process (a stale segment of a job with the same id?)";
    else if (h->nrings != (uint32_t)tp->nrings)
        bad = "the ranks disagree on the number of local ranks";
    else if (h->seg_size != len || faro_shm_seg_size(h->nrings, h->nslots, h->slot_size) != len)
        bad = "its size does not match its header";
    if (bad) {
        faro_error("shm: %s%s of rank %d is unusable: %s", SHM_DIR, name, p->rank, bad);
        munmap(seg, len);
        return FARO_TP_ERR;
    }
    if (h->nslots != tp->nslots || h->slot_size != tp->slot_size) {
        faro_error("shm: rank %d uses %u slots of %u bytes, this rank %u slots of %zu bytes; "
                   "set FARO_SHM_SLOTS and FARO_SHM_SLOT_SIZE alike on every rank",
                   p->rank, h->nslots, h->slot_size, tp->nslots, tp->slot_size);
        munmap(seg, len);
        return FARO_TP_ERR;
    }

    p->map = seg;
    p->map_len = len;
    if (faro_shm_bell_open(tp, p) != 0) {
        munmap(seg, len);
        p->map = NULL;
        p->map_len = 0;
        return FARO_TP_ERR;
    }

    /* The last sender to map a segment (and open its doorbell) removes both
     * names: from then on a crash anywhere in the job cannot leave them
     * behind, even under a process manager that knows nothing of Faro's
     * files. (wireup_done unlinks too, for whoever is last to get there;
     * ENOENT is expected then.) */
    struct shm_seg_hdr *wh = seg;
    if (atomic_fetch_add(&wh->mapped, 1) + 1 == h->nrings) {
        struct sockaddr_un bell;
        if (shm_unlink(name) != 0 && errno != ENOENT)
            faro_warn("shm: cannot remove %s%s: %s", SHM_DIR, name, strerror(errno));
        if (faro_shm_bell_addr(tp, p->rank, &bell) == 0 && unlink(bell.sun_path) != 0 &&
            errno != ENOENT)
            faro_warn("shm: cannot remove %s: %s", bell.sun_path, strerror(errno));
    }

    uint32_t ri = (uint32_t)shm_ring_index(tp->env->local_rank, tp->lidx[p->rank]);
    shm_tx_attach(&p->tx, faro_shm_seg_ring(seg, ri), faro_shm_seg_slots(seg, ri), h->nslots,
                  h->slot_size);
    return 0;
}

void faro_shm_seg_detach(struct faro_tp_ep *p)
{
    if (p->map && p->tx.ring)
        shm_tx_detach(&p->tx); /* a later connect continues from here */
    faro_shm_bell_close(p);
    if (p->map)
        munmap(p->map, p->map_len);
    p->map = NULL;
    p->map_len = 0;
}

void faro_shm_seg_unlink(faro_tp_t *tp)
{
    if (tp->seg_linked && shm_unlink(tp->seg_name) != 0 && errno != ENOENT)
        faro_warn("shm: cannot remove %s%s: %s", SHM_DIR, tp->seg_name, strerror(errno));
    tp->seg_linked = 0;
    faro_shm_bell_unlink(tp);
}
