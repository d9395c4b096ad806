// What the emulator computes, checked against a CPU reference, one small kernel per construct: the
// kernels live in tests/data/kernels (manifest.txt says how each is launched and fed, so that the
// same kernels can run on a GPU: see run_on_gpu.cpp there). Exact where the GPU is exact; the
// .approx instructions within the error bounds docs/emulator.md states.
//
// [SECTION] Harness: compile, launch as the manifest says, copy back
// [SECTION] CPU reference helpers (rounding, f16/bf16)
// [SECTION] Integer, bit and float arithmetic
// [SECTION] Conversions and half precision
// [SECTION] Memory spaces and atomics
// [SECTION] Warp collectives
// [SECTION] Control flow, calls, printf, clocks
// [SECTION] Determinism
#include "compiler/compiler.h"
#include "emulator/emu_backend.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "data/kernels/kernel_manifest.h"

using namespace cudalab;

namespace {

// [SECTION] Harness: compile, launch as the manifest says, copy back ------------------------------

const std::string test_data = CUDALAB_TEST_DATA;

const std::vector<kernels::ManifestEntry>& manifest() {
    static const auto entries = kernels::read_manifest(test_data + "/kernels/manifest.txt");
    return entries;
}

const kernels::ManifestEntry& manifest_entry(const std::string& kernel) {
    for (const auto& e : manifest())
        if (e.kernel == kernel) return e;
    FAIL("kernel " << kernel << " is not in tests/data/kernels/manifest.txt");
    static kernels::ManifestEntry none;
    return none;
}

std::shared_ptr<const compiler::CompileResult> compile_entry(const kernels::ManifestEntry& e) {
    static compiler::Compiler compiler;  // caches each file's PTX for the whole suite
    compiler::CompileOptions options;
    if (!e.options.empty()) options.extra_options.push_back(e.options);
    return compiler.compile_file(test_data + "/kernels/" + e.file, options);
}

struct Run {
    LaunchResult result;
    std::vector<std::uint32_t> in, out;
    std::uint64_t u64(std::size_t index) const {
        return std::uint64_t(out[2 * index]) | std::uint64_t(out[2 * index + 1]) << 32;
    }
    float f32(std::size_t word) const { return std::bit_cast<float>(out[word]); }
    double f64(std::size_t index) const { return std::bit_cast<double>(u64(index)); }
};

Dim3 dim(const kernels::Dim& d) { return Dim3{d.x, d.y, d.z}; }

Run run_kernel(const std::string& kernel, emu::EmulatorOptions options = {}, bool trace = false) {
    const auto& e = manifest_entry(kernel);
    const auto compiled = compile_entry(e);
    INFO(compiled->error_text());
    REQUIRE(compiled->ok);
    emu::EmuBackend backend(options);
    const Status loaded = backend.load(compiled);
    INFO(loaded.message);
    REQUIRE(loaded.ok());
    Run r;
    r.in = kernels::input_words(e.in_words);
    r.out.assign(e.out_words, 0);
    DevicePtr in = 0, out = 0;
    REQUIRE(backend.allocate(e.in_words * 4, &in).ok());
    REQUIRE(backend.allocate(e.out_words * 4, &out).ok());
    REQUIRE(backend.copy_to_device(in, r.in.data(), e.in_words * 4).ok());
    REQUIRE(backend.copy_to_device(out, r.out.data(), e.out_words * 4).ok());
    const std::vector<KernelArg> args{KernelArg::of(in), KernelArg::of(out)};
    TraceOptions trace_options;
    trace_options.enabled = trace;
    if (!e.first.empty()) {
        const LaunchResult first = backend.launch(
            e.first, LaunchConfig{Dim3{1, 1, 1}, Dim3{32, 1, 1}, 0}, args, trace_options);
        INFO(first.status.message);
        REQUIRE(first.status.ok());
    }
    r.result = backend.launch(kernel, LaunchConfig{dim(e.grid), dim(e.block), e.shared_bytes}, args,
                              trace_options);
    INFO(r.result.status.message);
    REQUIRE(r.result.status.ok());
    REQUIRE(backend.copy_to_host(r.out.data(), out, e.out_words * 4).ok());
    return r;
}

std::uint32_t threads_of(const std::string& kernel) {
    const auto& e = manifest_entry(kernel);
    return e.grid.x * e.grid.y * e.grid.z * e.block.x * e.block.y * e.block.z;
}

// Compares whole result rows; on a mismatch, names the first few (thread, slot, got, expected).
template <class T>
void check_rows(
    const char* what, std::uint32_t threads, std::uint32_t row,
    const std::function<T(std::uint32_t, std::uint32_t)>& got,
    const std::function<T(std::uint32_t, std::uint32_t)>& expected,
    const std::function<bool(std::uint32_t, T, T)>& equal = [](std::uint32_t, T a, T b) {
        return a == b;
    }) {
    int mismatches = 0;
    std::ostringstream first;
    for (std::uint32_t t = 0; t < threads; ++t)
        for (std::uint32_t s = 0; s < row; ++s) {
            const T g = got(t, s), e = expected(t, s);
            if (equal(s, g, e)) continue;
            if (mismatches++ < 6) {
                first << "  thread " << t << " slot " << s << ": got ";
                if constexpr (std::is_floating_point_v<T>) first.precision(17);
                if constexpr (std::is_integral_v<T>)
                    first << std::hex << "0x" << std::uint64_t(g) << " expected 0x"
                          << std::uint64_t(e) << std::dec;
                else first << g << " expected " << e;
                first << "\n";
            }
        }
    INFO(what << ": " << mismatches << " mismatches\n" << first.str());
    CHECK(mismatches == 0);
}

// [SECTION] CPU reference helpers (rounding, f16/bf16) -------------------------------------------

enum class Mode { rn, rz, rd, ru };

// Rounds an exactly known value (double or __float128) to float / double in a direction.
template <class F, class Q> F round_as(Q exact, Mode m) {
    F r = F(exact);  // to nearest
    if (Q(r) == exact || std::isnan(double(exact))) return r;
    const bool above = Q(r) > exact;
    switch (m) {
    case Mode::rn: return r;
    case Mode::rz: return (above == (exact > 0)) ? std::nextafter(r, F(0)) : r;
    case Mode::rd: return above ? std::nextafter(r, -std::numeric_limits<F>::infinity()) : r;
    case Mode::ru: return above ? r : std::nextafter(r, std::numeric_limits<F>::infinity());
    }
    return r;
}

// x / y rounded in a direction, from the exact sign of r*y - x (r*y is exact in Q).
template <class F, class Q> F divide_as(F x, F y, Mode m) {
    F r = x / y;
    const Q residual = Q(r) * Q(y) - Q(x);  // sign tells whether r is above x/y (for y > 0)
    if (residual == 0) return r;
    const bool above = (residual > 0) == (y > 0);
    const bool positive = (x > 0) == (y > 0);
    switch (m) {
    case Mode::rn: return r;
    case Mode::rz: return (above == positive) ? std::nextafter(r, F(0)) : r;
    case Mode::rd: return above ? std::nextafter(r, -std::numeric_limits<F>::infinity()) : r;
    case Mode::ru: return above ? r : std::nextafter(r, std::numeric_limits<F>::infinity());
    }
    return r;
}

template <class F, class Q> F sqrt_as(F x, Mode m) {
    F r = std::sqrt(x);
    const Q residual = Q(r) * Q(r) - Q(x);
    if (residual == 0 || m == Mode::rn) return r;
    const bool above = residual > 0;
    if (m == Mode::ru) return above ? r : std::nextafter(r, std::numeric_limits<F>::infinity());
    return above ? std::nextafter(r, F(0)) : r;  // rd and rz agree for x >= 0
}

std::uint32_t bits(float f) { return std::bit_cast<std::uint32_t>(f); }
// An f32 operation that makes a NaN gives 0x7fffffff on the GPU, whatever the operands' payloads.
float gpu_nan(float f) { return f != f ? std::bit_cast<float>(0x7fffffffu) : f; }
std::uint64_t bits(double f) { return std::bit_cast<std::uint64_t>(f); }

// f16 and bf16, by search over every encoding rather than by bit manipulation, so the reference is
// independent of the emulator's own conversion code.
double f16_value(std::uint16_t h) {
    const int e = (h >> 10) & 31, m = h & 1023;
    const double s = (h >> 15) ? -1 : 1;
    if (e == 31) return m ? std::nan("") : s * INFINITY;
    return s * (e ? std::ldexp(1024 + m, e - 25) : std::ldexp(m, -24));
}
double bf16_value(std::uint16_t h) { return double(std::bit_cast<float>(std::uint32_t(h) << 16)); }

std::uint16_t round_to_16(double v, Mode m, double (*value)(std::uint16_t),
                          std::uint16_t inf_bits) {
    if (std::isnan(v)) return 0x7fff;
    const std::uint16_t sign = std::signbit(v) ? 0x8000 : 0;
    const double a = std::fabs(v);
    // Largest encoding with value <= a (positive encodings are ordered like their values).
    std::uint32_t lo = 0, hi = inf_bits;
    while (lo < hi) {
        const std::uint32_t mid = (lo + hi + 1) / 2;
        if (value(std::uint16_t(mid)) <= a) lo = mid;
        else hi = mid - 1;
    }
    const double below = value(std::uint16_t(lo));
    if (below == a) return std::uint16_t(sign | lo);
    const std::uint32_t up = lo + 1;  // may be the infinity encoding
    const double above = up == inf_bits
                             ? 2 * value(std::uint16_t(lo)) - value(std::uint16_t(lo - 1))
                             : value(std::uint16_t(up));
    const bool magnitude_up_mode = (m == Mode::ru && !sign) || (m == Mode::rd && sign);
    std::uint32_t pick;
    if (m == Mode::rn)
        pick = (a - below < above - a || (a - below == above - a && (lo & 1) == 0)) ? lo : up;
    else pick = magnitude_up_mode ? up : lo;
    if (lo == inf_bits) pick = inf_bits;
    return std::uint16_t(sign | std::min<std::uint32_t>(pick, inf_bits));
}
std::uint16_t to_f16(double v, Mode m = Mode::rn) { return round_to_16(v, m, f16_value, 0x7c00); }
std::uint16_t to_bf16(double v, Mode m = Mode::rn) { return round_to_16(v, m, bf16_value, 0x7f80); }

// The kernels' input mapping (float.cu to_float / to_double; same operations, same rounding).
float to_float(std::uint32_t b, float scale) {
    return (float(b >> 8) / 16777216.0f * 2.0f - 1.0f) * scale;
}
double to_double(std::uint32_t hi, std::uint32_t lo, double scale) {
    const std::uint64_t b = (std::uint64_t(hi) << 32 | lo) >> 11;
    return (double(b) / 9007199254740992.0 * 2.0 - 1.0) * scale;
}

// Within n units in the last place of the reference (of type F), or an absolute error.
template <class F> bool within_ulps(F got, double reference, double ulps, double absolute = 0) {
    if (std::isnan(reference)) return std::isnan(got);
    if (std::isinf(reference)) return got == F(reference);
    const double ulp = std::max(
        double(std::nextafter(F(std::fabs(reference)), std::numeric_limits<F>::infinity())) -
            std::fabs(F(reference)),
        double(std::numeric_limits<F>::denorm_min()));
    return std::fabs(double(got) - reference) <= ulps * ulp + absolute;
}

std::int64_t sign_extend(std::uint64_t v, int bits) {
    return std::int64_t(v << (64 - bits)) >> (64 - bits);
}

}  // namespace

