// The PTX behind a cubin NVRTC compiled in this process (nvrtc_cubin.cpp), for cuModuleLoadData.
#pragma once

#include <string>

namespace cudalab::cudart {

// The PTX of the NVRTC program whose cubin (nvrtcGetCUBIN) has the bytes at `image`, or null when
// `image` is no such cubin.
const std::string* ptx_of_nvrtc_cubin(const void* image);

}  // namespace cudalab::cudart
