// The CUDA driver API subset (libcuda.so.1) that programs loading PTX at run time need: NVRTC
// followed by cuModuleLoadData and cuLaunchKernel, explicit contexts, driver-side memory. It
// shares the runtime's state: the runtime's device is the driver's primary context, as on a GPU.
#include <cstdio>
#include <cuda.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "cudart/api.h"
#include "cudart/nvrtc_cubin.h"
#include "cudart/program_link.h"
#include "cudart/program_memory.h"
#include "cudart/ptx_link.h"
#include "cudart/vmm.h"
#include "device/error_texts.h"

using namespace cudalab;
using namespace cudalab::cudart;

namespace {

struct Context {
    int device = 0;
    bool primary = false;
    int refs = 1;
};

bool initialised = false;
std::vector<std::unique_ptr<Context>>& contexts() {
    static std::vector<std::unique_ptr<Context>> all;
    return all;
}
Context* primary(int device) {
    for (auto& c : contexts())
        if (c->primary && c->device == device) return c.get();
    auto c = std::make_unique<Context>();
    c->device = device;
    c->primary = true;
    c->refs = 0;
    contexts().push_back(std::move(c));
    return contexts().back().get();
}
Context*& current() {
    thread_local Context* c = nullptr;
    return c;
}

// The context calls on this thread use: the one set with cuCtxSetCurrent/cuCtxCreate, else the
// primary context of the runtime's device once the runtime has initialised it (CUDA's runtime
// makes the primary context current).
Context* bound() {
    if (current()) return current();
    Runtime& rt = Runtime::get();
    if (rt.device_count == 0) return nullptr;
    const int d = rt.current_device();
    return rt.devices[std::size_t(d)].initialised ? primary(d) : nullptr;
}

CUresult gate() {
    Runtime& rt = Runtime::get();
    if (!driver_ready()) return CUDA_ERROR_NOT_INITIALIZED;
    if (rt.device_count == 0) return CUDA_ERROR_NO_DEVICE;
    const DeviceState& d = rt.devices[std::size_t(rt.current_device())];
    if (d.sticky_error && d.sticky_reported) return CUresult(d.sticky_error);
    return CUDA_SUCCESS;
}

CUresult as_driver(int e) { return CUresult(e); }  // the codes used here are the same numbers

}  // namespace

namespace cudalab::cudart {
bool driver_ready() {
    if (initialised || runtime_started()) return true;
    for (const DeviceState& d : Runtime::get().devices)
        if (d.initialised) return true;
    return false;
}
}  // namespace cudalab::cudart

