// The emulated runtime's fault injection (CUDALAB_INJECT, docs/runtime.md), run with
// CUDALAB_INJECT=malloc:2,launch-config:2,illegal-address:4,bogus:3 (programs.toml): the second
// cudaMalloc fails and the device stays usable; the second launch is refused as an invalid
// configuration and the third runs right; the fourth faults, asynchronously, and the error is
// sticky. Emulator only: NVIDIA's runtime injects nothing.
#include "check.h"

__global__ void fill(int* out, int value, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = value + i;
}

int main()
{
    const int n = 1000;
    int *a = nullptr, *b = nullptr, *c = nullptr;
    // Only cudaMalloc calls count for malloc:N: pinned and managed allocations do not.
    int *pinned = nullptr, *managed = nullptr;
    CHECK(cudaMallocHost(&pinned, n * sizeof(int)));
    CHECK(cudaMallocManaged(&managed, n * sizeof(int)));
    CHECK(cudaFreeHost(pinned));
    CHECK(cudaFree(managed));
    CHECK(cudaMalloc(&a, n * sizeof(int)));
    CHECK_IS(cudaMalloc(&b, n * sizeof(int)), cudaErrorMemoryAllocation);
    EXPECT(b == nullptr, "a failed cudaMalloc leaves the pointer null");
    CHECK_IS(cudaGetLastError(), cudaErrorMemoryAllocation);
    CHECK_IS(cudaGetLastError(), cudaSuccess);  // recoverable: read once, then gone
    CHECK(cudaMalloc(&c, n * sizeof(int)));
    std::printf("malloc 2: cudaErrorMemoryAllocation, recoverable\n");

    fill<<<(n + 255) / 256, 256>>>(a, 1, n);
    CHECK_LAUNCH();
    fill<<<(n + 255) / 256, 256>>>(a, 2, n);  // launch 2: refused
    CHECK_IS(cudaGetLastError(), cudaErrorInvalidValue);
    CHECK(cudaDeviceSynchronize());
    fill<<<(n + 255) / 256, 256>>>(c, 3, n);  // launch 3 runs
    CHECK_LAUNCH();
    int h[n];
    CHECK(cudaMemcpy(h, a, sizeof h, cudaMemcpyDeviceToHost));
    EXPECT(h[10] == 11, "launch 1 wrote a[10] = %d, expected 11 (launch 2 must not have run)", h[10]);
    CHECK(cudaMemcpy(h, c, sizeof h, cudaMemcpyDeviceToHost));
    EXPECT(h[10] == 13, "launch 3 wrote c[10] = %d, expected 13", h[10]);
    std::printf("launch 2: cudaErrorInvalidValue, recoverable\n");

    fill<<<(n + 255) / 256, 256>>>(c, 4, n);  // launch 4: faults
    CHECK_IS(cudaGetLastError(), cudaSuccess);  // asynchronous: the launch itself was fine
    CHECK_IS(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    CHECK_IS(cudaMemcpy(h, c, sizeof h, cudaMemcpyDeviceToHost), cudaErrorIllegalAddress);
    void* d = nullptr;
    CHECK_IS(cudaMalloc(&d, 16), cudaErrorIllegalAddress);
    std::printf("launch 4: cudaErrorIllegalAddress at the next synchronisation, sticky\n");
    std::printf("fault_injection: PASS\n");
    return 0;
}
