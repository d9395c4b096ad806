// The tensor-core instructions on the emulator (wmma, mma.sync, ldmatrix, stmatrix, movmatrix):
// small kernels compiled by NVRTC, their results against a plain CPU product or against the
// fragment layouts written out here. The bits an H200 gives are compared in
// tests/agreement/tensor_ops.cu; these tests say what a learner would notice: the product is
// right, each lane holds the element it should, a partial warp is refused.
#include "compiler/compiler.h"
#include "emulator/emu_backend.h"

#include <doctest/doctest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

using namespace cudalab;

namespace {

struct Run {
    LaunchResult result;
    std::vector<std::uint32_t> out;
};

// Compiles `source`, launches `kernel`(in, out) on one warp and copies `out_words` back.
Run run_warp(const std::string& source, const std::string& kernel,
             const std::vector<std::uint32_t>& in, std::size_t out_words, bool trace = false) {
    static compiler::Compiler compiler;
    const auto compiled = compiler.compile(source, "tensor.cu");
    INFO(compiled->error_text());
    REQUIRE(compiled->ok);
    emu::EmuBackend backend;
    REQUIRE(backend.load(compiled).ok());
    DevicePtr din = 0, dout = 0;
    REQUIRE(backend.allocate(in.size() * 4, &din).ok());
    REQUIRE(backend.allocate(out_words * 4, &dout).ok());
    REQUIRE(backend.copy_to_device(din, in.data(), in.size() * 4).ok());
    Run r;
    r.out.assign(out_words, 0);
    REQUIRE(backend.copy_to_device(dout, r.out.data(), out_words * 4).ok());
    TraceOptions options;
    options.enabled = trace;
    r.result = backend.launch(kernel, LaunchConfig{Dim3{1, 1, 1}, Dim3{32, 1, 1}, 0},
                              {KernelArg::of(din), KernelArg::of(dout)}, options);
    if (r.result.status.ok()) REQUIRE(backend.copy_to_host(r.out.data(), dout, out_words * 4).ok());
    return r;
}

std::uint32_t next_random(std::uint64_t& state) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return std::uint32_t(state >> 33);
}

// A random f16 in [1/16, 16) of either sign, as bits.
std::uint16_t random_half(std::uint64_t& state) {
    const std::uint32_t r = next_random(state);
    return std::uint16_t((r & 0x8000) | ((11 + (r >> 16) % 8) << 10) | (r >> 4 & 1023));
}

double half_value(std::uint16_t h) {
    const int e = (h >> 10) & 31, m = h & 1023;
    const double v = e ? std::ldexp(1024.0 + m, e - 25) : std::ldexp(double(m), -24);
    return h >> 15 ? -v : v;
}

