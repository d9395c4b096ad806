// A learner's mistake: the same buffer freed twice.
#include <cstdio>

int main()
{
    int* device = nullptr;
    cudaMalloc(&device, 1024);
    cudaFree(device);
    cudaError_t e = cudaFree(device);
    std::printf("double_free: %s\n", cudaGetErrorName(e));
    return e == cudaErrorInvalidValue ? 3 : 0;
}
