// The CUDA runtime API, part 3: memory. Device memory is the emulator's (addresses a host
// dereference faults on, as on a GPU); pinned, mapped, registered and managed memory are host
// memory that kernels reach at the same address (unified addressing).
#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "cudart/api.h"
#include "cudart/arrays.h"
#include "cudart/managed.h"
#include "cudart/program_link.h"
#include "cudart/program_memory.h"
#include "cudart/vmm.h"

using namespace cudalab;
using namespace cudalab::cudart;

namespace {

constexpr std::uint64_t max_allocation = 1ull << 40;

std::string hex(std::uint64_t v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
}

// Emulated device memory actually backs every byte (a std::vector), so a "device" much larger
// than the machine's RAM is refused up front with a clear message rather than killing the process.
cudaError_t allocate_device(void** ptr, std::uint64_t bytes, MemoryKind kind, const char* api) {
    Runtime& rt = Runtime::get();
    if (!ptr) return cudaErrorInvalidValue;
    *ptr = nullptr;
    if (bytes == 0) return cudaSuccess;  // CUDA returns success and a null pointer
    std::uint64_t live = 0;
    for (const auto& [b, r] : rt.allocations)
        if (r.kind == MemoryKind::device || r.kind == MemoryKind::pool) live += r.size;
    if (bytes > max_allocation || live + bytes > rt.model.global_memory)
        return cudaErrorMemoryAllocation;
    if (live + bytes > rt.memory_limit) {
        rt.warn(std::string(api) + ": " + std::to_string(bytes) +
                " more bytes would take emulated device memory past " +
                std::to_string(rt.memory_limit >> 20) +
                " MB, the most this machine lends it (CUDALAB_MEMORY_LIMIT, in MB)");
        return cudaErrorMemoryAllocation;
    }
    std::uint64_t base = 0;
    try {
        base = rt.memory->allocate(bytes, std::string(api) + " #" +
                                              std::to_string(rt.allocations.size() + 1));
    } catch (const std::bad_alloc&) {
        rt.warn(std::string(api) + ": " + std::to_string(bytes) +
                " bytes do not fit in this machine's memory (the emulator backs device memory with "
                "host memory)");
        return cudaErrorMemoryAllocation;
    }
    MemoryRecord r;
    r.kind = kind;
    r.device = rt.current_device();
    r.base = base;
    r.size = bytes;
    r.allocated_at = CallStack::here();
    rt.allocations[base] = std::move(r);
    rt.ordering.forget(base, base + bytes);
    rt.peak_device_bytes = std::max(rt.peak_device_bytes, live + bytes);
    *ptr = reinterpret_cast<void*>(base);
    return cudaSuccess;
}

cudaError_t free_device(void* ptr, const char* api) {
    Runtime& rt = Runtime::get();
    if (!ptr) return cudaSuccess;
    const auto base = reinterpret_cast<std::uint64_t>(ptr);
    if (is_graph_memory(ptr)) return cudaError_t(stream_ordered_free(ptr, api));
    if (vmm::owns(base)) {
        rt.warn(std::string(api) +
                ": the pointer is in a range reserved with cuMemAddressReserve; give such memory "
                "back with cuMemUnmap, cuMemRelease and cuMemAddressFree");
        return cudaErrorInvalidValue;
    }
    auto it = rt.allocations.find(base);
    if (it == rt.allocations.end() ||
        (it->second.kind != MemoryKind::device && it->second.kind != MemoryKind::pool &&
         it->second.kind != MemoryKind::managed)) {
        const emu::Allocation* a = rt.memory->find(base, 1);
        if (a && a->freed && a->base == base)
            rt.warn(std::string(api) + ": the pointer " + hex(base) +
                    " was already freed (a double free)");
        else if (it != rt.allocations.end())
            rt.warn(std::string(api) +
                    ": this pointer is pinned host memory; free it with cudaFreeHost");
        else
            rt.warn(
                std::string(api) +
                ": the pointer was not returned by cudaMalloc (or points inside an allocation)");
        return cudaErrorInvalidValue;
    }
    if (it->second.module_variable) {
        rt.warn(std::string(api) + ": the pointer is a __managed__ variable, which its module "
                                   "owns; it cannot be freed");
        return cudaErrorInvalidValue;
    }
    if (it->second.kind == MemoryKind::managed) {
        // The host's moves since the last phase go on the timeline before the allocation does
        // (its pages' moves are no longer found at the next launch or at exit).
        record_page_moves(rt, rt.current_device(), rt.issue_time(), rt.issue_time(), "host touch");
        managed::remove(ptr);
        rt.memory->unmap_host(ptr);
        link::unshare(ptr, (it->second.size + managed::page_bytes - 1) / managed::page_bytes *
                               managed::page_bytes);
    } else {
        rt.memory->release(base);
    }
    rt.allocations.erase(it);
    return cudaSuccess;
}

// Host memory kernels reach at its own address (pinned or managed): mapped into the emulator's
// address space and recorded.
void record_mapped_host(void* p, std::uint64_t bytes, MemoryKind kind, unsigned flags,
                        const std::string& label) {
    Runtime& rt = Runtime::get();
    rt.memory->map_host(p, bytes, label);
    MemoryRecord r;
    r.kind = kind;
    r.device = rt.current_device();
    r.base = reinterpret_cast<std::uint64_t>(p);
    r.size = bytes;
    r.flags = flags;
    r.mapped = true;
    r.allocated_at = CallStack::here();
    // The address may be one freed before (host memory): what was done to it then is forgotten.
    rt.ordering.forget(r.base, r.base + r.size);
    rt.allocations[r.base] = std::move(r);
}

cudaError_t host_allocate(void** ptr, size_t bytes, unsigned flags, const char* api) {
    if (!ptr) return cudaErrorInvalidValue;
    *ptr = nullptr;
    if (bytes == 0) return cudaSuccess;
    // Memory the program and the device process both map, at the same address.
    void* p = link::share(bytes);
    if (!p) return cudaErrorMemoryAllocation;
    // Every pinned allocation is mapped: with unified addressing a kernel can use the pointer.
    record_mapped_host(p, bytes, MemoryKind::pinned_host, flags,
                       std::string(api) + " (pinned host memory)");
    *ptr = p;
    return cudaSuccess;
}

Copy3D copy_1d(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
    Copy3D c;
    c.dst = static_cast<std::uint8_t*>(dst);
    c.src = static_cast<const std::uint8_t*>(src);
    c.width = bytes;
    c.src_pitch = c.dst_pitch = bytes;
    c.kind = kind;
    return c;
}

cudaError_t copy(const Copy3D& c, cudaStream_t stream, bool synchronous, const char* api) {
    Runtime& rt = Runtime::get();
    if (cudaError_t e = device_gate(synchronous)) return fail(e);
    if (c.kind < cudaMemcpyHostToHost || c.kind > cudaMemcpyDefault)
        return fail(cudaErrorInvalidMemcpyDirection);
    if (c.width && (!c.src || !c.dst)) return fail(cudaErrorInvalidValue);
    Stream* s = rt.stream(stream);
    if (!s) return fail(cudaErrorInvalidResourceHandle);
    Work w;
    w.kind = Work::Kind::copy;
    w.copy = c;
    const int e = issue(s, std::move(w), api);
    if (e) return fail(cudaError_t(e));
    if (synchronous) {
        wait_stream(s);
        if (cudaError_t g = device_gate(true)) return fail(g);
    }
    return cudaSuccess;
}

cudaError_t set(void* dst, int value, std::uint64_t width, std::uint64_t height,
                std::uint64_t pitch, std::uint64_t depth, std::uint64_t slice, cudaStream_t stream,
                const char* api) {
    Runtime& rt = Runtime::get();
    if (cudaError_t e = device_gate()) return fail(e);
    Stream* s = rt.stream(stream);
    if (!s) return fail(cudaErrorInvalidResourceHandle);
    Work w;
    w.kind = Work::Kind::set;
    w.set.dst = static_cast<std::uint8_t*>(dst);
    w.set.value = std::uint32_t(value & 0xff);
    w.set.element = 1;
    w.set.width = width;
    w.set.height = height;
    w.set.pitch = pitch;
    w.set.depth = depth;
    w.set.slice = slice;
    return result(issue(s, std::move(w), api));
}

}  // namespace

