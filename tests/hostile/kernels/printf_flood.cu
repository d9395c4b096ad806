#include <cstdio>
// A correct kernel that prints 64 KB per thread.
__global__ void k(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = 2 * x[i];
    printf("%65536d\n", i);
}
