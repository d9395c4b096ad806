// async_launch: a launch returns before its kernel has run, as on a GPU. The host looks at a flag
// the kernel sets in mapped host memory at its very end: still clear when the launch (and the
// cudaGetLastError after it) returned, set once the host has waited for an event recorded after
// the kernel. A runtime that runs the kernel inside the launch call fails the first check. Then
// a host function enqueued behind such a kernel: not run when cudaLaunchHostFunc returns, run by
// the time the stream is synchronised, and on a thread other than the one that enqueued it (CUDA
// runs host functions on a thread of its own).
#include "check.h"

#include <atomic>
#include <thread>

struct HostCall {
    std::atomic<int> ran{0};
    std::thread::id thread;
};

void CUDART_CB note_host_call(void* p)
{
    auto* h = static_cast<HostCall*>(p);
    h->thread = std::this_thread::get_id();
    h->ran = 1;
}

__global__ void work_then_flag(volatile int* flag, unsigned long long iterations,
                               unsigned long long* sink)
{
    unsigned long long x = 1;
    for (unsigned long long i = 0; i < iterations; ++i)
        x = x * 6364136223846793005ull + 1442695040888963407ull;
    *sink = x;
    __threadfence_system();
    *flag = 1;
}

int main()
{
    CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
    int* flag;
    CHECK(cudaHostAlloc(&flag, sizeof(int), cudaHostAllocMapped));
    int* device_flag;
    CHECK(cudaHostGetDevicePointer(&device_flag, flag, 0));
    unsigned long long* sink;
    CHECK(cudaMalloc(&sink, sizeof *sink));
    cudaEvent_t done;
    CHECK(cudaEventCreate(&done));

    // A first, short launch loads the module; the measured one then only runs.
    work_then_flag<<<1, 1>>>(device_flag, 1, sink);
    CHECK(cudaDeviceSynchronize());
    *(volatile int*)flag = 0;

    work_then_flag<<<1, 1>>>(device_flag, 4000000ull, sink);
    CHECK_LAUNCH();
    const int at_launch = *(volatile int*)flag;
    CHECK(cudaEventRecord(done));
    long long polls = 0;
    cudaError_t q;
    while ((q = cudaEventQuery(done)) == cudaErrorNotReady) ++polls;
    CHECK(q);
    const int after_wait = *(volatile int*)flag;
    std::printf("flag when the launch returned: %d, after the event: %d (%lld polls)\n", at_launch,
                after_wait, polls);
    EXPECT(at_launch == 0, "the kernel had finished before its launch returned");
    EXPECT(after_wait == 1, "the event completed before the kernel that precedes it");
    EXPECT(polls > 0, "cudaEventQuery never answered cudaErrorNotReady");

    work_then_flag<<<1, 1>>>(device_flag, 4000000ull, sink);
    HostCall h;
    CHECK(cudaLaunchHostFunc(0, note_host_call, &h));
    const int ran_when_enqueued = h.ran;
    CHECK(cudaStreamSynchronize(0));
    EXPECT(ran_when_enqueued == 0, "the host function ran before cudaLaunchHostFunc returned");
    EXPECT(h.ran == 1, "the host function had not run when the stream was synchronised");
    EXPECT(h.thread != std::this_thread::get_id(),
           "the host function ran on the thread that enqueued it");
    std::printf("host function: run after cudaLaunchHostFunc returned, on a thread of its own\n");

    CHECK(cudaEventDestroy(done));
    CHECK(cudaFree(sink));
    CHECK(cudaFreeHost(flag));
    std::printf("async_launch: PASS\n");
    return 0;
}
