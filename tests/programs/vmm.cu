// vmm: CUDA's virtual memory management (the driver API's cuMem* calls), as vectorAddMMAP and
// cudaCompressibleMemory use it. Reserves a range of addresses, backs it with two physical
// allocations, gives the device access, fills it with a kernel (one launch across both
// allocations), maps the first allocation a second time elsewhere and reads the same bytes through
// the second address, and checks what the driver says of the mappings; then the errors an H100
// gives for misuse (docs/measurements/driver-apis-h100.md). Link with -lcuda.
#include <cstdio>
#include <cstdlib>
#include <cuda.h>
#include <cuda_runtime.h>
#include <vector>

#define CU_CHECK(call)                                                                             \
    do {                                                                                           \
        CUresult r_ = (call);                                                                      \
        if (r_ != CUDA_SUCCESS) {                                                                  \
            const char* name_ = nullptr;                                                           \
            cuGetErrorName(r_, &name_);                                                            \
            std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,             \
                         name_ ? name_ : "unknown error");                                         \
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

__global__ void fill(unsigned* p, size_t n)
{
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        p[i] = unsigned(i * 2654435761u);
}

int main()
{
    // The runtime initialises the driver: its primary context is current afterwards.
    cudaFree(0);
    CUcontext current = nullptr, primary = nullptr;
    CU_CHECK(cuCtxGetCurrent(&current));
    CU_CHECK(cuDevicePrimaryCtxRetain(&primary, 0));
    EXPECT(current == primary);
    int supported = 0;
    CU_CHECK(cuDeviceGetAttribute(&supported, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 0));
    if (!supported) {
        std::printf("vmm: waived (no virtual memory management)\n");
        return 0;
    }

    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t g = 0;
    CU_CHECK(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    EXPECT(g >= 4096 && (g & (g - 1)) == 0);
    // The same function through the runtime's table of driver entry points, as libraries reach
    // the driver without linking it.
    void* entry = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    EXPECT(cudaGetDriverEntryPointByVersion("cuMemGetAllocationGranularity", &entry, 12000, cudaEnableDefault,
                                            &found) == cudaSuccess);
    EXPECT(found == cudaDriverEntryPointSuccess && entry != nullptr);
    size_t g2 = 0;
    using granularity_fn = CUresult (*)(size_t*, const CUmemAllocationProp*, CUmemAllocationGranularity_flags);
    EXPECT(reinterpret_cast<granularity_fn>(entry)(&g2, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) == CUDA_SUCCESS &&
           g2 == g);
    EXPECT(cudaGetDriverEntryPointByVersion("cuNoSuchFunction", &entry, 12000, cudaEnableDefault, &found) ==
           cudaSuccess);
    EXPECT(found == cudaDriverEntryPointSymbolNotFound && entry == nullptr);
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    CU_CHECK(cuGetProcAddress("cuMemCreate", &entry, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &status));
    EXPECT(status == CU_GET_PROC_ADDRESS_SUCCESS && entry != nullptr);

    CUmemGenericAllocationHandle a = 0, b = 0;
    CU_CHECK(cuMemCreate(&a, 2 * g, &prop, 0));
    CU_CHECK(cuMemCreate(&b, g, &prop, 0));
    CUdeviceptr va = 0, alias = 0;
    CU_CHECK(cuMemAddressReserve(&va, 3 * g, 0, 0, 0));
    CU_CHECK(cuMemAddressReserve(&alias, 2 * g, 0, 0, 0));
    EXPECT(va % g == 0 && alias % g == 0);
    CU_CHECK(cuMemMap(va, 2 * g, 0, a, 0));
    CU_CHECK(cuMemMap(va + 2 * g, g, 0, b, 0));
    CU_CHECK(cuMemMap(alias, 2 * g, 0, a, 0));
    // Mapped memory outlives its handles: released now, freed by the last cuMemUnmap.
    CU_CHECK(cuMemRelease(b));

    CUmemAccessDesc access = {};
    access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access.location.id = 0;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CU_CHECK(cuMemSetAccess(va, 3 * g, &access, 1));
    CU_CHECK(cuMemSetAccess(alias, 2 * g, &access, 1));
    unsigned long long flags = 0;
    CUmemLocation here = {CU_MEM_LOCATION_TYPE_DEVICE, 0};
    CU_CHECK(cuMemGetAccess(&flags, &here, va + 2 * g + 100));
    EXPECT(flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE);

    // One kernel over all three granules: two physical allocations behind one range.
    const size_t n = 3 * g / sizeof(unsigned);
    fill<<<64, 256>>>(reinterpret_cast<unsigned*>(va), n);
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    std::vector<unsigned> host(n);
    CU_CHECK(cuMemcpyDtoH(host.data(), va, 3 * g));
    for (size_t i = 0; i < n; ++i)
        if (host[i] != unsigned(i * 2654435761u)) {
            std::fprintf(stderr, "element %zu: %u\n", i, host[i]);
            return 1;
        }
    // The second mapping of `a` is the same memory.
    std::vector<unsigned> through_alias(2 * g / sizeof(unsigned));
    CU_CHECK(cuMemcpyDtoH(through_alias.data(), alias, 2 * g));
    for (size_t i = 0; i < through_alias.size(); ++i) EXPECT(through_alias[i] == host[i]);
    // A copy across the boundary between the two allocations.
    unsigned edge[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    EXPECT(cudaMemcpy(reinterpret_cast<void*>(va + 2 * g - 16), edge, sizeof edge, cudaMemcpyHostToDevice) ==
           cudaSuccess);
    unsigned back[4] = {};
    CU_CHECK(cuMemcpyDtoH(back, va + 2 * g, sizeof back));
    EXPECT(back[0] == 5 && back[3] == 8);
    unsigned via_alias[4] = {};
    CU_CHECK(cuMemcpyDtoH(via_alias, alias + 2 * g - 16, sizeof via_alias));
    EXPECT(via_alias[0] == 1 && via_alias[3] == 4);

    // What the driver says of the memory.
    CUmemGenericAllocationHandle again = 0;
    CU_CHECK(cuMemRetainAllocationHandle(&again, reinterpret_cast<void*>(va + g + 12)));
    EXPECT(again == a);
    CU_CHECK(cuMemRelease(again));
    CUmemAllocationProp got = {};
    CU_CHECK(cuMemGetAllocationPropertiesFromHandle(&got, a));
    EXPECT(got.type == CU_MEM_ALLOCATION_TYPE_PINNED && got.location.type == CU_MEM_LOCATION_TYPE_DEVICE &&
           got.location.id == 0);
    CUmemorytype type = CUmemorytype(0);
    CU_CHECK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, va + 5));
    EXPECT(type == CU_MEMORYTYPE_DEVICE);
    cudaPointerAttributes attributes = {};
    EXPECT(cudaPointerGetAttributes(&attributes, reinterpret_cast<void*>(va)) == cudaSuccess);
    EXPECT(attributes.type == cudaMemoryTypeDevice && attributes.device == 0);

    // Misuse, answered as an H100 answers it.
    CUmemGenericAllocationHandle bad = 0;
    EXPECT(cuMemCreate(&bad, g / 2, &prop, 0) == CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemCreate(&bad, 0, &prop, 0) == CUDA_ERROR_INVALID_VALUE);
    CUdeviceptr unaligned = 0;
    EXPECT(cuMemAddressReserve(&unaligned, g / 2, 0, 0, 0) == CUDA_ERROR_INVALID_VALUE);
    CU_CHECK(cuMemUnmap(alias, 2 * g));
    EXPECT(cuMemMap(alias + 1, g, 0, a, 0) == CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(cuMemMap(alias, g, g, a, 0) == CUDA_ERROR_NOT_SUPPORTED);
    EXPECT(cuMemMap(alias, 2 * g, 0, a, 1) == CUDA_ERROR_INVALID_VALUE);

    CU_CHECK(cuMemUnmap(va, 3 * g));
    CU_CHECK(cuMemRelease(a));
    CU_CHECK(cuMemAddressFree(va, 3 * g));
    CU_CHECK(cuMemAddressFree(alias, 2 * g));
    std::printf("vmm: 3 granules of %zu bytes over 2 allocations, one mapped twice: PASS\n", g);
    return 0;
}
