// The CUDA runtime and driver API, part 7: CUDA arrays (plain, 3D, layered, cubemap, mipmapped),
// copies into and out of them, and texture and surface objects. An array is device memory laid
// out row by row (arrays.h); a texture or surface object is an entry of the emulator's registry
// (emulator/texture.h), found by the kernels' tex, tld4, txq, suld, sust, sured and suq through
// the handle. What is checked, and the error codes, are CUDA's: a Hopper GPU's answers are
// pinned by tests/agreement/texture_ops.cu.
#include <cuda.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <vector>

#include "cudart/api.h"
#include "cudart/arrays.h"

// cudaMemcpyToArray and cudaMemcpyFromArray are deprecated, and still exported and used.
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

using namespace cudalab;
using namespace cudalab::cudart;

namespace {

// The runtime's make_cuda* helpers (driver_functions.h, which a C++ file cannot include alone).
cudaExtent make_cudaExtent(std::size_t w, std::size_t h, std::size_t d) { return {w, h, d}; }
cudaPos make_cudaPos(std::size_t x, std::size_t y, std::size_t z) { return {x, y, z}; }
cudaPitchedPtr make_cudaPitchedPtr(void* p, std::size_t pitch, std::size_t xs, std::size_t ys) {
    return {p, pitch, xs, ys};
}

}  // namespace

