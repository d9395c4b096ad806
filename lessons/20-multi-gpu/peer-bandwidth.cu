// Lesson 20's measurement of the link (lessons/20-multi-gpu/lesson.cpp runs it before the
// learner's program, on the same GPUs): the bandwidth of a plain cudaMemcpyPeerAsync of one
// vector between GPU 0 and GPU 1, each way, alone on the machine. On real GPUs the lesson's ring
// bound is 2 (G - 1) / G x the vector's bytes at this bandwidth, read from the timeline's
// copies (the events' figure printed here is the fallback).
//   ./peer-bandwidth N     N: the vector's count of 32-bit values
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                              \
    do {                                                                                         \
        cudaError_t err_ = (call);                                                               \
        if (err_ != cudaSuccess) {                                                               \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(err_)); \
            std::exit(1);                                                                        \
        }                                                                                        \
    } while (0)

int main(int argc, char** argv)
{
    const long n = argc == 2 ? std::atol(argv[1]) : 0;
    if (n <= 0) {
        std::fprintf(stderr, "usage: %s N (the count of 32-bit values in one vector)\n", argv[0]);
        return 2;
    }
    int gpus = 0;
    CHECK(cudaGetDeviceCount(&gpus));
    if (gpus < 2) {
        std::fprintf(stderr, "a peer copy needs 2 GPUs, there %s %d\n", gpus == 1 ? "is" : "are", gpus);
        return 1;
    }
    const size_t bytes = size_t(n) * 4;
    void* buf[2];
    cudaStream_t stream[2];
    cudaEvent_t start[2], stop[2];
    for (int d = 0; d < 2; ++d) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaMalloc(&buf[d], bytes));
        CHECK(cudaMemset(buf[d], d, bytes));
        CHECK(cudaStreamCreateWithFlags(&stream[d], cudaStreamNonBlocking));
        CHECK(cudaEventCreate(&start[d]));
        CHECK(cudaEventCreate(&stop[d]));
        int can = 0;
        CHECK(cudaDeviceCanAccessPeer(&can, d, 1 - d));
        if (can) CHECK(cudaDeviceEnablePeerAccess(1 - d, 0));
        else std::printf("GPU %d cannot reach GPU %d as a peer: the copies go through the host\n", d, 1 - d);
        CHECK(cudaDeviceSynchronize());
    }
    double best = 0;
    // A copy into GPU `to`, issued in to's stream as the lesson's programs do. The first of each
    // direction warms the link up and is not counted.
    for (int rep = 0; rep < 4; ++rep)
        for (int to = 0; to < 2; ++to) {
            const int from = 1 - to;
            CHECK(cudaSetDevice(to));
            CHECK(cudaEventRecord(start[to], stream[to]));
            CHECK(cudaMemcpyPeerAsync(buf[to], to, buf[from], from, bytes, stream[to]));
            CHECK(cudaEventRecord(stop[to], stream[to]));
            CHECK(cudaStreamSynchronize(stream[to]));
            float ms = 0;
            CHECK(cudaEventElapsedTime(&ms, start[to], stop[to]));
            const double gbs = ms > 0 ? double(bytes) / (ms * 1e-3) / 1e9 : 0;
            if (rep > 0 && gbs > best) best = gbs;
            if (rep > 0) std::printf("GPU %d -> GPU %d: %zu bytes in %.1f us, %.1f GB/s\n", from, to, bytes, ms * 1e3, gbs);
        }
    std::printf("best: %.1f GB/s\n", best);
    for (int d = 0; d < 2; ++d) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaFree(buf[d]));
        CHECK(cudaStreamDestroy(stream[d]));
        CHECK(cudaEventDestroy(start[d]));
        CHECK(cudaEventDestroy(stop[d]));
    }
    return 0;
}