// [SECTION] Integer, bit and float arithmetic -----------------------------------------------------

TEST_CASE(
    "integer arithmetic, 32-bit: add sub mul mul.hi mul.wide div rem min max abs neg sad mul24") {
    const Run r = run_kernel("int32_ops");
    auto expected = [&](std::uint32_t t, std::uint32_t s) -> std::uint32_t {
        const std::int32_t a = std::int32_t(r.in[2 * t]), b0 = std::int32_t(r.in[2 * t + 1]);
        const std::int32_t b = (t & 3) == 0 ? (b0 >> 20) : b0;
        const std::uint32_t ua = std::uint32_t(a), ub = std::uint32_t(b);
        const std::int64_t wide = std::int64_t(a) * b;
        const std::uint64_t uwide = std::uint64_t(ua) * ub;
        const bool divisible = b != 0 && !(a == INT32_MIN && b == -1);
        switch (s) {
        case 0: return ua + ub;
        case 1: return ua - ub;
        case 2: return ua * ub;
        case 3: return std::uint32_t(std::uint64_t(wide) >> 32);
        case 4: return std::uint32_t(uwide >> 32);
        case 5: return std::uint32_t(wide);
        case 6: return std::uint32_t(std::uint64_t(wide) >> 32);
        case 7: return std::uint32_t(uwide >> 32);
        case 8: return divisible ? std::uint32_t(a / b) : 0u;
        case 9: return divisible ? std::uint32_t(a % b) : 0u;
        case 10: return ub ? ua / ub : 0u;
        case 11: return ub ? ua % ub : 0u;
        case 12: return std::uint32_t(std::min(a, b));
        case 13: return std::uint32_t(std::max(a, b));
        case 14: return std::min(ua, ub);
        case 15: return std::max(ua, ub);
        case 16: return a == INT32_MIN ? ua : std::uint32_t(a < 0 ? -a : a);
        case 17: return 0u - ua;
        case 18: return ua * 7u + ub;
        case 19: return std::uint32_t(std::llabs(std::int64_t(a) - b)) + 5u;
        case 20: return (ua > ub ? ua - ub : ub - ua) + 3u;
        case 21: return std::uint32_t(sign_extend(ua, 24) * sign_extend(ub, 24));
        case 22: return std::uint32_t(std::uint64_t(ua & 0xffffff) * (ub & 0xffffff));
        case 23: return ua / 3u + ub / 10u;
        }
        return 0;
    };
    check_rows<std::uint32_t>(
        "int32_ops", threads_of("int32_ops"), 24, [&](auto t, auto s) { return r.out[t * 24 + s]; },
        expected);
}

TEST_CASE("integer arithmetic, 64-bit: mul.hi, div, rem, shifts, division by a constant") {
    const Run r = run_kernel("int64_ops");
    auto expected = [&](std::uint32_t t, std::uint32_t s) -> std::uint64_t {
        const std::int64_t a = std::int64_t(std::uint64_t(r.in[4 * t]) << 32 | r.in[4 * t + 1]);
        std::int64_t b = std::int64_t(std::uint64_t(r.in[4 * t + 2]) << 32 | r.in[4 * t + 3]);
        if ((t & 3) == 0) b >>= 40;
        const std::uint64_t ua = std::uint64_t(a), ub = std::uint64_t(b);
        switch (s) {
        case 0: return ua + ub;
        case 1: return ua - ub;
        case 2: return ua * ub;
        case 3: return std::uint64_t((__int128(a) * b) >> 64);
        case 4: return std::uint64_t((unsigned __int128)ua * ub >> 64);
        case 5: return (b != 0 && b != -1) ? std::uint64_t(a / b) : 0;
        case 6: return (b != 0 && b != -1) ? std::uint64_t(a % b) : 0;
        case 7: return ub ? ua / ub : 0;
        case 8: return ub ? ua % ub : 0;
        case 9: return std::uint64_t(std::min(a, b));
        case 10: return std::max(ua, ub);
        case 11: return a < 0 ? 0 - ua : ua;
        case 12: return ua / 1000000007ull;
        case 13: return std::uint64_t(a >> (t & 63));
        case 14: return ua >> (t & 63);
        case 15: return ua << (t & 63);
        }
        return 0;
    };
    check_rows<std::uint64_t>(
        "int64_ops", threads_of("int64_ops"), 16, [&](auto t, auto s) { return r.u64(t * 16 + s); },
        expected);
}

TEST_CASE("128-bit integers: add.cc / addc / sub.cc / subc / mad.cc / madc carry chains") {
    const Run r = run_kernel("int128_ops");
    auto expected = [&](std::uint32_t t, std::uint32_t s) -> std::uint64_t {
        using u128 = unsigned __int128;
        const u128 a = (u128(r.in[4 * t]) << 96) | (u128(r.in[4 * t + 1]) << 64) |
                       (u128(r.in[4 * t + 2]) << 32) | r.in[4 * t + 3];
        const u128 b = (u128(r.in[4 * t + 3]) << 80) | (u128(r.in[4 * t + 2]) << 48) |
                       (u128(r.in[4 * t]) << 16) | r.in[4 * t + 1];
        const u128 sum = a + b, diff = a - b, prod = a * b;
        const u128 full = u128(std::uint64_t(a)) * std::uint64_t(b >> 64);
        const u128 v[8] = {sum, sum >> 64, diff, diff >> 64, prod, prod >> 64, full >> 64, full};
        return std::uint64_t(v[s]);
    };
    check_rows<std::uint64_t>(
        "int128_ops", threads_of("int128_ops"), 8, [&](auto t, auto s) { return r.u64(t * 8 + s); },
        expected);
}

