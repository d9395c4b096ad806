// Corpus (tests/submissions_test.cpp): a fair alternative: each copy in the sending GPU's stream, the receiver waiting on an event after it.
// Lesson 20 — multi-GPU: a ring all-reduce over 4 GPUs with peer copies, streams and events (solution).
//
// A whole program. The lesson runs it on 4 GPUs (emulated: CUDALAB_DEVICES=4) as
//   ./program in.bin out.bin
//   in.bin:  a 32-bit count n (4 or more), then 4 vectors of n 32-bit values, one per GPU;
//   out.bin: the 4 vectors after the all-reduce: each GPU's vector is then the element-wise sum
//            (modulo 2^32) of all four.
//
// The solution: a ring. Each vector is cut into 4 chunks. In 3 reduce-scatter steps every GPU
// sends one chunk to the next GPU in the ring, which adds it to its own; after them GPU d holds
// the complete sum of chunk (d + 1) % 4. In 3 all-gather steps the complete chunks go round the
// ring the same way, copied over instead of added. Every GPU sends and receives 2 x 3/4 of its
// vector, all links busy at once, instead of GPU 0 receiving and sending 3 whole vectors.
//
// Each GPU has its own stream. A step's copy into GPU `next` is issued in next's stream, after
// a cudaStreamWaitEvent on an event the sending GPU recorded: the chunk it sends is complete
// then. The add that follows is in the same stream, so it sees the copy; the next step's copy
// into the same receive buffer comes after the add.
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

    // Chunk c is [first[c], first[c] + count[c]); the last one may be shorter.
    size_t first[kGpus], count[kGpus];
    const size_t chunk = (size_t(n) + kGpus - 1) / kGpus;
    for (int c = 0; c < kGpus; ++c) {
        first[c] = size_t(c) * chunk < n ? size_t(c) * chunk : n;
        count[c] = (first[c] + chunk < n ? first[c] + chunk : n) - first[c];
    }

    unsigned* buf[kGpus];
    unsigned* recv[kGpus];  // on each GPU: the chunk its ring neighbour sent
    cudaStream_t stream[kGpus];
    cudaEvent_t ready[kGpus], sent[kGpus];
    for (int d = 0; d < kGpus; ++d) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaMalloc(&buf[d], bytes));
        CHECK(cudaMalloc(&recv[d], chunk * sizeof(unsigned)));
        CHECK(cudaStreamCreateWithFlags(&stream[d], cudaStreamNonBlocking));
        CHECK(cudaEventCreateWithFlags(&ready[d], cudaEventDisableTiming));
        CHECK(cudaEventCreateWithFlags(&sent[d], cudaEventDisableTiming));
        CHECK(cudaMemcpyAsync(buf[d], host.data() + size_t(d) * n, bytes, cudaMemcpyHostToDevice, stream[d]));
        // Each GPU reads its predecessor's memory over the ring's link.
        CHECK(cudaDeviceEnablePeerAccess((d + 1) % kGpus, 0));
    }

    const int threads = 256;
    for (int step = 0; step < 2 * (kGpus - 1); ++step) {
        const bool reduce = step < kGpus - 1;  // reduce-scatter, then all-gather
        // Each GPU marks "everything I did so far", i.e. the chunk I send next is complete.
        for (int d = 0; d < kGpus; ++d) {
            CHECK(cudaSetDevice(d));
            CHECK(cudaEventRecord(ready[d], stream[d]));
        }
        for (int d = 0; d < kGpus; ++d) {
            const int next = (d + 1) % kGpus;
            // Reduce-scatter step s: GPU d sends chunk (d - s); all-gather step s: chunk (d + 1 - s).
            const int s = reduce ? step : step - (kGpus - 1);
            const int c = ((reduce ? d - s : d + 1 - s) % kGpus + kGpus) % kGpus;
            if (!count[c]) continue;
            // The sender copies in its own stream once the receiver is ready for it, and the
            // receiver waits for the copy.
            CHECK(cudaSetDevice(d));
            CHECK(cudaStreamWaitEvent(stream[d], ready[next], 0));
            unsigned* to = reduce ? recv[next] : buf[next] + first[c];
            CHECK(cudaMemcpyPeerAsync(to, next, buf[d] + first[c], d, count[c] * sizeof(unsigned), stream[d]));
            CHECK(cudaEventRecord(sent[d], stream[d]));
        }
        // Then every receiver: wait for the copy, add. (Issuing a GPU's add before its own send
        // would put the send behind the add in its stream, and the ring would go one GPU at a time.)
        for (int d = 0; d < kGpus; ++d) {
            const int next = (d + 1) % kGpus;
            const int s = reduce ? step : step - (kGpus - 1);
            const int c = ((reduce ? d - s : d + 1 - s) % kGpus + kGpus) % kGpus;
            if (!count[c]) continue;
            CHECK(cudaSetDevice(next));
            CHECK(cudaStreamWaitEvent(stream[next], sent[d], 0));
            if (reduce) {
                add<<<unsigned((count[c] + threads - 1) / threads), threads, 0, stream[next]>>>(buf[next] + first[c], recv[next], count[c]);
                CHECK(cudaGetLastError());
            }
        }
    }

    for (int d = 0; d < kGpus; ++d) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaMemcpyAsync(host.data() + size_t(d) * n, buf[d], bytes, cudaMemcpyDeviceToHost, stream[d]));
    }
    for (int d = 0; d < kGpus; ++d) CHECK(cudaStreamSynchronize(stream[d]));
    FILE* o = std::fopen(argv[2], "wb");
    if (!o || std::fwrite(host.data(), sizeof(unsigned), host.size(), o) != host.size()) { std::perror(argv[2]); return 1; }
    std::fclose(o);
    for (int d = 0; d < kGpus; ++d) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaFree(buf[d]));
        CHECK(cudaFree(recv[d]));
        CHECK(cudaStreamDestroy(stream[d]));
        CHECK(cudaEventDestroy(ready[d]));
        CHECK(cudaEventDestroy(sent[d]));
    }
    std::printf("all-reduced %d vectors of %u values\n", kGpus, n);
    return 0;
}
