// Privatised, but merged with a plain bins[t] += local[t]: blocks race on the global bins. The
// emulator runs blocks one after another here, so the counts come out right; on a GPU they do not.
// corpus: expect race between blocks
#define BINS 256

__global__ void histogram(const unsigned char* pixels, unsigned int* bins, int n)
{
    __shared__ unsigned int local[BINS];
    int t = threadIdx.x;
    local[t] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) atomicAdd(&local[pixels[i]], 1u);
    __syncthreads();
    bins[t] += local[t];
}