TEST_CASE(
    "bit operations: popc clz brev bfe bfi prmt funnel shifts ffs fns dp4a cvt.pack, selects") {
    const Run r = run_kernel("bit_ops");
    auto expected = [&](std::uint32_t t, std::uint32_t s) -> std::uint32_t {
        const std::uint32_t a = r.in[3 * t], b = r.in[3 * t + 1], c = r.in[3 * t + 2];
        const std::uint64_t wide = std::uint64_t(a) << 32 | b;
        auto byte_perm = [](std::uint32_t x, std::uint32_t y, std::uint32_t sel) {
            const std::uint64_t src = std::uint64_t(y) << 32 | x;
            std::uint32_t out = 0;
            for (int i = 0; i < 4; ++i)
                out |= std::uint32_t((src >> (8 * ((sel >> (4 * i)) & 7))) & 0xff) << (8 * i);
            return out;
        };
        auto funnel_left = [](std::uint32_t lo, std::uint32_t hi, std::uint32_t n) {
            return std::uint32_t(((std::uint64_t(hi) << 32 | lo) << n) >> 32);
        };
        auto funnel_right = [](std::uint32_t lo, std::uint32_t hi, std::uint32_t n) {
            return std::uint32_t((std::uint64_t(hi) << 32 | lo) >> n);
        };
        auto ffs = [](std::uint64_t v) { return v ? std::uint32_t(std::countr_zero(v) + 1) : 0u; };
        switch (s) {
        case 0: return std::uint32_t(std::popcount(a));
        case 1: return std::uint32_t(std::countl_zero(a >> (c & 31)));
        case 2: {
            std::uint32_t rev = 0;
            for (int i = 0; i < 32; ++i) rev |= ((a >> i) & 1) << (31 - i);
            return rev;
        }
        case 3: {
            const std::uint32_t pos = c & 15, len = 1 + (b & 15);
            return (a >> pos) & ((1u << len) - 1u);
        }
        case 4: return std::uint32_t(std::int32_t(a << 3) >> 7);
        case 5: return (a & ~(0xffu << 8)) | ((b & 0xffu) << 8);
        case 6: return byte_perm(a, b, c & 0x7777);
        case 7: return byte_perm(a, b, 0x0123);
        case 8: return funnel_left(a, b, c & 31);
        case 9: return funnel_right(a, b, c & 31);
        case 10: return funnel_left(a, b, std::min(c, 32u));
        case 11: return funnel_right(a, b, std::min(c, 32u));
        case 12: return a << (c & 31);
        case 13: return a >> (c & 31);
        case 14: return ffs(a >> (c & 31));
        case 15: return std::uint32_t(std::popcount(wide));
        case 16: return std::uint32_t(std::countl_zero(wide >> (c & 63)));
        case 17: return ffs(wide << (c & 63));
        case 18: {
            std::uint64_t rev = 0;
            for (int i = 0; i < 64; ++i) rev |= ((wide >> i) & 1) << (63 - i);
            return std::uint32_t(rev);
        }
        case 19: return (a & b) | (~a & c);
        case 20: return a ^ (b | ~c);
        case 21: return std::int32_t(a) < std::int32_t(b) ? c : a;
        case 22:
            return std::uint32_t(a > b) + std::uint32_t(a == c) * 2 +
                   std::uint32_t(std::int32_t(a) >= 0) * 4;
        case 23:
            return std::uint32_t(std::int32_t(std::int16_t(a & 0xffff))) +
                   std::uint32_t(std::int32_t(std::int8_t(b & 0xff)));
        case 24: {
            const std::int32_t base = std::int32_t(c & 31u), offset = std::int32_t(b % 7u) - 3;
            if (offset == 0) return (a >> base & 1) ? std::uint32_t(base) : 0xffffffffu;
            std::int32_t count = std::abs(offset) - 1;
            for (std::int32_t pos = base; pos >= 0 && pos<32; pos += offset> 0 ? 1 : -1)
                if ((a >> pos & 1) && count-- == 0) return std::uint32_t(pos);
            return 0xffffffffu;
        }
        case 25: {
            std::int32_t sum = std::int32_t(c);
            for (int i = 0; i < 4; ++i)
                sum += std::int32_t(std::int8_t(a >> (8 * i))) *
                       std::int32_t(std::int8_t(b >> (8 * i)));
            return std::uint32_t(sum);
        }
        case 26:
        case 27: {
            const std::int64_t sa = std::int32_t(a) >> (c & 31), sb = std::int32_t(b) >> 20;
            if (s == 26)
                return std::uint32_t(std::clamp<std::int64_t>(sa, -32768, 32767) & 0xffff) << 16 |
                       std::uint32_t(std::clamp<std::int64_t>(sb, -32768, 32767) & 0xffff);
            return c << 8 | std::uint32_t(std::clamp<std::int64_t>(sa, 0, 15)) << 4 |
                   std::uint32_t(std::clamp<std::int64_t>(sb, 0, 15));
        }
        }
        return 0;
    };
    check_rows<std::uint32_t>(
        "bit_ops", threads_of("bit_ops"), 28, [&](auto t, auto s) { return r.out[t * 28 + s]; },
        expected);
}

TEST_CASE("f32 arithmetic in every rounding mode, division, square root, reciprocal, rounding to "
          "integers") {
    const Run r = run_kernel("f32_ops");
    using Q = __float128;
    auto expected = [&](std::uint32_t t, std::uint32_t s) -> float {
        const float a = to_float(r.in[3 * t], 100.0f), b = to_float(r.in[3 * t + 1], 10.0f),
                    c = to_float(r.in[3 * t + 2], 1000.0f);
        const double sum = double(a) + b, product = double(a) * b;
        const Q fused = Q(a) * Q(b) + Q(c);
        switch (s) {
        case 0: return a + b;
        case 1: return a - b;
        case 2: return a * b;
        case 3: return a / b;
        case 4: return std::fma(a, b, c);
        case 5: return round_as<float>(sum, Mode::rz);
        case 6: return round_as<float>(sum, Mode::rd);
        case 7: return round_as<float>(sum, Mode::ru);
        case 8: return round_as<float>(product, Mode::rz);
        case 9: return round_as<float>(product, Mode::rd);
        case 10: return round_as<float>(product, Mode::ru);
        case 11: return round_as<float>(fused, Mode::rz);
        case 12: return round_as<float>(fused, Mode::rd);
        case 13: return round_as<float>(fused, Mode::ru);
        case 14: return divide_as<float, double>(a, b, Mode::rz);
        case 15: return std::sqrt(std::fabs(a));
        case 16: return sqrt_as<float, double>(std::fabs(a), Mode::rd);
        case 17: return 1.0f / b;
        case 18: return divide_as<float, double>(1.0f, b, Mode::ru);
        case 19: return std::fmin(a, b);
        case 20: return std::fmax(a, b);
        case 21: return std::fabs(a) + std::copysign(c, b);
        case 22: return -a;
        case 23: return std::floor(a);
        case 24: return std::ceil(a);
        case 25: return std::trunc(a);
        case 26: return std::nearbyint(a * 0.5f);
        case 27: return std::round(a);
        case 28: return std::clamp(b * 0.1f, 0.0f, 1.0f);
        case 29: return a > b ? a - b : 0.0f;
        case 30: return round_as<float>(double(a) - c, Mode::ru);
        case 31: return c / a;
        }
        return 0;
    };
    check_rows<std::uint32_t>(
        "f32_ops", threads_of("f32_ops"), 32, [&](auto t, auto s) { return r.out[t * 32 + s]; },
        [&](auto t, auto s) { return bits(expected(t, s)); });
}

TEST_CASE("f32 math library exact to the GPU's sequences, .approx within the documented bounds") {
    const Run r = run_kernel("f32_math");
    // Maximum errors from the CUDA C++ Programming Guide (math functions appendix), in ulp of the
    // result unless an absolute bound is given; see docs/emulator.md.
    struct Bound {
        double ulps, absolute;
    };
    const Bound bounds[16] = {{2, 0},
                              {2, 0},
                              {2, 0},
                              {1, 0},
                              {4, 0},
                              {2, 0},
                              {1, 0},
                              {2, 0},
                              {3, 0},
                              {2, 0},
                              {0, 0x1p-21},
                              {0, 0x1p-21},
                              {2 + 1.16 * 4, 0},
                              {0, 0x1p-21 * 4},
                              {2, 0},
                              {2, 0}};
    check_rows<float>(
        "f32_math", threads_of("f32_math"), 16, [&](auto t, auto s) { return r.f32(t * 16 + s); },
        [&](auto t, auto s) -> float {
            const double a = to_float(r.in[2 * t], 20.0f), b = to_float(r.in[2 * t + 1], 4.0f);
            const double v[16] = {std::sin(a),
                                  std::cos(a),
                                  std::exp(b),
                                  std::log(std::fabs(a) + 0.5),
                                  std::pow(std::fabs(b) + 0.1, 1.7),
                                  std::exp2(b),
                                  std::log2(std::fabs(a) + 0.5),
                                  std::tanh(b),
                                  std::atan2(a, b),
                                  1 / std::sqrt(std::fabs(a) + 0.01),
                                  std::sin(b),
                                  std::cos(b),
                                  std::exp(b),
                                  std::log(std::fabs(a) + 0.5),
                                  a / (b + 5.0),
                                  std::erf(b)};
            return float(v[s]);
        },
        [&](std::uint32_t s, float got, float reference) {
            // The float reference is rounded once more; allow its half ulp.
            return within_ulps<float>(got, reference, bounds[s].ulps + 0.5, bounds[s].absolute);
        });
}

