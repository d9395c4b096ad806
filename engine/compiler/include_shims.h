// In-memory standard and CUDA headers for NVRTC, which ships none: a kernel file that nvcc accepts
// (#include <cstdint>, <cmath>, <cuda_runtime.h>, ...) must compile here too. The shims are given
// to nvrtcCreateProgram by name, so they take precedence over the toolkit's include directory.
#pragma once

#include <span>

namespace cudalab::compiler {

struct IncludeShim {
    const char* name;  // as written between <> in an #include
    const char* text;
};

// Every shim, each with a comment in its text saying why it looks the way it does.
std::span<const IncludeShim> include_shims();

// The shim pre-included before the learner's file (--pre-include). nvcc force-includes
// cuda_runtime.h, which drags in the host <cmath> and <cstdlib>, so std::sqrt, std::min, INFINITY
// and M_PI work in a .cu file with no #include at all; this gives NVRTC the same starting point.
inline constexpr const char* prelude_shim_name = "__cudalab_prelude.h";

}  // namespace cudalab::compiler
