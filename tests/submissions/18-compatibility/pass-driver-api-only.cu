// Lesson 18: the driver API alone (no runtime call): NVRTC, cuModuleLoadData, cuMemAlloc,
// cuLaunchKernel. Under a CUDA 12.8 driver cuModuleLoadData refuses the CUDA 13 PTX with
// CUDA_ERROR_UNSUPPORTED_PTX_VERSION, which it names.
#include <cstdio>
#include <cstdlib>
#include <string>

#include <cuda.h>
#include <nvrtc.h>

#define CHECK(call)                                                                              \
    do {                                                                                         \
        cudaError_t err_ = (call);                                                               \
        if (err_ != cudaSuccess) {                                                               \
            std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,       \
                         cudaGetErrorName(err_), cudaGetErrorString(err_));                      \
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
                         name_ ? name_ : "an unknown CUresult");                                 \
            std::exit(1);                                                                        \
        }                                                                                        \
    } while (0)

#define NVRTC_CHECK(call)                                                                        \
    do {                                                                                         \
        nvrtcResult r_ = (call);                                                                 \
        if (r_ != NVRTC_SUCCESS) {                                                               \
            std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,           \
                         nvrtcGetErrorString(r_));                                               \
            std::exit(1);                                                                        \
        }                                                                                        \
    } while (0)

// The kernel as text, for NVRTC. extern "C": its name in the PTX is "mix", not a mangled one.
static const char* kSource = R"CUDA(
extern "C" __global__ void mix(unsigned* data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned v = data[i];
    for (unsigned r = 0; r < 64; ++r) v = (v ^ (v >> 13)) * 2654435761u + r;
    data[i] = v;
}
)CUDA";

int main(int argc, char** argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s in.bin out.bin\n", argv[0]);
        return 2;
    }
    FILE* f = std::fopen(argv[1], "rb");
    if (!f) { std::perror(argv[1]); return 1; }
    unsigned n = 0;
    if (std::fread(&n, sizeof n, 1, f) != 1 || n == 0) { std::fprintf(stderr, "%s: no count\n", argv[1]); return 1; }
    const size_t bytes = size_t(n) * sizeof(unsigned);
    unsigned* h = (unsigned*)std::malloc(bytes);
    if (!h || std::fread(h, sizeof(unsigned), n, f) != n) { std::fprintf(stderr, "%s: short file\n", argv[1]); return 1; }
    std::fclose(f);

    // The driver API alone: it belongs to the driver, so it also answers under a driver older
    // than this toolkit; what such a driver cannot do is load PTX newer than itself.
    CU_CHECK(cuInit(0));
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CU_CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_CHECK(cuCtxSetCurrent(ctx));
    // The GPU that is there decides the architecture to compile for.
    int major = 0, minor = 0;
    CU_CHECK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    CU_CHECK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
    const std::string arch = "--gpu-architecture=compute_" + std::to_string(major * 10 + minor);
    nvrtcProgram prog;
    NVRTC_CHECK(nvrtcCreateProgram(&prog, kSource, "mix.cu", 0, nullptr, nullptr));
    const char* options[] = {arch.c_str()};
    if (nvrtcCompileProgram(prog, 1, options) != NVRTC_SUCCESS) {
        size_t size = 0;
        nvrtcGetProgramLogSize(prog, &size);
        std::string log(size, '\0');
        nvrtcGetProgramLog(prog, &log[0]);
        std::fprintf(stderr, "NVRTC could not compile the kernel for %s:\n%s\n", arch.c_str() + 19, log.c_str());
        return 1;
    }
    size_t ptx_size = 0;
    NVRTC_CHECK(nvrtcGetPTXSize(prog, &ptx_size));
    std::string ptx(ptx_size, '\0');
    NVRTC_CHECK(nvrtcGetPTX(prog, &ptx[0]));
    NVRTC_CHECK(nvrtcDestroyProgram(&prog));

    CUmodule module;
    CUfunction mix;
    CU_CHECK(cuModuleLoadData(&module, ptx.c_str()));  // the driver compiles the PTX for this GPU
    CU_CHECK(cuModuleGetFunction(&mix, module, "mix"));
    CUdeviceptr d = 0;
    CU_CHECK(cuMemAlloc(&d, bytes));
    CU_CHECK(cuMemcpyHtoD(d, h, bytes));

    // Four batches, one launch each, all with the one module.
    const int threads = 256, batches = 4;
    const unsigned per = (n + batches - 1) / batches;
    for (int b = 0; b < batches; ++b) {
        const unsigned first = b * per;
        if (first >= n) break;
        CUdeviceptr data = d + first * sizeof(unsigned);
        int count = int(n - first < per ? n - first : per);
        void* args[] = {&data, &count};
        CU_CHECK(cuLaunchKernel(mix, (count + threads - 1) / threads, 1, 1, threads, 1, 1, 0, nullptr, args, nullptr));
    }
    CU_CHECK(cuMemcpyDtoH(h, d, bytes));  // waits, and reports a kernel's fault

    FILE* o = std::fopen(argv[2], "wb");
    if (!o || std::fwrite(h, sizeof(unsigned), n, o) != n) { std::perror(argv[2]); return 1; }
    std::fclose(o);
    CU_CHECK(cuModuleUnload(module));
    CU_CHECK(cuMemFree(d));
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    std::free(h);
    std::printf("mixed %u values with code compiled for sm_%d%d\n", n, major, minor);
    return 0;
}
