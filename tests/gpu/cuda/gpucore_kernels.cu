// Kernels for tests/gpu/test-gpud-kernel.sh (built with nvcc -fatbin at test
// time): their fatbin is loaded into faro-gpud's host backend, which reads
// the parameter layouts from the cubin and runs the host implementations in
// tests/gpu/gpucore_host_kernels.c under the same mangled names.
struct mix {
    int i;
    float f;
    double d;
    char c[3];
};

__device__ int gpucore_counter;

__global__ void gpucore_axpy(float *y, const float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

__global__ void gpucore_mix(double *out, struct mix m, unsigned long long u, short s)
{
    out[0] = m.i + m.f + m.d + m.c[2] + (double)u + s;
}
