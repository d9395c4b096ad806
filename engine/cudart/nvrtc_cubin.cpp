// Programs that compile with NVRTC for a real GPU (--gpu-architecture=sm_90, as the CUDA samples'
// nvrtc_helper.h does) load a cubin of machine code, which the emulator cannot run. NVRTC made PTX
// on the way to it: this file wraps nvrtcGetCUBIN (the runtime library is preloaded, so its
// definition comes before libnvrtc's), returns NVRTC's cubin unchanged and remembers the same
// program's PTX under the cubin's bytes; cuModuleLoadData of that cubin then loads the PTX
// (api_driver.cpp). The real NVRTC is found with dlsym(RTLD_NEXT): the program linked it, cudalab
// does not.
#include <cstdint>
#include <cstring>
#include <dlfcn.h>
#include <mutex>
#include <nvrtc.h>
#include <string>
#include <vector>

#include "cudart/nvrtc_cubin.h"
#include "cudart/program_memory.h"

namespace cudalab::cudart {
namespace {

struct Remembered {
    std::vector<char> cubin;
    std::string ptx;
};

std::mutex& registry_mutex() {
    static std::mutex m;
    return m;
}
std::vector<Remembered>& registry() {
    static std::vector<Remembered> r;
    return r;
}

// The bytes of an ELF64 file its header accounts for, up to the end of the section header table
// (NVRTC's cubin may be padded after it). 0 when `image` is no ELF64 file.
std::size_t elf_size(const void* image) {
    const auto* b = static_cast<const unsigned char*>(image);
    if (std::memcmp(b,
                    "\x7f"
                    "ELF",
                    4) != 0 ||
        b[4] != 2)
        return 0;  // ELFCLASS64
    std::uint64_t shoff;
    std::uint16_t shentsize, shnum;
    std::memcpy(&shoff, b + 0x28, 8);
    std::memcpy(&shentsize, b + 0x3a, 2);
    std::memcpy(&shnum, b + 0x3c, 2);
    return std::size_t(shoff + std::uint64_t(shentsize) * shnum);
}

}  // namespace

const std::string* ptx_of_nvrtc_cubin(const void* image) {
    const std::size_t size = elf_size(image);
    if (size == 0) return nullptr;
    std::lock_guard lock(registry_mutex());
    for (const Remembered& r : registry())
        if (r.cubin.size() >= size && std::memcmp(r.cubin.data(), image, size) == 0) return &r.ptx;
    return nullptr;
}

}  // namespace cudalab::cudart

extern "C" {

// The program's CUDA library wraps nvrtcGetCUBIN (engine/client) and sends each cubin NVRTC makes
// with the PTX NVRTC made on the way; cuModuleLoadData of that cubin then loads the PTX.
void __cudalabRememberNvrtcCubin(const void* cubin, size_t size, const char* ptx) {
    using namespace cudalab::cudart;
    if (!cubin || !ptx || size == 0 || size > (256u << 20)) return;
    Remembered r;
    r.cubin.resize(size);
    if (!program::read(cubin, r.cubin.data(), size)) return;
    r.ptx = ptx;
    std::lock_guard lock(registry_mutex());
    registry().push_back(std::move(r));
}

}  // extern "C"
