// A subtle bug: the side stream's chain is never joined back into main_s. Launched one by one it
// races with the combine; captured, CUDA refuses the graph (cudaStreamEndCapture fails with
// cudaErrorStreamCaptureUnjoined), and the program stops there.
// corpus: expect cudaErrorStreamCaptureUnjoined
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

// dst[i] = (src[i] ^ (src[i] >> 13)) * mul + add, in 32-bit unsigned arithmetic.
__global__ void stir(unsigned* dst, const unsigned* src, int n, unsigned mul, unsigned add)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned v = src[i];
    dst[i] = (v ^ (v >> 13)) * mul + add;
}

// v[i] = a[i] ^ rotate_left(b[i], 7)
__global__ void combine(unsigned* v, const unsigned* a, const unsigned* b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    v[i] = a[i] ^ ((b[i] << 7) | (b[i] >> 25));
}

struct Step {
    unsigned *v, *a, *b;
    int n;
    cudaStream_t main_s, side_s;
    cudaEvent_t fork, join;
};

// Issues one step's 10 kernels. The same calls either run at once or, while main_s is being
// captured, become the graph's nodes and edges.
void issue_step(const Step& s)
{
    const int threads = 256, blocks = (s.n + threads - 1) / threads;
    stir<<<blocks, threads, 0, s.main_s>>>(s.v, s.v, s.n, 2654435761u, 1u);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(s.fork, s.main_s));         // fork: side_s waits for the stir
    CHECK(cudaStreamWaitEvent(s.side_s, s.fork, 0));
    stir<<<blocks, threads, 0, s.main_s>>>(s.a, s.v, s.n, 2246822519u, 3u);
    stir<<<blocks, threads, 0, s.side_s>>>(s.b, s.v, s.n, 3266489917u, 5u);
    for (unsigned r = 0; r < 3; ++r) {
        stir<<<blocks, threads, 0, s.main_s>>>(s.a, s.a, s.n, 668265263u + 2 * r, r);
        stir<<<blocks, threads, 0, s.side_s>>>(s.b, s.b, s.n, 374761393u + 2 * r, r + 7);
    }
    CHECK(cudaGetLastError());
    // (no join: main_s never waits for side_s's chain)
    combine<<<blocks, threads, 0, s.main_s>>>(s.v, s.a, s.b, s.n);
    CHECK(cudaGetLastError());
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

    Step s;
    s.n = n;
    const size_t bytes = size_t(n) * sizeof(unsigned);
    CHECK(cudaMalloc(&s.v, bytes));
    CHECK(cudaMalloc(&s.a, bytes));
    CHECK(cudaMalloc(&s.b, bytes));
    CHECK(cudaMemcpy(s.v, state.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaStreamCreateWithFlags(&s.main_s, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s.side_s, cudaStreamNonBlocking));
    CHECK(cudaEventCreateWithFlags(&s.fork, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&s.join, cudaEventDisableTiming));

    // Capture one step: nothing runs; the calls become a graph of 10 kernel nodes whose edges
    // are the streams' order and the fork and join events.
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(s.main_s, cudaStreamCaptureModeGlobal));
    issue_step(s);
    CHECK(cudaStreamEndCapture(s.main_s, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));  // once: checks and prepares every node

    // The hot loop: one launch per step instead of 10, plus 4 event calls.
    for (int step = 0; step < steps; ++step) CHECK(cudaGraphLaunch(exec, s.main_s));
    CHECK(cudaStreamSynchronize(s.main_s));

    CHECK(cudaMemcpy(state.data(), s.v, bytes, cudaMemcpyDeviceToHost));
    FILE* o = std::fopen(argv[2], "wb");
    if (!o || std::fwrite(state.data(), sizeof(unsigned), state.size(), o) != state.size()) { std::perror(argv[2]); return 1; }
    std::fclose(o);

    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaEventDestroy(s.fork));
    CHECK(cudaEventDestroy(s.join));
    CHECK(cudaStreamDestroy(s.main_s));
    CHECK(cudaStreamDestroy(s.side_s));
    CHECK(cudaFree(s.v));
    CHECK(cudaFree(s.a));
    CHECK(cudaFree(s.b));
    std::printf("%d steps over %d values\n", steps, n);
    return 0;
}
