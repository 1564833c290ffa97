/*
 * The registration cache's monitor: one userfaultfd(2) per process, and a
 * thread that reads its events.
 *
 * A cached range is registered with the userfaultfd (UFFDIO_REGISTER, mode
 * MISSING, the only mode every kernel since 4.11 has for anonymous memory)
 * with the non-cooperative events UNMAP (munmap, and the munmap inside
 * glibc's free of a large block), REMOVE (madvise MADV_DONTNEED/REMOVE, as
 * malloc uses to trim) and REMAP (mremap, realloc of a large block). The
 * kernel holds the thread that makes such a change until this monitor has
 * read the event; the monitor reads and applies every event while it holds
 * the cache lock, so by the time munmap returns to the program every cache
 * has dropped the stale registration.
 *
 * MISSING mode also reports faults on pages of a watched range that have no
 * page yet. The cache touches each page before it watches a range, so these
 * happen only to pages dropped after that (MADV_FREE reclaimed them); the
 * monitor answers them as the kernel would have, with a zero page. Faults from
 * inside the kernel (a provider's recv into such a page) reach the monitor
 * too, except under UFFD_USER_MODE_ONLY (taken only when the plain call is
 * not permitted), where they would fail: the touch-first rule is what keeps
 * them away.
 *
 * The thread runs until the process exits: closing the userfaultfd while a
 * forked child still holds it would leave the kernel waiting for a reader
 * that never comes.
 */
#include "config.h"

#include "common/rcache_monitor.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/log.h"
#include "base/tunables.h"

#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif

#define RC_MAX_CACHES 8

static struct {
    pthread_once_t once;
    pthread_mutex_t lock;
    int fd;                 /* the userfaultfd; -1 when off */
    char name[160];         /* "userfaultfd" or "off (why)" */
    uint64_t generation;
    struct faro_rcache *caches[RC_MAX_CACHES];
} mon = { .once = PTHREAD_ONCE_INIT, .lock = PTHREAD_MUTEX_INITIALIZER, .fd = -1 };

void rc_lock(void) { pthread_mutex_lock(&mon.lock); }
void rc_unlock(void) { pthread_mutex_unlock(&mon.lock); }
uint64_t rc_generation(void) { return mon.generation; }

static void rc_apply(uintptr_t start, uintptr_t end)
{
    mon.generation++;
    for (int i = 0; i < RC_MAX_CACHES; i++)
        if (mon.caches[i])
            rc_invalidate(mon.caches[i], start, end);
}

/* A fault on a watched page with nothing mapped: map the zero page, which is
 * what the kernel does for anonymous memory without a monitor. */
static void rc_fault(const struct uffd_msg *m)
{
    long page = sysconf(_SC_PAGESIZE);
    struct uffdio_zeropage z = {
        .range = { .start = m->arg.pagefault.address & ~(uint64_t)(page - 1),
                   .len = (uint64_t)page },
    };
    while (ioctl(mon.fd, UFFDIO_ZEROPAGE, &z) < 0 && errno == EAGAIN)
        z.zeropage = 0; /* the mapping is changing: try again */
    if (z.zeropage < 0 && z.zeropage != -EEXIST) {
        /* Nothing sensible is left but to let the thread retry the access. */
        struct uffdio_range r = z.range;
        (void)ioctl(mon.fd, UFFDIO_WAKE, &r);
    }
}