const char* const wmma_source = R"(
#include <mma.h>
using namespace nvcuda;
// A (16 x 16, row-major, leading dimension 24) times B (16 x 16, column-major) plus C (row-major).
__global__ void wmma_f16(const unsigned* in, unsigned* out) {
    const half* a = reinterpret_cast<const half*>(in);
    const half* b = a + 16 * 24;
    const float* c = reinterpret_cast<const float*>(in + 16 * 24);
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::load_matrix_sync(fa, a, 24);
    wmma::load_matrix_sync(fb, b, 16);
    wmma::load_matrix_sync(fc, c, 16, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(reinterpret_cast<float*>(out), fc, 16, wmma::mem_row_major);
}
// Signed 8-bit A (row-major) times B (column-major) plus C, in s32.
__global__ void wmma_s8(const unsigned* in, unsigned* out) {
    const signed char* a = reinterpret_cast<const signed char*>(in);
    wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, int> fc;
    wmma::load_matrix_sync(fa, a, 16);
    wmma::load_matrix_sync(fb, a + 256, 16);
    wmma::load_matrix_sync(fc, reinterpret_cast<const int*>(in + 128), 16, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(reinterpret_cast<int*>(out), fc, 16, wmma::mem_row_major);
}
// f64: A (8 x 4, row-major) times B (4 x 8, column-major) plus C (8 x 8, row-major).
__global__ void wmma_f64(const unsigned* in, unsigned* out) {
    const double* a = reinterpret_cast<const double*>(in);
    wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 8, 8, 4, double> fc;
    wmma::load_matrix_sync(fa, a, 4);
    wmma::load_matrix_sync(fb, a + 32, 4);
    wmma::load_matrix_sync(fc, a + 64, 8, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(reinterpret_cast<double*>(out), fc, 8, wmma::mem_row_major);
}
// Each lane's accumulator fragment, loaded from a matrix whose element i holds i.
__global__ void fragment_layout(const unsigned*, unsigned* out) {
    __shared__ float m[256];
    for (int i = threadIdx.x; i < 256; i += 32) m[i] = float(i);
    __syncwarp();
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
    wmma::load_matrix_sync(fc, m, 16, wmma::mem_row_major);
    for (int i = 0; i < fc.num_elements; ++i) out[threadIdx.x * 8 + i] = unsigned(fc.x[i]);
}
// A pointer 16 bytes past a 32-byte boundary and a leading dimension of 12 halves (24 bytes).
__global__ void misaligned(const unsigned* in, unsigned* out) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::load_matrix_sync(fa, reinterpret_cast<const half*>(in) + 8, 12);
    out[threadIdx.x] = __half_as_ushort(fa.x[0]);
}
// Half the warp reaches the wmma: undefined on a GPU, a fault on the emulator.
__global__ void partial_warp(const unsigned* in, unsigned* out) {
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    if (threadIdx.x < 16) {
        wmma::load_matrix_sync(fa, reinterpret_cast<const half*>(in), 16);
        out[threadIdx.x] = fa.num_elements;
    }
}
)";

const char* const mma_source = R"(
// mma.sync m16n8k16 (f16 in, f32 out) fed by ldmatrix from shared memory: A 16 x 16 row-major,
// B stored n-major (8 rows of 16 k), as a tensor-core GEMM keeps them.
__global__ void ldmatrix_mma(const unsigned* in, unsigned* out) {
    __shared__ unsigned short sa[256], sb[128];
    const unsigned short* h = reinterpret_cast<const unsigned short*>(in);
    for (int i = threadIdx.x; i < 256; i += 32) sa[i] = h[i];
    for (int i = threadIdx.x; i < 128; i += 32) sb[i] = h[256 + i];
    __syncwarp();
    const int lane = threadIdx.x;
    unsigned a[4], b[2];
    unsigned pa = unsigned(__cvta_generic_to_shared(sa + (lane % 16) * 16 + (lane / 16) * 8));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3]) : "r"(pa));
    unsigned pb = unsigned(__cvta_generic_to_shared(sb + (lane % 8) * 16 + ((lane / 8) % 2) * 8));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];"
                 : "=r"(b[0]), "=r"(b[1]) : "r"(pb));
    float d[4] = {0, 0, 0, 0};
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, "
                 "{%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    const int g = lane / 4, t = lane % 4;
    for (int i = 0; i < 4; ++i) out[(g + 8 * (i / 2)) * 8 + 2 * t + i % 2] = __float_as_uint(d[i]);
}
// ldmatrix .trans with each lane giving the address of a row other than its own, then movmatrix
// (which transposes back), then stmatrix of the result to a second matrix.
__global__ void ldmatrix_rows(const unsigned*, unsigned* out) {
    __shared__ unsigned short m[64], back[64];
    for (int i = threadIdx.x; i < 64; i += 32) m[i] = (unsigned short)(i * 7 + 3);
    __syncwarp();
    const int lane = threadIdx.x;
    const int row = (lane * 5 + 3) % 8;
    unsigned r, t;
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];"
                 : "=r"(r) : "r"(unsigned(__cvta_generic_to_shared(m + row * 8))));
    asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(t) : "r"(r));
    asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};"
                 :: "r"(unsigned(__cvta_generic_to_shared(back + row * 8))), "r"(t) : "memory");
    __syncwarp();
    out[lane] = r;
    out[32 + lane] = t;
    for (int i = lane; i < 64; i += 32) out[64 + i] = back[i];
}
)";

}  // namespace

TEST_CASE("wmma m16n16k16: f16 inputs, f32 accumulator, a stride and both layouts, against a CPU "
          "product") {
    std::uint64_t state = 7;
    std::vector<std::uint16_t> a(16 * 24), b(256);
    for (auto& h : a) h = random_half(state);
    for (auto& h : b) h = random_half(state);
    std::vector<std::uint32_t> in(16 * 24 + 256);
    std::memcpy(in.data(), a.data(), a.size() * 2);
    std::memcpy(reinterpret_cast<std::uint8_t*>(in.data()) + a.size() * 2, b.data(), b.size() * 2);
    std::vector<float> c(256);
    for (auto& v : c) v = float(int(next_random(state) % 2001) - 1000) / 64.f;
    std::memcpy(in.data() + 16 * 24, c.data(), 256 * 4);
    const Run r = run_warp(wmma_source, "wmma_f16", in, 256);
    REQUIRE(r.result.status.ok());
    int bad = 0;
    std::ostringstream first;
    for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 16; ++j) {
            double sum = c[std::size_t(i * 16 + j)], largest = std::fabs(sum);
            for (int k = 0; k < 16; ++k) {
                const double p =
                    half_value(a[std::size_t(i * 24 + k)]) * half_value(b[std::size_t(j * 16 + k)]);
                sum += p;
                largest = std::max(largest, std::fabs(p));
            }
            // docs/emulator.md, "Tensor cores": 17 terms truncated to 2^-24 of the largest (with
            // its exponent rounded up), then the sum truncated to f32.
            const double bound = 17 * largest * 0x1p-24 + std::fabs(sum) * 0x1p-23;
            const float got = std::bit_cast<float>(r.out[std::size_t(i * 16 + j)]);
            if (std::fabs(double(got) - sum) > bound && bad++ < 4)
                first << "[" << i << "][" << j << "] " << got << " expected " << sum << "\n";
        }
    INFO(first.str());
    CHECK(bad == 0);
}

