// Lesson 02b — the host side of vector add: a whole program (solution).
//
// The lesson runs it as   ./program in.bin out.bin
//   in.bin:  a 32-bit count n, then n floats a, then n floats b;
//   out.bin: this program writes the n floats c = a + b.
// It must exit with status 0 when it worked, and non-zero (saying why) when a CUDA call failed.
//
// The solution: allocate, copy in, launch, check the launch, copy back, free; every call checked.
#include <cstdio>
#include <cstdlib>
#include <vector>

// Every CUDA runtime call returns a cudaError_t: say which call failed, where, and why, and stop.
#define CHECK(call)                                                                              \
    do {                                                                                         \
        cudaError_t err_ = (call);                                                               \
        if (err_ != cudaSuccess) {                                                               \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                   \
                         cudaGetErrorString(err_));                                              \
            std::exit(1);                                                                        \
        }                                                                                        \
    } while (0)

__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        c[i] = a[i] + b[i];
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
    if (std::fread(&n, sizeof n, 1, f) != 1) { std::fprintf(stderr, "%s: no count\n", argv[1]); return 1; }
    std::vector<float> a(n), b(n), c(n);
    if (std::fread(a.data(), sizeof(float), n, f) != n || std::fread(b.data(), sizeof(float), n, f) != n) {
        std::fprintf(stderr, "%s: short file\n", argv[1]);
        return 1;
    }
    std::fclose(f);
    const size_t bytes = size_t(n) * sizeof(float);

    float *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;
    CHECK(cudaMalloc(&d_a, bytes));
    CHECK(cudaMalloc(&d_b, bytes));
    CHECK(cudaMalloc(&d_c, bytes));

    CHECK(cudaMemcpy(d_a, a.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, b.data(), bytes, cudaMemcpyHostToDevice));

    const int threads = 256;
    const int blocks = n == 0 ? 1 : int((n + threads - 1) / threads < 1024 ? (n + threads - 1) / threads : 1024);
    vector_add<<<blocks, threads>>>(d_a, d_b, d_c, int(n));
    CHECK(cudaGetLastError());       // the launch itself (a bad configuration)
    CHECK(cudaDeviceSynchronize());  // the kernel's run (a fault while it ran)

    CHECK(cudaMemcpy(c.data(), d_c, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_c));

    FILE* o = std::fopen(argv[2], "wb");
    if (!o || std::fwrite(c.data(), sizeof(float), n, o) != n) { std::perror(argv[2]); return 1; }
    std::fclose(o);
    std::printf("added %u pairs\n", n);
    return 0;
}
