// The one door to the GPU backend from the runtime: returns a GPU backend when a CUDA driver and a
// device are present, or null with the reason ("no CUDA driver (libcuda.so.1 not found)").
#pragma once

#include <memory>
#include <string>

#include "runtime/backend.h"

namespace cudalab {

std::unique_ptr<Backend> make_gpu_backend(std::string* why_not);

}  // namespace cudalab
