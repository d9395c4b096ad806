// A program whose timeline has every kind of event: pinned copies and kernels in two streams, a
// memset, and a graph captured from a stream and launched. `cudalab run timeline.cu --timeline
// t.json` on the emulator and with --backend gpu (CUPTI) should show the same events.
#include <cstdio>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::printf("%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); return 1; } } while (0)

__global__ void add_one(float* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}

int main() {
    const int n = 1 << 20, half = n / 2;
    float *host = nullptr, *dev = nullptr;
    CHECK(cudaMallocHost(&host, n * sizeof(float)));
    CHECK(cudaMalloc(&dev, n * sizeof(float)));
    for (int i = 0; i < n; ++i) host[i] = float(i % 1000);
    cudaStream_t s[2];
    for (auto& st : s) CHECK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    for (int k = 0; k < 2; ++k) {
        float* h = host + k * half;
        float* d = dev + k * half;
        CHECK(cudaMemcpyAsync(d, h, half * sizeof(float), cudaMemcpyHostToDevice, s[k]));
        add_one<<<(half + 255) / 256, 256, 0, s[k]>>>(d, half);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpyAsync(h, d, half * sizeof(float), cudaMemcpyDeviceToHost, s[k]));
    }
    CHECK(cudaDeviceSynchronize());
    // A graph of two launches, captured from stream 0.
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(s[0], cudaStreamCaptureModeGlobal));
    add_one<<<(n + 255) / 256, 256, 0, s[0]>>>(dev, n);
    add_one<<<(n + 255) / 256, 256, 0, s[0]>>>(dev, n);
    CHECK(cudaStreamEndCapture(s[0], &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphLaunch(exec, s[0]));
    CHECK(cudaStreamSynchronize(s[0]));
    float* scratch = nullptr;
    CHECK(cudaMalloc(&scratch, 4096));
    CHECK(cudaMemsetAsync(scratch, 0, 4096, s[1]));
    float check[4];
    CHECK(cudaMemcpy(check, dev, sizeof check, cudaMemcpyDeviceToHost));
    CHECK(cudaStreamSynchronize(s[1]));
    bool ok = host[0] == 1.0f && host[n - 1] == float((n - 1) % 1000) + 1.0f && check[3] == 6.0f;
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    for (auto& st : s) CHECK(cudaStreamDestroy(st));
    CHECK(cudaFree(scratch));
    CHECK(cudaFree(dev));
    CHECK(cudaFreeHost(host));
    std::printf("timeline: 2 streams, a graph and a memset: %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
