#include <cstdio>
// A correct lesson 02 kernel that also prints 64 KB per thread.
__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) c[i] = a[i] + b[i];
    printf("%65536d\n", n);
}
