// A subtle bug: no guard, so the threads past n write elements that must stay untouched.
__global__ void whoami(int* global_id, int* block_id, int* warp_id, int* lane, int n)
{
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    global_id[id] = id;
    block_id[id] = blockIdx.x;
    warp_id[id] = threadIdx.x / 32;
    lane[id] = threadIdx.x % 32;
}
