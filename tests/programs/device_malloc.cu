// device_malloc: kernels that allocate with malloc and free with free on the device heap. One
// kernel gives every thread its own buffer; another allocates one buffer per block, shares it
// through shared memory, and a later kernel frees what the first left behind.
#include "check.h"

__global__ void per_thread(int* sums, int len)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int* buf = (int*)malloc(len * sizeof(int));
    if (buf == nullptr) { sums[t] = -1; return; }
    for (int i = 0; i < len; ++i) buf[i] = t + i;
    int s = 0;
    for (int i = 0; i < len; ++i) s += buf[i];
    sums[t] = s;
    free(buf);
}

__global__ void per_block(int** kept, int len)
{
    __shared__ int* shared_buf;
    if (threadIdx.x == 0) shared_buf = (int*)malloc(len * sizeof(int));
    __syncthreads();
    if (shared_buf == nullptr) return;
    for (int i = threadIdx.x; i < len; i += blockDim.x) shared_buf[i] = blockIdx.x * 1000 + i;
    if (threadIdx.x == 0) kept[blockIdx.x] = shared_buf; // freed by a later kernel
}

__global__ void check_and_free(int** kept, int len, int* bad)
{
    int* buf = kept[blockIdx.x];
    if (buf == nullptr) { if (threadIdx.x == 0) atomicAdd(bad, 1000000); return; }
    for (int i = threadIdx.x; i < len; i += blockDim.x)
        if (buf[i] != blockIdx.x * 1000 + i) atomicAdd(bad, 1);
    __syncthreads();
    if (threadIdx.x == 0) free(buf);
}

__global__ void try_alloc(size_t bytes, int* got)
{
    void* p = malloc(bytes);
    *got = p != nullptr;
    free(p); // free(nullptr) is allowed
}

int main()
{
    size_t heap = 0;
    CHECK(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 64 << 20));
    CHECK(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
    EXPECT(heap >= (64u << 20), "heap limit %zu", heap);

    const int blocks = 16, threads = 128, total = blocks * threads, len = 100;
    int* sums;
    CHECK(cudaMalloc(&sums, total * sizeof(int)));
    per_thread<<<blocks, threads>>>(sums, len);
    CHECK_LAUNCH();
    int h[total];
    CHECK(cudaMemcpy(h, sums, sizeof(h), cudaMemcpyDeviceToHost));
    for (int t = 0; t < total; ++t)
        EXPECT(h[t] == len * t + len * (len - 1) / 2, "thread %d sum %d", t, h[t]);

    int** kept;
    int* bad;
    CHECK(cudaMalloc(&kept, blocks * sizeof(int*)));
    CHECK(cudaMemset(kept, 0, blocks * sizeof(int*)));
    CHECK(cudaMalloc(&bad, sizeof(int)));
    CHECK(cudaMemset(bad, 0, sizeof(int)));
    const int big = 200000; // 800 KB per block
    per_block<<<blocks, threads>>>(kept, big);
    CHECK_LAUNCH();
    check_and_free<<<blocks, threads>>>(kept, big, bad);
    CHECK_LAUNCH();
    int hbad = -1;
    CHECK(cudaMemcpy(&hbad, bad, sizeof(int), cudaMemcpyDeviceToHost));
    EXPECT(hbad == 0, "%d wrong values (a million per missing buffer)", hbad);

    // A request larger than the heap returns null instead of faulting.
    try_alloc<<<1, 1>>>(size_t(1) << 30, sums);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(h, sums, sizeof(int), cudaMemcpyDeviceToHost));
    EXPECT(h[0] == 0, "a 1 GiB device malloc on a %zu-byte heap succeeded", heap);

    CHECK(cudaFree(sums)); CHECK(cudaFree(kept)); CHECK(cudaFree(bad));
    std::printf("device_malloc: %d per-thread and %d per-block heap buffers: PASS\n", total, blocks);
    return 0;
}
