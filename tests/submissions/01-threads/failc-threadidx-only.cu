// The shipped mistake: threadIdx.x alone, so every block writes the same elements. Blocks race on
// them (the emulator says so) and most elements are never written.
// corpus: expect race between blocks
__global__ void whoami(int* global_id, int* block_id, int* warp_id, int* lane, int n)
{
    int id = threadIdx.x;
    if (id >= n) return;
    global_id[id] = id;
    block_id[id] = blockIdx.x;
    warp_id[id] = threadIdx.x / 32;
    lane[id] = threadIdx.x % 32;
}
