// The CUDA runtime API, part 2: what nvcc's generated code calls to register a program's device
// code (__cudaRegister*), kernel launches, function attributes and occupancy, and symbols.
#include <algorithm>
#include <cstring>
#include <set>
#include <vector>

#include "cudart/api.h"
#include "cudart/cluster.h"
#include "cudart/managed.h"
#include "cudart/program_memory.h"

using namespace cudalab;
using namespace cudalab::cudart;

namespace {

// The PTX image to run. A GPU of compute capability X.Y runs machine code (SASS) built for sm_XZ
// with Z <= Y, or compiles (JIT) PTX built for compute_V with V <= XY; else it has no kernel image.
// The emulator runs PTX only: with SASS the device could run, it runs the file's PTX in its place
// (built from the same source), the newest the device takes or else the oldest there is.
void choose_image(Module& m) {
    const int device = Runtime::get().model.arch();
    bool sass = false;
    for (auto a : m.images.sass_archs) sass |= int(a) / 10 == device / 10 && int(a) <= device;
    const PtxImage* best = nullptr;
    for (const PtxImage& p : m.images.ptx)
        if (int(p.arch) <= device && (!best || p.arch > best->arch)) best = &p;
    if (!best && sass)
        for (const PtxImage& p : m.images.ptx)
            if (!best || p.arch < best->arch) best = &p;
    if (!best && !m.images.ptx.empty()) {
        std::string held;
        for (auto a : m.images.sass_archs)
            held += (held.empty() ? "" : ", ") + std::string("sm_") + std::to_string(a);
        for (const PtxImage& p : m.images.ptx)
            held += (held.empty() ? "" : ", ") + std::string("compute_") + std::to_string(p.arch) +
                    " (PTX)";
        m.no_image = true;
        m.load_error = "no kernel image for this device: the GPU is sm_" + std::to_string(device) +
                       " and the program holds " + held +
                       "; machine code runs only on its own major architecture and PTX only on its "
                       "own or newer GPUs. Build "
                       "PTX for the oldest GPU to support (e.g. -gencode "
                       "arch=compute_75,code=compute_75), or compile for "
                       "the device at run time with NVRTC";
        return;
    }
    if (!best) {
        std::string archs;
        for (auto a : m.images.sass_archs)
            archs += (archs.empty() ? "sm_" : ", sm_") + std::to_string(a);
        m.load_error = "the program holds no PTX, only machine code for " +
                       (archs.empty() ? std::string("no GPU") : archs) +
                       ": the emulator runs PTX. Rebuild keeping PTX: nvcc -arch=sm_90 (or "
                       "-gencode arch=compute_90,code=compute_90)";
        return;
    }
    m.ptx = best->ptx;
    // The first .file names the source for fault messages (nvcc -lineinfo or -G writes them).
    const auto f = m.ptx.find(".file");
    if (f != std::string::npos) {
        const auto q1 = m.ptx.find('"', f), nl = m.ptx.find('\n', f);
        const auto q2 = q1 == std::string::npos ? q1 : m.ptx.find('"', q1 + 1);
        if (q1 != std::string::npos && q2 != std::string::npos && q2 < nl)
            m.source_path = m.ptx.substr(q1 + 1, q2 - q1 - 1);
    }
}

struct CallConfiguration {
    dim3 grid, block;
    size_t shared = 0;
    void* stream = nullptr;
};

std::vector<CallConfiguration>& configurations() {
    thread_local std::vector<CallConfiguration> stack;
    return stack;
}

Function* function_of(const void* host_function) {
    Runtime& rt = Runtime::get();
    auto it = rt.functions.find(host_function);
    if (it != rt.functions.end()) return it->second.get();
    // A cudaKernel_t from __cudaGetKernel is the Function itself.
    for (auto& [k, f] : rt.functions)
        if (f.get() == host_function) return f.get();
    return nullptr;
}

}  // namespace