TEST_CASE("wmma m16n16k16 on signed 8-bit integers is the exact product in s32") {
    std::uint64_t state = 11;
    std::vector<std::uint32_t> in(128 + 256);
    for (auto& w : in) w = next_random(state);
    const Run r = run_warp(wmma_source, "wmma_s8", in, 256);
    REQUIRE(r.result.status.ok());
    const auto* bytes = reinterpret_cast<const std::int8_t*>(in.data());
    int bad = 0;
    for (int i = 0; i < 16; ++i)
        for (int j = 0; j < 16; ++j) {
            std::int64_t sum = std::int32_t(in[std::size_t(128 + i * 16 + j)]);
            for (int k = 0; k < 16; ++k) sum += bytes[i * 16 + k] * bytes[256 + j * 16 + k];
            bad += std::int32_t(r.out[std::size_t(i * 16 + j)]) != std::int32_t(std::uint32_t(sum));
        }
    CHECK(bad == 0);
}

TEST_CASE("wmma m8n8k4 of f64 is a chain of fused multiply-adds from C, k = 0 to 3") {
    std::uint64_t state = 5;
    std::vector<double> v(128);
    for (auto& d : v) d = double(std::int32_t(next_random(state))) * 0x1p-20;
    std::vector<std::uint32_t> in(256);
    std::memcpy(in.data(), v.data(), 128 * 8);
    const Run r = run_warp(wmma_source, "wmma_f64", in, 128);
    REQUIRE(r.result.status.ok());
    int bad = 0;
    for (int i = 0; i < 8; ++i)
        for (int j = 0; j < 8; ++j) {
            double d = v[std::size_t(64 + i * 8 + j)];
            for (int k = 0; k < 4; ++k)
                d = std::fma(v[std::size_t(i * 4 + k)], v[std::size_t(32 + j * 4 + k)], d);
            double got;
            std::memcpy(&got, &r.out[std::size_t(2 * (i * 8 + j))], 8);
            bad += std::bit_cast<std::uint64_t>(got) != std::bit_cast<std::uint64_t>(d);
        }
    CHECK(bad == 0);
}

TEST_CASE("wmma fragments: each lane holds the accumulator elements an H200 gives it") {
    // An H200's layout (tests/agreement/tensor_h200.txt, layout_c_f32_m16n16k16_row): lane l,
    // element i is row l/4 + 8 (i/2 % 2), column 2 (l%4) + i%2 + 8 (i/4). A lane mapped wrongly
    // (say, rows and columns swapped, or the 8-column halves in another order) fails here.
    const Run r = run_warp(wmma_source, "fragment_layout", {0}, 256);
    REQUIRE(r.result.status.ok());
    int bad = 0;
    for (int l = 0; l < 32; ++l)
        for (int i = 0; i < 8; ++i) {
            const int row = l / 4 + 8 * ((i / 2) % 2), col = 2 * (l % 4) + i % 2 + 8 * (i / 4);
            bad += r.out[std::size_t(l * 8 + i)] != std::uint32_t(row * 16 + col);
        }
    CHECK(bad == 0);
}

TEST_CASE("mma.sync m16n8k16 fed by ldmatrix.x4 and .x2 from shared memory is the CPU product") {
    std::uint64_t state = 3;
    std::vector<std::uint16_t> h(384);
    for (auto& v : h) v = random_half(state);
    std::vector<std::uint32_t> in(192);
    std::memcpy(in.data(), h.data(), h.size() * 2);
    const Run r = run_warp(mma_source, "ldmatrix_mma", in, 128);
    REQUIRE(r.result.status.ok());
    int bad = 0;
    for (int i = 0; i < 16; ++i)
        for (int n = 0; n < 8; ++n) {
            double sum = 0, largest = 0;
            for (int k = 0; k < 16; ++k) {
                const double p = half_value(h[std::size_t(i * 16 + k)]) *
                                 half_value(h[std::size_t(256 + n * 16 + k)]);
                sum += p;
                largest = std::max(largest, std::fabs(p));
            }
            const double bound = 16 * largest * 0x1p-24 + std::fabs(sum) * 0x1p-23;
            bad += std::fabs(double(std::bit_cast<float>(r.out[std::size_t(i * 8 + n)])) - sum) >
                   bound;
        }
    CHECK(bad == 0);
}

