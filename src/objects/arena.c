/*
 * Object arenas (contract: arena.h).
 */
#include <dlfcn.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "objects/arena.h"
#include "base/log.h"

/* The smallest range worth reserving: below it the arena spills at once. */
#define ARENA_MIN_RESERVE (16u << 20)

struct faro_arena_spill {
    struct faro_arena_spill *next;
    uintptr_t start;
    size_t len;
};

/* The wanted size, else halves of it down to the minimum. */
void faro_arena_reserve(struct faro_arena *a)
{
    /* Address space only (no access, no commit), but under a ulimit -v it
     * counts: take at most a 32nd of that. */
    size_t want = a->reserve;
    struct rlimit as;
    if (!getrlimit(RLIMIT_AS, &as) && as.rlim_cur != RLIM_INFINITY && want > as.rlim_cur / 32)
        want = (size_t)(as.rlim_cur / 32);
    for (size_t size = want; size >= ARENA_MIN_RESERVE; size /= 2) {
        void *p = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (p != MAP_FAILED) {
            a->base = (uintptr_t)p;
            a->size = size;
            return;
        }
    }
    a->size = 0; /* every chunk spills: correct, slower to check */
    a->base = UINTPTR_MAX; /* nothing is in range: base + used wraps to nothing */
}

/* List [p, p + len) as readable memory of a outside its range. */
static int list(struct faro_arena *a, void *p, size_t len)
{
    struct faro_arena_spill *s = malloc(sizeof *s);
    if (!s)
        return -1;
    s->start = (uintptr_t)p;
    s->len = len;
    s->next = atomic_load_explicit(&a->spill, memory_order_relaxed);
    atomic_store_explicit(&a->spill, s, memory_order_release);
    return 0;
}

static void *spill(struct faro_arena *a, size_t bytes)
{
    void *p = calloc(1, bytes);
    if (p && list(a, p, bytes)) {
        free(p);
        return NULL;
    }
    return p;
}

/* Memory between two objects of one loaded ELF object's data is mapped (one
 * writable segment holds .data.rel.ro, .data and .bss), so a bracket per
 * loaded object is safe to read anywhere. */
void faro_arena_add_fixed(struct faro_arena *a, const void *p, size_t size)
{
    Dl_info info;
    uintptr_t obj = dladdr(p, &info) ? (uintptr_t)info.dli_fbase : 0;
    uintptr_t lo = (uintptr_t)p, hi = lo + size;
    for (int i = 0; i < a->nfixed; i++) {
        if (a->fixed[i].obj != obj)
            continue;
        uintptr_t flo = a->fixed[i].lo, fhi = flo + a->fixed[i].len;
        a->fixed[i].lo = lo < flo ? lo : flo;
        a->fixed[i].len = (hi > fhi ? hi : fhi) - a->fixed[i].lo;
        return;
    }
    if (a->nfixed < FARO_ARENA_FIXED) {
        a->fixed[a->nfixed].lo = lo;
        a->fixed[a->nfixed].len = size;
        a->fixed[a->nfixed++].obj = obj;
    } else if (list(a, (void *)p, size)) { /* more loaded objects than brackets: exactly */
        faro_warn("out of memory listing the predefined %s objects", a->what);
    }
}

void *faro_arena_alloc(struct faro_arena *a, size_t bytes)
{
    if (!a->base)
        faro_arena_reserve(a);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t len = (bytes + page - 1) / page * page;
    size_t used = atomic_load_explicit(&a->used, memory_order_relaxed);
    if (a->size - used < len)
        return spill(a, bytes);
    void *p = (void *)(a->base + used);
    if (mprotect(p, len, PROT_READ | PROT_WRITE))
        return spill(a, bytes);
    atomic_store_explicit(&a->used, used + len, memory_order_release);
    return p;
}

const char faro_arena_nothing[64];

int faro_arena_has_slow(struct faro_arena *a, const void *p)
{
    uintptr_t x = (uintptr_t)p;
    int found = x - a->base < atomic_load_explicit(&a->used, memory_order_relaxed);
    for (int i = 0; i < a->nfixed && !found; i++)
        found = x - a->fixed[i].lo < a->fixed[i].len;
    for (const struct faro_arena_spill *s = atomic_load_explicit(&a->spill, memory_order_acquire);
         s && !found; s = s->next)
        found = x - s->start < s->len;
    if (found)
        atomic_store_explicit(&a->last, p, memory_order_relaxed);
    return found;
}

static void **next_of(const struct faro_pool *p, void *obj)
{
    return (void **)((char *)obj + p->link);
}

static void lock(struct faro_pool *p)
{
    while (atomic_flag_test_and_set_explicit(&p->lock, memory_order_acquire))
        sched_yield();
}

static void unlock(struct faro_pool *p)
{
    atomic_flag_clear_explicit(&p->lock, memory_order_release);
}

static void put_locked(struct faro_pool *p, void *obj)
{
    memset(obj, 0, p->size);
    if (p->tail)
        *next_of(p, p->tail) = obj;
    else
        p->head = obj;
    p->tail = obj;
}

void faro_pool_put(struct faro_pool *p, void *obj)
{
    lock(p);
    put_locked(p, obj);
    unlock(p);
}

void *faro_pool_get(struct faro_pool *p)
{
    lock(p);
    if (!p->head) {
        char *chunk = faro_arena_alloc(&p->arena, (size_t)p->chunk * p->size);
        if (!chunk) {
            unlock(p);
            return NULL;
        }
        for (int i = 0; i < p->chunk; i++)
            put_locked(p, chunk + (size_t)i * p->size);
    }
    void *obj = p->head;
    p->head = *next_of(p, obj);
    if (!p->head)
        p->tail = NULL;
    unlock(p);
    memset(obj, 0, p->size);
    return obj;
}

void faro_pool_start(struct faro_pool *p, const void *const *fixed, int n, size_t size)
{
    faro_arena_reserve(&p->arena);
    for (int i = 0; i < n; i++)
        faro_arena_add_fixed(&p->arena, fixed[i], size);
}

int faro_pool_has(struct faro_pool *p, const void *obj)
{
    return faro_arena_has_recent(&p->arena, obj);
}
