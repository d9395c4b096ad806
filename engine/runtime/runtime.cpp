#include "runtime/runtime.h"

#include <cstdio>

#include "emulator/emu_backend.h"
#include "runtime/gpu_probe.h"

namespace cudalab {

std::string Dim3::str() const {
    char text[48];  // snprintf: GCC 12 warns falsely (-Wrestrict) on the operator+ chain here
    std::snprintf(text, sizeof text, "(%u,%u,%u)", x, y, z);
    return text;
}

Runtime::Runtime(std::unique_ptr<Backend> backend) : backend_(std::move(backend)) {}

Runtime::~Runtime() { release_all(); }

void Runtime::release_all() {
    for (DevicePtr p : allocations_) backend_->release(p);
    allocations_.clear();
}

std::unique_ptr<Backend> make_backend(const std::string& name, Status* status, std::string* note) {
    *status = Status::success();
    if (name == "emu") return std::make_unique<emu::EmuBackend>();
    if (name == "gpu" || name == "auto") {
        std::string why;
        std::unique_ptr<Backend> gpu = make_gpu_backend(&why);
        if (gpu) {
            if (note) *note = "running on " + gpu->description();
            return gpu;
        }
        if (name == "gpu") {
            *status = Status::error(StatusCode::backend_unavailable, "--backend gpu: " + why);
            return nullptr;
        }
        if (note) *note = why + ": using the emulator";
        return std::make_unique<emu::EmuBackend>();
    }
    *status = Status::error(StatusCode::bad_usage, "unknown backend '" + name + "' (use emu, gpu or auto)");
    return nullptr;
}

}  // namespace cudalab
