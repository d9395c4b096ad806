// graphs_capture: records a fork-join pipeline of many small kernels and copies from two streams
// into a graph by stream capture, instantiates it once and launches it many times. Each launch
// must give the same result as running the work directly; both are timed with events.
#include <algorithm>
#include "check.h"

__global__ void add_one(float* x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}

__global__ void combine(float* out, const float* a, const float* b, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] * 2.0f + b[i];
}

// One pass: a and b each get `steps` increments in their own stream, then out = 2a + b.
static void enqueue(cudaStream_t s1, cudaStream_t s2, cudaEvent_t fork, cudaEvent_t join,
                    float* a, float* b, float* out, const float* h_in, float* h_out, int n, int steps)
{
    const int threads = 256, blocks = (n + threads - 1) / threads;
    CHECK(cudaMemcpyAsync(a, h_in, n * sizeof(float), cudaMemcpyHostToDevice, s1));
    CHECK(cudaEventRecord(fork, s1));
    CHECK(cudaStreamWaitEvent(s2, fork, 0));
    CHECK(cudaMemcpyAsync(b, a, n * sizeof(float), cudaMemcpyDeviceToDevice, s2));
    for (int k = 0; k < steps; ++k) {
        add_one<<<blocks, threads, 0, s1>>>(a, n);
        add_one<<<blocks, threads, 0, s2>>>(b, n);
        add_one<<<blocks, threads, 0, s2>>>(b, n);
    }
    CHECK(cudaEventRecord(join, s2));
    CHECK(cudaStreamWaitEvent(s1, join, 0));
    combine<<<blocks, threads, 0, s1>>>(out, a, b, n);
    CHECK(cudaMemcpyAsync(h_out, out, n * sizeof(float), cudaMemcpyDeviceToHost, s1));
}

int main()
{
    const int n = 4096, steps = 20, launches = 50;
    float *h_in, *h_out;
    CHECK(cudaMallocHost(&h_in, n * sizeof(float)));
    CHECK(cudaMallocHost(&h_out, n * sizeof(float)));
    for (int i = 0; i < n; ++i) h_in[i] = (float)(i % 100);
    float *a, *b, *out;
    CHECK(cudaMalloc(&a, n * sizeof(float)));
    CHECK(cudaMalloc(&b, n * sizeof(float)));
    CHECK(cudaMalloc(&out, n * sizeof(float)));
    cudaStream_t s1, s2;
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    cudaEvent_t fork, join, t0, t1;
    CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));
    auto verify = [&](const char* what) {
        for (int i = 0; i < n; ++i) {
            float want = 2.0f * (h_in[i] + steps) + (h_in[i] + 2 * steps);
            EXPECT(h_out[i] == want, "%s: out[%d] = %g, expected %g", what, i, h_out[i], want);
        }
    };

    // Directly, for reference and timing.
    CHECK(cudaEventRecord(t0, s1));
    for (int l = 0; l < launches; ++l) enqueue(s1, s2, fork, join, a, b, out, h_in, h_out, n, steps);
    CHECK(cudaEventRecord(t1, s1));
    CHECK(cudaEventSynchronize(t1));
    CHECK_LAUNCH();
    verify("stream launches");
    float direct_ms = 0;
    CHECK(cudaEventElapsedTime(&direct_ms, t0, t1));

    // Captured: nothing runs during capture.
    cudaGraph_t graph;
    CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    cudaStreamCaptureStatus status;
    CHECK(cudaStreamIsCapturing(s1, &status));
    EXPECT(status == cudaStreamCaptureStatusActive, "capture status %d", (int)status);
    std::fill(h_out, h_out + n, -1.0f);
    enqueue(s1, s2, fork, join, a, b, out, h_in, h_out, n, steps);
    CHECK(cudaStreamEndCapture(s1, &graph));
    CHECK(cudaStreamIsCapturing(s1, &status));
    EXPECT(status == cudaStreamCaptureStatusNone, "capture status after end %d", (int)status);
    EXPECT(h_out[0] == -1.0f, "work ran during capture");

    size_t nodes = 0;
    CHECK(cudaGraphGetNodes(graph, nullptr, &nodes));
    const size_t want_nodes = 3 + 3 * steps + 1; // 3 copies, the increments, combine
    EXPECT(nodes >= want_nodes, "graph has %zu nodes, expected at least %zu", nodes, want_nodes);
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphUpload(exec, s1));

    CHECK(cudaEventRecord(t0, s1));
    for (int l = 0; l < launches; ++l) CHECK(cudaGraphLaunch(exec, s1));
    CHECK(cudaEventRecord(t1, s1));
    CHECK(cudaEventSynchronize(t1));
    verify("graph launches");
    float graph_ms = 0;
    CHECK(cudaEventElapsedTime(&graph_ms, t0, t1));
    std::printf("%d passes of %zu nodes: streams %.3f ms, graph %.3f ms\n", launches, nodes,
                direct_ms, graph_ms);

    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaStreamDestroy(s1)); CHECK(cudaStreamDestroy(s2));
    CHECK(cudaEventDestroy(fork)); CHECK(cudaEventDestroy(join));
    CHECK(cudaEventDestroy(t0)); CHECK(cudaEventDestroy(t1));
    CHECK(cudaFree(a)); CHECK(cudaFree(b)); CHECK(cudaFree(out));
    CHECK(cudaFreeHost(h_in)); CHECK(cudaFreeHost(h_out));
    std::printf("graphs_capture: PASS\n");
    return 0;
}
