#include "backends/factory.h"

#include "emulator/emu_backend.h"
#include "gpu/gpu_backend.h"

namespace cudalab {

std::unique_ptr<Backend> make_gpu_backend(std::string* why_not, const BackendOptions& options) {
    return gpu::GpuBackend::open(why_not, options);
}

std::unique_ptr<Backend> make_backend(const std::string& name, const BackendOptions& options,
                                      Status* status, std::string* note) {
    *status = Status::success();
    if (name == "emu") return std::make_unique<emu::EmuBackend>(options);
    if (name == "gpu" || name == "auto") {
        std::string why;
        std::unique_ptr<Backend> gpu = make_gpu_backend(&why, options);
        if (gpu) {
            if (note) *note = "running on " + gpu->description();
            return gpu;
        }
        if (name == "gpu") {
            *status = Status::error(StatusCode::backend_unavailable, "--backend gpu: " + why);
            return nullptr;
        }
        if (note) *note = why + ": using the emulator";
        return std::make_unique<emu::EmuBackend>(options);
    }
    *status = Status::error(StatusCode::bad_usage,
                            "unknown backend '" + name + "' (use emu, gpu or auto)");
    return nullptr;
}

TimedResult time_reference_sgemm(Backend& backend, int n) {
    // The one capability of a single backend a lesson asks for by name; the Backend interface
    // keeps to the verbs every backend has.
    if (auto* gpu = dynamic_cast<gpu::GpuBackend*>(&backend)) return gpu->time_cublas_sgemm(n);
    TimedResult r;
    r.status = Status::error(StatusCode::backend_unavailable, "cuBLAS needs a GPU (--backend gpu)");
    return r;
}

}  // namespace cudalab
