// Hides a chunk-per-thread loop's traffic in atomics: atomicAdd(p, 0) as the loads, atomicExch
// as the store. Atomics move sectors like any load or store, so it still fails.
// corpus: expect sectors of 32 bytes moved
__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    int threads = blockDim.x * gridDim.x;
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int chunk = (n + threads - 1) / threads;
    int end = min(n, (t + 1) * chunk);
    for (int i = t * chunk; i < end; ++i) {
        float x = atomicAdd(const_cast<float*>(&a[i]), 0.0f);
        float y = atomicAdd(const_cast<float*>(&b[i]), 0.0f);
        atomicExch(&c[i], x + y);
    }
}
