// The driver API's virtual memory management (cuMemCreate, cuMemAddressReserve, cuMemMap,
// cuMemSetAccess, ...): physical allocations, ranges of device addresses, and mappings of the one
// into the other, with access given per device.
//
// As on a GPU, physical memory and addresses are separate things here. A physical allocation is
// a memory file of this process; a reservation is a range of emulated device addresses backed by
// a range of this process's address space of the same size, where each cuMemMap maps the
// allocation's file (so two mappings of one allocation are the same bytes, as on a GPU). Kernels
// and copies reach a mapped range only once cuMemSetAccess has given a device access to it: until
// then it is in no allocation the emulator knows, and a kernel touching it faults with a note
// saying why (fault_note). Each stretch of adjacent mapped-and-accessible memory is one
// allocation of the emulator (and one MemoryRecord), so a copy may cross from one mapping into
// the next, as it may on a GPU.
//
// What the emulator does not enforce: read-only access (CU_MEM_ACCESS_FLAGS_PROT_READ is kept and
// answered by cuMemGetAccess, but a kernel's writes still land), and access per device (memory
// any device may access is reachable by every device's kernels). Both are said once when used.
#include <cuda.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <memory>
#include <regex>

#include "cudart/api.h"
#include "cudart/vmm.h"

using namespace cudalab;
using namespace cudalab::cudart;

