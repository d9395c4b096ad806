#include "gpu/gpu_backend.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "base/files.h"
#include "base/hardware.h"
#include "compiler/compiler.h"

namespace fs = std::filesystem;

namespace cudalab::gpu {

namespace {

std::string uuid_text(const CUuuid& u) {
    static const char* hex = "0123456789abcdef";
    std::string s;
    for (int i = 0; i < 16; ++i) {
        s += hex[(unsigned char)u.bytes[i] >> 4];
        s += hex[(unsigned char)u.bytes[i] & 15];
    }
    return s;
}

// The two kernels that measure the device's peaks. The copy kernel streams float4s (16-byte loads
// and stores, every sector used); the FMA kernel keeps eight independent chains per thread so the
// FMA pipes, not latency, bound it.
const char* peak_kernels = R"(
__global__ void peak_copy(const float4* __restrict__ in, float4* __restrict__ out, long long n)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * gridDim.x)
        out[i] = in[i];
}
__global__ void peak_fma(float* out, int iterations)
{
    float a0 = threadIdx.x, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3, a4 = a0 + 4, a5 = a0 + 5, a6 = a0 + 6, a7 = a0 + 7;
    const float m = 0.999f, c = 0.001f;
    for (int i = 0; i < iterations; ++i) {
        a0 = fmaf(a0, m, c); a1 = fmaf(a1, m, c); a2 = fmaf(a2, m, c); a3 = fmaf(a3, m, c);
        a4 = fmaf(a4, m, c); a5 = fmaf(a5, m, c); a6 = fmaf(a6, m, c); a7 = fmaf(a7, m, c);
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}
)";

std::string cache_dir() {
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
        return (fs::path(x) / "cudalab").string();
    if (const char* h = std::getenv("HOME"); h && *h)
        return (fs::path(h) / ".cache" / "cudalab").string();
    return ".";
}

}  // namespace

