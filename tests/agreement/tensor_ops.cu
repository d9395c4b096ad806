// The emulator against the GPU on the tensor-core instructions: wmma (load, store, mma), mma.sync,
// ldmatrix, stmatrix and movmatrix. The companion of ops.cu, in its output format:
//
//   name kind v0 v1 ...        (each value a result's bits in hex)
//
// Two kinds of case:
// - layout_*: a fragment loaded from a matrix whose every element holds its own memory offset,
//   written out lane by lane, element by element (lane 0's x[0..n), lane 1's, ...). The WMMA
//   fragment layouts are the implementation's; these lines are the H200's, so the emulator has to
//   hold the same element in the same lane and register. ldmatrix, stmatrix and movmatrix likewise,
//   with the rows' addresses permuted so that a lane mapped wrongly shows.
// - the products: D = A * B + C on random inputs (16x16 or 16x8 results, row by row), against a
//   plain CPU product as well (printed to stdout: the program fails if a GPU result is further
//   from it than the rounding allows, which catches a wrong lane mapping in this file itself).
//   Integer inputs and small-integer floats are exact; random floats give the bits of the
//   hardware's accumulation (tests/agreement/tensor_h200.txt holds an H200's, CUDA 13.0).
//
//   nvcc -arch=sm_90 -o tensor_ops tests/agreement/tensor_ops.cu && ./tensor_ops out.txt
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>
#include <string>
#include <vector>

using namespace nvcuda;

#define CHECK(call)                                                                              \
    do {                                                                                         \
        cudaError_t err_ = (call);                                                               \
        if (err_ != cudaSuccess) {                                                               \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                   \
                         cudaGetErrorString(err_));                                              \
            return 1;                                                                            \
        }                                                                                        \
    } while (0)

constexpr int E = 1024;  // elements in each input array (matrices up to 32 x 32)

// The inputs, as bits, and the output: out[0] the number of values, out[1..] the values.
struct Inputs {
    const std::uint16_t* f16;    // random f16, exponents -6..3
    const std::uint16_t* f16w;   // random f16 over the whole range (subnormals too)
    const std::uint16_t* f16i;   // small integers as f16
    const std::uint16_t* bf16;   // random bf16
    const std::uint32_t* f32;    // random f32 (tf32 inputs: the low 13 bits set at random)
    const std::uint32_t* f32i;   // small integers as f32
    const std::uint32_t* acc;    // random f32 accumulators
    const std::uint16_t* acc16;  // random f16 accumulators
    const std::int8_t* s8;       // random bytes
    const std::int32_t* s32;     // random s32 accumulators
    const std::uint16_t* index16;  // element k holds k, as f16
    const std::uint16_t* indexbf;  // element k holds k, as bf16 (exact below 256)
    const std::uint32_t* index32;  // element k holds k, as f32
    const std::uint8_t* index8;    // element k holds k & 255
    const std::int32_t* indexi;    // element k holds k
    const std::uint8_t* index8hi;  // element k holds k >> 8 (with index8: offsets past 255)
    const std::uint16_t* f16e;     // f16 with infinities, NaNs, zeros, subnormals, the largest
    const std::uint32_t* acce;     // f32 accumulators likewise
    const std::uint32_t* big;      // f32 accumulators of 2^13 to 2^23: the products fall short
    const std::uint32_t* cancel;   // f32: minus the sum of mma_m16n8k16_f32_f16's products
    const std::uint16_t* bf16big;  // bf16 up to 2^120: products past f32's range
    const std::uint64_t* f64;      // random doubles
};

__device__ std::uint32_t bits(__half v) { return __half_as_ushort(v); }
__device__ std::uint32_t bits(__nv_bfloat16 v) { return __bfloat16_as_ushort(v); }
__device__ std::uint32_t bits(float v) { return __float_as_uint(v); }
__device__ std::uint32_t bits(int v) { return std::uint32_t(v); }
__device__ std::uint32_t bits(signed char v) { return std::uint8_t(v); }
__device__ std::uint32_t bits(unsigned char v) { return std::uint8_t(v); }

// [SECTION] WMMA fragment layouts

// What a fragment's elements are read from memory as (tf32 fragments load floats).
template <class T> struct Stored { using type = T; };
template <> struct Stored<wmma::precision::tf32> { using type = float; };

template <class Frag> __device__ void dump(const Frag& f, std::uint32_t* out) {
    const int lane = threadIdx.x;
    for (int i = 0; i < f.num_elements; ++i) out[1 + lane * f.num_elements + i] = bits(f.x[i]);
    if (lane == 0) out[0] = 32 * f.num_elements;
}

// A fragment of matrix USE (matrix_a / matrix_b) of shape M N K, element type T, loaded with
// leading dimension LDM from an index matrix.
#define LAYOUT_AB(name, use, M, N, K, T, layout, ldm, src)                                       \
    __global__ void k_##name(Inputs in, std::uint32_t* out) {                                    \
        wmma::fragment<wmma::use, M, N, K, T, wmma::layout> f;                                   \
        wmma::load_matrix_sync(f, reinterpret_cast<const typename Stored<T>::type*>(in.src), ldm);  \
        dump(f, out);                                                                            \
    }
#define LAYOUT_C(name, M, N, K, T, layout, ldm, src)                                             \
    __global__ void k_##name(Inputs in, std::uint32_t* out) {                                    \
        wmma::fragment<wmma::accumulator, M, N, K, T> f;                                         \
        wmma::load_matrix_sync(f, reinterpret_cast<const T*>(in.src), ldm, wmma::layout);        \
        dump(f, out);                                                                            \
    }

