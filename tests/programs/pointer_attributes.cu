// pointer_attributes: what cuPointerGetAttribute, cuPointerGetAttributes and
// cudaPointerGetAttributes say of each kind of memory, checked against what an H100 with CUDA
// 13.0's driver answered (docs/measurements/driver-apis-h100.md): device, page-locked,
// registered, managed and stream-ordered memory, __device__ and __managed__ variables, memory CUDA
// never saw and freed memory. Link with -lcuda.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda.h>
#include <cuda_runtime.h>

#define EXPECT(cond)                                                                               \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            std::fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);              \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

__device__ int device_table[16];
__managed__ int managed_table[8];

static int checked = 0;

// One attribute of the pointer, as 8 bytes of which the driver wrote `bytes` (the rest keep the
// 0xcd filling), or the error.
static CUresult get(CUpointer_attribute a, const void* p, unsigned long long* value, int* bytes = nullptr)
{
    unsigned char buffer[16];
    std::memset(buffer, 0xcd, sizeof buffer);
    const CUresult r = cuPointerGetAttribute(buffer, a, reinterpret_cast<CUdeviceptr>(p));
    int n = 0;
    for (int i = 0; i < 16; ++i)
        if (buffer[i] != 0xcd) n = i + 1;
    if (bytes) *bytes = n;
    *value = 0;
    std::memcpy(value, buffer, n > 8 ? 8 : n);
    ++checked;
    return r;
}

static unsigned long long value_of(CUpointer_attribute a, const void* p)
{
    unsigned long long v = 0;
    EXPECT(get(a, p, &v) == CUDA_SUCCESS);
    return v;
}

