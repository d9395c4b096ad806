// Resource usage read from the cubin NVRTC builds for a real architecture (ELF), for when NVRTC's
// log carries no ptxas -v report: that was seen on a GPU machine (CUDA 13.0, driver 580) in
// processes where the CUDA driver had started, and in some processes there without a known cause.
// The cubin holds the register count and frame size per kernel (.nv.info, EIATTR_REGCOUNT and
// EIATTR_FRAME_SIZE), the barrier count (EIATTR_NUM_BARRIERS in .nv.info.<kernel>) and the static
// shared memory (.nv.shared.<kernel>, which on sm_80 and later includes the 1 KB the system
// reserves per block). Spill counts are not in the cubin.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "compiler/compiler.h"

namespace cudalab::compiler {

// Kernel resources by mangled name; empty if the bytes are not a 64-bit ELF cubin.
std::map<std::string, KernelResources> cubin_resources(const std::vector<char>& cubin,
                                                       int sm_version);

}  // namespace cudalab::compiler
