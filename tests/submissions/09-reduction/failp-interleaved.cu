// Correct but slow (the shipped kernel): the interleaved tree splits every warp at every level and
// needs a barrier per level.
// corpus: expect branches split a warp
#define BLOCK 256

__global__ void block_sum(const float* in, float* total, int n)
{
    __shared__ float partial[BLOCK];
    int t = threadIdx.x;
    float sum = 0.0f;
    for (int i = blockIdx.x * BLOCK + t; i < n; i += BLOCK * gridDim.x) sum += in[i];
    partial[t] = sum;
    __syncthreads();
    for (int s = 1; s < BLOCK; s *= 2) {
        if (t % (2 * s) == 0) partial[t] += partial[t + s];
        __syncthreads();
    }
    if (t == 0) atomicAdd(total, partial[0]);
}
