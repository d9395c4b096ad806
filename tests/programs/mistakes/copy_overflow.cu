// A learner's mistake: the copy counts elements, not bytes, the other way round.
#include <cstdio>

int main()
{
    const int n = 256;
    float host[4 * n] = {};
    float* device = nullptr;
    cudaMalloc(&device, n);  // n bytes: should have been n * sizeof(float)
    cudaError_t e = cudaMemcpy(device, host, n * sizeof(float), cudaMemcpyHostToDevice);
    std::printf("copy_overflow: %s\n", cudaGetErrorName(e));
    cudaFree(device);
    return e == cudaErrorInvalidValue ? 3 : 0;
}
