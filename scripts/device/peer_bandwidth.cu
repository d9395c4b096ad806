// Measures what the device machine's GPUs give each other: for every ordered pair, whether peer
// access is possible and the bandwidth of cudaMemcpyPeerAsync (64 MB, best of 10), one direction
// and both at once. Lesson 20 and docs/measurements use these figures.
//   nvcc -O2 -o peer_bandwidth scripts/device/peer_bandwidth.cu && ./peer_bandwidth
#include <cstdio>
#include <vector>

#define CHECK(call)                                                                              \
    do {                                                                                         \
        cudaError_t e_ = (call);                                                                 \
        if (e_ != cudaSuccess) {                                                                 \
            std::printf("%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));   \
            return 1;                                                                            \
        }                                                                                        \
    } while (0)

int main()
{
    int n = 0;
    CHECK(cudaGetDeviceCount(&n));
    std::printf("peer_bandwidth: %d GPUs\n", n);
    const size_t bytes = 64u << 20;
    std::vector<void*> buf(n, nullptr), buf2(n, nullptr);
    std::vector<cudaStream_t> stream(n);
    for (int d = 0; d < n; ++d) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaMalloc(&buf[d], bytes));
        CHECK(cudaMalloc(&buf2[d], bytes));
        CHECK(cudaStreamCreateWithFlags(&stream[d], cudaStreamNonBlocking));
        for (int p = 0; p < n; ++p) {
            int can = 0;
            if (p != d) CHECK(cudaDeviceCanAccessPeer(&can, d, p));
            if (can) CHECK(cudaDeviceEnablePeerAccess(p, 0));
            if (p != d) std::printf("  peer access %d -> %d: %s\n", d, p, can ? "yes" : "no");
        }
    }
    for (int s = 0; s < n; ++s)
        for (int d = 0; d < n; ++d) {
            if (s == d) continue;
            for (int both = 0; both < 2; ++both) {
                float best = 1e30f;
                for (int rep = 0; rep < 10; ++rep) {
                    CHECK(cudaSetDevice(s));
                    cudaEvent_t a, b;
                    CHECK(cudaEventCreate(&a));
                    CHECK(cudaEventCreate(&b));
                    CHECK(cudaDeviceSynchronize());
                    CHECK(cudaSetDevice(d));
                    CHECK(cudaDeviceSynchronize());
                    CHECK(cudaSetDevice(s));
                    CHECK(cudaEventRecord(a, stream[s]));
                    CHECK(cudaMemcpyPeerAsync(buf[d], d, buf[s], s, bytes, stream[s]));
                    if (both) {
                        CHECK(cudaSetDevice(d));
                        CHECK(cudaMemcpyPeerAsync(buf2[s], s, buf2[d], d, bytes, stream[d]));
                        CHECK(cudaSetDevice(s));
                    }
                    CHECK(cudaEventRecord(b, stream[s]));
                    CHECK(cudaEventSynchronize(b));
                    if (both) {
                        CHECK(cudaSetDevice(d));
                        CHECK(cudaStreamSynchronize(stream[d]));
                        CHECK(cudaSetDevice(s));
                    }
                    float ms = 0;
                    CHECK(cudaEventElapsedTime(&ms, a, b));
                    if (ms < best) best = ms;
                    CHECK(cudaEventDestroy(a));
                    CHECK(cudaEventDestroy(b));
                }
                std::printf("  %d -> %d%s: %.1f GB/s (64 MB in %.3f ms)\n", s, d,
                            both ? " (while the other way copies too)" : "", bytes / (best * 1e6), best);
            }
        }
    return 0;
}
