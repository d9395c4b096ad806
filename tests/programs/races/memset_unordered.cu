// cudaMemsetAsync clears a buffer in one stream while a kernel in another reads it.
// expect: write-read A B
#include "common.h"

int main() {
    const int n = 1 << 12;
    int *in = nullptr, *out = nullptr;
    CHECK(cudaMalloc(&in, n * sizeof(int)));
    CHECK(cudaMalloc(&out, n * sizeof(int)));
    cudaStream_t a, b;
    CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
    CHECK(cudaMemsetAsync(in, 0, n * sizeof(int), a));  // A
#ifdef FIXED
    CHECK(cudaStreamSynchronize(a));
#endif
    add_one<<<n / 256, 256, 0, b>>>(in, out, n);  // B
    CHECK(cudaDeviceSynchronize());
    std::printf("done\n");
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
    return 0;
}
