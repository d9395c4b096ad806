// Lesson 18: the standard fix at build time: machine code for every architecture from sm_75 to
// sm_120, plus PTX for the newest, so that a later GPU can compile it. Every call checked.
// nvcc: -gencode arch=compute_75,code=sm_75 -gencode arch=compute_80,code=sm_80 -gencode arch=compute_86,code=sm_86 -gencode arch=compute_89,code=sm_89 -gencode arch=compute_90,code=sm_90 -gencode arch=compute_100,code=sm_100 -gencode arch=compute_120,code=[sm_120,compute_120]
#include <cstdio>
#include <cstdlib>

#define CHECK(call)                                                                              \
    do {                                                                                         \
        cudaError_t err_ = (call);                                                               \
        if (err_ != cudaSuccess) {                                                               \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                   \
                         cudaGetErrorName(err_));                                                \
            std::exit(1);                                                                        \
        }                                                                                        \
    } while (0)

__global__ void mix(unsigned* data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned v = data[i];
    for (unsigned r = 0; r < 64; ++r) v = (v ^ (v >> 13)) * 2654435761u + r;
    data[i] = v;
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
    const size_t bytes = size_t(n) * sizeof(unsigned);
    unsigned* h = (unsigned*)std::malloc(bytes);
    if (!h || std::fread(h, sizeof(unsigned), n, f) != n) { std::fprintf(stderr, "%s: short file\n", argv[1]); return 1; }
    std::fclose(f);

    unsigned* d = nullptr;
    CHECK(cudaMalloc(&d, bytes));
    CHECK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
    // Four batches, one launch each.
    const int threads = 256, batches = 4;
    const unsigned per = (n + batches - 1) / batches;
    for (int b = 0; b < batches; ++b) {
        const unsigned first = b * per;
        if (first >= n) break;
        const unsigned count = n - first < per ? n - first : per;
        mix<<<(count + threads - 1) / threads, threads>>>(d + first, int(count));
        CHECK(cudaGetLastError());
    }
    CHECK(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost));

    FILE* o = std::fopen(argv[2], "wb");
    if (!o || std::fwrite(h, sizeof(unsigned), n, o) != n) { std::perror(argv[2]); return 1; }
    std::fclose(o);
    CHECK(cudaFree(d));
    std::free(h);
    std::printf("mixed %u values\n", n);
    return 0;
}