extern "C" {

// [SECTION] Device memory
// --------------------------------------------------------------------------

cudaError_t cudaMalloc(void** ptr, size_t bytes) {
    CUDALAB_API("cudaMalloc");
    if (cudaError_t e = device_gate()) return fail(e);
    if (rt.inject("malloc", ++rt.malloc_calls)) {
        if (ptr) *ptr = nullptr;
        rt.warn("cudaMalloc #" + std::to_string(rt.malloc_calls) + " (" + std::to_string(bytes) +
                " bytes) fails with cudaErrorMemoryAllocation, injected by CUDALAB_INJECT=malloc:" +
                std::to_string(rt.malloc_calls) +
                " (out of memory is recoverable: the program may free memory or take another path "
                "and carry on)");
        return fail(cudaErrorMemoryAllocation);
    }
    return result(allocate_device(ptr, bytes, MemoryKind::device, "cudaMalloc"));
}

cudaError_t cudaFree(void* ptr) {
    CUDALAB_API("cudaFree");
    if (cudaError_t e = device_gate()) return fail(e);
    wait_device(rt.current_device());  // cudaFree synchronises the device
    return result(free_device(ptr, "cudaFree"));
}

cudaError_t cudaMallocPitch(void** ptr, size_t* pitch, size_t width, size_t height) {
    CUDALAB_API("cudaMallocPitch");
    if (!pitch) return fail(cudaErrorInvalidValue);
    if (cudaError_t e = device_gate()) return fail(e);
    *pitch = (width + 511) / 512 * 512;  // rows aligned as a GPU's texture pitch alignment
    return result(allocate_device(ptr, *pitch * height, MemoryKind::device, "cudaMallocPitch"));
}

cudaError_t cudaMalloc3D(cudaPitchedPtr* out, cudaExtent extent) {
    CUDALAB_API("cudaMalloc3D");
    if (!out) return fail(cudaErrorInvalidValue);
    if (cudaError_t e = device_gate()) return fail(e);
    const size_t pitch = (extent.width + 511) / 512 * 512;
    void* p = nullptr;
    if (cudaError_t e = allocate_device(&p, pitch * extent.height * extent.depth,
                                        MemoryKind::device, "cudaMalloc3D"))
        return fail(e);
    out->ptr = p;
    out->pitch = pitch;
    out->xsize = extent.width;
    out->ysize = extent.height;
    return cudaSuccess;
}

cudaError_t cudaMemGetInfo(size_t* free_bytes, size_t* total) {
    CUDALAB_API("cudaMemGetInfo");
    if (cudaError_t e = device_gate()) return fail(e);
    std::uint64_t used = 0;
    for (const auto& [b, r] : rt.allocations)
        if ((r.kind == MemoryKind::device || r.kind == MemoryKind::pool) &&
            r.device == rt.current_device())
            used += r.size;
    if (total) *total = rt.model.global_memory;
    if (free_bytes)
        *free_bytes = rt.model.global_memory -
                      std::min<std::uint64_t>(used, rt.model.global_memory) - (512ull << 20);
    return cudaSuccess;
}

// [SECTION] Host memory
// ----------------------------------------------------------------------------

cudaError_t cudaMallocHost(void** ptr, size_t bytes) {
    CUDALAB_API("cudaMallocHost");
    if (cudaError_t e = device_gate()) return fail(e);
    return result(host_allocate(ptr, bytes, 0, "cudaMallocHost"));
}

cudaError_t cudaHostAlloc(void** ptr, size_t bytes, unsigned int flags) {
    CUDALAB_API("cudaHostAlloc");
    if (cudaError_t e = device_gate()) return fail(e);
    if (flags & ~(cudaHostAllocPortable | cudaHostAllocMapped | cudaHostAllocWriteCombined))
        return fail(cudaErrorInvalidValue);
    return result(host_allocate(ptr, bytes, flags, "cudaHostAlloc"));
}

cudaError_t cudaFreeHost(void* ptr) {
    CUDALAB_API("cudaFreeHost");
    if (!ptr) return cudaSuccess;
    if (const MemoryRecord* r = rt.record_of(ptr);
        r && r->base == reinterpret_cast<std::uint64_t>(ptr))
        rt.ordering.unwaited("before freeing the memory", r->base, r->base + r->size);
    wait_device(rt.current_device());
    auto it = rt.allocations.find(reinterpret_cast<std::uint64_t>(ptr));
    if (it == rt.allocations.end() || it->second.kind != MemoryKind::pinned_host) {
        rt.warn("cudaFreeHost: the pointer was not returned by cudaMallocHost or cudaHostAlloc");
        return fail(cudaErrorInvalidValue);
    }
    rt.memory->unmap_host(ptr);
    const std::uint64_t size = it->second.size;
    rt.allocations.erase(it);
    link::unshare(ptr, size);
    return cudaSuccess;
}

cudaError_t cudaHostRegister(void* ptr, size_t bytes, unsigned int flags) {
    CUDALAB_API("cudaHostRegister");
    if (cudaError_t e = device_gate()) return fail(e);
    if (!ptr || bytes == 0) return fail(cudaErrorInvalidValue);
    if (rt.record_of(ptr)) return fail(cudaErrorHostMemoryAlreadyRegistered);
    // Kernels reach the program's bytes through the device process's copy of them (program_link.h).
    void* local = link::share_existing(ptr, bytes);
    if (!local) {
        rt.warn("cudaHostRegister: the memory is not the program's to register (or too large to "
                "mirror)");
        return fail(cudaErrorInvalidValue);
    }
    if (!rt.memory->map_host(ptr, bytes, "cudaHostRegister (registered host memory)", local)) {
        link::unshare_existing(ptr);
        return fail(cudaErrorHostMemoryAlreadyRegistered);
    }
    MemoryRecord r;
    r.kind = MemoryKind::registered_host;
    r.device = rt.current_device();
    r.base = reinterpret_cast<std::uint64_t>(ptr);
    r.size = bytes;
    r.flags = flags;
    r.mapped = true;
    rt.ordering.forget(r.base, r.base + r.size);
    rt.allocations[r.base] = std::move(r);
    return cudaSuccess;
}

cudaError_t cudaHostUnregister(void* ptr) {
    CUDALAB_API("cudaHostUnregister");
    auto it = rt.allocations.find(reinterpret_cast<std::uint64_t>(ptr));
    if (it == rt.allocations.end() || it->second.kind != MemoryKind::registered_host)
        return fail(cudaErrorHostMemoryNotRegistered);
    rt.ordering.unwaited("before unregistering the memory", it->second.base,
                         it->second.base + it->second.size);
    rt.memory->unmap_host(ptr);
    link::unshare_existing(ptr);
    rt.allocations.erase(it);
    return cudaSuccess;
}

cudaError_t cudaHostGetDevicePointer(void** device, void* host, unsigned int flags) {
    CUDALAB_API("cudaHostGetDevicePointer");
    if (!device || flags) return fail(cudaErrorInvalidValue);
    const MemoryRecord* r = rt.record_of(host);
    if (!r || !r->mapped) return fail(cudaErrorInvalidValue);
    *device = host;  // unified addressing: the same address on both sides
    return cudaSuccess;
}

cudaError_t cudaHostGetFlags(unsigned int* flags, void* host) {
    CUDALAB_API("cudaHostGetFlags");
    const MemoryRecord* r = rt.record_of(host);
    if (!flags || !r || r->kind != MemoryKind::pinned_host) return fail(cudaErrorInvalidValue);
    *flags = r->flags;
    return cudaSuccess;
}

// [SECTION] Managed memory
// -------------------------------------------------------------------------

cudaError_t cudaMallocManaged(void** ptr, size_t bytes, unsigned int flags) {
    CUDALAB_API("cudaMallocManaged");
    if (cudaError_t e = device_gate()) return fail(e);
    if (!ptr || (flags != cudaMemAttachGlobal && flags != cudaMemAttachHost))
        return fail(cudaErrorInvalidValue);
    *ptr = nullptr;
    if (bytes == 0) return fail(cudaErrorInvalidValue);
    const std::uint64_t size =
        (bytes + managed::page_bytes - 1) / managed::page_bytes * managed::page_bytes;
    void* p = link::share(size);
    if (!p) return fail(cudaErrorMemoryAllocation);
    managed::add(p, size);
    record_mapped_host(p, bytes, MemoryKind::managed, flags, "cudaMallocManaged (managed memory)");
    *ptr = p;
    return cudaSuccess;
}

cudaError_t cudaMemPrefetchAsync(const void* ptr, size_t count, cudaMemLocation location,
                                 unsigned int flags, cudaStream_t stream) {
    CUDALAB_API("cudaMemPrefetchAsync");
    if (cudaError_t e = device_gate()) return fail(e);
    const MemoryRecord* r = rt.record_of(ptr);
    if (!r || r->kind != MemoryKind::managed) return fail(cudaErrorInvalidValue);
    Stream* s = rt.stream(stream);
    if (!s) return fail(cudaErrorInvalidResourceHandle);
    const int target = location.type == cudaMemLocationTypeDevice ? location.id : -1;
    if (target >= rt.device_count) return fail(cudaErrorInvalidDevice);
    record_page_moves(rt, s->device, rt.issue_time(), rt.issue_time(), "host touch");
    managed::prefetch(ptr, count, target);
    record_page_moves(rt, s->device, rt.issue_time(), rt.issue_time(), "prefetch");
    Work w;
    w.kind = Work::Kind::prefetch;
    w.bytes = count;
    w.pointer = const_cast<void*>(ptr);
    w.target_device = target;
    return result(issue(s, std::move(w), "cudaMemPrefetchAsync"));
}

cudaError_t cudaMemAdvise(const void* ptr, size_t count, cudaMemoryAdvise advice,
                          cudaMemLocation location) {
    CUDALAB_API("cudaMemAdvise");
    const MemoryRecord* r = rt.record_of(ptr);
    if (!r || r->kind != MemoryKind::managed) return fail(cudaErrorInvalidValue);
    if (advice == cudaMemAdviseSetReadMostly) managed::read_mostly(ptr, count, true);
    else if (advice == cudaMemAdviseUnsetReadMostly) managed::read_mostly(ptr, count, false);
    return cudaSuccess;
}

// [SECTION] Copies
// -----------------------------------------------------------------------------------

cudaError_t cudaMemcpy(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
    CUDALAB_API("cudaMemcpy");
    return copy(copy_1d(dst, src, bytes, kind), nullptr, true, "cudaMemcpy");
}

cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                            cudaStream_t stream) {
    CUDALAB_API("cudaMemcpyAsync");
    return copy(copy_1d(dst, src, bytes, kind), stream, false, "cudaMemcpyAsync");
}

