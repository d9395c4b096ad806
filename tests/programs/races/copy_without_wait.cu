// A kernel in one stream writes a buffer; a copy in another stream reads it back with nothing
// ordering the two (the event that would is missing). On a GPU the copy may run first.
// expect: write-read A B
#include "common.h"

int main() {
    const int n = 1 << 16;
    int *d = nullptr, *h = nullptr;
    CHECK(cudaMalloc(&d, n * sizeof(int)));
    CHECK(cudaMallocHost(&h, n * sizeof(int)));
    cudaStream_t compute, copy;
    CHECK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking));
    fill<<<n / 256, 256, 0, compute>>>(d, n, 7);  // A
#ifdef FIXED
    cudaEvent_t done;
    CHECK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    CHECK(cudaEventRecord(done, compute));
    CHECK(cudaStreamWaitEvent(copy, done, 0));
#endif
    CHECK(cudaMemcpyAsync(h, d, n * sizeof(int), cudaMemcpyDeviceToHost, copy));  // B
    CHECK(cudaDeviceSynchronize());
    std::printf("h[5] = %d\n", h[5]);
    CHECK(cudaFreeHost(h));
    CHECK(cudaFree(d));
    return 0;
}
