// The CUDA driver API, loaded at run time (dlopen "libcuda.so.1", cuInit first), so that cudalab
// runs, on the emulator, on machines with no driver. Only types come from <cuda.h>; every call
// goes through this table.
#pragma once

#include <cuda.h>
#include <string>

namespace cudalab::gpu {

// X(member, symbol, fallback symbol)
#define CUDALAB_DRIVER_FUNCTIONS(X)                                                                \
    X(cuInit, "cuInit", "")                                                                        \
    X(cuDriverGetVersion, "cuDriverGetVersion", "")                                                \
    X(cuDeviceGetCount, "cuDeviceGetCount", "")                                                    \
    X(cuDeviceGet, "cuDeviceGet", "")                                                              \
    X(cuDeviceGetName, "cuDeviceGetName", "")                                                      \
    X(cuDeviceGetAttribute, "cuDeviceGetAttribute", "")                                            \
    X(cuDeviceTotalMem, "cuDeviceTotalMem_v2", "")                                                 \
    X(cuDeviceGetUuid, "cuDeviceGetUuid_v2", "cuDeviceGetUuid")                                    \
    X(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", "")                                    \
    X(cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease")      \
    X(cuDevicePrimaryCtxReset, "cuDevicePrimaryCtxReset_v2", "cuDevicePrimaryCtxReset")            \
    X(cuCtxSetCurrent, "cuCtxSetCurrent", "")                                                      \
    X(cuCtxSynchronize, "cuCtxSynchronize", "")                                                    \
    X(cuModuleLoadDataEx, "cuModuleLoadDataEx", "")                                                \
    X(cuModuleUnload, "cuModuleUnload", "")                                                        \
    X(cuModuleGetFunction, "cuModuleGetFunction", "")                                              \
    X(cuFuncGetAttribute, "cuFuncGetAttribute", "")                                                \
    X(cuFuncSetAttribute, "cuFuncSetAttribute", "")                                                \
    X(cuMemAlloc, "cuMemAlloc_v2", "")                                                             \
    X(cuMemFree, "cuMemFree_v2", "")                                                               \
    X(cuMemcpyHtoD, "cuMemcpyHtoD_v2", "")                                                         \
    X(cuMemcpyDtoH, "cuMemcpyDtoH_v2", "")                                                         \
    X(cuMemsetD8, "cuMemsetD8_v2", "")                                                             \
    X(cuLaunchKernel, "cuLaunchKernel", "")                                                        \
    X(cuStreamQuery, "cuStreamQuery", "")                                                          \
    X(cuEventCreate, "cuEventCreate", "")                                                          \
    X(cuEventDestroy, "cuEventDestroy_v2", "cuEventDestroy")                                       \
    X(cuEventRecord, "cuEventRecord", "")                                                          \
    X(cuEventSynchronize, "cuEventSynchronize", "")                                                \
    X(cuEventQuery, "cuEventQuery", "")                                                            \
    X(cuEventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime")                           \
    X(cuGetErrorName, "cuGetErrorName", "")                                                        \
    X(cuGetErrorString, "cuGetErrorString", "")                                                    \
    X(cuOccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor",  \
      "")

struct Driver {
    void* library = nullptr;
    CUresult (*cuInit)(unsigned);
    CUresult (*cuDriverGetVersion)(int*);
    CUresult (*cuDeviceGetCount)(int*);
    CUresult (*cuDeviceGet)(CUdevice*, int);
    CUresult (*cuDeviceGetName)(char*, int, CUdevice);
    CUresult (*cuDeviceGetAttribute)(int*, CUdevice_attribute, CUdevice);
    CUresult (*cuDeviceTotalMem)(size_t*, CUdevice);
    CUresult (*cuDeviceGetUuid)(CUuuid*, CUdevice);
    CUresult (*cuDevicePrimaryCtxRetain)(CUcontext*, CUdevice);
    CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
    CUresult (*cuDevicePrimaryCtxReset)(CUdevice);
    CUresult (*cuCtxSetCurrent)(CUcontext);
    CUresult (*cuCtxSynchronize)();
    CUresult (*cuModuleLoadDataEx)(CUmodule*, const void*, unsigned, CUjit_option*, void**);
    CUresult (*cuModuleUnload)(CUmodule);
    CUresult (*cuModuleGetFunction)(CUfunction*, CUmodule, const char*);
    CUresult (*cuFuncGetAttribute)(int*, CUfunction_attribute, CUfunction);
    CUresult (*cuFuncSetAttribute)(CUfunction, CUfunction_attribute, int);
    CUresult (*cuMemAlloc)(CUdeviceptr*, size_t);
    CUresult (*cuMemFree)(CUdeviceptr);
    CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void*, size_t);
    CUresult (*cuMemcpyDtoH)(void*, CUdeviceptr, size_t);
    CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t);
    CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                               unsigned, unsigned, CUstream, void**, void**);
    // Optional (CUDA 12 drivers and later): launches with cluster dimensions; null without it.
    CUresult (*cuLaunchKernelEx)(const CUlaunchConfig*, CUfunction, void**, void**) = nullptr;
    CUresult (*cuStreamQuery)(CUstream);
    CUresult (*cuEventCreate)(CUevent*, unsigned);
    CUresult (*cuEventDestroy)(CUevent);
    CUresult (*cuEventRecord)(CUevent, CUstream);
    CUresult (*cuEventSynchronize)(CUevent);
    CUresult (*cuEventQuery)(CUevent);
    CUresult (*cuEventElapsedTime)(float*, CUevent, CUevent);
    CUresult (*cuGetErrorName)(CUresult, const char**);
    CUresult (*cuGetErrorString)(CUresult, const char**);
    CUresult (*cuOccupancyMaxActiveBlocksPerMultiprocessor)(int*, CUfunction, int, size_t);

    // "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered"
    std::string error_text(CUresult r) const;
};

// The process-wide driver, loaded and initialised once. Null with `why` set when there is none.
const Driver* driver(std::string* why);

}  // namespace cudalab::gpu
