// Correct, and a good scan in shared memory (PMPP's double-buffered Kogge-Stone: one barrier per
// step, 9 for 256 elements), but the lesson asks for a scan that does not make the block wait at
// every step; the check says why.
// corpus: expect Kogge-Stone
#define BLOCK 256

__global__ void block_scan(const int* in, int* out, int n)
{
    __shared__ int buf[2][BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;
    int src = 0;
    buf[0][t] = i < n ? in[i] : 0;
    __syncthreads();
    for (int d = 1; d < BLOCK; d *= 2) {
        buf[1 - src][t] = t >= d ? buf[src][t] + buf[src][t - d] : buf[src][t];
        src = 1 - src;
        __syncthreads();
    }
    if (i < n) out[i] = buf[src][t];
}
