#include "emulator/float_lanes.h"

#include <bit>
#include <cmath>

namespace cudalab::emu::lanes {
namespace {

// A full warp runs a counted loop the compiler vectorises; a partial mask walks its set bits.
template <class F> inline void each_lane(std::uint32_t mask, F f) {
    if (mask == 0xffffffffu) {
        for (int l = 0; l < 32; ++l) f(l);
    } else {
        for (std::uint32_t m = mask; m; m &= m - 1) f(__builtin_ctz(m));
    }
}

inline float f32(std::uint64_t v) { return std::bit_cast<float>(std::uint32_t(v)); }

// The GPU's f32 NaN is 0x7fffffff whatever the inputs (seen on an H200); an integer test keeps the
// loop vectorisable.
inline std::uint64_t bits(float r) {
    const std::uint32_t u = std::bit_cast<std::uint32_t>(r);
    return (u & 0x7fffffffu) > 0x7f800000u ? 0x7fffffffu : u;
}

}  // namespace

// std::fma is a library call per lane unless the target has FMA; on x86-64 a clone for CPUs with
// it (nearly all since 2013) is chosen at load time. Both round once, as the GPU does.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__FMA__)
#define CUDALAB_FMA_CLONES __attribute__((target_clones("fma", "default")))
#else
#define CUDALAB_FMA_CLONES
#endif

CUDALAB_FMA_CLONES void fma_f32(std::uint64_t* d, const std::uint64_t* a, const std::uint64_t* b,
                                const std::uint64_t* c, std::uint32_t mask) {
    each_lane(mask, [&](int l) { d[l] = bits(std::fma(f32(a[l]), f32(b[l]), f32(c[l]))); });
}

CUDALAB_FMA_CLONES void fma_f64(std::uint64_t* d, const std::uint64_t* a, const std::uint64_t* b,
                                const std::uint64_t* c, std::uint32_t mask) {
    each_lane(mask, [&](int l) {
        d[l] = std::bit_cast<std::uint64_t>(std::fma(
            std::bit_cast<double>(a[l]), std::bit_cast<double>(b[l]), std::bit_cast<double>(c[l])));
    });
}

void add_f32(std::uint64_t* d, const std::uint64_t* a, const std::uint64_t* b, std::uint32_t mask) {
    each_lane(mask, [&](int l) { d[l] = bits(f32(a[l]) + f32(b[l])); });
}
void sub_f32(std::uint64_t* d, const std::uint64_t* a, const std::uint64_t* b, std::uint32_t mask) {
    each_lane(mask, [&](int l) { d[l] = bits(f32(a[l]) - f32(b[l])); });
}
void mul_f32(std::uint64_t* d, const std::uint64_t* a, const std::uint64_t* b, std::uint32_t mask) {
    each_lane(mask, [&](int l) { d[l] = bits(f32(a[l]) * f32(b[l])); });
}

}  // namespace cudalab::emu::lanes