extern "C" {

// [SECTION] Initialisation, versions, devices
// -----------------------------------------------------------

CUresult cuInit(unsigned int flags) {
    Runtime& rt = Runtime::get();
    std::lock_guard lock(rt.mutex);
    if (flags) return CUDA_ERROR_INVALID_VALUE;
    if (rt.device_count == 0) return CUDA_ERROR_NO_DEVICE;
    initialised = true;
    return CUDA_SUCCESS;
}

CUresult cuDriverGetVersion(int* version) {
    if (!version) return CUDA_ERROR_INVALID_VALUE;
    *version = Runtime::get().driver_version;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetCount(int* count) {
    if (!count) return CUDA_ERROR_INVALID_VALUE;
    if (!driver_ready()) return CUDA_ERROR_NOT_INITIALIZED;
    *count = Runtime::get().device_count;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGet(CUdevice* device, int ordinal) {
    if (!device) return CUDA_ERROR_INVALID_VALUE;
    if (!driver_ready()) return CUDA_ERROR_NOT_INITIALIZED;
    if (ordinal < 0 || ordinal >= Runtime::get().device_count) return CUDA_ERROR_INVALID_DEVICE;
    *device = ordinal;
    return CUDA_SUCCESS;
}

// Peer access: every emulated device reaches every other (cudaDeviceCanAccessPeer). A context's
// device enables access to the peer context's device, as cudaDeviceEnablePeerAccess does.
CUresult cuDeviceCanAccessPeer(int* can, CUdevice device, CUdevice peer) {
    if (!driver_ready()) return CUDA_ERROR_NOT_INITIALIZED;
    return as_driver(cudaDeviceCanAccessPeer(can, device, peer));
}

CUresult cuCtxEnablePeerAccess(CUcontext peer, unsigned int flags) {
    if (!driver_ready()) return CUDA_ERROR_NOT_INITIALIZED;
    if (!peer || !current()) return CUDA_ERROR_INVALID_CONTEXT;
    return as_driver(cudaDeviceEnablePeerAccess(reinterpret_cast<Context*>(peer)->device, flags));
}

CUresult cuCtxDisablePeerAccess(CUcontext peer) {
    if (!driver_ready()) return CUDA_ERROR_NOT_INITIALIZED;
    if (!peer || !current()) return CUDA_ERROR_INVALID_CONTEXT;
    return as_driver(cudaDeviceDisablePeerAccess(reinterpret_cast<Context*>(peer)->device));
}

CUresult cuDeviceGetName(char* name, int len, CUdevice device) {
    if (!name || len <= 0) return CUDA_ERROR_INVALID_VALUE;
    if (!driver_ready()) return CUDA_ERROR_NOT_INITIALIZED;
    std::snprintf(name, std::size_t(len), "%s", Runtime::get().model.name.c_str());
    return CUDA_SUCCESS;
}

CUresult cuDeviceTotalMem(size_t* bytes, CUdevice device) {
    if (!bytes) return CUDA_ERROR_INVALID_VALUE;
    if (!driver_ready()) return CUDA_ERROR_NOT_INITIALIZED;
    *bytes = Runtime::get().model.global_memory;
    return CUDA_SUCCESS;
}

CUresult cuDeviceGetAttribute(int* value, CUdevice_attribute attr, CUdevice device) {
    if (!driver_ready()) return CUDA_ERROR_NOT_INITIALIZED;
    if (!value) return CUDA_ERROR_INVALID_VALUE;
    // The driver's attribute numbers are the runtime's. The driver answers whatever runtime the
    // program links: a runtime newer than the driver (CUDALAB_DRIVER_VERSION) is the runtime's
    // error, cudaErrorInsufficientDriver, never the driver API's, so the runtime's table is read
    // with that mismatch set aside, and its errors are given as the driver's codes.
    Runtime& rt = Runtime::get();
    std::lock_guard lock(rt.mutex);
    const int driver = rt.driver_version;
    rt.driver_version = std::max(driver, int(CUDART_VERSION));
    const cudaError_t e = cudaDeviceGetAttribute(value, cudaDeviceAttr(attr), device);
    rt.driver_version = driver;
    if (e == cudaSuccess) return CUDA_SUCCESS;
    return e == cudaErrorInvalidDevice ? CUDA_ERROR_INVALID_DEVICE : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuDeviceComputeCapability(int* major, int* minor, CUdevice) {
    if (!major || !minor) return CUDA_ERROR_INVALID_VALUE;
    *major = Runtime::get().model.major;
    *minor = Runtime::get().model.minor;
    return CUDA_SUCCESS;
}

// Every CUresult of CUDA 13's cuda.h, by name.
// An error code the driver does not know: CUDA_ERROR_INVALID_VALUE, with *pStr set to NULL (the
// driver API's documented answer, for names and descriptions alike).
CUresult cuGetErrorName(CUresult error, const char** name) {
    if (!name) return CUDA_ERROR_INVALID_VALUE;
    *name = cudalab::device::driver_error_name(int(error));
    return *name ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult cuGetErrorString(CUresult error, const char** text) {
    if (!text) return CUDA_ERROR_INVALID_VALUE;
    *text = cudalab::device::driver_error_string(int(error));
    return *text ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

// [SECTION] Contexts
// ---------------------------------------------------------------------------------

CUresult cuDevicePrimaryCtxRetain(CUcontext* ctx, CUdevice device) {
    Runtime& rt = Runtime::get();
    std::lock_guard lock(rt.mutex);
    if (!ctx) return CUDA_ERROR_INVALID_VALUE;
    if (!driver_ready()) return CUDA_ERROR_NOT_INITIALIZED;
    if (device < 0 || device >= rt.device_count) return CUDA_ERROR_INVALID_DEVICE;
    Context* c = primary(device);
    ++c->refs;
    *ctx = reinterpret_cast<CUcontext>(c);
    return CUDA_SUCCESS;
}

CUresult cuDevicePrimaryCtxRelease(CUdevice device) {
    Runtime& rt = Runtime::get();
    std::lock_guard lock(rt.mutex);
    Context* c = primary(device);
    if (c->refs > 0) --c->refs;
    return CUDA_SUCCESS;
}

CUresult cuCtxCreate(CUcontext* ctx, CUctxCreateParams*, unsigned int, CUdevice device) {
    Runtime& rt = Runtime::get();
    std::lock_guard lock(rt.mutex);
    if (!ctx) return CUDA_ERROR_INVALID_VALUE;
    if (!driver_ready()) return CUDA_ERROR_NOT_INITIALIZED;
    if (device < 0 || device >= rt.device_count) return CUDA_ERROR_INVALID_DEVICE;
    auto c = std::make_unique<Context>();
    c->device = device;
    *ctx = reinterpret_cast<CUcontext>(c.get());
    current() = c.get();
    rt.current_device() = device;
    contexts().push_back(std::move(c));
    return CUDA_SUCCESS;
}

CUresult cuCtxDestroy(CUcontext ctx) {
    Runtime& rt = Runtime::get();
    std::lock_guard lock(rt.mutex);
    auto& all = contexts();
    for (auto it = all.begin(); it != all.end(); ++it)
        if (reinterpret_cast<CUcontext>(it->get()) == ctx) {
            if (current() == it->get()) current() = nullptr;
            all.erase(it);
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_INVALID_CONTEXT;
}

CUresult cuCtxSetCurrent(CUcontext ctx) {
    Runtime& rt = Runtime::get();
    std::lock_guard lock(rt.mutex);
    auto* c = reinterpret_cast<Context*>(ctx);
    current() = c;
    if (c) rt.current_device() = c->device;
    return CUDA_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext* ctx) {
    if (!ctx) return CUDA_ERROR_INVALID_VALUE;
    std::lock_guard lock(Runtime::get().mutex);
    *ctx = reinterpret_cast<CUcontext>(bound());
    return CUDA_SUCCESS;
}

CUresult cuCtxPushCurrent(CUcontext ctx) { return cuCtxSetCurrent(ctx); }
CUresult cuCtxPopCurrent(CUcontext* ctx) {
    if (ctx) *ctx = reinterpret_cast<CUcontext>(current());
    current() = nullptr;
    return CUDA_SUCCESS;
}

CUresult cuCtxGetDevice(CUdevice* device) {
    if (!device) return CUDA_ERROR_INVALID_VALUE;
    std::lock_guard lock(Runtime::get().mutex);
    if (!bound()) return CUDA_ERROR_INVALID_CONTEXT;
    *device = bound()->device;
    return CUDA_SUCCESS;
}

CUresult cuCtxSynchronize(void) {
    if (!driver_ready()) return CUDA_ERROR_NOT_INITIALIZED;
    return as_driver(cudaDeviceSynchronize());
}

// [SECTION] Modules and launches
// ---------------------------------------------------------------------

namespace {

// A module from an image in this process's memory.
CUresult load_module(CUmodule* module, const void* image) {
    Runtime& rt = Runtime::get();
    std::lock_guard lock(rt.mutex);
    if (!module || !image) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult e = gate()) return e;
    auto m = std::make_unique<Module>();
    m->from_driver_api = true;
    std::string error;
    // A cubin NVRTC compiled here for a real GPU: its PTX (nvrtc_cubin.cpp).
    const std::string* nvrtc_ptx = ptx_of_nvrtc_cubin(image);
    if (!read_fatbin_data(nvrtc_ptx ? nvrtc_ptx->c_str() : image, &m->images, &error)) {
        rt.warn("cuModuleLoadData: " + error);
        return CUDA_ERROR_INVALID_IMAGE;
    }
    if (m->images.ptx.empty()) {
        rt.warn("cuModuleLoadData: the image holds no PTX (the emulator runs PTX; load the PTX "
                "text NVRTC produced)");
        return CUDA_ERROR_NO_BINARY_FOR_GPU;
    }
    // PTX ISA 9.x comes from CUDA 13.x, which a driver must support to compile it (an older
    // driver says CUDA_ERROR_UNSUPPORTED_PTX_VERSION).
    const std::string& text = m->images.ptx.back().ptx;
    if (const auto v = text.find(".version"); v != std::string::npos) {
        int isa_major = 0, isa_minor = 0;
        if (std::sscanf(text.c_str() + v, ".version %d.%d", &isa_major, &isa_minor) == 2 &&
            isa_major >= 9 &&
            rt.driver_version < 13000 + 10 * (isa_major - 9) * 100 + 10 * isa_minor) {
            rt.warn("cuModuleLoadData: the PTX is ISA version " + std::to_string(isa_major) + "." +
                    std::to_string(isa_minor) + " (from CUDA " + std::to_string(isa_major + 4) +
                    "." + std::to_string(isa_minor) + "), newer than this driver (CUDA " +
                    std::to_string(rt.driver_version / 1000) + "." +
                    std::to_string(rt.driver_version % 1000 / 10) + ") can compile");
            return CUDA_ERROR_UNSUPPORTED_PTX_VERSION;
        }
    }
    if (int(m->images.ptx.back().arch) > rt.model.arch()) {
        // What a GPU's JIT says of PTX for a newer GPU.
        rt.warn(
            "cuModuleLoadData: the PTX is for sm_" + std::to_string(m->images.ptx.back().arch) +
            " (its .target), newer than this sm_" + std::to_string(rt.model.arch()) +
            " GPU: PTX compiles only for its own or newer GPUs. Compile it for the "
            "device's compute capability (cuDeviceGetAttribute) or for the oldest GPU to support");
        return CUDA_ERROR_INVALID_PTX;
    }
    m->ptx = m->images.ptx.back().ptx;
    std::string load_error;
    if (!rt.emulator_for(*m, rt.current_device(), &load_error)) {
        rt.warn("cuModuleLoadData: " + load_error);
        return CUDA_ERROR_INVALID_PTX;
    }
    *module = reinterpret_cast<CUmodule>(m.get());
    rt.modules.push_back(std::move(m));
    ++rt.driver_module_loads;
    return CUDA_SUCCESS;
}

}  // namespace

CUresult cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned int, CUjit_option*,
                            void**) {
    if (!module || !image) return CUDA_ERROR_INVALID_VALUE;
    // The image is in the program's memory: its size comes from its own header.
    std::vector<std::uint8_t> bytes;
    std::string error;
    if (!program::read_image(image, &bytes, &error)) {
        Runtime::get().warn("cuModuleLoadData: " + error);
        return CUDA_ERROR_INVALID_IMAGE;
    }
    return load_module(module, bytes.data());
}

// NVRTC asks the driver for private export tables while it compiles, and compiles as usual
// without them: answered quietly, since the program did not make the call.
CUresult cuGetExportTable(const void** table, const CUuuid*) {
    if (table) *table = nullptr;
    return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult cuModuleLoadData(CUmodule* module, const void* image) {
    return cuModuleLoadDataEx(module, image, 0, nullptr, nullptr);
}

// A module from a file: PTX text, a fat binary (nvcc -fatbin) or a cubin NVRTC made here.
CUresult cuModuleLoad(CUmodule* module, const char* path) {
    if (!path) return CUDA_ERROR_INVALID_VALUE;
    // The program's file, as it sees it (its root and working folder).
    std::ifstream in(link::program_path(path), std::ios::binary);
    if (!in) {
        Runtime::get().warn(std::string("cuModuleLoad: cannot open '") + path + "'");
        return CUDA_ERROR_FILE_NOT_FOUND;
    }
    std::ostringstream bytes;
    bytes << in.rdbuf();
    const std::string data = bytes.str();  // (zero-terminated: PTX text is read as a C string)
    return load_module(module, data.c_str());
}

CUresult cuModuleLoadFatBinary(CUmodule* module, const void* image) {
    return cuModuleLoadDataEx(module, image, 0, nullptr, nullptr);
}

CUresult cuModuleUnload(CUmodule) { return CUDA_SUCCESS; }

// [SECTION] Linking PTX at run time (cuLink*)
// ---------------------------------------------------------------------------------------------
// The JIT linker joins PTX inputs (and the PTX of fat binaries) as nvlink would join relocatable
// code (ptx_link.cpp); cuLinkComplete hands back the joined PTX, which cuModuleLoadData takes.
// Options are accepted; the logs it would fill stay empty and the wall time reads 0.

namespace {
struct LinkState {
    std::vector<std::string> units;
    std::string linked;
};

// The options and values arrays are the program's (program_memory.h).
void clear_jit_outputs(unsigned count, CUjit_option* options, void** values) {
    for (unsigned i = 0; options && values && i < count && i < 64; ++i) {
        CUjit_option option{};
        void* value = nullptr;
        if (!program::read_value(&options[i], &option) || !program::read_value(&values[i], &value))
            return;
        if (option == CU_JIT_WALL_TIME) {
            float zero = 0;
            program::write(&values[i], &zero, sizeof zero);
        } else if ((option == CU_JIT_INFO_LOG_BUFFER || option == CU_JIT_ERROR_LOG_BUFFER) &&
                   value) {
            const char nothing = 0;
            program::write(value, &nothing, 1);
        }
    }
}
}  // namespace

CUresult cuLinkCreate(unsigned int count, CUjit_option* options, void** values,
                      CUlinkState* state) {
    if (!driver_ready()) return CUDA_ERROR_NOT_INITIALIZED;
    if (!state) return CUDA_ERROR_INVALID_VALUE;
    clear_jit_outputs(count, options, values);
    *state = reinterpret_cast<CUlinkState>(new LinkState);
    return CUDA_SUCCESS;
}

namespace {

CUresult link_add(CUlinkState state, CUjitInputType type, const void* data, size_t size,
                  const std::string& what) {
    auto* link = reinterpret_cast<LinkState*>(state);
    if (type == CU_JIT_INPUT_PTX) {
        const char* text = static_cast<const char*>(data);
        link->units.emplace_back(text, size ? strnlen(text, size) : std::strlen(text));
        return CUDA_SUCCESS;
    }
    if (type == CU_JIT_INPUT_FATBINARY || type == CU_JIT_INPUT_CUBIN) {
        const std::string* nvrtc_ptx = ptx_of_nvrtc_cubin(data);
        FatbinContents images;
        std::string error;
        if (read_fatbin_data(nvrtc_ptx ? nvrtc_ptx->c_str() : data, &images, &error) &&
            !images.ptx.empty()) {
            link->units.push_back(images.ptx.back().ptx);
            return CUDA_SUCCESS;
        }
        Runtime::get().warn(std::string("cuLinkAddData: ") + what +
                            " holds no PTX (the emulator links and runs PTX)");
        return CUDA_ERROR_INVALID_IMAGE;
    }
    return as_driver(not_supported("cuLinkAddData", "inputs other than PTX, fat binaries and "
                                                    "NVRTC's cubins (objects, libraries, LTO IR)"));
}

}  // namespace

CUresult cuLinkAddData(CUlinkState state, CUjitInputType type, void* data, size_t size,
                       const char* name, unsigned int, CUjit_option*, void**) {
    if (!state || !data) return CUDA_ERROR_INVALID_VALUE;
    // Everything here is the program's memory: the input (sized by `size`, or by its own header
    // or terminating zero) and its name.
    std::string what = "input";
    if (name) program::read_string(name, &what, 4096);
    std::vector<std::uint8_t> bytes;
    std::string error;
    if (type == CU_JIT_INPUT_PTX && size) {
        bytes.resize(size + 1, 0);
        if (!program::read(data, bytes.data(), size)) return CUDA_ERROR_INVALID_VALUE;
    } else if (!program::read_image(data, &bytes, &error)) {
        Runtime::get().warn("cuLinkAddData: " + what + ": " + error);
        return CUDA_ERROR_INVALID_IMAGE;
    }
    return link_add(state, type, bytes.data(), type == CU_JIT_INPUT_PTX ? 0 : bytes.size(), what);
}

CUresult cuLinkAddFile(CUlinkState state, CUjitInputType type, const char* path, unsigned int count,
                       CUjit_option* options, void** values) {
    if (!state || !path) return CUDA_ERROR_INVALID_VALUE;
    std::string name;
    if (!program::read_string(path, &name, 4096)) return CUDA_ERROR_INVALID_VALUE;
    std::ifstream in(link::program_path(name), std::ios::binary);
    if (!in) {
        Runtime::get().warn("cuLinkAddFile: cannot open '" + name + "'");
        return CUDA_ERROR_FILE_NOT_FOUND;
    }
    (void)count, (void)options, (void)values;
    std::ostringstream bytes;
    bytes << in.rdbuf();
    std::string data = bytes.str();
    return link_add(state, type, data.c_str(), type == CU_JIT_INPUT_PTX ? 0 : data.size(), name);
}

CUresult cuLinkComplete(CUlinkState state, void** image, size_t* size) {
    if (!state || !image) return CUDA_ERROR_INVALID_VALUE;
    auto* link = reinterpret_cast<LinkState*>(state);
    if (link->units.empty()) return CUDA_ERROR_INVALID_VALUE;
    std::string error;
    link->linked = link->units.size() == 1 ? link->units[0] : link_ptx(link->units, &error);
    if (link->linked.empty()) {
        Runtime::get().warn("cuLinkComplete: " + error);
        return CUDA_ERROR_INVALID_PTX;
    }
    *image = link->linked.data();
    if (size) *size = link->linked.size() + 1;
    return CUDA_SUCCESS;
}

CUresult cuLinkDestroy(CUlinkState state) {
    delete reinterpret_cast<LinkState*>(state);
    return CUDA_SUCCESS;
}

CUresult cuModuleGetFunction(CUfunction* function, CUmodule module, const char* name) {
    Runtime& rt = Runtime::get();
    std::lock_guard lock(rt.mutex);
    if (!function || !module || !name) return CUDA_ERROR_INVALID_VALUE;
    auto* m = reinterpret_cast<Module*>(module);
    std::string error;
    emu::Emulator* e = rt.emulator_for(*m, rt.current_device(), &error);
    if (!e || !e->has_kernel(name)) return CUDA_ERROR_NOT_FOUND;
    auto f = std::make_unique<Function>();
    f->module = m;
    f->entry = name;
    f->host_function = f.get();
    *function = reinterpret_cast<CUfunction>(f.get());
    rt.functions[f.get()] = std::move(f);
    return CUDA_SUCCESS;
}

CUresult cuModuleGetGlobal(CUdeviceptr* address, size_t* bytes, CUmodule module, const char* name) {
    Runtime& rt = Runtime::get();
    std::lock_guard lock(rt.mutex);
    auto* m = reinterpret_cast<Module*>(module);
    std::string error;
    emu::Emulator* e = m ? rt.emulator_for(*m, rt.current_device(), &error) : nullptr;
    if (!e || !name) return CUDA_ERROR_INVALID_VALUE;
    // __device__ and __constant__ variables (a constant's address is in the module's constant
    // bank, which is device memory).
    auto s = e->symbol(name);
    if (!s) return CUDA_ERROR_NOT_FOUND;
    if (address) *address = s->device_address;
    if (bytes) *bytes = s->size;
    return CUDA_SUCCESS;
}

// The runtime's figures for the function (cudaFuncGetAttributes: static shared and local memory
// from the PTX); registers are PTX's guess of 32, which no allocation confirms.
CUresult cuFuncGetAttribute(int* value, CUfunction_attribute attr, CUfunction f) {
    if (!value || !f) return CUDA_ERROR_INVALID_VALUE;
    cudaFuncAttributes a{};
    if (CUresult e = as_driver(cudaFuncGetAttributes(&a, reinterpret_cast<const void*>(f))))
        return e;
    switch (attr) {
    case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = a.maxThreadsPerBlock; break;
    case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: *value = int(a.sharedSizeBytes); break;
    case CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: *value = int(a.constSizeBytes); break;
    case CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES: *value = int(a.localSizeBytes); break;
    case CU_FUNC_ATTRIBUTE_NUM_REGS: *value = a.numRegs ? a.numRegs : 32; break;
    case CU_FUNC_ATTRIBUTE_PTX_VERSION: *value = a.ptxVersion; break;
    case CU_FUNC_ATTRIBUTE_BINARY_VERSION: *value = a.binaryVersion; break;
    case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES:
        *value = a.maxDynamicSharedSizeBytes;
        break;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET: *value = a.clusterDimMustBeSet; break;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH: *value = a.requiredClusterWidth; break;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT: *value = a.requiredClusterHeight; break;
    case CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH: *value = a.requiredClusterDepth; break;
    case CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED:
        *value = a.nonPortableClusterSizeAllowed;
        break;
    case CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE:
        *value = a.clusterSchedulingPolicyPreference;
        break;
    default: *value = 0; break;
    }
    return CUDA_SUCCESS;
}

CUresult cuFuncSetAttribute(CUfunction f, CUfunction_attribute attr, int value) {
    if (attr == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
        reinterpret_cast<Function*>(f)->max_dynamic_shared = value;
    // The cluster attributes have the runtime's numbers (cudaFuncAttribute = CUfunction_attribute).
    else if (attr == CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH ||
             attr == CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT ||
             attr == CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH ||
             attr == CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED ||
             attr == CU_FUNC_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE)
        return as_driver(
            cudaFuncSetAttribute(reinterpret_cast<const void*>(f), cudaFuncAttribute(attr), value));
    return CUDA_SUCCESS;
}

// cuLaunchKernelEx and the cluster occupancy queries, through the runtime's: a CUlaunchConfig is
// a cudaLaunchConfig_t with the grid and block spelled out, and its attributes share their layout.
// They need no cuInit of their own once the runtime has started the driver, as on a GPU (a
// CUfunction comes from cuModuleGetFunction, after cuInit, or from cudaGetFuncBySymbol).
namespace {
cudaLaunchConfig_t runtime_config(const CUlaunchConfig& c) {
    static_assert(sizeof(CUlaunchAttribute) == sizeof(cudaLaunchAttribute));
    cudaLaunchConfig_t r{};
    r.gridDim = dim3(c.gridDimX, c.gridDimY, c.gridDimZ);
    r.blockDim = dim3(c.blockDimX, c.blockDimY, c.blockDimZ);
    r.dynamicSmemBytes = c.sharedMemBytes;
    r.stream = reinterpret_cast<cudaStream_t>(c.hStream);
    r.attrs = reinterpret_cast<cudaLaunchAttribute*>(c.attrs);
    r.numAttrs = c.numAttrs;
    return r;
}
}  // namespace

CUresult cuLaunchKernelEx(const CUlaunchConfig* config, CUfunction f, void** params, void** extra) {
    if (!config) return CUDA_ERROR_INVALID_VALUE;
    if (extra && !params)
        return as_driver(not_supported("cuLaunchKernelEx", "arguments in the 'extra' form"));
    const cudaLaunchConfig_t c = runtime_config(*config);
    return as_driver(cudaLaunchKernelExC(&c, reinterpret_cast<const void*>(f), params));
}

CUresult cuOccupancyMaxActiveClusters(int* clusters, CUfunction f, const CUlaunchConfig* config) {
    if (!config) return CUDA_ERROR_INVALID_VALUE;
    const cudaLaunchConfig_t c = runtime_config(*config);
    return as_driver(
        cudaOccupancyMaxActiveClusters(clusters, reinterpret_cast<const void*>(f), &c));
}

CUresult cuOccupancyMaxPotentialClusterSize(int* size, CUfunction f, const CUlaunchConfig* config) {
    if (!config) return CUDA_ERROR_INVALID_VALUE;
    const cudaLaunchConfig_t c = runtime_config(*config);
    return as_driver(
        cudaOccupancyMaxPotentialClusterSize(size, reinterpret_cast<const void*>(f), &c));
}

// Occupancy, as the runtime computes it (cudaOccupancyMaxActiveBlocksPerMultiprocessor).
CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* blocks, CUfunction f,
                                                              int block_size, size_t dynamic_shared,
                                                              unsigned int flags) {
    if (!driver_ready()) return CUDA_ERROR_NOT_INITIALIZED;
    return as_driver(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
        blocks, reinterpret_cast<const void*>(f), block_size, dynamic_shared, flags));
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, CUfunction f, int block_size,
                                                     size_t dynamic_shared) {
    return cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, f, block_size,
                                                                dynamic_shared, 0);
}

// The block size (a multiple of the warp size, at most block_size_limit when that is not 0) that
// keeps the most threads resident per SM, the largest such on a tie, and the grid that fills the
// device with it: what cudaOccupancyMaxPotentialBlockSize computes in the runtime's header.
// `shared_for` gives the dynamic shared memory a block size needs, else `dynamic_shared` is used.
CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(int* min_grid, int* block_size, CUfunction f,
                                                   CUoccupancyB2DSize shared_for,
                                                   size_t dynamic_shared, int block_size_limit,
                                                   unsigned int flags) {
    if (!driver_ready()) return CUDA_ERROR_NOT_INITIALIZED;
    if (!min_grid || !block_size || !f) return CUDA_ERROR_INVALID_VALUE;
    cudaFuncAttributes a{};
    if (CUresult e = as_driver(cudaFuncGetAttributes(&a, reinterpret_cast<const void*>(f))))
        return e;
    int limit = a.maxThreadsPerBlock;
    if (block_size_limit > 0) limit = std::min(limit, block_size_limit);
    int best_threads = 0, best_size = 0, best_blocks = 0;
    for (int size = limit - limit % 32; size > 0; size -= 32) {
        const size_t shared = shared_for ? shared_for(size) : dynamic_shared;
        int blocks = 0;
        if (CUresult e = cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&blocks, f, size,
                                                                              shared, flags))
            return e;
        if (blocks * size > best_threads) {
            best_threads = blocks * size;
            best_size = size;
            best_blocks = blocks;
        }
    }
    *block_size = best_size;
    *min_grid = best_blocks * Runtime::get().model.sm_count;
    return CUDA_SUCCESS;
}

CUresult cuOccupancyMaxPotentialBlockSize(int* min_grid, int* block_size, CUfunction f,
                                          CUoccupancyB2DSize shared_for, size_t dynamic_shared,
                                          int block_size_limit) {
    return cuOccupancyMaxPotentialBlockSizeWithFlags(min_grid, block_size, f, shared_for,
                                                     dynamic_shared, block_size_limit, 0);
}

CUresult cuOccupancyAvailableDynamicSMemPerBlock(size_t* bytes, CUfunction f, int blocks_per_sm,
                                                 int block_size) {
    return as_driver(cudaOccupancyAvailableDynamicSMemPerBlock(
        bytes, reinterpret_cast<const void*>(f), blocks_per_sm, block_size));
}

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                        unsigned by, unsigned bz, unsigned shared, CUstream stream, void** params,
                        void** extra) {
    if (!driver_ready()) return CUDA_ERROR_NOT_INITIALIZED;
    if (extra && !params)
        return as_driver(not_supported("cuLaunchKernel", "arguments in the 'extra' form"));
    return as_driver(cudaLaunchKernel(reinterpret_cast<const void*>(f), dim3(gx, gy, gz),
                                      dim3(bx, by, bz), params, shared,
                                      reinterpret_cast<cudaStream_t>(stream)));
}

CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                   unsigned by, unsigned bz, unsigned shared, CUstream stream,
                                   void** params) {
    return as_driver(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(f), dim3(gx, gy, gz),
                                                 dim3(bx, by, bz), params, shared,
                                                 reinterpret_cast<cudaStream_t>(stream)));
}

