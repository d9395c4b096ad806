// Texture and surface objects in the emulator: the sampling rules of emulator/texture.h on their
// own (address modes, filtering weights, formats, layers, cubemap faces, mipmap levels, surface
// boundaries), and the PTX instructions tex, tld4, txq, suld, sust, sured and suq through a kernel,
// with the faults an untrusted kernel can provoke (a handle that names nothing, a surface access
// outside, an array freed under a live object). The bits a Hopper GPU gives are checked by
// tests/agreement/texture_ops.cu; these pin the rules one at a time.
//
// [SECTION] Helpers
// [SECTION] Sampling rules
// [SECTION] Surfaces
// [SECTION] The instructions, in a kernel
#include "emulator/emulator.h"
#include "emulator/memory.h"
#include "emulator/texture.h"

#include <doctest/doctest.h>

#include <bit>
#include <cstring>
#include <string>
#include <vector>

using namespace cudalab;
using namespace cudalab::emu;

namespace {

// [SECTION] Helpers ------------------------------------------------------------------------------

// A texture over host bytes: one level of w x h x d texels of `format`, rows packed.
struct HostTexture {
    std::vector<std::uint8_t> bytes;
    TextureObject object;
    TexelMemory memory;

    HostTexture(TexelFormat format, std::uint32_t w, std::uint32_t h = 1, std::uint32_t d = 1,
                std::uint8_t dims = 2) {
        object.resource.format = format;
        object.resource.dims = dims;
        TextureLevel l;
        l.width = w;
        l.height = h;
        l.depth = d;
        l.row_pitch = std::uint64_t(w) * format.bytes();
        l.slice_pitch = l.row_pitch * h;
        object.resource.levels.push_back(l);
        bytes.resize(l.bytes());
        memory.level[0] = bytes.data();
    }
    template <class T> void set(std::size_t index, T v) {
        std::memcpy(bytes.data() + index * sizeof(T), &v, sizeof v);
    }
    float sample(float x, float y = 0, TexGeometry g = TexGeometry::d2) const {
        TexRequest r;
        r.geometry = g;
        r.coord[0] = x;
        r.coord[1] = y;
        std::uint32_t out[4];
        texture_sample(object, memory, r, out);
        return std::bit_cast<float>(out[0]);
    }
};

TexelFormat f32() { return TexelFormat{1, 32, TexelKind::float_}; }

// [SECTION] Sampling rules
// -------------------------------------------------------------------------

TEST_CASE("texture: point sampling reads the texel whose centre is nearest, x + 0.5") {
    HostTexture t(f32(), 4, 2);
    for (int i = 0; i < 8; ++i) t.set(std::size_t(i), float(i));
    CHECK(t.sample(0.5f, 0.5f) == 0);
    CHECK(t.sample(0.99f, 0.5f) == 0);
    CHECK(t.sample(1.0f, 0.5f) == 1);
    CHECK(t.sample(3.5f, 1.5f) == 7);
}

TEST_CASE("texture: the address modes (wrap and mirror need normalized coordinates)") {
    HostTexture t(f32(), 4);
    for (int i = 0; i < 4; ++i) t.set(std::size_t(i), float(10 + i));
    auto with = [&](AddressMode m, bool normalized, float x) {
        t.object.sampler.address[0] = t.object.sampler.address[1] = m;
        t.object.sampler.normalized_coords = normalized;
        return t.sample(x, normalized ? 0.5f : 0.5f, TexGeometry::d1);
    };
    CHECK(with(AddressMode::clamp, false, -3) == 10);
    CHECK(with(AddressMode::clamp, false, 9) == 13);
    CHECK(with(AddressMode::border, false, -0.1f) == 0);
    CHECK(with(AddressMode::border, false, 4.0f) == 0);
    // Texel coordinates: wrap and mirror act as clamp (a Hopper GPU does so).
    CHECK(with(AddressMode::wrap, false, 5.5f) == 13);
    CHECK(with(AddressMode::mirror, false, -1.5f) == 10);
    // Normalized: wrap repeats, mirror reflects every other period.
    CHECK(with(AddressMode::wrap, true, 1.125f) == 10);     // 4.5 -> texel 0
    CHECK(with(AddressMode::wrap, true, -0.125f) == 13);    // -0.5 -> texel 3
    CHECK(with(AddressMode::mirror, true, 1.125f) == 13);   // texel 4 mirrors to 3
    CHECK(with(AddressMode::mirror, true, -0.125f) == 10);  // texel -1 mirrors to 0
    t.object.sampler.border[0] = 7.5f;
    CHECK(with(AddressMode::border, true, 1.5f) == 7.5f);
}

TEST_CASE("texture: linear filtering weights are 1/256 steps, rounded to nearest") {
    HostTexture t(f32(), 2, 1);
    t.set(0, 0.0f);
    t.set(1, 1.0f);
    t.object.sampler.linear = true;
    CHECK(t.sample(0.5f + 1.0f / 1024, 0.5f) == 0);           // 0.25 of a step: down
    CHECK(t.sample(0.5f + 2.0f / 1024, 0.5f) == 1.0f / 256);  // half a step: up
    CHECK(t.sample(0.5f + 0.3f, 0.5f) == 77.0f / 256);        // 76.8 -> 77
    CHECK(t.sample(1.5f, 0.5f) == 1);
}

TEST_CASE("texture: bilinear weights: the far corner's product rounded, the rest by difference") {
    // Texels 0 except the far corner: the result is exactly that corner's weight.
    HostTexture t(f32(), 2, 2);
    t.set(3, 1.0f);
    t.object.sampler.linear = true;
    // a = 128/256, b = 125/256: a * b = 62.5/256, rounded up to 63/256.
    CHECK(t.sample(0.5f + 0.5f, 0.5f + 125.0f / 256) == 63.0f / 256);
    // The weights add up to exactly 1: a constant texture filters to itself.
    for (int i = 0; i < 4; ++i) t.set(std::size_t(i), 3.0f);
    CHECK(t.sample(0.5f + 0.37f, 0.5f + 0.61f) == 3.0f);
}

TEST_CASE("texture: formats, read modes and missing channels") {
    HostTexture u8(TexelFormat{1, 8, TexelKind::unsigned_int}, 2);
    u8.set<std::uint8_t>(0, 255);
    u8.set<std::uint8_t>(1, 128);
    TexRequest r;
    r.coord[0] = 1.5f;
    r.coord[1] = 0.5f;
    std::uint32_t out[4];
    u8.object.sampler.read_normalized = true;
    texture_sample(u8.object, u8.memory, r, out);
    CHECK(std::bit_cast<float>(out[0]) == 128.0f / 255);
    // A channel the format lacks reads 0, the fourth too.
    CHECK(out[1] == 0);
    CHECK(out[3] == 0);
    u8.object.sampler.read_normalized = false;
    r.result = TexResultType::u32;
    texture_sample(u8.object, u8.memory, r, out);
    CHECK(out[0] == 128);

    HostTexture s8(TexelFormat{1, 8, TexelKind::signed_int}, 1);
    s8.set<std::int8_t>(0, -128);
    s8.object.sampler.read_normalized = true;
    CHECK(s8.sample(0.5f, 0.5f) == -1.0f);  // -128/127 is clamped to -1
    s8.set<std::int8_t>(0, -127);
    CHECK(s8.sample(0.5f, 0.5f) == -1.0f);
    s8.object.sampler.read_normalized = false;
    r.result = TexResultType::s32;
    r.coord[0] = 0.5f;
    texture_sample(s8.object, s8.memory, r, out);
    CHECK(std::int32_t(out[0]) == -127);

    // 16-bit floats filter to halves (ties away from zero).
    HostTexture h(TexelFormat{1, 16, TexelKind::float_}, 2);
    h.set<std::uint16_t>(0, 0x3c00);  // 1.0
    h.set<std::uint16_t>(1, 0x3c01);  // 1 + 2^-10
    h.object.sampler.linear = true;
    CHECK(h.sample(1.0f, 0.5f) == 1.0f + 1.0f / 1024);  // half-way rounds away: the larger
}

TEST_CASE("texture: layers are unsigned and clamped; integer coordinates on linear memory") {
    HostTexture t(f32(), 2, 1, 3);  // a layered 1D array: 3 layers of 2 texels
    t.object.resource.layered = true;
    t.object.resource.dims = 1;
    for (int i = 0; i < 6; ++i) t.set(std::size_t(i), float(i));
    TexRequest r;
    r.geometry = TexGeometry::a1d;
    r.coord[0] = 1.5f;
    std::uint32_t out[4];
    for (auto [layer, want] : {std::pair{0u, 1.0f}, {2u, 5.0f}, {7u, 5.0f}, {~0u, 5.0f}}) {
        r.layer = layer;
        texture_sample(t.object, t.memory, r, out);
        CHECK(std::bit_cast<float>(out[0]) == want);
    }

    HostTexture lin(f32(), 4);
    lin.object.resource.linear_memory = true;
    for (int i = 0; i < 4; ++i) lin.set(std::size_t(i), float(i + 1));
    TexRequest f;
    f.geometry = TexGeometry::d1;
    f.integer_coords = true;
    for (auto [i, want] : {std::pair{0, 1.0f}, {3, 4.0f}, {4, 0.0f}, {-1, 0.0f}}) {
        f.icoord[0] = i;
        texture_sample(lin.object, lin.memory, f, out);
        CHECK(std::bit_cast<float>(out[0]) == want);
    }
}

TEST_CASE("texture: a cubemap direction selects the face of its major axis (ties: z, then y)") {
    HostTexture t(f32(), 2, 2, 6);  // 2 x 2 faces
    t.object.resource.cubemap = true;
    for (int i = 0; i < 24; ++i) t.set(std::size_t(i), float(i / 4));  // each face: its number
    TexRequest r;
    r.geometry = TexGeometry::cube;
    std::uint32_t out[4];
    const float dirs[][4] = {{1, 0.2f, 0.1f, 0},    {-1, 0, 0, 1},         {0.1f, 1, 0, 2},
                             {0, -1, 0.3f, 3},      {0, 0, 1, 4},          {0.2f, 0, -1, 5},
                             {0.5f, 0.5f, 0.5f, 4}, {0.5f, -0.5f, 0.1f, 3}};
    for (const auto& d : dirs) {
        r.coord[0] = d[0], r.coord[1] = d[1], r.coord[2] = d[2];
        texture_sample(t.object, t.memory, r, out);
        CHECK(std::bit_cast<float>(out[0]) == d[3]);
    }
}

TEST_CASE("texture: a geometry the resource lacks reads 0, never past its memory") {
    HostTexture plain(f32(), 2, 2);  // one 2 x 2 slice, no faces
    for (int i = 0; i < 4; ++i) plain.set(std::size_t(i), 9.0f);
    TexRequest r;
    r.geometry = TexGeometry::cube;
    r.coord[2] = -1;  // face 5
    std::uint32_t out[4] = {1, 1, 1, 1};
    texture_sample(plain.object, plain.memory, r, out);
    CHECK(out[0] == 0);
}

TEST_CASE("texture: tld4 gathers the bilinear footprint counter-clockwise from lower left") {
    HostTexture t(f32(), 2, 2);
    for (int i = 0; i < 4; ++i) t.set(std::size_t(i), float(i));  // (0,0)=0 (1,0)=1 (0,1)=2 (1,1)=3
    TexRequest r;
    r.coord[0] = 1.0f;
    r.coord[1] = 1.0f;
    std::uint32_t out[4];
    texture_gather(t.object, t.memory, r, 0, out);
    CHECK(std::bit_cast<float>(out[0]) == 2);  // (i0, j1)
    CHECK(std::bit_cast<float>(out[1]) == 3);  // (i1, j1)
    CHECK(std::bit_cast<float>(out[2]) == 1);  // (i1, j0)
    CHECK(std::bit_cast<float>(out[3]) == 0);  // (i0, j0)
}

TEST_CASE("texture: mipmap levels: nearest level rounds the level of detail, clamped") {
    TextureObject t;
    t.resource.format = f32();
    std::vector<std::vector<float>> data;
    TexelMemory m;
    for (int l = 0; l < 3; ++l) {
        const std::uint32_t w = 4u >> l;
        TextureLevel level;
        level.width = level.height = w;
        level.row_pitch = w * 4;
        level.slice_pitch = level.row_pitch * w;
        t.resource.levels.push_back(level);
        data.emplace_back(w * w, float(100 * l));
    }
    for (int l = 0; l < 3; ++l)
        m.level[l] = reinterpret_cast<const std::uint8_t*>(data[std::size_t(l)].data());
    t.sampler.normalized_coords = true;
    t.sampler.max_lod = 2;
    TexRequest r;
    r.coord[0] = r.coord[1] = 0.5f;
    r.lod_mode = TexRequest::Lod::level;
    std::uint32_t out[4];
    for (auto [lod, want] : {std::pair{0.0f, 0.0f},
                             {0.49f, 0.0f},
                             {0.5f, 100.0f},
                             {1.6f, 200.0f},
                             {9.0f, 200.0f},
                             {-3.0f, 0.0f}}) {
        r.lod = lod;
        texture_sample(t, m, r, out);
        CHECK(std::bit_cast<float>(out[0]) == want);
    }
    unsigned v = 0;
    CHECK(texture_query(t, "num_mipmap_levels", 0, &v));
    CHECK(v == 3);
    CHECK(texture_query(t, "width", 1, &v));
    CHECK(v == 2);
    CHECK_FALSE(texture_query(t, "channel_order", 0, &v));  // the GPU's own encoding
}

// [SECTION] Surfaces
// -------------------------------------------------------------------------------

TEST_CASE("surface: x is in bytes; outside traps, reads zero or moves to the nearest element") {
    TextureLevel l;
    l.width = 8;
    l.height = 6;
    l.depth = 1;
    l.row_pitch = 32;
    l.slice_pitch = 32 * 6;
    const TexelFormat f = f32();
    CHECK(surface_offset(l, f, 12, 2, 0, 4, SurfaceClamp::trap) == 2 * 32 + 12);
    CHECK(surface_offset(l, f, 32, 0, 0, 4, SurfaceClamp::trap) == -1);
    CHECK(surface_offset(l, f, -4, 0, 0, 4, SurfaceClamp::zero) == -1);
    CHECK(surface_offset(l, f, 100, -9, 0, 4, SurfaceClamp::clamp) == 28);
    CHECK(surface_offset(l, f, -40, 7, 0, 4, SurfaceClamp::clamp) == 5 * 32);
    CHECK(surface_offset(l, f, 28, 5, 0, 8, SurfaceClamp::trap) == -1);  // 8 bytes at the end
}

// [SECTION] The instructions, in a kernel
// ----------------------------------------------------------

// A kernel of hand-written PTX over one texture and one surface, as nvcc emits the forms.
const char* kernel_ptx = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 tex, .param .u64 surf, .param .u64 out)
{
    .reg .b32 %r<16>;
    .reg .f32 %f<8>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [tex];
    ld.param.u64 %rd2, [surf];
    ld.param.u64 %rd3, [out];
    mov.u32 %r1, %tid.x;
    cvt.rn.f32.u32 %f1, %r1;
    add.f32 %f1, %f1, 0f3F000000;
    mov.f32 %f2, 0f3F000000;
    tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd1, {%f1, %f2}];
    shl.b32 %r2, %r1, 2;
    mov.u32 %r3, 0;
    sust.b.2d.b32.trap [%rd2, {%r2, %r3}], {%r1};
    sured.b.add.2d.u32.trap [%rd2, {%r3, %r3}], %r1;
    suld.b.2d.b32.trap {%r4}, [%rd2, {%r2, %r3}];
    txq.width.b32 %r5, [%rd1];
    suq.width.b32 %r6, [%rd2];
    cvt.u64.u32 %rd4, %r1;
    shl.b64 %rd4, %rd4, 4;
    add.u64 %rd5, %rd3, %rd4;
    st.global.f32 [%rd5], %f3;
    st.global.u32 [%rd5+4], %r4;
    st.global.u32 [%rd5+8], %r5;
    st.global.u32 [%rd5+12], %r6;
    ret;
}
)";