namespace cudalab::cudart {

Function* function_for(const void* host_function) { return function_of(host_function); }

// Launches through every entry point (<<<>>>, cudaLaunchKernel(Ex), cooperative, graphs' kernel
// nodes are built from the same KernelWork).
cudaError_t make_kernel_work(const void* func, dim3 grid, dim3 block, void** args, size_t shared,
                             KernelWork* out, const char* api) {
    Runtime& rt = Runtime::get();
    Function* f = function_of(func);
    if (!f) {
        rt.warn(std::string(api) +
                ": the function pointer is not a __global__ function of this program");
        return cudaErrorInvalidDeviceFunction;
    }
    std::string error;
    emu::Emulator* e = rt.emulator_for(*f->module, rt.current_device(), &error);
    if (!e) {
        rt.say_once("module:" + error,
                    "cannot run kernel '" + kernel_display_name(f->entry) + "': " + error);
        return f->module->images.ptx.empty() || f->module->no_image
                   ? cudaErrorNoKernelImageForDevice
                   : cudaErrorInvalidPtx;
    }
    out->function = f;
    out->config.grid = Dim3{grid.x, grid.y, grid.z};
    out->config.block = Dim3{block.x, block.y, block.z};
    if (shared > 0xffffffffull) return cudaErrorInvalidValue;
    out->config.dynamic_shared_bytes = std::uint32_t(shared);
    const auto sizes = e->parameter_sizes(f->entry);
    out->args.clear();
    if (!sizes.empty() && !args) {
        rt.warn(std::string(api) + ": kernel '" + kernel_display_name(f->entry) + "' takes " +
                std::to_string(sizes.size()) + " arguments but none were passed");
        return cudaErrorInvalidValue;
    }
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        KernelArg a;
        a.bytes.resize(sizes[i]);
        // The program's array of argument addresses, and each argument, read from its memory. On
        // a GPU the driver reads them in the program, which crashes on a bad one; here the call
        // fails and says which.
        void* at = nullptr;
        if (!program::read_value(&args[i], &at) || !at ||
            !program::read(at, a.bytes.data(), sizes[i])) {
            char where[32];
            std::snprintf(where, sizeof where, "%p", at);
            rt.warn(std::string(api) + ": kernel '" + kernel_display_name(f->entry) +
                    "': argument " + std::to_string(i) + "'s address (" + where +
                    ") is not an address of this program: the launch takes an array of pointers "
                    "to the arguments (void* args[] = {&d, &n}), not the arguments themselves");
            return cudaErrorInvalidValue;
        }
        out->args.push_back(std::move(a));
    }
    return cudaSuccess;
}

cudaError_t launch_now(const void* func, dim3 grid, dim3 block, void** args, size_t shared,
                       cudaStream_t stream, bool cooperative, const char* api,
                       const Dim3* cluster = nullptr) {
    Runtime& rt = Runtime::get();
    if (cudaError_t e = device_gate()) return fail(e);
    Stream* s = rt.stream(stream);
    if (!s) return fail(cudaErrorInvalidResourceHandle);
    if (s->device != rt.current_device()) {
        // A kernel runs on the current device; a stream belongs to the device it was made on.
        // (Copies may go to another device's stream; kernels may not.)
        rt.warn(std::string(api) + ": the stream belongs to device " + std::to_string(s->device) +
                " but the current device is " + std::to_string(rt.current_device()) +
                "; a kernel can only be launched into a stream of the current device: call "
                "cudaSetDevice(" +
                std::to_string(s->device) + ") first" + [] {
                    const std::string site = caller_site();
                    return site.empty() ? std::string() : " (launched at " + site + ")";
                }());
        return fail(cudaErrorInvalidResourceHandle);
    }
    Work w;
    w.kind = Work::Kind::kernel;
    if (cudaError_t e = make_kernel_work(func, grid, block, args, shared, &w.kernel, api))
        return fail(e);
    w.kernel.cooperative = cooperative;
    if (cluster) {
        w.kernel.config.cluster = *cluster;
        w.kernel.config.explicit_cluster = true;
    }
    const int e = issue(s, std::move(w), api);
    rt.host_spend(rt.model.launch_api_cost);
    return result(e);
}

}  // namespace cudalab::cudart

