// async_api: queues a copy, a kernel and a copy back without blocking, counts how often the host
// can poll cudaEventQuery before the work ends, then checks the result.
#include "check.h"

__global__ void add_value(int* data, int value)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    data[i] += value;
}

int main()
{
    const int n = 16 * 1024 * 1024;
    const size_t bytes = n * sizeof(int);
    const int value = 26;

    int* h = nullptr;
    CHECK(cudaMallocHost(&h, bytes));
    for (int i = 0; i < n; ++i) h[i] = i;
    int* d = nullptr;
    CHECK(cudaMalloc(&d, bytes));

    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    // Nothing recorded yet: a fresh event counts as complete.
    CHECK(cudaEventQuery(stop));

    CHECK(cudaEventRecord(start, 0));
    CHECK(cudaMemcpyAsync(d, h, bytes, cudaMemcpyHostToDevice, 0));
    add_value<<<n / 512, 512>>>(d, value);
    CHECK_LAUNCH();
    CHECK(cudaMemcpyAsync(h, d, bytes, cudaMemcpyDeviceToHost, 0));
    CHECK(cudaEventRecord(stop, 0));

    unsigned long polls = 0;
    cudaError_t q;
    while ((q = cudaEventQuery(stop)) == cudaErrorNotReady) ++polls;
    CHECK(q);
    // cudaErrorNotReady is a status, not an error: it must not be left behind as the last error.
    CHECK(cudaGetLastError());

    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    EXPECT(ms > 0, "elapsed %g ms", ms);
    for (int i = 0; i < n; ++i) EXPECT(h[i] == i + value, "h[%d] = %d", i, h[i]);

    std::printf("GPU time %.3f ms; host polled cudaEventQuery %lu times meanwhile\n", ms, polls);
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(h));
    std::printf("async_api: PASS\n");
    return 0;
}
