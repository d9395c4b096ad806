// Lesson 09 — reduction: a tree in shared memory, warp shuffles, one atomic per block (reference
// solution).
//
// *total = sum of in[0 .. n-1], *total starting at 0. Each thread sums its share in a
// grid-stride loop; each block reduces its 256 partial sums with a tree, the first levels in
// shared memory and the last 32 values in registers with warp shuffles; one atomicAdd per block
// combines the blocks.

#define BLOCK 256

__global__ void block_sum(const float* in, float* total, int n)
{
    __shared__ float partial[BLOCK];
    int t = threadIdx.x;

    // 1. Per-thread sums over a grid-stride loop: consecutive threads read consecutive elements
    //    (coalesced), and with a small grid most of the adding happens here, in registers.
    float sum = 0.0f;
    for (int i = blockIdx.x * BLOCK + t; i < n; i += BLOCK * gridDim.x) sum += in[i];
    partial[t] = sum;
    __syncthreads();

    // 2. Tree in shared memory with sequential addressing: at each step the first s threads add
    //    the second half onto the first. The active threads are threads 0 .. s-1, whole warps
    //    for s = 128 and 64, so no warp is ever split (the `if` is uniform inside each warp), and
    //    consecutive lanes touch consecutive words (no bank conflicts). Each step halves the
    //    values left and ends with a barrier, because the next step reads what other warps wrote.
    for (int s = BLOCK / 2; s > 32; s /= 2) {
        if (t < s) partial[t] += partial[t + s];
        __syncthreads();
    }

    // 3. 64 values are left; warp 0 finishes alone. Lane t starts from two of them, then
    //    __shfl_down_sync(mask, v, offset) hands each lane the value of the lane `offset` above
    //    it: after offsets 16, 8, 4, 2, 1, lane 0 holds the sum of all 32. The exchange happens
    //    between the registers of one warp, and the _sync shuffle makes the 32 lanes of the mask
    //    meet first (since Volta a warp's lanes are not guaranteed to run in lockstep, so an
    //    exchange through shared memory would need __syncwarp()): no shared memory, no block-wide
    //    barrier. All 32 lanes take part (the mask 0xffffffff names them), so nothing diverges.
    if (t < 32) {
        float v = partial[t] + partial[t + 32];
        for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffffu, v, offset);

        // 4. One atomic add per block. Blocks run in any order and cannot wait for each other;
        //    an atomic read-modify-write makes the concurrent additions to *total safe. The
        //    order in which they land varies from run to run on a GPU, which changes the
        //    rounding of a float sum (not here: the inputs are whole numbers, see the lesson).
        if (t == 0) atomicAdd(total, v);
    }
}
