// nvrtc: compiles CUDA C++ source held in a string with NVRTC at run time (a template kernel,
// instantiated through a name expression), for the device's own architecture, loads the PTX
// with the driver API and runs it. Link with -lnvrtc -lcuda.
#include <cstdio>
#include <cstdlib>
#include <cuda.h>
#include <nvrtc.h>
#include <string>
#include <vector>

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
template <typename T, int POWER>
__global__ void power_sum(const T* in, T* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    T p = 1;
    for (int k = 0; k < POWER; ++k) p *= in[i];
    atomicAdd(out, p);
}

extern "C" __global__ void plain_square(int* data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = data[i] * data[i];
}
)CUDA";

int main()
{
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    int major = 0, minor = 0;
    CU_CHECK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    CU_CHECK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
    int nv_major = 0, nv_minor = 0;
    NVRTC_CHECK(nvrtcVersion(&nv_major, &nv_minor));

    nvrtcProgram prog;
    NVRTC_CHECK(nvrtcCreateProgram(&prog, kSource, "power_sum.cu", 0, nullptr, nullptr));
    const char* instance = "power_sum<int, 3>";
    NVRTC_CHECK(nvrtcAddNameExpression(prog, instance));
    std::string arch = "--gpu-architecture=compute_" + std::to_string(major * 10 + minor);
    const char* opts[] = {arch.c_str(), "--std=c++17"};
    nvrtcResult compiled = nvrtcCompileProgram(prog, 2, opts);
    size_t log_size = 0;
    NVRTC_CHECK(nvrtcGetProgramLogSize(prog, &log_size));
    if (compiled != NVRTC_SUCCESS) {
        std::string log(log_size, '\0');
        NVRTC_CHECK(nvrtcGetProgramLog(prog, &log[0]));
        std::fprintf(stderr, "NVRTC compile failed:\n%s\n", log.c_str());
        return 1;
    }
    const char* lowered = nullptr;
    NVRTC_CHECK(nvrtcGetLoweredName(prog, instance, &lowered));
    std::string lowered_name = lowered; // owned by prog
    size_t ptx_size = 0;
    NVRTC_CHECK(nvrtcGetPTXSize(prog, &ptx_size));
    std::string ptx(ptx_size, '\0');
    NVRTC_CHECK(nvrtcGetPTX(prog, &ptx[0]));
    NVRTC_CHECK(nvrtcDestroyProgram(&prog));
    std::printf("NVRTC %d.%d compiled %zu bytes of PTX for %s; %s is %s\n", nv_major, nv_minor,
                ptx_size, arch.c_str() + 19, instance, lowered_name.c_str());

    CUcontext ctx;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));
    CUmodule module;
    CU_CHECK(cuModuleLoadData(&module, ptx.c_str()));
    CUfunction power_sum, plain_square;
    CU_CHECK(cuModuleGetFunction(&power_sum, module, lowered_name.c_str()));
    CU_CHECK(cuModuleGetFunction(&plain_square, module, "plain_square"));

    const int n = 1000;
    std::vector<int> h(n);
    long long want = 0;
    for (int i = 0; i < n; ++i) { h[i] = i % 21 - 10; want += (long long)h[i] * h[i] * h[i]; }
    CUdeviceptr d_in, d_out;
    CU_CHECK(cuMemAlloc(&d_in, n * sizeof(int)));
    CU_CHECK(cuMemAlloc(&d_out, sizeof(int)));
    CU_CHECK(cuMemcpyHtoD(d_in, h.data(), n * sizeof(int)));
    CU_CHECK(cuMemsetD32(d_out, 0, 1));
    // The memset is asynchronous, in the legacy default stream, which does not order the
    // non-blocking stream below: wait for it, or the kernel races with it.
    CU_CHECK(cuCtxSynchronize());
    CUstream stream;
    CU_CHECK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    int nn = n;
    void* args1[] = {&d_in, &d_out, &nn};
    CU_CHECK(cuLaunchKernel(power_sum, (n + 127) / 128, 1, 1, 128, 1, 1, 0, stream, args1, nullptr));
    void* args2[] = {&d_in, &nn};
    CU_CHECK(cuLaunchKernel(plain_square, (n + 127) / 128, 1, 1, 128, 1, 1, 0, stream, args2, nullptr));
    int sum = 0;
    std::vector<int> sq(n);
    CU_CHECK(cuMemcpyDtoHAsync(&sum, d_out, sizeof(int), stream));
    CU_CHECK(cuMemcpyDtoHAsync(sq.data(), d_in, n * sizeof(int), stream));
    CU_CHECK(cuStreamSynchronize(stream));
    if (sum != want) { std::fprintf(stderr, "sum of cubes %d, expected %lld\n", sum, want); return 1; }
    for (int i = 0; i < n; ++i)
        if (sq[i] != h[i] * h[i]) { std::fprintf(stderr, "square at %d: %d\n", i, sq[i]); return 1; }

    CU_CHECK(cuStreamDestroy(stream));
    CU_CHECK(cuMemFree(d_in));
    CU_CHECK(cuMemFree(d_out));
    CU_CHECK(cuModuleUnload(module));
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    std::printf("nvrtc: sum of cubes %d: PASS\n", sum);
    return 0;
}
