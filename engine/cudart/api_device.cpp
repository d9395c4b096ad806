// The CUDA runtime API, part 1: calls, errors, versions, devices and their properties.
#include <chrono>
#include <cstring>
#include <thread>

#include <cuda.h>

#include "cudart/api.h"
#include "device/error_texts.h"
#include "device/protocol.h"

namespace cudalab::cudart {

// [SECTION] Calls and errors
// -------------------------------------------------------------------------

namespace {
thread_local int call_depth = 0;
double wall_now_ns() {
    return double(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count());
}
}  // namespace

namespace {
// A runtime call has been made: CUDA's runtime initialises the driver (cuInit) on its first call.
bool runtime_called = false;
}  // namespace

bool runtime_started() { return runtime_called; }

// The host's modelled clock leaves out the real time cudalab spends inside a call (emulating a
// kernel, copying into emulated memory) and charges the call's modelled cost instead: the
// program sees the time a GPU's runtime would take.
ApiCall::ApiCall(const char* n)
    : rt(Runtime::get()), name(n), lock_(rt.mutex), start_(0), wall_start_(wall_now_ns()),
      outermost_(call_depth++ == 0) {
    if (std::strncmp(n, "cuda", 4) == 0) runtime_called = true;
    if (!outermost_) return;
    Timeline::issuing = ++rt.timeline.calls;
    rt.ordering.enter_call();
    rt.call_wall_start = wall_start_;
    start_ = rt.host_now();
    rt.host_spend(rt.model.api_cost);
    rt.call_time = rt.host_now();
}

ApiCall::~ApiCall() {
    --call_depth;
    if (!outermost_) return;
    rt.add_emulation_time((wall_now_ns() - wall_start_) / 1e9);
    rt.call_wall_start = 0;
    rt.ordering.leave_call();
    if (!rt.timeline.enabled) return;
    TimelineEvent e;
    e.name = name;
    e.category = "api";
    e.process = 0;
    static std::map<std::thread::id, int> threads;
    auto [it, added] = threads.emplace(std::this_thread::get_id(), int(threads.size()));
    if (added)
        rt.timeline.name_stream(0, it->second,
                                it->second == 0 ? "main thread"
                                                : "host thread " + std::to_string(it->second));
    e.thread = it->second;
    e.start_ns = start_;
    e.end_ns = std::max(start_ + 100.0, rt.host_now());
    // The real time, for a learner who wants it: the modelled clock leaves out the host's own
    // work between calls (state.h).
    char measured[32];
    std::snprintf(measured, sizeof measured, "%.3f", rt.measured_ns() / 1e6);
    e.args.push_back({"measured_ms_since_start", measured});
    rt.timeline.add(std::move(e));
}

cudaError_t fail(cudaError_t e) {
    Runtime::get().last_error() = e;
    return e;
}

cudaError_t device_gate(bool synchronising) {
    Runtime& rt = Runtime::get();
    if (rt.driver_version < CUDART_VERSION) return cudaErrorInsufficientDriver;
    if (rt.device_count == 0) return cudaErrorNoDevice;
    DeviceState& d = rt.devices[std::size_t(rt.current_device())];
    if (d.sticky_error && (synchronising || d.sticky_reported)) {
        d.sticky_reported = true;
        return cudaError_t(d.sticky_error);
    }
    d.initialised = true;  // the primary context exists from here on (driver_ready)
    return cudaSuccess;
}

cudaError_t not_supported(const char* function, const char* detail) {
    Runtime::get().say_once(
        std::string("unsupported:") + function,
        std::string(function) + " is not implemented by cudalab's emulated runtime" +
            (detail ? std::string(" (") + detail + ")" : std::string()) +
            "; it returns cudaErrorNotSupported. Run on a GPU with --backend gpu.");
    return fail(cudaErrorNotSupported);
}

Stream* stream_or_null(cudaStream_t s) { return Runtime::get().stream(s); }

}  // namespace cudalab::cudart