struct KernelWorld {
    Emulator emu;
    std::uint64_t texels = 0, surface_bytes = 0, out = 0, tex = 0, surf = 0;

    KernelWorld() {
        REQUIRE(emu.load(kernel_ptx, "texture_test.ptx").ok());
        DeviceMemory& m = emu.memory();
        texels = m.allocate(8 * 4, "a CUDA array");
        surface_bytes = m.allocate(8 * 4, "a CUDA array");
        out = m.allocate(8 * 16, "out");
        std::vector<float> v(8);
        for (int i = 0; i < 8; ++i) v[std::size_t(i)] = float(i * i);
        m.copy_in(texels, v.data(), 32);
        const std::vector<std::uint32_t> zero(8, 0);
        m.copy_in(surface_bytes, zero.data(), 32);
        TextureObject t;
        t.resource.format = f32();
        TextureLevel l;
        l.address = texels;
        l.width = 8;
        l.row_pitch = l.slice_pitch = 32;
        t.resource.levels.push_back(l);
        tex = m.textures().add(t);
        SurfaceObject s;
        s.resource = t.resource;
        s.resource.levels[0].address = surface_bytes;
        surf = m.textures().add(s);
    }
    LaunchResult launch(std::uint64_t t, std::uint64_t s, unsigned threads = 8) {
        TraceOptions trace;
        trace.enabled = false;
        return emu.launch("k", "k", LaunchConfig{Dim3{1, 1, 1}, Dim3{threads, 1, 1}, 0},
                          {KernelArg::of(t), KernelArg::of(s), KernelArg::of(out)}, trace);
    }
};