namespace cudalab::cudart {

struct MipmappedArray {
    std::vector<std::unique_ptr<Array>> levels;
    cudaChannelFormatDesc desc{};
    cudaExtent extent{};
    unsigned flags = 0;
};

namespace {

// The device process's arrays and objects, under the runtime's lock (every call holds it).
std::map<const void*, std::unique_ptr<Array>> arrays;
std::map<const void*, std::unique_ptr<MipmappedArray>> mipmapped_arrays;
struct TextureRecord {
    cudaResourceDesc resource{};
    cudaTextureDesc texture{};
    cudaResourceViewDesc view{};
    bool has_view = false;
};
std::map<std::uint64_t, TextureRecord> texture_records;
std::map<std::uint64_t, cudaResourceDesc> surface_records;

constexpr unsigned known_array_flags =
    cudaArrayLayered | cudaArraySurfaceLoadStore | cudaArrayCubemap | cudaArrayTextureGather;

// A channel descriptor the emulated arrays and textures hold: 1, 2 or 4 channels of one size
// (8, 16 or 32 bits; 16 or 32 for floats) of a signed, unsigned or float kind.
bool format_of(const cudaChannelFormatDesc& d, emu::TexelFormat* f) {
    const int bits[4] = {d.x, d.y, d.z, d.w};
    int channels = 0;
    while (channels < 4 && bits[channels] != 0) ++channels;
    for (int c = channels; c < 4; ++c)
        if (bits[c] != 0) return false;
    if (channels != 1 && channels != 2 && channels != 4) return false;
    for (int c = 1; c < channels; ++c)
        if (bits[c] != bits[0]) return false;
    if (bits[0] != 8 && bits[0] != 16 && bits[0] != 32) return false;
    switch (d.f) {
    case cudaChannelFormatKindSigned: f->kind = emu::TexelKind::signed_int; break;
    case cudaChannelFormatKindUnsigned: f->kind = emu::TexelKind::unsigned_int; break;
    case cudaChannelFormatKindFloat:
        if (bits[0] == 8) return false;
        f->kind = emu::TexelKind::float_;
        break;
    default: return false;  // the block-compressed and NV12 formats: not emulated
    }
    f->channels = std::uint8_t(channels);
    f->bits = std::uint8_t(bits[0]);
    return true;
}

const Array* array_of(const void* handle) {
    auto it = arrays.find(handle);
    if (it != arrays.end()) return it->second.get();
    for (const auto& [h, m] : mipmapped_arrays)
        for (const auto& level : m->levels)
            if (level.get() == handle) return level.get();
    return nullptr;
}

// The layout of an array of `extent` (as cudaMalloc3DArray takes it) and its flags.
cudaError_t make_array(const cudaChannelFormatDesc* desc, cudaExtent extent, unsigned flags,
                       std::unique_ptr<Array>* out, const char* api) {
    Runtime& rt = Runtime::get();
    auto a = std::make_unique<Array>();
    if (!desc || (flags & ~known_array_flags)) return cudaErrorInvalidValue;
    if (!format_of(*desc, &a->format)) {
        rt.warn(std::string(api) + ": the channel format (" + std::to_string(desc->x) + ", " +
                std::to_string(desc->y) + ", " + std::to_string(desc->z) + ", " +
                std::to_string(desc->w) + " bits, kind " + std::to_string(int(desc->f)) +
                ") is not one the emulator holds: 1, 2 or 4 channels of 8, 16 or 32 bits");
        return cudaErrorInvalidChannelDescriptor;
    }
    const bool layered = flags & cudaArrayLayered, cubemap = flags & cudaArrayCubemap;
    const std::uint64_t max_dim = 1u << 16;
    if (extent.width == 0 || extent.width > max_dim || extent.height > max_dim ||
        extent.depth > (layered ? 2048u * 6 : max_dim))
        return cudaErrorInvalidValue;
    std::uint64_t width = extent.width, height = std::max<std::uint64_t>(extent.height, 1),
                  depth = std::max<std::uint64_t>(extent.depth, 1);
    std::uint8_t dims = extent.height == 0 ? 1 : extent.depth == 0 || layered || cubemap ? 2 : 3;
    if (cubemap) {
        // Square faces, six of them (per layer).
        if (extent.width != extent.height || extent.depth == 0 || extent.depth % 6 != 0 ||
            (!layered && extent.depth != 6))
            return cudaErrorInvalidValue;
    }
    if (layered && extent.depth == 0) return cudaErrorInvalidValue;
    if (layered && extent.height == 0) dims = 1;
    a->desc = *desc;
    a->extent = extent;
    a->flags = flags;
    a->dims = dims;
    a->device = rt.current_device();
    const std::uint64_t row = width * a->format.bytes();
    const std::uint64_t bytes = row * height * depth;
    if (bytes > (1ull << 36)) return cudaErrorMemoryAllocation;
    // Arrays are emulated device memory like cudaMalloc's, under the same limit.
    if (rt.memory->bytes_allocated() + bytes > rt.memory_limit) {
        rt.warn(std::string(api) + ": " + std::to_string(bytes) +
                " more bytes would take emulated device memory past " +
                std::to_string(rt.memory_limit >> 20) +
                " MB, the most this machine lends it (CUDALAB_MEMORY_LIMIT, in MB)");
        return cudaErrorMemoryAllocation;
    }
    try {
        a->base = rt.memory->allocate(bytes, std::string(api) + " (a CUDA array)");
    } catch (const std::bad_alloc&) {
        rt.warn(std::string(api) + ": " + std::to_string(bytes) +
                " bytes do not fit in this machine's memory");
        return cudaErrorMemoryAllocation;
    }
    a->level.address = a->base;
    a->level.width = std::uint32_t(width);
    a->level.height = std::uint32_t(height);
    a->level.depth = std::uint32_t(depth);
    a->level.row_pitch = row;
    a->level.slice_pitch = row * height;
    *out = std::move(a);
    return cudaSuccess;
}

emu::AddressMode address_mode(cudaTextureAddressMode m) {
    switch (m) {
    case cudaAddressModeWrap: return emu::AddressMode::wrap;
    case cudaAddressModeMirror: return emu::AddressMode::mirror;
    case cudaAddressModeBorder: return emu::AddressMode::border;
    default: return emu::AddressMode::clamp;
    }
}

// The memory a linear or pitched resource names: inside one live device allocation.
bool device_range(const void* p, std::uint64_t bytes) {
    const emu::Allocation* a = Runtime::get().memory->find(reinterpret_cast<std::uint64_t>(p),
                                                           std::max<std::uint64_t>(bytes, 1));
    return a && !a->freed && !a->host;
}

// The texels a resource descriptor names, as the emulator reads them.
cudaError_t resource_of(const cudaResourceDesc& r, emu::TextureResource* out, bool surface,
                        const char* api) {
    Runtime& rt = Runtime::get();
    auto from_array = [&](const Array* a) {
        out->format = a->format;
        out->levels.push_back(a->level);
        out->dims = a->dims;
        out->layered = a->flags & cudaArrayLayered;
        out->cubemap = a->flags & cudaArrayCubemap;
    };
    switch (r.resType) {
    case cudaResourceTypeArray: {
        const Array* a = array_of(r.res.array.array);
        if (!a) return cudaErrorInvalidResourceHandle;
        if (surface && !(a->flags & cudaArraySurfaceLoadStore)) {
            rt.warn(std::string(api) +
                    ": the array was not allocated with cudaArraySurfaceLoadStore, which a "
                    "surface needs");
            return cudaErrorInvalidValue;
        }
        from_array(a);
        return cudaSuccess;
    }
    case cudaResourceTypeMipmappedArray: {
        if (surface) return cudaErrorInvalidValue;
        auto it = mipmapped_arrays.find(r.res.mipmap.mipmap);
        if (it == mipmapped_arrays.end()) return cudaErrorInvalidResourceHandle;
        const MipmappedArray& m = *it->second;
        from_array(m.levels[0].get());
        out->levels.clear();
        for (const auto& level : m.levels) out->levels.push_back(level->level);
        return cudaSuccess;
    }
    case cudaResourceTypeLinear: {
        if (surface) return cudaErrorInvalidValue;
        if (!format_of(r.res.linear.desc, &out->format)) return cudaErrorInvalidChannelDescriptor;
        const std::uint64_t count = r.res.linear.sizeInBytes / out->format.bytes();
        if (!r.res.linear.devPtr || count == 0 || count > (1ull << 31) ||
            !device_range(r.res.linear.devPtr, r.res.linear.sizeInBytes)) {
            rt.warn(std::string(api) + ": the linear resource's memory is not " +
                    std::to_string(r.res.linear.sizeInBytes) + " bytes of one device allocation");
            return cudaErrorInvalidValue;
        }
        emu::TextureLevel l;
        l.address = reinterpret_cast<std::uint64_t>(r.res.linear.devPtr);
        l.width = std::uint32_t(count);
        l.row_pitch = l.slice_pitch = count * out->format.bytes();
        out->levels.push_back(l);
        out->dims = 1;
        out->linear_memory = true;
        return cudaSuccess;
    }
    case cudaResourceTypePitch2D: {
        if (surface) return cudaErrorInvalidValue;
        const auto& p = r.res.pitch2D;
        if (!format_of(p.desc, &out->format)) return cudaErrorInvalidChannelDescriptor;
        if (!p.devPtr || p.width == 0 || p.height == 0 || p.width > (1u << 17) ||
            p.height > (1u << 17) || p.pitchInBytes < p.width * out->format.bytes() ||
            !device_range(p.devPtr,
                          p.pitchInBytes * (p.height - 1) + p.width * out->format.bytes())) {
            rt.warn(std::string(api) + ": the pitched resource (" + std::to_string(p.width) +
                    " x " + std::to_string(p.height) + ", pitch " + std::to_string(p.pitchInBytes) +
                    " bytes) is not inside one device allocation");
            return cudaErrorInvalidValue;
        }
        emu::TextureLevel l;
        l.address = reinterpret_cast<std::uint64_t>(p.devPtr);
        l.width = std::uint32_t(p.width);
        l.height = std::uint32_t(p.height);
        l.row_pitch = p.pitchInBytes;
        l.slice_pitch = p.pitchInBytes * p.height;
        // The last row need not be a whole pitch long.
        out->levels.push_back(l);
        out->dims = 2;
        return cudaSuccess;
    }
    default: return cudaErrorInvalidValue;
    }
}

// A copy between a CUDA array and linear memory (or another array), as cudaMemcpy3D.
cudaError_t array_copy(cudaMemcpy3DParms p, bool async, cudaStream_t stream) {
    return async ? cudaMemcpy3DAsync(&p, stream) : cudaMemcpy3D(&p);
}

// The 2D copies name the array side's x offset and width in bytes; cudaMemcpy3D counts elements.
cudaError_t bytes_to_elements(const void* array, std::size_t offset_bytes, std::size_t width_bytes,
                              std::size_t* offset, std::size_t* width) {
    const Array* a = array_of(array);
    if (!a) return cudaErrorInvalidResourceHandle;
    const std::size_t e = a->format.bytes();
    if (offset_bytes % e || width_bytes % e) return cudaErrorInvalidValue;
    *offset = offset_bytes / e;
    *width = width_bytes / e;
    return cudaSuccess;
}

}  // namespace

const Array* find_array(const void* handle) { return array_of(handle); }

cudaError_t array_region(const void* handle, cudaPos position, cudaExtent* extent,
                         std::uint8_t** at, std::uint64_t* pitch, std::uint64_t* slice) {
    const Array* a = array_of(handle);
    if (!a) return cudaErrorInvalidResourceHandle;
    const emu::TextureLevel& l = a->level;
    const std::uint64_t h = std::max<std::uint64_t>(extent->height, 1),
                        d = std::max<std::uint64_t>(extent->depth, 1);
    if (position.x + extent->width > l.width || position.y + h > l.height ||
        position.z + d > l.depth) {
        Runtime::get().warn("the copy's region (" + std::to_string(extent->width) + " x " +
                            std::to_string(h) + " x " + std::to_string(d) + " at " +
                            std::to_string(position.x) + ", " + std::to_string(position.y) + ", " +
                            std::to_string(position.z) + ") is outside the " +
                            std::to_string(l.width) + " x " + std::to_string(l.height) + " x " +
                            std::to_string(l.depth) + " CUDA array");
        return cudaErrorInvalidValue;
    }
    *at =
        reinterpret_cast<std::uint8_t*>(l.address + position.z * l.slice_pitch +
                                        position.y * l.row_pitch + position.x * a->format.bytes());
    *pitch = l.row_pitch;
    *slice = l.slice_pitch;
    extent->width *= a->format.bytes();
    return cudaSuccess;
}

}  // namespace cudalab::cudart

