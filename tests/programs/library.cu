// library: CUDA's library API (CUDA 12+). Loads a module of two kernels, a __device__ and a
// __managed__ variable from PTX text (below; nvcc -arch=compute_75 -ptx of the source in the
// comment) with cudaLibraryLoadData, launches its kernels through kernel handles with
// cudaLaunchKernel and with the driver's cuLaunchKernel, reads its variables with
// cudaLibraryGetGlobal / cudaLibraryGetManaged, lists its kernels, sets an attribute per device,
// and launches a kernel of the program itself through cudaGetKernel. Link with -lcuda.
//
//   __device__ unsigned counter;
//   __managed__ float total;
//   extern "C" __global__ void scale(float* x, float a, int n)
//   { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) { x[i] *= a; atomicAdd(&counter, 1u); } }
//   extern "C" __global__ void sum(const float* x, int n)
//   { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) atomicAdd(&total, x[i]); }
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda.h>
#include <cuda_runtime.h>
#include <vector>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,             \
                         cudaGetErrorName(e_));                                                    \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)
#define EXPECT(cond)                                                                               \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            std::fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);              \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

static const char* kPtx = R"PTX(
.version 9.0
.target sm_75
.address_size 64
.global .align 4 .u32 counter;
.global .attribute(.managed) .align 4 .f32 total;
.visible .entry scale(
	.param .u64 scale_param_0,
	.param .f32 scale_param_1,
	.param .u32 scale_param_2
)
{
	.reg .pred 	%p<2>;
	.reg .f32 	%f<4>;
	.reg .b32 	%r<7>;
	.reg .b64 	%rd<6>;
	ld.param.u64 	%rd1, [scale_param_0];
	ld.param.f32 	%f1, [scale_param_1];
	ld.param.u32 	%r2, [scale_param_2];
	mov.u32 	%r3, %ctaid.x;
	mov.u32 	%r4, %ntid.x;
	mov.u32 	%r5, %tid.x;
	mad.lo.s32 	%r1, %r3, %r4, %r5;
	setp.ge.s32 	%p1, %r1, %r2;
	@%p1 bra 	$L__BB0_2;
	cvta.to.global.u64 	%rd2, %rd1;
	mul.wide.s32 	%rd3, %r1, 4;
	add.s64 	%rd4, %rd2, %rd3;
	ld.global.f32 	%f2, [%rd4];
	mul.f32 	%f3, %f2, %f1;
	st.global.f32 	[%rd4], %f3;
	mov.u64 	%rd5, counter;
	atom.global.add.u32 	%r6, [%rd5], 1;
$L__BB0_2:
	ret;
}
.visible .entry sum(
	.param .u64 sum_param_0,
	.param .u32 sum_param_1
)
{
	.reg .pred 	%p<2>;
	.reg .f32 	%f<3>;
	.reg .b32 	%r<6>;
	.reg .b64 	%rd<6>;
	ld.param.u64 	%rd1, [sum_param_0];
	ld.param.u32 	%r2, [sum_param_1];
	mov.u32 	%r3, %ctaid.x;
	mov.u32 	%r4, %ntid.x;
	mov.u32 	%r5, %tid.x;
	mad.lo.s32 	%r1, %r3, %r4, %r5;
	setp.ge.s32 	%p1, %r1, %r2;
	@%p1 bra 	$L__BB1_2;
	cvta.to.global.u64 	%rd2, %rd1;
	mul.wide.s32 	%rd3, %r1, 4;
	add.s64 	%rd4, %rd2, %rd3;
	ld.global.f32 	%f1, [%rd4];
	mov.u64 	%rd5, total;
	atom.global.add.f32 	%f2, [%rd5], %f1;
$L__BB1_2:
	ret;
}
)PTX";

__global__ void add_one(float* x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1.0f;
}