int main()
{
    cudaFree(0);
    CUcontext current = nullptr, primary = nullptr;
    EXPECT(cuCtxGetCurrent(&current) == CUDA_SUCCESS);
    EXPECT(cuDevicePrimaryCtxRetain(&primary, 0) == CUDA_SUCCESS);
    EXPECT(current == primary);  // the runtime made the primary context current
    const unsigned long long ctx = reinterpret_cast<unsigned long long>(primary);
    const unsigned long long two_mib = 2ull << 20;

    // cudaMalloc'd memory.
    char* d = nullptr;
    cudaMalloc(&d, 1000);
    const char* p = d + 40;
    EXPECT(value_of(CU_POINTER_ATTRIBUTE_CONTEXT, p) == ctx);
    EXPECT(value_of(CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p) == CU_MEMORYTYPE_DEVICE);
    EXPECT(value_of(CU_POINTER_ATTRIBUTE_DEVICE_POINTER, p) == reinterpret_cast<unsigned long long>(p));
    unsigned long long v = 0;
    EXPECT(get(CU_POINTER_ATTRIBUTE_HOST_POINTER, p, &v) == CUDA_ERROR_INVALID_VALUE);
    int bytes = 0;
    EXPECT(get(CU_POINTER_ATTRIBUTE_IS_MANAGED, p, &v, &bytes) == CUDA_SUCCESS && v == 0 && bytes == 4);
    EXPECT(get(CU_POINTER_ATTRIBUTE_MAPPED, p, &v, &bytes) == CUDA_SUCCESS && v == 1 && bytes == 4);
    EXPECT(value_of(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, p) == 0);
    EXPECT(value_of(CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, p) == 1);
    EXPECT(value_of(CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE, p) == 1);
    EXPECT(value_of(CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, p) == reinterpret_cast<unsigned long long>(d));
    EXPECT(value_of(CU_POINTER_ATTRIBUTE_RANGE_SIZE, p) == 1000);
    EXPECT(value_of(CU_POINTER_ATTRIBUTE_ACCESS_FLAGS, p) == CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE);
    EXPECT(value_of(CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, p) == 0);
    EXPECT(value_of(CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES, p) == 0);
    const unsigned long long map_base = value_of(CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR, p);
    const unsigned long long map_size = value_of(CU_POINTER_ATTRIBUTE_MAPPING_SIZE, p);
    EXPECT(map_base % two_mib == 0 && map_size % two_mib == 0 && map_base <= reinterpret_cast<unsigned long long>(d) &&
           map_base + map_size >= reinterpret_cast<unsigned long long>(d) + 1000);
    CUdeviceptr range_base = 0;
    size_t range_size = 0;
    EXPECT(cuMemGetAddressRange(&range_base, &range_size, reinterpret_cast<CUdeviceptr>(p)) == CUDA_SUCCESS);
    EXPECT(range_base == reinterpret_cast<CUdeviceptr>(d) && range_size == 1000);
    char* other = nullptr;
    cudaMalloc(&other, 16);
    EXPECT(value_of(CU_POINTER_ATTRIBUTE_BUFFER_ID, p) != value_of(CU_POINTER_ATTRIBUTE_BUFFER_ID, other));
    cudaPointerAttributes a;
    EXPECT(cudaPointerGetAttributes(&a, p) == cudaSuccess);
    EXPECT(a.type == cudaMemoryTypeDevice && a.device == 0 && a.devicePointer == p && a.hostPointer == nullptr);

    // Page-locked host memory.
    char* h = nullptr;
    cudaMallocHost(&h, 1000);
    EXPECT(value_of(CU_POINTER_ATTRIBUTE_MEMORY_TYPE, h + 8) == CU_MEMORYTYPE_HOST);
    EXPECT(value_of(CU_POINTER_ATTRIBUTE_HOST_POINTER, h + 8) == reinterpret_cast<unsigned long long>(h + 8));
    EXPECT(value_of(CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, h) == 0);
    EXPECT(value_of(CU_POINTER_ATTRIBUTE_CONTEXT, h) == ctx);
    EXPECT(cudaPointerGetAttributes(&a, h) == cudaSuccess && a.type == cudaMemoryTypeHost && a.hostPointer == h);

    // Registered host memory: mapped in 4 KiB pages.
    char* reg = static_cast<char*>(std::malloc(8192));
    EXPECT(cudaHostRegister(reg, 8192, 0) == cudaSuccess);
    EXPECT(value_of(CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, reg + 16) == reinterpret_cast<unsigned long long>(reg));
    EXPECT(value_of(CU_POINTER_ATTRIBUTE_RANGE_SIZE, reg + 16) == 8192);
    const unsigned long long reg_base = value_of(CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR, reg);
    const unsigned long long reg_size = value_of(CU_POINTER_ATTRIBUTE_MAPPING_SIZE, reg);
    EXPECT(reg_base % 4096 == 0 && reg_size % 4096 == 0 && reg_size < two_mib &&
           reg_base + reg_size >= reinterpret_cast<unsigned long long>(reg) + 8192);

    // Managed memory: device memory to the driver, always synchronising its memory operations.
    char* m = nullptr;
    cudaMallocManaged(&m, 1000);
    EXPECT(value_of(CU_POINTER_ATTRIBUTE_MEMORY_TYPE, m + 2) == CU_MEMORYTYPE_DEVICE);
    EXPECT(value_of(CU_POINTER_ATTRIBUTE_IS_MANAGED, m + 2) == 1);
    EXPECT(value_of(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, m + 2) == 1);
    EXPECT(value_of(CU_POINTER_ATTRIBUTE_HOST_POINTER, m + 2) == reinterpret_cast<unsigned long long>(m + 2));
    EXPECT(cudaPointerGetAttributes(&a, m) == cudaSuccess && a.type == cudaMemoryTypeManaged);

    // Stream-ordered memory: its pool's, no context's.
    char* s = nullptr;
    cudaMallocAsync(&s, 1000, 0);
    cudaStreamSynchronize(0);
    cudaMemPool_t pool = nullptr;
    cudaDeviceGetDefaultMemPool(&pool, 0);
    EXPECT(value_of(CU_POINTER_ATTRIBUTE_CONTEXT, s + 4) == 0);
    EXPECT(value_of(CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, s + 4) == reinterpret_cast<unsigned long long>(pool));
    EXPECT(value_of(CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, s) == 0);
    EXPECT(value_of(CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, s + 4) == reinterpret_cast<unsigned long long>(s));

    // Module variables.
    void* dv = nullptr;
    cudaGetSymbolAddress(&dv, device_table);
    EXPECT(value_of(CU_POINTER_ATTRIBUTE_CONTEXT, static_cast<char*>(dv) + 4) == ctx);
    EXPECT(value_of(CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, static_cast<char*>(dv) + 4) ==
           reinterpret_cast<unsigned long long>(dv));
    EXPECT(value_of(CU_POINTER_ATTRIBUTE_RANGE_SIZE, dv) == sizeof device_table);
    void* mv = nullptr;
    cudaGetSymbolAddress(&mv, managed_table);
    EXPECT(value_of(CU_POINTER_ATTRIBUTE_CONTEXT, mv) == 0);
    EXPECT(value_of(CU_POINTER_ATTRIBUTE_IS_MANAGED, mv) == 1);

    // Memory CUDA never saw: each attribute alone is an error; all at once succeed with the
    // driver's fillings (-2 for the device, the pointer as its host pointer, nothing for the range).
    char* plain = static_cast<char*>(std::malloc(64));
    for (int attr : {CU_POINTER_ATTRIBUTE_CONTEXT, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_IS_MANAGED,
                     CU_POINTER_ATTRIBUTE_MAPPED, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR})
        EXPECT(get(CUpointer_attribute(attr), plain, &v) == CUDA_ERROR_INVALID_VALUE);
    CUpointer_attribute which[5] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                    CU_POINTER_ATTRIBUTE_HOST_POINTER, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
                                    CU_POINTER_ATTRIBUTE_IS_MANAGED};
    unsigned long long slots[5];
    std::memset(slots, 0xcd, sizeof slots);
    void* data[5] = {&slots[0], &slots[1], &slots[2], &slots[3], &slots[4]};
    EXPECT(cuPointerGetAttributes(5, which, data, reinterpret_cast<CUdeviceptr>(plain)) == CUDA_SUCCESS);
    EXPECT(slots[0] == 0xcdcdcdcd00000000ull);  // 4 bytes: unregistered (0)
    EXPECT(slots[1] == 0xcdcdcdcdfffffffeull);  // 4 bytes: -2
    EXPECT(slots[2] == reinterpret_cast<unsigned long long>(plain));
    EXPECT(slots[3] == 0xcdcdcdcdcdcdcdcdull);  // untouched
    EXPECT(slots[4] == 0xcdcdcdcd00000000ull);
    EXPECT(cuMemGetAddressRange(&range_base, &range_size, reinterpret_cast<CUdeviceptr>(plain)) ==
           CUDA_ERROR_NOT_FOUND);
    EXPECT(cudaPointerGetAttributes(&a, plain) == cudaSuccess);
    EXPECT(a.type == cudaMemoryTypeUnregistered && a.device == -2 && a.hostPointer == plain && a.devicePointer == nullptr);

    // Freed memory is memory CUDA no longer knows.
    cudaFree(other);
    EXPECT(get(CU_POINTER_ATTRIBUTE_MEMORY_TYPE, other, &v) == CUDA_ERROR_INVALID_VALUE);

    cudaFree(d);
    cudaFreeHost(h);
    cudaHostUnregister(reg);
    std::free(reg);
    std::free(plain);
    cudaFree(m);
    cudaFreeAsync(s, 0);
    cudaDeviceSynchronize();
    std::printf("pointer_attributes: %d attributes of 9 kinds of memory: PASS\n", checked);
    return 0;
}
