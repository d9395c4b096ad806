// Adds on the host; the kernel launched is a decoy that writes c = a (not a + b), its result
// copied back and thrown away. Every allocation is freed and errors are checked, so only where
// out.bin's bytes came from tells.
// corpus: expect out.bin was not copied from device memory that the kernels wrote
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(call)                                                                              \
    do {                                                                                         \
        cudaError_t err_ = (call);                                                               \
        if (err_ != cudaSuccess) {                                                               \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                   \
                         cudaGetErrorString(err_));                                              \
            std::exit(1);                                                                        \
        }                                                                                        \
    } while (0)

__global__ void copy_a(float* c, const float* a, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        c[i] = a[i];
}

int main(int argc, char** argv)
{
    if (argc != 3) return 2;
    FILE* f = std::fopen(argv[1], "rb");
    int n = 0;
    if (!f || std::fread(&n, sizeof n, 1, f) != 1 || n < 0) return 1;
    std::vector<float> a(n), b(n), c(n), junk(n);
    if (std::fread(a.data(), 4, n, f) != size_t(n) || std::fread(b.data(), 4, n, f) != size_t(n))
        return 1;
    std::fclose(f);
    for (int i = 0; i < n; ++i) c[i] = a[i] + b[i];
    float *da, *dc;
    CHECK(cudaMalloc(&da, n * 4 + 4));
    CHECK(cudaMalloc(&dc, n * 4 + 4));
    CHECK(cudaMemcpy(da, a.data(), n * 4, cudaMemcpyHostToDevice));
    copy_a<<<64, 256>>>(dc, da, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(junk.data(), dc, n * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(da));
    CHECK(cudaFree(dc));
    FILE* o = std::fopen(argv[2], "wb");
    if (!o || std::fwrite(c.data(), 4, n, o) != size_t(n)) return 1;
    std::fclose(o);
    return 0;
}
