// host_register: page-locks memory the program allocated itself (cudaHostRegister), uses it for
// asynchronous copies and, mapped, directly from a kernel; then unregisters it.
#include <cstdlib>
#include <cstring>
#include "check.h"

__global__ void increment(int* p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] += 1;
}

int main()
{
    const int n = 1 << 16;
    const size_t bytes = n * sizeof(int);
    int* host = static_cast<int*>(std::aligned_alloc(4096, bytes));
    EXPECT(host != nullptr, "aligned_alloc failed");
    for (int i = 0; i < n; ++i) host[i] = 2 * i;

    CHECK(cudaHostRegister(host, bytes, cudaHostRegisterMapped));
    cudaPointerAttributes attr;
    CHECK(cudaPointerGetAttributes(&attr, host));
    EXPECT(attr.type == cudaMemoryTypeHost, "registered memory has type %d", (int)attr.type);

    // 1. Asynchronous copies from and to the registered buffer.
    int* d = nullptr;
    CHECK(cudaMalloc(&d, bytes));
    CHECK(cudaPointerGetAttributes(&attr, d));
    EXPECT(attr.type == cudaMemoryTypeDevice && attr.device == 0, "device memory: type %d",
           (int)attr.type);
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMemcpyAsync(d, host, bytes, cudaMemcpyHostToDevice, s));
    increment<<<(n + 255) / 256, 256, 0, s>>>(d, n);
    CHECK_LAUNCH();
    CHECK(cudaMemcpyAsync(host, d, bytes, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; ++i) EXPECT(host[i] == 2 * i + 1, "after copies host[%d] = %d", i, host[i]);

    // 2. The kernel works on the registered memory itself.
    int* mapped = nullptr;
    CHECK(cudaHostGetDevicePointer(&mapped, host, 0));
    increment<<<(n + 255) / 256, 256, 0, s>>>(mapped, n);
    CHECK_LAUNCH();
    CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; ++i) EXPECT(host[i] == 2 * i + 2, "mapped host[%d] = %d", i, host[i]);

    // Registering the same range twice is an error that leaves the device usable.
    CHECK_IS(cudaHostRegister(host, bytes, 0), cudaErrorHostMemoryAlreadyRegistered);
    cudaGetLastError();
    CHECK(cudaHostUnregister(host));
    CHECK_IS(cudaHostUnregister(host), cudaErrorHostMemoryNotRegistered);
    cudaGetLastError();

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d));
    std::free(host);
    std::printf("host_register: %d ints registered, copied and mapped: PASS\n", n);
    return 0;
}
