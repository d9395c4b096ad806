// stream_priority: stream creation flags and priorities, cudaStreamWaitEvent between streams,
// and the legacy default stream's implicit synchronisation with blocking streams.
#include "check.h"

// Spins for about `cycles` clock cycles, then writes value: slow on purpose, so that a missing
// dependency would let a later reader see the old value.
__global__ void slow_write(int* p, int value, long long cycles)
{
    long long start = clock64();
    while (clock64() - start < cycles) {}
    *p = value;
}

__global__ void read_into(int* dst, const int* src) { *dst = *src; }

static int read_back(const int* d)
{
    int h = -1;
    CHECK(cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost));
    return h;
}

int main()
{
    int lowest = 0, greatest = 0;
    CHECK(cudaDeviceGetStreamPriorityRange(&lowest, &greatest));
    std::printf("stream priorities: lowest %d, greatest %d\n", lowest, greatest);
    EXPECT(greatest <= lowest, "greatest priority %d above lowest %d numerically", greatest, lowest);

    cudaStream_t high, low, blocking, nonblocking;
    CHECK(cudaStreamCreateWithPriority(&high, cudaStreamNonBlocking, greatest));
    CHECK(cudaStreamCreateWithPriority(&low, cudaStreamNonBlocking, lowest));
    CHECK(cudaStreamCreate(&blocking));
    CHECK(cudaStreamCreateWithFlags(&nonblocking, cudaStreamNonBlocking));
    int prio = 99;
    unsigned flags = 99;
    CHECK(cudaStreamGetPriority(high, &prio));
    EXPECT(prio == greatest, "high stream priority %d", prio);
    CHECK(cudaStreamGetPriority(low, &prio));
    EXPECT(prio == lowest, "low stream priority %d", prio);
    CHECK(cudaStreamGetFlags(nonblocking, &flags));
    EXPECT(flags == cudaStreamNonBlocking, "non-blocking stream flags %u", flags);
    CHECK(cudaStreamGetFlags(blocking, &flags));
    EXPECT(flags == cudaStreamDefault, "blocking stream flags %u", flags);

    int *a, *b;
    CHECK(cudaMalloc(&a, sizeof(int)));
    CHECK(cudaMalloc(&b, sizeof(int)));
    const long long spin = 1000000; // about half a millisecond on a GPU

    // 1. cudaStreamWaitEvent: the low-priority reader waits for the high-priority writer.
    CHECK(cudaMemset(a, 0, sizeof(int)));
    CHECK(cudaMemset(b, 0, sizeof(int)));
    CHECK(cudaDeviceSynchronize());
    cudaEvent_t written;
    CHECK(cudaEventCreateWithFlags(&written, cudaEventDisableTiming));
    slow_write<<<1, 1, 0, high>>>(a, 11, spin);
    CHECK_LAUNCH();
    CHECK(cudaEventRecord(written, high));
    CHECK(cudaStreamWaitEvent(low, written, 0));
    read_into<<<1, 1, 0, low>>>(b, a);
    CHECK_LAUNCH();
    CHECK(cudaStreamSynchronize(low));
    EXPECT(read_back(b) == 11, "reader after cudaStreamWaitEvent saw %d", read_back(b));

    // 2. Legacy default stream: work on it waits for earlier work in blocking streams, and later
    //    work in blocking streams waits for it.
    CHECK(cudaMemset(a, 0, sizeof(int)));
    CHECK(cudaMemset(b, 0, sizeof(int)));
    CHECK(cudaDeviceSynchronize());
    slow_write<<<1, 1, 0, blocking>>>(a, 22, spin);
    read_into<<<1, 1, 0, 0>>>(b, a); // legacy stream 0: waits for `blocking`
    CHECK_LAUNCH();
    CHECK(cudaDeviceSynchronize());
    EXPECT(read_back(b) == 22, "legacy default stream did not wait for a blocking stream: %d",
           read_back(b));

    CHECK(cudaMemset(a, 0, sizeof(int)));
    CHECK(cudaMemset(b, 0, sizeof(int)));
    CHECK(cudaDeviceSynchronize());
    slow_write<<<1, 1, 0, 0>>>(a, 33, spin);
    read_into<<<1, 1, 0, blocking>>>(b, a); // waits for the legacy stream
    CHECK_LAUNCH();
    CHECK(cudaStreamSynchronize(blocking));
    EXPECT(read_back(b) == 33, "blocking stream did not wait for the legacy default stream: %d",
           read_back(b));

    // 3. cudaStreamSynchronize on one stream and cudaStreamQuery after it.
    slow_write<<<1, 1, 0, nonblocking>>>(a, 44, spin / 10);
    CHECK_LAUNCH();
    CHECK(cudaStreamSynchronize(nonblocking));
    CHECK(cudaStreamQuery(nonblocking));
    EXPECT(read_back(a) == 44, "after synchronising the stream: %d", read_back(a));

    CHECK(cudaEventDestroy(written));
    CHECK(cudaStreamDestroy(high)); CHECK(cudaStreamDestroy(low));
    CHECK(cudaStreamDestroy(blocking)); CHECK(cudaStreamDestroy(nonblocking));
    CHECK(cudaFree(a)); CHECK(cudaFree(b));
    std::printf("stream_priority: priorities, flags, event waits, legacy stream order: PASS\n");
    return 0;
}
