// A correct alternative: a grid-stride loop (more general than the lesson needs).
__global__ void whoami(int* global_id, int* block_id, int* warp_id, int* lane, int n)
{
    for (int id = blockIdx.x * blockDim.x + threadIdx.x; id < n; id += blockDim.x * gridDim.x) {
        global_id[id] = id;
        block_id[id] = id / blockDim.x;
        warp_id[id] = (id % blockDim.x) / 32;
        lane[id] = (id % blockDim.x) % 32;
    }
}
