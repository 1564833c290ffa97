/*
 * Object arenas: where the objects behind the program's handles live (every
 * kind: communicators, datatypes, requests, ops, groups, infos, errhandlers,
 * windows, files, messages, sessions, and the tools interface's cvar handles,
 * pvar sessions and pvar handles), so that a handle can be checked before it
 * is read. A handle is a pointer; a program that passes an uninitialised or
 * made-up one (a stack leftover, a small integer, an address nothing is
 * mapped at) made the check of the object's magic number fault. With the
 * objects of a kind in one reserved address range, "is it one of ours" is a
 * subtraction and a compare, and only then is the object read.
 *
 * Each kind owns one arena (request.c, datatype.c, comm.c, and a pool's for
 * the others, next to each kind's check): an address range
 * reserved without access when the library is loaded, of which chunks
 * are made readable and writable as the kind's pool grows, and never given
 * back (the pools already kept their slabs for ever). When the range cannot
 * be reserved (a small ulimit -v) or fills up, chunks come from malloc and
 * are listed; a handle that is in no range is then looked up in that list,
 * which costs more but stays correct. Predefined objects (MPI_INT,
 * MPI_COMM_WORLD) live outside, in the library or copied into the program
 * when it starts (ELF copy relocations): faro_arena_add_fixed registers
 * each, and the arena keeps one address bracket per loaded object (the
 * program, libfaro) that holds some, so that they too cost a compare.
 *
 * Reads of faro_arena_has need no lock: a range only grows, and a handle
 * made in another thread reached this one through the program's own
 * synchronisation, which orders the growth before it.
 */
#ifndef FARO_OBJECTS_ARENA_H
#define FARO_OBJECTS_ARENA_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct faro_arena_spill;

#define FARO_ARENA_FIXED 2 /* the program and libfaro; a third object's are listed */

struct faro_arena {
    const char *what;                         /* for messages: "request" */
    size_t reserve;                           /* bytes to reserve at first use */
    uintptr_t base;                           /* the range; 0 before first use or without one */
    size_t size;                              /* bytes reserved */
    _Atomic size_t used;                      /* bytes handed out: [base, base + used) reads */
    _Atomic(const void *) last;               /* the last address found readable */
    int nfixed;                               /* brackets of predefined objects */
    struct {
        uintptr_t lo, len, obj;               /* obj: the loaded object they lie in */
    } fixed[FARO_ARENA_FIXED];
    _Atomic(struct faro_arena_spill *) spill; /* chunks from malloc, newest first */
};

/* Readable, and never an object: what last holds before anything was found. */
extern const char faro_arena_nothing[];
#define FARO_ARENA_INIT(name, bytes)                                                      \
    { .what = (name), .reserve = (bytes), .last = (const void *)faro_arena_nothing }

/* Reserve the range; from a constructor, so that base and size never change
 * once threads exist (faro_arena_alloc reserves it otherwise). */
void faro_arena_reserve(struct faro_arena *a);

/* bytes of zeroed memory for objects (rounded up to a page within the
 * range); NULL when out of memory. Under the library lock. */
void *faro_arena_alloc(struct faro_arena *a, size_t bytes);

/* A predefined object of size bytes at p (where the program sees it); at
 * start-up, before any check (a constructor). */
void faro_arena_add_fixed(struct faro_arena *a, const void *p, size_t size);

/* A FIFO pool of objects of one size carved from an arena, a chunk of them at
 * a time: a freed object waits at the end of the queue before it is used
 * again, so that a program's stale handle reads as freed (its magic cleared)
 * for as long as possible rather than as the next object. The queue links
 * through a pointer-sized field of the object at offset link (not the
 * magic number's). The pool has its own lock (a spin lock: held for a few
 * pointer moves, or while a chunk is mapped): groups, infos and ops are made
 * and freed outside the library lock. */
struct faro_pool {
    struct faro_arena arena;
    size_t size, link;
    int chunk;
    void *head, *tail;
    atomic_flag lock;
};
#define FARO_POOL_INIT(name, bytes, type, member, per_chunk)                             \
    { FARO_ARENA_INIT(name, bytes), sizeof(type), offsetof(type, member), per_chunk, NULL, \
      NULL, ATOMIC_FLAG_INIT }
/* The range of the kinds a program makes few of (all but communicators,
 * datatypes and requests): the smallest worth reserving. */
#define FARO_ARENA_SMALL ((size_t)16 << 20)
/* A zeroed object; NULL when out of memory. */
void *faro_pool_get(struct faro_pool *p);
/* obj goes to the end of the queue, zeroed. */
void faro_pool_put(struct faro_pool *p, void *obj);
/* Reserve p's range and bracket the n predefined objects at fixed[] (each of
 * size bytes, where the program sees it): a constructor's work. */
void faro_pool_start(struct faro_pool *p, const void *const *fixed, int n, size_t size);
/* 1 when obj may be read as one of p's objects (then check its magic
 * number): for the kinds that are not on a hot path. */
int faro_pool_has(struct faro_pool *p, const void *obj);

/* The whole test: range, brackets, list; remembers p in last when found. */
int faro_arena_has_slow(struct faro_arena *a, const void *p);

/* 1 when p points into memory a handed out or into a predefined object's
 * bracket (reading there cannot fault): p is then worth its magic number's
 * check. Readability never changes (nothing is unmapped), so a cached
 * answer stays right. Requests, which are many and never predefined, test
 * the range first; */
static inline int faro_arena_has(struct faro_arena *a, const void *p)
{
    if ((uintptr_t)p - a->base < atomic_load_explicit(&a->used, memory_order_relaxed))
        return 1;
    return faro_arena_has_slow(a, p);
}

/* communicators and datatypes, of which a program passes the same few over
 * and over (MPI_COMM_WORLD, MPI_DOUBLE), the last one found first: one load
 * and a compare. */
static inline int faro_arena_has_recent(struct faro_arena *a, const void *p)
{
    if (p == atomic_load_explicit(&a->last, memory_order_relaxed))
        return 1;
    return faro_arena_has_slow(a, p);
}

#endif
