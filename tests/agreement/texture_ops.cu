// The emulator against the GPU on CUDA arrays, texture objects and surface objects: every
// address mode, point and linear filtering, normalized coordinates, the read modes, layered,
// cubemap, 3D, mipmapped, linear and pitched textures, gathers (tld4), surface stores and loads at
// the boundary (sust, suld), and the errors texture creation answers. The companion of ops.cu and tensor_ops.cu, in their output format:
//
//   name exact v0 v1 ...        (each value a result's bits in hex)
//
// A sampling case prints the four components of each sample (x, y, z, w) in turn. What the CUDA
// documentation leaves to the hardware (the fixed-point weights of linear filtering, the value of a
// missing channel, wrap and mirror with unnormalized coordinates) is what these lines pin:
// tests/agreement/texture_h100.txt holds a Hopper GPU's (an H100, sm_90 like the H200; driver
// 580.159.04, CUDA 13.0). The other surface shapes, sured, txq and suq are checked against the
// documented semantics in tests/programs/surface_write.cu and tests/emulator_texture_test.cpp.
//
//   nvcc -arch=sm_90 -o texture_ops tests/agreement/texture_ops.cu && ./texture_ops out.txt
#include <cuda_fp16.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#define CHECK(call)                                                                              \
    do {                                                                                         \
        cudaError_t err_ = (call);                                                               \
        if (err_ != cudaSuccess) {                                                               \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                   \
                         cudaGetErrorString(err_));                                              \
            std::exit(1);                                                                        \
        }                                                                                        \
    } while (0)

namespace {

FILE* out = nullptr;
int lines = 0;

void emit(const char* name, const std::vector<std::uint32_t>& v) {
    std::fprintf(out, "%s exact", name);
    for (std::uint32_t x : v) std::fprintf(out, " %x", x);
    std::fprintf(out, "\n");
    ++lines;
}

std::uint32_t lcg_state = 12345;
std::uint32_t lcg() {
    lcg_state = lcg_state * 1664525u + 1013904223u;
    return lcg_state >> 8;
}
float random_float() { return float(int(lcg() % 20001) - 10000) / 1237.0f; }

// What a sampling kernel reads: per sample up to four coordinates (x, y, z or layer, w), a
// level of detail and gradients.
struct Sample {
    float x, y, z, w;
    float lod;
    float dx, dy;
    int layer;
};

enum Kind {
    k1d, k2d, k3d, k1dl, k2dl, kcube, kcubel, kfetch, klod, kgrad, kgather0, kgather1, kgather2,
    kgather3
};

template <class T> __device__ T sample(cudaTextureObject_t t, int kind, const Sample& s) {
    switch (kind) {
    case k1d: return tex1D<T>(t, s.x);
    case k2d: return tex2D<T>(t, s.x, s.y);
    case k3d: return tex3D<T>(t, s.x, s.y, s.z);
    case k1dl: return tex1DLayered<T>(t, s.x, s.layer);
    case k2dl: return tex2DLayered<T>(t, s.x, s.y, s.layer);
    case kcube: return texCubemap<T>(t, s.x, s.y, s.z);
    case kcubel: return texCubemapLayered<T>(t, s.x, s.y, s.z, s.layer);
    case kfetch: return tex1Dfetch<T>(t, s.layer);
    case klod: return tex2DLod<T>(t, s.x, s.y, s.lod);
    case kgrad: return tex2DGrad<T>(t, s.x, s.y, make_float2(s.dx, 0), make_float2(0, s.dy));
    }
    return T{};
}

template <class T> __device__ T gather(cudaTextureObject_t t, int kind, const Sample& s) {
    switch (kind) {
    case kgather0: return tex2Dgather<T>(t, s.x, s.y, 0);
    case kgather1: return tex2Dgather<T>(t, s.x, s.y, 1);
    case kgather2: return tex2Dgather<T>(t, s.x, s.y, 2);
    default: return tex2Dgather<T>(t, s.x, s.y, 3);
    }
}

template <class T>
__global__ void sample_kernel(cudaTextureObject_t t, int kind, const Sample* s, int n, T* o) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    o[i] = kind >= kgather0 ? gather<T>(t, kind, s[i]) : sample<T>(t, kind, s[i]);
}

// Surface stores: each thread writes a value of its own at its element (x in bytes).
__global__ void surface_write_kernel(cudaSurfaceObject_t s, int w, int h) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= w * h) return;
    surf2Dwrite(float(i) * 0.5f + 1.0f, s, (i % w) * 4, i / w);
}

