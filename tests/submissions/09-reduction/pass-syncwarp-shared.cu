// A correct alternative: the last warp reduces in shared memory, safely: every step reads, then
// __syncwarp(), then writes, then __syncwarp(), so no lane reads a slot another lane is writing.
#define BLOCK 256

__global__ void block_sum(const float* in, float* total, int n)
{
    __shared__ float partial[BLOCK];
    int t = threadIdx.x;
    float sum = 0.0f;
    for (int i = blockIdx.x * BLOCK + t; i < n; i += BLOCK * gridDim.x) sum += in[i];
    partial[t] = sum;
    __syncthreads();
    for (int s = BLOCK / 2; s > 32; s /= 2) {
        if (t < s) partial[t] += partial[t + s];
        __syncthreads();
    }
    if (t < 32) {
        float v = partial[t] + partial[t + 32];
        for (int s = 16; s > 0; s /= 2) {
            __syncwarp();
            partial[t] = v;
            __syncwarp();
            v += partial[t + s];
        }
        if (t == 0) atomicAdd(total, v);
    }
}