namespace {

// The granularity an H100/H200 reports for device memory, minimum and recommended alike (probed:
// docs/measurements/driver-apis-h100.md).
constexpr std::uint64_t granularity = 2ull << 20;
// Reserved ranges come from here: above every address the program or the emulator otherwise uses
// (the program's own mappings sit below 0x8000'0000'0000 too, but never in this window: the device
// process hands these addresses out and nothing maps them in the program).
constexpr std::uint64_t va_first = 0x6000'0000'0000ull;
constexpr std::uint64_t va_last = 0x6f00'0000'0000ull;
constexpr int max_devices = 16;

struct Physical {
    std::uint64_t size = 0;
    int device = 0;
    CUmemAllocationProp prop{};
    int fd = -1;
    int handle_refs = 1;  // cuMemCreate and cuMemRetainAllocationHandle; cuMemRelease drops one
    int mappings = 0;     // the memory lives while either count is above zero
};

struct Mapping {
    std::uint64_t size = 0;
    Physical* physical = nullptr;
    std::uint8_t access[max_devices] = {};  // CUmemAccess_flags per device
    bool accessible() const {
        for (std::uint8_t a : access)
            if (a) return true;
        return false;
    }
};

struct Reservation {
    std::uint64_t size = 0;
    std::uint8_t* local = nullptr;            // this process's view of the range
    std::map<std::uint64_t, Mapping> mapped;  // by offset
    std::vector<std::uint64_t> exposed;       // offsets of the emulator allocations made
};

std::map<std::uint64_t, std::unique_ptr<Physical>> physicals;  // by handle
std::map<std::uint64_t, Reservation> reservations;             // by base address
std::uint64_t next_address = va_first;
std::uint64_t next_handle = 0x1000;
std::uint64_t physical_bytes = 0;

bool aligned(std::uint64_t v) { return v % granularity == 0; }

Physical* physical_of(CUmemGenericAllocationHandle h) {
    auto it = physicals.find(h);
    return it == physicals.end() || it->second->handle_refs <= 0 ? nullptr : it->second.get();
}

void drop_if_unused(std::uint64_t handle) {
    auto it = physicals.find(handle);
    if (it == physicals.end() || it->second->handle_refs > 0 || it->second->mappings > 0) return;
    physical_bytes -= it->second->size;
    ::close(it->second->fd);
    physicals.erase(it);
}

std::uint64_t handle_of(const Physical* p) {
    for (const auto& [h, q] : physicals)
        if (q.get() == p) return h;
    return 0;
}

// The reservation holding [address, address + bytes), or null.
std::pair<const std::uint64_t, Reservation>* reservation_of(std::uint64_t address,
                                                            std::uint64_t bytes = 1) {
    auto it = reservations.upper_bound(address);
    if (it == reservations.begin()) return nullptr;
    --it;
    if (address < it->first || address - it->first + bytes > it->second.size) return nullptr;
    return &*it;
}

// The mapping holding `address` in a reservation, or null.
std::pair<const std::uint64_t, Mapping>* mapping_at(Reservation& r, std::uint64_t offset) {
    auto it = r.mapped.upper_bound(offset);
    if (it == r.mapped.begin()) return nullptr;
    --it;
    return offset < it->first + it->second.size ? &*it : nullptr;
}

// The mappings that exactly tile [offset, offset + bytes), or empty when some part of the range
// is unmapped or a mapping sticks out of it.
std::vector<Mapping*> tiling(Reservation& r, std::uint64_t offset, std::uint64_t bytes) {
    std::vector<Mapping*> out;
    std::uint64_t at = offset;
    while (at < offset + bytes) {
        auto it = r.mapped.find(at);
        if (it == r.mapped.end() || at + it->second.size > offset + bytes) return {};
        out.push_back(&it->second);
        at += it->second.size;
    }
    return out;
}

// Makes what the emulator reaches of a reservation match its mappings and their access: each
// stretch of adjacent accessible mappings is one emulator allocation at its device address,
// backed by the reservation's view here.
void refresh(std::uint64_t base, Reservation& r) {
    Runtime& rt = Runtime::get();
    for (std::uint64_t offset : r.exposed) {
        rt.memory->unmap_host(reinterpret_cast<void*>(base + offset));
        rt.allocations.erase(base + offset);
    }
    r.exposed.clear();
    auto it = r.mapped.begin();
    while (it != r.mapped.end()) {
        if (!it->second.accessible()) {
            ++it;
            continue;
        }
        const std::uint64_t start = it->first;
        const int device = it->second.physical->device;
        std::uint64_t end = start + it->second.size;
        for (++it; it != r.mapped.end() && it->first == end && it->second.accessible(); ++it)
            end += it->second.size;
        const std::uint64_t address = base + start;
        if (!rt.memory->map_host(reinterpret_cast<void*>(address), end - start, "cuMemMap'd memory",
                                 r.local + start))
            continue;
        MemoryRecord rec;
        // Device memory for copies, launches and cudaMemGetInfo (the pool kind: not a leak at
        // exit, not cudaFree'd; cuMemUnmap and cuMemRelease give it back).
        rec.kind = MemoryKind::pool;
        rec.device = device;
        rec.base = address;
        rec.size = end - start;
        rec.allocated_at = CallStack::here();
        rt.allocations[address] = std::move(rec);
        rt.ordering.forget(address, address + (end - start));
        r.exposed.push_back(start);
    }
}

bool valid_device_location(const CUmemLocation& l) {
    return l.type == CU_MEM_LOCATION_TYPE_DEVICE && l.id >= 0 &&
           l.id < Runtime::get().device_count && l.id < max_devices;
}

CUresult gate() {
    if (!driver_ready()) return CUDA_ERROR_NOT_INITIALIZED;
    return CUDA_SUCCESS;
}

}  // namespace

namespace cudalab::cudart::vmm {

bool owns(std::uint64_t address) { return reservation_of(address) != nullptr; }

bool facts(std::uint64_t address, int device, Facts* out) {
    auto* r = reservation_of(address);
    if (!r) return false;
    auto* m = mapping_at(r->second, address - r->first);
    if (!m) return false;
    out->mapping_base = r->first + m->first;
    out->mapping_size = m->second.size;
    out->device = m->second.physical->device;
    out->handle_types = m->second.physical->prop.requestedHandleTypes;
    out->access = device >= 0 && device < max_devices ? m->second.access[device] : 0;
    return true;
}

std::string fault_note(const std::string& message) {
    static const std::regex hex_address("0x[0-9a-fA-F]{6,16}");
    for (auto it = std::sregex_iterator(message.begin(), message.end(), hex_address);
         it != std::sregex_iterator(); ++it) {
        const std::uint64_t a = std::stoull(it->str(), nullptr, 16);
        auto* r = reservation_of(a);
        if (!r) continue;
        auto* m = mapping_at(r->second, a - r->first);
        if (!m)
            return "\n  note: " + it->str() +
                   " is in a range reserved with cuMemAddressReserve, but no memory is mapped "
                   "there (cuMemMap a cuMemCreate'd allocation to it first; or it was "
                   "cuMemUnmap'd)";
        if (!m->second.accessible())
            return "\n  note: " + it->str() +
                   " is mapped with cuMemMap, but no device has been given access to it: call "
                   "cuMemSetAccess on the range (CU_MEM_ACCESS_FLAGS_PROT_READWRITE for this "
                   "device) before using it; a GPU reports such an access as an illegal address";
    }
    return "";
}

}  // namespace cudalab::cudart::vmm