TEST_CASE("ldmatrix .trans reads the row each lane names; movmatrix and stmatrix put it back") {
    const Run r = run_warp(mma_source, "ldmatrix_rows", {0}, 128);
    REQUIRE(r.result.status.ok());
    auto element = [](int row, int col) { return std::uint32_t((row * 8 + col) * 7 + 3) & 0xffff; };
    int bad = 0;
    for (int l = 0; l < 32; ++l) {
        // Lane l gives row (l*5+3)%8's address for row l%8 of the matrix ldmatrix sees: matrix
        // row q is memory row (q*5+3)%8. .trans: lane l holds rows 2(l%4), 2(l%4)+1 of column l/4.
        auto seen = [&](int q, int col) { return element((q * 5 + 3) % 8, col); };
        const std::uint32_t trans = seen(2 * (l % 4), l / 4) | seen(2 * (l % 4) + 1, l / 4) << 16;
        bad += r.out[std::size_t(l)] != trans;
        const std::uint32_t plain = seen(l / 4, 2 * (l % 4)) | seen(l / 4, 2 * (l % 4) + 1) << 16;
        bad += r.out[std::size_t(32 + l)] != plain;
    }
    // stmatrix writes matrix row q to the address lane q gave: the memory rows come back as they
    // were.
    for (int i = 0; i < 64; ++i) bad += r.out[std::size_t(64 + i)] != element(i / 8, i % 8);
    CHECK(bad == 0);
}

TEST_CASE("a wmma that only part of the warp reaches is a fault naming the lanes") {
    const Run r = run_warp(wmma_source, "partial_warp", std::vector<std::uint32_t>(128, 0), 32);
    REQUIRE_FALSE(r.result.status.ok());
    CHECK(r.result.status.message.find("incomplete warp") != std::string::npos);
    CHECK(r.result.status.message.find("0000ffff") != std::string::npos);
}

TEST_CASE("the trace records ldmatrix's row reads over shared memory and counts mma as a tensor "
          "instruction") {
    const Run r = run_warp(mma_source, "ldmatrix_rows", {0}, 128, /*trace=*/true);
    REQUIRE(r.result.status.ok());
    REQUIRE(r.result.trace);
    const Trace& t = *r.result.trace;
    int ldmatrix_pc = -1;
    for (std::size_t pc = 0; pc < t.pcs.size(); ++pc)
        if (t.pcs[pc].opcode == "ldmatrix") ldmatrix_pc = int(pc);
    REQUIRE(ldmatrix_pc >= 0);
    CHECK(t.pcs[std::size_t(ldmatrix_pc)].op_class == "memory");
    // .x1: lanes 0-7 each read one 16-byte row; the 8 rows of 16 bytes lie in 128 consecutive
    // bytes (32 banks), one wavefront.
    CHECK(t.per_pc[std::size_t(ldmatrix_pc)].shared_wavefronts == 1);
    bool seen = false;
    for (const WarpEvent& e : t.events) {
        if (e.pc != std::uint32_t(ldmatrix_pc) || e.mem < 0) continue;
        const MemAccess& m = t.accesses[std::size_t(e.mem)];
        CHECK(m.space == MemSpace::shared);
        CHECK(m.mask == 0xffu);
        CHECK(m.bytes_per_lane == 16);
        CHECK(m.address(0) == m.base + 16 * 3);  // lane 0 names row 3
        seen = true;
    }
    CHECK(seen);

    const Run mma = run_warp(mma_source, "ldmatrix_mma", std::vector<std::uint32_t>(192, 0), 128,
                             /*trace=*/true);
    REQUIRE(mma.result.status.ok());
    int tensor = 0;
    for (std::size_t pc = 0; pc < mma.result.trace->pcs.size(); ++pc)
        if (mma.result.trace->pcs[pc].op_class == "tensor")
            tensor += int(mma.result.trace->per_pc[pc].warp_executions);
    CHECK(tensor == 1);
}

TEST_CASE("a wmma pointer that is not 32-byte aligned, or a stride not of 16 bytes, is a warning") {
    const Run r = run_warp(wmma_source, "misaligned", std::vector<std::uint32_t>(256, 0), 32);
    REQUIRE(r.result.status.ok());
    REQUIRE(r.result.warnings.size() == 1);
    CHECK(r.result.warnings[0].find("is not 32-byte aligned") != std::string::npos);
    CHECK(r.result.warnings[0].find("24 bytes, is not a multiple of 16") != std::string::npos);
    // The aligned kernels warn of nothing.
    std::vector<std::uint32_t> in(640, 0);
    CHECK(run_warp(wmma_source, "wmma_f16", in, 256).result.warnings.empty());
}