extern "C" {

// [SECTION] Registration (called by nvcc's generated code before main)
// ------------------------------

void** __cudaRegisterFatBinary(void* fat_cubin) {
    Runtime& rt = Runtime::get();
    std::lock_guard lock(rt.mutex);
    auto m = std::make_unique<Module>();
    std::string error;
    if (!read_program_fatbin(fat_cubin, &m->images, &error)) m->load_error = error;
    else choose_image(*m);
    Module* raw = m.get();
    rt.modules.push_back(std::move(m));
    return reinterpret_cast<void**>(raw);
}

void __cudaRegisterFatBinaryEnd(void**) {}

void __cudaUnregisterFatBinary(void**) {
    // Runs at exit, before the runtime's own teardown: flush what the program printed on the
    // device.
    Runtime& rt = Runtime::get();
    std::lock_guard lock(rt.mutex);
    rt.flush_printf();
}

void __cudaRegisterFunction(void** handle, const char* host_function, char* device_function,
                            const char* device_name, int, uint3*, uint3*, dim3*, dim3*, int*) {
    Runtime& rt = Runtime::get();
    std::lock_guard lock(rt.mutex);
    auto f = std::make_unique<Function>();
    f->module = reinterpret_cast<Module*>(handle);
    f->entry = device_name ? device_name : device_function;
    f->host_function = host_function;
    rt.functions[host_function] = std::move(f);
}

void __cudaRegisterVar(void** handle, char* host_variable, char*, const char* device_name, int,
                       size_t size, int constant, int) {
    Runtime& rt = Runtime::get();
    std::lock_guard lock(rt.mutex);
    auto v = std::make_unique<Variable>();
    v->module = reinterpret_cast<Module*>(handle);
    v->name = device_name;
    v->size = size;
    v->constant = constant != 0;
    rt.variables[host_variable] = std::move(v);
}

// A __managed__ variable: its memory is made when its module loads (the first launch, or the
// first host access, which nvcc's code precedes with __cudaInitModule), in managed memory that the
// host reaches through the pointer registered here (place_managed_variable).
void __cudaRegisterManagedVar(void** handle, void** host_pointer_address, char*,
                              const char* device_name, int, size_t size, int constant, int) {
    Runtime& rt = Runtime::get();
    std::lock_guard lock(rt.mutex);
    auto v = std::make_unique<Variable>();
    v->module = reinterpret_cast<Module*>(handle);
    v->name = device_name;
    v->size = size;
    v->constant = constant != 0;
    v->managed = true;
    v->managed_host_pointer = host_pointer_address;
    rt.variables[host_pointer_address] = std::move(v);
}

char __cudaInitModule(void** handle) {
    // Loading the module places its managed variables, initialised, and sets the host's pointers.
    Runtime& rt = Runtime::get();
    std::lock_guard lock(rt.mutex);
    auto* module = reinterpret_cast<Module*>(handle);
    std::string error;
    if (rt.emulator_for(*module, rt.current_device(), &error)) return 1;
    // The module cannot run (its first launch will say why): its managed variables still get
    // memory, zeroed, so that the host's reads and writes of them work.
    for (auto& [host, v] : rt.variables) {
        if (!v->managed || v->module != module) continue;
        bool fresh = false;
        place_managed_variable(*module, v->name, v->size, &fresh);
    }
    return 1;
}

void __cudaRegisterTexture(void**, const void*, const void**, const char*, int, int, int) {}
void __cudaRegisterSurface(void**, const void*, const void**, const char*, int, int) {}
void __cudaRegisterHostVar(void**, const char*, char*, size_t) {}
void __cudaRegisterUnifiedTable(void*) {}

unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shared, void* stream) {
    configurations().push_back({grid, block, shared, stream});
    return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3* grid, dim3* block, size_t* shared, void* stream) {
    auto& stack = configurations();
    if (stack.empty()) return cudaErrorMissingConfiguration;
    CallConfiguration c = stack.back();
    stack.pop_back();
    *grid = c.grid;
    *block = c.block;
    *shared = c.shared;
    *static_cast<void**>(stream) = c.stream;
    return cudaSuccess;
}