TEST_CASE("texture instructions: tex, sust, sured, suld, txq and suq in one kernel") {
    KernelWorld w;
    const LaunchResult r = w.launch(w.tex, w.surf);
    INFO(r.status.message);
    REQUIRE(r.status.ok());
    std::vector<std::uint32_t> got(32);
    REQUIRE(w.emu.memory().copy_out(got.data(), w.out, got.size() * 4));
    for (unsigned i = 0; i < 8; ++i) {
        CHECK(std::bit_cast<float>(got[i * 4]) == float(i * i));
        // Element 0 got 0 from its own store, then 0 + 1 + ... + 7 from the reductions (all
        // after the stores: one warp runs each instruction for all its lanes).
        CHECK(got[i * 4 + 1] == (i == 0 ? 28u : i));
        CHECK(got[i * 4 + 2] == 8);
        CHECK(got[i * 4 + 3] == 8);
    }
}

TEST_CASE("texture instructions: what an untrusted kernel can get wrong faults, named") {
    KernelWorld w;
    SUBCASE("a handle that names no object") {
        const LaunchResult r = w.launch(12345, w.surf);
        CHECK_FALSE(r.status.ok());
        CHECK(r.status.message.find("not a live texture object") != std::string::npos);
    }
    SUBCASE("a surface handle given as a texture") {
        const LaunchResult r = w.launch(w.surf, w.surf);
        CHECK(r.status.message.find("a surface object, not a texture object") != std::string::npos);
    }
    SUBCASE("a store outside the surface under .trap") {
        const LaunchResult r = w.launch(w.tex, w.surf, 9);
        CHECK(r.status.message.find("out-of-bounds surface access") != std::string::npos);
    }
    SUBCASE("the array freed under a live object") {
        w.emu.memory().release(w.texels);
        const LaunchResult r = w.launch(w.tex, w.surf);
        CHECK(r.status.message.find("texture memory freed") != std::string::npos);
    }
}

}  // namespace