int main()
{
    const int n = 1000;
    std::vector<float> host(n);
    for (int i = 0; i < n; ++i) host[i] = float(i % 7);
    float* x = nullptr;
    CHECK(cudaMalloc(&x, n * sizeof(float)));
    CHECK(cudaMemcpy(x, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    cudaLibrary_t library = nullptr;
    CHECK(cudaLibraryLoadData(&library, kPtx, nullptr, nullptr, 0, nullptr, nullptr, 0));
    unsigned count = 0;
    CHECK(cudaLibraryGetKernelCount(&count, library));
    EXPECT(count == 2);
    cudaKernel_t listed[2] = {};
    CHECK(cudaLibraryEnumerateKernels(listed, 2, library));
    cudaKernel_t scale = nullptr, sum = nullptr, again = nullptr;
    CHECK(cudaLibraryGetKernel(&scale, library, "scale"));
    CHECK(cudaLibraryGetKernel(&sum, library, "sum"));
    CHECK(cudaLibraryGetKernel(&again, library, "scale"));
    EXPECT(scale == again && scale != sum);
    EXPECT((listed[0] == scale && listed[1] == sum) || (listed[0] == sum && listed[1] == scale));
    const char* name = nullptr;
    EXPECT(cuKernelGetName(&name, reinterpret_cast<CUkernel>(scale)) == CUDA_SUCCESS && name &&
           std::strcmp(name, "scale") == 0);
    cudaKernel_t missing = nullptr;
    EXPECT(cudaLibraryGetKernel(&missing, library, "no_such_kernel") != cudaSuccess);
    cudaGetLastError();

    // A kernel handle launches like a kernel's address.
    float a = 3.0f;
    int count_n = n;
    void* scale_args[] = {&x, &a, &count_n};
    CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(scale), dim3((n + 255) / 256), dim3(256), scale_args, 0, 0));
    // ...and through the driver, as the function of the current context.
    CUfunction sum_function = nullptr;
    EXPECT(cuKernelGetFunction(&sum_function, reinterpret_cast<CUkernel>(sum)) == CUDA_SUCCESS);
    void* sum_args[] = {&x, &count_n};
    EXPECT(cuLaunchKernel(sum_function, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, sum_args, nullptr) ==
           CUDA_SUCCESS);
    CHECK(cudaDeviceSynchronize());

    // The library's variables.
    void* counter = nullptr;
    size_t counter_bytes = 0;
    CHECK(cudaLibraryGetGlobal(&counter, &counter_bytes, library, "counter"));
    EXPECT(counter_bytes == 4);
    unsigned launched = 0;
    CHECK(cudaMemcpy(&launched, counter, 4, cudaMemcpyDeviceToHost));
    EXPECT(launched == unsigned(n));
    void* total = nullptr;
    size_t total_bytes = 0;
    CHECK(cudaLibraryGetManaged(&total, &total_bytes, library, "total"));
    EXPECT(total_bytes == 4);
    float expected = 0;
    for (int i = 0; i < n; ++i) expected += 3.0f * float(i % 7);
    EXPECT(*static_cast<float*>(total) == expected);  // small integers: exact in any order

    // Attributes per device: the H100 takes up to the opt-in limit of dynamic shared memory.
    CHECK(cudaKernelSetAttributeForDevice(scale, cudaFuncAttributeMaxDynamicSharedMemorySize, 100000, 0));
    EXPECT(cudaKernelSetAttributeForDevice(scale, cudaFuncAttributeMaxDynamicSharedMemorySize, 300000, 0) ==
           cudaErrorInvalidValue);
    cudaGetLastError();

    // A kernel of the program itself, as a handle.
    cudaKernel_t own = nullptr;
    CHECK(cudaGetKernel(&own, reinterpret_cast<const void*>(add_one)));
    void* own_args[] = {&x, &count_n};
    CHECK(cudaLaunchKernel(reinterpret_cast<const void*>(own), dim3((n + 255) / 256), dim3(256), own_args, 0, 0));
    CHECK(cudaMemcpy(host.data(), x, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) EXPECT(host[i] == 3.0f * float(i % 7) + 1.0f);

    CHECK(cudaLibraryUnload(library));
    CHECK(cudaFree(x));
    std::printf("library: 2 kernels, a __device__ and a __managed__ variable, sum %.0f: PASS\n", expected);
    return 0;
}