// The f16 fragments of the three shapes, row- and column-major, with strides wider than the tile.
LAYOUT_AB(layout_a_f16_m16n16k16_row, matrix_a, 16, 16, 16, half, row_major, 24, index16)
LAYOUT_AB(layout_a_f16_m16n16k16_col, matrix_a, 16, 16, 16, half, col_major, 24, index16)
LAYOUT_AB(layout_b_f16_m16n16k16_row, matrix_b, 16, 16, 16, half, row_major, 24, index16)
LAYOUT_AB(layout_b_f16_m16n16k16_col, matrix_b, 16, 16, 16, half, col_major, 24, index16)
LAYOUT_AB(layout_a_f16_m32n8k16_row, matrix_a, 32, 8, 16, half, row_major, 16, index16)
LAYOUT_AB(layout_a_f16_m32n8k16_col, matrix_a, 32, 8, 16, half, col_major, 40, index16)
LAYOUT_AB(layout_b_f16_m32n8k16_row, matrix_b, 32, 8, 16, half, row_major, 8, index16)
LAYOUT_AB(layout_b_f16_m32n8k16_col, matrix_b, 32, 8, 16, half, col_major, 16, index16)
LAYOUT_AB(layout_a_f16_m8n32k16_row, matrix_a, 8, 32, 16, half, row_major, 16, index16)
LAYOUT_AB(layout_a_f16_m8n32k16_col, matrix_a, 8, 32, 16, half, col_major, 8, index16)
LAYOUT_AB(layout_b_f16_m8n32k16_row, matrix_b, 8, 32, 16, half, row_major, 40, index16)
LAYOUT_AB(layout_b_f16_m8n32k16_col, matrix_b, 8, 32, 16, half, col_major, 16, index16)
LAYOUT_C(layout_c_f32_m16n16k16_row, 16, 16, 16, float, mem_row_major, 20, index32)
LAYOUT_C(layout_c_f32_m16n16k16_col, 16, 16, 16, float, mem_col_major, 20, index32)
LAYOUT_C(layout_c_f16_m16n16k16_row, 16, 16, 16, half, mem_row_major, 24, index16)
LAYOUT_C(layout_c_f16_m16n16k16_col, 16, 16, 16, half, mem_col_major, 24, index16)
LAYOUT_C(layout_c_f32_m32n8k16_row, 32, 8, 16, float, mem_row_major, 8, index32)
LAYOUT_C(layout_c_f32_m32n8k16_col, 32, 8, 16, float, mem_col_major, 32, index32)
LAYOUT_C(layout_c_f32_m8n32k16_row, 8, 32, 16, float, mem_row_major, 32, index32)
LAYOUT_C(layout_c_f32_m8n32k16_col, 8, 32, 16, float, mem_col_major, 8, index32)
LAYOUT_C(layout_c_f16_m32n8k16_row, 32, 8, 16, half, mem_row_major, 8, index16)
LAYOUT_C(layout_c_f16_m8n32k16_col, 8, 32, 16, half, mem_col_major, 8, index16)
// bf16, tf32 (m16n16k8), u8 and s32.
LAYOUT_AB(layout_a_bf16_row, matrix_a, 16, 16, 16, __nv_bfloat16, row_major, 16, indexbf)
LAYOUT_AB(layout_a_bf16_col, matrix_a, 16, 16, 16, __nv_bfloat16, col_major, 16, indexbf)
LAYOUT_AB(layout_b_bf16_row, matrix_b, 16, 16, 16, __nv_bfloat16, row_major, 16, indexbf)
LAYOUT_AB(layout_b_bf16_col, matrix_b, 16, 16, 16, __nv_bfloat16, col_major, 16, indexbf)
LAYOUT_AB(layout_a_tf32_row, matrix_a, 16, 16, 8, wmma::precision::tf32, row_major, 12, index32)
LAYOUT_AB(layout_a_tf32_col, matrix_a, 16, 16, 8, wmma::precision::tf32, col_major, 20, index32)
LAYOUT_AB(layout_b_tf32_row, matrix_b, 16, 16, 8, wmma::precision::tf32, row_major, 20, index32)
LAYOUT_AB(layout_b_tf32_col, matrix_b, 16, 16, 8, wmma::precision::tf32, col_major, 12, index32)
LAYOUT_AB(layout_a_u8_row, matrix_a, 16, 16, 16, unsigned char, row_major, 16, index8)
LAYOUT_AB(layout_a_u8_col, matrix_a, 16, 16, 16, unsigned char, col_major, 16, index8)
LAYOUT_AB(layout_b_u8_row, matrix_b, 16, 16, 16, unsigned char, row_major, 16, index8)
LAYOUT_AB(layout_b_u8_col, matrix_b, 16, 16, 16, unsigned char, col_major, 16, index8)
LAYOUT_C(layout_c_s32_row, 16, 16, 16, int, mem_row_major, 20, indexi)
LAYOUT_C(layout_c_s32_col, 16, 16, 16, int, mem_col_major, 20, indexi)
// The other shapes' bf16, 8-bit (offsets past 255: the low and the high byte, two lines) and s32
// fragments.
LAYOUT_AB(layout_a_bf16_m32n8k16_row, matrix_a, 32, 8, 16, __nv_bfloat16, row_major, 16, indexbf)
LAYOUT_AB(layout_b_bf16_m32n8k16_col, matrix_b, 32, 8, 16, __nv_bfloat16, col_major, 16, indexbf)
LAYOUT_AB(layout_a_bf16_m8n32k16_col, matrix_a, 8, 32, 16, __nv_bfloat16, col_major, 8, indexbf)
LAYOUT_AB(layout_b_bf16_m8n32k16_row, matrix_b, 8, 32, 16, __nv_bfloat16, row_major, 32, indexbf)
LAYOUT_AB(layout_a_u8_m32n8k16_row, matrix_a, 32, 8, 16, unsigned char, row_major, 16, index8)
LAYOUT_AB(layout_a_u8_m32n8k16_row_hi, matrix_a, 32, 8, 16, unsigned char, row_major, 16, index8hi)
LAYOUT_AB(layout_b_u8_m32n8k16_col, matrix_b, 32, 8, 16, unsigned char, col_major, 16, index8)
LAYOUT_AB(layout_a_u8_m8n32k16_row, matrix_a, 8, 32, 16, unsigned char, row_major, 16, index8)
LAYOUT_AB(layout_b_u8_m8n32k16_row, matrix_b, 8, 32, 16, unsigned char, row_major, 32, index8)
LAYOUT_AB(layout_b_u8_m8n32k16_row_hi, matrix_b, 8, 32, 16, unsigned char, row_major, 32, index8hi)
LAYOUT_C(layout_c_s32_m32n8k16_row, 32, 8, 16, int, mem_row_major, 8, indexi)
LAYOUT_C(layout_c_s32_m8n32k16_col, 8, 32, 16, int, mem_col_major, 8, indexi)

// [SECTION] WMMA products: D = A B + C, stored row-major (M x N values)

#define WMMA_CASE(name, M, N, K, TA, TB, TC, la, lb, lc, a, b, c, lda, ldb)                      \
    __global__ void k_##name(Inputs in, std::uint32_t* out) {                                    \
        wmma::fragment<wmma::matrix_a, M, N, K, TA, wmma::la> fa;                                \
        wmma::fragment<wmma::matrix_b, M, N, K, TB, wmma::lb> fb;                                \
        wmma::fragment<wmma::accumulator, M, N, K, TC> fc;                                       \
        wmma::load_matrix_sync(fa, reinterpret_cast<const typename Stored<TA>::type*>(in.a), lda);  \
        wmma::load_matrix_sync(fb, reinterpret_cast<const typename Stored<TB>::type*>(in.b), ldb);  \
        wmma::load_matrix_sync(fc, reinterpret_cast<const TC*>(in.c), N, wmma::lc);              \
        wmma::mma_sync(fc, fa, fb, fc);                                                          \
        __shared__ TC d[M * N];                                                                  \
        wmma::store_matrix_sync(d, fc, N, wmma::mem_row_major);                                  \
        __syncwarp();                                                                            \
        for (int i = threadIdx.x; i < M * N; i += 32) out[1 + i] = bits(d[i]);                   \
        if (threadIdx.x == 0) out[0] = M * N;                                                    \
    }

