// Corpus (tests/submissions_test.cpp): recovers from the failed cudaMalloc, then frees the mapped
// pinned buffer with cudaFree: the runtime's own message names the cause, not "the error is not sticky".
// corpus: expect free it with cudaFreeHost
// Lesson 16 — errors: report every CUDA error by name, recover where CUDA allows it (solution).
//
// A whole program. The lesson runs it as   ./program in.bin out.bin
//   in.bin:  a 32-bit count n (1 or more), then n 32-bit unsigned values;
//   out.bin: the n values after 16 steps of step() (below).
//
// The solution:
//   - every call's cudaError_t is checked; a launch is checked with cudaGetLastError() right after
//     it (errors in the launch itself: a bad configuration), and the work's own errors (a fault in
//     the kernel) come back from the next synchronising call, here the cudaMemcpy back;
//   - cudaErrorMemoryAllocation is recoverable: the device buffers fall back to mapped pinned host
//     memory, which kernels reach over the bus (slower, but right);
//   - an invalid launch configuration is recoverable: the launch is retried once with a plain
//     configuration;
//   - anything else (an illegal address, ...) is sticky: the context is lost, so the program says
//     so and exits with status 1, writing no out.bin.
#include <cstdio>
#include <cstdlib>

// Reports a failed call by name and ends the program: for errors there is no recovering from.
#define CHECK(call)                                                                              \
    do {                                                                                         \
        cudaError_t err_ = (call);                                                               \
        if (err_ != cudaSuccess) {                                                               \
            std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,       \
                         cudaGetErrorName(err_), cudaGetErrorString(err_));                      \
            std::exit(1);                                                                        \
        }                                                                                        \
    } while (0)

// One step: each value mixed with its right neighbour (the last one's is the first value).
__global__ void step(unsigned* out, const unsigned* in, int n, unsigned round)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned right = in[i + 1 < n ? i + 1 : 0];
    out[i] = (in[i] ^ (right >> 3)) * 2654435761u + round;
}

// A buffer the kernels can use: device memory, or when the device has none left, mapped pinned
// host memory (what the device pointer points at is then host memory, read over the bus).
struct Buffer {
    unsigned* device = nullptr;
    void* host = nullptr;  // the mapped host memory, when device memory ran out
};

Buffer allocate(size_t bytes)
{
    Buffer b;
    cudaError_t e = cudaMalloc(&b.device, bytes);
    if (e == cudaSuccess) return b;
    if (e != cudaErrorMemoryAllocation) CHECK(e);
    // Out of memory is not sticky: the device is fine, this allocation just did not fit. The
    // failed call also set the thread's last error; read it now, or the next launch's
    // cudaGetLastError() would report it as the launch's.
    (void)cudaGetLastError();
    std::fprintf(stderr, "cudaMalloc of %zu bytes failed with %s: using mapped host memory instead\n", bytes,
                 cudaGetErrorName(e));
    CHECK(cudaHostAlloc(&b.host, bytes, cudaHostAllocMapped));
    CHECK(cudaHostGetDevicePointer((void**)&b.device, b.host, 0));
    return b;
}

void release(Buffer& b)
{
    // The mistake: cudaFree for every buffer, the mapped pinned one too (it needs cudaFreeHost).
    CHECK(cudaFree(b.device));
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

    Buffer a = allocate(bytes), b = allocate(bytes);
    unsigned *d_a = a.device, *d_b = b.device;
    // cudaMemcpyDefault: the runtime tells from the pointers where each side is (d_a may be host memory).
    CHECK(cudaMemcpy(d_a, h, bytes, cudaMemcpyDefault));

    const int steps = 16, threads = 256;
    for (int s = 0; s < steps; ++s) {
        step<<<(n + threads - 1) / threads, threads>>>(d_b, d_a, int(n), unsigned(s));
        // The launch's own error, at once; no waiting for the kernel (that would serialise the host
        // and the GPU at every step).
        cudaError_t e = cudaGetLastError();
        if (e == cudaErrorInvalidValue || e == cudaErrorInvalidConfiguration) {
            // Not sticky: nothing ran, the device is fine. Say so and try once more with a plain
            // configuration (CUDA 13 reports a bad configuration as cudaErrorInvalidValue; older
            // versions as cudaErrorInvalidConfiguration).
            std::fprintf(stderr, "step %d: the launch was refused with %s: retrying with 128 threads per block\n", s,
                         cudaGetErrorName(e));
            step<<<(n + 127) / 128, 128>>>(d_b, d_a, int(n), unsigned(s));
            e = cudaGetLastError();
        }
        CHECK(e);
        unsigned* t = d_a; d_a = d_b; d_b = t;
    }
    // A synchronising call: a fault in any of the kernels comes back here (or from an earlier
    // call), and every call after it fails the same way. CHECK ends the program.
    CHECK(cudaMemcpy(h, d_a, bytes, cudaMemcpyDefault));

    FILE* o = std::fopen(argv[2], "wb");
    if (!o || std::fwrite(h, sizeof(unsigned), n, o) != n) { std::perror(argv[2]); return 1; }
    std::fclose(o);
    release(a);
    release(b);
    std::free(h);
    std::printf("%u values, %d steps\n", n, steps);
    return 0;
}
