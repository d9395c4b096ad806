// Histogram kernel for the multi_file program: per-block counts in shared memory, then merged.
#include "ops.h"

__global__ void histogram(const int* in, int n, unsigned* counts, int bins)
{
    extern __shared__ unsigned local[];
    for (int b = threadIdx.x; b < bins; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[in[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < bins; b += blockDim.x) atomicAdd(&counts[b], local[b]);
}

void launch_histogram(const int* in, int n, unsigned* counts, int bins)
{
    histogram<<<32, 256, bins * sizeof(unsigned)>>>(in, n, counts, bins);
}