TEST_CASE(
    "f64 arithmetic in every rounding mode, division, square root, reciprocal, math library") {
    const Run r = run_kernel("f64_ops");
    using Q = __float128;
    auto expected = [&](std::uint32_t t, std::uint32_t s) -> double {
        const double a = to_double(r.in[4 * t], r.in[4 * t + 1], 100.0),
                     b = to_double(r.in[4 * t + 2], r.in[4 * t + 3], 10.0);
        switch (s) {
        case 0: return a + b;
        case 1: return a - b;
        case 2: return a * b;
        case 3: return a / b;
        case 4: return std::fma(a, b, 1.0 / 3.0);
        case 5: return round_as<double>(Q(a) + Q(b), Mode::rz);
        case 6: return round_as<double>(Q(a) + Q(b), Mode::rd);
        case 7: return round_as<double>(Q(a) + Q(b), Mode::ru);
        case 8: return round_as<double>(Q(a) * Q(b), Mode::rz);
        case 9: return round_as<double>(Q(a) * Q(b), Mode::ru);
        case 10: return round_as<double>(Q(a) * Q(b) + Q(0.1), Mode::rd);
        case 11: return std::sqrt(std::fabs(a));
        case 12: return sqrt_as<double, Q>(std::fabs(a), Mode::ru);
        case 13: return 1.0 / b;
        case 14: return divide_as<double, Q>(1.0, b, Mode::rz);
        case 15: return std::fmin(a, b);
        case 16: return std::fmax(a, b);
        case 17: return std::floor(a);
        case 18: return std::ceil(a);
        case 19: return std::trunc(a);
        case 20: return std::nearbyint(a);
        case 21: return std::sin(a);
        case 22: return std::exp(b);
        case 23: return std::log(std::fabs(a) + 0.5);
        }
        return 0;
    };
    // sin, exp, log: CUDA's double versions are within 2, 1 and 1 ulp; all else is exact.
    check_rows<double>(
        "f64_ops", threads_of("f64_ops"), 24, [&](auto t, auto s) { return r.f64(t * 24 + s); },
        expected,
        [](std::uint32_t s, double got, double want) {
            return s >= 21 ? within_ulps<double>(got, want, 2) : bits(got) == bits(want);
        });
}

TEST_CASE("--use_fast_math: .ftz flushes subnormals, .approx within bounds") {
    const Run r = run_kernel("f32_fast");
    for (std::uint32_t t = 0; t < threads_of("f32_fast"); ++t) {
        CAPTURE(t);
        const float a = float(r.in[2 * t] >> 8) / 16777216.0f * 8.0f - 4.0f;
        const std::uint32_t tiny = r.in[2 * t + 1] & 0x807fffffu;
        const float* o = reinterpret_cast<const float*>(r.out.data()) + t * 12;
        // ftz: a subnormal input is a zero of its sign (a + 8 > 0)
        CHECK(bits(o[0]) == (tiny & 0x80000000u));
        CHECK(bits(o[1]) == (tiny & 0x80000000u));
        CHECK(within_ulps<float>(o[2], double(a) / (double(a) + 9.0), 2.5));
        CHECK(within_ulps<float>(o[3], std::sqrt(double(a) + 4.0), 1.5, 1e-30));
        CHECK(within_ulps<float>(o[4], std::sin(double(a)), 0, 0x1p-20));
        CHECK(within_ulps<float>(o[5], std::cos(double(a)), 0, 0x1p-20));
        CHECK(within_ulps<float>(o[6], std::exp(double(a)), 2.5 + 1.16 * 4));
        CHECK(within_ulps<float>(o[7], std::log(double(a) + 4.5), 3, 0x1p-20));
        CHECK(within_ulps<float>(o[8], 1.0 / (double(a) + 4.5), 1.5));
        CHECK(within_ulps<float>(o[9], 1.0 / std::sqrt(double(a) + 4.5), 2.5));
        CHECK(within_ulps<float>(o[10], std::exp2(double(a)), 2.5));
        CHECK(bits(o[11]) == (a < 0 ? 0x80000000u : 0u));  // a subnormal operand of mul.ftz
    }
}

// [SECTION] Conversions and half precision --------------------------------------------------------

namespace {

template <class T> std::uint64_t saturate(double v) {  // float -> integer as cvt does it
    if (std::isnan(v)) return 0;
    if (v <= double(std::numeric_limits<T>::min()))
        return std::uint64_t(std::numeric_limits<T>::min());
    if (v >= double(std::numeric_limits<T>::max()))
        return std::uint64_t(std::numeric_limits<T>::max());
    return std::uint64_t(T(v));
}

double round_integer(double v, Mode m) {
    switch (m) {
    case Mode::rn: return std::nearbyint(v);
    case Mode::rz: return std::trunc(v);
    case Mode::rd: return std::floor(v);
    case Mode::ru: return std::ceil(v);
    }
    return v;
}

}  // namespace

TEST_CASE("cvt in every direction: float <-> integer with each rounding and saturation, f32 <-> "
          "f64, widths") {
    const Run r = run_kernel("cvt_ops");
    using Q = __float128;
    auto expected = [&](std::uint32_t t, std::uint32_t s) -> std::uint32_t {
        const std::uint32_t b = r.in[2 * t];
        const float f = (float(b >> 8) / 16777216.0f * 2.0f - 1.0f) * 3.0e9f;
        const float g = (float(r.in[2 * t + 1] >> 8) / 16777216.0f * 2.0f - 1.0f) * 100.0f;
        const double d = double(f) * 1.0000001;
        switch (s) {
        case 0: return std::uint32_t(saturate<std::int32_t>(round_integer(g, Mode::rn)));
        case 1: return std::uint32_t(saturate<std::int32_t>(round_integer(g, Mode::rz)));
        case 2: return std::uint32_t(saturate<std::int32_t>(round_integer(g, Mode::rd)));
        case 3: return std::uint32_t(saturate<std::int32_t>(round_integer(g, Mode::ru)));
        case 4: return std::uint32_t(saturate<std::uint32_t>(round_integer(g, Mode::rn)));
        case 5: return std::uint32_t(saturate<std::int32_t>(round_integer(f, Mode::rz)));
        case 6: return std::uint32_t(saturate<std::uint32_t>(round_integer(f, Mode::rz)));
        case 7: return std::uint32_t(saturate<std::int64_t>(round_integer(f, Mode::rd)));
        case 8: return std::uint32_t(saturate<std::uint64_t>(round_integer(f, Mode::ru)) >> 3);
        case 9: return bits(round_as<float>(double(std::int32_t(b)), Mode::rz));
        case 10: return bits(round_as<float>(double(b), Mode::rd));
        case 11: return bits(round_as<float>(Q(std::int64_t(b) << 20), Mode::ru));
        case 12: return bits(round_as<float>(Q(std::uint64_t(b) << 35), Mode::rn));
        case 13: return bits(round_as<float>(d, Mode::rz));
        case 14: return bits(round_as<float>(d, Mode::ru));
        case 15: return bits(float(d));
        case 16: return std::uint32_t(saturate<std::int32_t>(std::floor(d * 1e-3)));
        case 17: return std::uint32_t(saturate<std::int64_t>(std::nearbyint(d)));
        case 18: return std::uint32_t(std::int32_t(std::int8_t(b)));
        case 19: return std::uint32_t(std::uint16_t(b >> 3));
        case 20: return std::uint32_t(std::int32_t(std::int16_t(b >> 5)));
        case 21: return b;
        case 22: return bits(float(std::int32_t(b & 0xffffff)));
        case 23: return std::uint32_t(bits(double(std::int32_t(b))));
        case 24: return std::uint32_t(bits(double(b) * 0.5) >> 32);
        case 25: return std::uint32_t(std::int32_t(g));
        case 26: return std::uint32_t(std::int64_t(d) >> 8);
        case 27: return 1;  // NaN * 0 is the canonical NaN 0x7fffffff
        case 28: return 0;  // NaN -> integer is 0
        case 29: return bits(std::nearbyint(g));
        case 30: return std::uint32_t(std::int32_t(std::nearbyint(g)));
        case 31: return std::uint32_t(std::int32_t(std::round(g)));
        }
        return 0;
    };
    check_rows<std::uint32_t>(
        "cvt_ops", threads_of("cvt_ops"), 32, [&](auto t, auto s) { return r.out[t * 32 + s]; },
        expected);
}