// [SECTION] Arrays
// -----------------------------------------------------------------------------------

namespace {

cudaError_t allocate_array(cudaArray_t* array, const cudaChannelFormatDesc* desc, cudaExtent extent,
                           unsigned int flags, const char* api) {
    if (!array) return fail(cudaErrorInvalidValue);
    *array = nullptr;
    if (cudaError_t e = device_gate()) return fail(e);
    std::unique_ptr<Array> a;
    if (cudaError_t e = make_array(desc, extent, flags, &a, api)) return fail(e);
    *array = reinterpret_cast<cudaArray_t>(a.get());
    arrays[a.get()] = std::move(a);
    return cudaSuccess;
}

}  // namespace

extern "C" {

cudaError_t cudaMalloc3DArray(cudaArray_t* array, const cudaChannelFormatDesc* desc,
                              cudaExtent extent, unsigned int flags) {
    CUDALAB_API("cudaMalloc3DArray");
    return allocate_array(array, desc, extent, flags, "cudaMalloc3DArray");
}

cudaError_t cudaMallocArray(cudaArray_t* array, const cudaChannelFormatDesc* desc, size_t width,
                            size_t height, unsigned int flags) {
    CUDALAB_API("cudaMallocArray");
    if (flags & (cudaArrayLayered | cudaArrayCubemap)) return fail(cudaErrorInvalidValue);
    return allocate_array(array, desc, make_cudaExtent(width, height, 0), flags, "cudaMallocArray");
}

cudaError_t cudaFreeArray(cudaArray_t array) {
    CUDALAB_API("cudaFreeArray");
    if (!array) return cudaSuccess;
    auto it = arrays.find(array);
    if (it == arrays.end()) {
        rt.warn(array_of(array) ? "cudaFreeArray: the array is a level of a mipmapped array; free "
                                  "the mipmapped array with cudaFreeMipmappedArray"
                                : "cudaFreeArray: the handle is not a live CUDA array (freed "
                                  "already, or never allocated)");
        return fail(cudaErrorInvalidValue);
    }
    wait_device(it->second->device);  // as cudaFree, it waits for the device's work
    rt.memory->release(it->second->base);
    arrays.erase(it);
    return cudaSuccess;
}

cudaError_t cudaMallocMipmappedArray(cudaMipmappedArray_t* out, const cudaChannelFormatDesc* desc,
                                     cudaExtent extent, unsigned int levels, unsigned int flags) {
    CUDALAB_API("cudaMallocMipmappedArray");
    if (!out) return fail(cudaErrorInvalidValue);
    *out = nullptr;
    if (cudaError_t e = device_gate()) return fail(e);
    const std::uint64_t largest = std::max({extent.width, extent.height, extent.depth});
    unsigned most = 1;
    while ((largest >> most) > 0) ++most;
    if (levels == 0) levels = most;
    if (levels > most || levels > 16) return fail(cudaErrorInvalidValue);
    auto m = std::make_unique<MipmappedArray>();
    m->extent = extent;
    m->flags = flags;
    if (desc) m->desc = *desc;
    const bool layered = flags & (cudaArrayLayered | cudaArrayCubemap);
    for (unsigned l = 0; l < levels; ++l) {
        auto shrink = [&](std::size_t v) { return v == 0 ? v : std::max<std::size_t>(v >> l, 1); };
        const cudaExtent e = make_cudaExtent(shrink(extent.width), shrink(extent.height),
                                             layered ? extent.depth : shrink(extent.depth));
        std::unique_ptr<Array> a;
        if (cudaError_t err = make_array(desc, e, flags, &a, "cudaMallocMipmappedArray")) {
            for (auto& made : m->levels) rt.memory->release(made->base);
            return fail(err);
        }
        a->owner = m.get();
        m->levels.push_back(std::move(a));
    }
    *out = reinterpret_cast<cudaMipmappedArray_t>(m.get());
    mipmapped_arrays[m.get()] = std::move(m);
    return cudaSuccess;
}

cudaError_t cudaGetMipmappedArrayLevel(cudaArray_t* level, cudaMipmappedArray_const_t array,
                                       unsigned int index) {
    CUDALAB_API("cudaGetMipmappedArrayLevel");
    if (!level) return fail(cudaErrorInvalidValue);
    auto it = mipmapped_arrays.find(array);
    if (it == mipmapped_arrays.end()) return fail(cudaErrorInvalidResourceHandle);
    if (index >= it->second->levels.size()) return fail(cudaErrorInvalidValue);
    *level = reinterpret_cast<cudaArray_t>(it->second->levels[index].get());
    return cudaSuccess;
}

cudaError_t cudaFreeMipmappedArray(cudaMipmappedArray_t array) {
    CUDALAB_API("cudaFreeMipmappedArray");
    if (!array) return cudaSuccess;
    auto it = mipmapped_arrays.find(array);
    if (it == mipmapped_arrays.end()) return fail(cudaErrorInvalidValue);
    wait_device(it->second->levels[0]->device);
    for (const auto& l : it->second->levels) rt.memory->release(l->base);
    mipmapped_arrays.erase(it);
    return cudaSuccess;
}

cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc* desc, cudaExtent* extent, unsigned int* flags,
                             cudaArray_t array) {
    CUDALAB_API("cudaArrayGetInfo");
    const Array* a = array_of(array);
    if (!a) return fail(cudaErrorInvalidResourceHandle);
    if (desc) *desc = a->desc;
    if (extent) *extent = a->extent;
    if (flags) *flags = a->flags;
    return cudaSuccess;
}