// [SECTION] Memory
// ----------------------------------------------------------------------------------

CUresult cuMemAlloc(CUdeviceptr* ptr, size_t bytes) {
    if (!driver_ready()) return CUDA_ERROR_NOT_INITIALIZED;
    if (!ptr) return CUDA_ERROR_INVALID_VALUE;
    void* p = nullptr;
    CUresult e = as_driver(cudaMalloc(&p, bytes));
    *ptr = reinterpret_cast<CUdeviceptr>(p);
    return e;
}

CUresult cuMemFree(CUdeviceptr ptr) { return as_driver(cudaFree(reinterpret_cast<void*>(ptr))); }

CUresult cuMemAllocHost(void** ptr, size_t bytes) { return as_driver(cudaMallocHost(ptr, bytes)); }
CUresult cuMemFreeHost(void* ptr) { return as_driver(cudaFreeHost(ptr)); }
CUresult cuMemAllocManaged(CUdeviceptr* ptr, size_t bytes, unsigned int flags) {
    void* p = nullptr;
    CUresult e = as_driver(cudaMallocManaged(&p, bytes, flags));
    if (ptr) *ptr = reinterpret_cast<CUdeviceptr>(p);
    return e;
}

// [SECTION] Pointer attributes
// ---------------------------------------------------------------------

}  // extern "C"