cudaError_t cudaMemcpy2D(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width,
                         size_t height, cudaMemcpyKind kind) {
    CUDALAB_API("cudaMemcpy2D");
    if (width > dpitch || width > spitch) return fail(cudaErrorInvalidPitchValue);
    Copy3D c = copy_1d(dst, src, width, kind);
    c.height = height;
    c.src_pitch = spitch;
    c.dst_pitch = dpitch;
    return copy(c, nullptr, true, "cudaMemcpy2D");
}

cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch,
                              size_t width, size_t height, cudaMemcpyKind kind,
                              cudaStream_t stream) {
    CUDALAB_API("cudaMemcpy2DAsync");
    if (width > dpitch || width > spitch) return fail(cudaErrorInvalidPitchValue);
    Copy3D c = copy_1d(dst, src, width, kind);
    c.height = height;
    c.src_pitch = spitch;
    c.dst_pitch = dpitch;
    return copy(c, stream, false, "cudaMemcpy2DAsync");
}

}  // extern "C"

namespace cudalab::cudart {

// cudaMemcpy3DParms -> Copy3D. A CUDA array's side is a pitched pointer into its memory
// (arrays.h); with an array taking part, the extent's width and the array's x position count the
// array's elements, a pointer's x position bytes (the runtime API's cudaMemcpy3D).
cudaError_t copy_from_params(const cudaMemcpy3DParms* p, Copy3D* c) {
    if (!p) return cudaErrorInvalidValue;
    if ((p->srcArray && p->srcPtr.ptr) || (p->dstArray && p->dstPtr.ptr))
        return cudaErrorInvalidValue;
    std::uint64_t width = p->extent.width;
    if (p->srcArray) {
        cudaExtent e = p->extent;
        std::uint8_t* at = nullptr;
        if (cudaError_t err =
                array_region(p->srcArray, p->srcPos, &e, &at, &c->src_pitch, &c->src_slice))
            return err;
        c->src = at;
        width = e.width;
    } else {
        c->src = static_cast<const std::uint8_t*>(p->srcPtr.ptr) +
                 p->srcPos.z * p->srcPtr.pitch * p->srcPtr.ysize + p->srcPos.y * p->srcPtr.pitch +
                 p->srcPos.x;
        c->src_pitch = p->srcPtr.pitch;
        c->src_slice = p->srcPtr.pitch * p->srcPtr.ysize;
    }
    if (p->dstArray) {
        cudaExtent e = p->extent;
        if (cudaError_t err =
                array_region(p->dstArray, p->dstPos, &e, &c->dst, &c->dst_pitch, &c->dst_slice))
            return err;
        if (p->srcArray && e.width != width) return cudaErrorInvalidValue;  // different elements
        width = e.width;
    } else {
        c->dst = static_cast<std::uint8_t*>(p->dstPtr.ptr) +
                 p->dstPos.z * p->dstPtr.pitch * p->dstPtr.ysize + p->dstPos.y * p->dstPtr.pitch +
                 p->dstPos.x;
        c->dst_pitch = p->dstPtr.pitch;
        c->dst_slice = p->dstPtr.pitch * p->dstPtr.ysize;
    }
    c->width = width;
    c->height = p->extent.height;
    c->depth = p->extent.depth;
    c->kind = p->kind;
    if (c->width > c->src_pitch || c->width > c->dst_pitch) return cudaErrorInvalidPitchValue;
    return cudaSuccess;
}

std::uint64_t place_managed_variable(Module& module, const std::string& name, std::uint64_t size,
                                     bool* fresh) {
    Runtime& rt = Runtime::get();
    *fresh = false;
    auto known = module.managed_variables.find(name);
    if (known != module.managed_variables.end()) return known->second;
    const std::uint64_t bytes = std::max<std::uint64_t>(size, 1);
    const std::uint64_t mapped =
        (bytes + managed::page_bytes - 1) / managed::page_bytes * managed::page_bytes;
    void* p = link::share(mapped);
    if (!p) return 0;
    managed::add(p, mapped);
    record_mapped_host(p, bytes, MemoryKind::managed, cudaMemAttachGlobal,
                       "__managed__ variable '" + name + "'");
    rt.allocations[reinterpret_cast<std::uint64_t>(p)].module_variable = true;
    module.managed_variables[name] = reinterpret_cast<std::uint64_t>(p);
    // The host's pointer (nvcc's code reads the variable through it).
    for (auto& [host, v] : rt.variables)
        if (v->managed && v->module == &module && v->name == name && v->managed_host_pointer)
            program::write(v->managed_host_pointer, &p, sizeof p);
    *fresh = true;
    return reinterpret_cast<std::uint64_t>(p);
}

}  // namespace cudalab::cudart

