// A subtle bug: warp and lane counted over the grid, not inside the block (wrong once a block is
// not a multiple of 32 threads, e.g. blocks of 48).
__global__ void whoami(int* global_id, int* block_id, int* warp_id, int* lane, int n)
{
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= n) return;
    global_id[id] = id;
    block_id[id] = blockIdx.x;
    warp_id[id] = (id / 32) % ((blockDim.x + 31) / 32);
    lane[id] = id % 32;
}
