// Lesson 20 — multi-GPU: a ring all-reduce over 4 GPUs with peer copies, streams and events.
//
// A whole program. The lesson runs it on 4 GPUs (emulated: CUDALAB_DEVICES=4) as
//   ./program in.bin out.bin
//   in.bin:  a 32-bit count n (4 or more), then 4 vectors of n 32-bit values, one per GPU;
//   out.bin: the 4 vectors after the all-reduce: each GPU's vector is then the element-wise sum
//            (modulo 2^32) of all four.
// Each vector is copied to its GPU, the GPUs reduce among themselves with peer copies (no
// staging through the host), and each GPU's result is copied back.
//
// As shipped, the all-reduce is correct but slow: every GPU sends its whole vector to GPU 0,
// which adds them up and sends the sum back to each. GPU 0's link carries everything, twice.
// Make it a ring (lessons/20-multi-gpu/lesson.md).
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                              \
    do {                                                                                         \
        cudaError_t err_ = (call);                                                               \
        if (err_ != cudaSuccess) {                                                               \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(err_)); \
            std::exit(1);                                                                        \
        }                                                                                        \
    } while (0)

const int kGpus = 4;

// sum[i] += part[i]
__global__ void add(unsigned* sum, const unsigned* part, size_t count)
{
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < count) sum[i] += part[i];
}

int main(int argc, char** argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s in.bin out.bin\n", argv[0]);
        return 2;
    }
    int gpus = 0;
    CHECK(cudaGetDeviceCount(&gpus));
    if (gpus < kGpus) {
        std::fprintf(stderr, "this program needs %d GPUs, there are %d (cudalab run --devices 4)\n", kGpus, gpus);
        return 1;
    }
    FILE* f = std::fopen(argv[1], "rb");
    if (!f) { std::perror(argv[1]); return 1; }
    unsigned n = 0;
    if (std::fread(&n, sizeof n, 1, f) != 1 || n < kGpus) { std::fprintf(stderr, "%s: no count\n", argv[1]); return 1; }
    const size_t bytes = size_t(n) * sizeof(unsigned);
    std::vector<unsigned> host(size_t(n) * kGpus);
    if (std::fread(host.data(), sizeof(unsigned), host.size(), f) != host.size()) { std::fprintf(stderr, "%s: short file\n", argv[1]); return 1; }
    std::fclose(f);

    unsigned* buf[kGpus];
    unsigned* recv[kGpus] = {};  // on GPU 0: what each other GPU sent
    cudaStream_t stream[kGpus];
    for (int d = 0; d < kGpus; ++d) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaMalloc(&buf[d], bytes));
        CHECK(cudaStreamCreate(&stream[d]));
        CHECK(cudaMemcpy(buf[d], host.data() + size_t(d) * n, bytes, cudaMemcpyHostToDevice));
    }
    // GPU 0 and every other GPU may reach each other's memory directly.
    for (int d = 1; d < kGpus; ++d) {
        CHECK(cudaSetDevice(0));
        CHECK(cudaDeviceEnablePeerAccess(d, 0));
        CHECK(cudaMalloc(&recv[d], bytes));
        CHECK(cudaSetDevice(d));
        CHECK(cudaDeviceEnablePeerAccess(0, 0));
    }

    // TODO: replace this with a ring: 3 reduce-scatter steps and 3 all-gather steps, a stream per
    // GPU, each step's copy in the receiving GPU's stream after waiting for the sender's event.
    // Gather on GPU 0, add, broadcast: all in GPU 0's stream, one after the other.
    CHECK(cudaSetDevice(0));
    const int threads = 256;
    const unsigned blocks = unsigned((n + threads - 1) / threads);
    for (int d = 1; d < kGpus; ++d) {
        CHECK(cudaMemcpyPeerAsync(recv[d], 0, buf[d], d, bytes, stream[0]));
        add<<<blocks, threads, 0, stream[0]>>>(buf[0], recv[d], n);
        CHECK(cudaGetLastError());
    }
    for (int d = 1; d < kGpus; ++d) CHECK(cudaMemcpyPeerAsync(buf[d], d, buf[0], 0, bytes, stream[0]));
    CHECK(cudaStreamSynchronize(stream[0]));

    for (int d = 0; d < kGpus; ++d) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaMemcpy(host.data() + size_t(d) * n, buf[d], bytes, cudaMemcpyDeviceToHost));
    }
    FILE* o = std::fopen(argv[2], "wb");
    if (!o || std::fwrite(host.data(), sizeof(unsigned), host.size(), o) != host.size()) { std::perror(argv[2]); return 1; }
    std::fclose(o);
    for (int d = 0; d < kGpus; ++d) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaFree(buf[d]));
        CHECK(cudaStreamDestroy(stream[d]));
    }
    CHECK(cudaSetDevice(0));
    for (int d = 1; d < kGpus; ++d) CHECK(cudaFree(recv[d]));
    std::printf("all-reduced %d vectors of %u values\n", kGpus, n);
    return 0;
}
