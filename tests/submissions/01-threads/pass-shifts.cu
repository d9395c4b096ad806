// A correct alternative: the guard wraps the writes, warp and lane from shifts and masks.
__global__ void whoami(int* global_id, int* block_id, int* warp_id, int* lane, int n)
{
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    if (id < n) {
        global_id[id] = id;
        block_id[id] = blockIdx.x;
        warp_id[id] = threadIdx.x >> 5;
        lane[id] = threadIdx.x & 31;
    }
}
