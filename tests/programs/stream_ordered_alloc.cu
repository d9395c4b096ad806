// stream_ordered_alloc: cudaMallocAsync/cudaFreeAsync in stream order, the device's default memory
// pool and its attributes (release threshold, reserved and used memory), an explicitly created
// pool with cudaMallocFromPoolAsync, trimming, and reuse across streams through an event.
#include <vector>
#include "check.h"

__global__ void iota(int* p, int n, int base)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = base + i;
}

__global__ void sum_into(const int* p, int n, unsigned long long* out)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, (unsigned long long)p[i]);
}

int main()
{
    int supported = 0;
    CHECK(cudaDeviceGetAttribute(&supported, cudaDevAttrMemoryPoolsSupported, 0));
    EXPECT(supported, "device 0 has no memory pools");

    cudaStream_t s, t;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&t, cudaStreamNonBlocking));
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(int);

    // Default pool: keep freed memory instead of returning it at each synchronisation.
    cudaMemPool_t pool;
    CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
    cudaMemPool_t current;
    CHECK(cudaDeviceGetMemPool(&current, 0));
    EXPECT(current == pool, "current pool is not the default pool");
    unsigned long long threshold = ~0ull;
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
    unsigned long long read_back = 0;
    CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &read_back));
    EXPECT(read_back == threshold, "release threshold %llu", read_back);

    unsigned long long* sum = nullptr;
    CHECK(cudaMallocAsync(&sum, sizeof(*sum), s));
    CHECK(cudaMemsetAsync(sum, 0, sizeof(*sum), s));
    // Allocate, fill, consume and free, all in stream order, several times.
    unsigned long long want = 0;
    for (int round = 0; round < 4; ++round) {
        int* p = nullptr;
        CHECK(cudaMallocAsync(&p, bytes, s));
        iota<<<(n + 255) / 256, 256, 0, s>>>(p, n, round * 10);
        sum_into<<<(n + 255) / 256, 256, 0, s>>>(p, n, sum);
        CHECK_LAUNCH();
        CHECK(cudaFreeAsync(p, s));
        for (int i = 0; i < n; ++i) want += (unsigned long long)(round * 10 + i);
    }
    unsigned long long got = 0;
    CHECK(cudaMemcpyAsync(&got, sum, sizeof(got), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    EXPECT(got == want, "sum %llu, expected %llu", got, want);

    unsigned long long reserved = 0, used = 0, used_high = 0;
    CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
    CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
    CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &used_high));
    std::printf("default pool: reserved %llu, used %llu, used high %llu bytes\n", reserved, used,
                used_high);
    EXPECT(reserved >= bytes, "the pool kept %llu bytes after the frees", reserved);
    EXPECT(used < bytes, "still %llu bytes in use after the frees", used);
    EXPECT(used_high >= bytes, "used high %llu", used_high);
    // Trimming releases every chunk with no live allocation in it: free `sum` first.
    CHECK(cudaFreeAsync(sum, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemPoolTrimTo(pool, 0));
    CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
    CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemCurrent, &used));
    std::printf("after freeing everything and trimming: reserved %llu, used %llu bytes\n", reserved,
                used);
    EXPECT(used == 0, "%llu bytes in use with nothing allocated", used);
    EXPECT(reserved < bytes, "after trimming %llu bytes are still reserved", reserved);

    // An explicit pool, and memory freed in another stream after an event.
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = 0;
    cudaMemPool_t mine;
    CHECK(cudaMemPoolCreate(&mine, &props));
    int* q = nullptr;
    CHECK(cudaMallocFromPoolAsync(&q, bytes, mine, s));
    iota<<<(n + 255) / 256, 256, 0, s>>>(q, n, 5);
    CHECK_LAUNCH();
    cudaEvent_t filled;
    CHECK(cudaEventCreateWithFlags(&filled, cudaEventDisableTiming));
    CHECK(cudaEventRecord(filled, s));
    CHECK(cudaStreamWaitEvent(t, filled, 0));
    std::vector<int> h(n);
    CHECK(cudaMemcpyAsync(h.data(), q, bytes, cudaMemcpyDeviceToHost, t));
    CHECK(cudaFreeAsync(q, t));
    CHECK(cudaStreamSynchronize(t));
    for (int i = 0; i < n; ++i) EXPECT(h[i] == 5 + i, "explicit pool element %d = %d", i, h[i]);
    CHECK(cudaMemPoolGetAttribute(mine, cudaMemPoolAttrUsedMemCurrent, &used));
    EXPECT(used == 0, "explicit pool still uses %llu bytes", used);

    CHECK(cudaMemPoolDestroy(mine));
    CHECK(cudaEventDestroy(filled));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaStreamDestroy(t));
    std::printf("stream_ordered_alloc: PASS\n");
    return 0;
}
