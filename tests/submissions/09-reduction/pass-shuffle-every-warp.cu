// A correct alternative: each warp reduces its 32 sums with shuffles, the 8 warp sums go through
// shared memory, and warp 0 adds them: one barrier per block.
#define BLOCK 256

__global__ void block_sum(const float* in, float* total, int n)
{
    __shared__ float warp_sums[BLOCK / 32];
    int t = threadIdx.x;
    float v = 0.0f;
    for (int i = blockIdx.x * BLOCK + t; i < n; i += BLOCK * gridDim.x) v += in[i];
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (t % 32 == 0) warp_sums[t / 32] = v;
    __syncthreads();
    if (t < 32) {
        v = t < BLOCK / 32 ? warp_sums[t] : 0.0f;
        for (int offset = 4; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
        if (t == 0) atomicAdd(total, v);
    }
}
