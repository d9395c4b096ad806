// A learner's mistake: a cuda::barrier initialised for more threads than the block has, so its
// first phase never completes and every thread waits in arrive_and_wait() for ever.
#include <cstdio>
#include <cuda/barrier>

#pragma nv_diag_suppress static_var_with_dynamic_init

__global__ void scale(float* data)
{
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    if (threadIdx.x == 0) init(&bar, blockDim.x + 32);
    __syncthreads();
    data[threadIdx.x] *= 2;
    bar.arrive_and_wait();
}

int main()
{
    float* device = nullptr;
    cudaMalloc(&device, 128 * sizeof(float));
    cudaMemset(device, 0, 128 * sizeof(float));
    scale<<<1, 128>>>(device);
    cudaError_t launch = cudaGetLastError();
    cudaError_t sync = cudaDeviceSynchronize();
    std::printf("barrier_count: launch %s, sync %s\n", cudaGetErrorName(launch), cudaGetErrorName(sync));
    return launch == cudaSuccess && sync != cudaSuccess ? 3 : 0;
}
