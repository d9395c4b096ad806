// simple_streams: the same work done once in one stream and once split over four streams, with
// pinned host memory so copies can overlap kernels. Events time both; the results are checked.
#include <cstring>
#include "check.h"

// Each element gets a few hundred dependent multiply-adds so the kernel has some weight.
__global__ void churn(int* out, const int* in, int n, int rounds)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i];
    for (int r = 0; r < rounds; ++r) v = v * 3 + r;
    out[i] = v;
}

static int churn_host(int v, int rounds)
{
    unsigned u = (unsigned)v; // wrap like the device's 32-bit integers, without signed overflow
    for (int r = 0; r < rounds; ++r) u = u * 3u + (unsigned)r;
    return (int)u;
}

int main()
{
    const int nstreams = 4;
    const int n = 1 << 20;
    const int rounds = 200;
    const size_t bytes = n * sizeof(int);

    int *h_in = nullptr, *h_out = nullptr;
    CHECK(cudaMallocHost(&h_in, bytes));
    CHECK(cudaHostAlloc(&h_out, bytes, cudaHostAllocDefault));
    for (int i = 0; i < n; ++i) h_in[i] = i ^ 0x5a5a;

    int *d_in = nullptr, *d_out = nullptr;
    CHECK(cudaMalloc(&d_in, bytes));
    CHECK(cudaMalloc(&d_out, bytes));

    cudaStream_t streams[nstreams];
    for (auto& s : streams) CHECK(cudaStreamCreate(&s));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreateWithFlags(&stop, cudaEventBlockingSync));

    const int threads = 256;
    // 1. Everything in the default stream.
    CHECK(cudaEventRecord(start, 0));
    CHECK(cudaMemcpyAsync(d_in, h_in, bytes, cudaMemcpyHostToDevice, 0));
    churn<<<(n + threads - 1) / threads, threads>>>(d_out, d_in, n, rounds);
    CHECK_LAUNCH();
    CHECK(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, 0));
    CHECK(cudaEventRecord(stop, 0));
    CHECK(cudaEventSynchronize(stop));
    float serial_ms = 0;
    CHECK(cudaEventElapsedTime(&serial_ms, start, stop));
    for (int i = 0; i < n; ++i)
        EXPECT(h_out[i] == churn_host(h_in[i], rounds), "serial: element %d", i);

    // 2. The same work in chunks, one chunk per stream: copy in, compute, copy out.
    std::memset(h_out, 0, bytes);
    CHECK(cudaMemset(d_out, 0, bytes));
    const int chunk = n / nstreams;
    CHECK(cudaEventRecord(start, 0));
    for (int s = 0; s < nstreams; ++s) {
        const int off = s * chunk;
        CHECK(cudaMemcpyAsync(d_in + off, h_in + off, chunk * sizeof(int), cudaMemcpyHostToDevice,
                              streams[s]));
        churn<<<(chunk + threads - 1) / threads, threads, 0, streams[s]>>>(d_out + off, d_in + off,
                                                                           chunk, rounds);
        CHECK_LAUNCH();
        CHECK(cudaMemcpyAsync(h_out + off, d_out + off, chunk * sizeof(int),
                              cudaMemcpyDeviceToHost, streams[s]));
    }
    CHECK(cudaEventRecord(stop, 0)); // the legacy default stream waits for the other streams
    CHECK(cudaEventSynchronize(stop));
    float streamed_ms = 0;
    CHECK(cudaEventElapsedTime(&streamed_ms, start, stop));
    for (int i = 0; i < n; ++i)
        EXPECT(h_out[i] == churn_host(h_in[i], rounds), "streamed: element %d", i);
    for (auto& s : streams) CHECK(cudaStreamQuery(s)); // all idle now

    EXPECT(serial_ms > 0 && streamed_ms > 0, "elapsed times %g, %g", serial_ms, streamed_ms);
    std::printf("one stream: %.3f ms, %d streams: %.3f ms\n", serial_ms, nstreams, streamed_ms);

    for (auto& s : streams) CHECK(cudaStreamDestroy(s));
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    CHECK(cudaFreeHost(h_in));
    CHECK(cudaFreeHost(h_out));
    std::printf("simple_streams: %d elements in %d streams: PASS\n", n, nstreams);
    return 0;
}
