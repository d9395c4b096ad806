// The one place concrete backends are made. The interface (runtime/backend.h) knows none of them;
// the emulator (emulator/emu_backend.h) and the GPU backend (gpu/gpu_backend.h) are built here,
// each with its options at construction: a check's limits reach every backend, the GPU backend's
// shadow emulator included, and nobody changes them afterwards.
#pragma once

#include <memory>
#include <string>

#include "emulator/emulator.h"
#include "runtime/backend.h"

namespace cudalab {

// What every backend is built with: the emulator's options (the instruction budget, the memory,
// printf and time limits, which buffers a launch may touch). The emulator backend runs under them;
// the GPU backend's shadow emulator, which runs every launch first, runs under them too.
using BackendOptions = emu::EmulatorOptions;

// Picks a backend by name: "emu", "gpu" or "auto" (GPU when a driver and device exist, else the
// emulator). `note` receives a one-line explanation of the choice ("no CUDA driver: using the
// emulator"). Returns null with `status` set when the named backend is unavailable.
std::unique_ptr<Backend> make_backend(const std::string& name, const BackendOptions& options,
                                      Status* status, std::string* note);

// A GPU backend when a CUDA driver and a device are present, or null with the reason ("no CUDA
// driver (libcuda.so.1 not found)").
std::unique_ptr<Backend> make_gpu_backend(std::string* why_not, const BackendOptions& options = {});

// cuBLAS SGEMM (C = A * B, n x n, column-major) timed on the backend's device: the peer lesson 08
// measures a hand-written matrix multiply against. backend_unavailable on anything but a GPU.
TimedResult time_reference_sgemm(Backend& backend, int n);

}  // namespace cudalab
