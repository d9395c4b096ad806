// Lesson 14: the shipped exercise (serial, pageable): the overlap advice names pageable memory.
// corpus: expect copies used pageable memory
// Lesson 14 — streams: overlap copies with kernels.
//
// A whole program. The lesson runs it as   ./program in.bin out.bin
//   in.bin:  a 32-bit count n, then n 32-bit unsigned values;
//   out.bin: this program writes the n values mix() makes of them.
// It must exit with status 0 when it worked and non-zero (saying why) when a CUDA call failed.
//
// As shipped it is correct, but serial: pageable host memory (malloc), one big cudaMemcpy in,
// one kernel, one big cudaMemcpy out, all in the legacy default stream. The copy engines and the
// SMs take turns; nothing overlaps.
//
// Your task (lessons/14-streams/lesson.md): pipeline the work in chunks over several streams with
// pinned host memory, so that while chunk k is computed, chunk k+1 is copied in and chunk k-1 is
// copied out.
//
// Run the checks with:  cudalab check 14-streams
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

    // TODO: pageable memory: every copy from or to it makes the host wait, and it cannot overlap
    //       a kernel. Allocate both host buffers with cudaMallocHost (and free them with
    //       cudaFreeHost).
    unsigned* h_in = (unsigned*)std::malloc(bytes);
    unsigned* h_out = (unsigned*)std::malloc(bytes);
    if (!h_in || !h_out) { std::fprintf(stderr, "out of host memory\n"); return 1; }
    if (std::fread(h_in, sizeof(unsigned), n, f) != n) { std::fprintf(stderr, "%s: short file\n", argv[1]); return 1; }
    std::fclose(f);

    unsigned *d_in = nullptr, *d_out = nullptr;
    CHECK(cudaMalloc(&d_in, bytes));
    CHECK(cudaMalloc(&d_out, bytes));

    // TODO: one copy, one kernel, one copy, in the default stream: each waits for the one before.
    //       Create 4 streams with cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), split the
    //       n elements into 8 or more chunks and give chunk k to stream k % 4: cudaMemcpyAsync in,
    //       mix<<<blocks, 256, 0, stream>>> on the chunk, cudaMemcpyAsync out. Then wait for the
    //       streams (cudaDeviceSynchronize) and destroy them.
    const int threads = 256;
    CHECK(cudaMemcpy(d_in, h_in, bytes, cudaMemcpyHostToDevice));
    mix<<<(n + threads - 1) / threads, threads>>>(d_out, d_in, int(n));
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));

    FILE* o = std::fopen(argv[2], "wb");
    if (!o || std::fwrite(h_out, sizeof(unsigned), n, o) != n) { std::perror(argv[2]); return 1; }
    std::fclose(o);

    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    std::free(h_in);
    std::free(h_out);
    std::printf("mixed %u values\n", n);
    return 0;
}
