// A correct alternative: bins zeroed and merged in a loop over BINS (any block size works).
#define BINS 256

__global__ void histogram(const unsigned char* pixels, unsigned int* bins, int n)
{
    __shared__ unsigned int local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&local[pixels[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        if (local[b]) atomicAdd(&bins[b], local[b]);
}
