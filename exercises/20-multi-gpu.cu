// Lesson 20 — multi-GPU: a ring all-reduce over every GPU with peer copies, streams and events.
//
// A whole program. The lesson runs it on G GPUs, every GPU the program sees (emulated: 4, with
// CUDALAB_DEVICES=4; on a machine with 2 or more GPUs, the first 4 at most), as
//   ./program in.bin out.bin
//   in.bin:  a 32-bit count n (G or more), then G vectors of n 32-bit values, one per GPU;
//   out.bin: the G vectors after the all-reduce: each GPU's vector is then the element-wise sum
//            (modulo 2^32) of all of them.
// G is what cudaGetDeviceCount reports: 2 to kMaxGpus.
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

const int kMaxGpus = 8;  // one HGX board; more would need a file of more than 8 vectors anyway

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
    if (gpus < 2) {
        std::fprintf(stderr, "an all-reduce needs 2 GPUs or more, there %s %d (cudalab run --devices 4 emulates 4)\n", gpus == 1 ? "is" : "are", gpus);
        return 1;
    }
    if (gpus > kMaxGpus) {
        std::fprintf(stderr, "this program handles at most %d GPUs, there are %d: show it fewer (CUDA_VISIBLE_DEVICES=0,1,2,3 on GPUs, cudalab run --devices 4 emulated)\n", kMaxGpus, gpus);
        return 1;
    }
    FILE* f = std::fopen(argv[1], "rb");
    if (!f) { std::perror(argv[1]); return 1; }
    unsigned n = 0;
    if (std::fread(&n, sizeof n, 1, f) != 1 || n < unsigned(gpus)) { std::fprintf(stderr, "%s: no count of %d or more\n", argv[1], gpus); return 1; }
    const size_t bytes = size_t(n) * sizeof(unsigned);
    std::vector<unsigned> host(size_t(n) * gpus);
    if (std::fread(host.data(), sizeof(unsigned), host.size(), f) != host.size()) { std::fprintf(stderr, "%s: fewer than %d vectors of %u values\n", argv[1], gpus, n); return 1; }
    unsigned extra = 0;
    if (std::fread(&extra, sizeof extra, 1, f) == 1) { std::fprintf(stderr, "%s: more than %d vectors of %u values: it was written for more GPUs than the %d this program sees\n", argv[1], gpus, n, gpus); return 1; }
    std::fclose(f);

    std::vector<unsigned*> buf(gpus), recv(gpus);  // recv: on GPU 0, what each other GPU sent
    std::vector<cudaStream_t> stream(gpus);
    for (int d = 0; d < gpus; ++d) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaMalloc(&buf[d], bytes));
        CHECK(cudaStreamCreate(&stream[d]));
        CHECK(cudaMemcpy(buf[d], host.data() + size_t(d) * n, bytes, cudaMemcpyHostToDevice));
    }
    // GPU 0 and every other GPU may reach each other's memory directly (where the machine allows
    // it; otherwise the driver stages the copies through the host, only slower).
    for (int d = 1; d < gpus; ++d) {
        int can = 0;
        CHECK(cudaDeviceCanAccessPeer(&can, 0, d));
        CHECK(cudaSetDevice(0));
        if (can) CHECK(cudaDeviceEnablePeerAccess(d, 0));
        CHECK(cudaMalloc(&recv[d], bytes));
        CHECK(cudaDeviceCanAccessPeer(&can, d, 0));
        CHECK(cudaSetDevice(d));
        if (can) CHECK(cudaDeviceEnablePeerAccess(0, 0));
    }

    // TODO: replace this with a ring: G - 1 reduce-scatter steps and G - 1 all-gather steps, a stream per
    // GPU, each step's copy in the receiving GPU's stream after waiting for the sender's event.
    // Gather on GPU 0, add, broadcast: all in GPU 0's stream, one after the other.
    CHECK(cudaSetDevice(0));
    const int threads = 256;
    const unsigned blocks = unsigned((n + threads - 1) / threads);
    for (int d = 1; d < gpus; ++d) {
        CHECK(cudaMemcpyPeerAsync(recv[d], 0, buf[d], d, bytes, stream[0]));
        add<<<blocks, threads, 0, stream[0]>>>(buf[0], recv[d], n);
        CHECK(cudaGetLastError());
    }
    for (int d = 1; d < gpus; ++d) CHECK(cudaMemcpyPeerAsync(buf[d], d, buf[0], 0, bytes, stream[0]));
    CHECK(cudaStreamSynchronize(stream[0]));

    for (int d = 0; d < gpus; ++d) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaMemcpy(host.data() + size_t(d) * n, buf[d], bytes, cudaMemcpyDeviceToHost));
    }
    FILE* o = std::fopen(argv[2], "wb");
    if (!o || std::fwrite(host.data(), sizeof(unsigned), host.size(), o) != host.size()) { std::perror(argv[2]); return 1; }
    std::fclose(o);
    for (int d = 0; d < gpus; ++d) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaFree(buf[d]));
        CHECK(cudaStreamDestroy(stream[d]));
    }
    CHECK(cudaSetDevice(0));
    for (int d = 1; d < gpus; ++d) CHECK(cudaFree(recv[d]));
    std::printf("all-reduced %d vectors of %u values\n", gpus, n);
    return 0;
}
