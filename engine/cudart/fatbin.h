// The device code nvcc embeds in a host program: a fat binary (one or more images per target)
// behind the wrapper that __cudaRegisterFatBinary receives. cudalab runs PTX, so it reads the PTX
// images and ignores the SASS (ELF) ones.
//
// Layout (as nvcc 12-13 write it, little-endian): a 16-byte header {u32 magic 0xBA55ED50, u16
// version, u16 header size, u64 size of what follows}, then images, each a header {u16 kind (1 PTX,
// 2 ELF), u16 version, u32 header size, u64 payload size, ..., u32 arch (75, 90, ...), ...,
// u64 flags (0x2000 LZ4, 0x8000 Zstandard), ..., u64 uncompressed size} and its payload.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cudalab::cudart {

struct PtxImage {
    std::uint32_t arch = 0;  // compute capability as nvcc writes it: 90 for compute_90
    std::string ptx;
};

struct FatbinContents {
    std::vector<PtxImage> ptx;
    std::vector<std::uint32_t> sass_archs;  // ELF images present (for the error when no PTX is)
};

// Reads the images of the fat binary behind `wrapper` (the __fatBinC_Wrapper_t nvcc emits).
// Returns false with `error` set when the data is not a fat binary cudalab understands.
bool read_fatbin(const void* wrapper, FatbinContents* out, std::string* error);

// The same, for a fat binary (or a bare PTX text) given by address, as cuModuleLoadData takes it.
bool read_fatbin_data(const void* data, FatbinContents* out, std::string* error);

// The same for a wrapper in the program's memory (program_memory.h).
bool read_program_fatbin(const void* wrapper, FatbinContents* out, std::string* error);

}  // namespace cudalab::cudart
