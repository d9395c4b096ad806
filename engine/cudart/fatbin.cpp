#include "cudart/fatbin.h"
#include "cudart/device_model.h"
#include "cudart/program_memory.h"
#include "cudart/ptx_link.h"

#include <cstdlib>
#include <cstring>
#include <lz4.h>
#include <zstd.h>

namespace cudalab::cudart {

namespace {

constexpr std::uint32_t wrapper_magic = 0x466243b1;
constexpr std::uint32_t fatbin_magic = 0xBA55ED50;
constexpr std::uint64_t flag_lz4 = 0x2000;
constexpr std::uint64_t flag_zstd = 0x8000;
// No real image is near this size; a larger one means the data is not what we think it is.
constexpr std::uint64_t max_image_bytes = 1ull << 30;

template <class T> T read_at(const std::uint8_t* p, std::size_t offset) {
    T v;
    std::memcpy(&v, p + offset, sizeof v);
    return v;
}

bool decompress(const std::uint8_t* payload, std::uint64_t size, std::uint64_t flags,
                std::uint64_t raw_size, std::string* text, std::string* error) {
    if (raw_size > max_image_bytes) {
        *error = "a PTX image claims " + std::to_string(raw_size) + " bytes uncompressed";
        return false;
    }
    text->assign(raw_size, '\0');
    if (flags & flag_zstd) {
        // The payload is padded to 8 bytes after the frame.
        const std::size_t frame = ZSTD_findFrameCompressedSize(payload, size);
        if (!ZSTD_isError(frame)) size = frame;
        const std::size_t n = ZSTD_decompress(text->data(), raw_size, payload, size);
        if (ZSTD_isError(n)) {
            *error =
                std::string("cannot decompress a PTX image (Zstandard): ") + ZSTD_getErrorName(n);
            return false;
        }
        text->resize(n);
    } else {
        const int n = LZ4_decompress_safe(reinterpret_cast<const char*>(payload), text->data(),
                                          int(size), int(raw_size));
        if (n < 0) {
            *error = "cannot decompress a PTX image (LZ4)";
            return false;
        }
        text->resize(std::size_t(n));
    }
    return true;
}

}  // namespace

bool read_fatbin_data(const void* data, FatbinContents* out, std::string* error) {
    const auto* p = static_cast<const std::uint8_t*>(data);
    if (!p) {
        *error = "no device code (a null image)";
        return false;
    }
    if (read_at<std::uint32_t>(p, 0) != fatbin_magic) {
        // cuModuleLoadData also takes PTX text as it is.
        const char* text = reinterpret_cast<const char*>(p);
        if (std::strstr(text, ".version") || std::strstr(text, ".target")) {
            // The architecture from ".target sm_XY" (0 when there is none).
            std::uint32_t arch = 0;
            if (const char* t = std::strstr(text, ".target")) {
                const char* sm = std::strstr(t, "sm_");
                const char* eol = std::strchr(t, '\n');
                if (sm && (!eol || sm < eol))
                    arch = std::uint32_t(std::strtoul(sm + 3, nullptr, 10));
            }
            out->ptx.push_back({arch, std::string(text)});
            return true;
        }
        if (std::memcmp(p,
                        "\x7f"
                        "ELF",
                        4) == 0) {
            *error = "the image is a cubin (SASS for one GPU); the emulator runs PTX";
            return false;
        }
        *error = "the image is neither a fat binary nor PTX";
        return false;
    }
    const std::uint16_t header_size = read_at<std::uint16_t>(p, 6);
    const std::uint64_t total = read_at<std::uint64_t>(p, 8);
    if (header_size < 16 || total > max_image_bytes) {
        *error = "the fat binary's header is damaged";
        return false;
    }
    std::uint64_t at = header_size;
    const std::uint64_t end = header_size + total;
    while (at + 16 <= end) {
        const std::uint8_t* h = p + at;
        const std::uint16_t kind = read_at<std::uint16_t>(h, 0);
        const std::uint32_t image_header = read_at<std::uint32_t>(h, 4);
        const std::uint64_t size = read_at<std::uint64_t>(h, 8);
        if (image_header < 64 || size > max_image_bytes || at + image_header + size > end) {
            *error = "an image of the fat binary is damaged";
            return false;
        }
        const std::uint32_t arch = read_at<std::uint32_t>(h, 28);
        const std::uint64_t flags = read_at<std::uint64_t>(h, 40);
        const std::uint8_t* payload = h + image_header;
        if (kind == 1) {
            PtxImage image;
            image.arch = arch;
            if (flags & (flag_lz4 | flag_zstd)) {
                const std::uint64_t raw = read_at<std::uint64_t>(h, 56);
                // The compressed length without the padding, where the header gives it.
                const std::uint32_t packed = read_at<std::uint32_t>(h, 16);
                const std::uint64_t length = packed && packed <= size ? packed : size;
                if (!decompress(payload, length, flags, raw, &image.ptx, error)) return false;
            } else {
                image.ptx.assign(reinterpret_cast<const char*>(payload), size);
            }
            // Payloads are padded with zeros.
            if (auto z = image.ptx.find('\0'); z != std::string::npos) image.ptx.resize(z);
            out->ptx.push_back(std::move(image));
        } else if (kind == 2) {
            out->sass_archs.push_back(arch);
        }
        at += image_header + size;
    }
    return true;
}

bool read_fatbin(const void* wrapper, FatbinContents* out, std::string* error) {
    const auto* w = static_cast<const std::uint8_t*>(wrapper);
    if (!w || read_at<std::uint32_t>(w, 0) != wrapper_magic) {
        *error = "the program registered device code cudalab does not recognise (not an nvcc fat "
                 "binary)";
        return false;
    }
    const void* data = read_at<const void*>(w, 8);
    if (!read_fatbin_data(data, out, error)) return false;
    // A program linked with relocatable device code (-rdc) registers nvlink's output, which holds
    // only machine code, with a null-terminated list of each translation unit's own fat binary
    // (in version 2 wrappers): their PTX is joined into one module.
    const auto version = read_at<std::uint32_t>(w, 4);
    const auto* const* prelinked = read_at<const void* const*>(w, 16);
    if (version >= 2 && prelinked) {
        FatbinContents units;
        for (std::size_t i = 0; i < 4096 && prelinked[i]; ++i)
            if (!read_fatbin_data(prelinked[i], &units, error)) return false;
        // One image per unit for the same architecture: the newest the emulated GPU takes.
        std::uint32_t arch = 0;
        for (const auto& p : units.ptx)
            if (int(p.arch) <= device_model().arch() && p.arch > arch) arch = p.arch;
        std::vector<std::string> texts;
        for (const auto& p : units.ptx)
            if (p.arch == arch) texts.push_back(p.ptx);
        if (!texts.empty()) {
            std::string joined = link_ptx(texts, error);
            if (joined.empty()) return false;
            out->ptx.push_back({arch, std::move(joined)});
        }
        for (auto a : units.sass_archs) out->sass_archs.push_back(a);
    }
    return true;
}

bool read_program_fatbin(const void* wrapper, FatbinContents* out, std::string* error) {
    // The wrapper {u32 magic, u32 version, data, prelinked list}, and what it points at, copied
    // out of the program's memory; then read as if it were this process's.
    struct Wrapper {
        std::uint32_t magic, version;
        const void* data;
        const void* const* prelinked;
    } w{};
    if (!wrapper || !program::read(wrapper, &w, sizeof w) || w.magic != wrapper_magic) {
        *error = "the program registered device code cudalab does not recognise (not an nvcc fat "
                 "binary)";
        return false;
    }
    std::vector<std::uint8_t> data;
    if (!program::read_image(w.data, &data, error)) return false;
    std::vector<std::vector<std::uint8_t>> units;
    std::vector<const void*> unit_pointers;
    if (w.version >= 2 && w.prelinked) {
        for (std::size_t i = 0; i < 4096; ++i) {
            const void* unit = nullptr;
            if (!program::read_value(&w.prelinked[i], &unit)) {
                *error = "the fat binary's list of units cannot be read";
                return false;
            }
            if (!unit) break;
            units.emplace_back();
            if (!program::read_image(unit, &units.back(), error)) return false;
        }
        for (const auto& u : units) unit_pointers.push_back(u.data());
        unit_pointers.push_back(nullptr);
    }
    Wrapper local{w.magic, w.version, data.data(),
                  w.version >= 2 && w.prelinked ? unit_pointers.data() : nullptr};
    return read_fatbin(&local, out, error);
}

}  // namespace cudalab::cudart
