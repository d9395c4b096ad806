// Correct, a warp per filter, but the weights stay in global memory (a __restrict__ pointer):
// every weight is a global load, and constant memory is not used at all.
// corpus: expect the kernel reads the weights from constant memory
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

constexpr int kMaxFilters = 8, kMaxTaps = 31;


// One thread per output position of one filter; the grid's y dimension is the filter.
__global__ void filter_bank(float* out, const float* x, const float* __restrict__ w, int n, int K)
{
    const int f = blockIdx.y;                               // the same for the whole block
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int half = K / 2;
    float acc = 0.0f;
    for (int k = 0; k < K; ++k) {
        const int j = i + k - half;
        const float v = (j >= 0 && j < n) ? x[j] : 0.0f;
        acc += w[f * K + k] * v;
    }
    out[f * n + i] = acc;
}

int main(int argc, char** argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s in.bin out.bin\n", argv[0]);
        return 2;
    }
    FILE* f = std::fopen(argv[1], "rb");
    if (!f) { std::perror(argv[1]); return 1; }
    int header[3];
    if (std::fread(header, sizeof(int), 3, f) != 3) { std::fprintf(stderr, "%s: no header\n", argv[1]); return 1; }
    const int n = header[0], F = header[1], K = header[2];
    if (n < 1 || F < 1 || F > kMaxFilters || K < 1 || K > kMaxTaps) {
        std::fprintf(stderr, "%s: n = %d, F = %d, K = %d out of range\n", argv[1], n, F, K);
        return 1;
    }
    std::vector<float> w(size_t(F) * K), x(n), out(size_t(F) * n);
    if (std::fread(w.data(), sizeof(float), w.size(), f) != w.size() ||
        std::fread(x.data(), sizeof(float), x.size(), f) != x.size()) {
        std::fprintf(stderr, "%s: short file\n", argv[1]);
        return 1;
    }
    std::fclose(f);

    float *d_w = nullptr, *d_x = nullptr, *d_out = nullptr;
    CHECK(cudaMalloc(&d_w, w.size() * sizeof(float)));
    CHECK(cudaMemcpy(d_w, w.data(), w.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMalloc(&d_x, x.size() * sizeof(float)));
    CHECK(cudaMalloc(&d_out, out.size() * sizeof(float)));
    CHECK(cudaMemcpy(d_x, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice));

    const int threads = 256;
    const dim3 grid((n + threads - 1) / threads, F);
    filter_bank<<<grid, threads>>>(d_out, d_x, d_w, n, K);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost));

    FILE* o = std::fopen(argv[2], "wb");
    if (!o || std::fwrite(out.data(), sizeof(float), out.size(), o) != out.size()) { std::perror(argv[2]); return 1; }
    std::fclose(o);
    CHECK(cudaFree(d_w));
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_out));
    std::printf("%d filters of %d taps over %d samples\n", F, K, n);
    return 0;
}
