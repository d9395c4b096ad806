// A learner's mistake: no bounds check, and a grid rounded up past the array's end.
#include <cstdio>

__global__ void add_one(int* data)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    data[i] += 1;
}

int main()
{
    const int n = 1000;
    int* device = nullptr;
    cudaMalloc(&device, n * sizeof(int));
    cudaMemset(device, 0, n * sizeof(int));
    add_one<<<(n + 255) / 256, 256>>>(device);
    cudaError_t launch = cudaGetLastError();
    cudaError_t sync = cudaDeviceSynchronize();
    cudaError_t after = cudaMemset(device, 0, 4);
    std::printf("out_of_bounds: launch %s, sync %s, later call %s\n", cudaGetErrorName(launch), cudaGetErrorName(sync),
                cudaGetErrorName(after));
    return sync == cudaErrorIllegalAddress && after == cudaErrorIllegalAddress ? 3 : 0;
}
