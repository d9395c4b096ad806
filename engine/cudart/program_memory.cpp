// The program's memory (program_memory.h).
#include "cudart/program_memory.h"

#include <sys/uio.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>

namespace cudalab::cudart::program {

namespace {

struct Shared {
    std::uint8_t* local = nullptr;
    std::uint64_t bytes = 0;
};

std::mutex mutex;
int program_pid = 0;
std::map<std::uint64_t, Shared> shared;  // by the program's address

// Copies in pieces of at most 16 MB, so a huge request fails fast on its first bad page.
bool transfer(void* address, void* local, std::size_t bytes, bool to_program) {
    const int p = pid();
    if (p == 0) {
        if (to_program) std::memmove(address, local, bytes);
        else std::memmove(local, address, bytes);
        return true;
    }
    auto* remote = static_cast<std::uint8_t*>(address);
    auto* mine = static_cast<std::uint8_t*>(local);
    while (bytes) {
        const std::size_t n = std::min<std::size_t>(bytes, 16u << 20);
        iovec l{mine, n}, r{remote, n};
        const ssize_t k = to_program ? ::process_vm_writev(p, &l, 1, &r, 1, 0)
                                     : ::process_vm_readv(p, &l, 1, &r, 1, 0);
        if (k <= 0) return false;
        remote += k;
        mine += k;
        bytes -= std::size_t(k);
    }
    return true;
}

}  // namespace

void attach(int p) {
    std::lock_guard lock(mutex);
    program_pid = p;
}

int pid() {
    std::lock_guard lock(mutex);
    return program_pid;
}

void add_shared(std::uint64_t address, void* local, std::uint64_t bytes) {
    std::lock_guard lock(mutex);
    shared[address] = Shared{static_cast<std::uint8_t*>(local), bytes};
}

void remove_shared(std::uint64_t address) {
    std::lock_guard lock(mutex);
    shared.erase(address);
}

void* local_view(std::uint64_t address, std::uint64_t bytes) {
    std::lock_guard lock(mutex);
    auto it = shared.upper_bound(address);
    if (it == shared.begin()) return nullptr;
    --it;
    if (address < it->first || address + bytes > it->first + it->second.bytes ||
        address + bytes < address)
        return nullptr;
    return it->second.local + (address - it->first);
}

bool read(const void* address, void* out, std::size_t bytes) {
    if (!bytes) return true;
    if (!address) return false;
    const auto a = reinterpret_cast<std::uint64_t>(address);
    if (void* v = local_view(a, bytes)) {
        std::memcpy(out, v, bytes);
        return true;
    }
    return transfer(const_cast<void*>(address), out, bytes, false);
}

bool write(void* address, const void* in, std::size_t bytes) {
    if (!bytes) return true;
    if (!address) return false;
    const auto a = reinterpret_cast<std::uint64_t>(address);
    if (void* v = local_view(a, bytes)) {
        std::memcpy(v, in, bytes);
        return true;
    }
    return transfer(address, const_cast<void*>(in), bytes, true);
}

bool read_string(const char* address, std::string* out, std::size_t limit) {
    out->clear();
    if (!address) return false;
    // A page at a time: the string may end just before an unmapped page.
    char chunk[4096];
    auto at = reinterpret_cast<std::uint64_t>(address);
    while (out->size() < limit) {
        const std::size_t n = 4096 - (at & 4095);
        if (!read(reinterpret_cast<const void*>(at), chunk, n)) return false;
        const void* z = std::memchr(chunk, 0, n);
        if (z) {
            out->append(chunk, static_cast<const char*>(z) - chunk);
            return true;
        }
        out->append(chunk, n);
        at += n;
    }
    return false;
}

bool read_image(const void* address, std::vector<std::uint8_t>* out, std::string* error) {
    std::uint8_t head[64] = {};
    // A PTX text may be shorter than the headers below: read what can be read, a page at a time.
    if (!read(address, head, 16)) {
        *error = "the image's address cannot be read";
        return false;
    }
    std::uint32_t magic = 0;
    std::memcpy(&magic, head, 4);
    std::uint64_t size = 0;
    if (magic == 0xBA55ED50u) {  // a fat binary: 16-byte header, then `total` bytes
        std::uint16_t header = 0;
        std::uint64_t total = 0;
        std::memcpy(&header, head + 6, 2);
        std::memcpy(&total, head + 8, 8);
        size = std::uint64_t(header) + total;
    } else if (std::memcmp(head,
                           "\x7f"
                           "ELF",
                           4) == 0) {
        if (!read(address, head, 64)) {
            *error = "the ELF image is cut short";
            return false;
        }
        std::uint64_t shoff = 0;
        std::uint16_t shentsize = 0, shnum = 0;
        std::memcpy(&shoff, head + 0x28, 8);
        std::memcpy(&shentsize, head + 0x3a, 2);
        std::memcpy(&shnum, head + 0x3c, 2);
        size = shoff + std::uint64_t(shentsize) * shnum;
    } else {
        std::string text;
        if (!read_string(static_cast<const char*>(address), &text, 256u << 20)) {
            *error = "the PTX text cannot be read to its end";
            return false;
        }
        out->assign(text.begin(), text.end());
        out->push_back(0);
        return true;
    }
    if (size > (1ull << 31)) {
        *error = "the image claims to be larger than 2 GB";
        return false;
    }
    out->resize(std::size_t(size));
    if (!read(address, out->data(), out->size())) {
        *error = "the image cannot be read to its end";
        return false;
    }
    return true;
}

}  // namespace cudalab::cudart::program