WMMA_CASE(wmma_f16_f32_rr, 16, 16, 16, half, half, float, row_major, row_major, mem_row_major, f16, f16, acc, 16, 16)
WMMA_CASE(wmma_f16_f32_rc, 16, 16, 16, half, half, float, row_major, col_major, mem_row_major, f16, f16, acc, 16, 16)
WMMA_CASE(wmma_f16_f32_cr, 16, 16, 16, half, half, float, col_major, row_major, mem_col_major, f16, f16, acc, 16, 16)
WMMA_CASE(wmma_f16_f32_cc, 16, 16, 16, half, half, float, col_major, col_major, mem_row_major, f16, f16, acc, 16, 16)
WMMA_CASE(wmma_f16_f32_wide, 16, 16, 16, half, half, float, row_major, col_major, mem_row_major, f16w, f16w, acc, 16, 16)
WMMA_CASE(wmma_f16_f32_int, 16, 16, 16, half, half, float, row_major, col_major, mem_row_major, f16i, f16i, f32i, 16, 16)
WMMA_CASE(wmma_f16_f16_rc, 16, 16, 16, half, half, half, row_major, col_major, mem_row_major, f16, f16, acc16, 16, 16)
WMMA_CASE(wmma_f16_f16_int, 16, 16, 16, half, half, half, row_major, col_major, mem_row_major, f16i, f16i, f16i, 16, 16)
WMMA_CASE(wmma_f16_f32_m32n8k16, 32, 8, 16, half, half, float, row_major, col_major, mem_row_major, f16, f16, acc, 16, 16)
WMMA_CASE(wmma_f16_f32_m8n32k16, 8, 32, 16, half, half, float, col_major, row_major, mem_row_major, f16, f16, acc, 8, 32)
WMMA_CASE(wmma_f16_f16_m32n8k16, 32, 8, 16, half, half, half, col_major, row_major, mem_row_major, f16, f16, acc16, 32, 8)
WMMA_CASE(wmma_bf16_f32_rc, 16, 16, 16, __nv_bfloat16, __nv_bfloat16, float, row_major, col_major, mem_row_major, bf16, bf16, acc, 16, 16)
WMMA_CASE(wmma_bf16_f32_cr, 16, 16, 16, __nv_bfloat16, __nv_bfloat16, float, col_major, row_major, mem_row_major, bf16, bf16, acc, 16, 16)
WMMA_CASE(wmma_tf32_f32_rc, 16, 16, 8, wmma::precision::tf32, wmma::precision::tf32, float, row_major, col_major, mem_row_major, f32, f32, acc, 8, 8)
WMMA_CASE(wmma_tf32_f32_cr, 16, 16, 8, wmma::precision::tf32, wmma::precision::tf32, float, col_major, row_major, mem_row_major, f32, f32, acc, 16, 16)
WMMA_CASE(wmma_tf32_f32_int, 16, 16, 8, wmma::precision::tf32, wmma::precision::tf32, float, row_major, col_major, mem_row_major, f32i, f32i, f32i, 8, 8)
WMMA_CASE(wmma_s8_s32_rc, 16, 16, 16, signed char, signed char, int, row_major, col_major, mem_row_major, s8, s8, s32, 16, 16)
WMMA_CASE(wmma_s8_s32_cr, 16, 16, 16, signed char, signed char, int, col_major, row_major, mem_col_major, s8, s8, s32, 16, 16)
WMMA_CASE(wmma_u8_s32_rc, 16, 16, 16, unsigned char, unsigned char, int, row_major, col_major, mem_row_major, s8, s8, s32, 16, 16)
WMMA_CASE(wmma_bf16_f32_m32n8k16, 32, 8, 16, __nv_bfloat16, __nv_bfloat16, float, row_major, col_major, mem_row_major, bf16, bf16, acc, 16, 16)
WMMA_CASE(wmma_bf16_f32_m8n32k16, 8, 32, 16, __nv_bfloat16, __nv_bfloat16, float, row_major, col_major, mem_row_major, bf16, bf16, acc, 16, 16)
WMMA_CASE(wmma_s8_s32_m8n32k16, 8, 32, 16, signed char, signed char, int, row_major, row_major, mem_row_major, s8, s8, s32, 16, 32)
WMMA_CASE(wmma_s8_s32_m32n8k16, 32, 8, 16, signed char, signed char, int, row_major, col_major, mem_row_major, s8, s8, s32, 16, 16)

// [SECTION] mma.sync, fragments placed by the PTX ISA's layouts (9.7.14.5.x)
//
// A is M x K row-major, B is K x N stored column by column (B[k][n] at n * K + k), C and D M x N
// row-major; g = lane / 4, t = lane % 4.

__device__ std::uint32_t pack16(std::uint16_t lo, std::uint16_t hi) { return lo | (std::uint32_t(hi) << 16); }
__device__ std::uint32_t pack8(const std::int8_t* p, int stride) {
    std::uint32_t r = 0;
    for (int j = 0; j < 4; ++j) r |= std::uint32_t(std::uint8_t(p[j * stride])) << (8 * j);
    return r;
}