// Surface loads at byte coordinates, some outside, with the two boundary modes that do not trap.
__global__ void surface_read_kernel(cudaSurfaceObject_t s, const int* xs, const int* ys, int n,
                                    unsigned* o) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    o[2 * i] = __float_as_uint(surf2Dread<float>(s, xs[i], ys[i], cudaBoundaryModeZero));
    o[2 * i + 1] = __float_as_uint(surf2Dread<float>(s, xs[i], ys[i], cudaBoundaryModeClamp));
}

template <class T> std::vector<std::uint32_t> bits(const std::vector<T>& v) {
    std::vector<std::uint32_t> r(v.size() * sizeof(T) / 4);
    std::memcpy(r.data(), v.data(), r.size() * 4);
    return r;
}

template <class T> void run(const char* name, cudaTextureObject_t t, int kind,
                            const std::vector<Sample>& s) {
    Sample* ds;
    T* dout;
    CHECK(cudaMalloc(&ds, s.size() * sizeof(Sample)));
    CHECK(cudaMalloc(&dout, s.size() * sizeof(T)));
    CHECK(cudaMemcpy(ds, s.data(), s.size() * sizeof(Sample), cudaMemcpyHostToDevice));
    sample_kernel<T><<<(int(s.size()) + 127) / 128, 128>>>(t, kind, ds, int(s.size()), dout);
    CHECK(cudaGetLastError());
    std::vector<T> h(s.size());
    CHECK(cudaMemcpy(h.data(), dout, s.size() * sizeof(T), cudaMemcpyDeviceToHost));
    CHECK(cudaFree(ds));
    CHECK(cudaFree(dout));
    emit(name, bits(h));
}

cudaTextureObject_t make_texture(const cudaResourceDesc& r, cudaTextureAddressMode a,
                                 cudaTextureFilterMode f, bool normalized,
                                 cudaTextureReadMode read = cudaReadModeElementType,
                                 const float* border = nullptr,
                                 cudaTextureFilterMode mip = cudaFilterModePoint, float max_lod = 0) {
    cudaTextureDesc t{};
    t.addressMode[0] = t.addressMode[1] = t.addressMode[2] = a;
    t.filterMode = f;
    t.readMode = read;
    t.normalizedCoords = normalized;
    if (border)
        for (int k = 0; k < 4; ++k) t.borderColor[k] = border[k];
    t.mipmapFilterMode = mip;
    t.maxMipmapLevelClamp = max_lod;
    cudaTextureObject_t o = 0;
    CHECK(cudaCreateTextureObject(&o, &r, &t, nullptr));
    return o;
}

cudaResourceDesc array_resource(cudaArray_t a) {
    cudaResourceDesc r{};
    r.resType = cudaResourceTypeArray;
    r.res.array.array = a;
    return r;
}

template <class T>
cudaArray_t make_array_2d(const std::vector<T>& data, int w, int h, unsigned flags = 0,
                          cudaChannelFormatDesc desc = cudaCreateChannelDesc<T>()) {
    cudaArray_t a;
    CHECK(cudaMallocArray(&a, &desc, w, h, flags));
    CHECK(cudaMemcpy2DToArray(a, 0, 0, data.data(), w * sizeof(T), w * sizeof(T), h,
                              cudaMemcpyHostToDevice));
    return a;
}

template <class T>
cudaArray_t make_array_3d(const std::vector<T>& data, int w, int h, int d, unsigned flags,
                          int copy_h) {
    cudaChannelFormatDesc desc = cudaCreateChannelDesc<T>();
    cudaArray_t a;
    CHECK(cudaMalloc3DArray(&a, &desc, make_cudaExtent(w, h, d), flags));
    cudaMemcpy3DParms p{};
    p.srcPtr = make_cudaPitchedPtr(const_cast<T*>(data.data()), w * sizeof(T), w, copy_h);
    p.dstArray = a;
    p.extent = make_cudaExtent(w, copy_h, d);
    p.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&p));
    return a;
}