extern "C" {

cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms* p) {
    CUDALAB_API("cudaMemcpy3D");
    Copy3D c;
    if (cudaError_t e = copy_from_params(p, &c)) return fail(e);
    return copy(c, nullptr, true, "cudaMemcpy3D");
}

cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms* p, cudaStream_t stream) {
    CUDALAB_API("cudaMemcpy3DAsync");
    Copy3D c;
    if (cudaError_t e = copy_from_params(p, &c)) return fail(e);
    return copy(c, stream, false, "cudaMemcpy3DAsync");
}

cudaError_t cudaMemcpyPeer(void* dst, int dst_device, const void* src, int src_device,
                           size_t bytes) {
    CUDALAB_API("cudaMemcpyPeer");
    if (dst_device < 0 || dst_device >= rt.device_count || src_device < 0 ||
        src_device >= rt.device_count)
        return fail(cudaErrorInvalidDevice);
    Copy3D c = copy_1d(dst, src, bytes, cudaMemcpyDefault);
    c.src_device = src_device;
    c.dst_device = dst_device;
    return copy(c, nullptr, true, "cudaMemcpyPeer");
}

cudaError_t cudaMemcpyPeerAsync(void* dst, int dst_device, const void* src, int src_device,
                                size_t bytes, cudaStream_t stream) {
    CUDALAB_API("cudaMemcpyPeerAsync");
    if (dst_device < 0 || dst_device >= rt.device_count || src_device < 0 ||
        src_device >= rt.device_count)
        return fail(cudaErrorInvalidDevice);
    Copy3D c = copy_1d(dst, src, bytes, cudaMemcpyDefault);
    c.src_device = src_device;
    c.dst_device = dst_device;
    return copy(c, stream, false, "cudaMemcpyPeerAsync");
}

