// Lesson 09, a known-wrong variant for the course linter (tests/course_linter_test.cpp): no tree
// at all, every thread adds its partial sum to *total with its own atomicAdd. It is correct, has
// no barriers and no divergence, but makes 256 atomic operations on one address per block: the
// "global atomics per block" check must fail on it.

#define BLOCK 256

__global__ void block_sum(const float* in, float* total, int n)
{
    float sum = 0.0f;
    for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += BLOCK * gridDim.x) sum += in[i];
    atomicAdd(total, sum);
}
