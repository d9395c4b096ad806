// Lesson 17: the solution with a grid-stride kernel of 132 blocks (one per SM of an H200): fewer
// threads than values, each taking several. The GPU still does its share.
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
    // A grid-stride loop: a fixed grid, each thread takes every (gridDim.x * blockDim.x)-th value.
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        data[i] = mix(data[i], table, round);
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

    int device = 0;
    CHECK(cudaGetDevice(&device));
    cudaMemLocation on_device{}, on_host{};
    on_device.type = cudaMemLocationTypeDevice;
    on_device.id = device;
    on_host.type = cudaMemLocationTypeHost;

    // Both sides read the table and neither writes it after this: with read-mostly advice each
    // keeps a copy, instead of the pages moving to whichever side touched them last.
    CHECK(cudaMemAdvise(table, kTable * sizeof(unsigned), cudaMemAdviseSetReadMostly, on_device));

    // The GPU takes about seven eighths of the values, the host the rest, cut at a multiple of
    // 64 KB: a page holding values of both shares would move at every round (pages are 4 KB on
    // the emulator; a GPU's driver moves managed memory in pieces of up to 2 MB).
    const unsigned per_piece = 65536 / sizeof(unsigned);
    const unsigned split = (n - n / 8) / per_piece * per_piece;
    // Move the GPU's share over in one go, before the first kernel wants it.
    if (split) CHECK(cudaMemPrefetchAsync(data, size_t(split) * sizeof(unsigned), on_device, 0, 0));
    const int threads = 256;
    for (int r = 0; r < kRounds; ++r) {
        if (split) {
            mix_kernel<<<132, threads>>>(data, table, int(split), unsigned(r));
            CHECK(cudaGetLastError());
        }
        for (unsigned i = split; i < n; ++i) data[i] = mix(data[i], table, unsigned(r));  // meanwhile, on the host
        CHECK(cudaDeviceSynchronize());
    }

    // The host reads every value next: bring the GPU's share back in one go.
    if (split) CHECK(cudaMemPrefetchAsync(data, size_t(split) * sizeof(unsigned), on_host, 0, 0));
    CHECK(cudaDeviceSynchronize());
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
