// The one door from the runtime to the GPU backend: a GPU backend when a CUDA driver and a device
// are present, or null with the reason ("no CUDA driver (libcuda.so.1 not found)").
#include "runtime/gpu_probe.h"

#include "gpu/gpu_backend.h"

namespace cudalab {

std::unique_ptr<Backend> make_gpu_backend(std::string* why_not) { return gpu::GpuBackend::open(why_not); }

}  // namespace cudalab
