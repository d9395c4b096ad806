// A kernel in a non-blocking stream, then a copy back with plain cudaMemcpy: the legacy default
// stream waits for blocking streams only, so nothing orders the copy after the kernel. (With a
// blocking stream, the clean twin, the legacy stream's rule orders them.)
// expect: write-read A B
#include "common.h"

int main() {
    const int n = 1 << 14;
    int* d = nullptr;
    int* h = new int[n];
    CHECK(cudaMalloc(&d, n * sizeof(int)));
    cudaStream_t s;
#ifdef FIXED
    CHECK(cudaStreamCreate(&s));
#else
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
#endif
    fill<<<n / 256, 256, 0, s>>>(d, n, 5);  // A
    CHECK(cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost));  // B
    std::printf("h[1] = %d\n", h[1]);
    CHECK(cudaFree(d));
    delete[] h;
    return 0;
}
