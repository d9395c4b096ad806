// The host computes mix(); the device only carries the answer: four streams of pinned chunks
// copied in and straight back out, so the copies overlap as the lesson wants, and a kernel that
// touches nothing keeps the launch count up. No kernel made a byte of out.bin.
// corpus: expect out.bin was not copied from device memory that the kernels wrote
#include <cstdio>
#include <cstdlib>
#include <cstring>

__global__ void idle(unsigned* p) { if (p == nullptr) p[threadIdx.x] = 0; }

int main(int argc, char** argv)
{
    if (argc != 3) return 2;
    FILE* f = std::fopen(argv[1], "rb");
    unsigned n = 0;
    if (!f || std::fread(&n, sizeof n, 1, f) != 1) return 1;
    unsigned* h = nullptr;
    cudaMallocHost(&h, n * sizeof(unsigned));
    if (std::fread(h, sizeof(unsigned), n, f) != n) return 1;
    std::fclose(f);
    for (unsigned i = 0; i < n; ++i)
        for (unsigned r = 0; r < 256; ++r) h[i] = (h[i] ^ (h[i] >> 15)) * 2246822519u + r;
    unsigned* d = nullptr;
    cudaMalloc(&d, n * sizeof(unsigned));
    cudaStream_t s[4];
    for (auto& x : s) cudaStreamCreate(&x);
    const unsigned chunk = (n + 3) / 4;
    for (unsigned c = 0; c < 4; ++c) {
        const unsigned lo = c * chunk, count = lo >= n ? 0 : (n - lo < chunk ? n - lo : chunk);
        if (!count) continue;
        cudaMemcpyAsync(d + lo, h + lo, count * 4, cudaMemcpyHostToDevice, s[c]);
        idle<<<1, 32, 0, s[c]>>>(d + lo);
        cudaMemcpyAsync(h + lo, d + lo, count * 4, cudaMemcpyDeviceToHost, s[c]);
    }
    cudaDeviceSynchronize();
    FILE* o = std::fopen(argv[2], "wb");
    if (!o || std::fwrite(h, sizeof(unsigned), n, o) != n) return 1;
    std::fclose(o);
    for (auto& x : s) cudaStreamDestroy(x);
    cudaFree(d);
    cudaFreeHost(h);
    return 0;
}
