// The warp scan through a volatile shared array with no __syncwarp, trusting lockstep: a lane reads
// a slot that another lane of its warp writes in the same step. Unsafe since Volta.
// corpus: expect warp-level race
#define BLOCK 256
#define WARPS (BLOCK / 32)

__global__ void block_scan(const int* in, int* out, int n)
{
    __shared__ int s[BLOCK];
    __shared__ int totals[WARPS];
    int t = threadIdx.x, lane = t % 32, warp = t / 32;
    int i = blockIdx.x * BLOCK + t;
    volatile int* v = s;
    v[t] = i < n ? in[i] : 0;
    for (int d = 1; d < 32; d *= 2)
        if (lane >= d) v[t] += v[t - d];
    if (lane == 31) totals[warp] = v[t];
    __syncthreads();
    int offset = 0;
    for (int w = 0; w < warp; ++w) offset += totals[w];
    if (i < n) out[i] = v[t] + offset;
}
