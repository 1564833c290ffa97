/*
 * Little-endian integers in byte buffers, byte by byte (never a cast of the
 * buffer: wire formats and file layouts are unaligned and fixed-order on every
 * host). Used by the wire formats (verbs, the GPU protocol, mpiexec's control
 * links) and by readers of on-disk layouts (nvcc's fatbinaries).
 */
#ifndef FARO_BASE_LE_H
#define FARO_BASE_LE_H

#include <stdint.h>

static inline void faro_le_put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void faro_le_put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline void faro_le_put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint16_t faro_le_get16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t faro_le_get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t faro_le_get64(const uint8_t *p)
{
    return (uint64_t)faro_le_get32(p) | (uint64_t)faro_le_get32(p + 4) << 32;
}

#endif
