// assert: a device assert that fails stops the kernel; the next synchronising call returns
// cudaErrorAssert, and the error is sticky: every later call in the process reports it too.
// The program passes when all of that holds (so it exits 0 on a correct runtime).
#undef NDEBUG
#include <cassert>
#include "check.h"

__global__ void check_positive(const int* data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) assert(data[i] > 0);
}

int main()
{
    const int n = 256;
    int h[n];
    for (int i = 0; i < n; ++i) h[i] = i + 1;
    int* d = nullptr;
    CHECK(cudaMalloc(&d, sizeof(h)));
    CHECK(cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice));

    // All positive: no assertion fires.
    check_positive<<<n / 64, 64>>>(d, n);
    CHECK_LAUNCH();
    CHECK(cudaDeviceSynchronize());
    std::printf("valid data: kernel completed\n");

    // One bad element: thread 77's assertion fails (its message goes to stderr).
    h[77] = -5;
    CHECK(cudaMemcpy(d, h, sizeof(h), cudaMemcpyHostToDevice));
    check_positive<<<n / 64, 64>>>(d, n);
    CHECK_LAUNCH(); // the launch itself is fine
    cudaError_t err = cudaDeviceSynchronize();
    EXPECT(err == cudaErrorAssert, "synchronize returned %s", cudaGetErrorName(err));
    std::printf("failed assertion reported as %s: %s\n", cudaGetErrorName(err),
                cudaGetErrorString(err));

    // Sticky: the context is unusable from here on, whatever is called.
    CHECK_IS(cudaGetLastError(), cudaErrorAssert);
    CHECK_IS(cudaDeviceSynchronize(), cudaErrorAssert);
    int* other = nullptr;
    CHECK_IS(cudaMalloc(&other, 64), cudaErrorAssert);
    CHECK_IS(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost), cudaErrorAssert);
    CHECK_IS(cudaGetLastError(), cudaErrorAssert);
    std::printf("assert: cudaErrorAssert is sticky: PASS\n");
    return 0;
}