static void *rc_thread(void *arg)
{
    struct pollfd p = { .fd = mon.fd, .events = POLLIN };
    for (;;) {
        if (poll(&p, 1, -1) < 0 && errno != EINTR)
            return NULL;
        rc_lock();
        struct uffd_msg m;
        while (read(mon.fd, &m, sizeof m) == (ssize_t)sizeof m) {
            switch (m.event) {
            case UFFD_EVENT_UNMAP:
            case UFFD_EVENT_REMOVE: /* the range stays mapped but lost its pages */
                rc_apply((uintptr_t)m.arg.remove.start, (uintptr_t)m.arg.remove.end);
                if (m.event == UFFD_EVENT_REMOVE) {
                    struct uffdio_range r = { .start = m.arg.remove.start,
                                              .len = m.arg.remove.end - m.arg.remove.start };
                    (void)ioctl(mon.fd, UFFDIO_UNREGISTER, &r);
                }
                break;
            case UFFD_EVENT_REMAP:
                rc_apply((uintptr_t)m.arg.remap.from,
                         (uintptr_t)(m.arg.remap.from + m.arg.remap.len));
                break;
            case UFFD_EVENT_PAGEFAULT:
                rc_fault(&m);
                break;
            }
        }
        rc_unlock();
    }
    return arg;
}

static void rc_start(void)
{
    const uint64_t want = UFFD_FEATURE_EVENT_UNMAP | UFFD_FEATURE_EVENT_REMOVE |
                          UFFD_FEATURE_EVENT_REMAP;
    pthread_t t;
    pthread_attr_t a;

    if (faro_tun_int(FARO_TUN_RCACHE_MONITOR) == 1) {
        snprintf(mon.name, sizeof mon.name, "off (FARO_RCACHE_MONITOR=off)");
        return;
    }
    int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
    if (fd < 0 && errno == EPERM) /* vm.unprivileged_userfaultfd=0: user faults only */
        fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
    if (fd < 0) {
        snprintf(mon.name, sizeof mon.name, "off (userfaultfd: %s)", strerror(errno));
        return;
    }
    struct uffdio_api api = { .api = UFFD_API, .features = want };
    if (ioctl(fd, UFFDIO_API, &api) < 0 || (api.features & want) != want) {
        snprintf(mon.name, sizeof mon.name, "off (userfaultfd lacks the unmap, remove and "
                 "remap events: %s)", errno ? strerror(errno) : "old kernel");
        close(fd);
        return;
    }
    mon.fd = fd;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&a, 256 * 1024); /* room for sanitizer builds */
    int rc = pthread_create(&t, &a, rc_thread, NULL);
    pthread_attr_destroy(&a);
    if (rc) {
        snprintf(mon.name, sizeof mon.name, "off (no monitor thread: %s)", strerror(rc));
        close(fd);
        mon.fd = -1;
        return;
    }
    snprintf(mon.name, sizeof mon.name, "userfaultfd");
    faro_info(2, "registration cache: invalidation by userfaultfd");
}

int rc_monitor_on(void)
{
    pthread_once(&mon.once, rc_start);
    return mon.fd >= 0;
}

const char *rc_monitor_name(void)
{
    pthread_once(&mon.once, rc_start);
    return mon.name;
}

int rc_watch(uintptr_t start, uintptr_t end)
{
    struct uffdio_register r = { .range = { .start = start, .len = end - start },
                                 .mode = UFFDIO_REGISTER_MODE_MISSING };
    return mon.fd >= 0 && ioctl(mon.fd, UFFDIO_REGISTER, &r) == 0 ? 0 : -1;
}

void rc_unwatch(uintptr_t start, uintptr_t end)
{
    struct uffdio_range r = { .start = start, .len = end - start };
    if (mon.fd >= 0)
        (void)ioctl(mon.fd, UFFDIO_UNREGISTER, &r);
}

int rc_monitor_add(struct faro_rcache *rc)
{
    for (int i = 0; i < RC_MAX_CACHES; i++)
        if (!mon.caches[i]) {
            mon.caches[i] = rc;
            return 0;
        }
    return -1;
}

void rc_monitor_remove(struct faro_rcache *rc)
{
    for (int i = 0; i < RC_MAX_CACHES; i++)
        if (mon.caches[i] == rc)
            mon.caches[i] = NULL;
}

const char *faro_rcache_monitor(void)
{
    return rc_monitor_name();
}