TEST_CASE(
    "f16 and bf16: conversions with each rounding, __half arithmetic, packed f16x2 / bf16x2") {
    const Run r = run_kernel("half_ops");
    auto expected = [&](std::uint32_t t, std::uint32_t s) -> std::uint32_t {
        const float a = (float(r.in[2 * t] >> 8) / 16777216.0f * 2.0f - 1.0f) * 70000.0f;
        const float b = (float(r.in[2 * t + 1] >> 8) / 16777216.0f * 2.0f - 1.0f) * 4.0f;
        const std::uint16_t ha = to_f16(a), hb = to_f16(b);
        const double vb = f16_value(hb);
        const std::uint16_t h2lo = to_f16(b), h2hi = to_f16(b * 0.5f);
        const std::uint16_t s2lo = to_f16(f16_value(h2lo) + 1.0),
                            s2hi = to_f16(f16_value(h2hi) + 1.0);
        const std::uint16_t m2lo = to_f16(f16_value(h2lo) * f16_value(h2lo) + f16_value(s2lo));
        const std::uint16_t m2hi = to_f16(f16_value(h2hi) * f16_value(h2hi) + f16_value(s2hi));
        const std::uint16_t bb = to_bf16(b);
        switch (s) {
        case 0: return ha;
        case 1: return to_f16(b, Mode::rz);
        case 2: return to_f16(b, Mode::rd);
        case 3: return to_f16(b * 1e-5f, Mode::ru);
        case 4: return bits(float(vb));
        case 5: return to_f16(vb + f16_value(to_f16(0.3f)));
        case 6: return to_f16(vb * vb);
        case 7: return to_f16(vb * 1.5 - 0.25);
        case 8: return to_f16(vb - 2.0);
        case 9: return std::uint32_t(vb < 0.5) + 2;
        case 10: return std::uint32_t(h2hi) << 16 | h2lo;
        case 11: return std::uint32_t(s2hi) << 16 | s2lo;
        case 12: return std::uint32_t(m2hi) << 16 | m2lo;
        case 13: return bits(float(f16_value(m2lo)) + float(f16_value(m2hi)));
        case 14: return to_bf16(a);
        case 15: return to_bf16(b, Mode::rz);
        case 16: return bits(float(bf16_value(bb)));
        case 17: return to_bf16(bf16_value(bb) * 2);
        case 18: return to_bf16(bf16_value(bb) * 3);
        case 19: return std::uint32_t(to_bf16(b)) << 16 | to_bf16(a);
        case 20: return to_f16(double(b) * 1.1);
        case 21: return to_f16(double(std::int32_t(a)));
        case 22: return std::uint32_t(std::int32_t(std::trunc(f16_value(to_f16(vb * 10.0)))));
        case 23: return to_f16(std::sqrt(std::fabs(vb)));
        }
        return 0;
    };
    check_rows<std::uint32_t>(
        "half_ops", threads_of("half_ops"), 24, [&](auto t, auto s) { return r.out[t * 24 + s]; },
        expected,
        [](std::uint32_t s, std::uint32_t got, std::uint32_t want) {
            // hsqrt goes through sqrt.approx.f32: within one f16 ulp.
            if (s == 23) return got + 1 >= want && got <= want + 1;
            return got == want;
        });
}

TEST_CASE("conversion edge cases: NaN, infinity, overflow, signed zeros, subnormals") {
    const Run r = run_kernel("half_edge");
    const std::uint32_t expected[32] = {
        0x7fff,      0x7fff,      0xfc00,      0x7bff,
        0x7bff,      0xfbff,      0x7c00,      0x0000,
        0x0001,      0x80000000u, 0x00000000u, bits(2.0f),
        0x8000,      0x0000,      1,           0,
        0x7fffffffu, 0x7fffffffu, 0x80000000u, 0,
        0,           0x00000001u, 0x00400000u, 0x7fffffffu,
        0x7f800000u, 0x7f800000u, 0x7f800000u, 0xff800000u,
        0x00000000u, 0,           0xfff80000u, bits(float(1.0 / 3.0))};
    for (int i = 0; i < 32; ++i) {
        CAPTURE(i);
        CHECK(r.out[std::size_t(i)] == expected[i]);
    }
}

// [SECTION] Memory spaces and atomics -------------------------------------------------------------

TEST_CASE("memory spaces: local arrays, __constant__, static and dynamic shared, generic pointers, "
          "narrow loads") {
    const Run r = run_kernel("spaces");
    const std::uint32_t table[16] = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8, 9, 7, 9, 3};
    const float weights[4] = {0.5f, -1.25f, 2.0f, 0.125f};
    const int global_array[8] = {10, 20, 30, 40, 50, 60, 70, 80};
    const auto& e = manifest_entry("spaces");
    auto expected = [&](std::uint32_t g, std::uint32_t s) -> std::uint32_t {
        const std::uint32_t t = g % e.block.x, block_base = g - t;
        auto in = [&](std::uint32_t i) { return r.in[i]; };
        auto tile = [&](std::uint32_t i) { return in(block_base + i) ^ 0x5a5a5a5au; };
        std::uint32_t local[12];
        for (std::uint32_t i = 0; i < 12; ++i) local[i] = in(g)*i + i;
        auto weighted = [](auto at, std::uint32_t n) {
            std::uint32_t sum = 0;
            for (std::uint32_t i = 0; i < n; ++i) sum += at(i) * (i + 1);
            return sum;
        };
        const std::uint8_t* bytes = reinterpret_cast<const std::uint8_t*>(r.in.data());
        switch (s) {
        case 0: return local[in(g) % 12];
        case 1: return table[in(g)&15] + table[t & 15];
        case 2: return bits(weights[t & 3] * float(t));
        case 3: return tile((t + 1) % e.block.x) + tile(e.block.x - 1 - t);
        case 4: return weighted([&](std::uint32_t i) { return tile((t & ~3u) + i); }, 4);
        case 5: return weighted([&](std::uint32_t i) { return in((g & ~3u) + i); }, 4);
        case 6: return weighted([&](std::uint32_t i) { return local[4 + i]; }, 6);
        case 7: return 100u + std::uint32_t(global_array[t & 7]);
        case 8: return in(g ^ 1);
        case 9:
            return std::uint32_t(std::int32_t(std::int8_t(bytes[g * 4 + 1]))) +
                   std::uint32_t(std::int32_t(std::int16_t(std::uint16_t(in(g) >> 16))));
        case 10: return bytes[g * 4 + 3];
        case 11: return (in(g) + 1) + std::uint32_t(float(t) * 0.5f) + g;
        }
        return 0;
    };
    check_rows<std::uint32_t>(
        "spaces", threads_of("spaces"), 12, [&](auto t, auto s) { return r.out[t * 12 + s]; },
        expected);
}

TEST_CASE("vector loads and stores (.v2 / .v4, .nc)") {
    const Run r = run_kernel("vectors");
    for (std::uint32_t g = 0; g < threads_of("vectors"); ++g) {
        CAPTURE(g);
        const float* in = reinterpret_cast<const float*>(r.in.data());
        const float* out = reinterpret_cast<const float*>(r.out.data());
        const float x = in[4 * g], y = in[4 * g + 1], z = in[4 * g + 2], w = in[4 * g + 3];
        CHECK(bits(out[8 * g + 0]) == bits(gpu_nan(x + 1.0f)));
        CHECK(bits(out[8 * g + 1]) == bits(gpu_nan(y * 2.0f)));
        CHECK(bits(out[8 * g + 2]) == bits(gpu_nan(z - w)));
        CHECK(bits(out[8 * g + 3]) == bits(w));
        double swapped[2];
        std::memcpy(swapped, out + 8 * g + 4, 16);
        // float2 #(2g+1) = (in[4g+2], in[4g+3])
        CHECK(bits(swapped[0]) == bits(double(in[4 * g + 3])));
        CHECK(bits(swapped[1]) == bits(double(in[4 * g + 2])));
    }
}

