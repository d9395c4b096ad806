// A subtle bug: the shared bins are never zeroed. The emulator's shared memory starts at 0, so
// the counts look right; on a GPU they start from garbage. The check fails.
// corpus: expect read shared memory no thread had written
#define BINS 256

__global__ void histogram(const unsigned char* pixels, unsigned int* bins, int n)
{
    __shared__ unsigned int local[BINS];
    int t = threadIdx.x;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) atomicAdd(&local[pixels[i]], 1u);
    __syncthreads();
    if (local[t]) atomicAdd(&bins[t], local[t]);
}
