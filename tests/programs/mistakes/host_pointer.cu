// A learner's mistake: the kernel is given the host array instead of a device copy.
#include <cstdio>
#include <cstdlib>

__global__ void scale(float* data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] *= 2.0f;
}

int main()
{
    const int n = 1000;
    float* host = static_cast<float*>(std::malloc(n * sizeof(float)));
    for (int i = 0; i < n; ++i) host[i] = float(i);
    scale<<<(n + 255) / 256, 256>>>(host, n);  // should have been a cudaMalloc'd pointer
    cudaError_t e = cudaDeviceSynchronize();
    std::printf("host_pointer: %s\n", cudaGetErrorName(e));
    std::free(host);
    return e == cudaErrorIllegalAddress ? 3 : 0;
}
