// Four streams each fill their own chunk of one buffer (lesson 14's pattern, no race: the bytes
// are disjoint); in the racy twin each chunk runs one element into the next.
// expect: write-write A A
#include "common.h"

int main() {
    const int n = 1 << 16, streams = 4, chunk = n / streams;
    int* d = nullptr;
    CHECK(cudaMalloc(&d, (n + 1) * sizeof(int)));
    cudaStream_t s[streams];
    for (int i = 0; i < streams; ++i) CHECK(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
#ifdef FIXED
    const int extra = 0;
#else
    const int extra = 1;
#endif
    for (int i = 0; i < streams; ++i)
        fill<<<(chunk + extra + 255) / 256, 256, 0, s[i]>>>(d + i * chunk, chunk + extra, i);  // A
    CHECK(cudaDeviceSynchronize());
    std::printf("done\n");
    CHECK(cudaFree(d));
    return 0;
}
