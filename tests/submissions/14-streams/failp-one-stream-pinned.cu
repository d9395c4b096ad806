// Lesson 14: pinned memory and 8 chunks, all in one stream: nothing overlaps, and the advice
// must say it is the single stream.
// corpus: expect every kernel ran in one stream
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK(call)                                                                              \
    do {                                                                                         \
        cudaError_t err_ = (call);                                                               \
        if (err_ != cudaSuccess) {                                                               \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                   \
                         cudaGetErrorString(err_));                                              \
            std::exit(1);                                                                        \
        }                                                                                        \
    } while (0)

// Some arithmetic per element, so that a chunk's kernel takes about as long as its copies.
__global__ void mix(unsigned* out, const unsigned* in, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned v = in[i];
    for (unsigned r = 0; r < 256; ++r) v = (v ^ (v >> 15)) * 2246822519u + r;
    out[i] = v;
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
    const size_t bytes = size_t(n) * sizeof(unsigned);

    // Pinned (page-locked) memory: the copy engines read and write it directly, so a
    // cudaMemcpyAsync returns at once and runs while the host and the SMs do other work.
    unsigned *h_in = nullptr, *h_out = nullptr;
    CHECK(cudaMallocHost(&h_in, bytes ? bytes : 1));
    CHECK(cudaMallocHost(&h_out, bytes ? bytes : 1));
    if (std::fread(h_in, sizeof(unsigned), n, f) != n) { std::fprintf(stderr, "%s: short file\n", argv[1]); return 1; }
    std::fclose(f);

    unsigned *d_in = nullptr, *d_out = nullptr;
    CHECK(cudaMalloc(&d_in, bytes ? bytes : 1));
    CHECK(cudaMalloc(&d_out, bytes ? bytes : 1));

    // Non-blocking streams: they do not wait for the legacy default stream, nor it for them.
    const int nstreams = 1, nchunks = 8, threads = 256;
    cudaStream_t streams[nstreams];
    for (auto& s : streams) CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    const unsigned chunk = (n + nchunks - 1) / nchunks;
    for (int k = 0; k < nchunks; ++k) {
        const unsigned first = k * chunk;
        if (first >= n) break;
        const unsigned count = n - first < chunk ? n - first : chunk;
        cudaStream_t s = streams[k % nstreams];
        // In one stream the three steps of a chunk stay in order; the chunks of other streams
        // fill the gaps on the other engines.
        CHECK(cudaMemcpyAsync(d_in + first, h_in + first, count * sizeof(unsigned), cudaMemcpyHostToDevice, s));
        mix<<<(count + threads - 1) / threads, threads, 0, s>>>(d_out + first, d_in + first, int(count));
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpyAsync(h_out + first, d_out + first, count * sizeof(unsigned), cudaMemcpyDeviceToHost, s));
    }
    CHECK(cudaDeviceSynchronize());  // the host reads h_out next: wait for every stream
    for (auto& s : streams) CHECK(cudaStreamDestroy(s));

    FILE* o = std::fopen(argv[2], "wb");
    if (!o || std::fwrite(h_out, sizeof(unsigned), n, o) != n) { std::perror(argv[2]); return 1; }
    std::fclose(o);

    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    CHECK(cudaFreeHost(h_in));
    CHECK(cudaFreeHost(h_out));
    std::printf("mixed %u values\n", n);
    return 0;
}