cudaError_t cudaGetChannelDesc(cudaChannelFormatDesc* desc, cudaArray_const_t array) {
    CUDALAB_API("cudaGetChannelDesc");
    const Array* a = array_of(array);
    if (!a) return fail(cudaErrorInvalidResourceHandle);
    if (!desc) return fail(cudaErrorInvalidValue);
    *desc = a->desc;
    return cudaSuccess;
}

// [SECTION] Copies into and out of arrays
// --------------------------------------------------------------

cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t w_offset, size_t h_offset,
                                     const void* src, size_t spitch, size_t width, size_t height,
                                     cudaMemcpyKind kind, cudaStream_t stream) {
    CUDALAB_API("cudaMemcpy2DToArrayAsync");
    cudaMemcpy3DParms p{};
    std::size_t x, w;
    if (cudaError_t e = bytes_to_elements(dst, w_offset, width, &x, &w)) return fail(e);
    if (width > spitch && height > 1) return fail(cudaErrorInvalidPitchValue);
    p.srcPtr = make_cudaPitchedPtr(const_cast<void*>(src), std::max(spitch, width), width, height);
    p.dstArray = dst;
    p.dstPos = make_cudaPos(x, h_offset, 0);
    p.extent = make_cudaExtent(w, height, 1);
    p.kind = kind;
    return array_copy(p, true, stream);
}

cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t w_offset, size_t h_offset, const void* src,
                                size_t spitch, size_t width, size_t height, cudaMemcpyKind kind) {
    CUDALAB_API("cudaMemcpy2DToArray");
    cudaMemcpy3DParms p{};
    std::size_t x, w;
    if (cudaError_t e = bytes_to_elements(dst, w_offset, width, &x, &w)) return fail(e);
    if (width > spitch && height > 1) return fail(cudaErrorInvalidPitchValue);
    p.srcPtr = make_cudaPitchedPtr(const_cast<void*>(src), std::max(spitch, width), width, height);
    p.dstArray = dst;
    p.dstPos = make_cudaPos(x, h_offset, 0);
    p.extent = make_cudaExtent(w, height, 1);
    p.kind = kind;
    return array_copy(p, false, nullptr);
}

cudaError_t cudaMemcpy2DFromArrayAsync(void* dst, size_t dpitch, cudaArray_const_t src,
                                       size_t w_offset, size_t h_offset, size_t width,
                                       size_t height, cudaMemcpyKind kind, cudaStream_t stream) {
    CUDALAB_API("cudaMemcpy2DFromArrayAsync");
    cudaMemcpy3DParms p{};
    std::size_t x, w;
    if (cudaError_t e = bytes_to_elements(src, w_offset, width, &x, &w)) return fail(e);
    if (width > dpitch && height > 1) return fail(cudaErrorInvalidPitchValue);
    p.srcArray = const_cast<cudaArray_t>(src);
    p.srcPos = make_cudaPos(x, h_offset, 0);
    p.dstPtr = make_cudaPitchedPtr(dst, std::max(dpitch, width), width, height);
    p.extent = make_cudaExtent(w, height, 1);
    p.kind = kind;
    return array_copy(p, true, stream);
}

cudaError_t cudaMemcpy2DFromArray(void* dst, size_t dpitch, cudaArray_const_t src, size_t w_offset,
                                  size_t h_offset, size_t width, size_t height,
                                  cudaMemcpyKind kind) {
    CUDALAB_API("cudaMemcpy2DFromArray");
    cudaMemcpy3DParms p{};
    std::size_t x, w;
    if (cudaError_t e = bytes_to_elements(src, w_offset, width, &x, &w)) return fail(e);
    if (width > dpitch && height > 1) return fail(cudaErrorInvalidPitchValue);
    p.srcArray = const_cast<cudaArray_t>(src);
    p.srcPos = make_cudaPos(x, h_offset, 0);
    p.dstPtr = make_cudaPitchedPtr(dst, std::max(dpitch, width), width, height);
    p.extent = make_cudaExtent(w, height, 1);
    p.kind = kind;
    return array_copy(p, false, nullptr);
}

cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t dst_w, size_t dst_h,
                                     cudaArray_const_t src, size_t src_w, size_t src_h,
                                     size_t width, size_t height, cudaMemcpyKind kind) {
    CUDALAB_API("cudaMemcpy2DArrayToArray");
    cudaMemcpy3DParms p{};
    std::size_t sx, dx, w, w2;
    if (cudaError_t e = bytes_to_elements(src, src_w, width, &sx, &w)) return fail(e);
    if (cudaError_t e = bytes_to_elements(dst, dst_w, width, &dx, &w2)) return fail(e);
    p.srcArray = const_cast<cudaArray_t>(src);
    p.srcPos = make_cudaPos(sx, src_h, 0);
    p.dstArray = dst;
    p.dstPos = make_cudaPos(dx, dst_h, 0);
    p.extent = make_cudaExtent(w, height, 1);
    p.kind = kind;
    return array_copy(p, false, nullptr);
}

// The deprecated 1D forms: `count` bytes from row h_offset, column w_offset (bytes), wrapping
// to the next rows as CUDA's did.
cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t w_offset, size_t h_offset, const void* src,
                              size_t count, cudaMemcpyKind kind) {
    CUDALAB_API("cudaMemcpyToArray");
    const Array* a = array_of(dst);
    if (!a) return fail(cudaErrorInvalidResourceHandle);
    const std::uint64_t row = a->level.row_pitch;
    if (w_offset >= row || h_offset >= a->level.height * std::uint64_t(a->level.depth))
        return fail(cudaErrorInvalidValue);
    const std::uint64_t start = h_offset * row + w_offset;
    if (start + count > row * a->level.height * a->level.depth) return fail(cudaErrorInvalidValue);
    return cudaMemcpy(reinterpret_cast<void*>(a->base + start), src, count, kind);
}