// 16-bit inputs, m16n8k16: A a0..a7 at row g + 8 (i % 4 >= 2), column 2t + (i & 1) + 8 (i >= 4);
// B b0..b3 at k = 2t + (i & 1) + 8 (i >= 2), n = g; C c0..c3 at row g + 8 (i >= 2), col 2t + (i & 1).
#define MMA16_CASE(name, K, shape, types, a, b, c)                                               \
    __global__ void k_##name(Inputs in, std::uint32_t* out) {                                    \
        const int lane = threadIdx.x, g = lane / 4, t = lane % 4;                                \
        std::uint32_t ra[K / 4], rb[K / 8];                                                      \
        float rc[4];                                                                             \
        for (int r = 0; r < K / 4; ++r) {                                                        \
            const int row = g + 8 * (r & 1), col = 2 * t + 8 * (r >> 1);                         \
            ra[r] = pack16(in.a[row * K + col], in.a[row * K + col + 1]);                        \
        }                                                                                        \
        for (int r = 0; r < K / 8; ++r) {                                                        \
            const int k = 2 * t + 8 * r;                                                         \
            rb[r] = pack16(in.b[g * K + k], in.b[g * K + k + 1]);                                \
        }                                                                                        \
        for (int i = 0; i < 4; ++i) rc[i] = __uint_as_float(in.c[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)]); \
        float d[4];                                                                              \
        if (K == 16)                                                                             \
            asm volatile("mma.sync.aligned." shape ".row.col." types                             \
                         " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"            \
                         : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])                        \
                         : "r"(ra[0]), "r"(ra[(K / 4) > 1 ? 1 : 0]), "r"(ra[(K / 4) > 2 ? 2 : 0]), \
                           "r"(ra[(K / 4) > 3 ? 3 : 0]), "r"(rb[0]), "r"(rb[(K / 8) > 1 ? 1 : 0]), \
                           "f"(rc[0]), "f"(rc[1]), "f"(rc[2]), "f"(rc[3]));                      \
        for (int i = 0; i < 4; ++i) out[1 + (g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = __float_as_uint(d[i]); \
        if (lane == 0) out[0] = 128;                                                             \
    }
MMA16_CASE(mma_m16n8k16_f32_f16, 16, "m16n8k16", "f32.f16.f16.f32", f16, f16, acc)
MMA16_CASE(mma_m16n8k16_f32_f16_wide, 16, "m16n8k16", "f32.f16.f16.f32", f16w, f16w, acc)
MMA16_CASE(mma_m16n8k16_f32_f16_int, 16, "m16n8k16", "f32.f16.f16.f32", f16i, f16i, f32i)
MMA16_CASE(mma_m16n8k16_f32_bf16, 16, "m16n8k16", "f32.bf16.bf16.f32", bf16, bf16, acc)
// Special inputs: infinities, NaNs, signed zeros, subnormals, the largest f16, in A, B and C;
// a C far larger than the products; a C that cancels the products' sum; products beyond f32.
MMA16_CASE(mma_m16n8k16_f32_f16_special, 16, "m16n8k16", "f32.f16.f16.f32", f16e, f16e, acce)
MMA16_CASE(mma_m16n8k16_f32_f16_bigc, 16, "m16n8k16", "f32.f16.f16.f32", f16, f16, big)
MMA16_CASE(mma_m16n8k16_f32_f16_cancel, 16, "m16n8k16", "f32.f16.f16.f32", f16, f16, cancel)
MMA16_CASE(mma_m16n8k16_f32_bf16_huge, 16, "m16n8k16", "f32.bf16.bf16.f32", bf16big, bf16big, acc)

// m16n8k8 with f16 (A a0..a3 at row g + 8 (i >= 2), col 2t + (i & 1); B b0, b1 at k = 2t + i)
// and bf16; f16 accumulators for m16n8k16 (two f16x2 registers: c0 c1, then c2 c3).
__global__ void k_mma_m16n8k8_f32_f16(Inputs in, std::uint32_t* out) {
    const int lane = threadIdx.x, g = lane / 4, t = lane % 4;
    const std::uint32_t a0 = pack16(in.f16[g * 8 + 2 * t], in.f16[g * 8 + 2 * t + 1]);
    const std::uint32_t a1 = pack16(in.f16[(g + 8) * 8 + 2 * t], in.f16[(g + 8) * 8 + 2 * t + 1]);
    const std::uint32_t b0 = pack16(in.f16w[g * 8 + 2 * t], in.f16w[g * 8 + 2 * t + 1]);
    float c[4], d[4];
    for (int i = 0; i < 4; ++i) c[i] = __uint_as_float(in.acc[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)]);
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a0), "r"(a1), "r"(b0), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
    for (int i = 0; i < 4; ++i) out[1 + (g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = __float_as_uint(d[i]);
    if (lane == 0) out[0] = 128;
}
__global__ void k_mma_m16n8k8_f32_bf16(Inputs in, std::uint32_t* out) {
    const int lane = threadIdx.x, g = lane / 4, t = lane % 4;
    const std::uint32_t a0 = pack16(in.bf16[g * 8 + 2 * t], in.bf16[g * 8 + 2 * t + 1]);
    const std::uint32_t a1 = pack16(in.bf16[(g + 8) * 8 + 2 * t], in.bf16[(g + 8) * 8 + 2 * t + 1]);
    const std::uint32_t b0 = pack16(in.bf16[512 + g * 8 + 2 * t], in.bf16[512 + g * 8 + 2 * t + 1]);
    float c[4], d[4];
    for (int i = 0; i < 4; ++i) c[i] = __uint_as_float(in.acc[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)]);
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a0), "r"(a1), "r"(b0), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
    for (int i = 0; i < 4; ++i) out[1 + (g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = __float_as_uint(d[i]);
    if (lane == 0) out[0] = 128;
}
__global__ void k_mma_m16n8k16_f16_f16(Inputs in, std::uint32_t* out) {
    const int lane = threadIdx.x, g = lane / 4, t = lane % 4;
    std::uint32_t a[4], b[2], c[2], d[2];
    for (int r = 0; r < 4; ++r) {
        const int row = g + 8 * (r & 1), col = 2 * t + 8 * (r >> 1);
        a[r] = pack16(in.f16[row * 16 + col], in.f16[row * 16 + col + 1]);
    }
    for (int r = 0; r < 2; ++r) b[r] = pack16(in.f16[256 + g * 16 + 2 * t + 8 * r], in.f16[256 + g * 16 + 2 * t + 8 * r + 1]);
    for (int r = 0; r < 2; ++r) c[r] = pack16(in.acc16[(g + 8 * r) * 8 + 2 * t], in.acc16[(g + 8 * r) * 8 + 2 * t + 1]);
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"
                 : "=r"(d[0]), "=r"(d[1])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]));
    for (int r = 0; r < 2; ++r) {
        out[1 + (g + 8 * r) * 8 + 2 * t] = d[r] & 0xffff;
        out[1 + (g + 8 * r) * 8 + 2 * t + 1] = d[r] >> 16;
    }
    if (lane == 0) out[0] = 128;
}

// f16 C and D with the special inputs (overflow to infinity, NaN).
__global__ void k_mma_m16n8k16_f16_f16_special(Inputs in, std::uint32_t* out) {
    const int lane = threadIdx.x, g = lane / 4, t = lane % 4;
    std::uint32_t a[4], b[2], c[2], d[2];
    for (int r = 0; r < 4; ++r) {
        const int row = g + 8 * (r & 1), col = 2 * t + 8 * (r >> 1);
        a[r] = pack16(in.f16e[row * 16 + col], in.f16e[row * 16 + col + 1]);
    }
    for (int r = 0; r < 2; ++r) b[r] = pack16(in.f16w[256 + g * 16 + 2 * t + 8 * r], in.f16w[256 + g * 16 + 2 * t + 8 * r + 1]);
    for (int r = 0; r < 2; ++r) c[r] = pack16(in.f16e[512 + (g + 8 * r) * 8 + 2 * t], in.f16e[512 + (g + 8 * r) * 8 + 2 * t + 1]);
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16 {%0,%1}, {%2,%3,%4,%5}, {%6,%7}, {%8,%9};"
                 : "=r"(d[0]), "=r"(d[1])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]), "r"(c[1]));
    for (int r = 0; r < 2; ++r) {
        out[1 + (g + 8 * r) * 8 + 2 * t] = d[r] & 0xffff;
        out[1 + (g + 8 * r) * 8 + 2 * t + 1] = d[r] >> 16;
    }
    if (lane == 0) out[0] = 128;
}
// tf32 m16n8k4: A a0, a1 at row g, g + 8, column t; B b0 at k = t.
__global__ void k_mma_m16n8k4_f32_tf32(Inputs in, std::uint32_t* out) {
    const int lane = threadIdx.x, g = lane / 4, t = lane % 4;
    const std::uint32_t a0 = in.f32[g * 4 + t], a1 = in.f32[(g + 8) * 4 + t], b0 = in.f32[512 + g * 4 + t];
    float c[4], d[4];
    for (int i = 0; i < 4; ++i) c[i] = __uint_as_float(in.acc[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)]);
    asm volatile("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a0), "r"(a1), "r"(b0), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
    for (int i = 0; i < 4; ++i) out[1 + (g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = __float_as_uint(d[i]);
    if (lane == 0) out[0] = 128;
}
// s8 m8n8k16: A a0 (4 bytes) at row g, columns 4t..4t+3; B b0 at k = 4t..4t+3; C at row g,
// columns 2t, 2t + 1.
__global__ void k_mma_m8n8k16_s32_s8(Inputs in, std::uint32_t* out) {
    const int lane = threadIdx.x, g = lane / 4, t = lane % 4;
    const std::uint32_t a0 = pack8(in.s8 + g * 16 + 4 * t, 1), b0 = pack8(in.s8 + 512 + g * 16 + 4 * t, 1);
    std::int32_t c[2], d[2];
    for (int i = 0; i < 2; ++i) c[i] = in.s32[g * 8 + 2 * t + i];
    asm volatile("mma.sync.aligned.m8n8k16.row.col.s32.s8.s8.s32 {%0,%1}, {%2}, {%3}, {%4,%5};"
                 : "=r"(d[0]), "=r"(d[1]) : "r"(a0), "r"(b0), "r"(c[0]), "r"(c[1]));
    for (int i = 0; i < 2; ++i) out[1 + g * 8 + 2 * t + i] = d[i];
    if (lane == 0) out[0] = 64;
}
// f64 m8n8k4: A a0 at row g, column t; B b0 at k = t; C at row g, columns 2t, 2t + 1 (two words
// per value, low first).
__global__ void k_mma_m8n8k4_f64(Inputs in, std::uint32_t* out) {
    const int lane = threadIdx.x, g = lane / 4, t = lane % 4;
    const double a0 = __longlong_as_double((long long)in.f64[g * 4 + t]);
    const double b0 = __longlong_as_double((long long)in.f64[512 + g * 4 + t]);
    double c[2], d[2];
    for (int i = 0; i < 2; ++i) c[i] = __longlong_as_double((long long)in.f64[256 + g * 8 + 2 * t + i]);
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%4,%5};"
                 : "=d"(d[0]), "=d"(d[1]) : "d"(a0), "d"(b0), "d"(c[0]), "d"(c[1]));
    for (int i = 0; i < 2; ++i) {
        const unsigned long long v = (unsigned long long)__double_as_longlong(d[i]);
        out[1 + 2 * (g * 8 + 2 * t + i)] = std::uint32_t(v);
        out[2 + 2 * (g * 8 + 2 * t + i)] = std::uint32_t(v >> 32);
    }
    if (lane == 0) out[0] = 128;
}

