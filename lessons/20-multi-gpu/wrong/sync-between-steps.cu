// Lesson 20, a known-slow variant for `cudalab lint`: the solution with the host synchronising
// every GPU's stream between the ring's steps. Right, and the events already order the steps, so
// the waits only leave the links idle: "the host does not wait between the ring's steps" fails.
// Lesson 20 — multi-GPU: a ring all-reduce over every GPU with peer copies, streams and events (solution).
//
// A whole program. The lesson runs it on G GPUs, every GPU the program sees (emulated: 4, with
// CUDALAB_DEVICES=4; on a machine with 2 or more GPUs, the first 4 at most), as
//   ./program in.bin out.bin
//   in.bin:  a 32-bit count n (G or more), then G vectors of n 32-bit values, one per GPU;
//   out.bin: the G vectors after the all-reduce: each GPU's vector is then the element-wise sum
//            (modulo 2^32) of all of them.
// G is what cudaGetDeviceCount reports: 2 to kMaxGpus.
//
// The solution: a ring. Each vector is cut into G chunks. In G - 1 reduce-scatter steps every GPU
// sends one chunk to the next GPU in the ring, which adds it to its own; after them GPU d holds
// the complete sum of chunk (d + 1) % G. In G - 1 all-gather steps the complete chunks go round
// the ring the same way, copied over instead of added. Every GPU sends and receives
// 2 (G - 1) / G of its vector, all links busy at once, instead of GPU 0 receiving and sending
// G - 1 whole vectors. With G = 2 the ring is an exchange: each GPU sends the other half its vector
// (reduce-scatter), then the half it completed (all-gather).
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

    // Chunk c is [first[c], first[c] + count[c]); the last one may be shorter.
    std::vector<size_t> first(gpus), count(gpus);
    const size_t chunk = (size_t(n) + gpus - 1) / gpus;
    for (int c = 0; c < gpus; ++c) {
        first[c] = size_t(c) * chunk < n ? size_t(c) * chunk : n;
        count[c] = (first[c] + chunk < n ? first[c] + chunk : n) - first[c];
    }

    std::vector<unsigned*> buf(gpus), recv(gpus);  // recv: on each GPU, the chunk its ring neighbour sent
    std::vector<cudaStream_t> stream(gpus);
    std::vector<cudaEvent_t> ready(gpus);
    for (int d = 0; d < gpus; ++d) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaMalloc(&buf[d], bytes));
        CHECK(cudaMalloc(&recv[d], chunk * sizeof(unsigned)));
        CHECK(cudaStreamCreateWithFlags(&stream[d], cudaStreamNonBlocking));
        CHECK(cudaEventCreateWithFlags(&ready[d], cudaEventDisableTiming));
        CHECK(cudaMemcpyAsync(buf[d], host.data() + size_t(d) * n, bytes, cudaMemcpyHostToDevice, stream[d]));
        // Each GPU reaches its predecessor's memory over the ring's link. Without peer access the
        // copies still work, staged through the host by the driver, only slower.
        const int prev = (d + gpus - 1) % gpus;
        int can = 0;
        CHECK(cudaDeviceCanAccessPeer(&can, d, prev));
        if (can) CHECK(cudaDeviceEnablePeerAccess(prev, 0));
        else std::fprintf(stderr, "note: GPU %d cannot reach GPU %d as a peer; its copies go through the host\n", d, prev);
    }

    const int threads = 256;
    for (int step = 0; step < 2 * (gpus - 1); ++step) {
        const bool reduce = step < gpus - 1;  // reduce-scatter, then all-gather
        // Each GPU marks "everything I did so far", i.e. the chunk I send next is complete.
        for (int d = 0; d < gpus; ++d) {
            CHECK(cudaSetDevice(d));
            CHECK(cudaEventRecord(ready[d], stream[d]));
        }
        for (int d = 0; d < gpus; ++d) {
            const int next = (d + 1) % gpus;
            // Reduce-scatter step s: GPU d sends chunk (d - s); all-gather step s: chunk (d + 1 - s).
            const int s = reduce ? step : step - (gpus - 1);
            const int c = ((reduce ? d - s : d + 1 - s) % gpus + gpus) % gpus;
            if (!count[c]) continue;
            CHECK(cudaSetDevice(next));
            CHECK(cudaStreamWaitEvent(stream[next], ready[d], 0));
            unsigned* to = reduce ? recv[next] : buf[next] + first[c];
            CHECK(cudaMemcpyPeerAsync(to, next, buf[d] + first[c], d, count[c] * sizeof(unsigned), stream[next]));
            if (reduce) {
                add<<<unsigned((count[c] + threads - 1) / threads), threads, 0, stream[next]>>>(buf[next] + first[c], recv[next], count[c]);
                CHECK(cudaGetLastError());
            }
        }
        // The mistake: the host waits for every GPU after each step, as if events were not enough.
        for (int d = 0; d < gpus; ++d) CHECK(cudaStreamSynchronize(stream[d]));
    }

    for (int d = 0; d < gpus; ++d) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaMemcpyAsync(host.data() + size_t(d) * n, buf[d], bytes, cudaMemcpyDeviceToHost, stream[d]));
    }
    for (int d = 0; d < gpus; ++d) CHECK(cudaStreamSynchronize(stream[d]));
    FILE* o = std::fopen(argv[2], "wb");
    if (!o || std::fwrite(host.data(), sizeof(unsigned), host.size(), o) != host.size()) { std::perror(argv[2]); return 1; }
    std::fclose(o);
    for (int d = 0; d < gpus; ++d) {
        CHECK(cudaSetDevice(d));
        CHECK(cudaFree(buf[d]));
        CHECK(cudaFree(recv[d]));
        CHECK(cudaStreamDestroy(stream[d]));
        CHECK(cudaEventDestroy(ready[d]));
    }
    std::printf("all-reduced %d vectors of %u values\n", gpus, n);
    return 0;
}
