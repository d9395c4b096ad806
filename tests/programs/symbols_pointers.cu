// Addresses of module variables and what CUDA says about pointers and error codes:
// cudaGetSymbolAddress and cudaGetSymbolSize of a __constant__ and a __device__ variable, the
// addresses used by cudaMemcpy and by kernels; cuModuleGetGlobal of both kinds in a PTX module;
// cuPointerGetAttribute (context, memory type, device pointer, host pointer, ordinal, range, buffer
// id, managed) and cuPointerGetAttributes on device, managed, pinned and unregistered memory;
// cudaGetErrorName/String and cuGetErrorName/String of known and unknown codes.
#include <cuda.h>

#include <cstring>

#include "check.h"

#define CU_CHECK(call)                                                                           \
    do {                                                                                         \
        CUresult cu_err_ = (call);                                                               \
        if (cu_err_ != CUDA_SUCCESS) {                                                           \
            const char* name_ = nullptr;                                                         \
            cuGetErrorName(cu_err_, &name_);                                                     \
            std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,            \
                         name_ ? name_ : "?");                                                   \
            std::exit(1);                                                                        \
        }                                                                                        \
    } while (0)

__constant__ float coefficients[4];
__device__ int table[8];

__global__ void apply(const float* via_pointer, float* out) {
    const int i = threadIdx.x;
    out[i] = coefficients[i % 4] * 10.0f + via_pointer[i % 4];
    table[i % 8] = i;
}

const char* ptx_module = R"(.version 8.0
.target sm_90
.address_size 64
.const .align 4 .b8 limits[8] = {1, 0, 0, 0, 2, 0, 0, 0};
.global .align 8 .b8 state[24];
.visible .entry touch(.param .u64 out)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<3>;
    ld.const.u32 %r1, [limits+4];
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    st.global.u32 [%rd2], %r1;
    ret;
}
)";