// [SECTION] Sets
// -------------------------------------------------------------------------------------

cudaError_t cudaMemset(void* dst, int value, size_t bytes) {
    CUDALAB_API("cudaMemset");
    return set(dst, value, bytes, 1, bytes, 1, bytes, nullptr, "cudaMemset");
}

cudaError_t cudaMemsetAsync(void* dst, int value, size_t bytes, cudaStream_t stream) {
    CUDALAB_API("cudaMemsetAsync");
    return set(dst, value, bytes, 1, bytes, 1, bytes, stream, "cudaMemsetAsync");
}

cudaError_t cudaMemset2D(void* dst, size_t pitch, int value, size_t width, size_t height) {
    CUDALAB_API("cudaMemset2D");
    return set(dst, value, width, height, pitch, 1, pitch * height, nullptr, "cudaMemset2D");
}

cudaError_t cudaMemset2DAsync(void* dst, size_t pitch, int value, size_t width, size_t height,
                              cudaStream_t stream) {
    CUDALAB_API("cudaMemset2DAsync");
    return set(dst, value, width, height, pitch, 1, pitch * height, stream, "cudaMemset2DAsync");
}

cudaError_t cudaMemset3D(cudaPitchedPtr p, int value, cudaExtent e) {
    CUDALAB_API("cudaMemset3D");
    return set(p.ptr, value, e.width, e.height, p.pitch, e.depth, p.pitch * p.ysize, nullptr,
               "cudaMemset3D");
}

cudaError_t cudaMemset3DAsync(cudaPitchedPtr p, int value, cudaExtent e, cudaStream_t stream) {
    CUDALAB_API("cudaMemset3DAsync");
    return set(p.ptr, value, e.width, e.height, p.pitch, e.depth, p.pitch * p.ysize, stream,
               "cudaMemset3DAsync");
}

// Per-thread default stream spellings (nvcc --default-stream per-thread renames the calls).
cudaError_t cudaMemcpy_ptds(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind) {
    CUDALAB_API("cudaMemcpy");
    return copy(copy_1d(dst, src, bytes, kind), cudaStreamPerThread, true, "cudaMemcpy");
}
cudaError_t cudaMemcpyAsync_ptsz(void* dst, const void* src, size_t bytes, cudaMemcpyKind kind,
                                 cudaStream_t stream) {
    CUDALAB_API("cudaMemcpyAsync");
    return copy(copy_1d(dst, src, bytes, kind), stream ? stream : cudaStreamPerThread, false,
                "cudaMemcpyAsync");
}
cudaError_t cudaMemset_ptds(void* dst, int value, size_t bytes) {
    CUDALAB_API("cudaMemset");
    return set(dst, value, bytes, 1, bytes, 1, bytes, cudaStreamPerThread, "cudaMemset");
}
cudaError_t cudaMemsetAsync_ptsz(void* dst, int value, size_t bytes, cudaStream_t stream) {
    CUDALAB_API("cudaMemsetAsync");
    return set(dst, value, bytes, 1, bytes, 1, bytes, stream ? stream : cudaStreamPerThread,
               "cudaMemsetAsync");
}
cudaError_t cudaMemcpy2D_ptds(void* dst, size_t dpitch, const void* src, size_t spitch,
                              size_t width, size_t height, cudaMemcpyKind kind) {
    return cudaMemcpy2D(dst, dpitch, src, spitch, width, height, kind);
}
cudaError_t cudaMemcpy3D_ptds(const cudaMemcpy3DParms* p) { return cudaMemcpy3D(p); }
cudaError_t cudaMemcpyPeer_ptds(void* dst, int dd, const void* src, int sd, size_t bytes) {
    return cudaMemcpyPeer(dst, dd, src, sd, bytes);
}
cudaError_t cudaMemset2D_ptds(void* dst, size_t pitch, int value, size_t width, size_t height) {
    return cudaMemset2D(dst, pitch, value, width, height);
}

