// Until the driver backend lands (issue: real GPUs), the probe answers honestly whether a driver is
// present and that the GPU backend is not built yet, so `--backend gpu` exits 2 with the reason and
// `--backend auto` falls back to the emulator, saying why.
#include "runtime/gpu_probe.h"

#include <dlfcn.h>

namespace cudalab {

std::unique_ptr<Backend> make_gpu_backend(std::string* why_not) {
    void* driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!driver) {
        *why_not = "no CUDA driver (libcuda.so.1 not found)";
        return nullptr;
    }
    dlclose(driver);
    *why_not = "a CUDA driver is present, but this build of cudalab has no GPU backend yet";
    return nullptr;
}

}  // namespace cudalab