cudaError_t cudaMemcpyFromArray(void* dst, cudaArray_const_t src, size_t w_offset, size_t h_offset,
                                size_t count, cudaMemcpyKind kind) {
    CUDALAB_API("cudaMemcpyFromArray");
    const Array* a = array_of(src);
    if (!a) return fail(cudaErrorInvalidResourceHandle);
    const std::uint64_t row = a->level.row_pitch;
    if (w_offset >= row || h_offset >= a->level.height * std::uint64_t(a->level.depth))
        return fail(cudaErrorInvalidValue);
    const std::uint64_t start = h_offset * row + w_offset;
    if (start + count > row * a->level.height * a->level.depth) return fail(cudaErrorInvalidValue);
    return cudaMemcpy(dst, reinterpret_cast<const void*>(a->base + start), count, kind);
}

// [SECTION] Texture and surface objects
// ---------------------------------------------------------------

cudaError_t cudaCreateTextureObject(cudaTextureObject_t* object, const cudaResourceDesc* resource,
                                    const cudaTextureDesc* texture,
                                    const cudaResourceViewDesc* view) {
    CUDALAB_API("cudaCreateTextureObject");
    if (!object || !resource || !texture) return fail(cudaErrorInvalidValue);
    *object = 0;
    if (cudaError_t e = device_gate()) return fail(e);
    if (view && (view->format != cudaResViewFormatNone || view->firstMipmapLevel != 0 ||
                 view->firstLayer != 0))
        return fail(not_supported("cudaCreateTextureObject", "resource views"));
    emu::TextureObject t;
    if (cudaError_t e = resource_of(*resource, &t.resource, false, "cudaCreateTextureObject"))
        return fail(e);
    const emu::TexelFormat& f = t.resource.format;
    emu::TextureSampler& s = t.sampler;
    s.read_normalized = texture->readMode == cudaReadModeNormalizedFloat;
    // A normalized read needs 8- or 16-bit integers; linear filtering needs float results.
    if (s.read_normalized && (f.kind == emu::TexelKind::float_ || f.bits == 32))
        return fail(cudaErrorInvalidNormSetting);
    s.linear = texture->filterMode == cudaFilterModeLinear;
    if (s.linear && f.kind != emu::TexelKind::float_ && !s.read_normalized)
        return fail(cudaErrorInvalidFilterSetting);
    if (texture->sRGB) return fail(not_supported("cudaCreateTextureObject", "sRGB textures"));
    for (int a = 0; a < 3; ++a) s.address[a] = address_mode(texture->addressMode[a]);
    s.normalized_coords = texture->normalizedCoords != 0;
    for (int c = 0; c < 4; ++c) s.border[c] = texture->borderColor[c];
    s.mip_linear = texture->mipmapFilterMode == cudaFilterModeLinear;
    s.mip_bias = texture->mipmapLevelBias;
    s.min_lod = texture->minMipmapLevelClamp;
    s.max_lod = texture->maxMipmapLevelClamp;
    *object = rt.memory->textures().add(std::move(t));
    TextureRecord record;
    record.resource = *resource;
    record.texture = *texture;
    if (view) {
        record.view = *view;
        record.has_view = true;
    }
    texture_records[*object] = record;
    return cudaSuccess;
}

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t object) {
    CUDALAB_API("cudaDestroyTextureObject");
    if (!object) return cudaSuccess;
    if (!rt.memory->textures().remove_texture(object)) return fail(cudaErrorInvalidValue);
    texture_records.erase(object);
    return cudaSuccess;
}

cudaError_t cudaGetTextureObjectResourceDesc(cudaResourceDesc* desc, cudaTextureObject_t object) {
    CUDALAB_API("cudaGetTextureObjectResourceDesc");
    auto it = texture_records.find(object);
    if (!desc || it == texture_records.end()) return fail(cudaErrorInvalidValue);
    *desc = it->second.resource;
    return cudaSuccess;
}

cudaError_t cudaGetTextureObjectTextureDesc(cudaTextureDesc* desc, cudaTextureObject_t object) {
    CUDALAB_API("cudaGetTextureObjectTextureDesc");
    auto it = texture_records.find(object);
    if (!desc || it == texture_records.end()) return fail(cudaErrorInvalidValue);
    *desc = it->second.texture;
    return cudaSuccess;
}

cudaError_t cudaGetTextureObjectResourceViewDesc(cudaResourceViewDesc* desc,
                                                 cudaTextureObject_t object) {
    CUDALAB_API("cudaGetTextureObjectResourceViewDesc");
    auto it = texture_records.find(object);
    if (!desc || it == texture_records.end() || !it->second.has_view)
        return fail(cudaErrorInvalidValue);
    *desc = it->second.view;
    return cudaSuccess;
}

cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t* object, const cudaResourceDesc* resource) {
    CUDALAB_API("cudaCreateSurfaceObject");
    if (!object || !resource) return fail(cudaErrorInvalidValue);
    *object = 0;
    if (cudaError_t e = device_gate()) return fail(e);
    emu::SurfaceObject s;
    if (cudaError_t e = resource_of(*resource, &s.resource, true, "cudaCreateSurfaceObject"))
        return fail(e);
    *object = rt.memory->textures().add(std::move(s));
    surface_records[*object] = *resource;
    return cudaSuccess;
}

cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t object) {
    CUDALAB_API("cudaDestroySurfaceObject");
    if (!object) return cudaSuccess;
    if (!rt.memory->textures().remove_surface(object)) return fail(cudaErrorInvalidValue);
    surface_records.erase(object);
    return cudaSuccess;
}

cudaError_t cudaGetSurfaceObjectResourceDesc(cudaResourceDesc* desc, cudaSurfaceObject_t object) {
    CUDALAB_API("cudaGetSurfaceObjectResourceDesc");
    auto it = surface_records.find(object);
    if (!desc || it == surface_records.end()) return fail(cudaErrorInvalidValue);
    *desc = it->second;
    return cudaSuccess;
}

}  // extern "C"

// [SECTION] The driver API's arrays and objects
// --------------------------------------------------------

