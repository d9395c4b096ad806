// Correct but slow: every thread adds its partial sum to *total with its own atomic.
// corpus: expect atomic operations on global memory
__global__ void block_sum(const float* in, float* total, int n)
{
    float sum = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) sum += in[i];
    atomicAdd(total, sum);
}