// [SECTION] Pointer attributes
// -----------------------------------------------------------------------

cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* a, const void* ptr) {
    CUDALAB_API("cudaPointerGetAttributes");
    if (!a) return fail(cudaErrorInvalidValue);
    std::memset(a, 0, sizeof *a);
    const MemoryRecord* r = rt.record_of(ptr);
    // A graph's memory between a free and its next allocation is mapped nowhere on a GPU: an
    // H100 answers it as memory it does not know.
    const bool unmapped = r && is_graph_memory(reinterpret_cast<const void*>(r->base)) &&
                          !graph_memory_allocated(reinterpret_cast<const void*>(r->base));
    if (unmapped) r = nullptr;
    a->device = r ? r->device : rt.current_device();
    if (!r) {
        // A module's __device__ or __constant__ variable (cudaGetSymbolAddress) is device memory
        // of the current device; anything else is host memory CUDA never saw, which CUDA
        // answers as unregistered memory of device -2 with the pointer as its host pointer.
        const emu::Allocation* v = rt.memory->find(reinterpret_cast<std::uint64_t>(ptr), 1);
        if (v && !v->freed && !v->host && !unmapped) {
            a->type = cudaMemoryTypeDevice;
            a->devicePointer = const_cast<void*>(ptr);
            return cudaSuccess;
        }
        a->type = cudaMemoryTypeUnregistered;
        a->device = -2;
        a->hostPointer = const_cast<void*>(ptr);
        return cudaSuccess;
    }
    switch (r->kind) {
    case MemoryKind::device:
    case MemoryKind::pool:
        a->type = cudaMemoryTypeDevice;
        a->devicePointer = const_cast<void*>(ptr);
        break;
    case MemoryKind::managed:
        a->type = cudaMemoryTypeManaged;
        a->devicePointer = a->hostPointer = const_cast<void*>(ptr);
        break;
    default:
        a->type = cudaMemoryTypeHost;
        a->devicePointer = a->hostPointer = const_cast<void*>(ptr);
        break;
    }
    return cudaSuccess;
}

// [SECTION] Stream-ordered allocation
// ----------------------------------------------------------------

}  // extern "C"

namespace {

struct Pool {
    int device = 0;
    std::uint64_t release_threshold = 0;
    std::uint64_t reserved = 0, reserved_high = 0, used = 0, used_high = 0;
    int reuse_follow_events = 1, reuse_opportunistic = 1, reuse_internal = 1;
    std::multimap<std::uint64_t, std::uint64_t> free_blocks;  // size -> base
    std::map<std::uint64_t, std::uint64_t> live;              // base -> size
};

std::map<void*, std::unique_ptr<Pool>>& pools() {
    static std::map<void*, std::unique_ptr<Pool>> all;
    return all;
}

Pool* default_pool(int device) {
    static std::map<int, Pool*> defaults;
    auto it = defaults.find(device);
    if (it != defaults.end()) return it->second;
    auto p = std::make_unique<Pool>();
    p->device = device;
    Pool* raw = p.get();
    pools()[raw] = std::move(p);
    defaults[device] = raw;
    return raw;
}

Pool* pool_of(cudaMemPool_t handle) {
    auto it = pools().find(handle);
    return it == pools().end() ? nullptr : it->second.get();
}

// Memory of graphs' allocation nodes, captured or added, by base address: it belongs to the
// graph. `allocated`: a launch's allocation node has run and nothing has freed it since (a free
// node, cudaFree, cudaFreeAsync); CUDA refuses to launch the graph again until then.
struct GraphBlock {
    std::uint64_t bytes = 0;
    bool allocated = false;
};
std::map<std::uint64_t, GraphBlock>& graph_memory() {
    static std::map<std::uint64_t, GraphBlock> blocks;
    return blocks;
}

cudaError_t pool_allocate(Pool* pool, void** ptr, size_t bytes, cudaStream_t stream,
                          const char* api) {
    Runtime& rt = Runtime::get();
    if (!ptr) return cudaErrorInvalidValue;
    if (cudaError_t e = device_gate()) return e;
    Stream* s = rt.stream(stream);
    if (!s) return cudaErrorInvalidResourceHandle;
    const std::uint64_t size = std::max<std::uint64_t>((bytes + 511) / 512 * 512, 512);
    if (s->capture_status == cudaStreamCaptureStatusActive && s->capture_graph) {
        // Captured: an allocation node. As with CUDA's graph memory nodes, the address is fixed
        // when the graph is made and stays valid for every launch; the memory is the graph's
        // (reserved once, here), not the pool's, so nothing outside the graph can reuse it.
        void* p = nullptr;
        if (cudaError_t e = graph_allocate(&p, bytes, api)) return e;
        Work w;
        w.kind = Work::Kind::alloc;
        w.bytes = bytes;
        w.pointer = p;
        w.target_device = rt.current_device();
        *ptr = p;
        return cudaError_t(issue(s, std::move(w), api));
    }
    auto it = pool->free_blocks.lower_bound(size);
    std::uint64_t base = 0;
    if (it != pool->free_blocks.end() && it->first < size * 2) {
        base = it->second;
        pool->live[base] = it->first;
        pool->used += it->first;
        pool->free_blocks.erase(it);
    } else {
        void* p = nullptr;
        if (cudaError_t e = allocate_device(&p, size, MemoryKind::pool, api)) return e;
        base = reinterpret_cast<std::uint64_t>(p);
        ++rt.pool_reservations;
        rt.pool_reserved_bytes += size;
        pool->live[base] = size;
        pool->reserved += size;
        pool->used += size;
    }
    // A block freed in another stream is reused as CUDA's pools do by default: after the free
    // (an internal dependency), so its earlier users do not race with its new ones.
    rt.ordering.forget(base, base + size);
    pool->reserved_high = std::max(pool->reserved_high, pool->reserved);
    pool->used_high = std::max(pool->used_high, pool->used);
    *ptr = reinterpret_cast<void*>(base);
    const double start = std::max(stream_ready(s), rt.issue_time());
    place(s, start, start + 500.0, "cudaMallocAsync", "alloc", {{"bytes", std::to_string(bytes)}});
    return cudaSuccess;
}

void trim(Pool* pool, std::uint64_t keep) {
    Runtime& rt = Runtime::get();
    for (auto it = pool->free_blocks.begin();
         it != pool->free_blocks.end() && pool->reserved > keep;) {
        rt.memory->release(it->second);
        rt.allocations.erase(it->second);
        pool->reserved -= it->first;
        it = pool->free_blocks.erase(it);
    }
}

}  // namespace