int main() {
    // [1] Symbols: a __constant__ array written through its address, read by a kernel both as
    // constants and through that address.
    void* constants = nullptr;
    CHECK(cudaGetSymbolAddress(&constants, coefficients));
    size_t bytes = 0;
    CHECK(cudaGetSymbolSize(&bytes, coefficients));
    EXPECT(bytes == 4 * sizeof(float), "cudaGetSymbolSize(coefficients) is %zu", bytes);
    const float c[4] = {1.0f, 2.0f, 3.0f, 4.0f};
    CHECK(cudaMemcpy(constants, c, sizeof c, cudaMemcpyHostToDevice));
    float back[4] = {};
    CHECK(cudaMemcpyFromSymbol(back, coefficients, sizeof back));
    EXPECT(std::memcmp(back, c, sizeof c) == 0, "the symbol holds %f %f %f %f", back[0], back[1],
           back[2], back[3]);
    cudaPointerAttributes pa;
    CHECK(cudaPointerGetAttributes(&pa, constants));
    EXPECT(pa.type == cudaMemoryTypeDevice, "a __constant__ variable's memory type is %d",
           int(pa.type));

    void* device_table = nullptr;
    CHECK(cudaGetSymbolAddress(&device_table, table));
    CHECK(cudaGetSymbolSize(&bytes, table));
    EXPECT(bytes == 8 * sizeof(int), "cudaGetSymbolSize(table) is %zu", bytes);
    CHECK(cudaMemset(device_table, 0xff, 8 * sizeof(int)));

    float* out = nullptr;
    CHECK(cudaMalloc(&out, 32 * sizeof(float)));
    apply<<<1, 32>>>(static_cast<const float*>(constants), out);
    CHECK_LAUNCH();
    float got[32];
    CHECK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 32; ++i)
        EXPECT(got[i] == c[i % 4] * 11.0f, "out[%d] = %f, expected %f", i, got[i], c[i % 4] * 11);
    int t[8];
    CHECK(cudaMemcpy(t, device_table, sizeof t, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 8; ++i) EXPECT(t[i] >= 0 && t[i] % 8 == i, "table[%d] = %d", i, t[i]);

    // [2] The driver: cuModuleGetGlobal of a .const and a .global variable of a PTX module.
    CU_CHECK(cuInit(0));
    CUcontext primary = nullptr;
    CU_CHECK(cuDevicePrimaryCtxRetain(&primary, 0));
    CU_CHECK(cuCtxSetCurrent(primary));
    CUmodule module;
    CU_CHECK(cuModuleLoadData(&module, ptx_module));
    CUdeviceptr limits = 0, state = 0;
    size_t limits_bytes = 0, state_bytes = 0;
    CU_CHECK(cuModuleGetGlobal(&limits, &limits_bytes, module, "limits"));
    CU_CHECK(cuModuleGetGlobal(&state, &state_bytes, module, "state"));
    EXPECT(limits_bytes == 8 && state_bytes == 24, "sizes %zu and %zu", limits_bytes, state_bytes);
    // (Its own out-parameter: a failed lookup may write it, as NVIDIA's driver does.)
    CUdeviceptr missing = 0;
    EXPECT(cuModuleGetGlobal(&missing, nullptr, module, "no_such") == CUDA_ERROR_NOT_FOUND,
           "an unknown global is not CUDA_ERROR_NOT_FOUND");
    unsigned seven = 7;
    CU_CHECK(cuMemcpyHtoD(limits + 4, &seven, 4));
    CUfunction touch;
    CU_CHECK(cuModuleGetFunction(&touch, module, "touch"));
    void* args[] = {&state};
    CU_CHECK(cuLaunchKernel(touch, 1, 1, 1, 1, 1, 1, 0, nullptr, args, nullptr));
    unsigned seen = 0;
    CU_CHECK(cuMemcpyDtoH(&seen, state, 4));
    EXPECT(seen == 7, "the kernel read %u from the constant written through its address", seen);

    // [3] Pointer attributes.
    const CUdeviceptr d = reinterpret_cast<CUdeviceptr>(out);
    CUcontext context = nullptr;
    CU_CHECK(cuPointerGetAttribute(&context, CU_POINTER_ATTRIBUTE_CONTEXT, d + 16));
    EXPECT(context == primary, "the context of a cudaMalloc pointer is %p, expected the primary "
           "context %p", static_cast<void*>(context), static_cast<void*>(primary));
    CUmemorytype type;
    CU_CHECK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d));
    EXPECT(type == CU_MEMORYTYPE_DEVICE, "memory type %d", int(type));
    CUdeviceptr start = 0, alias = 0;
    size_t size = 0;
    CU_CHECK(cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, d + 40));
    CU_CHECK(cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, d + 40));
    CU_CHECK(cuPointerGetAttribute(&alias, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, d + 40));
    EXPECT(start == d && size == 32 * sizeof(float) && alias == d + 40,
           "range %llx + %zu, device pointer %llx", (unsigned long long)start, size,
           (unsigned long long)alias);
    void* host = nullptr;
    EXPECT(cuPointerGetAttribute(&host, CU_POINTER_ATTRIBUTE_HOST_POINTER, d) ==
               CUDA_ERROR_INVALID_VALUE,
           "device memory has a host pointer");
    int ordinal = -1;
    CU_CHECK(cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, d));
    EXPECT(ordinal == 0, "device ordinal %d", ordinal);

    float* other = nullptr;
    CHECK(cudaMalloc(&other, 64));
    unsigned long long id1 = 0, id2 = 0;
    CU_CHECK(cuPointerGetAttribute(&id1, CU_POINTER_ATTRIBUTE_BUFFER_ID, d));
    CU_CHECK(cuPointerGetAttribute(&id2, CU_POINTER_ATTRIBUTE_BUFFER_ID,
                                   reinterpret_cast<CUdeviceptr>(other)));
    EXPECT(id1 != id2, "two allocations share buffer id %llu", id1);

    int* managed = nullptr;
    CHECK(cudaMallocManaged(&managed, 4096));
    bool is_managed = false;
    CU_CHECK(cuPointerGetAttribute(&is_managed, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                   reinterpret_cast<CUdeviceptr>(managed) + 100));
    EXPECT(is_managed, "cudaMallocManaged memory is not managed");
    CU_CHECK(cuPointerGetAttribute(&is_managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, d));
    EXPECT(!is_managed, "cudaMalloc memory is managed");
    int* pinned = nullptr;
    CHECK(cudaMallocHost(&pinned, 256));
    CU_CHECK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                   reinterpret_cast<CUdeviceptr>(pinned)));
    EXPECT(type == CU_MEMORYTYPE_HOST, "pinned memory has memory type %d", int(type));
    CU_CHECK(cuPointerGetAttribute(&host, CU_POINTER_ATTRIBUTE_HOST_POINTER,
                                   reinterpret_cast<CUdeviceptr>(pinned)));
    EXPECT(host == pinned, "pinned memory's host pointer is %p", host);

    // Memory CUDA never saw: an error for one attribute, null answers for several.
    static int plain[16];
    const CUdeviceptr unknown = reinterpret_cast<CUdeviceptr>(plain);
    EXPECT(cuPointerGetAttribute(&context, CU_POINTER_ATTRIBUTE_CONTEXT, unknown) ==
               CUDA_ERROR_INVALID_VALUE,
           "an unregistered host pointer has a context");
    CUpointer_attribute which[3] = {CU_POINTER_ATTRIBUTE_CONTEXT, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                    CU_POINTER_ATTRIBUTE_DEVICE_POINTER};
    CUcontext ctx_out = primary;
    CUmemorytype type_out = CU_MEMORYTYPE_DEVICE;
    CUdeviceptr pointer_out = 1;
    void* data[3] = {&ctx_out, &type_out, &pointer_out};
    CU_CHECK(cuPointerGetAttributes(3, which, data, unknown));
    EXPECT(ctx_out == nullptr && int(type_out) == 0 && pointer_out == 0,
           "unregistered memory: context %p, type %d, device pointer %llx",
           static_cast<void*>(ctx_out), int(type_out), (unsigned long long)pointer_out);
    CU_CHECK(cuPointerGetAttributes(3, which, data, d));
    EXPECT(ctx_out == primary && type_out == CU_MEMORYTYPE_DEVICE && pointer_out == d,
           "device memory: context %p, type %d, device pointer %llx",
           static_cast<void*>(ctx_out), int(type_out), (unsigned long long)pointer_out);

    // [4] Error codes: every name CUDA has, and an answer for one it does not.
    EXPECT(std::strcmp(cudaGetErrorName(cudaErrorInvalidDeviceFunction),
                       "cudaErrorInvalidDeviceFunction") == 0,
           "cudaGetErrorName(98) is %s", cudaGetErrorName(cudaErrorInvalidDeviceFunction));
    EXPECT(std::strcmp(cudaGetErrorName(cudaErrorTimeout), "cudaErrorTimeout") == 0,
           "cudaGetErrorName(909) is %s", cudaGetErrorName(cudaErrorTimeout));
    const cudaError_t made_up = cudaError_t(12345);
    EXPECT(std::strcmp(cudaGetErrorName(made_up), "unrecognized error code") == 0,
           "cudaGetErrorName(12345) is %s", cudaGetErrorName(made_up));
    EXPECT(std::strcmp(cudaGetErrorString(made_up), "unrecognized error code") == 0,
           "cudaGetErrorString(12345) is %s", cudaGetErrorString(made_up));
    const char* text = "untouched";
    EXPECT(cuGetErrorName(CUresult(12345), &text) == CUDA_ERROR_INVALID_VALUE && text == nullptr,
           "cuGetErrorName(12345) gave %s", text ? text : "NULL");
    text = "untouched";
    EXPECT(cuGetErrorString(CUresult(12345), &text) == CUDA_ERROR_INVALID_VALUE && text == nullptr,
           "cuGetErrorString(12345) gave %s", text ? text : "NULL");
    CU_CHECK(cuGetErrorName(CUDA_ERROR_INVALID_HANDLE, &text));
    EXPECT(std::strcmp(text, "CUDA_ERROR_INVALID_HANDLE") == 0, "cuGetErrorName(400) is %s", text);
    CU_CHECK(cuGetErrorString(CUDA_ERROR_INVALID_VALUE, &text));
    EXPECT(std::strcmp(text, "invalid argument") == 0, "cuGetErrorString(1) is %s", text);

    CU_CHECK(cuModuleUnload(module));
    CHECK(cudaFree(out));
    CHECK(cudaFree(other));
    CHECK(cudaFree(managed));
    CHECK(cudaFreeHost(pinned));
    std::printf("symbols_pointers: symbol addresses, module globals, pointer attributes, error "
                "names: PASS\n");
    return 0;
}