cudaError_t __cudaGetKernel(cudaKernel_t* kernel, const void* host_function) {
    Runtime& rt = Runtime::get();
    std::lock_guard lock(rt.mutex);
    auto it = rt.functions.find(host_function);
    if (it == rt.functions.end()) return cudaErrorInvalidDeviceFunction;
    *kernel = reinterpret_cast<cudaKernel_t>(it->second.get());
    return cudaSuccess;
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void** args,
                               size_t shared, cudaStream_t stream) {
    CUDALAB_API("cudaLaunchKernel");
    return launch_now(reinterpret_cast<const void*>(kernel), grid, block, args, shared, stream,
                      false, "<<<...>>>");
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 grid, dim3 block, void** args,
                                    size_t shared, cudaStream_t stream) {
    CUDALAB_API("cudaLaunchKernel");
    if (!stream) stream = cudaStreamPerThread;
    return launch_now(reinterpret_cast<const void*>(kernel), grid, block, args, shared, stream,
                      false, "<<<...>>>");
}

// [SECTION] Launches
// ---------------------------------------------------------------------------------

cudaError_t cudaLaunchKernel(const void* func, dim3 grid, dim3 block, void** args, size_t shared,
                             cudaStream_t stream) {
    CUDALAB_API("cudaLaunchKernel");
    return launch_now(func, grid, block, args, shared, stream, false, "cudaLaunchKernel");
}

cudaError_t cudaLaunchKernel_ptsz(const void* func, dim3 grid, dim3 block, void** args,
                                  size_t shared, cudaStream_t stream) {
    CUDALAB_API("cudaLaunchKernel");
    if (!stream) stream = cudaStreamPerThread;
    return launch_now(func, grid, block, args, shared, stream, false, "cudaLaunchKernel");
}

cudaError_t cudaLaunchCooperativeKernel(const void* func, dim3 grid, dim3 block, void** args,
                                        size_t shared, cudaStream_t stream) {
    CUDALAB_API("cudaLaunchCooperativeKernel");
    return launch_now(func, grid, block, args, shared, stream, true, "cudaLaunchCooperativeKernel");
}

cudaError_t cudaLaunchCooperativeKernel_ptsz(const void* func, dim3 grid, dim3 block, void** args,
                                             size_t shared, cudaStream_t stream) {
    CUDALAB_API("cudaLaunchCooperativeKernel");
    if (!stream) stream = cudaStreamPerThread;
    return launch_now(func, grid, block, args, shared, stream, true, "cudaLaunchCooperativeKernel");
}

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t* config, const void* func, void** args) {
    CUDALAB_API("cudaLaunchKernelEx");
    if (!config) return fail(cudaErrorInvalidValue);
    bool cooperative = false, clustered = false;
    Dim3 cluster;
    for (unsigned i = 0; i < config->numAttrs; ++i) {
        const cudaLaunchAttribute& a = config->attrs[i];
        if (a.id == cudaLaunchAttributeCooperative) cooperative = a.val.cooperative != 0;
        else if (a.id == cudaLaunchAttributeClusterDimension) {
            // Thread block clusters (api_cluster.cpp checks them when the launch is issued).
            clustered = true;
            cluster = Dim3{a.val.clusterDim.x, a.val.clusterDim.y, a.val.clusterDim.z};
        }
    }
    return launch_now(func, config->gridDim, config->blockDim, args, config->dynamicSmemBytes,
                      config->stream, cooperative, "cudaLaunchKernelEx",
                      clustered ? &cluster : nullptr);
}

cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t* config, const void* func,
                                     void** args) {
    return cudaLaunchKernelExC(config, func, args);
}

// [SECTION] Functions and occupancy
// -------------------------------------------------------------------

cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void* func) {
    CUDALAB_API("cudaFuncGetAttributes");
    if (!attr) return fail(cudaErrorInvalidValue);
    Function* f = function_of(func);
    if (!f) return fail(cudaErrorInvalidDeviceFunction);
    std::memset(attr, 0, sizeof *attr);
    attr->maxThreadsPerBlock = int(hw::max_threads_per_block);
    attr->numRegs = 32;  // PTX has virtual registers; a GPU's allocation is known after ptxas
    attr->ptxVersion = 90;
    attr->binaryVersion = 90;
    attr->maxDynamicSharedSizeBytes = f->max_dynamic_shared;
    attr->preferredShmemCarveout = f->preferred_carveout;
    attr->cacheModeCA = 0;
    std::string error;
    emu::Emulator* e = rt.emulator_for(*f->module, rt.current_device(), &error);
    if (!e) {  // (libraries such as CUB ask for attributes before their first launch)
        rt.say_once("module:" + error, "cudaFuncGetAttributes of kernel '" +
                                           kernel_display_name(f->entry) + "': " + error);
        return fail(cudaErrorInvalidPtx);
    }
    emu::Emulator::KernelResources r;
    if (e->kernel_resources(f->entry, &r)) {
        attr->sharedSizeBytes = r.static_shared;
        attr->localSizeBytes = r.local_bytes;
        attr->constSizeBytes = 0;
        attr->maxThreadsPerBlock = int(r.max_threads);
        attr->maxDynamicSharedSizeBytes = std::min<int>(
            f->max_dynamic_shared, int(rt.model.shared_per_block_optin) - int(r.static_shared));
        cluster_attributes(*f, r, attr);
    }
    return cudaSuccess;
}

