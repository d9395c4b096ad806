// The error texts (error_texts.h).
#include "device/error_texts.h"

#include <cuda.h>
#include <cuda_runtime_api.h>

namespace cudalab::device {

namespace {

#define CUDALAB_ERRORS(X)                                                                          \
    X(cudaSuccess, "no error")                                                                     \
    X(cudaErrorInvalidValue, "invalid argument")                                                   \
    X(cudaErrorMemoryAllocation, "out of memory")                                                  \
    X(cudaErrorInitializationError, "initialization error")                                        \
    X(cudaErrorCudartUnloading, "driver shutting down")                                            \
    X(cudaErrorInvalidConfiguration, "invalid configuration argument")                             \
    X(cudaErrorInvalidPitchValue, "invalid pitch argument")                                        \
    X(cudaErrorInvalidSymbol, "invalid device symbol")                                             \
    X(cudaErrorInvalidDevicePointer, "invalid device pointer")                                     \
    X(cudaErrorInvalidMemcpyDirection, "invalid copy direction for memcpy")                        \
    X(cudaErrorMissingConfiguration, "__global__ function call is not configured")                 \
    X(cudaErrorInsufficientDriver, "CUDA driver version is insufficient for CUDA runtime version") \
    X(cudaErrorNoDevice, "no CUDA-capable device is detected")                                     \
    X(cudaErrorInvalidDevice, "invalid device ordinal")                                            \
    X(cudaErrorNoKernelImageForDevice, "no kernel image is available for execution on the device") \
    X(cudaErrorInvalidPtx, "a PTX JIT compilation failed")                                         \
    X(cudaErrorInvalidResourceHandle, "invalid resource handle")                                   \
    X(cudaErrorIllegalState, "the operation cannot be performed in the present state")             \
    X(cudaErrorSymbolNotFound, "named symbol not found")                                           \
    X(cudaErrorNotReady, "device not ready")                                                       \
    X(cudaErrorIllegalAddress, "an illegal memory access was encountered")                         \
    X(cudaErrorLaunchOutOfResources, "too many resources requested for launch")                    \
    X(cudaErrorLaunchTimeout, "the launch timed out and was terminated")                           \
    X(cudaErrorPeerAccessAlreadyEnabled, "peer access is already enabled")                         \
    X(cudaErrorPeerAccessNotEnabled, "peer access has not been enabled")                           \
    X(cudaErrorSetOnActiveProcess, "cannot set while device is active in this process")            \
    X(cudaErrorContextIsDestroyed, "context is destroyed")                                         \
    X(cudaErrorAssert, "device-side assert triggered")                                             \
    X(cudaErrorHostMemoryAlreadyRegistered,                                                        \
      "part or all of the requested memory range is already mapped")                               \
    X(cudaErrorHostMemoryNotRegistered,                                                            \
      "pointer does not correspond to a registered memory region")                                 \
    X(cudaErrorIllegalInstruction, "an illegal instruction was encountered")                       \
    X(cudaErrorMisalignedAddress, "misaligned address")                                            \
    X(cudaErrorLaunchFailure, "unspecified launch failure")                                        \
    X(cudaErrorCooperativeLaunchTooLarge, "too many blocks in cooperative launch")                 \
    X(cudaErrorNotSupported, "operation not supported")                                            \
    X(cudaErrorStreamCaptureUnsupported, "operation not permitted when stream is capturing")       \
    X(cudaErrorStreamCaptureInvalidated,                                                           \
      "operation failed due to a previous error during capture")                                   \
    X(cudaErrorStreamCaptureUnjoined, "capturing stream has unjoined work")                        \
    X(cudaErrorStreamCaptureUnmatched, "capture was not ended in the same stream as it began")     \
    X(cudaErrorStreamCaptureWrongThread,                                                           \
      "attempt to terminate a thread-local capture sequence from another thread")                  \
    X(cudaErrorStreamCaptureImplicit,                                                              \
      "operation would make the legacy stream depend on a capturing blocking stream")              \
    X(cudaErrorGraphExecUpdateFailure,                                                             \
      "the graph update was not performed because it included changes which violated constraints " \
      "specific to instantiated graph update")                                                     \
    X(cudaErrorUnknown, "unknown error")                                                           \
    X(cudaErrorInvalidKernelImage, "device kernel image is invalid")                               \
    X(cudaErrorDeviceUninitialized, "invalid device context")                                      \
    X(cudaErrorProfilerDisabled, "profiler disabled while using external profiling tool")          \
    X(cudaErrorProfilerNotInitialized, "profiler not initialized: call cudaProfilerInitialize()")  \
    X(cudaErrorProfilerAlreadyStarted, "profiler already started")                                 \
    X(cudaErrorProfilerAlreadyStopped, "profiler already stopped")                                 \
    X(cudaErrorInvalidHostPointer, "invalid host pointer")                                         \
    X(cudaErrorInvalidTexture, "invalid texture reference")                                        \
    X(cudaErrorInvalidTextureBinding, "texture is not bound to a pointer")                         \
    X(cudaErrorInvalidChannelDescriptor, "invalid channel descriptor")                             \
    X(cudaErrorAddressOfConstant, "invalid address of constant")                                   \
    X(cudaErrorTextureFetchFailed, "fetch from texture failed")                                    \
    X(cudaErrorTextureNotBound, "cannot fetch from a texture that is not bound")                   \
    X(cudaErrorSynchronizationError, "incorrect use of __syncthreads()")                           \
    X(cudaErrorInvalidFilterSetting, "linear filtering not supported for non-float type")          \
    X(cudaErrorInvalidNormSetting, "read as normalized float not supported for data type")         \
    X(cudaErrorMixedDeviceExecution,                                                               \
      "device emulation mode and device execution mode cannot be mixed")                           \
    X(cudaErrorNotYetImplemented, "feature not yet implemented")                                   \
    X(cudaErrorMemoryValueTooLarge, "memory size or pointer value too large to fit in 32 bit")     \
    X(cudaErrorStubLibrary, "CUDA driver is a stub library")                                       \
    X(cudaErrorCallRequiresNewerDriver, "API call is not supported in the installed CUDA driver")  \
    X(cudaErrorInvalidSurface, "invalid surface reference")                                        \
    X(cudaErrorDuplicateVariableName, "duplicate global variable looked up by string name")        \
    X(cudaErrorDuplicateTextureName, "duplicate texture looked up by string name")                 \
    X(cudaErrorDuplicateSurfaceName, "duplicate surface looked up by string name")                 \
    X(cudaErrorDevicesUnavailable, "CUDA-capable device(s) is/are busy or unavailable")            \
    X(cudaErrorIncompatibleDriverContext, "incompatible driver context")                           \
    X(cudaErrorPriorLaunchFailure, "unspecified launch failure in prior launch")                   \
    X(cudaErrorLaunchMaxDepthExceeded, "launch would exceed maximum depth of nested launches")     \
    X(cudaErrorLaunchFileScopedTex,                                                                \
      "launch failed because kernel uses unsupported, file-scoped textures (texture objects "      \
      "are supported)")                                                                            \
    X(cudaErrorLaunchFileScopedSurf,                                                               \
      "launch failed because kernel uses unsupported, file-scoped surfaces (surface objects "      \
      "are supported)")                                                                            \
    X(cudaErrorSyncDepthExceeded,                                                                  \
      "cudaDeviceSynchronize failed because caller's grid depth exceeds "                          \
      "cudaLimitDevRuntimeSyncDepth")                                                              \
    X(cudaErrorLaunchPendingCountExceeded,                                                         \
      "launch failed because launch would exceed cudaLimitDevRuntimePendingLaunchCount")           \
    X(cudaErrorInvalidDeviceFunction, "invalid device function")                                   \
    X(cudaErrorDeviceNotLicensed, "device doesn't have valid Grid license")                        \
    X(cudaErrorSoftwareValidityNotEstablished, "integrity checks failed")                          \
    X(cudaErrorStartupFailure, "startup failure in cuda runtime")                                  \
    X(cudaErrorMapBufferObjectFailed, "mapping of buffer object failed")                           \
    X(cudaErrorUnmapBufferObjectFailed, "unmapping of buffer object failed")                       \
    X(cudaErrorArrayIsMapped, "array is mapped")                                                   \
    X(cudaErrorAlreadyMapped, "resource already mapped")                                           \
    X(cudaErrorAlreadyAcquired, "resource already acquired")                                       \
    X(cudaErrorNotMapped, "resource not mapped")                                                   \
    X(cudaErrorNotMappedAsArray, "resource not mapped as array")                                   \
    X(cudaErrorNotMappedAsPointer, "resource not mapped as pointer")                               \
    X(cudaErrorECCUncorrectable, "uncorrectable ECC error encountered")                            \
    X(cudaErrorUnsupportedLimit, "limit is not supported on this architecture")                    \
    X(cudaErrorDeviceAlreadyInUse, "exclusive-thread device already in use by a different thread") \
    X(cudaErrorPeerAccessUnsupported, "peer access is not supported between these two devices")    \
    X(cudaErrorInvalidGraphicsContext, "invalid OpenGL or DirectX context")                        \
    X(cudaErrorNvlinkUncorrectable, "uncorrectable NVLink error detected during the execution")    \
    X(cudaErrorJitCompilerNotFound, "PTX JIT compiler library not found")                          \
    X(cudaErrorUnsupportedPtxVersion,                                                              \
      "the provided PTX was compiled with an unsupported toolchain.")                              \
    X(cudaErrorJitCompilationDisabled, "PTX JIT compilation was disabled")                         \
    X(cudaErrorUnsupportedExecAffinity, "the provided execution affinity is not supported")        \
    X(cudaErrorUnsupportedDevSideSync,                                                             \
      "the provided PTX contains unsupported call to cudaDeviceSynchronize")                       \
    X(cudaErrorContained, "Invalid access of peer GPU memory over nvlink or a hardware error")     \
    X(cudaErrorInvalidSource, "device kernel image is invalid")                                    \
    X(cudaErrorFileNotFound, "file not found")                                                     \
    X(cudaErrorSharedObjectSymbolNotFound, "shared object symbol not found")                       \
    X(cudaErrorSharedObjectInitFailed, "shared object initialization failed")                      \
    X(cudaErrorOperatingSystem, "OS call failed or operation not supported on this OS")            \
    X(cudaErrorLossyQuery, "attempted introspection would be semantically lossy")                  \
    X(cudaErrorLaunchIncompatibleTexturing, "launch uses incompatible texturing mode")             \
    X(cudaErrorTooManyPeers, "peer mapping resources exhausted")                                   \
    X(cudaErrorHardwareStackError, "hardware stack error")                                         \
    X(cudaErrorInvalidAddressSpace, "operation not supported on global/shared address space")      \
    X(cudaErrorInvalidPc, "invalid program counter")                                               \
    X(cudaErrorTensorMemoryLeak, "tensor memory not completely freed")                             \
    X(cudaErrorNotPermitted, "operation not permitted")                                            \
    X(cudaErrorSystemNotReady, "system not yet initialized")                                       \
    X(cudaErrorSystemDriverMismatch,                                                               \
      "system has unsupported display driver / cuda driver combination")                           \
    X(cudaErrorCompatNotSupportedOnDevice,                                                         \
      "forward compatibility was attempted on non supported HW")                                   \
    X(cudaErrorMpsConnectionFailed,                                                                \
      "MPS client failed to connect to the MPS control daemon or the MPS server")                  \
    X(cudaErrorMpsRpcFailure,                                                                      \
      "the remote procedural call between the MPS server and the MPS client failed")               \
    X(cudaErrorMpsServerNotReady, "MPS server is not ready to accept new MPS client requests")     \
    X(cudaErrorMpsMaxClientsReached,                                                               \
      "the hardware resources required to create MPS client have been exhausted")                  \
    X(cudaErrorMpsMaxConnectionsReached,                                                           \
      "the hardware resources required to support device connections have been exhausted")         \
    X(cudaErrorMpsClientTerminated, "the MPS client has been terminated by the server")            \
    X(cudaErrorCdpNotSupported,                                                                    \
      "is using CUDA Dynamic Parallelism, but the current configuration, like MPS, does not "      \
      "support it")                                                                                \
    X(cudaErrorCdpVersionMismatch,                                                                 \
      "unsupported interaction between different versions of CUDA Dynamic Parallelism")            \
    X(cudaErrorStreamCaptureMerge,                                                                 \
      "operation would result in a merge of separate capture sequences")                           \
    X(cudaErrorStreamCaptureIsolation, "dependency created on uncaptured work in another stream")  \
    X(cudaErrorCapturedEvent,                                                                      \
      "operation not permitted on an event last recorded in a capturing stream")                   \
    X(cudaErrorTimeout, "wait operation timed out")                                                \
    X(cudaErrorExternalDevice, "an async error has occured in external entity outside of CUDA")    \
    X(cudaErrorInvalidClusterSize,                                                                 \
      "a kernel launch error has occurred due to cluster misconfiguration")                        \
    X(cudaErrorFunctionNotLoaded,                                                                  \
      "the function handle is not loaded when calling an API that requires a loaded function")     \
    X(cudaErrorInvalidResourceType,                                                                \
      "one or more resources passed in are not valid resource types for the operation")            \
    X(cudaErrorInvalidResourceConfiguration,                                                       \
      "one or more resources are insufficient or non-applicable for the operation")

#define CUDALAB_DRIVER_ERRORS(X)                                                                   \
    X(CUDA_SUCCESS)                                                                                \
    X(CUDA_ERROR_INVALID_VALUE)                                                                    \
    X(CUDA_ERROR_OUT_OF_MEMORY)                                                                    \
    X(CUDA_ERROR_NOT_INITIALIZED)                                                                  \
    X(CUDA_ERROR_DEINITIALIZED)                                                                    \
    X(CUDA_ERROR_PROFILER_DISABLED)                                                                \
    X(CUDA_ERROR_PROFILER_NOT_INITIALIZED)                                                         \
    X(CUDA_ERROR_PROFILER_ALREADY_STARTED)                                                         \
    X(CUDA_ERROR_PROFILER_ALREADY_STOPPED)                                                         \
    X(CUDA_ERROR_STUB_LIBRARY)                                                                     \
    X(CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER)                                                       \
    X(CUDA_ERROR_DEVICE_UNAVAILABLE)                                                               \
    X(CUDA_ERROR_NO_DEVICE)                                                                        \
    X(CUDA_ERROR_INVALID_DEVICE)                                                                   \
    X(CUDA_ERROR_DEVICE_NOT_LICENSED)                                                              \
    X(CUDA_ERROR_INVALID_IMAGE)                                                                    \
    X(CUDA_ERROR_INVALID_CONTEXT)                                                                  \
    X(CUDA_ERROR_CONTEXT_ALREADY_CURRENT)                                                          \
    X(CUDA_ERROR_MAP_FAILED)                                                                       \
    X(CUDA_ERROR_UNMAP_FAILED)                                                                     \
    X(CUDA_ERROR_ARRAY_IS_MAPPED)                                                                  \
    X(CUDA_ERROR_ALREADY_MAPPED)                                                                   \
    X(CUDA_ERROR_NO_BINARY_FOR_GPU)                                                                \
    X(CUDA_ERROR_ALREADY_ACQUIRED)                                                                 \
    X(CUDA_ERROR_NOT_MAPPED)                                                                       \
    X(CUDA_ERROR_NOT_MAPPED_AS_ARRAY)                                                              \
    X(CUDA_ERROR_NOT_MAPPED_AS_POINTER)                                                            \
    X(CUDA_ERROR_ECC_UNCORRECTABLE)                                                                \
    X(CUDA_ERROR_UNSUPPORTED_LIMIT)                                                                \
    X(CUDA_ERROR_CONTEXT_ALREADY_IN_USE)                                                           \
    X(CUDA_ERROR_PEER_ACCESS_UNSUPPORTED)                                                          \
    X(CUDA_ERROR_INVALID_PTX)                                                                      \
    X(CUDA_ERROR_INVALID_GRAPHICS_CONTEXT)                                                         \
    X(CUDA_ERROR_NVLINK_UNCORRECTABLE)                                                             \
    X(CUDA_ERROR_JIT_COMPILER_NOT_FOUND)                                                           \
    X(CUDA_ERROR_UNSUPPORTED_PTX_VERSION)                                                          \
    X(CUDA_ERROR_JIT_COMPILATION_DISABLED)                                                         \
    X(CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY)                                                        \
    X(CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC)                                                         \
    X(CUDA_ERROR_CONTAINED)                                                                        \
    X(CUDA_ERROR_INVALID_SOURCE)                                                                   \
    X(CUDA_ERROR_FILE_NOT_FOUND)                                                                   \
    X(CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND)                                                   \
    X(CUDA_ERROR_SHARED_OBJECT_INIT_FAILED)                                                        \
    X(CUDA_ERROR_OPERATING_SYSTEM)                                                                 \
    X(CUDA_ERROR_INVALID_HANDLE)                                                                   \
    X(CUDA_ERROR_ILLEGAL_STATE)                                                                    \
    X(CUDA_ERROR_LOSSY_QUERY)                                                                      \
    X(CUDA_ERROR_NOT_FOUND)                                                                        \
    X(CUDA_ERROR_NOT_READY)                                                                        \
    X(CUDA_ERROR_ILLEGAL_ADDRESS)                                                                  \
    X(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)                                                          \
    X(CUDA_ERROR_LAUNCH_TIMEOUT)                                                                   \
    X(CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING)                                                    \
    X(CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED)                                                      \
    X(CUDA_ERROR_PEER_ACCESS_NOT_ENABLED)                                                          \
    X(CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE)                                                           \
    X(CUDA_ERROR_CONTEXT_IS_DESTROYED)                                                             \
    X(CUDA_ERROR_ASSERT)                                                                           \
    X(CUDA_ERROR_TOO_MANY_PEERS)                                                                   \
    X(CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED)                                                   \
    X(CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED)                                                       \
    X(CUDA_ERROR_HARDWARE_STACK_ERROR)                                                             \
    X(CUDA_ERROR_ILLEGAL_INSTRUCTION)                                                              \
    X(CUDA_ERROR_MISALIGNED_ADDRESS)                                                               \
    X(CUDA_ERROR_INVALID_ADDRESS_SPACE)                                                            \
    X(CUDA_ERROR_INVALID_PC)                                                                       \
    X(CUDA_ERROR_LAUNCH_FAILED)                                                                    \
    X(CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE)                                                     \
    X(CUDA_ERROR_TENSOR_MEMORY_LEAK)                                                               \
    X(CUDA_ERROR_NOT_PERMITTED)                                                                    \
    X(CUDA_ERROR_NOT_SUPPORTED)                                                                    \
    X(CUDA_ERROR_SYSTEM_NOT_READY)                                                                 \
    X(CUDA_ERROR_SYSTEM_DRIVER_MISMATCH)                                                           \
    X(CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE)                                                   \
    X(CUDA_ERROR_MPS_CONNECTION_FAILED)                                                            \
    X(CUDA_ERROR_MPS_RPC_FAILURE)                                                                  \
    X(CUDA_ERROR_MPS_SERVER_NOT_READY)                                                             \
    X(CUDA_ERROR_MPS_MAX_CLIENTS_REACHED)                                                          \
    X(CUDA_ERROR_MPS_MAX_CONNECTIONS_REACHED)                                                      \
    X(CUDA_ERROR_MPS_CLIENT_TERMINATED)                                                            \
    X(CUDA_ERROR_CDP_NOT_SUPPORTED)                                                                \
    X(CUDA_ERROR_CDP_VERSION_MISMATCH)                                                             \
    X(CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED)                                                       \
    X(CUDA_ERROR_STREAM_CAPTURE_INVALIDATED)                                                       \
    X(CUDA_ERROR_STREAM_CAPTURE_MERGE)                                                             \
    X(CUDA_ERROR_STREAM_CAPTURE_UNMATCHED)                                                         \
    X(CUDA_ERROR_STREAM_CAPTURE_UNJOINED)                                                          \
    X(CUDA_ERROR_STREAM_CAPTURE_ISOLATION)                                                         \
    X(CUDA_ERROR_STREAM_CAPTURE_IMPLICIT)                                                          \
    X(CUDA_ERROR_CAPTURED_EVENT)                                                                   \
    X(CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD)                                                      \
    X(CUDA_ERROR_TIMEOUT)                                                                          \
    X(CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE)                                                        \
    X(CUDA_ERROR_EXTERNAL_DEVICE)                                                                  \
    X(CUDA_ERROR_INVALID_CLUSTER_SIZE)                                                             \
    X(CUDA_ERROR_FUNCTION_NOT_LOADED)                                                              \
    X(CUDA_ERROR_INVALID_RESOURCE_TYPE)                                                            \
    X(CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION)                                                   \
    X(CUDA_ERROR_KEY_ROTATION)                                                                     \
    X(CUDA_ERROR_UNKNOWN)

}  // namespace

const char* runtime_error_name(int code) {
    switch (cudaError_t(code)) {
#define X(code, text)                                                                              \
    case code: return #code;
        CUDALAB_ERRORS(X)
#undef X
    default: return "unrecognized error code";  // CUDA's answer for a code it does not know
    }
}

const char* runtime_error_string(int code) {
    switch (cudaError_t(code)) {
#define X(code, text)                                                                              \
    case code: return text;
        CUDALAB_ERRORS(X)
#undef X
    default: return "unrecognized error code";
    }
}

const char* driver_error_name(int code) {
    switch (CUresult(code)) {
#define X(code)                                                                                    \
    case code: return #code;
        CUDALAB_DRIVER_ERRORS(X)
#undef X
    default: return nullptr;
    }
}

const char* driver_error_string(int code) {
    // The two codes the runtime has no cudaError_t of its own for.
    if (CUresult(code) == CUDA_ERROR_CONTEXT_ALREADY_CURRENT) return "context already current";
    if (CUresult(code) == CUDA_ERROR_KEY_ROTATION)
        return "an error happened during the key rotation sequence";
    switch (CUresult(code)) {
#define X(code) case code:
        CUDALAB_DRIVER_ERRORS(X)
#undef X
        // The driver's descriptions are the runtime's for the same number.
        return runtime_error_string(code);
    default: return nullptr;
    }
}

}  // namespace cudalab::device