namespace cudalab::cudart {

cudaError_t graph_allocate(void** ptr, std::uint64_t bytes, const char* api) {
    // As with CUDA's graph memory nodes, the address is fixed when the graph is made and stays
    // valid for every launch; the memory is the graph's (reserved once, here), not a pool's, so
    // nothing outside the graph can reuse it.
    const std::uint64_t size = std::max<std::uint64_t>((bytes + 511) / 512 * 512, 512);
    if (cudaError_t e = allocate_device(ptr, size, MemoryKind::pool, api)) return e;
    graph_memory()[reinterpret_cast<std::uint64_t>(*ptr)] = GraphBlock{bytes, false};
    ++Runtime::get().graph_allocations;
    return cudaSuccess;
}

bool is_graph_memory(const void* ptr) {
    return graph_memory().count(reinterpret_cast<std::uint64_t>(ptr)) > 0;
}

bool graph_memory_allocated(const void* ptr) {
    auto it = graph_memory().find(reinterpret_cast<std::uint64_t>(ptr));
    return it != graph_memory().end() && it->second.allocated;
}

void graph_memory_allocates(const void* ptr) {
    auto it = graph_memory().find(reinterpret_cast<std::uint64_t>(ptr));
    if (it != graph_memory().end()) it->second.allocated = true;
}

// Synchronisation returns memory above each pool's release threshold to the system.
void trim_pools() {
    for (auto& [h, p] : pools()) trim(p.get(), p->release_threshold);
}
}  // namespace cudalab::cudart

extern "C" {

cudaError_t cudaMallocAsync(void** ptr, size_t bytes, cudaStream_t stream) {
    CUDALAB_API("cudaMallocAsync");
    return result(
        pool_allocate(default_pool(rt.current_device()), ptr, bytes, stream, "cudaMallocAsync"));
}

cudaError_t cudaMallocAsync_ptsz(void** ptr, size_t bytes, cudaStream_t stream) {
    return cudaMallocAsync(ptr, bytes, stream ? stream : cudaStreamPerThread);
}

cudaError_t cudaMallocFromPoolAsync(void** ptr, size_t bytes, cudaMemPool_t pool,
                                    cudaStream_t stream) {
    CUDALAB_API("cudaMallocFromPoolAsync");
    Pool* p = pool_of(pool);
    if (!p) return fail(cudaErrorInvalidValue);
    return result(pool_allocate(p, ptr, bytes, stream, "cudaMallocFromPoolAsync"));
}

cudaError_t cudaFreeAsync(void* ptr, cudaStream_t stream) {
    CUDALAB_API("cudaFreeAsync");
    if (cudaError_t e = device_gate()) return fail(e);
    if (!ptr) return cudaSuccess;
    const auto base = reinterpret_cast<std::uint64_t>(ptr);
    Stream* s = rt.stream(stream);
    if (!s) return fail(cudaErrorInvalidResourceHandle);
    if (s->capture_status == cudaStreamCaptureStatusActive && s->capture_graph) {
        // Captured: a free node. Graph memory stays the graph's; other memory is freed when a
        // launch of the graph reaches the node (stream_ordered_free).
        const MemoryRecord* r = rt.record_of(ptr);
        if (!graph_memory().count(base) &&
            !(r && r->base == base &&
              (r->kind == MemoryKind::pool || r->kind == MemoryKind::device))) {
            rt.warn("cudaFreeAsync: the pointer was not allocated with cudaMallocAsync or "
                    "cudaMalloc, or was already freed");
            return fail(cudaErrorInvalidValue);
        }
        Work w;
        w.kind = Work::Kind::free;
        w.pointer = ptr;
        return result(issue(s, std::move(w), "cudaFreeAsync"));
    }
    // The race check: the free is work of the stream, after which the bytes are nobody's.
    if (const MemoryRecord* r = rt.record_of(ptr); r && r->base == base) {
        const std::uint32_t op = rt.ordering.begin(s, "cudaFreeAsync");
        rt.ordering.free_range(op, r->base, r->base + r->size);
    }
    return result(cudalab::cudart::stream_ordered_free(ptr, "cudaFreeAsync"));
}

}  // extern "C"