namespace {

CUresult as_driver(cudaError_t e) {
    switch (e) {
    case cudaSuccess: return CUDA_SUCCESS;
    case cudaErrorInvalidResourceHandle: return CUDA_ERROR_INVALID_HANDLE;
    case cudaErrorMemoryAllocation: return CUDA_ERROR_OUT_OF_MEMORY;
    case cudaErrorNotSupported: return CUDA_ERROR_NOT_SUPPORTED;
    case cudaErrorInsufficientDriver: return CUDA_ERROR_NOT_INITIALIZED;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
}

bool channel_desc(CUarray_format format, unsigned channels, cudaChannelFormatDesc* d) {
    int bits = 0;
    cudaChannelFormatKind kind = cudaChannelFormatKindUnsigned;
    switch (format) {
    case CU_AD_FORMAT_UNSIGNED_INT8: bits = 8; break;
    case CU_AD_FORMAT_UNSIGNED_INT16: bits = 16; break;
    case CU_AD_FORMAT_UNSIGNED_INT32: bits = 32; break;
    case CU_AD_FORMAT_SIGNED_INT8: bits = 8, kind = cudaChannelFormatKindSigned; break;
    case CU_AD_FORMAT_SIGNED_INT16: bits = 16, kind = cudaChannelFormatKindSigned; break;
    case CU_AD_FORMAT_SIGNED_INT32: bits = 32, kind = cudaChannelFormatKindSigned; break;
    case CU_AD_FORMAT_HALF: bits = 16, kind = cudaChannelFormatKindFloat; break;
    case CU_AD_FORMAT_FLOAT: bits = 32, kind = cudaChannelFormatKindFloat; break;
    default: return false;
    }
    if (channels != 1 && channels != 2 && channels != 4) return false;
    *d = cudaChannelFormatDesc{bits, channels > 1 ? bits : 0, channels > 2 ? bits : 0,
                               channels > 2 ? bits : 0, kind};
    return true;
}

bool array_format(const cudaChannelFormatDesc& d, CUarray_format* format, unsigned* channels) {
    emu::TexelFormat f;
    if (!format_of(d, &f)) return false;
    *channels = f.channels;
    switch (f.kind) {
    case emu::TexelKind::float_:
        *format = f.bits == 16 ? CU_AD_FORMAT_HALF : CU_AD_FORMAT_FLOAT;
        break;
    case emu::TexelKind::signed_int:
        *format = f.bits == 8    ? CU_AD_FORMAT_SIGNED_INT8
                  : f.bits == 16 ? CU_AD_FORMAT_SIGNED_INT16
                                 : CU_AD_FORMAT_SIGNED_INT32;
        break;
    default:
        *format = f.bits == 8    ? CU_AD_FORMAT_UNSIGNED_INT8
                  : f.bits == 16 ? CU_AD_FORMAT_UNSIGNED_INT16
                                 : CU_AD_FORMAT_UNSIGNED_INT32;
    }
    return true;
}

// A side of a driver copy (CUDA_MEMCPY2D/3D): a host pointer, device memory or an array, as a
// byte address (array sides: into the array's memory) with its pitch.
cudaError_t driver_side(CUmemorytype type, const void* host, CUdeviceptr device, CUarray array,
                        std::size_t x_bytes, std::size_t y, std::size_t z, std::size_t pitch,
                        std::size_t height, std::size_t width_bytes, std::size_t rows,
                        std::size_t depth, cudaPitchedPtr* out) {
    std::uint64_t base = 0;
    std::size_t row = pitch;
    std::size_t slice_rows = height;
    switch (type) {
    case CU_MEMORYTYPE_HOST: base = reinterpret_cast<std::uint64_t>(host); break;
    case CU_MEMORYTYPE_DEVICE:
    case CU_MEMORYTYPE_UNIFIED: base = device; break;
    case CU_MEMORYTYPE_ARRAY: {
        const Array* a = find_array(array);
        if (!a) return cudaErrorInvalidResourceHandle;
        if (x_bytes + width_bytes > a->level.row_pitch || y + rows > a->level.height ||
            z + depth > a->level.depth)
            return cudaErrorInvalidValue;
        base = a->base;
        row = a->level.row_pitch;
        slice_rows = a->level.height;
        break;
    }
    default: return cudaErrorInvalidValue;
    }
    if (row == 0) row = width_bytes;
    if (slice_rows == 0) slice_rows = rows;
    out->ptr = reinterpret_cast<void*>(base + z * row * slice_rows + y * row + x_bytes);
    out->pitch = row;
    out->xsize = width_bytes;
    out->ysize = slice_rows;
    return cudaSuccess;
}

cudaError_t driver_copy(const CUDA_MEMCPY3D& c, bool async, CUstream stream) {
    cudaPitchedPtr src, dst;
    const std::size_t depth = std::max<std::size_t>(c.Depth, 1);
    if (cudaError_t e =
            driver_side(c.srcMemoryType, c.srcHost, c.srcDevice, c.srcArray, c.srcXInBytes, c.srcY,
                        c.srcZ, c.srcPitch, c.srcHeight, c.WidthInBytes, c.Height, depth, &src))
        return e;
    if (cudaError_t e =
            driver_side(c.dstMemoryType, c.dstHost, c.dstDevice, c.dstArray, c.dstXInBytes, c.dstY,
                        c.dstZ, c.dstPitch, c.dstHeight, c.WidthInBytes, c.Height, depth, &dst))
        return e;
    cudaMemcpy3DParms p{};
    p.srcPtr = src;
    p.dstPtr = dst;
    p.extent = make_cudaExtent(c.WidthInBytes, c.Height, depth);
    p.kind = cudaMemcpyDefault;
    return async ? cudaMemcpy3DAsync(&p, reinterpret_cast<cudaStream_t>(stream)) : cudaMemcpy3D(&p);
}

CUDA_MEMCPY3D from_2d(const CUDA_MEMCPY2D& c) {
    CUDA_MEMCPY3D d{};
    d.srcXInBytes = c.srcXInBytes;
    d.srcY = c.srcY;
    d.srcMemoryType = c.srcMemoryType;
    d.srcHost = c.srcHost;
    d.srcDevice = c.srcDevice;
    d.srcArray = c.srcArray;
    d.srcPitch = c.srcPitch;
    d.dstXInBytes = c.dstXInBytes;
    d.dstY = c.dstY;
    d.dstMemoryType = c.dstMemoryType;
    d.dstHost = c.dstHost;
    d.dstDevice = c.dstDevice;
    d.dstArray = c.dstArray;
    d.dstPitch = c.dstPitch;
    d.WidthInBytes = c.WidthInBytes;
    d.Height = c.Height;
    d.Depth = 1;
    return d;
}

cudaError_t driver_resource(const CUDA_RESOURCE_DESC& r, cudaResourceDesc* out) {
    *out = cudaResourceDesc{};
    switch (r.resType) {
    case CU_RESOURCE_TYPE_ARRAY:
        out->resType = cudaResourceTypeArray;
        out->res.array.array = reinterpret_cast<cudaArray_t>(r.res.array.hArray);
        return cudaSuccess;
    case CU_RESOURCE_TYPE_MIPMAPPED_ARRAY:
        out->resType = cudaResourceTypeMipmappedArray;
        out->res.mipmap.mipmap =
            reinterpret_cast<cudaMipmappedArray_t>(r.res.mipmap.hMipmappedArray);
        return cudaSuccess;
    case CU_RESOURCE_TYPE_LINEAR:
        out->resType = cudaResourceTypeLinear;
        out->res.linear.devPtr = reinterpret_cast<void*>(r.res.linear.devPtr);
        if (!channel_desc(r.res.linear.format, r.res.linear.numChannels, &out->res.linear.desc))
            return cudaErrorInvalidChannelDescriptor;
        out->res.linear.sizeInBytes = r.res.linear.sizeInBytes;
        return cudaSuccess;
    case CU_RESOURCE_TYPE_PITCH2D:
        out->resType = cudaResourceTypePitch2D;
        out->res.pitch2D.devPtr = reinterpret_cast<void*>(r.res.pitch2D.devPtr);
        if (!channel_desc(r.res.pitch2D.format, r.res.pitch2D.numChannels, &out->res.pitch2D.desc))
            return cudaErrorInvalidChannelDescriptor;
        out->res.pitch2D.width = r.res.pitch2D.width;
        out->res.pitch2D.height = r.res.pitch2D.height;
        out->res.pitch2D.pitchInBytes = r.res.pitch2D.pitchInBytes;
        return cudaSuccess;
    default: return cudaErrorInvalidValue;
    }
}

// Whether a resource holds integers of 8 or 16 bits (the driver reads them as normalized floats
// unless CU_TRSF_READ_AS_INTEGER).
bool small_integers(const cudaResourceDesc& r) {
    cudaChannelFormatDesc d{};
    if (r.resType == cudaResourceTypeLinear) d = r.res.linear.desc;
    else if (r.resType == cudaResourceTypePitch2D) d = r.res.pitch2D.desc;
    else if (const Array* a = find_array(r.resType == cudaResourceTypeArray
                                             ? static_cast<const void*>(r.res.array.array)
                                             : nullptr))
        d = a->desc;
    else if (r.resType == cudaResourceTypeMipmappedArray) {
        auto it = mipmapped_arrays.find(r.res.mipmap.mipmap);
        if (it != mipmapped_arrays.end()) d = it->second->desc;
    }
    return d.f != cudaChannelFormatKindFloat && d.x > 0 && d.x < 32;
}

}  // namespace

extern "C" {

CUresult cuArray3DCreate(CUarray* array, const CUDA_ARRAY3D_DESCRIPTOR* d) {
    CUDALAB_API("cuArray3DCreate");
    if (!array || !d) return CUDA_ERROR_INVALID_VALUE;
    cudaChannelFormatDesc desc;
    if (!channel_desc(d->Format, d->NumChannels, &desc)) return CUDA_ERROR_INVALID_VALUE;
    cudaArray_t a = nullptr;
    const CUresult e = as_driver(
        cudaMalloc3DArray(&a, &desc, make_cudaExtent(d->Width, d->Height, d->Depth), d->Flags));
    *array = reinterpret_cast<CUarray>(a);
    return e;
}

CUresult cuArrayCreate(CUarray* array, const CUDA_ARRAY_DESCRIPTOR* d) {
    CUDALAB_API("cuArrayCreate");
    if (!d) return CUDA_ERROR_INVALID_VALUE;
    CUDA_ARRAY3D_DESCRIPTOR d3{};
    d3.Width = d->Width;
    d3.Height = d->Height;
    d3.Format = d->Format;
    d3.NumChannels = d->NumChannels;
    return cuArray3DCreate(array, &d3);
}

CUresult cuArrayDestroy(CUarray array) {
    CUDALAB_API("cuArrayDestroy");
    if (!array) return CUDA_ERROR_INVALID_HANDLE;
    return as_driver(cudaFreeArray(reinterpret_cast<cudaArray_t>(array)));
}

CUresult cuArray3DGetDescriptor(CUDA_ARRAY3D_DESCRIPTOR* d, CUarray array) {
    CUDALAB_API("cuArray3DGetDescriptor");
    const Array* a = find_array(array);
    if (!a) return CUDA_ERROR_INVALID_HANDLE;
    if (!d) return CUDA_ERROR_INVALID_VALUE;
    *d = CUDA_ARRAY3D_DESCRIPTOR{};
    array_format(a->desc, &d->Format, &d->NumChannels);
    d->Width = a->extent.width;
    d->Height = a->extent.height;
    d->Depth = a->extent.depth;
    d->Flags = a->flags;
    return CUDA_SUCCESS;
}

CUresult cuArrayGetDescriptor(CUDA_ARRAY_DESCRIPTOR* d, CUarray array) {
    CUDALAB_API("cuArrayGetDescriptor");
    CUDA_ARRAY3D_DESCRIPTOR d3;
    if (CUresult e = cuArray3DGetDescriptor(&d3, array)) return e;
    if (!d) return CUDA_ERROR_INVALID_VALUE;
    d->Width = d3.Width;
    d->Height = d3.Height;
    d->Format = d3.Format;
    d->NumChannels = d3.NumChannels;
    return CUDA_SUCCESS;
}

CUresult cuMipmappedArrayCreate(CUmipmappedArray* array, const CUDA_ARRAY3D_DESCRIPTOR* d,
                                unsigned int levels) {
    CUDALAB_API("cuMipmappedArrayCreate");
    if (!array || !d) return CUDA_ERROR_INVALID_VALUE;
    cudaChannelFormatDesc desc;
    if (!channel_desc(d->Format, d->NumChannels, &desc)) return CUDA_ERROR_INVALID_VALUE;
    cudaMipmappedArray_t m = nullptr;
    const CUresult e = as_driver(cudaMallocMipmappedArray(
        &m, &desc, make_cudaExtent(d->Width, d->Height, d->Depth), levels, d->Flags));
    *array = reinterpret_cast<CUmipmappedArray>(m);
    return e;
}

CUresult cuMipmappedArrayGetLevel(CUarray* level, CUmipmappedArray array, unsigned int index) {
    CUDALAB_API("cuMipmappedArrayGetLevel");
    cudaArray_t a = nullptr;
    const CUresult e = as_driver(
        cudaGetMipmappedArrayLevel(&a, reinterpret_cast<cudaMipmappedArray_const_t>(array), index));
    if (level) *level = reinterpret_cast<CUarray>(a);
    return e;
}

CUresult cuMipmappedArrayDestroy(CUmipmappedArray array) {
    CUDALAB_API("cuMipmappedArrayDestroy");
    return as_driver(cudaFreeMipmappedArray(reinterpret_cast<cudaMipmappedArray_t>(array)));
}

CUresult cuMemcpy3D(const CUDA_MEMCPY3D* c) {
    CUDALAB_API("cuMemcpy3D");
    if (!c) return CUDA_ERROR_INVALID_VALUE;
    return as_driver(driver_copy(*c, false, nullptr));
}

CUresult cuMemcpy3DAsync(const CUDA_MEMCPY3D* c, CUstream stream) {
    CUDALAB_API("cuMemcpy3DAsync");
    if (!c) return CUDA_ERROR_INVALID_VALUE;
    return as_driver(driver_copy(*c, true, stream));
}

CUresult cuMemcpy2D(const CUDA_MEMCPY2D* c) {
    CUDALAB_API("cuMemcpy2D");
    if (!c) return CUDA_ERROR_INVALID_VALUE;
    return as_driver(driver_copy(from_2d(*c), false, nullptr));
}

CUresult cuMemcpy2DUnaligned(const CUDA_MEMCPY2D* c) {
    CUDALAB_API("cuMemcpy2DUnaligned");
    if (!c) return CUDA_ERROR_INVALID_VALUE;
    return as_driver(driver_copy(from_2d(*c), false, nullptr));
}

CUresult cuMemcpy2DAsync(const CUDA_MEMCPY2D* c, CUstream stream) {
    CUDALAB_API("cuMemcpy2DAsync");
    if (!c) return CUDA_ERROR_INVALID_VALUE;
    return as_driver(driver_copy(from_2d(*c), true, stream));
}

CUresult cuMemcpyHtoA(CUarray dst, size_t offset, const void* src, size_t bytes) {
    CUDALAB_API("cuMemcpyHtoA");
    return as_driver(cudaMemcpyToArray(reinterpret_cast<cudaArray_t>(dst), offset, 0, src, bytes,
                                       cudaMemcpyHostToDevice));
}

CUresult cuMemcpyAtoH(void* dst, CUarray src, size_t offset, size_t bytes) {
    CUDALAB_API("cuMemcpyAtoH");
    return as_driver(cudaMemcpyFromArray(dst, reinterpret_cast<cudaArray_const_t>(src), offset, 0,
                                         bytes, cudaMemcpyDeviceToHost));
}

CUresult cuTexObjectCreate(CUtexObject* object, const CUDA_RESOURCE_DESC* resource,
                           const CUDA_TEXTURE_DESC* texture, const CUDA_RESOURCE_VIEW_DESC* view) {
    CUDALAB_API("cuTexObjectCreate");
    if (!object || !resource || !texture) return CUDA_ERROR_INVALID_VALUE;
    if (view) return as_driver(not_supported("cuTexObjectCreate", "resource views"));
    cudaResourceDesc r;
    if (cudaError_t e = driver_resource(*resource, &r)) return as_driver(e);
    cudaTextureDesc t{};
    for (int a = 0; a < 3; ++a) t.addressMode[a] = cudaTextureAddressMode(texture->addressMode[a]);
    t.filterMode = cudaTextureFilterMode(texture->filterMode);
    // The driver reads 8- and 16-bit integers as normalized floats unless told not to.
    t.readMode = !(texture->flags & CU_TRSF_READ_AS_INTEGER) && small_integers(r)
                     ? cudaReadModeNormalizedFloat
                     : cudaReadModeElementType;
    t.normalizedCoords = (texture->flags & CU_TRSF_NORMALIZED_COORDINATES) != 0;
    t.sRGB = (texture->flags & CU_TRSF_SRGB) != 0;
    for (int c = 0; c < 4; ++c) t.borderColor[c] = texture->borderColor[c];
    t.maxAnisotropy = texture->maxAnisotropy;
    t.mipmapFilterMode = cudaTextureFilterMode(texture->mipmapFilterMode);
    t.mipmapLevelBias = texture->mipmapLevelBias;
    t.minMipmapLevelClamp = texture->minMipmapLevelClamp;
    t.maxMipmapLevelClamp = texture->maxMipmapLevelClamp;
    cudaTextureObject_t o = 0;
    const cudaError_t e = cudaCreateTextureObject(&o, &r, &t, nullptr);
    *object = o;
    return e == cudaErrorInvalidFilterSetting || e == cudaErrorInvalidNormSetting
               ? CUDA_ERROR_INVALID_VALUE
               : as_driver(e);
}

CUresult cuTexObjectDestroy(CUtexObject object) {
    CUDALAB_API("cuTexObjectDestroy");
    return as_driver(cudaDestroyTextureObject(object));
}

CUresult cuSurfObjectCreate(CUsurfObject* object, const CUDA_RESOURCE_DESC* resource) {
    CUDALAB_API("cuSurfObjectCreate");
    if (!object || !resource) return CUDA_ERROR_INVALID_VALUE;
    cudaResourceDesc r;
    if (cudaError_t e = driver_resource(*resource, &r)) return as_driver(e);
    cudaSurfaceObject_t o = 0;
    const cudaError_t e = cudaCreateSurfaceObject(&o, &r);
    *object = o;
    return as_driver(e);
}

CUresult cuSurfObjectDestroy(CUsurfObject object) {
    CUDALAB_API("cuSurfObjectDestroy");
    return as_driver(cudaDestroySurfaceObject(object));
}

}  // extern "C"
