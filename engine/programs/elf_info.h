// What an executable links: read from its ELF dynamic section and section names, without loading
// it. `cudalab run --exe` uses it to tell a program linked with the shared CUDA runtime (which the
// emulated libcudart.so.13 can replace) from one with the static runtime (which it cannot).
#pragma once

#include <string>
#include <vector>

namespace cudalab::programs {

struct ElfInfo {
    bool is_elf = false;
    bool is_64bit_little_endian = false;
    bool dynamic = false;             // has a PT_DYNAMIC segment
    std::vector<std::string> needed;  // DT_NEEDED, in order
    std::string runpath;              // DT_RUNPATH or DT_RPATH
    bool has_cuda_fatbin = false;     // a .nv_fatbin or .nvFatBinSegment section: nvcc device code
    bool needs_cudart() const;        // libcudart.so[.N] among DT_NEEDED
    bool needs_cuda_driver() const;   // libcuda.so[.N] among DT_NEEDED
};

// Reads `path`. Returns false with *error set when the file cannot be read or is a malformed ELF;
// a file that is not ELF at all (a script) returns true with is_elf = false.
bool read_elf_info(const std::string& path, ElfInfo* info, std::string* error);

}  // namespace cudalab::programs