std::unique_ptr<GpuBackend> GpuBackend::open(std::string* why,
                                             const emu::EmulatorOptions& shadow_options) {
    const Driver* d = driver(why);
    if (!d) return nullptr;
    DeviceInfo info;
    if (const char* env = std::getenv("CUDALAB_DEVICE")) info.ordinal = std::atoi(env);
    // (CUdevice handles equal ordinals in every driver so far, but look them up rather than
    // assume.)
    CUdevice dev;
    if (CUresult r = d->cuDeviceGet(&dev, info.ordinal); r != CUDA_SUCCESS) {
        *why =
            "GPU " + std::to_string(info.ordinal) + " is not available (" + d->error_text(r) + ")";
        return nullptr;
    }
    char name[256] = {};
    d->cuDeviceGetName(name, sizeof name, dev);
    info.name = name;
    d->cuDeviceGetAttribute(&info.cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    d->cuDeviceGetAttribute(&info.cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    d->cuDeviceGetAttribute(&info.sm_count, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    d->cuDeviceTotalMem(&info.memory_bytes, dev);
    d->cuDriverGetVersion(&info.driver_version);
    CUuuid uuid{};
    if (d->cuDeviceGetUuid(&uuid, dev) == CUDA_SUCCESS) info.uuid = uuid_text(uuid);
    CUcontext ctx = nullptr;
    if (CUresult r = d->cuDevicePrimaryCtxRetain(&ctx, dev); r != CUDA_SUCCESS) {
        *why = "cannot create a context on " + info.name + " (" + d->error_text(r) + ")";
        return nullptr;
    }
    d->cuCtxSetCurrent(ctx);
    return std::unique_ptr<GpuBackend>(new GpuBackend(d, info, ctx, shadow_options));
}

GpuBackend::GpuBackend(const Driver* d, DeviceInfo info, CUcontext ctx,
                       const emu::EmulatorOptions& shadow_options)
    : d_(d), info_(std::move(info)), ctx_(ctx), shadow_(shadow_options) {}

GpuBackend::~GpuBackend() {
    if (context_lost_) return;
    d_->cuCtxSetCurrent(ctx_);
    for (auto& [p, a] : allocations_) d_->cuMemFree(a.gpu);
    if (module_) d_->cuModuleUnload(module_);
    CUdevice dev = 0;
    d_->cuDeviceGet(&dev, info_.ordinal);
    d_->cuDevicePrimaryCtxRelease(dev);
}

std::string GpuBackend::description() const {
    return info_.name + " (" + info_.arch() + ", " + std::to_string(info_.sm_count) +
           " SMs, driver " + std::to_string(info_.driver_version / 1000) + "." +
           std::to_string(info_.driver_version % 1000 / 10) + ")";
}

Status GpuBackend::check(CUresult r, const std::string& what) {
    if (r == CUDA_SUCCESS) return Status::success();
    return Status::error(StatusCode::kernel_fault, what + ": " + d_->error_text(r));
}

// A sticky error (illegal address, launch failure, ...) leaves the context unusable. Reset it so
// the process can go on; every allocation and module in it is gone.
Status GpuBackend::rebuild_context(const std::string& cause) {
    context_lost_ = true;
    allocations_.clear();
    functions_.clear();
    module_ = nullptr;
    // Drop our reference, reset the device's primary context (this clears the sticky error and
    // frees everything in it), then take a fresh one.
    CUdevice dev = 0;
    d_->cuDeviceGet(&dev, info_.ordinal);
    d_->cuCtxSetCurrent(nullptr);
    d_->cuDevicePrimaryCtxRelease(dev);
    CUresult reset = d_->cuDevicePrimaryCtxReset(dev);
    CUcontext ctx = nullptr;
    CUresult retain = d_->cuDevicePrimaryCtxRetain(&ctx, dev);
    std::string recovery;
    // Some errors (an illegal address among them) poison the whole process, not just the context:
    // the driver then fails every later call. Probe before declaring the GPU usable again.
    CUdeviceptr probe = 0;
    bool usable = retain == CUDA_SUCCESS && d_->cuCtxSetCurrent(ctx) == CUDA_SUCCESS &&
                  d_->cuMemAlloc(&probe, 256) == CUDA_SUCCESS;
    if (probe) d_->cuMemFree(probe);
    if (usable) {
        ctx_ = ctx;
        context_lost_ = false;
        if (compiled_) load(compiled_);
        recovery = "\n  The GPU context was reset (errors like this are sticky: every later call "
                   "in the same context "
                   "would fail); buffers from before are gone.";
    } else {
        (void)reset;
        recovery =
            "\n  The CUDA driver keeps refusing work in this process after this error (it is "
            "sticky for the "
            "whole process); cudalab goes on, and a new run of cudalab can use the GPU again.";
    }
    return Status::error(StatusCode::kernel_fault,
                         cause + recovery +
                             "\n  try: run it on the emulator, which names the line, block and "
                             "thread: --backend emu");
}

Status GpuBackend::load(std::shared_ptr<const compiler::CompileResult> module) {
    if (!module || !module->ok)
        return Status::error(StatusCode::compile_error, "the module did not compile");
    Status s = shadow_.load(module);
    if (!s.ok()) return s;
    d_->cuCtxSetCurrent(ctx_);
    if (module_) {
        d_->cuModuleUnload(module_);
        module_ = nullptr;
    }
    functions_.clear();
    compiled_ = module;
    char log[8192] = {};
    CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void* values[] = {log, reinterpret_cast<void*>(std::uintptr_t(sizeof log))};
    CUresult r = d_->cuModuleLoadDataEx(&module_, module->ptx.c_str(), 2, options, values);
    if (r != CUDA_SUCCESS)
        return Status::error(StatusCode::compile_error, "the driver could not load the PTX for " +
                                                            info_.arch() + ": " +
                                                            d_->error_text(r) + "\n" + log);
    return Status::success();
}

Status GpuBackend::allocate(std::size_t bytes, DevicePtr* out) {
    if (context_lost_)
        return Status::error(
            StatusCode::backend_unavailable,
            "the GPU is unusable in this process after an earlier fault; run cudalab again");
    d_->cuCtxSetCurrent(ctx_);
    Allocation a;
    a.bytes = bytes;
    if (Status s = check(d_->cuMemAlloc(&a.gpu, std::max<std::size_t>(bytes, 1)), "cuMemAlloc");
        !s.ok()) {
        s.code = StatusCode::bad_usage;
        return s;
    }
    Status s = shadow_.allocate(bytes, &a.shadow);
    if (!s.ok()) return s;
    allocations_[a.gpu] = a;
    *out = a.gpu;
    return Status::success();
}

Status GpuBackend::release(DevicePtr ptr) {
    auto it = allocations_.find(ptr);
    if (it == allocations_.end())
        return Status::error(StatusCode::bad_usage,
                             "free of an address that is not a live allocation");
    d_->cuMemFree(it->second.gpu);
    shadow_.release(it->second.shadow);
    allocations_.erase(it);
    return Status::success();
}

Status GpuBackend::copy_to_device(DevicePtr dst, const void* src, std::size_t bytes) {
    if (bytes == 0) return Status::success();
    auto it = allocations_.upper_bound(dst);
    if (it == allocations_.begin())
        return Status::error(StatusCode::bad_usage, "copy to device: not an allocation");
    --it;
    if (dst + bytes > it->first + it->second.bytes)
        return Status::error(StatusCode::bad_usage, "copy to device: past the allocation's end");
    d_->cuCtxSetCurrent(ctx_);
    if (Status s = check(d_->cuMemcpyHtoD(dst, src, bytes), "cuMemcpyHtoD"); !s.ok()) return s;
    return shadow_.copy_to_device(it->second.shadow + (dst - it->first), src, bytes);
}

Status GpuBackend::copy_to_host(void* dst, DevicePtr src, std::size_t bytes) {
    if (bytes == 0) return Status::success();
    d_->cuCtxSetCurrent(ctx_);
    return check(d_->cuMemcpyDtoH(dst, src, bytes), "cuMemcpyDtoH");
}

CUfunction GpuBackend::function(const std::string& entry, Status* status) {
    auto it = functions_.find(entry);
    if (it != functions_.end()) return it->second;
    CUfunction f = nullptr;
    *status = check(d_->cuModuleGetFunction(&f, module_, entry.c_str()),
                    "cuModuleGetFunction(" + entry + ")");
    if (status->ok()) functions_[entry] = f;
    return f;
}

// An 8-byte argument that points into a GPU allocation is translated to the same place in the
// shadow emulator's copy.
std::vector<KernelArg> GpuBackend::to_shadow(const std::vector<KernelArg>& args) const {
    std::vector<KernelArg> out = args;
    for (auto& a : out) {
        if (a.bytes.size() != 8) continue;
        std::uint64_t v;
        std::memcpy(&v, a.bytes.data(), 8);
        auto it = allocations_.upper_bound(v);
        if (it == allocations_.begin()) continue;
        --it;
        if (v >= it->first && v <= it->first + it->second.bytes) {
            std::uint64_t s = it->second.shadow + (v - it->first);
            std::memcpy(a.bytes.data(), &s, 8);
        }
    }
    return out;
}

// Launches and waits, at most timeout_seconds; reports (and survives) sticky errors.
Status GpuBackend::run(CUfunction f, const LaunchConfig& c, std::vector<KernelArg> args,
                       float* milliseconds) {
    std::vector<void*> params;
    for (auto& a : args) params.push_back(a.bytes.data());
    if (c.dynamic_shared_bytes > hw::default_shared_per_block)
        d_->cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                               int(c.dynamic_shared_bytes));
    CUevent start = nullptr, stop = nullptr;
    d_->cuEventCreate(&start, CU_EVENT_DEFAULT);
    d_->cuEventCreate(&stop, CU_EVENT_DEFAULT);
    d_->cuEventRecord(start, nullptr);
    CUresult r = CUDA_SUCCESS;
    if (c.explicit_cluster) {
        // Thread block clusters: cuLaunchKernelEx with the cluster dimension (the shadow
        // emulator ran the same clusters).
        if (!d_->cuLaunchKernelEx) {
            d_->cuEventDestroy(start);
            d_->cuEventDestroy(stop);
            return Status::error(StatusCode::backend_unavailable,
                                 "the CUDA driver lacks cuLaunchKernelEx, which launches with "
                                 "cluster dimensions (CUDA 12 or later)");
        }
        CUlaunchAttribute attr{};
        attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attr.value.clusterDim.x = c.cluster.x;
        attr.value.clusterDim.y = c.cluster.y;
        attr.value.clusterDim.z = c.cluster.z;
        CUlaunchConfig config{};
        config.gridDimX = c.grid.x;
        config.gridDimY = c.grid.y;
        config.gridDimZ = c.grid.z;
        config.blockDimX = c.block.x;
        config.blockDimY = c.block.y;
        config.blockDimZ = c.block.z;
        config.sharedMemBytes = c.dynamic_shared_bytes;
        config.attrs = &attr;
        config.numAttrs = 1;
        if (c.cluster.count() > hw::max_cluster_blocks_portable)
            d_->cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1);
        r = d_->cuLaunchKernelEx(&config, f, params.data(), nullptr);
    } else {
        r = d_->cuLaunchKernel(f, c.grid.x, c.grid.y, c.grid.z, c.block.x, c.block.y, c.block.z,
                               c.dynamic_shared_bytes, nullptr, params.data(), nullptr);
    }
    if (r != CUDA_SUCCESS) {
        d_->cuEventDestroy(start);
        d_->cuEventDestroy(stop);
        Status s =
            Status::error(StatusCode::bad_usage, "the launch was refused: " + d_->error_text(r));
        if (r == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES)
            s.message += "\n  try: fewer threads per block, or fewer registers (__launch_bounds__) "
                         "/ less shared memory";
        return s;
    }
    d_->cuEventRecord(stop, nullptr);
    auto started = std::chrono::steady_clock::now();
    for (;;) {
        r = d_->cuEventQuery(stop);
        if (r != CUDA_ERROR_NOT_READY) break;
        if (std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() >
            timeout_seconds) {
            // A kernel that never finishes cannot be stopped from here; the context reset below
            // waits for the driver to tear it down.
            return rebuild_context("the kernel did not finish within " +
                                   std::to_string(int(timeout_seconds)) +
                                   " s on the GPU (an endless loop or a deadlock?)");
        }
        std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    if (r != CUDA_SUCCESS)
        return rebuild_context("the kernel failed on the GPU: " + d_->error_text(r));
    if (milliseconds) d_->cuEventElapsedTime(milliseconds, start, stop);
    d_->cuEventDestroy(start);
    d_->cuEventDestroy(stop);
    return Status::success();
}

LaunchResult GpuBackend::launch(const std::string& kernel, const LaunchConfig& config,
                                const std::vector<KernelArg>& args,
                                const TraceOptions& trace_options) {
    LaunchResult result;
    if (context_lost_) {
        result.status = Status::error(
            StatusCode::backend_unavailable,
            "the GPU is unusable in this process after an earlier fault; run cudalab again");
        return result;
    }
    if (!compiled_) {
        result.status = Status::error(StatusCode::bad_usage, "no module loaded");
        return result;
    }
    // The shadow run first: the trace for the analysis, and faults found with their source line
    // before the kernel can corrupt the GPU context.
    LaunchResult shadow;
    if (shadow_enabled) shadow = shadow_.launch(kernel, config, to_shadow(args), trace_options);
    if (!shadow.status.ok()) {
        if (shadow.status.code == StatusCode::kernel_fault)
            shadow.status.message += "\n  (found by cudalab's emulator before running on the GPU)";
        return shadow;
    }
    d_->cuCtxSetCurrent(ctx_);
    Status s;
    std::string entry = compiled_->mangled_name(kernel);
    CUfunction f = function(entry, &s);
    if (!s.ok()) {
        result.status = s;
        return result;
    }
    float ms = 0;
    s = run(f, config, args, &ms);
    result = std::move(shadow);
    result.status = s;
    result.stats.seconds = ms / 1000.0;
    // printf_output is the emulator's: the GPU's own printf goes straight to this process's stdout.
    return result;
}

std::optional<Writer> GpuBackend::last_writer(DevicePtr address) const {
    auto it = allocations_.upper_bound(address);
    if (it == allocations_.begin()) return std::nullopt;
    --it;
    if (address >= it->first + it->second.bytes) return std::nullopt;
    return shadow_.last_writer(it->second.shadow + (address - it->first));
}

std::vector<std::string> GpuBackend::compare_with_shadow() {
    std::vector<std::string> out;
    int index = 0;
    for (auto& [gpu, a] : allocations_) {
        ++index;
        if (a.gpu_only) continue;
        std::vector<std::uint8_t> g(a.bytes), e(a.bytes);
        copy_to_host(g.data(), gpu, a.bytes);
        shadow_.copy_to_host(e.data(), a.shadow, a.bytes);
        std::size_t diff = 0;
        for (std::size_t i = 0; i < a.bytes; ++i) diff += g[i] != e[i];
        if (diff)
            out.push_back("allocation " + std::to_string(index) + ": " + std::to_string(diff) +
                          " of " + std::to_string(a.bytes) + " bytes differ");
    }
    return out;
}

TimedResult GpuBackend::time_launch(const std::string& kernel, const LaunchConfig& config,
                                    const std::vector<KernelArg>& args, int warmup, int repeats) {
    TimedResult t;
    d_->cuCtxSetCurrent(ctx_);
    // Timed launches run on the GPU only: their buffers no longer match the shadow emulator's.
    for (const auto& a : args) {
        if (a.bytes.size() != 8) continue;
        std::uint64_t v;
        std::memcpy(&v, a.bytes.data(), 8);
        auto it = allocations_.upper_bound(v);
        if (it != allocations_.begin() && v < std::prev(it)->first + std::prev(it)->second.bytes)
            std::prev(it)->second.gpu_only = true;
    }
    Status s;
    CUfunction f = compiled_ ? function(compiled_->mangled_name(kernel), &s) : nullptr;
    if (!f) {
        t.status = compiled_ ? s : Status::error(StatusCode::bad_usage, "no module loaded");
        return t;
    }
    std::vector<double> samples;
    for (int i = 0; i < warmup + repeats; ++i) {
        float ms = 0;
        s = run(f, config, args, &ms);
        if (!s.ok()) {
            t.status = s;
            return t;
        }
        if (i >= warmup) samples.push_back(ms / 1000.0);
    }
    std::sort(samples.begin(), samples.end());
    t.repeats = int(samples.size());
    if (!samples.empty()) {
        t.median_seconds = samples[samples.size() / 2];
        t.min_seconds = samples.front();
        t.max_seconds = samples.back();
    }
    return t;
}

std::optional<DevicePeakFigures> GpuBackend::device_peak() {
    DevicePeakFigures p;
    p.device = info_.name;
    p.sm_count = info_.sm_count;
    const std::string path = (fs::path(cache_dir()) / ("peak-" + info_.uuid + ".json")).string();
    if (std::ifstream in(path); in) {
        try {
            auto j = nlohmann::json::parse(in);
            p.copy_bytes_per_second = j.at("copy_bytes_per_second");
            p.fma_flops = j.at("fma_flops");
            p.cached = true;
            return p;
        } catch (const std::exception&) {
        }
    }
    // Measure with a module of our own, then put the learner's back.
    compiler::Compiler compiler;
    compiler::CompileOptions o;
    o.arch = info_.arch();
    auto peak = compiler.compile(peak_kernels, "cudalab-peak.cu", o);
    if (!peak->ok) return std::nullopt;
    auto learner = compiled_;
    CUmodule saved = module_;
    module_ = nullptr;
    compiled_ = nullptr;
    functions_.clear();
    CUmodule m = nullptr;
    if (d_->cuModuleLoadDataEx(&m, peak->ptx.c_str(), 0, nullptr, nullptr) != CUDA_SUCCESS) {
        module_ = saved;
        compiled_ = learner;
        return std::nullopt;
    }
    auto fn = [&](const char* name) {
        CUfunction f = nullptr;
        d_->cuModuleGetFunction(&f, m, peak->mangled_name(name).c_str());
        return f;
    };
    // Copy: 1 GiB each way (or a quarter of memory), well past every cache.
    const long long n =
        (long long)std::min<std::size_t>(std::size_t(1) << 30, info_.memory_bytes / 4) / 16;
    CUdeviceptr in = 0, out = 0, small = 0;
    bool ok = d_->cuMemAlloc(&in, std::size_t(n) * 16) == CUDA_SUCCESS &&
              d_->cuMemAlloc(&out, std::size_t(n) * 16) == CUDA_SUCCESS;
    if (ok) {
        d_->cuMemsetD8(in, 0, std::size_t(n) * 16);
        std::vector<KernelArg> a = {KernelArg::of(in), KernelArg::of(out), KernelArg::of(n)};
        LaunchConfig c{Dim3{unsigned(info_.sm_count * 8)}, Dim3{512}, 0};
        std::vector<double> times;
        for (int i = 0; i < 12; ++i) {
            float ms = 0;
            if (!run(fn("peak_copy"), c, a, &ms).ok()) {
                ok = false;
                break;
            }
            if (i >= 2) times.push_back(ms / 1000.0);
        }
        if (ok) {
            std::sort(times.begin(), times.end());
            p.copy_bytes_per_second = double(n) * 32.0 / times[times.size() / 2];
        }
    }
    // FMA: enough blocks to fill every SM several times over.
    if (ok && d_->cuMemAlloc(&small, std::size_t(info_.sm_count) * 16 * 256 * 4) == CUDA_SUCCESS) {
        const int iterations = 4096;
        std::vector<KernelArg> a = {KernelArg::of(small), KernelArg::of(iterations)};
        LaunchConfig c{Dim3{unsigned(info_.sm_count * 16)}, Dim3{256}, 0};
        std::vector<double> times;
        for (int i = 0; i < 7; ++i) {
            float ms = 0;
            if (!run(fn("peak_fma"), c, a, &ms).ok()) {
                ok = false;
                break;
            }
            if (i >= 2) times.push_back(ms / 1000.0);
        }
        if (ok) {
            std::sort(times.begin(), times.end());
            double fmas = double(c.grid.x) * 256.0 * iterations * 8.0;
            p.fma_flops = 2.0 * fmas / times[times.size() / 2];
        }
    }
    if (in) d_->cuMemFree(in);
    if (out) d_->cuMemFree(out);
    if (small) d_->cuMemFree(small);
    d_->cuModuleUnload(m);
    module_ = saved;
    compiled_ = learner;
    if (!ok || p.copy_bytes_per_second <= 0) return std::nullopt;
    nlohmann::json j = {{"device", info_.name},
                        {"uuid", info_.uuid},
                        {"copy_bytes_per_second", p.copy_bytes_per_second},
                        {"fma_flops", p.fma_flops}};
    write_file_atomically(path, j.dump(2) + "\n");
    return p;
}

// cuBLAS, loaded at run time like the driver: a machine with a GPU but no cuBLAS still runs
// everything else. Only the three calls the comparison needs.
TimedResult GpuBackend::time_cublas_sgemm(int n) {
    TimedResult t;
    using Handle = void*;
    static void* lib = nullptr;
    if (!lib) lib = dlopen("libcublas.so.13", RTLD_NOW | RTLD_LOCAL);
    if (!lib) lib = dlopen("libcublas.so.12", RTLD_NOW | RTLD_LOCAL);
    if (!lib) lib = dlopen("libcublas.so", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        t.status =
            Status::error(StatusCode::backend_unavailable, "cuBLAS (libcublas.so) not found");
        return t;
    }
    auto create = reinterpret_cast<int (*)(Handle*)>(dlsym(lib, "cublasCreate_v2"));
    auto destroy = reinterpret_cast<int (*)(Handle)>(dlsym(lib, "cublasDestroy_v2"));
    auto sgemm =
        reinterpret_cast<int (*)(Handle, int, int, int, int, int, const float*, const float*, int,
                                 const float*, int, const float*, float*, int)>(
            dlsym(lib, "cublasSgemm_v2"));
    if (!create || !destroy || !sgemm) {
        t.status = Status::error(StatusCode::backend_unavailable, "cuBLAS lacks cublasSgemm_v2");
        return t;
    }
    d_->cuCtxSetCurrent(ctx_);
    Handle h = nullptr;
    if (create(&h) != 0) {
        t.status = Status::error(StatusCode::backend_unavailable, "cublasCreate failed");
        return t;
    }
    const std::size_t bytes = std::size_t(n) * std::size_t(n) * 4;
    CUdeviceptr a = 0, b = 0, c = 0;
    d_->cuMemAlloc(&a, bytes);
    d_->cuMemAlloc(&b, bytes);
    d_->cuMemAlloc(&c, bytes);
    d_->cuMemsetD8(a, 0, bytes);
    d_->cuMemsetD8(b, 0, bytes);
    const float alpha = 1.f, beta = 0.f;
    CUevent start = nullptr, stop = nullptr;
    d_->cuEventCreate(&start, CU_EVENT_DEFAULT);
    d_->cuEventCreate(&stop, CU_EVENT_DEFAULT);
    std::vector<double> samples;
    for (int i = 0; i < 13; ++i) {
        d_->cuEventRecord(start, nullptr);
        int rc =
            sgemm(h, 0 /* CUBLAS_OP_N */, 0, n, n, n, &alpha, reinterpret_cast<const float*>(a), n,
                  reinterpret_cast<const float*>(b), n, &beta, reinterpret_cast<float*>(c), n);
        d_->cuEventRecord(stop, nullptr);
        d_->cuEventSynchronize(stop);
        float ms = 0;
        d_->cuEventElapsedTime(&ms, start, stop);
        if (rc != 0) {
            t.status = Status::error(StatusCode::kernel_fault,
                                     "cublasSgemm failed (status " + std::to_string(rc) + ")");
            break;
        }
        if (i >= 3) samples.push_back(ms / 1000.0);
    }
    d_->cuEventDestroy(start);
    d_->cuEventDestroy(stop);
    d_->cuMemFree(a);
    d_->cuMemFree(b);
    d_->cuMemFree(c);
    destroy(h);
    if (!t.status.ok() || samples.empty()) return t;
    std::sort(samples.begin(), samples.end());
    t.median_seconds = samples[samples.size() / 2];
    t.min_seconds = samples.front();
    t.max_seconds = samples.back();
    t.repeats = int(samples.size());
    return t;
}

std::optional<int> GpuBackend::max_active_blocks(const std::string& kernel,
                                                 const LaunchConfig& config) {
    if (!compiled_) return std::nullopt;
    d_->cuCtxSetCurrent(ctx_);
    Status s;
    CUfunction f = function(compiled_->mangled_name(kernel), &s);
    if (!f) return std::nullopt;
    int blocks = 0;
    if (d_->cuOccupancyMaxActiveBlocksPerMultiprocessor(
            &blocks, f, int(config.block.count()), config.dynamic_shared_bytes) != CUDA_SUCCESS)
        return std::nullopt;
    return blocks;
}

}  // namespace cudalab::gpu
