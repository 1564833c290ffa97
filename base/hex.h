/*
 * Hex text for binary blobs (addresses, keys) where only printable text may
 * go: PMI values, port names. Lower-case digits, two per byte.
 */
#ifndef FARO_BASE_HEX_H
#define FARO_BASE_HEX_H

#include <stddef.h>
#include <stdint.h>

/* out gets 2n digits and a NUL. */
static inline void faro_hex_encode(const void *in, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    const uint8_t *p = in;
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[p[i] >> 4];
        out[2 * i + 1] = digits[p[i] & 15];
    }
    out[2 * n] = 0;
}

static inline int faro_hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The n digits at in (not necessarily NUL-terminated) into out, which holds
 * max bytes: the number of bytes, or -1 when n is odd, too long for max, or
 * a digit is bad. */
static inline int faro_hex_decode(const char *in, size_t n, void *out, size_t max)
{
    uint8_t *p = out;
    if (n % 2 || n / 2 > max)
        return -1;
    for (size_t i = 0; i < n; i += 2) {
        int hi = faro_hex_digit(in[i]), lo = faro_hex_digit(in[i + 1]);
        if (hi < 0 || lo < 0)
            return -1;
        p[i / 2] = (uint8_t)(hi << 4 | lo);
    }
    return (int)(n / 2);
}

#endif