extern "C" {

CUresult cuMemGetAllocationGranularity(size_t* granularity_out, const CUmemAllocationProp* prop,
                                       CUmemAllocationGranularity_flags option) {
    CUDALAB_API("cuMemGetAllocationGranularity");
    if (CUresult e = gate()) return e;
    if (!granularity_out || !prop) return CUDA_ERROR_INVALID_VALUE;
    if (option != CU_MEM_ALLOC_GRANULARITY_MINIMUM &&
        option != CU_MEM_ALLOC_GRANULARITY_RECOMMENDED)
        return CUDA_ERROR_INVALID_VALUE;
    // The H100 answers 2 MiB for either option, whatever the properties name.
    *granularity_out = granularity;
    return CUDA_SUCCESS;
}

CUresult cuMemCreate(CUmemGenericAllocationHandle* handle, size_t size,
                     const CUmemAllocationProp* prop, unsigned long long flags) {
    CUDALAB_API("cuMemCreate");
    if (CUresult e = gate()) return e;
    if (!handle || !prop || flags || size == 0 || !aligned(size) ||
        prop->type != CU_MEM_ALLOCATION_TYPE_PINNED)
        return CUDA_ERROR_INVALID_VALUE;
    if (prop->location.type != CU_MEM_LOCATION_TYPE_DEVICE) {
        if (prop->location.type == CU_MEM_LOCATION_TYPE_HOST ||
            prop->location.type == CU_MEM_LOCATION_TYPE_HOST_NUMA)
            return CUresult(not_supported("cuMemCreate", "physical memory on the host"));
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (!valid_device_location(prop->location)) return CUDA_ERROR_INVALID_VALUE;
    std::uint64_t live = physical_bytes;
    for (const auto& [b, r] : rt.allocations)
        if (r.kind == MemoryKind::device) live += r.size;
    if (live + size > rt.model.global_memory) return CUDA_ERROR_OUT_OF_MEMORY;
    if (live + size > rt.memory_limit) {
        rt.warn("cuMemCreate: " + std::to_string(size) +
                " more bytes would take emulated device memory past " +
                std::to_string(rt.memory_limit >> 20) +
                " MB, the most this machine lends it (CUDALAB_MEMORY_LIMIT, in MB)");
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    const int fd = ::memfd_create("cudalab-cuMemCreate", MFD_CLOEXEC);
    if (fd < 0 || ::ftruncate(fd, off_t(size)) != 0) {
        if (fd >= 0) ::close(fd);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    auto p = std::make_unique<Physical>();
    p->size = size;
    p->device = prop->location.id;
    p->prop = *prop;
    p->fd = fd;
    const std::uint64_t h = next_handle;
    next_handle += 0x10;
    physicals[h] = std::move(p);
    physical_bytes += size;
    *handle = h;
    return CUDA_SUCCESS;
}

CUresult cuMemRelease(CUmemGenericAllocationHandle handle) {
    CUDALAB_API("cuMemRelease");
    if (CUresult e = gate()) return e;
    Physical* p = physical_of(handle);
    if (!p) return CUDA_ERROR_INVALID_VALUE;
    // Mapped memory stays until its last mapping goes (cuMemUnmap), as CUDA documents.
    --p->handle_refs;
    drop_if_unused(handle);
    return CUDA_SUCCESS;
}

CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle* handle, void* address) {
    CUDALAB_API("cuMemRetainAllocationHandle");
    if (CUresult e = gate()) return e;
    if (!handle) return CUDA_ERROR_INVALID_VALUE;
    auto* r = reservation_of(reinterpret_cast<std::uint64_t>(address));
    auto* m =
        r ? mapping_at(r->second, reinterpret_cast<std::uint64_t>(address) - r->first) : nullptr;
    if (!m) return CUDA_ERROR_INVALID_VALUE;
    ++m->second.physical->handle_refs;
    *handle = handle_of(m->second.physical);
    return CUDA_SUCCESS;
}

CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp* prop,
                                                CUmemGenericAllocationHandle handle) {
    CUDALAB_API("cuMemGetAllocationPropertiesFromHandle");
    if (CUresult e = gate()) return e;
    Physical* p = physical_of(handle);
    if (!prop || !p) return CUDA_ERROR_INVALID_VALUE;
    *prop = p->prop;
    return CUDA_SUCCESS;
}

CUresult cuMemAddressReserve(CUdeviceptr* ptr, size_t size, size_t alignment, CUdeviceptr,
                             unsigned long long flags) {
    CUDALAB_API("cuMemAddressReserve");
    if (CUresult e = gate()) return e;
    if (!ptr || size == 0 || !aligned(size) || flags || (alignment & (alignment - 1)))
        return CUDA_ERROR_INVALID_VALUE;
    // The address asked for is a hint (CUDA may place the range elsewhere): not followed here.
    const std::uint64_t align = std::max<std::uint64_t>(alignment, granularity);
    const std::uint64_t base = (next_address + align - 1) / align * align;
    if (base + size > va_last || base + size < base) return CUDA_ERROR_OUT_OF_MEMORY;
    void* local =
        ::mmap(nullptr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (local == MAP_FAILED) return CUDA_ERROR_OUT_OF_MEMORY;
    // Addresses are never handed out twice, so a stale pointer into a freed range stays an
    // error rather than reaching newer memory.
    next_address = base + size + granularity;
    Reservation r;
    r.size = size;
    r.local = static_cast<std::uint8_t*>(local);
    reservations[base] = std::move(r);
    *ptr = base;
    return CUDA_SUCCESS;
}

CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size) {
    CUDALAB_API("cuMemAddressFree");
    if (CUresult e = gate()) return e;
    auto it = reservations.find(ptr);
    if (it == reservations.end() || it->second.size != size) return CUDA_ERROR_INVALID_VALUE;
    if (!it->second.mapped.empty()) {
        rt.warn("cuMemAddressFree: memory is still mapped in this range; cuMemUnmap it first");
        return CUDA_ERROR_INVALID_VALUE;
    }
    ::munmap(it->second.local, it->second.size);
    reservations.erase(it);
    return CUDA_SUCCESS;
}

CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
                  unsigned long long flags) {
    CUDALAB_API("cuMemMap");
    if (CUresult e = gate()) return e;
    Physical* p = physical_of(handle);
    if (flags || !p || size == 0) return CUDA_ERROR_INVALID_VALUE;
    // The H100 answers CUDA_ERROR_NOT_SUPPORTED for an unaligned address, an offset into the
    // allocation, and a mapping larger than the allocation.
    if (!aligned(ptr) || !aligned(size) || offset != 0 || size > p->size)
        return CUDA_ERROR_NOT_SUPPORTED;
    auto* r = reservation_of(ptr, size);
    if (!r) {
        rt.warn("cuMemMap: the range is not inside one range reserved with cuMemAddressReserve");
        return CUDA_ERROR_INVALID_VALUE;
    }
    Reservation& res = r->second;
    const std::uint64_t at = ptr - r->first;
    for (const auto& [o, m] : res.mapped)
        if (o < at + size && at < o + m.size) {
            rt.warn("cuMemMap: part of the range is already mapped; cuMemUnmap it first");
            return CUDA_ERROR_INVALID_VALUE;
        }
    if (::mmap(res.local + at, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, p->fd, 0) ==
        MAP_FAILED)
        return CUDA_ERROR_OUT_OF_MEMORY;
    Mapping m;
    m.size = size;
    m.physical = p;
    res.mapped[at] = m;
    ++p->mappings;
    refresh(r->first, res);
    return CUDA_SUCCESS;
}

CUresult cuMemUnmap(CUdeviceptr ptr, size_t size) {
    CUDALAB_API("cuMemUnmap");
    if (CUresult e = gate()) return e;
    auto* r = reservation_of(ptr, size);
    if (!r || size == 0) return CUDA_ERROR_INVALID_VALUE;
    Reservation& res = r->second;
    const std::uint64_t at = ptr - r->first;
    const std::vector<Mapping*> whole = tiling(res, at, size);
    if (whole.empty()) {
        rt.warn("cuMemUnmap: the range must be whole mappings made by cuMemMap");
        return CUDA_ERROR_INVALID_VALUE;
    }
    // Work already issued has run (work runs when it is issued), so nothing is using it now.
    std::vector<std::uint64_t> handles;
    for (Mapping* m : whole) {
        --m->physical->mappings;
        handles.push_back(handle_of(m->physical));
    }
    for (std::uint64_t o = at; o < at + size;) {
        auto it = res.mapped.find(o);
        o += it->second.size;
        res.mapped.erase(it);
    }
    ::mmap(res.local + at, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED,
           -1, 0);
    refresh(r->first, res);
    for (std::uint64_t h : handles) drop_if_unused(h);
    return CUDA_SUCCESS;
}

// partly: read-only access is kept but not enforced (a kernel's writes land), nor is access per
// device (memory one device may access is reachable by all)
CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc* desc, size_t count) {
    CUDALAB_API("cuMemSetAccess");
    if (CUresult e = gate()) return e;
    if (!desc || count == 0 || count > 64) return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < count; ++i) {
        if (desc[i].location.type != CU_MEM_LOCATION_TYPE_DEVICE)
            return CUresult(not_supported("cuMemSetAccess", "access for a host location"));
        if (!valid_device_location(desc[i].location)) return CUDA_ERROR_INVALID_DEVICE;
        if (desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_NONE &&
            desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READ &&
            desc[i].flags != CU_MEM_ACCESS_FLAGS_PROT_READWRITE)
            return CUDA_ERROR_INVALID_VALUE;
    }
    auto* r = reservation_of(ptr, size);
    if (!r || size == 0) return CUDA_ERROR_INVALID_VALUE;
    const std::vector<Mapping*> whole = tiling(r->second, ptr - r->first, size);
    if (whole.empty()) {
        rt.warn("cuMemSetAccess: every part of the range must be mapped (cuMemMap), in whole "
                "mappings");
        return CUDA_ERROR_INVALID_VALUE;
    }
    for (size_t i = 0; i < count; ++i) {
        if (desc[i].flags == CU_MEM_ACCESS_FLAGS_PROT_READ)
            rt.say_once("vmm:read-only",
                        "cuMemSetAccess: read-only access is recorded (cuMemGetAccess answers it), "
                        "but the emulator does not stop a kernel's writes to such memory");
        if (desc[i].location.id != rt.current_device() || count > 1)
            rt.say_once("vmm:per-device",
                        "cuMemSetAccess: access is recorded per device, but the emulated devices "
                        "share one address space: memory any device may access is reachable "
                        "from every device's kernels");
        for (Mapping* m : whole) m->access[desc[i].location.id] = std::uint8_t(desc[i].flags);
    }
    refresh(r->first, r->second);
    return CUDA_SUCCESS;
}

CUresult cuMemGetAccess(unsigned long long* flags, const CUmemLocation* location, CUdeviceptr ptr) {
    CUDALAB_API("cuMemGetAccess");
    if (CUresult e = gate()) return e;
    if (!flags || !location || !valid_device_location(*location)) return CUDA_ERROR_INVALID_VALUE;
    auto* r = reservation_of(ptr);
    auto* m = r ? mapping_at(r->second, ptr - r->first) : nullptr;
    if (!m) return CUDA_ERROR_INVALID_VALUE;
    *flags = m->second.access[location->id];
    return CUDA_SUCCESS;
}

}  // extern "C"
