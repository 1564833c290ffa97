/*
 * Single-producer/single-consumer ring of fixed-size slots in shared memory.
 *
 * The ring's control block lives in the receiver's segment: `tail` counts the
 * slots the sender has published, `head` the slots the receiver has freed.
 * Each counter is written by one side only and sits on its own cache-line
 * pair, so the two sides never write the same line. Both counters only grow
 * (64 bits do not wrap in practice); a slot's index is the counter modulo
 * nslots, which each side tracks in `pos` to avoid a division.
 *
 * Ordering: the sender fills a slot, then stores tail with release; the
 * receiver loads tail with acquire before it reads the slot. The receiver
 * reads the slot, then stores head with release; the sender loads head with
 * acquire before it overwrites the slot. No locks, no read-modify-write.
 *
 * The receiver does not poll `tail`: every slot starts with the sequence
 * number that publishes it (tail + 1, stored with release after the slot's
 * contents), and the receiver polls the sequence word of the slot it expects
 * next. A small message then costs one cache-line transfer, not two (the
 * counter's line and the slot's line). `tail` is only for attaching again:
 * the sender stores it when it detaches (shm_tx_detach), not per message.
 * The sender keeps a private copy of `head` and reloads it only when the copy
 * says "full", so a busy ring costs one shared load per many slots.
 */
#ifndef FARO_SHM_RING_H
#define FARO_SHM_RING_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* Adjacent-line prefetchers fetch lines in pairs, so counters sit 128 bytes apart. */
#define SHM_RING_LINE 128
/* Bytes at the start of each slot that belong to the ring (the sequence word);
 * reserve and peek return the slot just past them. */
#define SHM_RING_SEQ 8

static inline _Atomic uint64_t *shm_slot_seq(char *slot)
{
    return (_Atomic uint64_t *)(void *)slot;
}

struct shm_ring {
    _Alignas(SHM_RING_LINE) _Atomic uint64_t tail; /* published slots, as of the sender's
                                                    * last detach; sender writes */
    _Alignas(SHM_RING_LINE) _Atomic uint64_t head; /* freed slots; receiver writes */
};

/* The sender's private view of a ring. */
struct shm_tx {
    struct shm_ring *ring;
    char *slots;
    size_t slot_size;
    uint64_t tail;      /* next slot to publish */
    uint64_t head_seen; /* last head read from the ring */
    uint32_t nslots;
    uint32_t pos;       /* tail % nslots */
};

/* The receiver's private view of a ring. */
struct shm_rx {
    struct shm_ring *ring;
    char *slots;
    size_t slot_size;
    uint64_t head;      /* next slot to read */
    uint64_t tail_seen; /* published slots known to be here (from sequence words) */
    uint32_t nslots;
    uint32_t pos;       /* head % nslots */
};

/* Format an empty ring (receiver, before any sender attaches). Its slots must
 * be zero-filled, as a new segment is: sequence 0 never publishes a slot. */
static inline void shm_ring_format(struct shm_ring *ring)
{
    atomic_init(&ring->tail, 0);
    atomic_init(&ring->head, 0);
}

/* Attach a private view; the counters are read from the ring, so a view
 * attached to a ring already in use (its sender detached) continues where
 * it stands. */
static inline void shm_tx_attach(struct shm_tx *tx, struct shm_ring *ring, void *slots,
                                 uint32_t nslots, size_t slot_size)
{
    tx->ring = ring;
    tx->slots = slots;
    tx->slot_size = slot_size;
    tx->nslots = nslots;
    tx->tail = atomic_load_explicit(&ring->tail, memory_order_relaxed);
    tx->head_seen = atomic_load_explicit(&ring->head, memory_order_acquire);
    tx->pos = (uint32_t)(tx->tail % nslots);
}

static inline void shm_rx_attach(struct shm_rx *rx, struct shm_ring *ring, void *slots,
                                 uint32_t nslots, size_t slot_size)
{
    rx->ring = ring;
    rx->slots = slots;
    rx->slot_size = slot_size;
    rx->nslots = nslots;
    rx->head = atomic_load_explicit(&ring->head, memory_order_relaxed);
    rx->tail_seen = atomic_load_explicit(&ring->tail, memory_order_acquire);
    rx->pos = (uint32_t)(rx->head % nslots);
}

/* The sender lets go of the ring (its view may attach again later). */
static inline void shm_tx_detach(struct shm_tx *tx)
{
    atomic_store_explicit(&tx->ring->tail, tx->tail, memory_order_release);
}

/* The next free slot, or NULL when the ring is full. The slot is the
 * sender's until shm_tx_publish. */
static inline void *shm_tx_reserve(struct shm_tx *tx)
{
    if (__builtin_expect(tx->tail - tx->head_seen == tx->nslots, 0)) {
        tx->head_seen = atomic_load_explicit(&tx->ring->head, memory_order_acquire);
        if (tx->tail - tx->head_seen == tx->nslots)
            return NULL;
    }
    return tx->slots + (size_t)tx->pos * tx->slot_size + SHM_RING_SEQ;
}

/* Hand the reserved slot to the receiver. */
static inline void shm_tx_publish(struct shm_tx *tx)
{
    char *slot = tx->slots + (size_t)tx->pos * tx->slot_size;
    atomic_store_explicit(shm_slot_seq(slot), tx->tail + 1, memory_order_release);
    tx->tail++;
    if (++tx->pos == tx->nslots)
        tx->pos = 0;
}

/* The oldest published slot, or NULL when the ring is empty. */
static inline void *shm_rx_peek(struct shm_rx *rx)
{
    char *slot = rx->slots + (size_t)rx->pos * rx->slot_size;
    if (rx->head == rx->tail_seen) {
        if (atomic_load_explicit(shm_slot_seq(slot), memory_order_acquire) != rx->head + 1)
            return NULL;
        rx->tail_seen = rx->head + 1; /* at least this one is published */
    }
    return slot + SHM_RING_SEQ;
}

/* Give the slot returned by shm_rx_peek back to the sender. */
static inline void shm_rx_release(struct shm_rx *rx)
{
    rx->head++;
    if (++rx->pos == rx->nslots)
        rx->pos = 0;
    atomic_store_explicit(&rx->ring->head, rx->head, memory_order_release);
}

#endif
