// callbacks: host functions queued in streams with cudaLaunchHostFunc and cudaStreamAddCallback.
// Each runs after the work before it in its stream, so it can check the copy that precedes it.
#include <atomic>
#include "check.h"

struct Job {
    int id = 0;
    int n = 0;
    int* host = nullptr;      // pinned; receives the device result before the host function runs
    bool seen_right = false;  // written by the host function
    std::atomic<int>* done = nullptr;
};

__global__ void fill(int* out, int n, int id)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = id * 1000 + i;
}

// Host functions must not call the CUDA API; they only read host memory and note the outcome.
static void CUDART_CB check_job(void* arg)
{
    Job* job = static_cast<Job*>(arg);
    bool ok = true;
    for (int i = 0; i < job->n; ++i) ok = ok && job->host[i] == job->id * 1000 + i;
    job->seen_right = ok;
    job->done->fetch_add(1);
}

static void CUDART_CB stream_callback(cudaStream_t, cudaError_t status, void* arg)
{
    Job* job = static_cast<Job*>(arg);
    if (status != cudaSuccess) return; // leaves done short, so main reports it
    job->done->fetch_add(1);
}

int main()
{
    const int njobs = 6, n = 4096;
    std::atomic<int> done{0};
    Job jobs[njobs];
    cudaStream_t streams[njobs];
    int* d[njobs];
    for (int j = 0; j < njobs; ++j) {
        jobs[j].id = j + 1;
        jobs[j].n = n;
        jobs[j].done = &done;
        CHECK(cudaMallocHost(&jobs[j].host, n * sizeof(int)));
        CHECK(cudaMalloc(&d[j], n * sizeof(int)));
        CHECK(cudaStreamCreateWithFlags(&streams[j], cudaStreamNonBlocking));
    }
    for (int j = 0; j < njobs; ++j) {
        fill<<<(n + 255) / 256, 256, 0, streams[j]>>>(d[j], n, jobs[j].id);
        CHECK_LAUNCH();
        CHECK(cudaMemcpyAsync(jobs[j].host, d[j], n * sizeof(int), cudaMemcpyDeviceToHost,
                              streams[j]));
        CHECK(cudaLaunchHostFunc(streams[j], check_job, &jobs[j]));
        CHECK(cudaStreamAddCallback(streams[j], stream_callback, &jobs[j], 0));
    }
    CHECK(cudaDeviceSynchronize());
    // cudaDeviceSynchronize waits for host functions too; the counter must be complete.
    EXPECT(done.load() == 2 * njobs, "%d of %d host functions ran", done.load(), 2 * njobs);
    for (int j = 0; j < njobs; ++j)
        EXPECT(jobs[j].seen_right, "job %d: host function saw stale data", jobs[j].id);

    // A host function also orders later work in its stream: the kernel after it runs afterwards.
    std::atomic<int> gate{0};
    auto bump = [](void* p) { static_cast<std::atomic<int>*>(p)->fetch_add(1); };
    CHECK(cudaLaunchHostFunc(streams[0], bump, &gate));
    fill<<<1, 32, 0, streams[0]>>>(d[0], 32, 99);
    CHECK_LAUNCH();
    CHECK(cudaStreamSynchronize(streams[0]));
    EXPECT(gate.load() == 1, "host function count %d", gate.load());

    for (int j = 0; j < njobs; ++j) {
        CHECK(cudaStreamDestroy(streams[j]));
        CHECK(cudaFree(d[j]));
        CHECK(cudaFreeHost(jobs[j].host));
    }
    std::printf("callbacks: %d streams, %d host functions ran after their copies: PASS\n", njobs,
                2 * njobs + 1);
    return 0;
}
