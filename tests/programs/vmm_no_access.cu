// vmm_no_access: memory mapped with cuMemMap but never given access with cuMemSetAccess. A GPU
// faults the kernel that touches it (cudaErrorIllegalAddress, as an H100 does); the emulated
// runtime says why. Link with -lcuda.
#include <cstdio>
#include <cuda.h>
#include <cuda_runtime.h>

__global__ void touch(int* p) { p[threadIdx.x] = 1; }

int main()
{
    cudaFree(0);
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t g = 0;
    CUmemGenericAllocationHandle h = 0;
    CUdeviceptr va = 0;
    if (cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM) != CUDA_SUCCESS ||
        cuMemCreate(&h, g, &prop, 0) != CUDA_SUCCESS || cuMemAddressReserve(&va, g, 0, 0, 0) != CUDA_SUCCESS ||
        cuMemMap(va, g, 0, h, 0) != CUDA_SUCCESS) {
        std::printf("vmm_no_access: setup failed\n");
        return 1;
    }
    touch<<<1, 32>>>(reinterpret_cast<int*>(va));
    const cudaError_t launch = cudaGetLastError();
    const cudaError_t sync = cudaDeviceSynchronize();
    std::printf("vmm_no_access: launch %s, sync %s\n", cudaGetErrorName(launch), cudaGetErrorName(sync));
    return sync == cudaErrorIllegalAddress ? 0 : 1;
}