cudaError_t cudaFuncSetAttribute(const void* func, cudaFuncAttribute attr, int value) {
    CUDALAB_API("cudaFuncSetAttribute");
    Function* f = function_of(func);
    if (!f) return fail(cudaErrorInvalidDeviceFunction);
    if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
        if (value < 0 || std::uint64_t(value) > rt.model.shared_per_block_optin)
            return fail(cudaErrorInvalidValue);
        f->max_dynamic_shared = value;
    } else if (attr == cudaFuncAttributePreferredSharedMemoryCarveout) {
        f->preferred_carveout = value;
    } else if (cudaError_t e; set_cluster_attribute(rt, *f, attr, value, &e)) {
        return e ? fail(e) : cudaSuccess;
    }
    return cudaSuccess;
}

cudaError_t cudaFuncSetCacheConfig(const void* func, cudaFuncCache config) {
    Function* f = function_of(func);
    if (!f) return fail(cudaErrorInvalidDeviceFunction);
    f->cache_config = int(config);
    return cudaSuccess;
}

cudaError_t cudaFuncSetSharedMemConfig(const void*, cudaSharedMemConfig) { return cudaSuccess; }

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int* blocks, const void* func,
                                                                   int block_size,
                                                                   size_t dynamic_shared,
                                                                   unsigned int) {
    CUDALAB_API("cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    if (!blocks || block_size <= 0) return fail(cudaErrorInvalidValue);
    Function* f = function_of(func);
    if (!f) return fail(cudaErrorInvalidDeviceFunction);
    const DeviceModel& m = rt.model;
    // Threads (in whole warps), blocks and shared memory limit residency; registers are assumed
    // to fit (PTX does not know the final allocation).
    const int warps = (block_size + hw::warp_size - 1) / hw::warp_size;
    int by_threads = (m.max_threads_per_sm / hw::warp_size) / std::max(1, warps);
    int by_blocks = m.max_blocks_per_sm;
    int by_shared = m.max_blocks_per_sm;
    const std::uint64_t per_block =
        dynamic_shared + std::uint64_t(hw::emulated.reserved_shared_per_block);
    if (dynamic_shared) by_shared = int(m.shared_per_sm / per_block);
    *blocks = std::max(0, std::min({by_threads, by_blocks, by_shared}));
    if (block_size > int(hw::max_threads_per_block)) *blocks = 0;
    return cudaSuccess;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int* blocks, const void* func,
                                                          int block_size, size_t dynamic_shared) {
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(blocks, func, block_size,
                                                                  dynamic_shared, 0);
}

cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t* bytes, const void* func,
                                                      int blocks_per_sm, int block_size) {
    if (!bytes || blocks_per_sm <= 0) return fail(cudaErrorInvalidValue);
    const DeviceModel& m = Runtime::get().model;
    *bytes = std::min<std::uint64_t>(m.shared_per_block_optin,
                                     m.shared_per_sm / std::uint64_t(blocks_per_sm) -
                                         std::uint64_t(hw::emulated.reserved_shared_per_block));
    return cudaSuccess;
}

// The C entry the header's cudaOccupancyMaxPotentialBlockSize template needs is inline in the
// header; programs that call the variable-shared form reach cudaOccupancyMaxActiveBlocks... above.

// [SECTION] Symbols
// -----------------------------------------------------------------------------------

}  // extern "C"