TEST_CASE("dynamic shared memory (extern __shared__) sized at launch") {
    const Run r = run_kernel("dynamic_shared");
    const auto& e = manifest_entry("dynamic_shared");
    const std::uint32_t n = e.block.x;
    for (std::uint32_t g = 0; g < threads_of("dynamic_shared"); ++g) {
        const std::uint32_t t = g % n, base = g - t;
        auto buffer = [&](std::uint32_t i) {
            return i < n ? r.in[base + i] : r.in[base + i - n] * 3u;
        };
        std::uint32_t sum = 0;
        for (std::uint32_t i = 0; i < 2 * n; i += 17) sum += buffer((i + t) % (2 * n));
        CAPTURE(g);
        CHECK(r.out[g] == sum);
    }
}

TEST_CASE("atomics on global memory: every operation on 32- and 64-bit integers, f32 and f64") {
    const Run r = run_kernel("atomics_global");
    const std::uint32_t n = threads_of("atomics_global");
    std::uint32_t mn = 0xffffffffu, mx = 0, inc = 0, dec = 0, band = 0xffffffffu, bor = 0, bxor = 0,
                  red = 1000;
    float fsum = 0;
    std::uint64_t usum = 0, umax = 0;
    double dsum = 0;
    std::int64_t llmin = 0x7fffffffffffffffll;
    std::int32_t imin = 0x7fffffff, imax = std::int32_t(0x80000000u);
    for (std::uint32_t t = 0; t < n; ++t) {
        const std::uint32_t v = r.in[t];
        mn = std::min(mn, v | 0x80000000u);
        mx = std::max(mx, v >> 1);
        inc = inc >= 17 ? 0 : inc + 1;
        dec = (dec == 0 || dec > 13) ? 13 : dec - 1;
        band &= v | 0xff00ff00u;
        bor |= v & 0x00110011u;
        bxor ^= v;
        red += v & 0xffu;
        fsum += float(v & 0xfffu) * 0.25f;  // exact: every partial sum fits in 24 bits
        usum += std::uint64_t(v) << 8;
        dsum += double(v & 0xffffu) * 0.5;
        llmin = std::min<std::int64_t>(llmin, std::int32_t(v));
        umax = std::max<std::uint64_t>(umax, std::uint64_t(v) * 3u);
        imin = std::min(imin, std::int32_t(v));
        imax = std::max(imax, std::int32_t(v));
    }
    CHECK(r.out[0] == n);
    CHECK(r.out[1] == mn);
    CHECK(r.out[2] == mx);
    CHECK(r.out[3] == inc);
    CHECK(r.out[4] == dec);
    CHECK(r.out[5] == band);
    CHECK(r.out[6] == bor);
    CHECK(r.out[7] == bxor);
    CHECK(r.out[8] == 7u);
    CHECK(r.out[9] == 1u);
    CHECK(r.out[10] == red);
    CHECK(r.f32(11) == fsum);
    CHECK(r.u64(6) == usum);
    CHECK(r.f64(7) == dsum);
    CHECK(std::int64_t(r.u64(8)) == llmin);
    CHECK(r.u64(9) == umax);
    CHECK(std::int32_t(r.out[20]) == imin);
    CHECK(std::int32_t(r.out[21]) == imax);
    // atomicAdd(counter, 1) hands every thread a different ticket: 0 .. n-1.
    std::vector<std::uint32_t> tickets(r.out.begin() + 32, r.out.begin() + 32 + n);
    std::sort(tickets.begin(), tickets.end());
    for (std::uint32_t i = 0; i < n; ++i) CHECK(tickets[i] == i);
}

TEST_CASE("atomics on shared memory: every operation, per block") {
    const Run r = run_kernel("atomics_shared");
    const auto& e = manifest_entry("atomics_shared");
    for (std::uint32_t block = 0; block < e.grid.x; ++block) {
        CAPTURE(block);
        std::uint32_t mn = 0xffffffffu, mx = 0, inc = 0, dec = 0, band = 0xffffffffu, bor = 0,
                      bxor = 0, red = 1000;
        float fsum = 0;
        std::uint64_t usum = 0, umax = 0;
        double dsum = 0;
        std::int32_t imin = 0x7fffffff, imax = std::int32_t(0x80000000u);
        for (std::uint32_t t = 0; t < e.block.x; ++t) {
            const std::uint32_t v = r.in[block * e.block.x + t];
            mn = std::min(mn, v);
            mx = std::max(mx, v);
            inc = inc >= 17 ? 0 : inc + 1;
            dec = (dec == 0 || dec > 13) ? 13 : dec - 1;
            band &= v | 0xff00ff00u;
            bor |= v & 0x00110011u;
            bxor ^= v;
            red += v & 0xffu;
            fsum += float(v & 0xfffu) * 0.25f;
            usum += std::uint64_t(v) << 8;
            dsum += double(v & 0xffffu) * 0.5;
            umax = std::max<std::uint64_t>(umax, std::uint64_t(v) * 3u);
            imin = std::min(imin, std::int32_t(v));
            imax = std::max(imax, std::int32_t(v));
        }
        const std::uint32_t* o = r.out.data() + block * 288;
        CHECK(o[0] == e.block.x);
        CHECK(o[1] == mn);
        CHECK(o[2] == mx);
        CHECK(o[3] == inc);
        CHECK(o[4] == dec);
        CHECK(o[5] == band);
        CHECK(o[6] == bor);
        CHECK(o[7] == bxor);
        CHECK(o[8] == 1u);
        CHECK(o[9] == 1u);
        CHECK(o[10] == red);
        CHECK(std::bit_cast<float>(o[11]) == fsum);
        CHECK((std::uint64_t(o[12]) | std::uint64_t(o[13]) << 32) == usum);
        CHECK(std::bit_cast<double>(std::uint64_t(o[14]) | std::uint64_t(o[15]) << 32) == dsum);
        CHECK((std::uint64_t(o[18]) | std::uint64_t(o[19]) << 32) == umax);
        CHECK(std::int32_t(o[20]) == imin);
        CHECK(std::int32_t(o[21]) == imax);
        std::vector<std::uint32_t> tickets(o + 32, o + 32 + e.block.x);
        std::sort(tickets.begin(), tickets.end());
        for (std::uint32_t i = 0; i < e.block.x; ++i) CHECK(tickets[i] == i);
    }
}

TEST_CASE("a compare-and-swap loop (atomic max of doubles)") {
    const Run r = run_kernel("cas_loop");
    double best = 0;
    for (std::uint32_t t = 0; t < threads_of("cas_loop"); ++t)
        best = std::max(best, double(r.in[t]) * 0.001);
    CHECK(r.f64(0) == best);
}

// [SECTION] Warp collectives ----------------------------------------------------------------------

TEST_CASE(
    "shuffles: up, down, xor, idx, with widths, of 32- and 64-bit values, in divergent code") {
    const Run r = run_kernel("shuffles");
    auto expected = [&](std::uint32_t g, std::uint32_t s) -> std::uint32_t {
        const std::uint32_t lane = g & 31, warp = g - lane;
        auto v = [&](std::uint32_t l) { return r.in[warp + l]; };
        auto in_segment = [&](std::uint32_t width, std::int32_t src) {
            return src >= std::int32_t(lane & ~(width - 1)) &&
                   src < std::int32_t((lane & ~(width - 1)) + width);
        };
        auto up = [&](std::uint32_t d, std::uint32_t w) {
            return in_segment(w, std::int32_t(lane) - std::int32_t(d)) ? v(lane - d) : v(lane);
        };
        auto down = [&](std::uint32_t d, std::uint32_t w) {
            return in_segment(w, std::int32_t(lane + d)) ? v(lane + d) : v(lane);
        };
        switch (s) {
        case 0: return v(5);
        case 1: return v(v(lane) & 31);
        case 2: return up(3, 32);
        case 3: return down(7, 32);
        case 4: return v(lane ^ 13);
        case 5: return v((lane & ~7u) + 2);
        case 6: return up(1, 16);
        case 7: return down(2, 4);
        case 8: return v(lane ^ 1);
        case 9: return bits(float((lane < 16 ? v(lane + 16) : v(lane)) & 0xffff) * 0.5f);
        case 10: return std::uint32_t(bits(double(v(lane ^ 9)) * 1.5));
        case 11: return std::uint32_t(bits(double(v(lane ^ 9)) * 1.5) >> 32);
        case 12: {
            std::uint32_t sum = 0;
            for (std::uint32_t l = 0; l < 32; ++l) sum += v(l) & 0xffff;
            return sum;
        }
        case 13: return (lane & 1) ? 0 : v((lane + 2) & 31);
        }
        return 0;
    };
    check_rows<std::uint32_t>(
        "shuffles", threads_of("shuffles"), 14, [&](auto t, auto s) { return r.out[t * 14 + s]; },
        expected);
}

