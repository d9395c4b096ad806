// The buffer is freed in stream order before the kernel that reads it.
// expect: use-after-free A B
#include "common.h"

int main() {
    const int n = 1 << 12;
    int *in = nullptr, *out = nullptr;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMallocAsync(&in, n * sizeof(int), s));
    CHECK(cudaMallocAsync(&out, n * sizeof(int), s));
    fill<<<n / 256, 256, 0, s>>>(in, n, 3);
#ifndef FIXED
    CHECK(cudaFreeAsync(in, s));  // A
#endif
    add_one<<<n / 256, 256, 0, s>>>(in, out, n);  // B
#ifdef FIXED
    CHECK(cudaFreeAsync(in, s));
#endif
    CHECK(cudaFreeAsync(out, s));
    CHECK(cudaStreamSynchronize(s));
    std::printf("done\n");
    return 0;
}
