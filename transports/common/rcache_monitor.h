/*
 * The registration cache's invalidation monitor (rcache_uffd.c), as the cache
 * (rcache.c) uses it. One per process, started by the first cache.
 *
 * The lock is the one lock of every cache: the monitor thread holds it while
 * it reads an event and applies it, the caches while they touch their index.
 * Whoever holds it must not unmap, remap, or free memory (the kernel would
 * stop that thread until the monitor read the event, and the monitor waits
 * for the lock), nor touch memory the monitor watches (a missing page there
 * is resolved by the monitor thread).
 */
#ifndef FARO_RCACHE_MONITOR_H
#define FARO_RCACHE_MONITOR_H

#include <stdint.h>

#pragma GCC visibility push(hidden)

struct faro_rcache;

/* 1 when ranges can be watched (the monitor runs). Starts it on first call. */
int rc_monitor_on(void);
const char *rc_monitor_name(void);

void rc_lock(void);
void rc_unlock(void);
/* Events applied so far; read under the lock. A registration made while it
 * changed may describe memory that moved under it, so it is not cached. */
uint64_t rc_generation(void);

/* Watch [start, end) (whole pages): 0, or -1 when the range cannot be watched
 * (file mappings, memory another userfaultfd watches). Not under the lock. */
int rc_watch(uintptr_t start, uintptr_t end);
void rc_unwatch(uintptr_t start, uintptr_t end);

/* Caches the monitor reports to (under the lock); -1 when RC_MAX_CACHES
 * caches are open already (that cache then runs without caching). */
int rc_monitor_add(struct faro_rcache *rc);
void rc_monitor_remove(struct faro_rcache *rc);

/* rcache.c: [start, end) changed; called by the monitor under the lock. */
void rc_invalidate(struct faro_rcache *rc, uintptr_t start, uintptr_t end);

#pragma GCC visibility pop

#endif
