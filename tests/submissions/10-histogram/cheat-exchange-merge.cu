// Privatised, and merged with atomicExch(&bins[t], bins[t] + local[t]): an atomic instruction, but
// it replaces the value another block may have just added to, so counts are lost on a GPU.
// corpus: expect the other block's update is lost
#define BINS 256

__global__ void histogram(const unsigned char* pixels, unsigned int* bins, int n)
{
    __shared__ unsigned int local[BINS];
    int t = threadIdx.x;
    local[t] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) atomicAdd(&local[pixels[i]], 1u);
    __syncthreads();
    atomicExch(&bins[t], bins[t] + local[t]);
}
