// Lesson 11 — scan: prefix sums with warp shuffles (reference solution).
//
// Inclusive scan of each block's 256 elements: out[i] = in[block start] + ... + in[i]. Two levels,
// both with warp shuffles: each warp scans its 32 elements in registers, warp 0 scans the 8 warp
// totals, and each warp adds the total of the warps before it.

#define BLOCK 256
#define WARPS (BLOCK / 32)

__global__ void block_scan(const int* in, int* out, int n)
{
    __shared__ int warp_totals[WARPS];
    int t = threadIdx.x;
    int lane = t % 32, warp = t / 32;
    int i = blockIdx.x * BLOCK + t;

    // One element per thread, coalesced; threads past n hold 0 and carry on: every lane named in
    // the shuffles' mask (all 32) must execute them, and every thread must reach the barriers.
    int v = i < n ? in[i] : 0;

    // 1. Warp scan (Hillis-Steele in registers). After the step with offset d, lane l holds the
    //    sum of lanes max(0, l - 2d + 1) .. l; after d = 16, of lanes 0 .. l. 5 steps, no memory,
    //    no block-wide barrier: __shfl_up_sync makes the lanes of the mask meet (since Volta they
    //    do not run in lockstep) and reads lane l - d's register directly. Lanes below d get
    //    their own value back and must not add it.
    for (int offset = 1; offset < 32; offset *= 2) {
        int below = __shfl_up_sync(0xffffffffu, v, offset);
        if (lane >= offset) v += below;
    }

    // 2. Lane 31 now holds its warp's total. Collect the 8 totals in shared memory.
    if (lane == 31) warp_totals[warp] = v;
    __syncthreads();

    // 3. Warp 0 scans the totals with the same shuffle loop (lanes 8-31 carry zeros), so that
    //    warp_totals[w] becomes the sum of warps 0..w.
    if (warp == 0) {
        int total = lane < WARPS ? warp_totals[lane] : 0;
        for (int offset = 1; offset < WARPS; offset *= 2) {
            int below = __shfl_up_sync(0xffffffffu, total, offset);
            if (lane >= offset) total += below;
        }
        if (lane < WARPS) warp_totals[lane] = total;
    }
    __syncthreads();

    // 4. Add everything in the warps before this one. Work per element: a load, 5 shuffle steps,
    //    one add and a store, plus a share of the small second level: O(log 32) per element
    //    instead of O(256).
    if (warp > 0) v += warp_totals[warp - 1];
    if (i < n) out[i] = v;
}
