// The pre-Volta warp-synchronous reduction: the last warp adds through a volatile pointer with no
// __syncwarp, trusting the lanes to run in lockstep. Since Volta they are scheduled independently
// and compute-sanitizer's racecheck reports it on an H200; the emulator reports it too.
// corpus: expect warp-level race
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
        volatile float* v = partial;
        v[t] += v[t + 32];
        v[t] += v[t + 16];
        v[t] += v[t + 8];
        v[t] += v[t + 4];
        v[t] += v[t + 2];
        v[t] += v[t + 1];
        if (t == 0) atomicAdd(total, v[0]);
    }
}
