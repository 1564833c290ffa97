/*
 * Registration cache, shared by the transports whose memory registrations are
 * expensive (ofi now, verbs later). It sits behind a transport's mem_reg and
 * mem_dereg (transport.h: "Registration cache"); the owner never sees it.
 *
 *   get(addr, len)  a registration covering [addr, addr + len): a cached one
 *                   when one covers the range with the access asked for, else
 *                   a new one (the transport's reg callback) that is cached
 *   put(entry)      the caller is done with it; the registration stays cached
 *                   (deferred deregistration) until it is evicted (the cache is
 *                   bounded in entries and in bytes, least recently used first)
 *                   or invalidated
 *
 * Invalidation: a registration describes memory as it was mapped when it was
 * made (an RDMA device pins those pages). When the program unmaps the range
 * (free() of a large block, munmap), remaps it (mremap) or drops its pages
 * (madvise MADV_DONTNEED, malloc trimming its heap), a cached registration of
 * it is stale: memory mapped again at the same address must not be sent from
 * the old pages. A process-wide monitor watches every cached range with
 * userfaultfd(2) (UFFD_EVENT_UNMAP, _REMOVE, _REMAP): the kernel reports each
 * such change, whoever makes it (glibc's free included), and blocks the
 * thread that makes it until the monitor thread has read the event. The
 * monitor reads and applies events under the cache lock, so once munmap
 * returns no lookup can find the stale entry. When userfaultfd is not
 * available (seccomp, vm.unprivileged_userfaultfd, valgrind), the cache is
 * off: every put deregisters at once, which is always correct. See
 * faro-ofi(7) and docs/transports.md for the limits.
 *
 * Who owns what: the cache owns its entries (a fixed pool, so the monitor
 * thread never allocates or frees) and calls the transport's dereg for each
 * registration it made, from the caller's thread only (get, put, close),
 * never from the monitor thread. One cache per transport instance; the
 * caller serializes calls into one cache.
 */
#ifndef FARO_RCACHE_H
#define FARO_RCACHE_H

#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

struct faro_rcache;

/* One registration as the caller sees it. */
struct faro_rcache_entry {
    uintptr_t start, end;   /* the range registered (whole pages) */
    void *handle;           /* what the transport's reg returned */
    unsigned access;        /* the access flags it was registered with */
};

struct faro_rcache_ops {
    /* Register [addr, addr + len) with the given access; 0 and *handle, or -1. */
    int (*reg)(void *ctx, void *addr, size_t len, unsigned access, void **handle);
    void (*dereg)(void *ctx, void *handle);
};

struct faro_rcache_stats {
    long hits, misses;      /* lookups that found a registration / made one */
    long evicted;           /* unused registrations dropped to keep the bounds */
    long invalidated;       /* registrations the monitor found stale */
    long uncached;          /* registrations deregistered at put (cache off, or a
                             * range the monitor could not watch) */
    long live;              /* registrations that exist now */
    size_t cached_bytes;    /* bytes of the unused registrations kept */
};

/* A cache whose registrations go through ops with ctx. The bounds and the
 * monitor come from FARO_RCACHE_*. Returns 0, or -1 when out of memory. */
int faro_rcache_open(const struct faro_rcache_ops *ops, void *ctx, struct faro_rcache **rc);
/* Deregisters everything (entries still held are a caller's bug, released too). */
void faro_rcache_close(struct faro_rcache *rc);

/* A registration covering [addr, addr + len) with at least `access`. 0, or -1
 * when the transport's reg failed. */
int faro_rcache_get(struct faro_rcache *rc, void *addr, size_t len, unsigned access,
                    struct faro_rcache_entry **e);
void faro_rcache_put(struct faro_rcache *rc, struct faro_rcache_entry *e);

void faro_rcache_stats(struct faro_rcache *rc, struct faro_rcache_stats *st);
/* The counts in one FARO_VERBOSE=2 line naming owner (the transport); none
 * when rc is NULL. */
void faro_rcache_report(struct faro_rcache *rc, const char *owner);

/* How stale registrations are found here: "userfaultfd", or "off (<why>)".
 * Starts the monitor if no cache did yet. */
const char *faro_rcache_monitor(void);

#pragma GCC visibility pop

#endif
