// A subtle bug: an exclusive scan (each element's sum leaves the element itself out).
#define BLOCK 256
#define WARPS (BLOCK / 32)

__global__ void block_scan(const int* in, int* out, int n)
{
    __shared__ int totals[WARPS];
    int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    int i = blockIdx.x * BLOCK + t;
    int x = i < n ? in[i] : 0, v = x;
    for (int d = 1; d < 32; d <<= 1) {
        int below = __shfl_up_sync(0xffffffffu, v, d);
        if (lane >= d) v += below;
    }
    if (lane == 31) totals[warp] = v;
    __syncthreads();
    int offset = 0;
    for (int w = 0; w < warp; ++w) offset += totals[w];
    if (i < n) out[i] = v + offset - x;
}
