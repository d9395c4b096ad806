// Texture sampling and surface addressing (texture.h). The rules follow the CUDA C++
// Programming Guide's appendix "Texture Fetching" (texel centres at i + 0.5, the address modes,
// nearest-point and linear filtering with 9-bit fixed-point weights) and the PTX ISA's tex, tld4,
// txq, suld, sust, sured and suq; what the documents leave open is the Hopper GPU's measured
// behaviour, listed at the top of texture.h.
#include "emulator/texture.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <mutex>

namespace cudalab::emu {

std::uint32_t TextureResource::layers() const {
    if (!layered || levels.empty()) return 0;
    return cubemap ? levels[0].depth / 6 : levels[0].depth;
}

std::uint64_t TextureRegistry::add(TextureObject t) {
    std::unique_lock lock(mutex_);
    const std::uint64_t h = next_++;
    textures_[h] = std::make_shared<const TextureObject>(std::move(t));
    return h;
}

std::uint64_t TextureRegistry::add(SurfaceObject s) {
    std::unique_lock lock(mutex_);
    const std::uint64_t h = next_++;
    surfaces_[h] = std::make_shared<const SurfaceObject>(std::move(s));
    return h;
}

bool TextureRegistry::remove_texture(std::uint64_t handle) {
    std::unique_lock lock(mutex_);
    return textures_.erase(handle) != 0;
}

bool TextureRegistry::remove_surface(std::uint64_t handle) {
    std::unique_lock lock(mutex_);
    return surfaces_.erase(handle) != 0;
}

std::shared_ptr<const TextureObject> TextureRegistry::texture(std::uint64_t handle) const {
    std::shared_lock lock(mutex_);
    auto it = textures_.find(handle);
    return it == textures_.end() ? nullptr : it->second;
}

std::shared_ptr<const SurfaceObject> TextureRegistry::surface(std::uint64_t handle) const {
    std::shared_lock lock(mutex_);
    auto it = surfaces_.find(handle);
    return it == surfaces_.end() ? nullptr : it->second;
}

namespace {

double half_value(std::uint16_t h) {
    const int exponent = (h >> 10) & 0x1f, fraction = h & 0x3ff;
    double v;
    if (exponent == 0) v = std::ldexp(double(fraction), -24);
    else if (exponent == 31) v = fraction ? NAN : INFINITY;
    else v = std::ldexp(double(fraction | 0x400), exponent - 25);
    return (h & 0x8000) ? -v : v;
}

// A texel's channels: as raw integers (sign- or zero-extended; a float channel's bits) and as
// the value a float read gives.
struct Texel {
    std::int64_t raw[4] = {0, 0, 0, 0};
    double value[4] = {0, 0, 0, 0};
};

Texel read_texel(const TexelFormat& f, const std::uint8_t* p, bool read_normalized) {
    Texel t;
    for (int c = 0; c < f.channels; ++c) {
        std::int64_t raw = 0;
        double value = 0;
        switch (f.bits) {
        case 8: {
            std::uint8_t b = p[c];
            raw = f.kind == TexelKind::signed_int ? std::int64_t(std::int8_t(b)) : std::int64_t(b);
            break;
        }
        case 16: {
            std::uint16_t h;
            std::memcpy(&h, p + 2 * c, 2);
            raw = f.kind == TexelKind::signed_int ? std::int64_t(std::int16_t(h)) : std::int64_t(h);
            break;
        }
        default: {
            std::uint32_t w;
            std::memcpy(&w, p + 4 * c, 4);
            raw = f.kind == TexelKind::signed_int ? std::int64_t(std::int32_t(w)) : std::int64_t(w);
            break;
        }
        }
        if (f.kind == TexelKind::float_) {
            if (f.bits == 16) value = half_value(std::uint16_t(raw));
            else {
                float v;
                const std::uint32_t w = std::uint32_t(raw);
                std::memcpy(&v, &w, 4);
                value = v;
            }
        } else if (read_normalized && f.bits < 32) {
            if (f.kind == TexelKind::unsigned_int) value = double(raw) / double((1 << f.bits) - 1);
            else value = std::max(-1.0, double(raw) / double((1 << (f.bits - 1)) - 1));
        } else {
            value = double(raw);
        }
        t.raw[c] = raw;
        t.value[c] = value;
    }
    return t;
}

// A texel index along one axis after the address mode; -1: outside, with the border mode.
std::int64_t resolve_index(std::int64_t i, std::uint32_t n, AddressMode mode, bool normalized) {
    const std::int64_t size = std::int64_t(n);
    // Wrap and mirror need normalized coordinates; with texel coordinates the hardware clamps.
    if (!normalized && (mode == AddressMode::wrap || mode == AddressMode::mirror))
        mode = AddressMode::clamp;
    switch (mode) {
    case AddressMode::wrap: return ((i % size) + size) % size;
    case AddressMode::mirror: {
        std::int64_t m = ((i % (2 * size)) + 2 * size) % (2 * size);
        return m >= size ? 2 * size - 1 - m : m;
    }
    case AddressMode::clamp: return std::clamp<std::int64_t>(i, 0, size - 1);
    case AddressMode::border: return i < 0 || i >= size ? -1 : i;
    }
    return -1;
}

// A coordinate in texels. A normalized one is scaled in fixed point (texture.h).
double texel_coordinate(float x, std::uint32_t n, bool normalized) {
    double v = x;
    if (normalized) {
        const double scale = double(1u << normalized_fraction_bits);
        v = std::floor(v * scale) / scale * double(n);
    }
    // Far outside every texture: any address mode gives the same texel as at +-2^40.
    if (!(v == v)) v = 0;
    return std::clamp(v, -1099511627776.0, 1099511627776.0);
}

// A linear filter's weight: the fraction in 1/256 steps, rounded to nearest (ties up).
void linear_split(double u, std::int64_t* i0, double* weight) {
    const double b = u - 0.5;
    double f = std::floor(b);
    double a = std::floor((b - f) * 256.0 + 0.5) / 256.0;
    if (a >= 1.0) {
        f += 1;
        a = 0;
    }
    *i0 = std::int64_t(f);
    *weight = a;
}

struct Sampler {
    const TextureObject& t;
    const TexelMemory& m;
    const TextureSampler& s;
    const TexelFormat& f;

