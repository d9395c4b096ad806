// The host adds the vectors; each GPU then sends one peer copy of memory it never wrote to the
// next, so the peer-copy counters see a ring. No kernel's sum reached out.bin.
// corpus: expect out.bin was not copied from device memory that the kernels wrote
#include <cstdio>
#include <vector>

int main(int argc, char** argv)
{
    if (argc != 3) return 2;
    int g = 0;
    cudaGetDeviceCount(&g);
    FILE* f = std::fopen(argv[1], "rb");
    unsigned n = 0;
    if (!f || std::fread(&n, sizeof n, 1, f) != 1 || g < 2) return 1;
    std::vector<unsigned> all(size_t(n) * g), sum(n, 0);
    if (std::fread(all.data(), 4, all.size(), f) != all.size()) return 1;
    std::fclose(f);
    for (int d = 0; d < g; ++d)
        for (unsigned i = 0; i < n; ++i) sum[i] += all[size_t(d) * n + i];
    std::vector<unsigned*> buf(g);
    for (int d = 0; d < g; ++d) {
        cudaSetDevice(d);
        cudaMalloc(&buf[d], n * 4);
        for (int p = 0; p < g; ++p)
            if (p != d) cudaDeviceEnablePeerAccess(p, 0);
    }
    for (int d = 0; d < g; ++d)
        cudaMemcpyPeer(buf[(d + 1) % g], (d + 1) % g, buf[d], d, n * 4);
    for (int d = 0; d < g; ++d) {
        cudaSetDevice(d);
        cudaDeviceSynchronize();
        cudaFree(buf[d]);
    }
    FILE* o = std::fopen(argv[2], "wb");
    for (int d = 0; d < g; ++d)
        if (!o || std::fwrite(sum.data(), 4, n, o) != n) return 1;
    std::fclose(o);
    return 0;
}
