// The result is copied back asynchronously into page-locked memory and the host reads it before
// waiting for the stream: on a GPU the bytes may not have arrived.
// expect: host-read A B
#include "common.h"

int main() {
    const int n = 4096;
    int *d = nullptr, *h = nullptr;
    CHECK(cudaMalloc(&d, n * sizeof(int)));
    CHECK(cudaMallocHost(&h, n * sizeof(int)));
    for (int i = 0; i < n; ++i) h[i] = -1;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    fill<<<n / 256, 256, 0, s>>>(d, n, 100);
    CHECK(cudaMemcpyAsync(h, d, n * sizeof(int), cudaMemcpyDeviceToHost, s));  // A
#ifdef FIXED
    CHECK(cudaStreamSynchronize(s));
#endif
    long long sum = 0;
    for (int i = 0; i < n; ++i) sum += h[i];  // B
    std::printf("sum = %lld (%s)\n", sum, sum == 100LL * n + (long long)n * (n - 1) / 2 ? "right" : "wrong");
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaFreeHost(h));
    CHECK(cudaFree(d));
    return 0;
}
