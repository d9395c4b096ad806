// driver_api: the CUDA driver API without the runtime. Initialises the driver, picks device 0,
// creates a context, loads a module from PTX text embedded below, launches its kernel with
// cuLaunchKernel on memory from cuMemAlloc, and checks the result; then does the same in the
// device's primary context, loading the module with cuModuleLoadDataEx and a JIT log buffer.
// Link with -lcuda.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cuda.h>
#include <vector>

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

// y[i] = a * x[i] + y[i] for i < n, written by hand in PTX.
static const char* kPtx = R"PTX(
.version 7.0
.target sm_52
.address_size 64

.visible .entry axpy(
    .param .u64 y_param,
    .param .u64 x_param,
    .param .f32 a_param,
    .param .u32 n_param
)
{
    .reg .pred  %p<2>;
    .reg .b32   %r<6>;
    .reg .f32   %f<5>;
    .reg .b64   %rd<8>;

    ld.param.u64    %rd1, [y_param];
    ld.param.u64    %rd2, [x_param];
    ld.param.f32    %f1, [a_param];
    ld.param.u32    %r1, [n_param];
    mov.u32         %r2, %ctaid.x;
    mov.u32         %r3, %ntid.x;
    mov.u32         %r4, %tid.x;
    mad.lo.s32      %r5, %r2, %r3, %r4;
    setp.ge.s32     %p1, %r5, %r1;
    @%p1 bra        DONE;
    cvta.to.global.u64 %rd3, %rd1;
    cvta.to.global.u64 %rd4, %rd2;
    mul.wide.s32    %rd5, %r5, 4;
    add.s64         %rd6, %rd4, %rd5;
    ld.global.f32   %f2, [%rd6];
    add.s64         %rd7, %rd3, %rd5;
    ld.global.f32   %f3, [%rd7];
    fma.rn.f32      %f4, %f1, %f2, %f3;
    st.global.f32   [%rd7], %f4;
DONE:
    ret;
}
)PTX";

// Runs axpy in the current context and checks it; returns the number of wrong elements.
static int run_axpy(CUmodule module, float a)
{
    CUfunction fn;
    CU_CHECK(cuModuleGetFunction(&fn, module, "axpy"));
    const int n = 10000;
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; ++i) { x[i] = (float)(i % 17); y[i] = (float)(i % 5); }
    CUdeviceptr dx, dy;
    CU_CHECK(cuMemAlloc(&dx, n * sizeof(float)));
    CU_CHECK(cuMemAlloc(&dy, n * sizeof(float)));
    CU_CHECK(cuMemcpyHtoD(dx, x.data(), n * sizeof(float)));
    CU_CHECK(cuMemcpyHtoD(dy, y.data(), n * sizeof(float)));
    int nn = n;
    void* params[] = {&dy, &dx, &a, &nn};
    const unsigned threads = 128, blocks = (n + threads - 1) / threads;
    CU_CHECK(cuLaunchKernel(fn, blocks, 1, 1, threads, 1, 1, 0, nullptr, params, nullptr));
    CU_CHECK(cuCtxSynchronize());
    std::vector<float> out(n);
    CU_CHECK(cuMemcpyDtoH(out.data(), dy, n * sizeof(float)));
    int bad = 0;
    for (int i = 0; i < n; ++i)
        if (out[i] != std::fma(a, x[i], y[i])) ++bad;
    CU_CHECK(cuMemFree(dx));
    CU_CHECK(cuMemFree(dy));
    return bad;
}

int main()
{
    CU_CHECK(cuInit(0));
    int version = 0, count = 0;
    CU_CHECK(cuDriverGetVersion(&version));
    CU_CHECK(cuDeviceGetCount(&count));
    if (count < 1) { std::fprintf(stderr, "no device\n"); return 1; }
    CUdevice dev;
    CU_CHECK(cuDeviceGet(&dev, 0));
    char name[256];
    CU_CHECK(cuDeviceGetName(name, sizeof(name), dev));
    int major = 0, minor = 0;
    CU_CHECK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    CU_CHECK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
    size_t mem = 0;
    CU_CHECK(cuDeviceTotalMem(&mem, dev));
    std::printf("driver %d, device 0: %s, sm_%d%d, %zu MiB\n", version, name, major, minor, mem >> 20);

    // 1. A context of our own.
    CUcontext ctx;
    CU_CHECK(cuCtxCreate(&ctx, nullptr, 0, dev));
    CUcontext current;
    CU_CHECK(cuCtxGetCurrent(&current));
    if (current != ctx) { std::fprintf(stderr, "created context is not current\n"); return 1; }
    CUmodule module;
    CU_CHECK(cuModuleLoadData(&module, kPtx));
    int bad = run_axpy(module, 2.5f);
    if (bad) { std::fprintf(stderr, "created context: %d wrong elements\n", bad); return 1; }
    CUfunction missing;
    if (cuModuleGetFunction(&missing, module, "no_such_kernel") != CUDA_ERROR_NOT_FOUND) {
        std::fprintf(stderr, "looking up a missing kernel did not give CUDA_ERROR_NOT_FOUND\n");
        return 1;
    }
    CU_CHECK(cuModuleUnload(module));
    CU_CHECK(cuCtxDestroy(ctx));

    // 2. The primary context, and a module loaded with JIT options.
    CUcontext primary;
    CU_CHECK(cuDevicePrimaryCtxRetain(&primary, dev));
    CU_CHECK(cuCtxSetCurrent(primary));
    char log[4096] = {};
    CUjit_option opts[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
    void* vals[] = {log, (void*)(size_t)sizeof(log)};
    CU_CHECK(cuModuleLoadDataEx(&module, kPtx, 2, opts, vals));
    bad = run_axpy(module, -0.75f);
    if (bad) { std::fprintf(stderr, "primary context: %d wrong elements\n", bad); return 1; }
    CU_CHECK(cuModuleUnload(module));
    CU_CHECK(cuDevicePrimaryCtxRelease(dev));
    std::printf("driver_api: PTX module in a created and the primary context: PASS\n");
    return 0;
}