TEST_CASE("votes, __activemask, match and partial member masks") {
    const Run r = run_kernel("votes");
    auto expected = [&](std::uint32_t g, std::uint32_t s) -> std::uint32_t {
        const std::uint32_t lane = g & 31, warp = g - lane;
        auto v = [&](std::uint32_t l) { return r.in[warp + l]; };
        auto ballot = [&](std::uint32_t members, auto pred) {
            std::uint32_t b = 0;
            for (std::uint32_t l = 0; l < 32; ++l)
                if ((members >> l & 1) && pred(l)) b |= 1u << l;
            return b;
        };
        const std::uint32_t all = 0xffffffffu, thirds = 0x49249249u;
        switch (s) {
        case 0: return ballot(all, [&](std::uint32_t l) { return v(l) & 1; });
        case 1: return ballot(all, [&](std::uint32_t l) { return v(l) != 0; }) == all;
        case 2: return ballot(all, [&](std::uint32_t l) { return (v(l) & 0xff) == 0; }) != 0;
        case 3: return ballot(all, [&](std::uint32_t l) { return (v(l) & 7) == 0; }) == all;
        case 4: return 1;
        case 5: return 0;
        case 6: return all;
        case 7: return lane % 3 == 0 ? thirds : 0;
        case 8:
            return lane % 3 == 0 ? ballot(thirds, [&](std::uint32_t l) { return v(l) & 2; }) : 0;
        case 9: return ballot(all, [&](std::uint32_t l) { return (v(l) & 3) == (v(lane) & 3); });
        case 10: return all;
        case 11: return 1;
        case 12: {
            const std::uint32_t same =
                ballot(all, [&](std::uint32_t l) { return (v(l) & 1) == (v(0) & 1); });
            return same == all ? all | 0x80000000u : 0u;
        }
        case 13: return ballot(all, [&](std::uint32_t l) { return (v(l) & 1) == (v(lane) & 1); });
        case 14:
            return lane < 20 ? ballot(0x000fffffu, [&](std::uint32_t l) { return v(l) & 4; }) : 1;
        case 15: return 27;
        }
        return 0;
    };
    check_rows<std::uint32_t>(
        "votes", threads_of("votes"), 16, [&](auto t, auto s) { return r.out[t * 16 + s]; },
        expected);
}

TEST_CASE("warp reductions (redux.sync): add, min, max (signed and unsigned), and, or, xor") {
    const Run r = run_kernel("reductions");
    auto expected = [&](std::uint32_t g, std::uint32_t s) -> std::uint32_t {
        const std::uint32_t warp = g & ~31u;
        std::uint32_t add = 0, umin = ~0u, umax = 0, band = ~0u, bor = 0, bxor = 0;
        std::int32_t smin = INT32_MAX, smax = INT32_MIN;
        for (std::uint32_t l = 0; l < 32; ++l) {
            const std::uint32_t v = r.in[warp + l] >> 4;
            add += v;
            umin = std::min(umin, v);
            umax = std::max(umax, v);
            smin = std::min(smin, std::int32_t(r.in[warp + l]));
            smax = std::max(smax, std::int32_t(r.in[warp + l]));
            band &= v | 0x0f0f0f0fu;
            bor |= v & 0x01010101u;
            bxor ^= v;
        }
        const std::uint32_t values[8] = {add,  umin, umax, std::uint32_t(smin), std::uint32_t(smax),
                                         band, bor,  bxor};
        return values[s];
    };
    check_rows<std::uint32_t>(
        "reductions", threads_of("reductions"), 8, [&](auto t, auto s) { return r.out[t * 8 + s]; },
        expected);
}

TEST_CASE("cooperative groups: tiled_partition, reduce, tile shuffles, coalesced_threads") {
    const Run r = run_kernel("coop_groups");
    const auto& e = manifest_entry("coop_groups");
    auto expected = [&](std::uint32_t g, std::uint32_t s) -> std::uint32_t {
        const std::uint32_t t = g % e.block.x, lane = g & 31, tile_base = g & ~15u, warp = g & ~31u;
        auto v = [&](std::uint32_t i) { return r.in[i] & 0xffff; };
        std::uint32_t sum = 0, mx = 0, odd_rank = 0, odd_count = 0;
        for (std::uint32_t i = 0; i < 16; ++i) {
            sum += v(tile_base + i);
            mx = std::max(mx, v(tile_base + i));
        }
        for (std::uint32_t l = 0; l < 32; ++l)
            if (v(warp + l) & 1) {
                odd_count++;
                if (l < lane) odd_rank++;
            }
        switch (s) {
        case 0: return sum;
        case 1: return mx;
        case 2: return (g % 16) + 3 < 16 ? v(g + 3) : v(g);
        case 3: return t % 16 + 100 * (t / 16);
        case 4: return 32;
        case 5: return (v(g) & 1) ? odd_rank + 1000 * odd_count : 0;
        }
        return 0;
    };
    check_rows<std::uint32_t>(
        "coop_groups", threads_of("coop_groups"), 6,
        [&](auto t, auto s) { return r.out[t * 6 + s]; }, expected);
}

// [SECTION] Control flow, calls, printf, clocks ---------------------------------------------------

TEST_CASE(
    "divergence and nested reconvergence: lane-parity branches in a loop with continue and break") {
    const Run r = run_kernel("divergence");
    auto expected = [&](std::uint32_t g, std::uint32_t s) -> std::uint32_t {
        const std::uint32_t lane = g & 31, in = r.in[g];
        std::uint32_t acc = 0;
        for (std::uint32_t i = 0; i < 12; ++i) {
            if ((in >> i) & 1) continue;
            if (lane & 1) {
                if (i % 3 == 0) acc += 7u * i;
                else acc ^= i << 4;
            } else {
                acc += 3u;
                if (lane < 8 + i) {
                    acc *= 5u;
                    if (acc & 16) break;
                }
            }
            acc += 1u;
        }
        std::uint32_t x = in;
        switch (x % 6u) {
        case 0: x = x * 3u; break;
        case 1: x = x + 11u; break;
        case 2: x ^= 0xdeadu; break;
        case 3: x = x >> 3; break;
        case 4: x = ~x; break;
        default: x = 0; break;
        }
        std::uint32_t n = 0, y = x;
        while (y > 0 && n < 40) {
            y >>= (lane & 3) + 1;
            ++n;
        }
        const std::uint32_t values[4] = {acc, x, n,
                                         0xffffffffu};  // every lane is back for __activemask()
        return values[s];
    };
    check_rows<std::uint32_t>(
        "divergence", threads_of("divergence"), 4, [&](auto t, auto s) { return r.out[t * 4 + s]; },
        expected);
}

TEST_CASE("an early return before __syncthreads() does not deadlock") {
    const Run r = run_kernel("early_return");
    const auto& e = manifest_entry("early_return");
    for (std::uint32_t g = 0; g < threads_of("early_return"); ++g) {
        const std::uint32_t t = g % e.block.x, base = g - t;
        CAPTURE(g);
        CHECK(r.out[g] == (t < 200 ? r.in[base + 199 - t] + 1u : 0u));
    }
}

TEST_CASE("__syncthreads_count, __syncthreads_and, __syncthreads_or (bar.red)") {
    const Run r = run_kernel("barrier_reductions");
    const auto& e = manifest_entry("barrier_reductions");
    for (std::uint32_t block = 0; block < e.grid.x; ++block) {
        std::uint32_t count = 0, all = 1, any = 0;
        for (std::uint32_t t = 0; t < e.block.x; ++t) {
            const std::uint32_t v = r.in[block * e.block.x + t];
            count += v & 1;
            all &= v != 0;
            any |= (v & 0xfff) == 0;
        }
        for (std::uint32_t t = 0; t < e.block.x; ++t) {
            const std::uint32_t* o = r.out.data() + (block * e.block.x + t) * 4;
            CAPTURE(block);
            CAPTURE(t);
            CHECK(o[0] == count);
            CHECK(o[1] == all);
            CHECK(o[2] == any);
            CHECK(o[3] == 0u);
        }
    }
}

