/*
 * Registration cache (rcache.h): the index of cached registrations, their
 * bounds and their deferred deregistration. The monitor that finds stale ones
 * is in rcache_uffd.c.
 *
 * Entries of a cache come from a pool of FARO_RCACHE_MAX_ENTRIES allocated at
 * open, so the monitor thread, which invalidates under the lock, only moves
 * entries between lists and never allocates or frees. An entry is
 *
 *   cached  in the index (sorted by start address); on the LRU list while
 *           nobody uses it, evicted from the LRU's cold end to keep the bounds
 *   dead    taken out of the index by the monitor; deregistered by the next
 *           call into the cache once nobody uses it
 *   loose   never indexed (cache off, pool exhausted, a range that cannot be
 *           watched, or memory that changed while it was registered):
 *           deregistered when its user puts it
 *
 * Ranges are whole pages, so neighbouring buffers share a registration.
 * Registering and deregistering happen outside the lock (they may allocate,
 * and freeing memory may wait for the monitor).
 */
#include "config.h"

#include "common/rcache.h"
#include "common/rcache_monitor.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "base/tunables.h"

enum rc_state { RC_FREE, RC_CACHED, RC_DEAD, RC_LOOSE };

struct rc_entry {
    struct faro_rcache_entry pub; /* first: what get hands out */
    int refs;
    uint8_t state;
    uint8_t pooled;               /* from the pool; else malloc'd and never indexed */
    struct rc_entry *prev, *next; /* LRU, dead list, free list or a reap list */
};

struct rc_list {
    struct rc_entry *head, *tail;
};

struct faro_rcache {
    const struct faro_rcache_ops *ops;
    void *ctx;
    int on;                       /* caching: the monitor reports to this cache */
    size_t max_entries, max_bytes;
    struct rc_entry *pool;
    struct rc_entry *free;        /* pool entries not in use */
    struct rc_entry **index;      /* cached entries, by start address */
    size_t n, bytes;              /* entries and bytes in the index */
    size_t maxlen;                /* longest range indexed so far: bounds a lookup's scan */
    struct rc_list lru;           /* cached and unused, most recently used first */
    struct rc_list dead;          /* invalidated and unused: to deregister */
    struct faro_rcache_stats st;
};

static uintptr_t rc_page;

static void rc_list_add(struct rc_list *l, struct rc_entry *x)
{
    x->prev = NULL;
    x->next = l->head;
    if (l->head)
        l->head->prev = x;
    else
        l->tail = x;
    l->head = x;
}

static void rc_list_del(struct rc_list *l, struct rc_entry *x)
{
    if (x->prev)
        x->prev->next = x->next;
    else
        l->head = x->next;
    if (x->next)
        x->next->prev = x->prev;
    else
        l->tail = x->prev;
}

