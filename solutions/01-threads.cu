// Lesson 01 — threads, blocks and warps (reference solution).
//
// Thread g of a 1D grid writes, at index g, its global id, its block, its warp inside the block
// and its lane inside the warp. Threads of the last block that fall at or past n write nothing.

__global__ void whoami(int* global_id, int* block_id, int* warp_id, int* lane, int n)
{
    // The blocks before this one hold blockIdx.x * blockDim.x threads; this thread comes
    // threadIdx.x places after them. This is the formula almost every CUDA kernel starts with.
    int id = blockIdx.x * blockDim.x + threadIdx.x;

    // The grid has a whole number of blocks, (n + blockDim.x - 1) / blockDim.x of them, so up to
    // blockDim.x - 1 threads of the last block have no element. Returning early is the bounds
    // guard: without it they would write past the end of the data.
    if (id >= n) return;

    global_id[id] = id;
    block_id[id] = blockIdx.x;

    // The hardware cuts each block into warps of 32 consecutive threads (threadIdx.x 0..31 is
    // warp 0, 32..63 warp 1, ...). Warps are formed per block, so both numbers come from
    // threadIdx.x, not from the global id: the two agree only when blockDim.x is a multiple of 32
    // (try the launch with 48-thread blocks). CUDA also has a built-in `warpSize`, but it is a
    // run-time value; with the literal 32 the divide and remainder become a shift and a mask.
    warp_id[id] = threadIdx.x / 32;
    lane[id] = threadIdx.x % 32;
}
