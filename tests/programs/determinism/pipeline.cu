// Lesson 14's pattern: chunks copied in, processed and copied out over four streams, with the host
// doing its own work (a sleep of argv[1] ms) between issuing chunks. The modelled clock leaves the
// host's own work out, so the timeline must not depend on it, nor on the machine's load.
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

#include <cuda_runtime.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));       \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

__global__ void mix(const unsigned* in, unsigned* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned v = in[i];
        for (int r = 0; r < 16; ++r) v = (v ^ (v >> 15)) * 2246822519u + r;
        out[i] = v;
    }
}

int main(int argc, char** argv) {
    const int host_ms = argc > 1 ? std::atoi(argv[1]) : 0;
    const int n = 1 << 18, streams = 4, chunks = 8, chunk = n / chunks;
    unsigned *h_in, *h_out, *d_in, *d_out;
    CHECK(cudaMallocHost(&h_in, n * sizeof(unsigned)));
    CHECK(cudaMallocHost(&h_out, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&d_in, n * sizeof(unsigned)));
    CHECK(cudaMalloc(&d_out, n * sizeof(unsigned)));
    for (int i = 0; i < n; ++i) h_in[i] = unsigned(i) * 2654435761u;
    cudaStream_t s[streams];
    for (auto& x : s) CHECK(cudaStreamCreateWithFlags(&x, cudaStreamNonBlocking));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start, s[0]));
    for (int c = 0; c < chunks; ++c) {
        cudaStream_t st = s[c % streams];
        const int off = c * chunk;
        CHECK(cudaMemcpyAsync(d_in + off, h_in + off, chunk * sizeof(unsigned), cudaMemcpyHostToDevice, st));
        mix<<<chunk / 256, 256, 0, st>>>(d_in + off, d_out + off, chunk);
        CHECK(cudaMemcpyAsync(h_out + off, d_out + off, chunk * sizeof(unsigned), cudaMemcpyDeviceToHost, st));
        if (host_ms) usleep(host_ms * 1000);
    }
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaEventRecord(stop, s[0]));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    std::printf("pipeline: %.4f ms\n", ms);
    return 0;
}
