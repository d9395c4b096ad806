// Device memory as the emulator models it: allocations in one 64-bit address space, every access
// bounds-checked, with a shadow that remembers which thread stored each 4-byte word last (so a
// wrong element can be traced to the thread that wrote it).
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "emulator/texture.h"

namespace cudalab::emu {

// Where each state space lives in the generic address space. Global allocations start at
// global_base (addresses look like a GPU's); the shared and local windows are per block / per
// thread, as cvta maps them on the hardware.
inline constexpr std::uint64_t global_base = 0x7000'0000'0000ull;
inline constexpr std::uint64_t shared_window = 0x1000'0000'0000ull;
inline constexpr std::uint64_t local_window = 0x2000'0000'0000ull;
inline constexpr std::uint64_t const_window = 0x3000'0000'0000ull;
inline constexpr std::uint64_t window_size = 0x0100'0000'0000ull;

// The host storage of device buffers. Buffers of 2 MB and more are 2 MB aligned and asked to be
// backed by the kernel's huge pages (madvise, where transparent huge pages are on madvise, as on
// Debian): a kernel streaming over a few megabytes otherwise spends a tenth of its time on
// address-translation misses, one per 4 KB page (SAXPY over 1 M floats: 8-10 %).
template <class T> struct BufferAllocator {
    using value_type = T;
    BufferAllocator() = default;
    template <class U> BufferAllocator(const BufferAllocator<U>&) {}
    T* allocate(std::size_t n);
    void deallocate(T* p, std::size_t n);
    template <class U> bool operator==(const BufferAllocator<U>&) const { return true; }
};

struct Allocation {
    std::uint64_t base = 0;
    std::uint64_t size = 0;
    std::vector<std::uint8_t, BufferAllocator<std::uint8_t>>
        data;  // the bytes, unless the allocation is host memory
    // Host memory the device reaches at its own address (mapped pinned memory, registered host
    // memory, managed memory: the CUDA runtime's unified addressing). Not owned: the runtime
    // that mapped it frees it.
    std::uint8_t* host = nullptr;
    std::uint8_t* bytes() { return host ? host : data.data(); }
    const std::uint8_t* bytes() const { return host ? host : data.data(); }
    std::vector<std::uint32_t> writer;  // per 4-byte word: linear global thread id + 1 (0: host);
                                        // empty until a traced launch (DeviceMemory::track_writers)
    std::string label;                  // "argument 2", "global $str", ...
    bool freed = false;
};

class DeviceMemory {
  public:
    // Returns the base address; never 0.
    std::uint64_t allocate(std::uint64_t bytes, std::string label = {});
    bool release(std::uint64_t base);  // false if not the base of a live allocation
    // Host memory [host, host+bytes) made reachable by kernels at the same address. False when the
    // range overlaps device memory or another mapping.
    // `local`: where this process reaches those bytes, when not at `host` itself (the emulated
    // runtime's device process holds a program's registered memory mapped at another address).
    bool map_host(void* host, std::uint64_t bytes, std::string label = {}, void* local = nullptr);
    bool unmap_host(void* host);
    // The heap of device-side malloc(): one allocation, carved up by device_malloc (first fit).
    // Sized on first use (cudaLimitMallocHeapSize, 8 MB by default as on a GPU).
    void set_heap_size(std::uint64_t bytes) { heap_size_ = bytes; }
    std::uint64_t device_malloc(std::uint64_t bytes);  // 0 when the heap is full
    bool device_free(std::uint64_t address);           // false: not a live heap block
    // The allocation holding [address, address+bytes), or null. `freed` allocations are returned
    // (so a use-after-free can be named) with freed set.
    Allocation* find(std::uint64_t address, std::uint64_t bytes = 1);
    const Allocation* find(std::uint64_t address, std::uint64_t bytes = 1) const;
    // Nearest allocation to an address (for "N bytes past the end of ..." messages).
    const Allocation* nearest(std::uint64_t address) const;
    bool copy_in(std::uint64_t dst, const void* src, std::uint64_t bytes);
    bool copy_out(void* dst, std::uint64_t src, std::uint64_t bytes) const;
    std::uint64_t bytes_allocated() const { return live_bytes_; }
    // The writer shadow exists only while writers are tracked (traced launches): an untraced run
    // holds a buffer's bytes once. Sizes every live allocation's shadow (zero: the host wrote it).
    void track_writers();
    // Bytes of the live allocations' shadows (what track_writers() has made so far).
    std::uint64_t shadow_bytes() const;
    // The texture and surface objects whose texels live in this memory (CUDA arrays are device
    // allocations too): the emulated runtime creates them, tex/suld/sust find them by handle.
    TextureRegistry& textures() { return textures_; }

  private:
    TextureRegistry textures_;
    std::map<std::uint64_t, std::unique_ptr<Allocation>> allocations_;  // by base
    std::uint64_t next_ = global_base;
    std::uint64_t live_bytes_ = 0;
    std::uint64_t heap_size_ = 8ull << 20;
    std::uint64_t heap_base_ = 0;
    std::map<std::uint64_t, std::uint64_t> heap_free_;  // offset -> bytes
    std::map<std::uint64_t, std::uint64_t> heap_used_;  // offset -> bytes
    std::mutex heap_mutex_;
};

}  // namespace cudalab::emu