namespace {

// What unified addressing knows of a pointer: the allocation (or registration, module variable,
// mapping) holding it. Pointers into none of them are unknown. Every answer below is what an
// H100 with CUDA 13.0's driver gave for the same kind of memory
// (docs/measurements/driver-apis-h100.md).
enum class Source {
    malloc,            // cudaMalloc, cuMemAlloc
    pinned,            // cudaMallocHost, cudaHostAlloc
    registered,        // cudaHostRegister
    managed,           // cudaMallocManaged
    managed_variable,  // a __managed__ variable
    pool,              // cudaMallocAsync, graph allocations
    module_variable,   // a __device__ or __constant__ variable, the device heap
    mapped,            // cuMemMap
};

struct PointerFacts {
    Source source = Source::malloc;
    int device = 0;
    std::uint64_t base = 0, size = 0;
    std::uint64_t mapping_base = 0, mapping_size = 0;
    vmm::Facts vmm;
};

std::uint64_t round_down(std::uint64_t v, std::uint64_t g) { return v / g * g; }
std::uint64_t round_up(std::uint64_t v, std::uint64_t g) { return (v + g - 1) / g * g; }

bool pointer_facts(CUdeviceptr ptr, PointerFacts* out) {
    Runtime& rt = Runtime::get();
    if (vmm::facts(ptr, rt.current_device(), &out->vmm)) {
        out->source = Source::mapped;
        out->device = out->vmm.device;
        out->base = out->mapping_base = out->vmm.mapping_base;
        out->size = out->mapping_size = out->vmm.mapping_size;
        return true;
    }
    const MemoryRecord* r = rt.record_of(reinterpret_cast<const void*>(ptr));
    // A graph's memory between a free and its next allocation is mapped nowhere (as on an H100).
    if (r && is_graph_memory(reinterpret_cast<const void*>(r->base)) &&
        !graph_memory_allocated(reinterpret_cast<const void*>(r->base)))
        return false;
    if (r) {
        switch (r->kind) {
        case MemoryKind::device: out->source = Source::malloc; break;
        case MemoryKind::pinned_host: out->source = Source::pinned; break;
        case MemoryKind::registered_host: out->source = Source::registered; break;
        case MemoryKind::managed:
            out->source = r->module_variable ? Source::managed_variable : Source::managed;
            break;
        case MemoryKind::pool: out->source = Source::pool; break;
        }
        out->device = r->device;
        out->base = r->base;
        out->size = r->size;
    } else {
        const emu::Allocation* a = rt.memory->find(ptr, 1);
        if (!a || a->freed || a->host) return false;
        out->source = Source::module_variable;
        out->device = rt.current_device();
        out->base = a->base;
        out->size = a->size;
    }
    // The driver maps memory in pages of 2 MiB (4 KiB for registered host memory, 32 MiB chunks
    // for a memory pool): the mapping is the pages that hold the allocation.
    const std::uint64_t page = out->source == Source::registered ? 4096
                               : out->source == Source::pool     ? 32ull << 20
                                                                 : 2ull << 20;
    out->mapping_base = round_down(out->base, page);
    out->mapping_size =
        std::max(page, round_up(out->base + std::max<std::uint64_t>(out->size, 1), page) -
                           out->mapping_base);
    return true;
}

// Sync-memops flags set with cuPointerSetAttribute, by allocation base.
std::map<std::uint64_t, bool>& sync_memops() {
    static std::map<std::uint64_t, bool> flags;
    return flags;
}

// One attribute into `data` (sized as the attribute's type), or the error CUDA gives. The
// attributes CUDA documents as bool are written as 4-byte integers, as the driver does.
CUresult pointer_attribute(void* data, CUpointer_attribute attribute, CUdeviceptr ptr) {
    PointerFacts f;
    if (!pointer_facts(ptr, &f)) return CUDA_ERROR_INVALID_VALUE;
    const bool device_memory = f.source == Source::malloc || f.source == Source::pool ||
                               f.source == Source::module_variable || f.source == Source::mapped;
    const bool managed = f.source == Source::managed || f.source == Source::managed_variable;
    auto put = [&](auto value) {
        std::memcpy(data, &value, sizeof value);
        return CUDA_SUCCESS;
    };
    auto flag = [&](bool b) { return put(static_cast<unsigned int>(b)); };
    switch (attribute) {
    case CU_POINTER_ATTRIBUTE_CONTEXT: {
        // Memory of a pool, a __managed__ variable or a mapping belongs to no context (the
        // driver answers null); the rest to its device's primary context, or to the current
        // context when that is on the same device (one address space per device).
        if (f.source == Source::pool || f.source == Source::managed_variable ||
            f.source == Source::mapped)
            return put(CUcontext(nullptr));
        Context* c = bound();
        return put(reinterpret_cast<CUcontext>(c && c->device == f.device ? c : primary(f.device)));
    }
    case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
        return put(device_memory || managed ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST);
    case CU_POINTER_ATTRIBUTE_DEVICE_POINTER: return put(ptr);  // one address space (UVA)
    case CU_POINTER_ATTRIBUTE_HOST_POINTER:
        if (device_memory) return CUDA_ERROR_INVALID_VALUE;  // not reachable from the host
        return put(reinterpret_cast<void*>(ptr));
    case CU_POINTER_ATTRIBUTE_SYNC_MEMOPS: {
        // Managed memory always synchronises its memory operations.
        auto it = sync_memops().find(f.base);
        return flag(managed || (it != sync_memops().end() && it->second));
    }
    case CU_POINTER_ATTRIBUTE_BUFFER_ID:
    case CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID:
        // Device addresses are never handed out twice, so the base names the allocation.
        return put(static_cast<unsigned long long>(f.base));
    case CU_POINTER_ATTRIBUTE_IS_MANAGED: return flag(managed);
    case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: return put(f.device);
    case CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE: return flag(f.source == Source::malloc);
    case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR: return put(static_cast<CUdeviceptr>(f.base));
    case CU_POINTER_ATTRIBUTE_RANGE_SIZE: return put(static_cast<size_t>(f.size));
    case CU_POINTER_ATTRIBUTE_MAPPED: return flag(true);
    case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
        return put(
            static_cast<unsigned long long>(f.source == Source::mapped ? f.vmm.handle_types : 0));
    // cudaMalloc'd memory alone is RDMA-capable and decompression-capable on the H100.
    case CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE: return flag(f.source == Source::malloc);
    case CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE: return flag(f.source == Source::malloc);
    case CU_POINTER_ATTRIBUTE_ACCESS_FLAGS:
        return put(f.source == Source::mapped
                       ? f.vmm.access
                       : static_cast<unsigned int>(CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE));
    case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE: {
        // Stream-ordered allocations come from their device's current pool.
        CUmemoryPool pool = nullptr;
        if (f.source == Source::pool) {
            cudaMemPool_t p = nullptr;
            if (cudaDeviceGetMemPool(&p, f.device) == cudaSuccess)
                pool = reinterpret_cast<CUmemoryPool>(p);
        }
        return put(pool);
    }
    case CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR:
        return put(static_cast<CUdeviceptr>(f.mapping_base));
    case CU_POINTER_ATTRIBUTE_MAPPING_SIZE: return put(static_cast<size_t>(f.mapping_size));
    case CU_POINTER_ATTRIBUTE_P2P_TOKENS:  // the nv-p2p kernel interface: no such thing here
    default: return CUDA_ERROR_INVALID_VALUE;
    }
}

}  // namespace

