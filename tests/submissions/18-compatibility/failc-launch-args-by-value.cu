// Lesson 18: cuLaunchKernel given the arguments themselves instead of pointers to them.
// corpus: expect array of pointers to the arguments
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

    // The first runtime call: with a driver older than the runtime it fails with
    // cudaErrorInsufficientDriver, and so would every other. Say which versions they are.
    int runtime_version = 0, driver_version = 0;
    CHECK(cudaRuntimeGetVersion(&runtime_version));
    CHECK(cudaDriverGetVersion(&driver_version));
    if (driver_version < runtime_version)
        std::fprintf(stderr, "the driver supports CUDA %d.%d, this program's runtime is CUDA %d.%d: update the driver\n",
                     driver_version / 1000, driver_version % 1000 / 10, runtime_version / 1000, runtime_version % 1000 / 10);
    unsigned* d = nullptr;
    CHECK(cudaMalloc(&d, bytes));  // also makes the device's primary context current
    CHECK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));

    // The GPU that is there decides the architecture to compile for.
    int device = 0, major = 0, minor = 0;
    CHECK(cudaGetDevice(&device));
    CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
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

    CU_CHECK(cuInit(0));
    CUmodule module;
    CUfunction mix;
    CU_CHECK(cuModuleLoadData(&module, ptx.c_str()));  // the driver compiles the PTX for this GPU
    CU_CHECK(cuModuleGetFunction(&mix, module, "mix"));

    // Four batches, one launch each, all with the one module.
    const int threads = 256, batches = 4;
    const unsigned per = (n + batches - 1) / batches;
    for (int b = 0; b < batches; ++b) {
        const unsigned first = b * per;
        if (first >= n) break;
        unsigned* data = d + first;
        int count = int(n - first < per ? n - first : per);
        void* args[] = {(void*)data, (void*)(size_t)count};  // the values, not pointers to them
        CU_CHECK(cuLaunchKernel(mix, (count + threads - 1) / threads, 1, 1, threads, 1, 1, 0, nullptr, args, nullptr));
    }
    CHECK(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost));  // waits, and reports a kernel's fault

    FILE* o = std::fopen(argv[2], "wb");
    if (!o || std::fwrite(h, sizeof(unsigned), n, o) != n) { std::perror(argv[2]); return 1; }
    std::fclose(o);
    CU_CHECK(cuModuleUnload(module));
    CHECK(cudaFree(d));
    std::free(h);
    std::printf("mixed %u values with code compiled for sm_%d%d\n", n, major, minor);
    return 0;
}