namespace cudalab::cudart {

int stream_ordered_free(void* ptr, const char* api) {
    Runtime& rt = Runtime::get();
    const auto base = reinterpret_cast<std::uint64_t>(ptr);
    if (auto g = graph_memory().find(base); g != graph_memory().end()) {
        // The graph's own: kept for its next launch, which may now allocate it again.
        if (!g->second.allocated) {
            rt.warn(std::string(api) + ": graph memory at " + hex(base) +
                    " is not allocated now (freed already, or its graph has not run)");
            return cudaErrorInvalidValue;
        }
        g->second.allocated = false;
        return cudaSuccess;
    }
    for (auto& [h, p] : pools()) {
        auto it = p->live.find(base);
        if (it == p->live.end()) continue;
        p->free_blocks.insert({it->second, base});
        p->used -= it->second;
        p->live.erase(it);
        return cudaSuccess;
    }
    // cudaFreeAsync also frees cudaMalloc'd memory (stream-ordered).
    const MemoryRecord* r = rt.record_of(ptr);
    if (r && r->kind == MemoryKind::device && r->base == base) return free_device(ptr, api);
    rt.warn(
        std::string(api) +
        ": the pointer was not allocated with cudaMallocAsync or cudaMalloc, or was already freed");
    return cudaErrorInvalidValue;
}

}  // namespace cudalab::cudart

extern "C" {

cudaError_t cudaFreeAsync_ptsz(void* ptr, cudaStream_t stream) {
    return cudaFreeAsync(ptr, stream);
}

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t* pool, int device) {
    CUDALAB_API("cudaDeviceGetDefaultMemPool");
    if (!pool) return fail(cudaErrorInvalidValue);
    if (device < 0 || device >= rt.device_count) return fail(cudaErrorInvalidDevice);
    *pool = reinterpret_cast<cudaMemPool_t>(default_pool(device));
    return cudaSuccess;
}

cudaError_t cudaDeviceGetMemPool(cudaMemPool_t* pool, int device) {
    return cudaDeviceGetDefaultMemPool(pool, device);
}

cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t pool) {
    CUDALAB_API("cudaDeviceSetMemPool");
    return pool_of(pool) ? cudaSuccess : fail(cudaErrorInvalidValue);
}

cudaError_t cudaMemPoolCreate(cudaMemPool_t* pool, const cudaMemPoolProps* props) {
    CUDALAB_API("cudaMemPoolCreate");
    if (!pool || !props) return fail(cudaErrorInvalidValue);
    auto p = std::make_unique<Pool>();
    p->device = props->location.id;
    Pool* raw = p.get();
    pools()[raw] = std::move(p);
    *pool = reinterpret_cast<cudaMemPool_t>(raw);
    return cudaSuccess;
}

cudaError_t cudaMemPoolDestroy(cudaMemPool_t pool) {
    CUDALAB_API("cudaMemPoolDestroy");
    Pool* p = pool_of(pool);
    if (!p) return fail(cudaErrorInvalidValue);
    trim(p, 0);
    pools().erase(pool);
    return cudaSuccess;
}

cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t keep) {
    CUDALAB_API("cudaMemPoolTrimTo");
    Pool* p = pool_of(pool);
    if (!p) return fail(cudaErrorInvalidValue);
    trim(p, keep);
    return cudaSuccess;
}

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void* value) {
    CUDALAB_API("cudaMemPoolSetAttribute");
    Pool* p = pool_of(pool);
    if (!p || !value) return fail(cudaErrorInvalidValue);
    switch (attr) {
    case cudaMemPoolAttrReleaseThreshold:
        p->release_threshold = *static_cast<std::uint64_t*>(value);
        break;
    case cudaMemPoolReuseFollowEventDependencies:
        p->reuse_follow_events = *static_cast<int*>(value);
        break;
    case cudaMemPoolReuseAllowOpportunistic:
        p->reuse_opportunistic = *static_cast<int*>(value);
        break;
    case cudaMemPoolReuseAllowInternalDependencies:
        p->reuse_internal = *static_cast<int*>(value);
        break;
    case cudaMemPoolAttrReservedMemHigh: p->reserved_high = 0; break;  // only 0 may be set: a reset
    case cudaMemPoolAttrUsedMemHigh: p->used_high = 0; break;
    default: return fail(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, cudaMemPoolAttr attr, void* value) {
    CUDALAB_API("cudaMemPoolGetAttribute");
    Pool* p = pool_of(pool);
    if (!p || !value) return fail(cudaErrorInvalidValue);
    auto u64 = [&](std::uint64_t v) { *static_cast<std::uint64_t*>(value) = v; };
    switch (attr) {
    case cudaMemPoolAttrReleaseThreshold: u64(p->release_threshold); break;
    case cudaMemPoolAttrReservedMemCurrent: u64(p->reserved); break;
    case cudaMemPoolAttrReservedMemHigh: u64(p->reserved_high); break;
    case cudaMemPoolAttrUsedMemCurrent: u64(p->used); break;
    case cudaMemPoolAttrUsedMemHigh: u64(p->used_high); break;
    case cudaMemPoolReuseFollowEventDependencies:
        *static_cast<int*>(value) = p->reuse_follow_events;
        break;
    case cudaMemPoolReuseAllowOpportunistic:
        *static_cast<int*>(value) = p->reuse_opportunistic;
        break;
    case cudaMemPoolReuseAllowInternalDependencies:
        *static_cast<int*>(value) = p->reuse_internal;
        break;
    default: return fail(cudaErrorInvalidValue);
    }
    return cudaSuccess;
}

cudaError_t cudaMemPoolSetAccess(cudaMemPool_t pool, const cudaMemAccessDesc*, size_t) {
    return pool_of(pool) ? cudaSuccess : fail(cudaErrorInvalidValue);
}

}  // extern "C"