// 2D sample points: unnormalized texel coordinates over an 8 x 6 texture, inside (centres,
// edges, fractions) and outside on every side.
std::vector<Sample> points_2d(float sx, float sy) {
    const float xs[] = {0.5f, 1.0f, 1.25f, 2.3f, 3.75f, 7.5f, 7.9f, 8.0f,
                        8.6f, -0.3f, -1.7f, 0.0f, 4.5f, 10.2f, 5.001f, 6.999f,
                        -9.4f, 13.3f, 2.62f, 0.77f};
    const float ys[] = {0.5f, 0.75f, 2.2f, 5.9f, -0.4f, 6.3f, 3.5f, 1.1f, 0.0f, 4.49f,
                        2.0f, 5.5f, 3.125f, -2.6f, 1.99f, 6.0f, 8.8f, -7.1f, 4.87f, 0.31f};
    std::vector<Sample> s;
    for (int i = 0; i < 20; ++i) s.push_back({xs[i] * sx, ys[i] * sy, 0, 0, 0, 0, 0, 0});
    return s;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s OUT.txt\n", argv[0]);
        return 2;
    }
    out = std::fopen(argv[1], "w");
    if (!out) return 2;

    // [1] f32, one channel, 8 x 6: texel (x, y) holds x + 8 y (filtered values are exact).
    std::vector<float> small(48);
    for (int i = 0; i < 48; ++i) small[i] = float(i);
    cudaArray_t a_small = make_array_2d(small, 8, 6);
    cudaResourceDesc r_small = array_resource(a_small);
    const auto unnorm = points_2d(1, 1), norm = points_2d(1.0f / 8, 1.0f / 6);
    // Wide normalized coordinates: several periods away, for wrap and mirror.
    std::vector<Sample> wide;
    for (int i = 0; i < 24; ++i)
        wide.push_back({-3.1f + 0.291f * i, 2.7f - 0.263f * i, 0, 0, 0, 0, 0, 0});
    const cudaTextureAddressMode modes[] = {cudaAddressModeWrap, cudaAddressModeClamp,
                                            cudaAddressModeMirror, cudaAddressModeBorder};
    const char* mode_names[] = {"wrap", "clamp", "mirror", "border"};
    for (int m = 0; m < 4; ++m)
        for (int f = 0; f < 2; ++f)
            for (int n = 0; n < 2; ++n) {
                char name[64];
                std::snprintf(name, sizeof name, "f32_2d_%s_%s_%s", mode_names[m],
                              f ? "linear" : "point", n ? "norm" : "unnorm");
                cudaTextureObject_t t = make_texture(r_small, modes[m],
                                                     f ? cudaFilterModeLinear : cudaFilterModePoint,
                                                     n != 0);
                run<float4>(name, t, k2d, n ? norm : unnorm);
                if (n && (m == 0 || m == 2)) {
                    std::snprintf(name, sizeof name, "f32_2d_%s_%s_wide", mode_names[m],
                                  f ? "linear" : "point");
                    run<float4>(name, t, k2d, wide);
                }
                CHECK(cudaDestroyTextureObject(t));
            }

    // [2] f32x4 random values, linear: the weights' arithmetic on values that are not small
    // integers; a border colour.
    std::vector<float4> rnd(48);
    for (auto& v : rnd) v = make_float4(random_float(), random_float(), random_float(), random_float());
    cudaArray_t a_rnd = make_array_2d(rnd, 8, 6);
    cudaResourceDesc r_rnd = array_resource(a_rnd);
    {
        cudaTextureObject_t t = make_texture(r_rnd, cudaAddressModeClamp, cudaFilterModeLinear, false);
        run<float4>("f32x4_random_linear", t, k2d, unnorm);
        run<float4>("gather0_f32x4", t, kgather0, unnorm);
        run<float4>("gather1_f32x4", t, kgather1, unnorm);
        run<float4>("gather2_f32x4", t, kgather2, unnorm);
        run<float4>("gather3_f32x4", t, kgather3, unnorm);
        CHECK(cudaDestroyTextureObject(t));
        const float border[4] = {0.25f, -0.5f, 0.75f, 3.0f};
        t = make_texture(r_rnd, cudaAddressModeBorder, cudaFilterModeLinear, true,
                         cudaReadModeElementType, border);
        run<float4>("f32x4_border_colour_linear", t, k2d, norm);
        run<float4>("gather1_f32x4_border", t, kgather1, norm);
        CHECK(cudaDestroyTextureObject(t));
        t = make_texture(r_rnd, cudaAddressModeWrap, cudaFilterModePoint, true);
        run<float4>("gather2_f32x4_wrap", t, kgather2, wide);
        CHECK(cudaDestroyTextureObject(t));
    }

    // [3] The linear filter's weights: a 2-texel texture (0, 1) sampled at 1024 fractions, and
    // a 4096-texel ramp far from the origin.
    {
        std::vector<float> two = {0.0f, 1.0f};
        cudaArray_t a = make_array_2d(two, 2, 1);
        cudaTextureObject_t t =
            make_texture(array_resource(a), cudaAddressModeClamp, cudaFilterModeLinear, false);
        std::vector<Sample> s;
        for (int k = 0; k < 1024; ++k) s.push_back({0.5f + k / 1024.0f, 0, 0, 0, 0, 0, 0, 0});
        run<float>("linear_weights", t, k1d, s);
        s.clear();
        for (int k = 0; k < 256; ++k) s.push_back({0.5f + float(k) / 2048.0f + (k % 2) / 4096.0f, 0, 0, 0, 0, 0, 0, 0});
        run<float>("linear_weights_fine", t, k1d, s);
        CHECK(cudaDestroyTextureObject(t));
        t = make_texture(array_resource(a), cudaAddressModeClamp, cudaFilterModeLinear, true);
        s.clear();
        for (int k = 0; k < 128; ++k) s.push_back({0.25f + k / 256.0f + 1.0f / 1536, 0, 0, 0, 0, 0, 0, 0});
        run<float>("linear_weights_norm", t, k1d, s);
        CHECK(cudaDestroyTextureObject(t));
        CHECK(cudaFreeArray(a));
        std::vector<float> ramp(4096);
        for (int i = 0; i < 4096; ++i) ramp[i] = float(i) * 3.0f;
        cudaArray_t b = make_array_2d(ramp, 4096, 1);
        t = make_texture(array_resource(b), cudaAddressModeClamp, cudaFilterModeLinear, false);
        s.clear();
        for (int k = 0; k < 64; ++k) s.push_back({1000.5f + k * 47.37f + k / 64.0f, 0, 0, 0, 0, 0, 0, 0});
        run<float>("linear_ramp_far", t, k1d, s);
        CHECK(cudaDestroyTextureObject(t));
        t = make_texture(array_resource(b), cudaAddressModeWrap, cudaFilterModeLinear, true);
        s.clear();
        for (int k = 0; k < 64; ++k) s.push_back({0.123f + k * 0.0137f, 0, 0, 0, 0, 0, 0, 0});
        run<float>("linear_ramp_norm", t, k1d, s);
        CHECK(cudaDestroyTextureObject(t));
        CHECK(cudaFreeArray(b));
    }

    // [4] Integer formats: normalized-float and element-type reads, missing channels.
    {
        std::vector<uchar4> u8(48);
        for (auto& v : u8) v = make_uchar4(lcg() & 255, lcg() & 255, lcg() & 255, lcg() & 255);
        u8[0] = make_uchar4(0, 255, 128, 1);
        cudaArray_t a = make_array_2d(u8, 8, 6);
        cudaResourceDesc r = array_resource(a);
        cudaTextureObject_t t = make_texture(r, cudaAddressModeClamp, cudaFilterModePoint, false,
                                             cudaReadModeNormalizedFloat);
        run<float4>("u8x4_normalized_point", t, k2d, unnorm);
        CHECK(cudaDestroyTextureObject(t));
        t = make_texture(r, cudaAddressModeClamp, cudaFilterModeLinear, false,
                         cudaReadModeNormalizedFloat);
        run<float4>("u8x4_normalized_linear", t, k2d, unnorm);
        run<float4>("gather0_u8x4_normalized", t, kgather0, unnorm);
        CHECK(cudaDestroyTextureObject(t));
        t = make_texture(r, cudaAddressModeWrap, cudaFilterModeLinear, true,
                         cudaReadModeNormalizedFloat);
        run<float4>("u8x4_normalized_linear_wrap", t, k2d, wide);
        CHECK(cudaDestroyTextureObject(t));
        t = make_texture(r, cudaAddressModeClamp, cudaFilterModePoint, false);
        run<uchar4>("u8x4_element_point", t, k2d, unnorm);
        run<uchar4>("gather3_u8x4_element", t, kgather3, unnorm);
        CHECK(cudaDestroyTextureObject(t));

        std::vector<signed char> s8(48);
        for (auto& v : s8) v = (signed char)(lcg() & 255);
        s8[0] = -128;
        s8[1] = 127;
        s8[2] = -127;
        cudaArray_t b = make_array_2d(s8, 8, 6);
        t = make_texture(array_resource(b), cudaAddressModeClamp, cudaFilterModePoint, false,
                         cudaReadModeNormalizedFloat);
        run<float4>("s8_normalized_point", t, k2d, unnorm);
        CHECK(cudaDestroyTextureObject(t));
        t = make_texture(array_resource(b), cudaAddressModeClamp, cudaFilterModeLinear, false,
                         cudaReadModeNormalizedFloat);
        run<float4>("s8_normalized_linear", t, k2d, unnorm);
        CHECK(cudaDestroyTextureObject(t));
        t = make_texture(array_resource(b), cudaAddressModeClamp, cudaFilterModePoint, false);
        run<int4>("s8_element_point", t, k2d, unnorm);
        CHECK(cudaDestroyTextureObject(t));

        std::vector<ushort2> u16(48);
        for (auto& v : u16) v = make_ushort2(lcg() & 0xffff, lcg() & 0xffff);
        cudaArray_t c = make_array_2d(u16, 8, 6);
        t = make_texture(array_resource(c), cudaAddressModeClamp, cudaFilterModeLinear, false,
                         cudaReadModeNormalizedFloat);
        run<float4>("u16x2_normalized_linear", t, k2d, unnorm);
        CHECK(cudaDestroyTextureObject(t));
        t = make_texture(array_resource(c), cudaAddressModeBorder, cudaFilterModePoint, false);
        run<uint4>("u16x2_element_point_border", t, k2d, unnorm);
        CHECK(cudaDestroyTextureObject(t));

        std::vector<short> s16(48);
        for (auto& v : s16) v = short(lcg() & 0xffff);
        s16[3] = -32768;
        cudaArray_t d = make_array_2d(s16, 8, 6);
        t = make_texture(array_resource(d), cudaAddressModeClamp, cudaFilterModePoint, false,
                         cudaReadModeNormalizedFloat);
        run<float4>("s16_normalized_point", t, k2d, unnorm);
        CHECK(cudaDestroyTextureObject(t));

        std::vector<int> s32(48);
        for (auto& v : s32) v = int(lcg() * 977u);
        cudaArray_t e = make_array_2d(s32, 8, 6);
        t = make_texture(array_resource(e), cudaAddressModeMirror, cudaFilterModePoint, true);
        run<int4>("s32_element_point_mirror", t, k2d, wide);
        CHECK(cudaDestroyTextureObject(t));

        std::vector<uint4> u32(48);
        for (auto& v : u32) v = make_uint4(lcg(), lcg() * 3u, lcg() * 7u, lcg() * 11u);
        cudaArray_t g = make_array_2d(u32, 8, 6);
        t = make_texture(array_resource(g), cudaAddressModeWrap, cudaFilterModePoint, true);
        run<uint4>("u32x4_element_point_wrap", t, k2d, norm);
        CHECK(cudaDestroyTextureObject(t));

        std::vector<__half> h16(48);
        for (int i = 0; i < 48; ++i) h16[i] = __float2half(random_float());
        cudaArray_t hh = make_array_2d(h16, 8, 6, 0, cudaCreateChannelDescHalf());
        t = make_texture(array_resource(hh), cudaAddressModeClamp, cudaFilterModeLinear, false);
        run<float4>("f16_linear", t, k2d, unnorm);
        CHECK(cudaDestroyTextureObject(t));
        t = make_texture(array_resource(hh), cudaAddressModeClamp, cudaFilterModePoint, false);
        run<float4>("f16_point", t, k2d, unnorm);
        CHECK(cudaDestroyTextureObject(t));

        std::vector<float2> f2(48);
        for (auto& v : f2) v = make_float2(random_float(), random_float());
        cudaArray_t ff = make_array_2d(f2, 8, 6);
        t = make_texture(array_resource(ff), cudaAddressModeClamp, cudaFilterModePoint, false);
        run<float4>("f32x2_point_missing_channels", t, k2d, unnorm);
        CHECK(cudaDestroyTextureObject(t));

        // The errors creation answers (codes), and what a missing-channel read gives for u8.
        std::vector<std::uint32_t> errors;
        cudaTextureDesc td{};
        cudaTextureObject_t bad = 0;
        td.filterMode = cudaFilterModeLinear;
        td.readMode = cudaReadModeElementType;
        cudaResourceDesc re = array_resource(e);  // s32: linear filtering of element-type ints
        errors.push_back(cudaCreateTextureObject(&bad, &re, &td, nullptr));
        if (bad) cudaDestroyTextureObject(bad);
        bad = 0;
        cudaResourceDesc rf = array_resource(ff);  // f32 read as normalized float
        td.filterMode = cudaFilterModePoint;
        td.readMode = cudaReadModeNormalizedFloat;
        errors.push_back(cudaCreateTextureObject(&bad, &rf, &td, nullptr));
        if (bad) cudaDestroyTextureObject(bad);
        bad = 0;
        cudaResourceDesc rn{};
        rn.resType = cudaResourceTypeArray;  // a null array
        td.readMode = cudaReadModeElementType;
        errors.push_back(cudaCreateTextureObject(&bad, &rn, &td, nullptr));
        errors.push_back(cudaCreateTextureObject(nullptr, &rf, &td, nullptr));
        cudaGetLastError();
        emit("create_errors", errors);
        cudaArray_t one;
        cudaChannelFormatDesc od = cudaCreateChannelDesc<unsigned char>();
        CHECK(cudaMallocArray(&one, &od, 4, 1));
        unsigned char ob[4] = {0, 64, 255, 9};
        CHECK(cudaMemcpy2DToArray(one, 0, 0, ob, 4, 4, 1, cudaMemcpyHostToDevice));
        t = make_texture(array_resource(one), cudaAddressModeClamp, cudaFilterModePoint, false,
                         cudaReadModeNormalizedFloat);
        run<float4>("u8_normalized_missing_channels", t, k1d, unnorm);
        CHECK(cudaDestroyTextureObject(t));
        t = make_texture(array_resource(one), cudaAddressModeClamp, cudaFilterModePoint, false);
        run<uint4>("u8_element_missing_channels", t, k1d, unnorm);
        CHECK(cudaDestroyTextureObject(t));
        for (cudaArray_t x : {a, b, c, d, e, g, hh, ff, one}) CHECK(cudaFreeArray(x));
    }

    // [5] 1D, 3D, layered, cubemap.
    {
        std::vector<float> line(16);
        for (int i = 0; i < 16; ++i) line[i] = float(i * i) * 0.25f;
        cudaArray_t a = make_array_2d(line, 16, 1);
        std::vector<Sample> s;
        for (int k = 0; k < 32; ++k) s.push_back({-2.2f + k * 0.67f, 0, 0, 0, 0, 0, 0, 0});
        cudaTextureObject_t t = make_texture(array_resource(a), cudaAddressModeClamp, cudaFilterModeLinear, false);
        run<float>("f32_1d_linear_clamp", t, k1d, s);
        CHECK(cudaDestroyTextureObject(t));
        for (auto& v : s) v.x /= 16;
        t = make_texture(array_resource(a), cudaAddressModeMirror, cudaFilterModeLinear, true);
        run<float>("f32_1d_linear_mirror", t, k1d, s);
        CHECK(cudaDestroyTextureObject(t));
        CHECK(cudaFreeArray(a));

        std::vector<float> vol(4 * 4 * 4);
        for (int i = 0; i < 64; ++i) vol[i] = float(i);
        cudaArray_t v3 = make_array_3d(vol, 4, 4, 4, 0, 4);
        s.clear();
        for (int k = 0; k < 24; ++k)
            s.push_back({-0.4f + k * 0.21f, 0.3f + k * 0.137f, 3.9f - k * 0.19f, 0, 0, 0, 0, 0});
        t = make_texture(array_resource(v3), cudaAddressModeClamp, cudaFilterModePoint, false);
        run<float>("f32_3d_point", t, k3d, s);
        CHECK(cudaDestroyTextureObject(t));
        t = make_texture(array_resource(v3), cudaAddressModeClamp, cudaFilterModeLinear, false);
        run<float>("f32_3d_linear", t, k3d, s);
        CHECK(cudaDestroyTextureObject(t));
        for (auto& v : s) v.x /= 4, v.y /= 4, v.z /= 4;
        t = make_texture(array_resource(v3), cudaAddressModeWrap, cudaFilterModeLinear, true);
        run<float>("f32_3d_linear_wrap", t, k3d, s);
        CHECK(cudaDestroyTextureObject(t));
        CHECK(cudaFreeArray(v3));

        // 1D layered: 8 texels x 3 layers; layers outside [0, 3) too.
        std::vector<float> l1(24);
        for (int i = 0; i < 24; ++i) l1[i] = float(i) + 0.5f;
        cudaArray_t la = make_array_3d(l1, 8, 0, 3, cudaArrayLayered, 1);
        s.clear();
        for (int k = 0; k < 16; ++k) s.push_back({0.3f + k * 0.6f, 0, 0, 0, 0, 0, 0, k % 6 - 1});
        t = make_texture(array_resource(la), cudaAddressModeClamp, cudaFilterModeLinear, false);
        run<float>("f32_1d_layered_linear", t, k1dl, s);
        CHECK(cudaDestroyTextureObject(t));
        CHECK(cudaFreeArray(la));

        // 2D layered: 4 x 4 x 3.
        std::vector<float> l2(48);
        for (int i = 0; i < 48; ++i) l2[i] = float(i);
        cudaArray_t lb = make_array_3d(l2, 4, 4, 3, cudaArrayLayered, 4);
        s.clear();
        for (int k = 0; k < 18; ++k)
            s.push_back({0.2f + k * 0.27f, 3.9f - k * 0.23f, 0, 0, 0, 0, 0, k % 5 - 1});
        t = make_texture(array_resource(lb), cudaAddressModeClamp, cudaFilterModePoint, false);
        run<float>("f32_2d_layered_point", t, k2dl, s);
        CHECK(cudaDestroyTextureObject(t));
        t = make_texture(array_resource(lb), cudaAddressModeClamp, cudaFilterModeLinear, false);
        run<float>("f32_2d_layered_linear", t, k2dl, s);
        CHECK(cudaDestroyTextureObject(t));
        CHECK(cudaFreeArray(lb));

        // Cubemap: 4 x 4 faces, texel = face * 100 + y * 4 + x.
        std::vector<float> cube(4 * 4 * 6 * 2);
        for (int i = 0; i < 96; ++i) cube[i] = float((i / 16) * 100 + i % 16 + (i / 96) * 1000);
        for (int i = 96; i < 192; ++i) cube[i] = float(1000 + ((i - 96) / 16) * 100 + i % 16);
        cudaArray_t cu = make_array_3d(cube, 4, 4, 6, cudaArrayCubemap, 4);
        s.clear();
        const float dirs[][3] = {{1, 0, 0},       {-1, 0, 0},     {0, 1, 0},       {0, -1, 0},
                                 {0, 0, 1},       {0, 0, -1},     {1, 0.3f, -0.6f}, {-1, -0.9f, 0.2f},
                                 {0.4f, 1, 0.7f}, {-0.2f, -1, 0.5f}, {0.8f, -0.1f, 1}, {0.3f, 0.45f, -1},
                                 {2, 1, 1.5f},    {0.5f, 0.5f, 0.5f}, {-3, 2.9f, 1},  {0.1f, 0.2f, -0.3f}};
        for (auto& d : dirs) s.push_back({d[0], d[1], d[2], 0, 0, 0, 0, 0});
        t = make_texture(array_resource(cu), cudaAddressModeClamp, cudaFilterModePoint, true);
        run<float>("cubemap_point", t, kcube, s);
        CHECK(cudaDestroyTextureObject(t));
        t = make_texture(array_resource(cu), cudaAddressModeClamp, cudaFilterModeLinear, true);
        run<float>("cubemap_linear_centres", t, kcube, std::vector<Sample>(s.begin(), s.begin() + 6));
        CHECK(cudaDestroyTextureObject(t));
        CHECK(cudaFreeArray(cu));
        cudaArray_t cl = make_array_3d(cube, 4, 4, 12, cudaArrayCubemap | cudaArrayLayered, 4);
        for (std::size_t k = 0; k < s.size(); ++k) s[k].layer = int(k % 3) - (k == 5 ? 3 : 0);
        t = make_texture(array_resource(cl), cudaAddressModeClamp, cudaFilterModePoint, true);
        run<float>("cubemap_layered_point", t, kcubel, s);
        CHECK(cudaDestroyTextureObject(t));
        CHECK(cudaFreeArray(cl));
    }

    // [6] Linear memory (tex1Dfetch) and pitched 2D memory.
    {
        std::vector<float> lin(20);
        for (int i = 0; i < 20; ++i) lin[i] = float(i) * 1.5f - 3;
        float* d;
        CHECK(cudaMalloc(&d, 20 * sizeof(float)));
        CHECK(cudaMemcpy(d, lin.data(), 20 * sizeof(float), cudaMemcpyHostToDevice));
        cudaResourceDesc r{};
        r.resType = cudaResourceTypeLinear;
        r.res.linear.devPtr = d;
        r.res.linear.desc = cudaCreateChannelDesc<float>();
        r.res.linear.sizeInBytes = 20 * sizeof(float);
        cudaTextureObject_t t = make_texture(r, cudaAddressModeClamp, cudaFilterModePoint, false);
        std::vector<Sample> s;
        for (int i : {0, 1, 5, 19, 20, 21, 64, -1, -100, 7}) s.push_back({0, 0, 0, 0, 0, 0, 0, i});
        run<float>("fetch_linear_f32", t, kfetch, s);
        CHECK(cudaDestroyTextureObject(t));
        r.res.linear.desc = cudaCreateChannelDesc<uchar4>();
        t = make_texture(r, cudaAddressModeClamp, cudaFilterModePoint, false,
                         cudaReadModeNormalizedFloat);
        run<float4>("fetch_linear_u8x4_normalized", t, kfetch, s);
        CHECK(cudaDestroyTextureObject(t));
        CHECK(cudaFree(d));

        float* p;
        size_t pitch;
        CHECK(cudaMallocPitch(&p, &pitch, 10 * sizeof(float), 5));
        std::vector<float> img(50);
        for (int i = 0; i < 50; ++i) img[i] = float(i % 10) * 2 + float(i / 10) * 0.125f;
        CHECK(cudaMemcpy2D(p, pitch, img.data(), 10 * sizeof(float), 10 * sizeof(float), 5,
                           cudaMemcpyHostToDevice));
        cudaResourceDesc rp{};
        rp.resType = cudaResourceTypePitch2D;
        rp.res.pitch2D.devPtr = p;
        rp.res.pitch2D.desc = cudaCreateChannelDesc<float>();
        rp.res.pitch2D.width = 10;
        rp.res.pitch2D.height = 5;
        rp.res.pitch2D.pitchInBytes = pitch;
        t = make_texture(rp, cudaAddressModeClamp, cudaFilterModeLinear, false);
        run<float>("pitch2d_linear", t, k2d, unnorm);
        CHECK(cudaDestroyTextureObject(t));
        t = make_texture(rp, cudaAddressModeWrap, cudaFilterModePoint, true);
        run<float>("pitch2d_point_wrap", t, k2d, wide);
        CHECK(cudaDestroyTextureObject(t));
        CHECK(cudaFree(p));
    }

    // [7] Mipmaps: 8 x 8 with 4 levels, level l's texel (x, y) = 100 l + x + 8 y.
    {
        cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
        cudaMipmappedArray_t mip;
        CHECK(cudaMallocMipmappedArray(&mip, &desc, make_cudaExtent(8, 8, 0), 4));
        for (int l = 0; l < 4; ++l) {
            cudaArray_t level;
            CHECK(cudaGetMipmappedArrayLevel(&level, mip, l));
            int w = 8 >> l;
            std::vector<float> v(w * w);
            for (int i = 0; i < w * w; ++i) v[i] = float(100 * l + i % w + 8 * (i / w));
            CHECK(cudaMemcpy2DToArray(level, 0, 0, v.data(), w * 4, w * 4, w,
                                      cudaMemcpyHostToDevice));
        }
        cudaResourceDesc r{};
        r.resType = cudaResourceTypeMipmappedArray;
        r.res.mipmap.mipmap = mip;
        std::vector<Sample> s;
        const float lods[] = {0, 0.4f, 0.5f, 0.6f, 1, 1.25f, 1.5f, 2.7f, 3, 5, -1, 2.01f};
        for (int k = 0; k < 12; ++k)
            s.push_back({0.3f + 0.05f * k, 0.61f - 0.03f * k, 0, 0, lods[k], 0, 0, 0});
        cudaTextureObject_t t = make_texture(r, cudaAddressModeClamp, cudaFilterModePoint, true,
                                             cudaReadModeElementType, nullptr,
                                             cudaFilterModePoint, 3);
        run<float>("mipmap_lod_point", t, klod, s);
        CHECK(cudaDestroyTextureObject(t));
        t = make_texture(r, cudaAddressModeClamp, cudaFilterModeLinear, true,
                         cudaReadModeElementType, nullptr, cudaFilterModeLinear, 3);
        run<float>("mipmap_lod_linear", t, klod, s);
        for (int k = 0; k < 12; ++k) s[k].dx = s[k].dy = float(1 << (k % 5)) / 8 * (1 + 0.1f * k);
        run<float>("mipmap_grad_linear", t, kgrad, s);
        CHECK(cudaDestroyTextureObject(t));
        CHECK(cudaFreeMipmappedArray(mip));
    }

    // [8] Surfaces: stores read back through a copy; loads at the boundary.
    {
        cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
        cudaArray_t a;
        CHECK(cudaMallocArray(&a, &fd, 8, 6, cudaArraySurfaceLoadStore));
        cudaSurfaceObject_t s;
        cudaResourceDesc r = array_resource(a);
        CHECK(cudaCreateSurfaceObject(&s, &r));
        surface_write_kernel<<<1, 64>>>(s, 8, 6);
        CHECK(cudaGetLastError());
        std::vector<float> h(48);
        CHECK(cudaMemcpy2DFromArray(h.data(), 32, a, 0, 0, 32, 6, cudaMemcpyDeviceToHost));
        emit("surface_2d_write", bits(h));
        const int xs[] = {0, 4, 28, 32, 36, -4, -40, 12, 8, 100};
        const int ys[] = {0, 5, 5, 0, 6, 2, -1, 7, 3, -9};
        int *dx, *dy;
        unsigned* dout;
        CHECK(cudaMalloc(&dx, sizeof xs));
        CHECK(cudaMalloc(&dy, sizeof ys));
        CHECK(cudaMalloc(&dout, 80));
        CHECK(cudaMemcpy(dx, xs, sizeof xs, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(dy, ys, sizeof ys, cudaMemcpyHostToDevice));
        surface_read_kernel<<<1, 32>>>(s, dx, dy, 10, dout);
        CHECK(cudaGetLastError());
        std::vector<std::uint32_t> rb(20);
        CHECK(cudaMemcpy(rb.data(), dout, 80, cudaMemcpyDeviceToHost));
        emit("surface_2d_read_boundary", rb);

        CHECK(cudaDestroySurfaceObject(s));
        CHECK(cudaFreeArray(a));
        CHECK(cudaFree(dx));
        CHECK(cudaFree(dy));
        CHECK(cudaFree(dout));
    }

    CHECK(cudaFreeArray(a_small));
    CHECK(cudaFreeArray(a_rnd));
    CHECK(cudaDeviceSynchronize());
    std::fclose(out);
    std::printf("%d cases written to %s\n", lines, argv[1]);
    return 0;
}
