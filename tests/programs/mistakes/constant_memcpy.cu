// A learner's mistake: cudaMemcpy into a __constant__ array by its name. In host code the name is
// the host's copy of the variable, not device memory; cudaMemcpyToSymbol reaches the GPU's.
#include <cstdio>

__constant__ float weights[16];

int main()
{
    float host[16] = {};
    cudaError_t e = cudaMemcpy(weights, host, sizeof host, cudaMemcpyHostToDevice);
    std::printf("constant_memcpy: %s\n", cudaGetErrorName(e));
    return e == cudaErrorInvalidValue ? 3 : 0;
}
