// p2p: two devices. Checks peer access both ways, enables it, copies between the devices with
// cudaMemcpyPeer and cudaMemcpyPeerAsync, and has a kernel on device 1 read device 0's memory
// directly. With fewer than two devices the test is waived (exit 0).
#include <vector>
#include "check.h"

__global__ void add_from_peer(int* local, const int* remote, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) local[i] += remote[i];
}

int main()
{
    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    if (count < 2) {
        std::printf("p2p: %d device(s), two are needed: waived\n", count);
        return 0;
    }
    int can01 = 0, can10 = 0;
    CHECK(cudaDeviceCanAccessPeer(&can01, 0, 1));
    CHECK(cudaDeviceCanAccessPeer(&can10, 1, 0));
    std::printf("peer access 0->1: %d, 1->0: %d\n", can01, can10);
    int self = 1;
    CHECK(cudaDeviceCanAccessPeer(&self, 0, 0));
    EXPECT(self == 0, "a device reports peer access to itself");

    const int n = 1 << 16;
    const size_t bytes = n * sizeof(int);
    std::vector<int> h(n);
    for (int i = 0; i < n; ++i) h[i] = 3 * i;

    int *d0, *d1;
    CHECK(cudaSetDevice(0));
    CHECK(cudaMalloc(&d0, bytes));
    CHECK(cudaMemcpy(d0, h.data(), bytes, cudaMemcpyHostToDevice));
    if (can01) CHECK(cudaDeviceEnablePeerAccess(1, 0));
    CHECK(cudaSetDevice(1));
    CHECK(cudaMalloc(&d1, bytes));
    if (can10) {
        CHECK(cudaDeviceEnablePeerAccess(0, 0));
        CHECK_IS(cudaDeviceEnablePeerAccess(0, 0), cudaErrorPeerAccessAlreadyEnabled);
        cudaGetLastError();
    }

    // Synchronous peer copy 0 -> 1 (works with or without peer access; staged if needed).
    CHECK(cudaMemcpyPeer(d1, 1, d0, 0, bytes));
    std::vector<int> back(n, -1);
    CHECK(cudaMemcpy(back.data(), d1, bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) EXPECT(back[i] == 3 * i, "after cudaMemcpyPeer: %d at %d", back[i], i);

    // Device 1 adds device 0's data to its own copy: directly with peer access, else by copying.
    if (can10) {
        add_from_peer<<<n / 256, 256>>>(d1, d0, n);
        CHECK_LAUNCH();
    } else {
        int* staged;
        CHECK(cudaMalloc(&staged, bytes));
        CHECK(cudaMemcpyPeer(staged, 1, d0, 0, bytes));
        add_from_peer<<<n / 256, 256>>>(d1, staged, n);
        CHECK_LAUNCH();
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaFree(staged));
    }
    CHECK(cudaDeviceSynchronize());

    // Asynchronous copy back 1 -> 0 in a stream of device 1, timed with events.
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    CHECK(cudaEventRecord(a, s));
    CHECK(cudaMemcpyPeerAsync(d0, 0, d1, 1, bytes, s));
    CHECK(cudaEventRecord(b, s));
    CHECK(cudaStreamSynchronize(s));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, a, b));
    CHECK(cudaSetDevice(0));
    CHECK(cudaMemcpy(back.data(), d0, bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) EXPECT(back[i] == 6 * i, "after the round trip: %d at %d", back[i], i);
    std::printf("peer copy of %zu KiB: %.3f ms\n", bytes >> 10, ms);

    if (can01) CHECK(cudaDeviceDisablePeerAccess(1));
    CHECK(cudaFree(d0));
    CHECK(cudaSetDevice(1));
    if (can10) CHECK(cudaDeviceDisablePeerAccess(0));
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaEventDestroy(a));
    CHECK(cudaEventDestroy(b));
    CHECK(cudaFree(d1));
    std::printf("p2p: 2 devices: PASS\n");
    return 0;
}
