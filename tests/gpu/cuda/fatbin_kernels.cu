// Kernels whose parameter layouts tests/gpu/test_fatbin.c reads back from
// the fatbinary nvcc embeds (it compiles this file at test time, several
// ways, and never runs the result). The layouts it expects are C's: each
// parameter at the next multiple of its alignment.
#include <stdint.h>

struct mixed {
    int i;
    float f;
    double d;
    char c[3];
};

// offsets 0 8 32 40, sizes 8 24 8 2, 42 bytes in all
__global__ void scale(float *out, struct mixed m, uint64_t n, short s)
{
    out[0] = (float)(m.i + m.f + m.d + m.c[0] + n + s);
}

// no parameters: no layout at all
__global__ void empty(void) {}

// offsets 0 2 4 8 16 24 32 48, 64 bytes in all (int4 is 16-byte aligned)
__global__ void eight(char a, short b, int c, long d, float e, double f, char *g, int4 h)
{
    g[0] = (char)(a + b + c + d + e + f + h.x);
}

template <typename T> __global__ void store(T *to, T v) { to[0] = v; }
template __global__ void store<double>(double *, double);   // offsets 0 8, 16 bytes
template __global__ void store<char>(char *, char);         // offsets 0 8, 9 bytes

int main(void) { return 0; }
