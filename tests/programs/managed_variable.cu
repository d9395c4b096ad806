// __managed__ variables: one variable that host code and kernels both use by name, with its
// initialiser seen by the host before any launch, host writes seen by the next kernel, a kernel's
// atomics seen by the host after synchronising, an array indexed on both sides, and the pointer
// reported as managed memory.
#include <cstring>

#include "check.h"

__managed__ int counter = 5;
__managed__ float weights[4] = {0.5f, 1.5f, 2.5f, 3.5f};
__managed__ unsigned long long total;

__global__ void count(int step) { atomicAdd(&counter, step); }

__global__ void weigh(const float* in, float* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[i] = in[i] * weights[i % 4];
    atomicAdd(&total, 1ull);
}

int main() {
    // The initialiser, read on the host before any kernel ran.
    EXPECT(counter == 5, "counter is %d before any launch, expected its initialiser 5", counter);
    EXPECT(weights[3] == 3.5f, "weights[3] is %f, expected 3.5", weights[3]);

    counter = 100;  // a host write, seen by the kernel
    count<<<4, 64>>>(2);
    CHECK_LAUNCH();
    CHECK(cudaDeviceSynchronize());
    EXPECT(counter == 100 + 4 * 64 * 2, "counter is %d after the kernel, expected %d", counter,
           100 + 4 * 64 * 2);

    const int n = 1000;
    float *in = nullptr, *out = nullptr;
    CHECK(cudaMallocManaged(&in, n * sizeof(float)));
    CHECK(cudaMallocManaged(&out, n * sizeof(float)));
    for (int i = 0; i < n; ++i) in[i] = float(i);
    weights[1] = -2.0f;
    total = 0;
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    weigh<<<(n + 127) / 128, 128, 0, stream>>>(in, out, n);
    CHECK_LAUNCH();
    CHECK(cudaStreamSynchronize(stream));
    const float w[4] = {0.5f, -2.0f, 2.5f, 3.5f};
    for (int i = 0; i < n; ++i)
        EXPECT(out[i] == float(i) * w[i % 4], "out[%d] = %f, expected %f", i, out[i],
               float(i) * w[i % 4]);
    EXPECT(total == static_cast<unsigned long long>(n), "total is %llu, expected %d", total, n);

    // The variable is managed memory, at one address for host and device.
    cudaPointerAttributes a;
    CHECK(cudaPointerGetAttributes(&a, &counter));
    EXPECT(a.type == cudaMemoryTypeManaged, "&counter has memory type %d, expected managed (%d)",
           int(a.type), int(cudaMemoryTypeManaged));
    EXPECT(a.devicePointer == &counter && a.hostPointer == &counter,
           "&counter is %p on the device and %p on the host, expected %p for both",
           a.devicePointer, a.hostPointer, static_cast<void*>(&counter));

    // The symbol API names a managed variable too.
    const int seven = 7;
    CHECK(cudaMemcpyToSymbol(counter, &seven, sizeof seven));
    EXPECT(counter == 7, "counter is %d after cudaMemcpyToSymbol, expected 7", counter);
    size_t size = 0;
    CHECK(cudaGetSymbolSize(&size, weights));
    EXPECT(size == sizeof weights, "cudaGetSymbolSize(weights) is %zu", size);

    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
    std::printf("managed_variable: 3 __managed__ variables shared by host and kernels: PASS\n");
    return 0;
}
