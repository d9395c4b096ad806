#include "emulator/memory.h"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <new>

namespace cudalab::emu {

namespace {
constexpr std::size_t huge_page = 2u << 20;
}

template <class T> T* BufferAllocator<T>::allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < huge_page) return std::allocator<T>().allocate(n);
    const std::size_t rounded = (bytes + huge_page - 1) / huge_page * huge_page;
    void* p = std::aligned_alloc(huge_page, rounded);
    if (!p) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
    ::madvise(p, rounded, MADV_HUGEPAGE);  // a hint: without huge pages it runs as before
#endif
    return static_cast<T*>(p);
}

template <class T> void BufferAllocator<T>::deallocate(T* p, std::size_t n) {
    if (n * sizeof(T) < huge_page) return std::allocator<T>().deallocate(p, n);
    std::free(p);
}

template struct BufferAllocator<std::uint8_t>;

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
        if (!a->freed && a->writer.size() != (a->size + 3) / 4)
            a->writer.assign((a->size + 3) / 4, 0);
}

std::uint64_t DeviceMemory::shadow_bytes() const {
    std::uint64_t bytes = 0;
    for (const auto& [base, a] : allocations_) bytes += a->writer.size() * sizeof(std::uint32_t);
    return bytes;
}

bool DeviceMemory::release(std::uint64_t base) {
    auto it = allocations_.find(base);
    if (it == allocations_.end() || it->second->freed) return false;
    if (it->second->host) return false;  // mapped host memory leaves through unmap_host
    it->second->freed = true;
    live_bytes_ -= it->second->size;
    it->second->data.clear();
    it->second->data.shrink_to_fit();
    it->second->writer.clear();
    it->second->writer.shrink_to_fit();
    return true;
}

bool DeviceMemory::map_host(void* host, std::uint64_t bytes, std::string label, void* local) {
    const std::uint64_t base = reinterpret_cast<std::uintptr_t>(host);
    if (!host || bytes == 0 || base + bytes < base) return false;
    // Overlap with any allocation (live or freed: freed ones keep their range for messages).
    auto it = allocations_.lower_bound(base + bytes);
    if (it != allocations_.begin()) {
        --it;
        if (it->second->base + it->second->size > base) return false;
    }
    auto a = std::make_unique<Allocation>();
    a->base = base;
    a->size = bytes;
    a->host = static_cast<std::uint8_t*>(local ? local : host);
    a->label = std::move(label);
    allocations_[base] = std::move(a);
    return true;
}

bool DeviceMemory::unmap_host(void* host) {
    auto it = allocations_.find(reinterpret_cast<std::uintptr_t>(host));
    if (it == allocations_.end() || !it->second->host) return false;
    allocations_.erase(it);
    return true;
}

std::uint64_t DeviceMemory::device_malloc(std::uint64_t bytes) {
    std::lock_guard lock(heap_mutex_);
    if (!heap_base_) {
        // Allocated here, on a kernel's first malloc: the launch has the memory to itself, since
        // kernels that call malloc run their blocks on one worker (emulator.cpp).
        heap_base_ = allocate(heap_size_, "device malloc heap");
        heap_free_[0] = heap_size_;
    }
    if (bytes == 0) return 0;
    const std::uint64_t need = (bytes + 15) / 16 * 16;
    for (auto it = heap_free_.begin(); it != heap_free_.end(); ++it) {
        if (it->second < need) continue;
        const std::uint64_t offset = it->first, left = it->second - need;
        heap_free_.erase(it);
        if (left) heap_free_[offset + need] = left;
        heap_used_[offset] = need;
        return heap_base_ + offset;
    }
    return 0;
}

bool DeviceMemory::device_free(std::uint64_t address) {
    std::lock_guard lock(heap_mutex_);
    if (!heap_base_ || address < heap_base_) return false;
    auto it = heap_used_.find(address - heap_base_);
    if (it == heap_used_.end()) return false;
    auto [offset, bytes] = *it;
    heap_used_.erase(it);
    auto next = heap_free_.lower_bound(offset);
    if (next != heap_free_.end() && next->first == offset + bytes) {
        bytes += next->second;
        next = heap_free_.erase(next);
    }
    if (next != heap_free_.begin()) {
        auto prev = std::prev(next);
        if (prev->first + prev->second == offset) {
            prev->second += bytes;
            return true;
        }
    }
    heap_free_[offset] = bytes;
    return true;
}

const Allocation* DeviceMemory::find(std::uint64_t address, std::uint64_t bytes) const {
    auto it = allocations_.upper_bound(address);
    if (it == allocations_.begin()) return nullptr;
    --it;
    const Allocation& a = *it->second;
    // (No sum that can wrap: an address near 2^64 plus a few bytes must not pass for one inside.)
    if (address >= a.base && bytes <= a.size && address - a.base <= a.size - bytes) return &a;
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
        std::uint64_t d = address < a->base ? a->base - address
                          : address >= end  ? address - end
                                            : 0;
        if (d < best_distance) {
            best_distance = d;
            best = a.get();
        }
    }
    return best;
}

bool DeviceMemory::copy_in(std::uint64_t dst, const void* src, std::uint64_t bytes) {
    Allocation* a = find(dst, bytes);
    if (!a || a->freed) return false;
    std::memcpy(a->bytes() + (dst - a->base), src, bytes);
    // Host writes clear the writer shadow: the value came from the host, not a thread.
    for (std::uint64_t w = (dst - a->base) / 4;
         w < (dst - a->base + bytes + 3) / 4 && w < a->writer.size(); ++w)
        a->writer[w] = 0;
    return true;
}

bool DeviceMemory::copy_out(void* dst, std::uint64_t src, std::uint64_t bytes) const {
    const Allocation* a = find(src, bytes);
    if (!a || a->freed) return false;
    std::memcpy(dst, a->bytes() + (src - a->base), bytes);
    return true;
}

}  // namespace cudalab::emu