extern "C" {

CUresult cuPointerGetAttribute(void* data, CUpointer_attribute attribute, CUdeviceptr ptr) {
    Runtime& rt = Runtime::get();
    std::lock_guard lock(rt.mutex);
    if (!data) return CUDA_ERROR_INVALID_VALUE;
    if (!driver_ready()) return CUDA_ERROR_NOT_INITIALIZED;
    return pointer_attribute(data, attribute, ptr);
}

// Several at once: the call succeeds for any pointer. For memory CUDA does not know, the driver
// writes what the H100 wrote: zeros, -2 as the device, the pointer itself as the host pointer,
// and nothing at all for the range's start and size.
CUresult cuPointerGetAttributes(unsigned int count, CUpointer_attribute* attributes, void** data,
                                CUdeviceptr ptr) {
    Runtime& rt = Runtime::get();
    std::lock_guard lock(rt.mutex);
    if (!attributes || !data) return CUDA_ERROR_INVALID_VALUE;
    if (!driver_ready()) return CUDA_ERROR_NOT_INITIALIZED;
    for (unsigned int i = 0; i < count; ++i) {
        if (!data[i]) return CUDA_ERROR_INVALID_VALUE;
        if (pointer_attribute(data[i], attributes[i], ptr) == CUDA_SUCCESS) continue;
        switch (attributes[i]) {
        case CU_POINTER_ATTRIBUTE_HOST_POINTER: std::memcpy(data[i], &ptr, 8); break;
        case CU_POINTER_ATTRIBUTE_CONTEXT:
        case CU_POINTER_ATTRIBUTE_DEVICE_POINTER:
        case CU_POINTER_ATTRIBUTE_BUFFER_ID:
        case CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID:
        case CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR:
        case CU_POINTER_ATTRIBUTE_MAPPING_SIZE:
        case CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES:
        case CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE: std::memset(data[i], 0, 8); break;
        case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
        case CU_POINTER_ATTRIBUTE_RANGE_SIZE: break;
        case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *static_cast<int*>(data[i]) = -2; break;
        case CU_POINTER_ATTRIBUTE_P2P_TOKENS:
            std::memset(data[i], 0, sizeof(CUDA_POINTER_ATTRIBUTE_P2P_TOKENS));
            break;
        default: std::memset(data[i], 0, 4); break;  // the memory type, access flags, booleans
        }
    }
    return CUDA_SUCCESS;
}

// The allocation holding a pointer: its start and size (a mapping's, for cuMemMap'd memory), as
// CU_POINTER_ATTRIBUTE_RANGE_START_ADDR and _RANGE_SIZE answer.
CUresult cuMemGetAddressRange(CUdeviceptr* base, size_t* size, CUdeviceptr ptr) {
    Runtime& rt = Runtime::get();
    std::lock_guard lock(rt.mutex);
    if (!driver_ready()) return CUDA_ERROR_NOT_INITIALIZED;
    PointerFacts f;
    if (!pointer_facts(ptr, &f)) return CUDA_ERROR_NOT_FOUND;
    if (base) *base = f.base;
    if (size) *size = f.size;
    return CUDA_SUCCESS;
}

CUresult cuPointerSetAttribute(const void* value, CUpointer_attribute attribute, CUdeviceptr ptr) {
    Runtime& rt = Runtime::get();
    std::lock_guard lock(rt.mutex);
    if (!value) return CUDA_ERROR_INVALID_VALUE;
    if (!driver_ready()) return CUDA_ERROR_NOT_INITIALIZED;
    PointerFacts f;
    if (!pointer_facts(ptr, &f)) return CUDA_ERROR_INVALID_VALUE;
    // Only sync-memops may be set (the documented one); copies here are synchronous anyway.
    if (attribute != CU_POINTER_ATTRIBUTE_SYNC_MEMOPS) return CUDA_ERROR_INVALID_VALUE;
    sync_memops()[f.base] = *static_cast<const bool*>(value);
    return CUDA_SUCCESS;
}

CUresult cuMemGetInfo(size_t* free_bytes, size_t* total) {
    return as_driver(cudaMemGetInfo(free_bytes, total));
}

CUresult cuMemcpyHtoD(CUdeviceptr dst, const void* src, size_t bytes) {
    return as_driver(cudaMemcpy(reinterpret_cast<void*>(dst), src, bytes, cudaMemcpyHostToDevice));
}
CUresult cuMemcpyDtoH(void* dst, CUdeviceptr src, size_t bytes) {
    return as_driver(cudaMemcpy(dst, reinterpret_cast<void*>(src), bytes, cudaMemcpyDeviceToHost));
}
CUresult cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
    return as_driver(cudaMemcpy(reinterpret_cast<void*>(dst), reinterpret_cast<void*>(src), bytes,
                                cudaMemcpyDeviceToDevice));
}
CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t bytes) {
    return as_driver(cudaMemcpy(reinterpret_cast<void*>(dst), reinterpret_cast<void*>(src), bytes,
                                cudaMemcpyDefault));
}
CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void* src, size_t bytes, CUstream s) {
    return as_driver(cudaMemcpyAsync(reinterpret_cast<void*>(dst), src, bytes,
                                     cudaMemcpyHostToDevice, reinterpret_cast<cudaStream_t>(s)));
}
CUresult cuMemcpyDtoHAsync(void* dst, CUdeviceptr src, size_t bytes, CUstream s) {
    return as_driver(cudaMemcpyAsync(dst, reinterpret_cast<void*>(src), bytes,
                                     cudaMemcpyDeviceToHost, reinterpret_cast<cudaStream_t>(s)));
}
CUresult cuMemsetD8(CUdeviceptr dst, unsigned char value, size_t n) {
    return as_driver(cudaMemset(reinterpret_cast<void*>(dst), value, n));
}

}  // extern "C"