// tf32, m16n8k8: A a0..a3 at row g + 8 (i & 1), col t + 4 (i >= 2); B b0, b1 at k = t + 4i.
// The inputs keep their low 13 bits (the PTX ISA leaves what happens to them to the hardware).
#define TF32_CASE(name, src, csrc)                                                               \
    __global__ void k_##name(Inputs in, std::uint32_t* out) {                                    \
        const int lane = threadIdx.x, g = lane / 4, t = lane % 4;                                \
        std::uint32_t a[4], b[2];                                                                \
        for (int i = 0; i < 4; ++i) a[i] = in.src[(g + 8 * (i & 1)) * 8 + t + 4 * (i >> 1)];     \
        for (int i = 0; i < 2; ++i) b[i] = in.src[512 + g * 8 + t + 4 * i];                       \
        float c[4], d[4];                                                                        \
        for (int i = 0; i < 4; ++i) c[i] = __uint_as_float(in.csrc[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)]); \
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};" \
                     : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])                            \
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),          \
                       "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));                              \
        for (int i = 0; i < 4; ++i) out[1 + (g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = __float_as_uint(d[i]); \
        if (lane == 0) out[0] = 128;                                                             \
    }
TF32_CASE(mma_m16n8k8_f32_tf32, f32, acc)
TF32_CASE(mma_m16n8k8_f32_tf32_int, f32i, f32i)

// s8, m16n8k32: A a0..a15 (4 per register) at row g + 8 ((i / 4) & 1), col 4t + (i & 3) + 16
// (i >= 8); B b0..b7 at k = 4t + (i & 3) + 16 (i >= 4); C as f32's. Also m16n8k16 (A: row g + 8
// (i >= 4), col 4t + (i & 3); B: k = 4t + i) and .satfinite, and u8 x s8.
#define S8_CASE(name, K, types, sat)                                                             \
    __global__ void k_##name(Inputs in, std::uint32_t* out) {                                    \
        const int lane = threadIdx.x, g = lane / 4, t = lane % 4;                                \
        std::uint32_t a[4] = {}, b[2] = {};                                                      \
        for (int r = 0; r < K / 8; ++r)                                                          \
            a[r] = pack8(in.s8 + (g + 8 * (r & 1)) * K + 4 * t + 16 * (r >> 1), 1);              \
        for (int r = 0; r < K / 16; ++r) b[r] = pack8(in.s8 + 512 + g * K + 4 * t + 16 * r, 1);   \
        std::int32_t c[4], d[4];                                                                 \
        for (int i = 0; i < 4; ++i) c[i] = in.s32[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)];     \
        if (K == 32)                                                                             \
            asm volatile("mma.sync.aligned.m16n8k32.row.col" sat "." types                       \
                         " {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};"            \
                         : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                        \
                         : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]),      \
                           "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));                          \
        else                                                                                     \
            asm volatile("mma.sync.aligned.m16n8k16.row.col" sat "." types                       \
                         " {%0,%1,%2,%3}, {%4,%5}, {%6}, {%7,%8,%9,%10};"                        \
                         : "=r"(d[0]), "=r"(d[1]), "=r"(d[2]), "=r"(d[3])                        \
                         : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]), "r"(c[2]),      \
                           "r"(c[3]));                                                           \
        for (int i = 0; i < 4; ++i) out[1 + (g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = d[i];    \
        if (lane == 0) out[0] = 128;                                                             \
    }
S8_CASE(mma_m16n8k32_s32_s8, 32, "s32.s8.s8.s32", "")
S8_CASE(mma_m16n8k32_s32_u8_s8, 32, "s32.u8.s8.s32", "")
S8_CASE(mma_m16n8k32_s32_s8_satfinite, 32, "s32.s8.s8.s32", ".satfinite")
S8_CASE(mma_m16n8k16_s32_s8, 16, "s32.s8.s8.s32", "")

// [SECTION] ldmatrix, stmatrix, movmatrix
//
// Shared memory holds 4 matrices of 8 rows of 8 b16 elements; element e of row r of matrix m at
// (m * 8 + r) * 8 + e holds that index. Lane l gives the address of row (l * 5 + 3) % 8 of matrix
// l / 8 (a permutation: a lane that read another lane's address would show).
__device__ int permuted_row(int l) { return (l / 8) * 8 + (l * 5 + 3) % 8; }

