// Reads just enough of an ELF64 file: program headers (PT_LOAD to map addresses to file offsets,
// PT_DYNAMIC for DT_NEEDED/DT_RUNPATH) and section names. Every offset and size read from the file
// is checked against its length: the file may be anything a learner passes to --exe.
#include "programs/elf_info.h"

#include <cstdint>
#include <elf.h>

#include <cstring>
#include <fstream>
#include <sstream>

namespace cudalab::programs {

namespace {

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// True for NAME.so and NAME.so.<anything>.
bool is_library(const std::string& lib, const std::string& name) {
    std::string base = name + ".so";
    return lib == base || starts_with(lib, (base + ".").c_str());
}

struct Bytes {
    std::string data;
    template <class T> bool read(std::uint64_t off, T* out) const {
        if (off > data.size() || data.size() - off < sizeof(T)) return false;
        std::memcpy(out, data.data() + off, sizeof(T));
        return true;
    }
    bool cstring(std::uint64_t off, std::string* out) const {
        if (off >= data.size()) return false;
        std::size_t end = data.find('\0', off);
        if (end == std::string::npos) return false;
        *out = data.substr(off, end - off);
        return true;
    }
};

}  // namespace

bool ElfInfo::needs_cudart() const {
    for (const auto& n : needed)
        if (is_library(n, "libcudart")) return true;
    return false;
}

bool ElfInfo::needs_cuda_driver() const {
    for (const auto& n : needed)
        if (is_library(n, "libcuda")) return true;
    return false;
}

bool read_elf_info(const std::string& path, ElfInfo* info, std::string* error) {
    *info = ElfInfo{};
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        *error = "cannot open " + path;
        return false;
    }
    char magic[4] = {};
    in.read(magic, 4);
    if (in.gcount() < 4 || std::memcmp(magic, ELFMAG, SELFMAG) != 0) return true;  // not ELF
    info->is_elf = true;
    in.seekg(0);
    // Executables of CUDA programs are a few MB; refuse to slurp something absurd.
    in.seekg(0, std::ios::end);
    std::streamoff size = in.tellg();
    if (size > (std::streamoff(1) << 31)) {
        *error = path + " is larger than 2 GB";
        return false;
    }
    in.seekg(0);
    Bytes f;
    f.data.resize(std::size_t(size));
    in.read(f.data.data(), size);
    if (in.gcount() != size) {
        *error = "cannot read " + path;
        return false;
    }

    Elf64_Ehdr eh;
    if (!f.read(0, &eh)) {
        *error = path + ": truncated ELF header";
        return false;
    }
    info->is_64bit_little_endian =
        eh.e_ident[EI_CLASS] == ELFCLASS64 && eh.e_ident[EI_DATA] == ELFDATA2LSB;
    if (!info->is_64bit_little_endian) return true;  // nothing more is read from other layouts

    // Program headers: the loadable segments and the dynamic one.
    std::vector<Elf64_Phdr> loads;
    Elf64_Phdr dyn{};
    bool have_dyn = false;
    for (unsigned i = 0; i < eh.e_phnum; ++i) {
        Elf64_Phdr ph;
        if (!f.read(eh.e_phoff + std::uint64_t(i) * sizeof(Elf64_Phdr), &ph)) {
            *error = path + ": truncated program headers";
            return false;
        }
        if (ph.p_type == PT_LOAD) loads.push_back(ph);
        if (ph.p_type == PT_DYNAMIC) {
            dyn = ph;
            have_dyn = true;
        }
    }
    auto file_offset = [&](std::uint64_t vaddr, std::uint64_t* off) {
        for (const auto& l : loads)
            if (vaddr >= l.p_vaddr && vaddr - l.p_vaddr < l.p_filesz) {
                *off = l.p_offset + (vaddr - l.p_vaddr);
                return true;
            }
        return false;
    };
    if (have_dyn) {
        info->dynamic = true;
        std::vector<std::uint64_t> needed_offsets;
        std::uint64_t strtab = 0, runpath = ~0ull, rpath = ~0ull;
        bool have_strtab = false;
        for (std::uint64_t at = dyn.p_offset; at + sizeof(Elf64_Dyn) <= dyn.p_offset + dyn.p_filesz;
             at += sizeof(Elf64_Dyn)) {
            Elf64_Dyn d;
            if (!f.read(at, &d)) {
                *error = path + ": truncated dynamic section";
                return false;
            }
            if (d.d_tag == DT_NULL) break;
            if (d.d_tag == DT_NEEDED) needed_offsets.push_back(d.d_un.d_val);
            if (d.d_tag == DT_STRTAB) {
                have_strtab = file_offset(d.d_un.d_ptr, &strtab);
            }
            if (d.d_tag == DT_RUNPATH) runpath = d.d_un.d_val;
            if (d.d_tag == DT_RPATH) rpath = d.d_un.d_val;
        }
        if (!have_strtab && !needed_offsets.empty()) {
            *error = path + ": its dynamic string table is outside its segments";
            return false;
        }
        for (auto o : needed_offsets) {
            std::string name;
            if (!f.cstring(strtab + o, &name)) {
                *error = path + ": a DT_NEEDED name is outside the file";
                return false;
            }
            info->needed.push_back(name);
        }
        std::uint64_t rp = runpath != ~0ull ? runpath : rpath;
        if (rp != ~0ull && have_strtab) f.cstring(strtab + rp, &info->runpath);
    }

    // Section names (optional: a stripped-of-sections file simply has none).
    if (eh.e_shoff != 0 && eh.e_shstrndx != SHN_UNDEF && eh.e_shstrndx < eh.e_shnum) {
        Elf64_Shdr names;
        if (f.read(eh.e_shoff + std::uint64_t(eh.e_shstrndx) * sizeof(Elf64_Shdr), &names)) {
            for (unsigned i = 0; i < eh.e_shnum; ++i) {
                Elf64_Shdr sh;
                if (!f.read(eh.e_shoff + std::uint64_t(i) * sizeof(Elf64_Shdr), &sh)) break;
                std::string name;
                if (!f.cstring(names.sh_offset + sh.sh_name, &name)) continue;
                if (name == ".nv_fatbin" || name == ".nvFatBinSegment")
                    info->has_cuda_fatbin = true;
            }
        }
    }
    return true;
}

}  // namespace cudalab::programs
