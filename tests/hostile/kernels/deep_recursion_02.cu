// Lesson 02's kernel, every thread recursing 1000 deep with a 64 KB local array per call.
__device__ float dive(int depth, float seed) {
    volatile float local[16384];
    for (int i = 0; i < 16384; i += 1024) local[i] = seed + i;
    if (depth == 0) return local[0];
    return dive(depth - 1, seed) - local[(depth & 15) * 1024] + seed + (depth & 15) * 1024;
}
__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) c[i] = a[i] + dive(1000, b[i]);
}
