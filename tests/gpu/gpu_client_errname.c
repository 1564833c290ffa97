/*
 * Reads "NAME VALUE" lines (every enumerator of cudaError_t, from the
 * installed driver_types.h: gpu_client_errnames.sh) and checks that the
 * client's cudaGetErrorName gives NAME for VALUE and cudaGetErrorString a
 * description of its own (not the answer for an unknown value).
 */
#include <stdio.h>
#include <string.h>

#include "gpu/client/cudart.h"

int main(void)
{
    char name[128];
    int value, n = 0, failures = 0;
    const char *unknown = cudaGetErrorString((cudaError_t)123456);
    while (scanf("%127s %d", name, &value) == 2) {
        n++;
        const char *got = cudaGetErrorName((cudaError_t)value);
        if (strcmp(got, name) != 0) {
            printf("gpu_client_errname: FAIL: cudaGetErrorName(%d) is \"%s\", expected \"%s\"\n",
                   value, got, name);
            failures++;
        }
        if (strcmp(cudaGetErrorString((cudaError_t)value), unknown) == 0) {
            printf("gpu_client_errname: FAIL: cudaGetErrorString(%s) has no description\n", name);
            failures++;
        }
    }
    if (n < 100) {
        printf("gpu_client_errname: FAIL: read %d error codes, expected CUDA 13's 134\n", n);
        return 1;
    }
    printf("gpu_client_errname: %d error codes, %d failure(s)\n", n, failures);
    return failures != 0;
}
