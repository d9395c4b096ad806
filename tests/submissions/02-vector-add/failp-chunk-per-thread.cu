// Correct but slow: each thread takes a chunk of consecutive elements, as a CPU thread would. A
// warp's lanes are a chunk apart, so every request touches 32 sectors (146 GB/s against 3594 on an
// H200 for the grid-stride loop).
// corpus: expect sectors of 32 bytes moved
__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    int threads = blockDim.x * gridDim.x;
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int chunk = (n + threads - 1) / threads;
    int end = min(n, (t + 1) * chunk);
    for (int i = t * chunk; i < end; ++i) c[i] = a[i] + b[i];
}