#define LDMATRIX_CASE(name, count, suffix)                                                       \
    __global__ void k_##name(Inputs, std::uint32_t* out) {                                       \
        __shared__ std::uint16_t m[4 * 64];                                                      \
        for (int i = threadIdx.x; i < 4 * 64; i += 32) m[i] = std::uint16_t(i * 3 + 1);          \
        __syncwarp();                                                                            \
        const int lane = threadIdx.x;                                                            \
        const std::uint32_t a = std::uint32_t(__cvta_generic_to_shared(m + permuted_row(lane) * 8)); \
        std::uint32_t r[4] = {};                                                                 \
        if (count == 1)                                                                          \
            asm volatile("ldmatrix.sync.aligned.m8n8.x1" suffix ".shared.b16 {%0}, [%1];"        \
                         : "=r"(r[0]) : "r"(a));                                                 \
        else if (count == 2)                                                                     \
            asm volatile("ldmatrix.sync.aligned.m8n8.x2" suffix ".shared.b16 {%0,%1}, [%2];"     \
                         : "=r"(r[0]), "=r"(r[1]) : "r"(a));                                     \
        else                                                                                     \
            asm volatile("ldmatrix.sync.aligned.m8n8.x4" suffix ".shared.b16 {%0,%1,%2,%3}, [%4];" \
                         : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(a));             \
        for (int i = 0; i < count; ++i) out[1 + lane * count + i] = r[i];                        \
        if (lane == 0) out[0] = 32 * count;                                                      \
    }
LDMATRIX_CASE(ldmatrix_x1, 1, "")
LDMATRIX_CASE(ldmatrix_x2, 2, "")
LDMATRIX_CASE(ldmatrix_x4, 4, "")
LDMATRIX_CASE(ldmatrix_x1_trans, 1, ".trans")
LDMATRIX_CASE(ldmatrix_x2_trans, 2, ".trans")
LDMATRIX_CASE(ldmatrix_x4_trans, 4, ".trans")

#define STMATRIX_CASE(name, count, suffix)                                                       \
    __global__ void k_##name(Inputs, std::uint32_t* out) {                                       \
        __shared__ std::uint16_t m[4 * 64];                                                      \
        for (int i = threadIdx.x; i < 4 * 64; i += 32) m[i] = 0xffff;                            \
        __syncwarp();                                                                            \
        const int lane = threadIdx.x;                                                            \
        const std::uint32_t a = std::uint32_t(__cvta_generic_to_shared(m + permuted_row(lane) * 8)); \
        std::uint32_t r[4];                                                                      \
        for (int i = 0; i < 4; ++i) r[i] = (std::uint32_t(lane * 8 + 2 * i + 1) << 16) | (lane * 8 + 2 * i); \
        if (count == 1)                                                                          \
            asm volatile("stmatrix.sync.aligned.m8n8.x1" suffix ".shared.b16 [%0], {%1};"       \
                         :: "r"(a), "r"(r[0]) : "memory");                                       \
        else if (count == 2)                                                                     \
            asm volatile("stmatrix.sync.aligned.m8n8.x2" suffix ".shared.b16 [%0], {%1,%2};"    \
                         :: "r"(a), "r"(r[0]), "r"(r[1]) : "memory");                            \
        else                                                                                     \
            asm volatile("stmatrix.sync.aligned.m8n8.x4" suffix ".shared.b16 [%0], {%1,%2,%3,%4};" \
                         :: "r"(a), "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]) : "memory");      \
        __syncwarp();                                                                            \
        for (int i = threadIdx.x; i < 4 * 64; i += 32) out[1 + i] = m[i];                        \
        if (lane == 0) out[0] = 4 * 64;                                                          \
    }
STMATRIX_CASE(stmatrix_x1, 1, "")
STMATRIX_CASE(stmatrix_x2, 2, "")
STMATRIX_CASE(stmatrix_x4, 4, "")
STMATRIX_CASE(stmatrix_x4_trans, 4, ".trans")
STMATRIX_CASE(stmatrix_x1_trans, 1, ".trans")

__global__ void k_movmatrix(Inputs, std::uint32_t* out) {
    const int lane = threadIdx.x;
    const std::uint32_t a = (std::uint32_t(lane * 2 + 1 + 0x100) << 16) | std::uint32_t(lane * 2 + 0x100);
    std::uint32_t d;
    asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(d) : "r"(a));
    out[1 + lane] = d;
    if (lane == 0) out[0] = 32;
}