using namespace cudalab::cudart;
namespace hw = cudalab::hw;

extern "C" {

// [SECTION] Errors
// ---------------------------------------------------------------------------------

// After a fault, the call that reports it sets the last error like any failing call: so, as on a
// GPU (measured on an H200 with CUDA 13.0), cudaGetLastError returns the fault once and then
// cudaSuccess, while every call that touches the device keeps failing with it.
cudaError_t cudaGetLastError(void) {
    Runtime& rt = Runtime::get();
    std::lock_guard lock(rt.mutex);
    int& e = rt.last_error();
    const int r = e;
    e = 0;
    return cudaError_t(r);
}

cudaError_t cudaPeekAtLastError(void) {
    Runtime& rt = Runtime::get();
    std::lock_guard lock(rt.mutex);
    return cudaError_t(rt.last_error());
}

const char* cudaGetErrorName(cudaError_t error) {
    return cudalab::device::runtime_error_name(int(error));
}

const char* cudaGetErrorString(cudaError_t error) {
    return cudalab::device::runtime_error_string(int(error));
}

// [SECTION] Versions and devices
// ---------------------------------------------------------------------

cudaError_t cudaRuntimeGetVersion(int* version) {
    if (!version) return fail(cudaErrorInvalidValue);
    *version = CUDART_VERSION;
    return cudaSuccess;
}

cudaError_t cudaDriverGetVersion(int* version) {
    if (!version) return fail(cudaErrorInvalidValue);
    *version = Runtime::get().driver_version;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceCount(int* count) {
    CUDALAB_API("cudaGetDeviceCount");
    if (!count) return fail(cudaErrorInvalidValue);
    *count = 0;
    if (rt.driver_version < CUDART_VERSION) return fail(cudaErrorInsufficientDriver);
    if (rt.device_count == 0) return fail(cudaErrorNoDevice);
    *count = rt.device_count;
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int* device) {
    CUDALAB_API("cudaGetDevice");
    if (!device) return fail(cudaErrorInvalidValue);
    if (cudaError_t e = device_gate()) return fail(e);
    *device = rt.current_device();
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device) {
    CUDALAB_API("cudaSetDevice");
    if (rt.driver_version < CUDART_VERSION) return fail(cudaErrorInsufficientDriver);
    if (rt.device_count == 0) return fail(cudaErrorNoDevice);
    if (device < 0 || device >= rt.device_count) return fail(cudaErrorInvalidDevice);
    rt.current_device() = device;
    // Since CUDA 12 cudaSetDevice initialises the device's primary context at once.
    rt.devices[std::size_t(device)].initialised = true;
    return cudaSuccess;
}

cudaError_t cudaInitDevice(int device, unsigned int, unsigned int) { return cudaSetDevice(device); }

cudaError_t cudaSetValidDevices(int*, int) { return cudaSuccess; }

cudaError_t cudaChooseDevice(int* device, const cudaDeviceProp*) {
    if (!device) return fail(cudaErrorInvalidValue);
    *device = 0;
    return cudaSuccess;
}

cudaError_t cudaSetDeviceFlags(unsigned int flags) {
    CUDALAB_API("cudaSetDeviceFlags");
    if (cudaError_t e = device_gate()) return fail(e);
    rt.devices[std::size_t(rt.current_device())].flags = flags;
    return cudaSuccess;
}

cudaError_t cudaGetDeviceFlags(unsigned int* flags) {
    CUDALAB_API("cudaGetDeviceFlags");
    if (!flags) return fail(cudaErrorInvalidValue);
    *flags = rt.devices[std::size_t(rt.current_device())].flags;
    return cudaSuccess;
}

static void fill_properties(cudaDeviceProp* p, int device) {
    const DeviceModel& m = Runtime::get().model;
    std::memset(p, 0, sizeof *p);
    std::snprintf(p->name, sizeof p->name, "%s", m.name.c_str());
    for (int i = 0; i < 16; ++i) p->uuid.bytes[i] = char(0xc0 + i + device);
    p->totalGlobalMem = m.global_memory;
    p->sharedMemPerBlock = m.shared_per_block;
    p->regsPerBlock = m.registers_per_block;
    p->warpSize = hw::warp_size;
    p->memPitch = 2147483647;
    p->maxThreadsPerBlock = int(hw::max_threads_per_block);
    p->maxThreadsDim[0] = int(hw::max_threads_per_block);
    p->maxThreadsDim[1] = int(hw::max_threads_per_block);
    p->maxThreadsDim[2] = int(hw::max_block_z);
    p->maxGridSize[0] = int(hw::max_grid_x);
    p->maxGridSize[1] = int(hw::max_grid_yz);
    p->maxGridSize[2] = int(hw::max_grid_yz);
    p->totalConstMem = m.constant_memory;
    p->major = m.major;
    p->minor = m.minor;
    p->textureAlignment = 512;
    p->texturePitchAlignment = 32;
    p->multiProcessorCount = m.sm_count;
    p->canMapHostMemory = 1;
    p->concurrentKernels = 1;
    p->ECCEnabled = 1;
    p->pciBusID = 0x18 + device;
    p->asyncEngineCount = m.async_engines;
    p->unifiedAddressing = 1;
    p->memoryBusWidth = m.memory_bus_bits;
    p->l2CacheSize = int(m.l2_bytes);
    p->persistingL2CacheMaxSize = int(m.l2_bytes * 3 / 4);
    p->maxThreadsPerMultiProcessor = m.max_threads_per_sm;
    p->streamPrioritiesSupported = 1;
    p->globalL1CacheSupported = 1;
    p->localL1CacheSupported = 1;
    p->sharedMemPerMultiprocessor = m.shared_per_sm;
    p->regsPerMultiprocessor = m.registers_per_sm;
    p->managedMemory = 1;
    p->concurrentManagedAccess = 1;
    p->computePreemptionSupported = 1;
    p->canUseHostPointerForRegisteredMem = 1;
    p->cooperativeLaunch = 1;
    p->sharedMemPerBlockOptin = m.shared_per_block_optin;
    p->maxBlocksPerMultiProcessor = m.max_blocks_per_sm;
    p->accessPolicyMaxWindowSize = 134213632;
    p->reservedSharedMemPerBlock = std::size_t(hw::emulated.reserved_shared_per_block);
    p->hostRegisterSupported = 1;
    p->memoryPoolsSupported = 1;
    p->clusterLaunch = 1;
    p->hostNumaId = -1;
    p->deviceNumaId = -1;
}

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) {
    CUDALAB_API("cudaGetDeviceProperties");
    if (!prop) return fail(cudaErrorInvalidValue);
    if (rt.driver_version < CUDART_VERSION) return fail(cudaErrorInsufficientDriver);
    if (device < 0 || device >= rt.device_count) return fail(cudaErrorInvalidDevice);
    fill_properties(prop, device);
    return cudaSuccess;
}

cudaError_t cudaDeviceGetAttribute(int* value, cudaDeviceAttr attr, int device) {
    CUDALAB_API("cudaDeviceGetAttribute");
    if (!value) return fail(cudaErrorInvalidValue);
    if (rt.driver_version < CUDART_VERSION) return fail(cudaErrorInsufficientDriver);
    if (device < 0 || device >= rt.device_count) return fail(cudaErrorInvalidDevice);
    cudaDeviceProp p;
    fill_properties(&p, device);
    const DeviceModel& m = rt.model;
    int v = 0;
    switch (attr) {
    case cudaDevAttrMaxThreadsPerBlock: v = p.maxThreadsPerBlock; break;
    case cudaDevAttrMaxBlockDimX: v = p.maxThreadsDim[0]; break;
    case cudaDevAttrMaxBlockDimY: v = p.maxThreadsDim[1]; break;
    case cudaDevAttrMaxBlockDimZ: v = p.maxThreadsDim[2]; break;
    case cudaDevAttrMaxGridDimX: v = p.maxGridSize[0]; break;
    case cudaDevAttrMaxGridDimY: v = p.maxGridSize[1]; break;
    case cudaDevAttrMaxGridDimZ: v = p.maxGridSize[2]; break;
    case cudaDevAttrMaxSharedMemoryPerBlock: v = int(p.sharedMemPerBlock); break;
    case cudaDevAttrTotalConstantMemory: v = int(p.totalConstMem); break;
    case cudaDevAttrWarpSize: v = hw::warp_size; break;
    case cudaDevAttrMaxPitch: v = int(p.memPitch); break;
    case cudaDevAttrMaxRegistersPerBlock: v = p.regsPerBlock; break;
    case cudaDevAttrClockRate: v = int(m.clock_hz / 1000); break;
    case cudaDevAttrTextureAlignment: v = int(p.textureAlignment); break;
    case cudaDevAttrMultiProcessorCount: v = p.multiProcessorCount; break;
    case cudaDevAttrKernelExecTimeout: v = 0; break;
    case cudaDevAttrIntegrated: v = 0; break;
    case cudaDevAttrCanMapHostMemory: v = 1; break;
    case cudaDevAttrComputeMode: v = 0; break;
    case cudaDevAttrConcurrentKernels: v = 1; break;
    case cudaDevAttrEccEnabled: v = 1; break;
    case cudaDevAttrPciBusId: v = p.pciBusID; break;
    case cudaDevAttrPciDeviceId: v = 0; break;
    case cudaDevAttrTccDriver: v = 0; break;
    case cudaDevAttrMemoryClockRate: v = int(m.memory_clock_hz / 1000); break;
    case cudaDevAttrGlobalMemoryBusWidth: v = p.memoryBusWidth; break;
    case cudaDevAttrL2CacheSize: v = p.l2CacheSize; break;
    case cudaDevAttrMaxThreadsPerMultiProcessor: v = p.maxThreadsPerMultiProcessor; break;
    case cudaDevAttrAsyncEngineCount: v = p.asyncEngineCount; break;
    case cudaDevAttrUnifiedAddressing: v = 1; break;
    case cudaDevAttrComputeCapabilityMajor: v = m.major; break;
    case cudaDevAttrComputeCapabilityMinor: v = m.minor; break;
    case cudaDevAttrStreamPrioritiesSupported: v = 1; break;
    case cudaDevAttrGlobalL1CacheSupported: v = 1; break;
    case cudaDevAttrLocalL1CacheSupported: v = 1; break;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: v = int(p.sharedMemPerMultiprocessor); break;
    case cudaDevAttrMaxRegistersPerMultiprocessor: v = p.regsPerMultiprocessor; break;
    case cudaDevAttrManagedMemory: v = 1; break;
    case cudaDevAttrIsMultiGpuBoard: v = 0; break;
    case cudaDevAttrConcurrentManagedAccess: v = 1; break;
    case cudaDevAttrComputePreemptionSupported: v = 1; break;
    case cudaDevAttrCanUseHostPointerForRegisteredMem: v = 1; break;
    case cudaDevAttrCooperativeLaunch: v = 1; break;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: v = int(p.sharedMemPerBlockOptin); break;
    case cudaDevAttrMaxBlocksPerMultiprocessor: v = p.maxBlocksPerMultiProcessor; break;
    case cudaDevAttrReservedSharedMemoryPerBlock: v = hw::emulated.reserved_shared_per_block; break;
    case cudaDevAttrMemoryPoolsSupported: v = 1; break;
    case cudaDevAttrHostRegisterSupported: v = 1; break;
    case cudaDevAttrPageableMemoryAccess: v = 0; break;
    case cudaDevAttrDirectManagedMemAccessFromHost: v = 0; break;
    case cudaDevAttrClusterLaunch: v = 1; break;
    case cudaDevAttrMaxPersistingL2CacheSize: v = p.persistingL2CacheMaxSize; break;
    case cudaDevAttrMaxAccessPolicyWindowSize: v = p.accessPolicyMaxWindowSize; break;
    case cudaDevAttrSingleToDoublePrecisionPerfRatio: v = 2; break;
    case cudaDevAttrHostNativeAtomicSupported: v = 0; break;
    case cudaDevAttrGPUDirectRDMASupported: v = 0; break;
    default:
        // cuMemCreate/cuMemMap (api_vmm.cpp); compression is accepted and kept as a property.
        // (The runtime's enumeration has no names for these driver attributes.)
        if (int(attr) == CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED ||
            int(attr) == CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED) {
            *value = 1;
            return cudaSuccess;
        }
        if (int(attr) <= 0 || int(attr) > 160)
            return fail(cudaErrorInvalidValue);  // not an attribute at all
        *value = 0;
        rt.say_once("attr:" + std::to_string(int(attr)), "cudaDeviceGetAttribute: attribute " +
                                                             std::to_string(int(attr)) +
                                                             " is not modelled; reporting 0");
        return cudaSuccess;
    }
    *value = v;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetLimit(size_t* value, cudaLimit limit) {
    CUDALAB_API("cudaDeviceGetLimit");
    if (!value) return fail(cudaErrorInvalidValue);
    DeviceState& d = rt.devices[std::size_t(rt.current_device())];
    switch (limit) {
    case cudaLimitStackSize: *value = d.stack_size; break;
    case cudaLimitPrintfFifoSize: *value = d.printf_fifo; break;
    case cudaLimitMallocHeapSize: *value = d.malloc_heap; break;
    case cudaLimitDevRuntimePendingLaunchCount: *value = d.pending_launch_count; break;
    case cudaLimitDevRuntimeSyncDepth: *value = d.sync_depth; break;
    default: *value = 0; break;
    }
    return cudaSuccess;
}

cudaError_t cudaDeviceSetLimit(cudaLimit limit, size_t value) {
    CUDALAB_API("cudaDeviceSetLimit");
    if (cudaError_t e = device_gate()) return fail(e);
    DeviceState& d = rt.devices[std::size_t(rt.current_device())];
    switch (limit) {
    case cudaLimitStackSize: d.stack_size = value; break;
    case cudaLimitPrintfFifoSize: d.printf_fifo = value; break;
    case cudaLimitMallocHeapSize:
        if (value > (4ull << 30)) return fail(cudaErrorMemoryAllocation);
        d.malloc_heap = value;
        rt.memory->set_heap_size(value);
        break;
    case cudaLimitDevRuntimePendingLaunchCount:
        d.pending_launch_count = std::min<std::size_t>(value, 0xffffffffu);
        break;
    case cudaLimitDevRuntimeSyncDepth: d.sync_depth = value; break;
    default: break;
    }
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void) {
    CUDALAB_API("cudaDeviceSynchronize");
    if (rt.driver_version < CUDART_VERSION) return fail(cudaErrorInsufficientDriver);
    wait_device(rt.current_device());
    trim_pools();  // as at a stream's synchronisation: pools keep only their release threshold
    if (cudaError_t e = device_gate(true)) return fail(e);
    return cudaSuccess;
}

cudaError_t cudaDeviceReset(void) {
    CUDALAB_API("cudaDeviceReset");
    const int device = rt.current_device();
    wait_device(device);
    // Frees the device's allocations and clears its sticky error: a fresh context.
    for (auto it = rt.allocations.begin(); it != rt.allocations.end();) {
        if (it->second.device == device &&
            (it->second.kind == MemoryKind::device || it->second.kind == MemoryKind::pool)) {
            rt.memory->release(it->first);
            it = rt.allocations.erase(it);
        } else {
            ++it;
        }
    }
    DeviceState& d = rt.devices[std::size_t(device)];
    d.sticky_error = 0;
    d.sticky_reported = false;
    d.sticky_message.clear();
    rt.last_error() = 0;
    return cudaSuccess;
}

cudaError_t cudaDeviceGetStreamPriorityRange(int* least, int* greatest) {
    if (least) *least = 0;
    if (greatest) *greatest = -5;
    return cudaSuccess;
}

cudaError_t cudaDeviceSetCacheConfig(cudaFuncCache) { return cudaSuccess; }
cudaError_t cudaDeviceGetCacheConfig(cudaFuncCache* c) {
    if (c) *c = cudaFuncCachePreferNone;
    return cudaSuccess;
}
cudaError_t cudaDeviceSetSharedMemConfig(cudaSharedMemConfig) { return cudaSuccess; }

cudaError_t cudaDeviceGetPCIBusId(char* id, int len, int device) {
    if (!id || len <= 0) return fail(cudaErrorInvalidValue);
    std::snprintf(id, std::size_t(len), "0000:%02x:00.0", 0x18 + device);
    return cudaSuccess;
}

cudaError_t cudaDeviceGetByPCIBusId(int* device, const char*) {
    if (!device) return fail(cudaErrorInvalidValue);
    *device = 0;
    return cudaSuccess;
}

// [SECTION] Peer access
// --------------------------------------------------------------------------------

cudaError_t cudaDeviceCanAccessPeer(int* can, int device, int peer) {
    CUDALAB_API("cudaDeviceCanAccessPeer");
    if (!can) return fail(cudaErrorInvalidValue);
    if (device < 0 || device >= rt.device_count || peer < 0 || peer >= rt.device_count)
        return fail(cudaErrorInvalidDevice);
    *can = device != peer;  // emulated devices share an NVLink switch
    return cudaSuccess;
}

cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned int flags) {
    CUDALAB_API("cudaDeviceEnablePeerAccess");
    if (flags) return fail(cudaErrorInvalidValue);
    if (peer < 0 || peer >= rt.device_count || peer == rt.current_device())
        return fail(cudaErrorInvalidDevice);
    auto& peers = rt.devices[std::size_t(rt.current_device())].peers;
    if (!peers.insert(peer).second) return fail(cudaErrorPeerAccessAlreadyEnabled);
    return cudaSuccess;
}

cudaError_t cudaDeviceDisablePeerAccess(int peer) {
    CUDALAB_API("cudaDeviceDisablePeerAccess");
    auto& peers = rt.devices[std::size_t(rt.current_device())].peers;
    if (!peers.erase(peer)) return fail(cudaErrorPeerAccessNotEnabled);
    return cudaSuccess;
}

cudaError_t cudaDeviceGetP2PAttribute(int* value, cudaDeviceP2PAttr attr, int src, int dst) {
    if (!value) return fail(cudaErrorInvalidValue);
    *value = attr == cudaDevP2PAttrPerformanceRank ? 0 : 1;
    return cudaSuccess;
}

// Deprecated thread-named aliases some older programs still call.
cudaError_t cudaThreadSynchronize(void) { return cudaDeviceSynchronize(); }
cudaError_t cudaThreadExit(void) { return cudaDeviceReset(); }

}  // extern "C"

namespace cudalab::cudart {
int report_not_implemented(const char* function) {
    Runtime& rt = Runtime::get();
    std::lock_guard lock(rt.mutex);
    return not_supported(function);
}
}  // namespace cudalab::cudart

extern "C" {

// [SECTION] Profiler control ---------------------------------------------------------------------
// Programs bracket the part to profile (NVIDIA's samples do); with no profiler attached these
// succeed and do nothing, as on a GPU.
cudaError_t cudaProfilerStart(void) { return cudaSuccess; }
cudaError_t cudaProfilerStop(void) { return cudaSuccess; }
int cuProfilerStart(void) { return 0; }
int cuProfilerStop(void) { return 0; }

}  // extern "C"

extern "C" {

// An entry point the program's CUDA library does not forward (not implemented): said once and
// recorded for the checks ("unsupported" in the result).
int __cudalabNotImplemented(const char* function) {
    return function ? cudalab::cudart::report_not_implemented(function) : 801;
}

}  // extern "C"