TEST_CASE("calls to __noinline__ functions: recursion, struct arguments and results, local arrays "
          "per frame") {
    const Run r = run_kernel("calls");
    std::function<std::uint32_t(std::uint32_t, std::uint32_t)> local_table =
        [&](std::uint32_t seed, std::uint32_t depth) {
            std::uint32_t table[16];
            for (std::uint32_t i = 0; i < 16; ++i) table[i] = (seed * (i + 1)) ^ (seed >> i);
            const std::uint32_t here = table[seed % 16u];
            return depth == 0 ? here : here + local_table(seed * 2654435761u, depth - 1);
        };
    auto fib = [](std::uint32_t n) {
        std::uint32_t a = 0, b = 1;
        for (std::uint32_t i = 0; i < n; ++i) {
            const std::uint32_t c = a + b;
            a = b;
            b = c;
        }
        return a;
    };
    for (std::uint32_t g = 0; g < threads_of("calls"); ++g) {
        CAPTURE(g);
        const std::uint32_t n = r.in[g] % 16u;
        std::uint64_t factorial = 1;
        for (std::uint64_t k = 2; k <= n + 4; ++k) factorial *= k;
        float mean = 1.0f;
        double spread = 0.5;
        const std::uint32_t count = 1 + (n & 7);
        for (std::uint32_t i = 0; i < count; ++i) {
            mean += float(r.in[(g & ~7u) + i] & 0xff);
            spread += double(r.in[(g & ~7u) + i] >> 24);
        }
        mean /= float(1 + count);
        const std::uint32_t* o = r.out.data() + g * 7;
        CHECK(o[0] == fib(n));
        CHECK(o[1] == std::uint32_t(factorial));
        CHECK(o[2] == std::uint32_t(factorial >> 32));
        CHECK(o[3] == bits(mean));
        CHECK(o[4] == 1 + count);
        CHECK(o[5] == std::uint32_t(spread * 4.0));
        CHECK(o[6] == local_table(r.in[g], n % 4u));
    }
}

TEST_CASE("calls through function pointers, different functions in one warp") {
    const Run r = run_kernel("function_pointers");
    for (std::uint32_t g = 0; g < threads_of("function_pointers"); ++g) {
        CAPTURE(g);
        const std::uint32_t v = r.in[g], k = v % 3u;
        CHECK(r.out[2 * g] == (k == 0 ? v + (g + 1) : k == 1 ? v ^ (g + 1) : v * (g + 1)));
        CHECK(r.out[2 * g + 1] == (v ^ 0xffu));
    }
}

TEST_CASE("device printf is formatted as the GPU formats it, lanes in order") {
    const Run r = run_kernel("print_formats");
    const std::string expected =
        "t=-2 u=4000000000 x=beef0 f=-2.000000 e=-2.000000e+05 g=-0.666667\n"
        "t=-1 u=4000000001 x=beef1 f=-0.750000 e=-7.500000e+04 g=-0.25\n"
        "t=0 u=4000000002 x=beef2 f=0.500000 e=5.000000e+04 g=0.166667\n"
        "t=1 u=4000000003 x=beef3 f=1.750000 e=1.750000e+05 g=0.583333\n"
        "[-2.00] [0     ] [-020.0] even A -5000000000 1099511627776 -9 %\n"
        "[-0.75] [1     ] [-007.5] odd B -10000000000 2199023255552 -8 %\n"
        "[ 0.50] [2     ] [0005.0] even C -15000000000 4398046511104 -7 %\n"
        "[ 1.75] [3     ] [0017.5] odd D -20000000000 8796093022208 -6 %\n"
        "(nil) 0x1234\n"
        "[     1] [-0.75    ] [abc] [+1e+04] [0xff] [10]\n";
    CHECK(r.result.printf_output == expected);
}

TEST_CASE("%clock, %clock64 and %globaltimer advance monotonically") {
    const Run r = run_kernel("clocks");
    for (std::uint32_t g = 0; g < threads_of("clocks"); ++g) {
        CAPTURE(g);
        std::uint32_t acc = r.in[g];
        for (int i = 0; i < 100; ++i) acc = acc * 1664525u + 1013904223u;
        CHECK(r.out[g * 4 + 0] == 1u);
        CHECK(r.out[g * 4 + 1] == 1u);
        CHECK(r.out[g * 4 + 2] == 1u);
        CHECK(r.out[g * 4 + 3] == acc);
    }
}

// [SECTION] Determinism ---------------------------------------------------------------------------

TEST_CASE("the same launch twice gives identical output, printf and trace counters") {
    for (const char* kernel : {"atomics_global", "spaces", "divergence", "print_formats"}) {
        CAPTURE(kernel);
        emu::EmulatorOptions options;
        options.worker_threads = 4;  // blocks spread over host threads must not change anything
        const Run a = run_kernel(kernel, options, true), b = run_kernel(kernel, options, true);
        CHECK(a.out == b.out);
        CHECK(a.result.printf_output == b.result.printf_output);
        CHECK(a.result.stats.thread_instructions == b.result.stats.thread_instructions);
        CHECK(a.result.stats.warp_instructions == b.result.stats.warp_instructions);
        REQUIRE(a.result.trace);
        REQUIRE(b.result.trace);
        const Trace &ta = *a.result.trace, &tb = *b.result.trace;
        REQUIRE(ta.per_pc.size() == tb.per_pc.size());
        for (std::size_t pc = 0; pc < ta.per_pc.size(); ++pc) {
            CAPTURE(pc);
            CHECK(ta.per_pc[pc].warp_executions == tb.per_pc[pc].warp_executions);
            CHECK(ta.per_pc[pc].active_lanes == tb.per_pc[pc].active_lanes);
            CHECK(ta.per_pc[pc].sectors == tb.per_pc[pc].sectors);
            CHECK(ta.per_pc[pc].shared_wavefronts == tb.per_pc[pc].shared_wavefronts);
            CHECK(ta.per_pc[pc].divergent_branches == tb.per_pc[pc].divergent_branches);
            CHECK(ta.per_pc[pc].atomics == tb.per_pc[pc].atomics);
        }
        REQUIRE(ta.events.size() == tb.events.size());
        for (std::size_t i = 0; i < ta.events.size(); ++i) {
            CHECK(ta.events[i].pc == tb.events[i].pc);
            CHECK(ta.events[i].active == tb.events[i].active);
        }
        CHECK(ta.barriers == tb.barriers);
    }
}

TEST_CASE("specialised handlers compute exactly what the general handlers compute, on every corpus "
          "kernel") {
    // The fast forms of add, mul, mad, setp, f32 arithmetic and global ld/st (execute.cpp,
    // select_handlers) against the opcode handlers they stand in for: same output, bit for bit,
    // and the same printf text and instruction counts.
    emu::EmulatorOptions general;
    general.specialised_handlers = false;
    std::set<std::string> seen;
    for (const auto& e : manifest()) {
        if (!seen.insert(e.kernel).second) continue;
        CAPTURE(e.kernel);
        const Run fast = run_kernel(e.kernel), slow = run_kernel(e.kernel, general);
        CHECK(fast.out == slow.out);
        CHECK(fast.result.printf_output == slow.result.printf_output);
        CHECK(fast.result.stats.thread_instructions == slow.result.stats.thread_instructions);
    }
}

TEST_CASE("16-bit atomics: atomicCAS on unsigned short, lanes in order") {
    compiler::Compiler compiler;
    const auto compiled = compiler.compile(R"(
__global__ void claim(unsigned short* slots, int* winners)
{
    unsigned short* slot = slots + threadIdx.x % 8;
    unsigned short old = atomicCAS(slot, (unsigned short)0, (unsigned short)(threadIdx.x + 1));
    if (old == 0) atomicAdd(winners, 1);
}
)",
                                           "claim.cu");
    INFO(compiled->error_text());
    REQUIRE(compiled->ok);
    REQUIRE(compiled->ptx.find("atom.global.cas.b16") != std::string::npos);
    emu::EmuBackend backend;
    REQUIRE(backend.load(compiled).ok());
    DevicePtr slots = 0, winners = 0;
    std::vector<std::uint16_t> s(8, 0);
    std::int32_t w = 0;
    REQUIRE(backend.allocate(16, &slots).ok());
    REQUIRE(backend.allocate(4, &winners).ok());
    REQUIRE(backend.copy_to_device(slots, s.data(), 16).ok());
    REQUIRE(backend.copy_to_device(winners, &w, 4).ok());
    const LaunchResult r =
        backend.launch("claim", LaunchConfig{Dim3{1}, Dim3{64}, 0},
                       {KernelArg::of(slots), KernelArg::of(winners)}, TraceOptions{});
    INFO(r.status.message);
    REQUIRE(r.status.ok());
    REQUIRE(backend.copy_to_host(s.data(), slots, 16).ok());
    REQUIRE(backend.copy_to_host(&w, winners, 4).ok());
    CHECK(w == 8);                                                  // one winner per slot
    for (int i = 0; i < 8; ++i) CHECK(s[std::size_t(i)] == i + 1);  // lane i of warp 0 tries first
}