// ldmatrix feeding mma.sync, the way a tensor-core GEMM uses them: A (16 x 16) and B (16 x 8,
// stored n-major) in shared memory, f16 in, f32 out.
__global__ void k_ldmatrix_mma(Inputs in, std::uint32_t* out) {
    __shared__ std::uint16_t sa[16 * 16], sb[8 * 16];
    for (int i = threadIdx.x; i < 256; i += 32) sa[i] = in.f16[i];
    for (int i = threadIdx.x; i < 128; i += 32) sb[i] = in.f16[512 + i];
    __syncwarp();
    const int lane = threadIdx.x;
    std::uint32_t a[4], b[2];
    // x4 over A: matrices (rows 0-7, k 0-7), (rows 8-15, k 0-7), (rows 0-7, k 8-15), (8-15, 8-15).
    const std::uint32_t pa = std::uint32_t(__cvta_generic_to_shared(sa + (lane % 16) * 16 + (lane / 16) * 8));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(a[0]), "=r"(a[1]), "=r"(a[2]), "=r"(a[3]) : "r"(pa));
    const std::uint32_t pb = std::uint32_t(__cvta_generic_to_shared(sb + (lane % 8) * 16 + ((lane / 8) % 2) * 8));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(b[0]), "=r"(b[1]) : "r"(pb));
    float d[4] = {0, 0, 0, 0};
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    const int g = lane / 4, t = lane % 4;
    for (int i = 0; i < 4; ++i) out[1 + (g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = __float_as_uint(d[i]);
    if (lane == 0) out[0] = 128;
}

// [SECTION] The driver, and a plain CPU product to check the cases against

struct Case {
    const char* name;
    const char* kind;
    void (*kernel)(Inputs, std::uint32_t*);
};
#define L(name) {#name, "exact", k_##name}
// The random-float products: `exact` too. Whether the emulator's accumulation gives the H200's
// bits is what the comparison tells (docs/emulator.md, "Tensor cores").
const Case cases[] = {
    L(layout_a_f16_m16n16k16_row), L(layout_a_f16_m16n16k16_col), L(layout_b_f16_m16n16k16_row),
    L(layout_b_f16_m16n16k16_col), L(layout_a_f16_m32n8k16_row), L(layout_a_f16_m32n8k16_col),
    L(layout_b_f16_m32n8k16_row), L(layout_b_f16_m32n8k16_col), L(layout_a_f16_m8n32k16_row),
    L(layout_a_f16_m8n32k16_col), L(layout_b_f16_m8n32k16_row), L(layout_b_f16_m8n32k16_col),
    L(layout_c_f32_m16n16k16_row), L(layout_c_f32_m16n16k16_col), L(layout_c_f16_m16n16k16_row),
    L(layout_c_f16_m16n16k16_col), L(layout_c_f32_m32n8k16_row), L(layout_c_f32_m32n8k16_col),
    L(layout_c_f32_m8n32k16_row), L(layout_c_f32_m8n32k16_col), L(layout_c_f16_m32n8k16_row),
    L(layout_c_f16_m8n32k16_col), L(layout_a_bf16_row), L(layout_a_bf16_col), L(layout_b_bf16_row),
    L(layout_b_bf16_col), L(layout_a_tf32_row), L(layout_a_tf32_col), L(layout_b_tf32_row),
    L(layout_b_tf32_col), L(layout_a_u8_row), L(layout_a_u8_col), L(layout_b_u8_row),
    L(layout_b_u8_col), L(layout_c_s32_row), L(layout_c_s32_col),
    L(layout_a_bf16_m32n8k16_row), L(layout_b_bf16_m32n8k16_col), L(layout_a_bf16_m8n32k16_col),
    L(layout_b_bf16_m8n32k16_row), L(layout_a_u8_m32n8k16_row), L(layout_a_u8_m32n8k16_row_hi),
    L(layout_b_u8_m32n8k16_col), L(layout_a_u8_m8n32k16_row), L(layout_b_u8_m8n32k16_row),
    L(layout_b_u8_m8n32k16_row_hi), L(layout_c_s32_m32n8k16_row), L(layout_c_s32_m8n32k16_col),
    L(wmma_f16_f32_rr), L(wmma_f16_f32_rc), L(wmma_f16_f32_cr), L(wmma_f16_f32_cc),
    L(wmma_f16_f32_wide), L(wmma_f16_f32_int), L(wmma_f16_f16_rc), L(wmma_f16_f16_int),
    L(wmma_f16_f32_m32n8k16), L(wmma_f16_f32_m8n32k16), L(wmma_f16_f16_m32n8k16),
    L(wmma_bf16_f32_rc), L(wmma_bf16_f32_cr), L(wmma_tf32_f32_rc), L(wmma_tf32_f32_cr),
    L(wmma_tf32_f32_int), L(wmma_s8_s32_rc), L(wmma_s8_s32_cr), L(wmma_u8_s32_rc),
    L(wmma_s8_s32_m32n8k16), L(wmma_bf16_f32_m32n8k16), L(wmma_bf16_f32_m8n32k16),
    L(wmma_s8_s32_m8n32k16),
    L(mma_m16n8k16_f32_f16), L(mma_m16n8k16_f32_f16_wide), L(mma_m16n8k16_f32_f16_int),
    L(mma_m16n8k16_f32_bf16), L(mma_m16n8k8_f32_f16), L(mma_m16n8k8_f32_bf16),
    L(mma_m16n8k16_f16_f16), L(mma_m16n8k8_f32_tf32), L(mma_m16n8k8_f32_tf32_int),
    L(mma_m16n8k32_s32_s8), L(mma_m16n8k32_s32_u8_s8), L(mma_m16n8k32_s32_s8_satfinite),
    L(mma_m16n8k16_s32_s8),
    L(mma_m16n8k16_f32_f16_special), L(mma_m16n8k16_f32_f16_bigc), L(mma_m16n8k16_f32_f16_cancel),
    L(mma_m16n8k16_f32_bf16_huge), L(mma_m16n8k16_f16_f16_special),
    L(mma_m16n8k4_f32_tf32), L(mma_m8n8k16_s32_s8), L(mma_m8n8k4_f64),
    L(ldmatrix_x1), L(ldmatrix_x2), L(ldmatrix_x4), L(ldmatrix_x1_trans), L(ldmatrix_x2_trans),
    L(ldmatrix_x4_trans), L(stmatrix_x1), L(stmatrix_x2), L(stmatrix_x4), L(stmatrix_x4_trans),
    L(stmatrix_x1_trans), L(movmatrix), L(ldmatrix_mma),
};

std::uint32_t state = 12345;
std::uint32_t next() {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
}
float half_to_float(std::uint16_t h) {
    const int s = h >> 15, e = (h >> 10) & 31, m = h & 1023;
    const float v = e ? std::ldexp(float(1024 + m), e - 25) : std::ldexp(float(m), -24);
    return s ? -v : v;
}
std::uint16_t float_to_half_exact(float f) {  // small integers and the index values only
    if (f == 0) return 0;
    const int s = f < 0;
    f = std::fabs(f);
    int e;
    std::frexp(f, &e);  // f = x * 2^e, x in [0.5, 1)
    const int m = int(std::ldexp(f, 11 - e)) - 1024;
    return std::uint16_t((s << 15) | ((e + 14) << 10) | m);
}

// The product of one wmma_f16_f32 / mma case on the CPU in double: GPU results must be within
// 2^-20 of the largest |term| (a wrong lane mapping is far off).
int check(const char* name, const std::vector<std::uint32_t>& got, const std::vector<std::uint16_t>& a,
          int a_off, bool a_row, const std::vector<std::uint16_t>& b, int b_off, bool b_row,
          const std::vector<std::uint32_t>& c, bool c_row, int M, int N, int K, int lda, int ldb) {
    int bad = 0;
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            float cf;
            const std::uint32_t cb = c[c_row ? i * N + j : j * M + i];
            std::memcpy(&cf, &cb, 4);
            double sum = cf, big = std::fabs(cf);
            for (int k = 0; k < K; ++k) {
                const double p = double(half_to_float(a[a_off + (a_row ? i * lda + k : k * lda + i)])) *
                                 half_to_float(b[b_off + (b_row ? k * ldb + j : j * ldb + k)]);
                sum += p;
                big = std::max(big, std::fabs(p));
            }
            float g;
            std::memcpy(&g, &got[std::size_t(i * N + j)], 4);
            if (std::fabs(g - sum) > big * 0x1p-20 + 1e-30) {
                if (bad++ < 3) std::printf("check %s: [%d][%d] %.9g, CPU %.9g\n", name, i, j, g, sum);
            }
        }
    return bad;
}

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s OUTPUT\n", argv[0]);
        return 2;
    }
    std::vector<std::uint16_t> f16(E), f16w(E), f16i(E), bf16(E), acc16(E), index16(E), indexbf(E);
    std::vector<std::uint32_t> f32(E), f32i(E), acc(E), index32(E);
    std::vector<std::int8_t> s8(E);
    std::vector<std::uint8_t> index8(E);
    std::vector<std::int32_t> s32(E), indexi(E);
    std::vector<std::uint8_t> index8hi(E);
    std::vector<std::uint16_t> f16e(E), bf16big(E);
    std::vector<std::uint32_t> acce(E), big(E), cancel(E);
    std::vector<std::uint64_t> f64(E);
    for (int i = 0; i < E; ++i) {
        f16[i] = std::uint16_t((next() & 0x8000) | ((9 + next() % 10) << 10) | (next() & 1023));
        std::uint16_t w = std::uint16_t(next() & 0xffff);
        if (((w >> 10) & 31) == 31) w &= 0xbfff;  // no infinities or NaNs
        f16w[i] = w;
        f16i[i] = float_to_half_exact(float(int(next() % 17) - 8));
        bf16[i] = std::uint16_t((next() & 0x8000) | ((121 + next() % 10) << 7) | (next() & 127));
        f32[i] = (next() & 0x80000000u) | ((121 + next() % 10) << 23) | (next() & 0x7fffff);
        const float fi = float(int(next() % 17) - 8);
        std::memcpy(&f32i[i], &fi, 4);
        acc[i] = (next() & 0x80000000u) | ((124 + next() % 8) << 23) | (next() & 0x7fffff);
        acc16[i] = std::uint16_t((next() & 0x8000) | ((13 + next() % 6) << 10) | (next() & 1023));
        s8[i] = std::int8_t(next());
        s32[i] = std::int32_t(next() << 8 | (next() & 255));
        if (i % 64 == 5) s32[i] = 0x7fffff00 + i;  // near the top: .satfinite clamps, plain wraps
        index16[i] = float_to_half_exact(float(i));
        const float fbf = float(i & 255);
        std::uint32_t fb;
        std::memcpy(&fb, &fbf, 4);
        indexbf[i] = std::uint16_t(fb >> 16);
        const float f = float(i);
        std::memcpy(&index32[i], &f, 4);
        index8[i] = std::uint8_t(i);
        indexi[i] = i;
        index8hi[i] = std::uint8_t(i >> 8);
        static const std::uint16_t half_specials[] = {0x7c00, 0xfc00, 0x7e00, 0x0000, 0x8000,
                                                      0x0001, 0x7bff, 0xfbff, 0x03ff};
        const std::uint32_t pick = next() % 24;
        f16e[i] = pick < 9 ? half_specials[pick] : f16[(i * 7) % E];
        static const std::uint32_t float_specials[] = {0x7f800000u, 0xff800000u, 0x7fc00000u,
                                                       0x00000000u, 0x80000000u, 0x7f7fffffu,
                                                       0x000116c2u, 0x4b800000u};
        const std::uint32_t pick32 = next() % 16;
        acce[i] = pick32 < 8 ? float_specials[pick32] : acc[(i * 5) % E];
        big[i] = (next() & 0x80000000u) | ((140 + next() % 11) << 23) | (next() & 0x7fffff);
        bf16big[i] = std::uint16_t((next() & 0x8000) | ((200 + next() % 47) << 7) | (next() & 127));
        const std::uint64_t m = (std::uint64_t(next()) << 24 ^ next()) & ((1ull << 52) - 1);
        f64[i] = (std::uint64_t(next() & 1) << 63) | (std::uint64_t(1013 + next() % 20) << 52) | m;
    }
    // C = minus the double sum of mma_m16n8k16_f32_f16's products, rounded to f32: D is what the
    // accumulation leaves of the difference.
    for (int i = 0; i < 16; ++i)
        for (int n = 0; n < 8; ++n) {
            double sum = 0;
            for (int k = 0; k < 16; ++k) sum += double(half_to_float(f16[i * 16 + k])) * half_to_float(f16[n * 16 + k]);
            const float c = float(-sum);
            std::memcpy(&cancel[i * 8 + n], &c, 4);
        }
    auto up = [](const auto& v) {
        void* d = nullptr;
        cudaMalloc(&d, v.size() * sizeof(v[0]));
        cudaMemcpy(d, v.data(), v.size() * sizeof(v[0]), cudaMemcpyHostToDevice);
        return d;
    };
    const Inputs in{(const std::uint16_t*)up(f16),   (const std::uint16_t*)up(f16w),
                    (const std::uint16_t*)up(f16i),  (const std::uint16_t*)up(bf16),
                    (const std::uint32_t*)up(f32),   (const std::uint32_t*)up(f32i),
                    (const std::uint32_t*)up(acc),   (const std::uint16_t*)up(acc16),
                    (const std::int8_t*)up(s8),      (const std::int32_t*)up(s32),
                    (const std::uint16_t*)up(index16), (const std::uint16_t*)up(indexbf),
                    (const std::uint32_t*)up(index32), (const std::uint8_t*)up(index8),
                    (const std::int32_t*)up(indexi), (const std::uint8_t*)up(index8hi),
                    (const std::uint16_t*)up(f16e), (const std::uint32_t*)up(acce),
                    (const std::uint32_t*)up(big), (const std::uint32_t*)up(cancel),
                    (const std::uint16_t*)up(bf16big), (const std::uint64_t*)up(f64)};
    CHECK(cudaGetLastError());
    std::uint32_t* dout;
    constexpr int slots = 1 + 32 * 64;
    CHECK(cudaMalloc(&dout, slots * 4));
    FILE* f = std::fopen(argv[1], "w");
    if (!f) {
        std::perror(argv[1]);
        return 1;
    }
    std::vector<std::uint32_t> out(slots);
    int count = 0, bad = 0;
    for (const Case& c : cases) {
        CHECK(cudaMemset(dout, 0, slots * 4));
        c.kernel<<<1, 32>>>(in, dout);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(out.data(), dout, slots * 4, cudaMemcpyDeviceToHost));
        const std::uint32_t n = out[0];
        if (n == 0 || n >= slots) {
            std::fprintf(stderr, "%s: wrote %u values\n", c.name, n);
            return 1;
        }
        std::fprintf(f, "%s %s", c.name, c.kind);
        for (std::uint32_t i = 1; i <= n; ++i) std::fprintf(f, " %x", out[i]);
        std::fprintf(f, "\n");
        ++count;
        const std::vector<std::uint32_t> got(out.begin() + 1, out.begin() + 1 + n);
        const std::string name = c.name;
        // The f16 -> f32 products against the CPU (A and B from f16 / f16w / f16i as noted).
        if (name == "wmma_f16_f32_rr") bad += check(c.name, got, f16, 0, true, f16, 0, true, acc, true, 16, 16, 16, 16, 16);
        if (name == "wmma_f16_f32_rc") bad += check(c.name, got, f16, 0, true, f16, 0, false, acc, true, 16, 16, 16, 16, 16);
        if (name == "wmma_f16_f32_cr") bad += check(c.name, got, f16, 0, false, f16, 0, true, acc, false, 16, 16, 16, 16, 16);
        if (name == "wmma_f16_f32_cc") bad += check(c.name, got, f16, 0, false, f16, 0, false, acc, true, 16, 16, 16, 16, 16);
        if (name == "wmma_f16_f32_wide") bad += check(c.name, got, f16w, 0, true, f16w, 0, false, acc, true, 16, 16, 16, 16, 16);
        if (name == "wmma_f16_f32_m32n8k16") bad += check(c.name, got, f16, 0, true, f16, 0, false, acc, true, 32, 8, 16, 16, 16);
        if (name == "wmma_f16_f32_m8n32k16") bad += check(c.name, got, f16, 0, false, f16, 0, true, acc, true, 8, 32, 16, 8, 32);
        if (name == "mma_m16n8k16_f32_f16") bad += check(c.name, got, f16, 0, true, f16, 0, false, acc, true, 16, 8, 16, 16, 16);
        if (name == "mma_m16n8k16_f32_f16_wide") bad += check(c.name, got, f16w, 0, true, f16w, 0, false, acc, true, 16, 8, 16, 16, 16);
        if (name == "mma_m16n8k8_f32_f16") bad += check(c.name, got, f16, 0, true, f16w, 0, false, acc, true, 16, 8, 8, 8, 8);
        if (name == "ldmatrix_mma") {
            std::vector<std::uint32_t> zero(E, 0);
            bad += check(c.name, got, f16, 0, true, f16, 512, false, zero, true, 16, 8, 16, 16, 16);
        }
    }
    std::fclose(f);
    std::printf("tensor_ops: %d cases written to %s; %d results off the CPU product\n", count, argv[1], bad);
    return bad ? 1 : 0;
}