namespace {

cudaError_t find_symbol(const void* symbol, Variable** var, emu::Emulator** emulator,
                        emu::SymbolInfo* info) {
    Runtime& rt = Runtime::get();
    auto it = rt.variables.find(symbol);
    if (it == rt.variables.end())
        // A __managed__ variable named in host code is its storage (nvcc reads it through the
        // registered pointer), not the pointer's address.
        it = std::find_if(rt.variables.begin(), rt.variables.end(), [&](const auto& v) {
            void* placed = nullptr;
            return v.second->managed && v.second->managed_host_pointer &&
                   program::read_value(v.second->managed_host_pointer, &placed) && placed == symbol;
        });
    if (it == rt.variables.end()) {
        rt.warn("the symbol passed is not a __device__ or __constant__ variable of this program "
                "(pass the variable itself, not its address or its name)");
        return cudaErrorInvalidSymbol;
    }
    *var = it->second.get();
    std::string error;
    *emulator = rt.emulator_for(*(*var)->module, rt.current_device(), &error);
    if (!*emulator) {
        rt.say_once("module:" + error, "the module of variable '" + (*var)->name + "': " + error);
        return cudaErrorInvalidPtx;
    }
    auto s = (*emulator)->symbol((*var)->name);
    if (!s) return cudaErrorInvalidSymbol;
    *info = *s;
    return cudaSuccess;
}

cudaError_t symbol_copy(const void* symbol, void* host, size_t count, size_t offset, bool to_symbol,
                        cudaMemcpyKind kind, cudaStream_t stream, const char* api) {
    Runtime& rt = Runtime::get();
    if (cudaError_t e = device_gate(!stream)) return fail(e);
    Variable* var;
    emu::Emulator* e;
    emu::SymbolInfo info;
    if (cudaError_t err = find_symbol(symbol, &var, &e, &info)) return fail(err);
    if (offset > info.size || count > info.size - offset) {
        rt.warn(std::string(api) + ": " + std::to_string(count) + " bytes at offset " +
                std::to_string(offset) + " do not fit in the symbol '" + var->name + "' (" +
                std::to_string(info.size) + " bytes)");
        return fail(cudaErrorInvalidValue);
    }
    Stream* s = rt.stream(stream);
    if (!s) return fail(cudaErrorInvalidResourceHandle);
    if (info.kind == emu::SymbolInfo::Kind::constant) {
        // Constant banks live in the module, not in device memory: copied here, timed as a copy.
        const bool device_side = kind == cudaMemcpyDeviceToDevice;
        std::vector<std::uint8_t> bytes(count);
        if (to_symbol) {
            if (device_side)
                rt.memory->copy_out(bytes.data(), reinterpret_cast<std::uint64_t>(host), count);
            else if (!program::read(host, bytes.data(), count)) return fail(cudaErrorInvalidValue);
            e->write_constant(info.address + offset, bytes.data(), count);
        } else {
            e->read_constant(bytes.data(), info.address + offset, count);
            if (device_side)
                rt.memory->copy_in(reinterpret_cast<std::uint64_t>(host), bytes.data(), count);
            else if (!program::write(host, bytes.data(), count)) return fail(cudaErrorInvalidValue);
        }
        const double start = std::max(stream_ready(s), rt.issue_time());
        const double end =
            start + (rt.model.copy_latency + double(count) / rt.model.pcie_pageable) * 1e9;
        place(s, start, end, to_symbol ? "memcpy HtoD (symbol)" : "memcpy DtoH (symbol)", "memcpy",
              {{"bytes", std::to_string(count)}});
        if (!stream) rt.host_advance_to(end);
        return cudaSuccess;
    }
    Work w;
    w.kind = Work::Kind::copy;
    auto* device = reinterpret_cast<std::uint8_t*>(info.address + offset);
    w.copy.src = to_symbol ? static_cast<const std::uint8_t*>(host) : device;
    w.copy.dst = to_symbol ? device : static_cast<std::uint8_t*>(host);
    w.copy.width = count;
    w.copy.kind = cudaMemcpyDefault;
    return result(issue(s, std::move(w), api));
}

}  // namespace

