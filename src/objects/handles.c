/*
 * Integer handles. A pointer handle gets an index the first time a program
 * converts it; the index is kept in a per-kind table (index -> object) and a
 * small open-addressing map (object -> index), both under one mutex: c2f/f2c
 * are rare calls, never on a message path.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

#include "core.h"

struct handle_map {
    const void **obj;      /* obj[i]: the object of index i (0 is the null handle) */
    int n, cap;            /* indices in use up to n; table capacity */
    int *free_idx;         /* released indices, reused first */
    int nfree;
    const void **key;      /* map: object -> index, linear probing */
    int *val;
    size_t mcap, mused;
};

static struct handle_map maps[FARO_H_KINDS];
volatile int faro_handle_used[FARO_H_KINDS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
#define TOMB ((const void *)1)

static size_t hash_ptr(const void *p, size_t cap)
{
    uint64_t x = (uint64_t)(uintptr_t)p;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return (size_t)x & (cap - 1);
}

static int map_find(struct handle_map *m, const void *p)
{
    if (!m->mcap)
        return 0;
    for (size_t i = hash_ptr(p, m->mcap);; i = (i + 1) & (m->mcap - 1)) {
        if (m->key[i] == p)
            return m->val[i];
        if (!m->key[i])
            return 0;
    }
}

static int map_put(struct handle_map *m, const void *p, int v);

static int map_grow(struct handle_map *m)
{
    size_t ocap = m->mcap;
    const void **okey = m->key;
    int *oval = m->val;
    m->mcap = ocap ? ocap * 2 : 64;
    m->key = calloc(m->mcap, sizeof *m->key);
    m->val = calloc(m->mcap, sizeof *m->val);
    if (!m->key || !m->val)
        return -1;
    m->mused = 0;
    for (size_t i = 0; i < ocap; i++)
        if (okey[i] && okey[i] != TOMB)
            map_put(m, okey[i], oval[i]);
    free(okey);
    free(oval);
    return 0;
}

static int map_put(struct handle_map *m, const void *p, int v)
{
    if ((m->mused + 1) * 2 > m->mcap && map_grow(m))
        return -1;
    size_t i = hash_ptr(p, m->mcap);
    while (m->key[i] && m->key[i] != TOMB)
        i = (i + 1) & (m->mcap - 1);
    if (!m->key[i])
        m->mused++;
    m->key[i] = p;
    m->val[i] = v;
    return 0;
}

static void map_del(struct handle_map *m, const void *p)
{
    if (!m->mcap)
        return;
    for (size_t i = hash_ptr(p, m->mcap); m->key[i]; i = (i + 1) & (m->mcap - 1))
        if (m->key[i] == p) {
            m->key[i] = TOMB;
            return;
        }
}

MPI_Fint faro_handle_c2f(int kind, const void *obj)
{
    if (!obj || kind < 0 || kind >= FARO_H_KINDS)
        return 0;
    struct handle_map *m = &maps[kind];
    pthread_mutex_lock(&lock);
    faro_handle_used[kind] = 1;
    int idx = map_find(m, obj);
    if (!idx) {
        if (m->nfree) {
            idx = m->free_idx[--m->nfree];
        } else {
            if (m->n + 1 >= m->cap) {
                int ncap = m->cap ? m->cap * 2 : 64;
                const void **t = realloc(m->obj, (size_t)ncap * sizeof *t);
                if (!t)
                    goto fail;
                m->obj = t;
                m->cap = ncap;
                m->obj[0] = NULL;
            }
            idx = ++m->n;
        }
        if (map_put(m, obj, idx))
            goto fail;
        m->obj[idx] = obj;
    }
    pthread_mutex_unlock(&lock);
    return idx;
fail:
    pthread_mutex_unlock(&lock);
    faro_fatal(MPI_ERR_NO_MEM, "out of memory in the integer handle table");
}

void *faro_handle_f2c(int kind, MPI_Fint f)
{
    if (kind < 0 || kind >= FARO_H_KINDS)
        return NULL;
    struct handle_map *m = &maps[kind];
    pthread_mutex_lock(&lock);
    const void *obj = f > 0 && f <= m->n ? m->obj[f] : NULL;
    pthread_mutex_unlock(&lock);
    return (void *)obj;
}

void faro_handle_forget(int kind, const void *obj)
{
    if (!obj || kind < 0 || kind >= FARO_H_KINDS)
        return;
    struct handle_map *m = &maps[kind];
    pthread_mutex_lock(&lock);
    int idx = map_find(m, obj);
    if (idx) {
        map_del(m, obj);
        m->obj[idx] = NULL;
        int *t = realloc(m->free_idx, (size_t)(m->nfree + 1) * sizeof *t);
        if (t) {
            m->free_idx = t;
            m->free_idx[m->nfree++] = idx;
        }
    }
    pthread_mutex_unlock(&lock);
}
