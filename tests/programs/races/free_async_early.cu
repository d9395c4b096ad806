// cudaFreeAsync in one stream while a kernel in another stream still reads the buffer.
// expect: read-write A B
#include "common.h"

int main() {
    const int n = 1 << 14;
    int *in = nullptr, *out = nullptr;
    cudaStream_t a, b;
    CHECK(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
    CHECK(cudaMallocAsync(&in, n * sizeof(int), a));
    CHECK(cudaMallocAsync(&out, n * sizeof(int), a));
    fill<<<n / 256, 256, 0, a>>>(in, n, 1);
    add_one<<<n / 256, 256, 0, a>>>(in, out, n);  // A
#ifdef FIXED
    cudaEvent_t used;
    CHECK(cudaEventCreateWithFlags(&used, cudaEventDisableTiming));
    CHECK(cudaEventRecord(used, a));
    CHECK(cudaStreamWaitEvent(b, used, 0));
#endif
    CHECK(cudaFreeAsync(in, b));  // B
    CHECK(cudaFreeAsync(out, a));
    CHECK(cudaDeviceSynchronize());
    std::printf("done\n");
    return 0;
}
