// nvrtc_cubin: compiles a kernel with NVRTC for the device's real architecture (sm_XY, as the CUDA
// samples' nvrtc_helper.h does), takes the machine code with nvrtcGetCUBIN, loads that cubin with
// cuModuleLoadData into the primary context and runs it on data allocated by the runtime API. Link
// with -lnvrtc -lcuda.
#include <cstdio>
#include <cstdlib>
#include <cuda.h>
#include <cuda_runtime.h>
#include <nvrtc.h>
#include <string>
#include <vector>
#include "check.h"

#define NVRTC_CHECK(call)                                                                        \
    do {                                                                                         \
        nvrtcResult r_ = (call);                                                                 \
        if (r_ != NVRTC_SUCCESS) {                                                               \
            std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,           \
                         nvrtcGetErrorString(r_));                                               \
            std::exit(1);                                                                        \
        }                                                                                        \
    } while (0)

#define CU_CHECK(call)                                                                           \
    do {                                                                                         \
        CUresult r_ = (call);                                                                    \
        if (r_ != CUDA_SUCCESS) {                                                                \
            const char* name_ = nullptr;                                                         \
            cuGetErrorName(r_, &name_);                                                          \
            std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,           \
                         name_ ? name_ : "unknown error");                                       \
            std::exit(1);                                                                        \
        }                                                                                        \
    } while (0)

static const char* kSource = R"CUDA(
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
)CUDA";

int main()
{
    int major = 0, minor = 0;
    CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
    CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0));
    const std::string arch = "--gpu-architecture=sm_" + std::to_string(major * 10 + minor);

    nvrtcProgram prog;
    NVRTC_CHECK(nvrtcCreateProgram(&prog, kSource, "saxpy.cu", 0, nullptr, nullptr));
    const char* options[] = {arch.c_str()};
    NVRTC_CHECK(nvrtcCompileProgram(prog, 1, options));
    size_t size = 0;
    NVRTC_CHECK(nvrtcGetCUBINSize(prog, &size));
    EXPECT(size > 0, "NVRTC gave an empty cubin");
    std::vector<char> cubin(size);
    NVRTC_CHECK(nvrtcGetCUBIN(prog, cubin.data()));
    NVRTC_CHECK(nvrtcDestroyProgram(&prog));
    EXPECT(cubin[0] == 0x7f && cubin[1] == 'E', "the cubin is not an ELF file");

    CHECK(cudaFree(nullptr));  // the runtime's primary context, which the driver API then uses
    CUmodule module;
    CUfunction saxpy;
    CU_CHECK(cuModuleLoadData(&module, cubin.data()));
    CU_CHECK(cuModuleGetFunction(&saxpy, module, "saxpy"));

    const int n = 5000;
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; ++i) {
        x[i] = float(i % 100);
        y[i] = float(i % 7);
    }
    float *d_x, *d_y;
    CHECK(cudaMalloc(&d_x, n * sizeof(float)));
    CHECK(cudaMalloc(&d_y, n * sizeof(float)));
    CHECK(cudaMemcpy(d_x, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_y, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    float a = 2.5f;
    int count = n;
    void* args[] = {&a, &d_x, &d_y, &count};
    CU_CHECK(cuLaunchKernel(saxpy, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr));
    std::vector<float> got(n);
    CHECK(cudaMemcpy(got.data(), d_y, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
        EXPECT(got[i] == a * x[i] + y[i], "y[%d] is %g, expected %g", i, got[i], a * x[i] + y[i]);
    CU_CHECK(cuModuleUnload(module));
    CHECK(cudaFree(d_x));
    CHECK(cudaFree(d_y));
    std::printf("nvrtc_cubin: %zu-byte cubin for sm_%d%d: PASS\n", size, major, minor);
    return 0;
}
