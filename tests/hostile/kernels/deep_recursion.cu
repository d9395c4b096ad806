// Every thread recurses 1000 deep with a 64 KB local array per call.
__device__ int dive(int depth, int seed) {
    volatile int local[16384];
    for (int i = 0; i < 16384; i += 1024) local[i] = seed + i;
    if (depth == 0) return local[seed & 1023];
    return dive(depth - 1, seed + 1) + local[depth & 1023];
}
__global__ void k(int* out) { out[threadIdx.x] = dive(1000, threadIdx.x); }
