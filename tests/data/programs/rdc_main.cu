// Relocatable device code across two files (built with -rdc=true): the kernel here calls a device
// function defined in rdc_lib.cu.
#include <cstdio>
#include <cuda_runtime.h>

__device__ float twice(float x);

__global__ void apply(float* x) { x[threadIdx.x] = twice(x[threadIdx.x]); }

int main() {
    float* d = nullptr;
    cudaMalloc(&d, 32 * sizeof(float));
    apply<<<1, 32>>>(d);
    cudaDeviceSynchronize();
    cudaFree(d);
    std::printf("rdc ok\n");
    return 0;
}