/* First index position whose entry starts after `start`. */
static size_t rc_upper(const struct faro_rcache *rc, uintptr_t start)
{
    size_t lo = 0, hi = rc->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (rc->index[mid]->pub.start <= start)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void rc_index_add(struct faro_rcache *rc, struct rc_entry *x)
{
    size_t at = rc_upper(rc, x->pub.start), len = x->pub.end - x->pub.start;
    memmove(rc->index + at + 1, rc->index + at, (rc->n - at) * sizeof *rc->index);
    rc->index[at] = x;
    rc->n++;
    rc->bytes += len;
    if (len > rc->maxlen)
        rc->maxlen = len;
    x->state = RC_CACHED;
}

static void rc_index_del(struct faro_rcache *rc, struct rc_entry *x)
{
    size_t at = rc_upper(rc, x->pub.start);
    while (at > 0 && rc->index[at - 1] != x)
        at--;
    if (at == 0) /* not indexed: nothing to do */
        return;
    memmove(rc->index + at - 1, rc->index + at, (rc->n - at) * sizeof *rc->index);
    rc->n--;
    rc->bytes -= x->pub.end - x->pub.start;
}

/* A cached entry that covers [start, end) with `access`, or NULL. */
static struct rc_entry *rc_lookup(const struct faro_rcache *rc, uintptr_t start, uintptr_t end,
                                  unsigned access)
{
    for (size_t i = rc_upper(rc, start); i-- > 0;) {
        struct rc_entry *x = rc->index[i];
        if (x->pub.start + rc->maxlen < end) /* nothing starting earlier reaches end */
            break;
        if (x->pub.end >= end && (x->pub.access & access) == access)
            return x;
    }
    return NULL;
}

/* Evict unused entries, coldest first, until `entries` more entries and
 * `bytes` more bytes fit the bounds. 0 when they fit. */
static int rc_make_room(struct faro_rcache *rc, size_t entries, size_t bytes,
                        struct rc_entry **reap)
{
    while (rc->n + entries > rc->max_entries || rc->bytes + bytes > rc->max_bytes) {
        struct rc_entry *x = rc->lru.tail;
        if (!x)
            return -1;
        rc_list_del(&rc->lru, x);
        rc_index_del(rc, x);
        rc->st.evicted++;
        x->next = *reap;
        *reap = x;
    }
    return 0;
}

static void rc_take_dead(struct faro_rcache *rc, struct rc_entry **reap)
{
    while (rc->dead.head) {
        struct rc_entry *x = rc->dead.head;
        rc_list_del(&rc->dead, x);
        x->next = *reap;
        *reap = x;
    }
}

/* An entry whose registration is gone: back to the pool, or freed. `live`:
 * it had a registration (counted in the stats). */
static void rc_recycle(struct faro_rcache *rc, struct rc_entry *x, int live)
{
    rc_lock();
    rc->st.live -= live;
    if (x->pooled) {
        x->state = RC_FREE;
        x->next = rc->free;
        rc->free = x;
    }
    rc_unlock();
    if (!x->pooled)
        free(x);
}

/* Deregister what was collected under the lock, then give the entries back. */
static void rc_release(struct faro_rcache *rc, struct rc_entry *reap)
{
    while (reap) {
        struct rc_entry *x = reap;
        reap = x->next;
        rc->ops->dereg(rc->ctx, x->pub.handle);
        rc_recycle(rc, x, 1);
    }
}

void rc_invalidate(struct faro_rcache *rc, uintptr_t start, uintptr_t end)
{
    for (size_t i = rc->n; i-- > 0;) {
        struct rc_entry *x = rc->index[i];
        if (x->pub.start >= end || x->pub.end <= start)
            continue;
        memmove(rc->index + i, rc->index + i + 1, (rc->n - i - 1) * sizeof *rc->index);
        rc->n--;
        rc->bytes -= x->pub.end - x->pub.start;
        rc->st.invalidated++;
        x->state = RC_DEAD;
        if (x->refs == 0) {
            rc_list_del(&rc->lru, x);
            rc_list_add(&rc->dead, x);
        }
    }
}

/* Give every page of [addr, addr + len) a page before the range is watched,
 * so that no access to it has to wait for the monitor (rcache_uffd.c). Only
 * bytes of the caller's own range are read. */
static void rc_touch(const void *addr, size_t len)
{
    const volatile char *p = addr;
    uintptr_t a = (uintptr_t)addr, end = a + len;
    (void)p[0];
    for (uintptr_t q = (a | (rc_page - 1)) + 1; q < end; q += rc_page)
        (void)p[q - a];
}

int faro_rcache_open(const struct faro_rcache_ops *ops, void *ctx, struct faro_rcache **out)
{
    struct faro_rcache *rc = calloc(1, sizeof *rc);
    *out = NULL;
    if (!rc)
        return -1;
    rc_page = (uintptr_t)sysconf(_SC_PAGESIZE);
    rc->ops = ops;
    rc->ctx = ctx;
    rc->max_entries = (size_t)faro_tun_int(FARO_TUN_RCACHE_MAX_ENTRIES);
    rc->max_bytes = (size_t)faro_tun_int(FARO_TUN_RCACHE_MAX_BYTES);
    if (rc->max_entries && rc_monitor_on()) {
        rc->pool = calloc(rc->max_entries, sizeof *rc->pool);
        rc->index = calloc(rc->max_entries, sizeof *rc->index);
        if (!rc->pool || !rc->index) {
            free(rc->pool);
            free(rc->index);
            free(rc);
            return -1;
        }
        for (size_t i = rc->max_entries; i-- > 0;) {
            rc->pool[i].pooled = 1;
            rc->pool[i].next = rc->free;
            rc->free = &rc->pool[i];
        }
        rc_lock();
        rc->on = rc_monitor_add(rc) == 0;
        rc_unlock();
    }
    *out = rc;
    return 0;
}

int faro_rcache_get(struct faro_rcache *rc, void *addr, size_t len, unsigned access,
                    struct faro_rcache_entry **out)
{
    uintptr_t start = (uintptr_t)addr & ~(rc_page - 1);
    uintptr_t end = ((uintptr_t)addr + (len ? len : 1) + rc_page - 1) & ~(rc_page - 1);
    struct rc_entry *reap = NULL, *x = NULL;

    rc_lock();
    rc_take_dead(rc, &reap);
    if (rc->on && (x = rc_lookup(rc, start, end, access))) {
        if (x->refs++ == 0)
            rc_list_del(&rc->lru, x);
        rc->st.hits++;
        rc_unlock();
        rc_release(rc, reap);
        *out = &x->pub;
        return 0;
    }
    rc->st.misses++;
    if (rc->on && rc_make_room(rc, 1, end - start, &reap) == 0 && rc->free) {
        x = rc->free;
        rc->free = x->next;
        x->state = RC_LOOSE; /* until indexed below */
    }
    uint64_t gen = rc_generation();
    rc_unlock();
    rc_release(rc, reap);

    if (!x && !(x = calloc(1, sizeof *x)))
        return -1;
    x->pub = (struct faro_rcache_entry){ .start = start, .end = end, .access = access };
    x->refs = 1;
    x->state = RC_LOOSE;
    int watched = 0;
    if (x->pooled) {
        rc_touch(addr, len ? len : 1);
        watched = rc_watch(start, end) == 0;
    }
    if (rc->ops->reg(rc->ctx, (void *)start, end - start, access, &x->pub.handle) < 0) {
        rc_recycle(rc, x, 0);
        return -1;
    }
    rc_lock();
    rc->st.live++;
    /* Memory that changed while it was being registered may have moved under
     * the registration: use it once, do not keep it. */
    if (watched && rc_generation() == gen)
        rc_index_add(rc, x);
    rc_unlock();
    *out = &x->pub;
    return 0;
}

void faro_rcache_put(struct faro_rcache *rc, struct faro_rcache_entry *e)
{
    struct rc_entry *x = (struct rc_entry *)e, *reap = NULL;

    rc_lock();
    rc_take_dead(rc, &reap);
    if (--x->refs == 0) {
        if (x->state == RC_CACHED) {
            rc_list_add(&rc->lru, x);
            (void)rc_make_room(rc, 0, 0, &reap); /* the bounds may have shrunk below n */
        } else {
            if (x->state == RC_LOOSE)
                rc->st.uncached++;
            x->next = reap;
            reap = x;
        }
    }
    rc_unlock();
    rc_release(rc, reap);
}

void faro_rcache_stats(struct faro_rcache *rc, struct faro_rcache_stats *st)
{
    rc_lock();
    *st = rc->st;
    st->cached_bytes = rc->bytes;
    rc_unlock();
}

void faro_rcache_report(struct faro_rcache *rc, const char *owner)
{
    if (!rc)
        return;
    struct faro_rcache_stats st;
    faro_rcache_stats(rc, &st);
    faro_info(2, "%s: registration cache (%s): %ld hits, %ld misses, %ld evicted, %ld "
              "invalidated, %ld not cached", owner, faro_rcache_monitor(), st.hits, st.misses,
              st.evicted, st.invalidated, st.uncached);
}

void faro_rcache_close(struct faro_rcache *rc)
{
    struct rc_entry *reap = NULL;

    if (!rc)
        return;
    rc_lock();
    if (rc->on)
        rc_monitor_remove(rc);
    rc_take_dead(rc, &reap);
    while (rc->n > 0) {
        struct rc_entry *x = rc->index[--rc->n];
        x->next = reap;
        reap = x;
    }
    rc_unlock();
    rc_release(rc, reap);
    free(rc->pool);
    free(rc->index);
    free(rc);
}
