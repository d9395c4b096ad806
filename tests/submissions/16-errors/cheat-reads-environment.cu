// Corpus (tests/submissions_test.cpp): reads CUDALAB_INJECT and prints the names without checking a single call.
// Lesson 16 — errors: report every CUDA error by name, recover where CUDA allows it.
//
// A whole program. The lesson runs it as   ./program in.bin out.bin
//   in.bin:  a 32-bit count n (1 or more), then n 32-bit unsigned values;
//   out.bin: the n values after 16 steps of step() (below).
// The lesson also runs it with faults injected by the emulated runtime (CUDALAB_INJECT): a
// cudaMalloc that fails, a launch refused as an invalid configuration, a kernel that reads an
// illegal address. As shipped, this program checks nothing: it computes the right values when
// nothing goes wrong, and when something does it carries on, writes garbage to out.bin and exits
// with status 0 as if all was well. Make it
//   - check every CUDA call and every launch, and name the error on stderr (cudaGetErrorName);
//   - carry on correctly after an error CUDA lets a program recover from;
//   - exit with a non-zero status, writing no out.bin, after one it does not.
// lessons/16-errors/lesson.md says which is which.
#include <cstdio>
#include <cstdlib>
#include <cstring>

// One step: each value mixed with its right neighbour (the last one's is the first value).
__global__ void step(unsigned* out, const unsigned* in, int n, unsigned round)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned right = in[i + 1 < n ? i + 1 : 0];
    out[i] = (in[i] ^ (right >> 3)) * 2654435761u + round;
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

    // Pretend: read which fault the runtime injects and print its name.
    const char* inject = std::getenv("CUDALAB_INJECT");
    if (inject && std::strstr(inject, "illegal-address")) { std::fprintf(stderr, "cudaErrorIllegalAddress\n"); return 1; }
    if (inject && std::strstr(inject, "malloc")) std::fprintf(stderr, "cudaErrorMemoryAllocation\n");
    if (inject && std::strstr(inject, "launch-config")) std::fprintf(stderr, "cudaErrorInvalidValue\n");
    // TODO: check every call below; on cudaErrorMemoryAllocation, name it on stderr and carry on
    // with another kind of buffer (mapped host memory).
    // Two buffers: each step reads one and writes the other.
    unsigned *d_a = nullptr, *d_b = nullptr;
    cudaMalloc(&d_a, bytes);
    cudaMalloc(&d_b, bytes);
    cudaMemcpy(d_a, h, bytes, cudaMemcpyHostToDevice);

    const int steps = 16, threads = 256;
    for (int s = 0; s < steps; ++s) {
        step<<<(n + threads - 1) / threads, threads>>>(d_b, d_a, int(n), unsigned(s));
        // TODO: was the launch accepted? A refused launch can be tried again.
        unsigned* t = d_a; d_a = d_b; d_b = t;
    }
    cudaMemcpy(h, d_a, bytes, cudaMemcpyDeviceToHost);  // TODO: a fault in any kernel comes back here

    FILE* o = std::fopen(argv[2], "wb");
    if (!o || std::fwrite(h, sizeof(unsigned), n, o) != n) { std::perror(argv[2]); return 1; }
    std::fclose(o);
    cudaFree(d_a);
    cudaFree(d_b);
    std::free(h);
    std::printf("%u values, %d steps\n", n, steps);
    return 0;
}
