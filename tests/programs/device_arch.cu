// The emulated GPU's architecture (CUDALAB_DEVICE_ARCH, docs/runtime.md), run with
// CUDALAB_DEVICE_ARCH=75 (programs.toml): the device reports compute capability 7.5, and a
// program built with -arch=sm_90 (sm_90 machine code, compute_90 PTX) has no kernel image for it.
// Emulator only: a GPU is the architecture it is.
#include "check.h"

__global__ void touch(int* p) { *p = 1; }

int main()
{
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    int major = 0, minor = 0;
    CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
    CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0));
    EXPECT(prop.major == 7 && prop.minor == 5 && major == 7 && minor == 5, "compute capability %d.%d / %d.%d, expected 7.5",
           prop.major, prop.minor, major, minor);
    int* d = nullptr;
    CHECK(cudaMalloc(&d, sizeof(int)));
    touch<<<1, 1>>>(d);
    CHECK_IS(cudaGetLastError(), cudaErrorNoKernelImageForDevice);
    CHECK(cudaDeviceSynchronize());  // not sticky: nothing ran
    CHECK(cudaFree(d));
    std::printf("sm_75: cudaErrorNoKernelImageForDevice for an sm_90 build\n");
    std::printf("device_arch: PASS\n");
    return 0;
}
