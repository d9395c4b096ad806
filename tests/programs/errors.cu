// errors: CUDA's error semantics. Launch-configuration errors are reported at the launch (and by
// cudaGetLastError, which clears them; cudaPeekAtLastError does not); other errors are returned
// by the call that made them; a kernel that faults is reported at the next synchronising call as
// cudaErrorIllegalAddress, and that error is sticky for the rest of the process.
#include <cstring>
#include "check.h"

__global__ void store(int* p, int index, int value) { p[index] = value; }

int main()
{
    // Names and strings.
    EXPECT(std::strcmp(cudaGetErrorName(cudaSuccess), "cudaSuccess") == 0, "name of success");
    EXPECT(std::strcmp(cudaGetErrorName(cudaErrorInvalidValue), "cudaErrorInvalidValue") == 0, "");
    EXPECT(std::strcmp(cudaGetErrorName(cudaErrorIllegalAddress), "cudaErrorIllegalAddress") == 0,
           "");
    EXPECT(std::strcmp(cudaGetErrorString(cudaErrorInvalidValue), "invalid argument") == 0, "%s",
           cudaGetErrorString(cudaErrorInvalidValue));
    EXPECT(std::strcmp(cudaGetErrorString(cudaErrorMemoryAllocation), "out of memory") == 0, "%s",
           cudaGetErrorString(cudaErrorMemoryAllocation));
    EXPECT(std::strcmp(cudaGetErrorString(cudaErrorIllegalAddress),
                       "an illegal memory access was encountered") == 0,
           "%s", cudaGetErrorString(cudaErrorIllegalAddress));
    EXPECT(std::strcmp(cudaGetErrorString(cudaErrorInvalidConfiguration),
                       "invalid configuration argument") == 0,
           "%s", cudaGetErrorString(cudaErrorInvalidConfiguration));

    int* d = nullptr;
    CHECK(cudaMalloc(&d, 1024 * sizeof(int)));

    // The codes NVIDIA's runtime 13.0 gives for bad launch configurations (read on an H200 with
    // driver 580): older runtimes said cudaErrorInvalidConfiguration for some of these.
    const cudaError_t kTooManyThreads = cudaErrorInvalidValue;
    const cudaError_t kGridTooLarge = cudaErrorInvalidValue;
    const cudaError_t kEmptyBlock = cudaErrorInvalidValue;

    // 1. Too many threads per block: the launch fails, nothing runs.
    store<<<1, 2048>>>(d, 0, 1);
    CHECK_IS(cudaPeekAtLastError(), kTooManyThreads);
    CHECK_IS(cudaPeekAtLastError(), kTooManyThreads); // peek leaves it in place
    CHECK_IS(cudaGetLastError(), kTooManyThreads);
    CHECK_IS(cudaGetLastError(), cudaSuccess);        // get cleared it
    std::printf("2048 threads per block: %s, cleared by cudaGetLastError\n",
                cudaGetErrorName(kTooManyThreads));

    // 2. A grid y dimension past 65535, through cudaLaunchKernel, which returns the error itself
    //    and also leaves it as the last error.
    int index = 0, value = 5;
    void* args[] = {&d, &index, &value};
    CHECK_IS(cudaLaunchKernel((const void*)store, dim3(1, 70000), dim3(1), args, 0, 0),
             kGridTooLarge);
    CHECK_IS(cudaGetLastError(), kGridTooLarge);
    std::printf("grid of 1 x 70000 blocks: %s\n", cudaGetErrorName(kGridTooLarge));

    // 3. A block with no threads.
    store<<<1, dim3(0, 1, 1)>>>(d, 0, 1);
    CHECK_IS(cudaGetLastError(), kEmptyBlock);
    std::printf("block of 0 threads: %s\n", cudaGetErrorName(kEmptyBlock));

    // 4. Errors from calls: a bad copy direction argument and an impossible allocation.
    CHECK_IS(cudaMemcpy(d, d, 16, (cudaMemcpyKind)42), cudaErrorInvalidMemcpyDirection);
    cudaGetLastError();
    int* huge = nullptr;
    CHECK_IS(cudaMalloc(&huge, size_t(1) << 60), cudaErrorMemoryAllocation);
    CHECK_IS(cudaGetLastError(), cudaErrorMemoryAllocation);
    CHECK(cudaFree(nullptr)); // freeing null is allowed

    // None of those were sticky: the device still works.
    store<<<1, 1>>>(d, 3, 77);
    CHECK_LAUNCH();
    int h = 0;
    CHECK(cudaMemcpy(&h, d + 3, sizeof(int), cudaMemcpyDeviceToHost));
    EXPECT(h == 77, "value after recoverable errors: %d", h);
    std::printf("recoverable errors left the device usable\n");

    // 5. A kernel writing through a null pointer faults.
    store<<<1, 1>>>(nullptr, 0, 1);
    CHECK_IS(cudaGetLastError(), cudaSuccess); // the launch itself was valid
    cudaError_t err = cudaDeviceSynchronize();
    EXPECT(err == cudaErrorIllegalAddress, "synchronize returned %s", cudaGetErrorName(err));
    std::printf("null store: %s (%s)\n", cudaGetErrorName(err), cudaGetErrorString(err));

    // Sticky: nothing works any more, and clearing the last error does not help.
    CHECK_IS(cudaPeekAtLastError(), cudaErrorIllegalAddress);
    CHECK_IS(cudaGetLastError(), cudaErrorIllegalAddress);
    CHECK_IS(cudaDeviceSynchronize(), cudaErrorIllegalAddress);
    CHECK_IS(cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost), cudaErrorIllegalAddress);
    int* more = nullptr;
    CHECK_IS(cudaMalloc(&more, 64), cudaErrorIllegalAddress);
    store<<<1, 1>>>(d, 0, 1);
    CHECK_IS(cudaGetLastError(), cudaErrorIllegalAddress);
    std::printf("errors: cudaErrorIllegalAddress is sticky: PASS\n");
    return 0;
}
