#include "emulator/memory.h"

#include <cstring>

namespace cudalab::emu {

std::uint64_t DeviceMemory::allocate(std::uint64_t bytes, std::string label) {
    auto a = std::make_unique<Allocation>();
    a->base = next_;
    a->size = bytes;
    a->data.assign(bytes, 0);
    a->label = std::move(label);
    // Like cudaMalloc: 256-byte aligned, with a gap after each allocation so that running off the
    // end lands in unmapped space and is reported rather than silently hitting a neighbour.
    next_ += (bytes + 255) / 256 * 256 + 4096;
    live_bytes_ += bytes;
    std::uint64_t base = a->base;
    allocations_[base] = std::move(a);
    return base;
}

void DeviceMemory::track_writers() {
    for (auto& [base, a] : allocations_)
        if (!a->freed && a->writer.size() != (a->size + 3) / 4) a->writer.assign((a->size + 3) / 4, 0);
}

std::uint64_t DeviceMemory::shadow_bytes() const {
    std::uint64_t bytes = 0;
    for (const auto& [base, a] : allocations_) bytes += a->writer.size() * sizeof(std::uint32_t);
    return bytes;
}

bool DeviceMemory::release(std::uint64_t base) {
    auto it = allocations_.find(base);
    if (it == allocations_.end() || it->second->freed) return false;
    it->second->freed = true;
    live_bytes_ -= it->second->size;
    it->second->data.clear();
    it->second->data.shrink_to_fit();
    it->second->writer.clear();
    it->second->writer.shrink_to_fit();
    return true;
}

const Allocation* DeviceMemory::find(std::uint64_t address, std::uint64_t bytes) const {
    auto it = allocations_.upper_bound(address);
    if (it == allocations_.begin()) return nullptr;
    --it;
    const Allocation& a = *it->second;
    if (address >= a.base && address + bytes <= a.base + a.size) return &a;
    return nullptr;
}

Allocation* DeviceMemory::find(std::uint64_t address, std::uint64_t bytes) {
    return const_cast<Allocation*>(static_cast<const DeviceMemory*>(this)->find(address, bytes));
}

const Allocation* DeviceMemory::nearest(std::uint64_t address) const {
    const Allocation* best = nullptr;
    std::uint64_t best_distance = ~0ull;
    for (auto& [base, a] : allocations_) {
        std::uint64_t end = a->base + a->size;
        std::uint64_t d = address < a->base ? a->base - address : address >= end ? address - end : 0;
        if (d < best_distance) { best_distance = d; best = a.get(); }
    }
    return best;
}

bool DeviceMemory::copy_in(std::uint64_t dst, const void* src, std::uint64_t bytes) {
    Allocation* a = find(dst, bytes);
    if (!a || a->freed) return false;
    std::memcpy(a->data.data() + (dst - a->base), src, bytes);
    // Host writes clear the writer shadow: the value came from the host, not a thread.
    for (std::uint64_t w = (dst - a->base) / 4; w < (dst - a->base + bytes + 3) / 4 && w < a->writer.size(); ++w)
        a->writer[w] = 0;
    return true;
}

bool DeviceMemory::copy_out(void* dst, std::uint64_t src, std::uint64_t bytes) const {
    const Allocation* a = find(src, bytes);
    if (!a || a->freed) return false;
    std::memcpy(dst, a->data.data() + (src - a->base), bytes);
    return true;
}

}  // namespace cudalab::emu
