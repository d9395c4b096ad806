#include "emulator/emu_backend.h"

#include <algorithm>
#include <thread>

#include "compiler/compiler.h"

namespace cudalab::emu {

EmuBackend::EmuBackend(EmulatorOptions options) : emulator_(options) {}

std::string EmuBackend::description() const {
    unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    return "cudalab PTX emulator (" + std::to_string(cores) + " host core" +
           (cores == 1 ? "" : "s") + ")";
}

Status EmuBackend::load(std::shared_ptr<const compiler::CompileResult> module) {
    if (!module || !module->ok)
        return Status::error(StatusCode::compile_error, "the module did not compile");
    module_ = module;
    return emulator_.load(module->ptx, module->source_path);
}

Status EmuBackend::allocate(std::size_t bytes, DevicePtr* out) {
    // The memory limit bounds what the emulator holds in total (the writer shadow of traced
    // launches is checked when a traced launch makes it).
    const std::uint64_t limit = emulator_.options().memory_limit;
    const std::uint64_t used =
        emulator_.memory().bytes_allocated() + emulator_.memory().shadow_bytes();
    if (bytes > limit || bytes > limit - std::min(used, limit)) {
        *out = 0;
        return Status::error(StatusCode::kernel_fault,
                             "memory limit reached: allocating " + std::to_string(bytes) +
                                 " bytes would take the emulator past its " +
                                 std::to_string(limit >> 20) + " MB limit (" +
                                 std::to_string(used >> 20) +
                                 " MB in use); raise it with --memory-limit");
    }
    *out = emulator_.memory().allocate(bytes, "allocation #" + std::to_string(++allocations_));
    return Status::success();
}

Status EmuBackend::release(DevicePtr ptr) {
    if (!emulator_.memory().release(ptr))
        return Status::error(StatusCode::bad_usage,
                             "free of an address that is not a live allocation");
    return Status::success();
}

Status EmuBackend::copy_to_device(DevicePtr dst, const void* src, std::size_t bytes) {
    if (bytes == 0) return Status::success();
    if (!emulator_.memory().copy_in(dst, src, bytes))
        return Status::error(StatusCode::bad_usage,
                             "copy to device: the range is not inside one allocation");
    return Status::success();
}

Status EmuBackend::copy_to_host(void* dst, DevicePtr src, std::size_t bytes) {
    if (bytes == 0) return Status::success();
    if (!emulator_.memory().copy_out(dst, src, bytes))
        return Status::error(StatusCode::bad_usage,
                             "copy to host: the range is not inside one allocation");
    return Status::success();
}

LaunchResult EmuBackend::launch(const std::string& kernel, const LaunchConfig& config,
                                const std::vector<KernelArg>& args,
                                const TraceOptions& trace_options) {
    std::string entry = module_ ? module_->mangled_name(kernel) : std::string();
    if (entry.empty()) {
        LaunchResult r;
        std::string known;
        if (module_)
            for (const auto& k : module_->kernels)
                known += (known.empty() ? "" : ", ") + k.source_name;
        r.status = Status::error(
            StatusCode::bad_usage,
            "no kernel named '" + kernel + "' in " +
                (module_ ? module_->source_path : "the module") +
                (known.empty() ? " (it has no kernels)" : " (it has: " + known + ")") +
                "; keep the kernel's name and parameters as the exercise gave them");
        return r;
    }
    return emulator_.launch(entry, kernel, config, args, trace_options);
}

std::optional<Writer> EmuBackend::last_writer(DevicePtr address) const {
    return emulator_.last_writer(address);
}

}  // namespace cudalab::emu
