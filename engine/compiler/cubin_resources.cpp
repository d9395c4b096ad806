#include "compiler/cubin_resources.h"

#include <cstring>
#include <elf.h>

namespace cudalab::compiler {

namespace {

// .nv.info attribute records: format byte, attribute byte, then a 16-bit size (EIFMT_SVAL, a
// payload follows) or a 16-bit value (EIFMT_HVAL), or a byte value (EIFMT_BVAL).
constexpr unsigned char fmt_bval = 2, fmt_hval = 3, fmt_sval = 4, fmt_nval = 1;
constexpr unsigned char attr_frame_size = 0x11, attr_regcount = 0x2f, attr_num_barriers = 0x4c;

template <class F> void for_each_attribute(const unsigned char* p, const unsigned char* end, F f) {
    while (p + 4 <= end) {
        const unsigned char fmt = p[0], attr = p[1];
        const unsigned value16 = unsigned(p[2]) | unsigned(p[3]) << 8;
        if (fmt == fmt_sval) {
            if (p + 4 + value16 > end) return;
            f(attr, p + 4, value16, 0u);
            p += 4 + value16;
        } else if (fmt == fmt_hval || fmt == fmt_bval || fmt == fmt_nval) {
            f(attr, nullptr, 0u, fmt == fmt_bval ? unsigned(p[2]) : value16);
            p += 4;
        } else {
            return;
        }
    }
}

std::uint32_t u32(const unsigned char* p) {
    std::uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

}  // namespace

std::map<std::string, KernelResources> cubin_resources(const std::vector<char>& cubin,
                                                       int sm_version) {
    std::map<std::string, KernelResources> out;
    if (cubin.size() < sizeof(Elf64_Ehdr) || std::memcmp(cubin.data(), ELFMAG, SELFMAG) != 0)
        return out;
    const char* base = cubin.data();
    Elf64_Ehdr eh;
    std::memcpy(&eh, base, sizeof eh);
    if (eh.e_ident[EI_CLASS] != ELFCLASS64 ||
        eh.e_shoff + std::uint64_t(eh.e_shnum) * sizeof(Elf64_Shdr) > cubin.size() ||
        eh.e_shstrndx >= eh.e_shnum)
        return out;
    std::vector<Elf64_Shdr> sections(eh.e_shnum);
    std::memcpy(sections.data(), base + eh.e_shoff, sections.size() * sizeof(Elf64_Shdr));
    auto in_bounds = [&](const Elf64_Shdr& s) {
        return s.sh_type == SHT_NOBITS || s.sh_offset + s.sh_size <= cubin.size();
    };
    for (const auto& s : sections)
        if (!in_bounds(s)) return out;
    const Elf64_Shdr& names = sections[eh.e_shstrndx];
    auto section_name = [&](const Elf64_Shdr& s) -> std::string {
        if (s.sh_name >= names.sh_size) return {};
        const char* n = base + names.sh_offset + s.sh_name;
        return std::string(n, strnlen(n, names.sh_size - s.sh_name));
    };
    // Symbol index -> name (the .nv.info records name kernels by symbol index).
    std::vector<std::string> symbols;
    for (const auto& s : sections) {
        if (s.sh_type != SHT_SYMTAB || s.sh_link >= sections.size()) continue;
        const Elf64_Shdr& strtab = sections[s.sh_link];
        for (std::uint64_t off = 0; off + sizeof(Elf64_Sym) <= s.sh_size;
             off += sizeof(Elf64_Sym)) {
            Elf64_Sym sym;
            std::memcpy(&sym, base + s.sh_offset + off, sizeof sym);
            std::string n;
            if (sym.st_name < strtab.sh_size) {
                const char* p = base + strtab.sh_offset + sym.st_name;
                n.assign(p, strnlen(p, strtab.sh_size - sym.st_name));
            }
            symbols.push_back(n);
        }
    }
    auto kernel = [&](const std::string& mangled) -> KernelResources& {
        KernelResources& k = out[mangled];
        k.mangled_name = mangled;
        return k;
    };
    for (const auto& s : sections) {
        const std::string n = section_name(s);
        const auto* p = reinterpret_cast<const unsigned char*>(base + s.sh_offset);
        if (n == ".nv.info") {
            for_each_attribute(
                p, p + s.sh_size,
                [&](unsigned char attr, const unsigned char* payload, unsigned size, unsigned) {
                    if (!payload || size < 8) return;
                    const std::uint32_t sym = u32(payload), value = u32(payload + 4);
                    if (sym >= symbols.size() || symbols[sym].empty()) return;
                    if (attr == attr_regcount) kernel(symbols[sym]).registers = int(value);
                    if (attr == attr_frame_size)
                        kernel(symbols[sym]).stack_frame_bytes = int(value);
                });
        } else if (n.rfind(".nv.info.", 0) == 0) {
            const std::string mangled = n.substr(9);
            for_each_attribute(
                p, p + s.sh_size,
                [&](unsigned char attr, const unsigned char*, unsigned, unsigned value) {
                    if (attr == attr_num_barriers) kernel(mangled).barriers = int(value);
                });
        } else if (n.rfind(".nv.shared.", 0) == 0 && n.rfind(".nv.shared.reserved", 0) != 0) {
            // The section includes the system's reservation on cc >= 8.0 (1 KB per block).
            const std::uint64_t reserved = sm_version >= 80 ? 1024 : 0;
            kernel(n.substr(11)).static_shared_bytes =
                int(s.sh_size >= reserved ? s.sh_size - reserved : s.sh_size);
        }
    }
    return out;
}

}  // namespace cudalab::compiler
