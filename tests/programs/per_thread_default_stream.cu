// per_thread_default_stream: built with --default-stream per-thread, so each host thread's
// default stream is its own and does not synchronise with the others. Several threads each fill,
// transform and copy back their own buffer through the default stream (<<<..., 0>>> and
// cudaStreamPerThread) at the same time, and each checks its result.
#include <thread>
#include <vector>
#include "check.h"

__global__ void poly(float* x, int n, float k)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * x[i] + k;
}

static void worker(int id, int n, int* ok)
{
    std::vector<float> h(n);
    for (int i = 0; i < n; ++i) h[i] = (float)((i + id) % 50);
    float* d = nullptr;
    CHECK(cudaMalloc(&d, n * sizeof(float)));
    CHECK(cudaMemcpyAsync(d, h.data(), n * sizeof(float), cudaMemcpyHostToDevice, 0));
    poly<<<(n + 255) / 256, 256>>>(d, n, (float)id); // the per-thread default stream
    CHECK_LAUNCH();
    poly<<<(n + 255) / 256, 256, 0, cudaStreamPerThread>>>(d, n, 1.0f); // the same stream, named
    CHECK_LAUNCH();
    CHECK(cudaMemcpyAsync(h.data(), d, n * sizeof(float), cudaMemcpyDeviceToHost,
                          cudaStreamPerThread));
    CHECK(cudaStreamSynchronize(cudaStreamPerThread));
    CHECK(cudaStreamQuery(0)); // idle now
    *ok = 1;
    for (int i = 0; i < n && *ok; ++i) {
        float v = (float)((i + id) % 50);
        float a = v * v + (float)id;
        float want = a * a + 1.0f;
        if (h[i] != want) {
            std::fprintf(stderr, "thread %d: element %d is %g, expected %g\n", id, i, h[i], want);
            *ok = 0;
        }
    }
    CHECK(cudaFree(d));
}

int main()
{
#ifndef CUDA_API_PER_THREAD_DEFAULT_STREAM
    std::fprintf(stderr, "per_thread_default_stream: build with --default-stream per-thread\n");
    return 1;
#endif
    const int nthreads = 4, n = 1 << 16;
    int ok[nthreads] = {};
    std::vector<std::thread> threads;
    for (int t = 0; t < nthreads; ++t) threads.emplace_back(worker, t, n, &ok[t]);
    for (auto& t : threads) t.join();
    for (int t = 0; t < nthreads; ++t) EXPECT(ok[t], "host thread %d got a wrong result", t);
    std::printf("per_thread_default_stream: %d host threads, each on its own default stream: PASS\n",
                nthreads);
    return 0;
}
