// The host runs every step; each step still makes three stream-ordered allocations of 4 bytes and
// frees them, with the pool told to keep memory, so the allocation counters look right. No kernel
// computed anything that reached out.bin.
// corpus: expect out.bin was not copied from device memory that the kernels wrote
#include <cstdint>
#include <cstdio>
#include <vector>

int main(int argc, char** argv)
{
    if (argc != 3) return 2;
    FILE* f = std::fopen(argv[1], "rb");
    unsigned header[2];
    if (!f || std::fread(header, sizeof(unsigned), 2, f) != 2) return 1;
    const int n = int(header[0]), steps = int(header[1]);
    std::vector<unsigned> v(n), tmp(n);
    if (std::fread(v.data(), sizeof(unsigned), v.size(), f) != v.size()) return 1;
    std::fclose(f);
    cudaStream_t stream;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    cudaMemPool_t pool;
    cudaDeviceGetDefaultMemPool(&pool, 0);
    std::uint64_t keep = UINT64_MAX;
    cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
    std::vector<unsigned> sums;
    for (int step = 0; step < steps; ++step) {
        void *a, *b, *c;
        cudaMallocAsync(&a, 4, stream);
        cudaMallocAsync(&b, 4, stream);
        cudaMallocAsync(&c, 4, stream);
        for (int i = 0; i < n; ++i)
            tmp[i] = v[(7ull * i + 1) % n] ^ (v[i] * 2654435761u + unsigned(step));
        unsigned sum = 0;
        for (int i = 0; i < n; ++i) {
            v[i] = tmp[i] + (tmp[i] >> 11);
            sum += v[i];
        }
        sums.push_back(sum);
        cudaFreeAsync(a, stream);
        cudaFreeAsync(b, stream);
        cudaFreeAsync(c, stream);
        cudaStreamSynchronize(stream);
    }
    FILE* o = std::fopen(argv[2], "wb");
    if (!o || std::fwrite(v.data(), 4, v.size(), o) != v.size() ||
        std::fwrite(sums.data(), 4, sums.size(), o) != sums.size())
        return 1;
    std::fclose(o);
    cudaStreamDestroy(stream);
    return 0;
}
