// Lesson 19: the scratch buffers allocated once before the loop and reused by every step: for a
// fixed-size workload as good as stream-ordered allocation, and accepted.
// corpus: expect no allocation in the loop
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

constexpr int kThreads = 256;

// tmp[i] = v[(7i + 1) mod n] ^ (v[i] * 2654435761 + step): every element reads another one, so
// the result needs a buffer of its own.
__global__ void spread(unsigned* tmp, const unsigned* v, int n, unsigned step)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    tmp[i] = v[(7ull * i + 1) % n] ^ (v[i] * 2654435761u + step);
}

// v[i] = tmp[i] + (tmp[i] >> 11)
__global__ void settle(unsigned* v, const unsigned* tmp, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    v[i] = tmp[i] + (tmp[i] >> 11);
}

// partial[b] = the wrapping sum of block b's elements.
__global__ void block_sums(unsigned* partial, const unsigned* v, int n)
{
    __shared__ unsigned s[kThreads];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? v[i] : 0u;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) s[threadIdx.x] += s[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}

// *sum = the wrapping sum of the partial sums (one thread: there are few).
__global__ void total(unsigned* sum, const unsigned* partial, int blocks)
{
    unsigned t = 0;
    for (int b = 0; b < blocks; ++b) t += partial[b];
    *sum = t;
}

int main(int argc, char** argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s in.bin out.bin\n", argv[0]);
        return 2;
    }
    FILE* f = std::fopen(argv[1], "rb");
    if (!f) { std::perror(argv[1]); return 1; }
    unsigned header[2];
    if (std::fread(header, sizeof(unsigned), 2, f) != 2) { std::fprintf(stderr, "%s: no header\n", argv[1]); return 1; }
    const int n = int(header[0]), steps = int(header[1]);
    if (n < 1 || steps < 0) { std::fprintf(stderr, "%s: bad header\n", argv[1]); return 1; }
    std::vector<unsigned> state(n);
    if (std::fread(state.data(), sizeof(unsigned), state.size(), f) != state.size()) {
        std::fprintf(stderr, "%s: short file\n", argv[1]);
        return 1;
    }
    std::fclose(f);

    const size_t bytes = size_t(n) * sizeof(unsigned);
    const int blocks = (n + kThreads - 1) / kThreads;
    unsigned* d_v = nullptr;
    CHECK(cudaMalloc(&d_v, bytes));  // the state lives for the whole run: allocated once
    CHECK(cudaMemcpy(d_v, state.data(), bytes, cudaMemcpyHostToDevice));
    unsigned* h_sum = nullptr;       // pinned, so that the copy back can be asynchronous
    CHECK(cudaMallocHost(&h_sum, sizeof(unsigned)));
    std::vector<unsigned> sums;
    cudaStream_t stream;
    CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    // TODO: let the default memory pool keep freed memory across synchronisations
    // (cudaDeviceGetDefaultMemPool, then cudaMemPoolSetAttribute with
    // cudaMemPoolAttrReleaseThreshold).

    // Every step needs buffers of the same size: allocate them once and reuse them.
    unsigned *tmp = nullptr, *partial = nullptr, *d_sum = nullptr;
    CHECK(cudaMalloc(&tmp, bytes));
    CHECK(cudaMalloc(&partial, blocks * sizeof(unsigned)));
    CHECK(cudaMalloc(&d_sum, sizeof(unsigned)));
    for (int step = 0; step < steps; ++step) {
        spread<<<blocks, kThreads, 0, stream>>>(tmp, d_v, n, unsigned(step));
        settle<<<blocks, kThreads, 0, stream>>>(d_v, tmp, n);
        block_sums<<<blocks, kThreads, 0, stream>>>(partial, d_v, n);
        total<<<1, 1, 0, stream>>>(d_sum, partial, blocks);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpyAsync(h_sum, d_sum, sizeof(unsigned), cudaMemcpyDeviceToHost, stream));
        CHECK(cudaStreamSynchronize(stream));  // the host needs this step's checksum now
        sums.push_back(*h_sum);
    }
    CHECK(cudaFree(tmp));
    CHECK(cudaFree(partial));
    CHECK(cudaFree(d_sum));

    CHECK(cudaMemcpy(state.data(), d_v, bytes, cudaMemcpyDeviceToHost));
    FILE* o = std::fopen(argv[2], "wb");
    if (!o || std::fwrite(state.data(), sizeof(unsigned), state.size(), o) != state.size() ||
        std::fwrite(sums.data(), sizeof(unsigned), sums.size(), o) != sums.size()) {
        std::perror(argv[2]);
        return 1;
    }
    std::fclose(o);

    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFreeHost(h_sum));
    CHECK(cudaFree(d_v));
    std::printf("%d steps over %d values\n", steps, n);
    return 0;
}
