// The check the client's CUDA test programs share: a call's cudaError_t
// against the expected one; a difference prints "<program>: FAIL: ..." and
// counts in failures.
#include <cstdio>
#include <cuda_runtime.h>

static int failures;

static void expect_at(const char *prog, const char *what, cudaError_t got, cudaError_t want)
{
    if (got != want) {
        std::printf("%s: FAIL: %s: got %d (%s), expected %d (%s)\n", prog, what, (int)got,
                    cudaGetErrorName(got), (int)want, cudaGetErrorName(want));
        failures++;
    }
}