extern "C" {

cudaError_t cudaMemcpyToSymbol(const void* symbol, const void* src, size_t count, size_t offset,
                               cudaMemcpyKind kind) {
    CUDALAB_API("cudaMemcpyToSymbol");
    return symbol_copy(symbol, const_cast<void*>(src), count, offset, true, kind, nullptr,
                       "cudaMemcpyToSymbol");
}

cudaError_t cudaMemcpyFromSymbol(void* dst, const void* symbol, size_t count, size_t offset,
                                 cudaMemcpyKind kind) {
    CUDALAB_API("cudaMemcpyFromSymbol");
    return symbol_copy(symbol, dst, count, offset, false, kind, nullptr, "cudaMemcpyFromSymbol");
}

cudaError_t cudaMemcpyToSymbolAsync(const void* symbol, const void* src, size_t count,
                                    size_t offset, cudaMemcpyKind kind, cudaStream_t stream) {
    CUDALAB_API("cudaMemcpyToSymbolAsync");
    return symbol_copy(symbol, const_cast<void*>(src), count, offset, true, kind, stream,
                       "cudaMemcpyToSymbolAsync");
}

cudaError_t cudaMemcpyFromSymbolAsync(void* dst, const void* symbol, size_t count, size_t offset,
                                      cudaMemcpyKind kind, cudaStream_t stream) {
    CUDALAB_API("cudaMemcpyFromSymbolAsync");
    return symbol_copy(symbol, dst, count, offset, false, kind, stream,
                       "cudaMemcpyFromSymbolAsync");
}

cudaError_t cudaMemcpyToSymbol_ptds(const void* symbol, const void* src, size_t count,
                                    size_t offset, cudaMemcpyKind kind) {
    return cudaMemcpyToSymbol(symbol, src, count, offset, kind);
}
cudaError_t cudaMemcpyFromSymbol_ptds(void* dst, const void* symbol, size_t count, size_t offset,
                                      cudaMemcpyKind kind) {
    return cudaMemcpyFromSymbol(dst, symbol, count, offset, kind);
}
cudaError_t cudaMemcpyToSymbolAsync_ptsz(const void* symbol, const void* src, size_t count,
                                         size_t offset, cudaMemcpyKind kind, cudaStream_t stream) {
    return cudaMemcpyToSymbolAsync(symbol, src, count, offset, kind,
                                   stream ? stream : cudaStreamPerThread);
}
cudaError_t cudaMemcpyFromSymbolAsync_ptsz(void* dst, const void* symbol, size_t count,
                                           size_t offset, cudaMemcpyKind kind,
                                           cudaStream_t stream) {
    return cudaMemcpyFromSymbolAsync(dst, symbol, count, offset, kind,
                                     stream ? stream : cudaStreamPerThread);
}

cudaError_t cudaGetSymbolAddress(void** address, const void* symbol) {
    CUDALAB_API("cudaGetSymbolAddress");
    if (!address) return fail(cudaErrorInvalidValue);
    Variable* var;
    emu::Emulator* e;
    emu::SymbolInfo info;
    if (cudaError_t err = find_symbol(symbol, &var, &e, &info)) return fail(err);
    // __device__ and __constant__ alike: both live in the current device's memory (a constant's
    // in its module's constant bank), where cudaMemcpy and kernels reach them by this address.
    *address = reinterpret_cast<void*>(info.device_address);
    return cudaSuccess;
}

cudaError_t cudaGetSymbolSize(size_t* size, const void* symbol) {
    CUDALAB_API("cudaGetSymbolSize");
    if (!size) return fail(cudaErrorInvalidValue);
    Variable* var;
    emu::Emulator* e;
    emu::SymbolInfo info;
    if (cudaError_t err = find_symbol(symbol, &var, &e, &info)) return fail(err);
    *size = info.size;  // the module's size of it (the PTX declaration's)
    return cudaSuccess;
}

cudaError_t cudaGetFuncBySymbol(cudaFunction_t* f, const void* symbol) {
    if (!f) return fail(cudaErrorInvalidValue);
    Function* fn = function_of(symbol);
    if (!fn) return fail(cudaErrorInvalidDeviceFunction);
    *f = reinterpret_cast<cudaFunction_t>(fn);
    return cudaSuccess;
}

}  // extern "C"
