// Texture and surface objects as the emulator runs them: what a cudaTextureObject_t or
// cudaSurfaceObject_t handle stands for (the texels' layout in device memory and the sampler's
// state), the registry that maps handles to them (one per DeviceMemory, filled by the emulated
// runtime's cudaCreateTextureObject / cuTexObjectCreate and friends), and the sampling rules of the
// PTX instructions tex, tld4, txq, suld, sust, sured and suq.
//
// Where CUDA's documentation leaves the result to the hardware, the rules here are a Hopper GPU's,
// measured by tests/agreement/texture_ops.cu (docs/runtime.md, "CUDA arrays, textures and
// surfaces"):
// - linear filtering weights are 9-bit fixed point with 8 fractional bits (1/256 steps), rounded
//   to nearest (ties up); the weighted sum is then formed exactly and rounded once to f32;
// - wrap and mirror address modes act as clamp with unnormalized coordinates;
// - a channel the format lacks reads as 0 (also the fourth: no implicit alpha of 1);
// - layer indices are unsigned and clamped to the last layer (-1 reads the last layer);
// - 8- and 16-bit signed integers read as normalized floats are v / (2^(n-1) - 1), at least -1;
// - a normalized coordinate is scaled by the size in fixed point: it is first truncated to
//   normalized_fraction_bits fractional bits (0.33333334 x 6 is row 1, not row 2).
#pragma once

#include <cstdint>
#include <memory>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace cudalab::emu {

enum class TexelKind : std::uint8_t { unsigned_int, signed_int, float_ };

// One texel's format: 1, 2 or 4 channels of 8, 16 or 32 bits (16-bit floats are halves).
struct TexelFormat {
    std::uint8_t channels = 1;
    std::uint8_t bits = 32;
    TexelKind kind = TexelKind::float_;
    std::uint32_t bytes() const { return std::uint32_t(channels) * bits / 8; }
};

// One mipmap level (or the only one) of a resource: where its texel (0, 0, 0) is and its strides.
// `depth` counts 3D slices, or layers (a layered 1D array has height 1 and one slice per layer;
// a cubemap's faces are 6 layers, face-major within each cubemap layer).
struct TextureLevel {
    std::uint64_t address = 0;
    std::uint32_t width = 1, height = 1, depth = 1;
    std::uint64_t row_pitch = 0, slice_pitch = 0;
    std::uint64_t bytes() const { return slice_pitch * depth; }
};

struct TextureResource {
    TexelFormat format;
    std::vector<TextureLevel> levels;  // one, or a mipmapped array's levels (largest first)
    std::uint8_t dims = 2;             // 1, 2 or 3
    bool layered = false;
    bool cubemap = false;
    // Linear memory (cudaResourceTypeLinear, tex1Dfetch): no filtering or address modes; a fetch
    // outside the range reads 0.
    bool linear_memory = false;
    std::uint32_t layers() const;  // layered: layers (a layered cubemap: cubemaps); else 0
};

enum class AddressMode : std::uint8_t { wrap, clamp, mirror, border };

struct TextureSampler {
    AddressMode address[3] = {AddressMode::clamp, AddressMode::clamp, AddressMode::clamp};
    bool linear = false;             // cudaFilterModeLinear
    bool normalized_coords = false;  // coordinates in [0, 1) rather than texels
    bool read_normalized = false;    // cudaReadModeNormalizedFloat: 8/16-bit integers as floats
    float border[4] = {0, 0, 0, 0};
    bool mip_linear = false;  // mipmapFilterMode
    float mip_bias = 0, min_lod = 0, max_lod = 0;
};

struct TextureObject {
    TextureResource resource;
    TextureSampler sampler;
};

struct SurfaceObject {
    TextureResource resource;  // one level
};

// Handles to objects. Textures and surfaces share one numbering from 1, so neither kind's handle
// is ever taken for the other's.
class TextureRegistry {
  public:
    std::uint64_t add(TextureObject t);
    std::uint64_t add(SurfaceObject s);
    bool remove_texture(std::uint64_t handle);
    bool remove_surface(std::uint64_t handle);
    std::shared_ptr<const TextureObject> texture(std::uint64_t handle) const;
    std::shared_ptr<const SurfaceObject> surface(std::uint64_t handle) const;

  private:
    mutable std::shared_mutex mutex_;
    std::unordered_map<std::uint64_t, std::shared_ptr<const TextureObject>> textures_;
    std::unordered_map<std::uint64_t, std::shared_ptr<const SurfaceObject>> surfaces_;
    std::uint64_t next_ = 1;
};

// [SECTION] Sampling ---------------------------------------------------------------------------

inline constexpr int normalized_fraction_bits = 24;

// The geometry a tex/tld4/suld/sust instruction names (PTX ISA 9.7.10).
enum class TexGeometry : std::uint8_t { none, d1, d2, d3, a1d, a2d, cube, acube };

// The result registers' type: .f32 (also for normalized reads), .s32 or .u32.
enum class TexResultType : std::uint8_t { f32, s32, u32 };

// The texels' bytes of each level, resolved by the caller (bounds already checked).
struct TexelMemory {
    const std::uint8_t* level[16] = {};
};

// What one lane's instruction asks for. Coordinates are floats (or integers, `integer_coords`,
// held in the same four words); `layer` comes from the first element for a1d, a2d and acube.
struct TexRequest {
    TexGeometry geometry = TexGeometry::d2;
    TexResultType result = TexResultType::f32;
    bool integer_coords = false;
    float coord[4] = {0, 0, 0, 0};
    std::int32_t icoord[4] = {0, 0, 0, 0};
    std::uint32_t layer = 0;
    enum class Lod : std::uint8_t { base, level, grad } lod_mode = Lod::base;
    float lod = 0;
    float grad_x[3] = {0, 0, 0}, grad_y[3] = {0, 0, 0};
};

// tex: the four result words (f32, s32 or u32 bits).
void texture_sample(const TextureObject& t, const TexelMemory& m, const TexRequest& r,
                    std::uint32_t out[4]);
// tld4: component `component` (0-3) of the bilinear footprint's four texels, in the PTX order
// (lower left, lower right, upper right, upper left: (i0, j1), (i1, j1), (i1, j0), (i0, j0)).
void texture_gather(const TextureObject& t, const TexelMemory& m, const TexRequest& r,
                    int component, std::uint32_t out[4]);

// txq / suq: the attribute a query names ("width", "num_mipmap_levels", ...), of level `level`
// for the size queries. False: a query the emulator does not answer (its value is the
// hardware's own encoding, which CUDA does not document).
bool texture_query(const TextureObject& t, const std::string& query, int level, std::uint32_t* v);
bool surface_query(const SurfaceObject& s, const std::string& query, std::uint32_t* v);

// The byte offset of a surface access inside the level (x in bytes, y rows, z slices or layers),
// after the boundary mode: trap and zero give -1 for an access outside (the caller faults or
// reads zeros / drops the store), clamp moves it to the nearest element inside.
enum class SurfaceClamp : std::uint8_t { trap, clamp, zero };
std::int64_t surface_offset(const TextureLevel& level, const TexelFormat& f, std::int64_t x,
                            std::int64_t y, std::int64_t z, std::uint32_t access_bytes,
                            SurfaceClamp mode);

}  // namespace cudalab::emu
