// driver_link: the driver API's JIT linker and file loading, as ptxjit-style programs use them.
// NVRTC compiles two units with relocatable device code (a __device__ function in one, the
// kernel calling it in the other); cuLinkCreate / cuLinkAddData / cuLinkComplete join them,
// cuModuleLoadData loads the result and cuLaunchKernel runs it. The linked image is also written
// to a file and loaded again with cuModuleLoad. cuOccupancyMaxPotentialBlockSize and
// cuFuncGetAttribute describe the kernel; with two devices, cuDeviceCanAccessPeer and
// cuCtxEnablePeerAccess. Link with -lnvrtc -lcuda.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda.h>
#include <nvrtc.h>
#include <string>
#include <vector>

#define EXPECT(cond, ...)                                                                        \
    do {                                                                                         \
        if (!(cond)) {                                                                           \
            std::fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);       \
            std::fprintf(stderr, __VA_ARGS__);                                                   \
            std::fprintf(stderr, "\n");                                                          \
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

static const char* kHelper = R"CUDA(
__device__ int scale(int x) { return 3 * x + 1; }
)CUDA";

static const char* kKernel = R"CUDA(
extern __device__ int scale(int x);
extern "C" __global__ void apply(int* data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] = scale(data[i]);
}
)CUDA";

static std::string compile(const char* source, const char* name, const std::string& arch)
{
    nvrtcProgram prog;
    NVRTC_CHECK(nvrtcCreateProgram(&prog, source, name, 0, nullptr, nullptr));
    const char* options[] = {arch.c_str(), "--relocatable-device-code=true"};
    NVRTC_CHECK(nvrtcCompileProgram(prog, 2, options));
    size_t size = 0;
    NVRTC_CHECK(nvrtcGetPTXSize(prog, &size));
    std::string ptx(size, '\0');
    NVRTC_CHECK(nvrtcGetPTX(prog, ptx.data()));
    NVRTC_CHECK(nvrtcDestroyProgram(&prog));
    return ptx;
}

// Runs `apply` from the module on 1000 integers and checks them.
static void run(CUmodule module, const char* how)
{
    CUfunction apply;
    CU_CHECK(cuModuleGetFunction(&apply, module, "apply"));
    const int n = 1000;
    std::vector<int> host(n);
    for (int i = 0; i < n; ++i) host[i] = i - 300;
    CUdeviceptr data;
    CU_CHECK(cuMemAlloc(&data, n * sizeof(int)));
    CU_CHECK(cuMemcpyHtoD(data, host.data(), n * sizeof(int)));
    int count = n;
    void* args[] = {&data, &count};
    CU_CHECK(cuLaunchKernel(apply, (n + 127) / 128, 1, 1, 128, 1, 1, 0, nullptr, args, nullptr));
    std::vector<int> got(n);
    CU_CHECK(cuMemcpyDtoH(got.data(), data, n * sizeof(int)));
    for (int i = 0; i < n; ++i)
        EXPECT(got[i] == 3 * host[i] + 1, "%s: element %d is %d, expected %d", how, i, got[i],
               3 * host[i] + 1);
    CU_CHECK(cuMemFree(data));
}

int main()
{
    CU_CHECK(cuInit(0));
    CUdevice device;
    CU_CHECK(cuDeviceGet(&device, 0));
    int major = 0, minor = 0, devices = 0;
    CU_CHECK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device));
    CU_CHECK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device));
    CU_CHECK(cuDeviceGetCount(&devices));
    CUcontext context;
    CU_CHECK(cuDevicePrimaryCtxRetain(&context, device));
    CU_CHECK(cuCtxSetCurrent(context));

    const std::string arch = "--gpu-architecture=compute_" + std::to_string(major * 10 + minor);
    const std::string helper = compile(kHelper, "helper.cu", arch);
    const std::string kernel = compile(kKernel, "kernel.cu", arch);

    float wall = -1;
    char info[256] = "x", errors[256] = "x";
    CUjit_option options[] = {CU_JIT_WALL_TIME, CU_JIT_INFO_LOG_BUFFER,
                              CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER,
                              CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* values[] = {nullptr, info, reinterpret_cast<void*>(sizeof info), errors,
                      reinterpret_cast<void*>(sizeof errors)};
    CUlinkState link;
    CU_CHECK(cuLinkCreate(5, options, values, &link));
    CU_CHECK(cuLinkAddData(link, CU_JIT_INPUT_PTX, const_cast<char*>(kernel.c_str()),
                           kernel.size(), "kernel.ptx", 0, nullptr, nullptr));
    CU_CHECK(cuLinkAddData(link, CU_JIT_INPUT_PTX, const_cast<char*>(helper.c_str()),
                           helper.size(), "helper.ptx", 0, nullptr, nullptr));
    void* image = nullptr;
    size_t image_size = 0;
    CU_CHECK(cuLinkComplete(link, &image, &image_size));
    EXPECT(image && image_size > 0, "cuLinkComplete gave no image");
    std::memcpy(&wall, &values[0], sizeof wall);
    EXPECT(wall >= 0, "the wall time option reads %g", wall);
    CUmodule module;
    CU_CHECK(cuModuleLoadData(&module, image));
    run(module, "linked in memory");

    // The same image from a file.
    const std::string path = "driver_link_image.bin";
    FILE* f = std::fopen(path.c_str(), "wb");
    EXPECT(f != nullptr, "cannot write %s", path.c_str());
    std::fwrite(image, 1, image_size, f);
    std::fclose(f);
    CU_CHECK(cuLinkDestroy(link));  // the image belongs to the link state until here
    CUmodule from_file;
    CU_CHECK(cuModuleLoad(&from_file, path.c_str()));
    std::remove(path.c_str());
    run(from_file, "loaded from a file");
    CUmodule missing;
    EXPECT(cuModuleLoad(&missing, "no/such/file.ptx") == CUDA_ERROR_FILE_NOT_FOUND,
           "cuModuleLoad of a missing file");

    CUfunction apply;
    CU_CHECK(cuModuleGetFunction(&apply, module, "apply"));
    int min_grid = 0, block = 0, max_threads = 0;
    CU_CHECK(cuOccupancyMaxPotentialBlockSize(&min_grid, &block, apply, nullptr, 0, 0));
    CU_CHECK(cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, apply));
    EXPECT(block > 0 && block % 32 == 0 && block <= max_threads && min_grid > 0,
           "occupancy: block %d, grid %d, at most %d threads", block, min_grid, max_threads);
    int per_sm = 0;
    CU_CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, apply, block, 0));
    EXPECT(per_sm * block > 0, "occupancy: %d blocks of %d per SM", per_sm, block);

    if (devices >= 2) {
        int can = 0;
        CUdevice other;
        CU_CHECK(cuDeviceGet(&other, 1));
        CU_CHECK(cuDeviceCanAccessPeer(&can, device, other));
        EXPECT(can == 1, "device 0 cannot access device 1");
        CUcontext peer;
        CU_CHECK(cuDevicePrimaryCtxRetain(&peer, other));
        CU_CHECK(cuCtxEnablePeerAccess(peer, 0));
        CU_CHECK(cuDevicePrimaryCtxRelease(other));
    }
    CU_CHECK(cuDevicePrimaryCtxRelease(device));
    std::printf("driver_link: 2 PTX units linked, run from memory and from a file; %d-thread "
                "blocks: PASS\n",
                block);
    return 0;
}