namespace {
CUresult memset_elements(CUdeviceptr dst, std::uint32_t value, unsigned element, size_t n,
                         CUstream stream) {
    ApiCall call("cuMemsetD32");
    Runtime& rt = call.rt;
    if (CUresult e = gate()) return e;
    Stream* s = rt.stream(reinterpret_cast<cudaStream_t>(stream));
    if (!s) return CUDA_ERROR_INVALID_HANDLE;
    Work w;
    w.kind = Work::Kind::set;
    w.set.dst = reinterpret_cast<std::uint8_t*>(dst);
    w.set.value = value;
    w.set.element = element;
    w.set.width = n;
    w.set.pitch = n * element;
    w.set.slice = w.set.pitch;
    return as_driver(result(issue(s, std::move(w), "cuMemsetD32")));
}
}  // namespace

extern "C" {

CUresult cuMemsetD16(CUdeviceptr dst, unsigned short value, size_t n) {
    return memset_elements(dst, value, 2, n, nullptr);
}
CUresult cuMemsetD32(CUdeviceptr dst, unsigned int value, size_t n) {
    return memset_elements(dst, value, 4, n, nullptr);
}
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int value, size_t n, CUstream s) {
    return memset_elements(dst, value, 4, n, s);
}

// [SECTION] Streams and events
// ----------------------------------------------------------------------

