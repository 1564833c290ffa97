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

// a mangled name of 564 characters (library kernels' are often longer): offsets 0 8 16, 24 bytes
struct a_struct_whose_name_is_long_enough_that_three_of_them_make_a_mangled_kernel_name_of_more_than_five_hundred_characters_as_the_names_of_heavily_templated_library_kernels_often_are_one { int x; };
struct a_struct_whose_name_is_long_enough_that_three_of_them_make_a_mangled_kernel_name_of_more_than_five_hundred_characters_as_the_names_of_heavily_templated_library_kernels_often_are_two { int x; };
struct a_struct_whose_name_is_long_enough_that_three_of_them_make_a_mangled_kernel_name_of_more_than_five_hundred_characters_as_the_names_of_heavily_templated_library_kernels_often_are_six { int x; };
__global__ void long_name(a_struct_whose_name_is_long_enough_that_three_of_them_make_a_mangled_kernel_name_of_more_than_five_hundred_characters_as_the_names_of_heavily_templated_library_kernels_often_are_one *a, a_struct_whose_name_is_long_enough_that_three_of_them_make_a_mangled_kernel_name_of_more_than_five_hundred_characters_as_the_names_of_heavily_templated_library_kernels_often_are_two *b, a_struct_whose_name_is_long_enough_that_three_of_them_make_a_mangled_kernel_name_of_more_than_five_hundred_characters_as_the_names_of_heavily_templated_library_kernels_often_are_six *c)
{
    a->x = b->x + c->x;
}

int main(void) { return 0; }
