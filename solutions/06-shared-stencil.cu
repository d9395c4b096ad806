// Lesson 06 — shared memory: a stencil with a tile and its halo (reference solution).
//
// out[i] = sum over k = -R..R of w[k + R] * in[i + k], inputs outside [0, n) counting as 0.
// Each block copies the inputs it needs, its own 256 plus R on each side, from global memory into
// a shared tile once; the 7 reads per output then come from the tile.

#define R 3
#define BLOCK 256

__global__ void smooth(const float* in, float* out, int n)
{
    const float w[2 * R + 1] = {1 / 64.f, 6 / 64.f, 15 / 64.f, 20 / 64.f, 15 / 64.f, 6 / 64.f, 1 / 64.f};

    // Shared memory is on the SM, visible to every thread of the block, with a few tens of cycles
    // of latency and several times global memory's bandwidth (about 8-10x on an H200). tile[R + t] holds in[block_start + t], for t = -R .. BLOCK - 1 + R.
    __shared__ float tile[BLOCK + 2 * R];

    int block_start = blockIdx.x * BLOCK;
    int t = threadIdx.x;
    int i = block_start + t;

    // 1. Fill the tile. Every thread copies its own input, one coalesced load per warp; threads
    //    past n store 0 (they have no output, but their slot is the right-hand neighbour of the
    //    last outputs). The first R threads also fetch the halo on both sides. Nobody returns
    //    early: every thread of the block must reach the barrier below.
    tile[R + t] = i < n ? in[i] : 0.0f;
    if (t < R) {
        int left = block_start - R + t;       // the R inputs just before the block
        int right = block_start + BLOCK + t;  // the R inputs just after it
        tile[t] = left >= 0 ? in[left] : 0.0f;
        tile[R + BLOCK + t] = right < n ? in[right] : 0.0f;
    }

    // 2. The barrier: no thread of the block goes on until all of them have written their part
    //    of the tile. Thread 31 needs the slots of threads 32-34, written by the next warp;
    //    without the barrier it may read them before they are written (a race).
    __syncthreads();

    // 3. Compute from the tile: 7 shared-memory reads per output, 0 global ones. In global
    //    memory the block read BLOCK + 2R floats for BLOCK outputs.
    if (i < n) {
        float sum = 0.0f;
        for (int k = -R; k <= R; ++k) sum += w[k + R] * tile[R + t + k];
        out[i] = sum;
    }
}
