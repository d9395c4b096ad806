// Corpus (tests/submissions_test.cpp): the host mixes every value: managed memory that never leaves the host.
// corpus: expect fewer than one launch per round
// Lesson 17 — unified memory: fewer page migrations with prefetches and advice.
//
// A whole program. The lesson runs it as   ./program in.bin out.bin
//   in.bin:  a 32-bit count n (1 or more), n 32-bit values, then the 4096 32-bit values of a table;
//   out.bin: the n values after 4 rounds of mix() (below).
// The GPU and the host share the work: each round a kernel mixes the first `split` values while
// the host mixes the rest, both with the same table. Everything lives in managed memory
// (cudaMallocManaged), so there are no copies to write: pages move between the host and the
// device on demand, each time one side touches a page the other side has.
//
// As shipped, the result is right but the pages move back and forth hundreds of times. Make
// them move (almost) only when you say so: lessons/17-unified-memory/lesson.md.
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

const int kTable = 4096, kRounds = 4;

__host__ __device__ unsigned mix(unsigned v, const unsigned* table, unsigned round)
{
    return (v ^ table[v & (kTable - 1)]) * 2654435761u + round;
}

__global__ void mix_kernel(unsigned* data, const unsigned* table, int n, unsigned round)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = mix(data[i], table, round);
}

int main(int argc, char** argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s in.bin out.bin\n", argv[0]);
        return 2;
    }
    FILE* f = std::fopen(argv[1], "rb");
    if (!f) { std::perror(argv[1]); return 1; }
    unsigned n = 0;
    if (std::fread(&n, sizeof n, 1, f) != 1 || n == 0) { std::fprintf(stderr, "%s: no count\n", argv[1]); return 1; }

    unsigned *data = nullptr, *table = nullptr;
    CHECK(cudaMallocManaged(&data, size_t(n) * sizeof(unsigned)));
    CHECK(cudaMallocManaged(&table, kTable * sizeof(unsigned)));
    if (std::fread(data, sizeof(unsigned), n, f) != n || std::fread(table, sizeof(unsigned), kTable, f) != size_t(kTable)) {
        std::fprintf(stderr, "%s: short file\n", argv[1]);
        return 1;
    }
    std::fclose(f);

    // TODO: advise the table read-mostly (both sides read it every round), prefetch the GPU's share
    // to the device before the first round, and cut the shares on a 64 KB boundary.
    // The GPU takes about seven eighths of the values, the host the rest.
    const unsigned split = 0;  // the host does everything
    const int threads = 256;
    for (int r = 0; r < kRounds; ++r) {
        if (split) {
            mix_kernel<<<(split + threads - 1) / threads, threads>>>(data, table, int(split), unsigned(r));
            CHECK(cudaGetLastError());
        }
        for (unsigned i = split; i < n; ++i) data[i] = mix(data[i], table, unsigned(r));  // meanwhile, on the host
        CHECK(cudaDeviceSynchronize());
    }

    // TODO: prefetch the GPU's share back to the host (and wait for it) before the host reads it.
    unsigned checksum = 0;  // the host reads every value
    for (unsigned i = 0; i < n; ++i) checksum = checksum * 31u + data[i];

    FILE* o = std::fopen(argv[2], "wb");
    if (!o || std::fwrite(data, sizeof(unsigned), n, o) != n) { std::perror(argv[2]); return 1; }
    std::fclose(o);
    CHECK(cudaFree(data));
    CHECK(cudaFree(table));
    std::printf("%u values, %d rounds, checksum %08x\n", n, kRounds, checksum);
    return 0;
}