    // The texel at (x, y, z) of a level (z: a slice or a layer); a negative index: the border
    // colour.
    Texel at(int level, std::int64_t x, std::int64_t y, std::int64_t z) const {
        if (x < 0 || y < 0 || z < 0) {
            Texel b;
            for (int c = 0; c < 4; ++c) {
                b.value[c] = s.border[c];
                b.raw[c] = std::int64_t(s.border[c]);
            }
            return b;
        }
        const TextureLevel& l = t.resource.levels[std::size_t(level)];
        // A geometry the resource does not have (tex.cube of a 2D array, say) reads nothing
        // outside its memory: what is past the resource reads 0.
        if (x >= std::int64_t(l.width) || y >= std::int64_t(l.height) || z >= std::int64_t(l.depth))
            return Texel{};
        const std::uint8_t* p = m.level[level] + std::uint64_t(z) * l.slice_pitch +
                                std::uint64_t(y) * l.row_pitch + std::uint64_t(x) * f.bytes();
        return read_texel(f, p, s.read_normalized);
    }

    // The filtered (or nearest) value of one level at u (texel units, `axes` of them); `layer`:
    // the slice every texel is read from (a layer or cubemap face), or -1.
    void sample_level(int level, const double u[3], int axes, std::int64_t layer, bool linear,
                      bool normalized, bool cube_face, Texel* out) const {
        const TextureLevel& l = t.resource.levels[std::size_t(level)];
        const std::uint32_t size[3] = {l.width, l.height, l.depth};
        std::int64_t i0[3] = {0, 0, 0}, i1[3] = {0, 0, 0};
        double w[3] = {0, 0, 0};
        for (int a = 0; a < axes; ++a) {
            const AddressMode mode = cube_face ? AddressMode::clamp : s.address[a];
            if (linear) {
                std::int64_t base;
                linear_split(u[a], &base, &w[a]);
                i0[a] = resolve_index(base, size[a], mode, normalized);
                i1[a] = resolve_index(base + 1, size[a], mode, normalized);
            } else {
                i0[a] = i1[a] =
                    resolve_index(std::int64_t(std::floor(u[a])), size[a], mode, normalized);
            }
        }
        auto texel = [&](int corner) {
            std::int64_t c[3];
            for (int a = 0; a < 3; ++a) c[a] = (corner >> a) & 1 ? i1[a] : i0[a];
            if (layer >= 0) return at(level, c[0], axes > 1 ? c[1] : 0, layer);
            return at(level, c[0], axes > 1 ? c[1] : 0, axes > 2 ? c[2] : 0);
        };
        if (!linear) {
            *out = texel(0);
            return;
        }
        // The corners' weights in 1/256 steps, as the hardware forms them (measured): for two
        // axes of fractions A and B, the far corner's weight is A * B rounded (ties up) and the
        // others what makes each axis's weights add up to its fraction (A - w11, B - w11), so
        // that the four add up to exactly 1. In 3D that is done for x and z, and each of those
        // four weights is split by y's fraction, rounded (20 of 24 3D samples agree so; the
        // hardware's exact 3D rule is not known). Corner bits: 1 x, 2 y, 4 z.
        const std::int64_t f[3] = {std::int64_t(w[0] * 256), std::int64_t(w[1] * 256),
                                   std::int64_t(w[2] * 256)};
        std::int64_t weight[8] = {256 - f[0], f[0], 0, 0, 0, 0, 0, 0};
        auto pair = [](std::int64_t a, std::int64_t b, std::int64_t out[4]) {
            const std::int64_t both = (a * b + 128) / 256;
            out[0] = 256 - a - b + both;
            out[1] = a - both;
            out[2] = b - both;
            out[3] = both;
        };
        if (axes == 2) pair(f[0], f[1], weight);
        if (axes == 3) {
            std::int64_t xz[4];
            pair(f[0], f[2], xz);
            for (int k = 0; k < 4; ++k) {
                const int corner = (k & 1) | (k & 2) << 1;  // x bit, z bit
                const std::int64_t high = (xz[k] * f[1] + 128) / 256;
                weight[corner | 2] = high;
                weight[corner] = xz[k] - high;
            }
        }
        Texel r;
        for (int corner = 0; corner < (1 << axes); ++corner) {
            if (weight[corner] == 0) continue;
            const Texel v = texel(corner);
            for (int c = 0; c < 4; ++c) r.value[c] += double(weight[corner]) / 256 * v.value[c];
        }
        *out = r;
    }
};

// The face a cubemap direction selects (PTX ISA / CUDA Programming Guide "Cubemap Textures":
// the major axis, then s and t in [0, 1] on that face).
void cube_face(float x, float y, float z, int* face, double* s, double* t) {
    const double ax = std::fabs(double(x)), ay = std::fabs(double(y)), az = std::fabs(double(z));
    double sc, tc, ma;
    // Ties go to z, then y (measured: (0.5, 0.5, 0.5) reads face 4).
    if (az >= ax && az >= ay) {
        *face = z >= 0 ? 4 : 5;
        sc = z >= 0 ? x : -x;
        tc = -y;
        ma = az;
    } else if (ay >= ax) {
        *face = y >= 0 ? 2 : 3;
        sc = x;
        tc = y >= 0 ? z : -z;
        ma = ay;
    } else {
        *face = x >= 0 ? 0 : 1;
        sc = x >= 0 ? -z : z;
        tc = -y;
        ma = ax;
    }
    if (ma == 0) ma = 1;
    *s = (sc / ma + 1) / 2;
    *t = (tc / ma + 1) / 2;
}

// A filtered value of a 16-bit float texture: the hardware filters these in half precision
// (measured: its results are halves, rounded to nearest with ties away from zero).
double round_to_half(double v) {
    if (v == 0 || !std::isfinite(v)) return v;
    const int e = std::max(std::ilogb(v), -14);
    const double ulp = std::ldexp(1.0, e - 10);
    return std::copysign(std::floor(std::fabs(v) / ulp + 0.5) * ulp, v);
}

std::uint32_t float_bits(double v) {
    const float f = float(v);
    std::uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}

// .f32 results are the values a float read gives; .s32/.u32 the channels' integers (a float
// channel's bits).
void write_result(TexResultType type, const Texel& v, std::uint32_t out[4]) {
    for (int c = 0; c < 4; ++c)
        out[c] = type == TexResultType::f32 ? float_bits(v.value[c]) : std::uint32_t(v.raw[c]);
}

int axes_of(TexGeometry g) {
    switch (g) {
    case TexGeometry::d1:
    case TexGeometry::a1d: return 1;
    case TexGeometry::d3: return 3;
    default: return 2;
    }
}

// The level and the weight of the next one, from a level of detail.
void choose_levels(const TextureObject& t, const TexRequest& r, int* level, double* next_weight) {
    const auto& levels = t.resource.levels;
    const TextureSampler& s = t.sampler;
    *level = 0;
    *next_weight = 0;
    if (levels.size() <= 1) return;
    double lod = 0;
    if (r.lod_mode == TexRequest::Lod::level) lod = r.lod;
    else if (r.lod_mode == TexRequest::Lod::grad) {
        // The larger footprint of the two screen axes, in texels of level 0 (no anisotropy).
        const TextureLevel& l0 = levels[0];
        const double size[3] = {double(l0.width), double(l0.height), double(l0.depth)};
        double gx = 0, gy = 0;
        for (int a = 0; a < axes_of(r.geometry); ++a) {
            gx += (r.grad_x[a] * size[a]) * (r.grad_x[a] * size[a]);
            gy += (r.grad_y[a] * size[a]) * (r.grad_y[a] * size[a]);
        }
        const double rho = std::sqrt(std::max(gx, gy));
        lod = rho > 0 ? std::log2(rho) : -1000;
    }
    lod += s.mip_bias;
    lod = std::clamp(lod, double(s.min_lod), double(std::max(s.min_lod, s.max_lod)));
    lod = std::clamp(lod, 0.0, double(levels.size() - 1));
    if (!s.mip_linear) {
        *level = int(std::floor(lod + 0.5));
        return;
    }
    const double base = std::floor(lod);
    *level = int(base);
    *next_weight = std::floor((lod - base) * 256.0 + 0.5) / 256.0;
    if (*next_weight >= 1) {
        ++*level;
        *next_weight = 0;
    }
    if (*level >= int(levels.size()) - 1) {
        *level = int(levels.size()) - 1;
        *next_weight = 0;
    }
}

}  // namespace

void texture_sample(const TextureObject& t, const TexelMemory& m, const TexRequest& r,
                    std::uint32_t out[4]) {
    const TextureResource& res = t.resource;
    Sampler sampler{t, m, t.sampler, res.format};
    Texel v;
    if (res.linear_memory) {
        const std::int64_t i =
            r.integer_coords ? r.icoord[0] : std::int64_t(std::floor(r.coord[0]));
        if (i >= 0 && i < std::int64_t(res.levels[0].width)) v = sampler.at(0, i, 0, 0);
        else v = Texel{};
        write_result(r.result, v, out);
        return;
    }
    const int axes = axes_of(r.geometry);
    const bool cube = r.geometry == TexGeometry::cube || r.geometry == TexGeometry::acube;
    const bool layered = r.geometry == TexGeometry::a1d || r.geometry == TexGeometry::a2d ||
                         r.geometry == TexGeometry::acube;
    int level;
    double next_weight;
    choose_levels(t, r, &level, &next_weight);
    auto one_level = [&](int lv, Texel* result) {
        const TextureLevel& l = res.levels[std::size_t(lv)];
        std::int64_t layer = -1;
        if (layered) {
            const std::uint32_t count = std::max(1u, res.layers());
            layer = std::min<std::uint32_t>(r.layer, count - 1);
        }
        if (r.integer_coords) {
            // Texel coordinates as integers: no filtering, the address mode on the index.
            const std::uint32_t size[3] = {l.width, l.height, l.depth};
            std::int64_t idx[3] = {0, 0, 0};
            for (int a = 0; a < axes; ++a) {
                idx[a] = resolve_index(r.icoord[a], size[a], t.sampler.address[a], false);
                if (idx[a] < 0) {
                    *result = sampler.at(lv, -1, 0, 0);
                    return;
                }
            }
            *result = sampler.at(lv, idx[0], idx[1], layer >= 0 ? layer : idx[2]);
            return;
        }
        if (cube) {
            int face;
            double s, tt;
            cube_face(r.coord[0], r.coord[1], r.coord[2], &face, &s, &tt);
            const double u[3] = {texel_coordinate(float(s), l.width, true),
                                 texel_coordinate(float(tt), l.height, true), 0};
            const std::int64_t slice = face + 6 * std::max<std::int64_t>(layer, 0);
            sampler.sample_level(lv, u, 2, slice, t.sampler.linear, true, true, result);
            return;
        }
        const std::uint32_t size[3] = {l.width, l.height, l.depth};
        double u[3] = {0, 0, 0};
        for (int a = 0; a < axes; ++a)
            u[a] = texel_coordinate(r.coord[a], size[a], t.sampler.normalized_coords);
        sampler.sample_level(lv, u, axes, layer, t.sampler.linear, t.sampler.normalized_coords,
                             false, result);
    };
    one_level(level, &v);
    if (next_weight > 0) {
        Texel w;
        one_level(level + 1, &w);
        for (int c = 0; c < 4; ++c)
            v.value[c] = (1 - next_weight) * v.value[c] + next_weight * w.value[c];
    }
    if (res.format.kind == TexelKind::float_ && res.format.bits == 16)
        for (double& c : v.value) c = round_to_half(c);
    write_result(r.result, v, out);
}

void texture_gather(const TextureObject& t, const TexelMemory& m, const TexRequest& r,
                    int component, std::uint32_t out[4]) {
    const TextureResource& res = t.resource;
    Sampler sampler{t, m, t.sampler, res.format};
    const TextureLevel& l = res.levels[0];
    std::int64_t layer = -1;
    if (r.geometry == TexGeometry::a2d)
        layer = std::min<std::uint32_t>(r.layer, std::max(1u, res.layers()) - 1);
    std::int64_t i[2][2];
    const std::uint32_t size[2] = {l.width, l.height};
    for (int a = 0; a < 2; ++a) {
        const double u = texel_coordinate(r.coord[a], size[a], t.sampler.normalized_coords);
        std::int64_t base;
        double w;
        linear_split(u, &base, &w);
        i[a][0] = resolve_index(base, size[a], t.sampler.address[a], t.sampler.normalized_coords);
        i[a][1] =
            resolve_index(base + 1, size[a], t.sampler.address[a], t.sampler.normalized_coords);
    }
    const int order[4][2] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
    for (int k = 0; k < 4; ++k) {
        const std::int64_t x = i[0][order[k][0]], y = i[1][order[k][1]];
        const Texel v =
            x < 0 || y < 0 ? sampler.at(0, -1, 0, 0) : sampler.at(0, x, y, layer >= 0 ? layer : 0);
        if (r.result == TexResultType::f32) out[k] = float_bits(v.value[component]);
        else out[k] = std::uint32_t(v.raw[component]);
    }
}

bool texture_query(const TextureObject& t, const std::string& query, int level, std::uint32_t* v) {
    const TextureResource& res = t.resource;
    if (level < 0 || std::size_t(level) >= res.levels.size()) level = 0;
    const TextureLevel& l = res.levels[std::size_t(level)];
    if (query == "width") *v = l.width;
    else if (query == "height") *v = res.dims >= 2 ? l.height : 0;
    else if (query == "depth") *v = res.dims == 3 && !res.layered ? l.depth : 0;
    else if (query == "array_size") *v = res.layers();
    else if (query == "num_mipmap_levels") *v = std::uint32_t(res.levels.size());
    else if (query == "num_samples") *v = 0;
    else if (query == "normalized_coords") *v = t.sampler.normalized_coords ? 1 : 0;
    else if (query == "force_unnormalized_coords") *v = 0;
    else if (query == "filter_mode") *v = t.sampler.linear ? 1 : 0;
    else return false;
    return true;
}

bool surface_query(const SurfaceObject& s, const std::string& query, std::uint32_t* v) {
    const TextureResource& res = s.resource;
    const TextureLevel& l = res.levels[0];
    if (query == "width") *v = l.width;
    else if (query == "height") *v = res.dims >= 2 ? l.height : 0;
    else if (query == "depth") *v = res.dims == 3 && !res.layered ? l.depth : 0;
    else if (query == "array_size") *v = res.layers();
    else return false;
    return true;
}

std::int64_t surface_offset(const TextureLevel& level, const TexelFormat& f, std::int64_t x,
                            std::int64_t y, std::int64_t z, std::uint32_t access_bytes,
                            SurfaceClamp mode) {
    const std::int64_t row = std::int64_t(level.width) * f.bytes();
    const bool inside = x >= 0 && x + access_bytes <= row && y >= 0 &&
                        y < std::int64_t(level.height) && z >= 0 && z < std::int64_t(level.depth);
    if (!inside) {
        if (mode != SurfaceClamp::clamp || row < std::int64_t(access_bytes)) return -1;
        // The nearest whole element inside, in each coordinate.
        x = std::clamp<std::int64_t>(x, 0, row - access_bytes);
        y = std::clamp<std::int64_t>(y, 0, std::int64_t(level.height) - 1);
        z = std::clamp<std::int64_t>(z, 0, std::int64_t(level.depth) - 1);
    }
    return z * std::int64_t(level.slice_pitch) + y * std::int64_t(level.row_pitch) + x;
}

}  // namespace cudalab::emu