CUresult cuStreamCreate(CUstream* stream, unsigned int flags) {
    if (!driver_ready()) return CUDA_ERROR_NOT_INITIALIZED;
    return as_driver(cudaStreamCreateWithFlags(reinterpret_cast<cudaStream_t*>(stream), flags));
}
CUresult cuStreamDestroy(CUstream stream) {
    return as_driver(cudaStreamDestroy(reinterpret_cast<cudaStream_t>(stream)));
}
CUresult cuStreamSynchronize(CUstream stream) {
    return as_driver(cudaStreamSynchronize(reinterpret_cast<cudaStream_t>(stream)));
}
CUresult cuStreamQuery(CUstream stream) {
    return as_driver(cudaStreamQuery(reinterpret_cast<cudaStream_t>(stream)));
}
CUresult cuEventCreate(CUevent* event, unsigned int flags) {
    return as_driver(cudaEventCreateWithFlags(reinterpret_cast<cudaEvent_t*>(event), flags));
}
CUresult cuEventDestroy(CUevent event) {
    return as_driver(cudaEventDestroy(reinterpret_cast<cudaEvent_t>(event)));
}
CUresult cuEventRecord(CUevent event, CUstream stream) {
    return as_driver(cudaEventRecord(reinterpret_cast<cudaEvent_t>(event),
                                     reinterpret_cast<cudaStream_t>(stream)));
}
CUresult cuEventSynchronize(CUevent event) {
    return as_driver(cudaEventSynchronize(reinterpret_cast<cudaEvent_t>(event)));
}
CUresult cuEventElapsedTime(float* ms, CUevent a, CUevent b) {
    return as_driver(cudaEventElapsedTime(ms, reinterpret_cast<cudaEvent_t>(a),
                                          reinterpret_cast<cudaEvent_t>(b)));
}

}  // extern "C"
