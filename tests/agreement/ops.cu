// The emulator against the GPU, operation by operation.
//
// Each kernel applies one operation (an arithmetic instruction, a conversion, a math-library
// function, a warp intrinsic or an atomic) to the same 256 inputs: special values first (zeros,
// denormals, infinities, NaNs, the integer extremes, shift counts around 32), then values from a
// fixed generator. The program writes one line per operation:
//
//   name kind v0 v1 ... v255        (each value the result's bits in hex)
//
// where kind says how two runs must agree: `exact` bit for bit; `ulpN` within N units in the last
// place (the approximate instructions: ex2.approx, lg2.approx, sin.approx, rsqrt.approx...,
// whose exact bits the PTX ISA leaves to the hardware); `sum` for float atomics, whose rounding
// depends on the order lanes arrive in. tests/agreement/h200.txt is this program's output on an
// H200 (CUDA 13.0); tests/agreement/compare.py compares a run against it, and ctest runs the
// program on the emulated runtime and compares (docs/emulator.md).
//
//   build/cudalab run tests/agreement/ops.cu -- out.txt   (any backend)
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <vector>

#define CHECK(call)                                                                              \
    do {                                                                                         \
        cudaError_t err_ = (call);                                                               \
        if (err_ != cudaSuccess) {                                                               \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                   \
                         cudaGetErrorString(err_));                                              \
            return 1;                                                                            \
        }                                                                                        \
    } while (0)

constexpr int N = 256;

// The inputs, as bits. Kernels read them as float, int or unsigned (the same bits), and a second
// operand b from the same array rotated by 37 and a third c rotated by 101.
struct Inputs {
    const std::uint32_t* a;
    const std::uint32_t* b;
    const std::uint32_t* c;
    const std::uint64_t* wide;  // 64-bit values
};

__device__ __forceinline__ float F(std::uint32_t x) { return __uint_as_float(x); }
__device__ __forceinline__ int I(std::uint32_t x) { return int(x); }
__device__ __forceinline__ std::uint32_t U(float x) { return __float_as_uint(x); }
__device__ __forceinline__ double D(std::uint64_t x) { return __longlong_as_double((long long)x); }
__device__ __forceinline__ std::uint64_t UD(double x) { return (std::uint64_t)__double_as_longlong(x); }

// One thread per input; `out` holds 64-bit slots (32-bit results zero-extended).
#define OP(name, body)                                                                           \
    __global__ void k_##name(Inputs in, std::uint64_t* out)                                     \
    {                                                                                            \
        const int i = blockIdx.x * blockDim.x + threadIdx.x;                                     \
        if (i >= N) return;                                                                      \
        const std::uint32_t ua = in.a[i], ub = in.b[i], uc = in.c[i];                            \
        const std::uint64_t wa = in.wide[i], wb = in.wide[(i + 37) % N];                         \
        (void)ua; (void)ub; (void)uc; (void)wa; (void)wb;                                        \
        out[i] = (body);                                                                         \
    }

// [SECTION] Integer arithmetic
OP(iadd, std::uint32_t(I(ua) + I(ub)))
OP(isub, std::uint32_t(I(ua) - I(ub)))
OP(imul, std::uint32_t(ua * ub))
OP(imulhi_s, std::uint32_t(__mulhi(I(ua), I(ub))))
OP(imulhi_u, std::uint32_t(__umulhi(ua, ub)))
OP(imul64hi, (std::uint64_t)__umul64hi(wa, wb))
OP(imad, std::uint32_t(ua * ub + uc))
OP(idiv_s, std::uint32_t(ub == 0 || (I(ua) == INT32_MIN && I(ub) == -1) ? 0 : I(ua) / I(ub)))
OP(irem_s, std::uint32_t(ub == 0 || (I(ua) == INT32_MIN && I(ub) == -1) ? 0 : I(ua) % I(ub)))
OP(idiv_u, std::uint32_t(ub == 0 ? 0u : ua / ub))
OP(irem_u, std::uint32_t(ub == 0 ? 0u : ua % ub))
OP(ldiv_s, (std::uint64_t)(wb == 0 || wb == ~0ull ? 0ll : (long long)wa / (long long)wb))
OP(ldiv_u, (std::uint64_t)(wb == 0 ? 0ull : wa / wb))
OP(lrem_u, (std::uint64_t)(wb == 0 ? 0ull : wa % wb))
OP(lmul, (std::uint64_t)(wa * wb))
OP(imin_s, std::uint32_t(min(I(ua), I(ub))))
OP(imax_u, std::uint32_t(max(ua, ub)))
OP(iabs, std::uint32_t(abs(I(ua))))
OP(shl, std::uint32_t(ua << (ub & 63)))  // PTX shl: counts over 31 give 0 (C++ leaves them undefined)
OP(shr_u, std::uint32_t(ua >> (ub & 31)))
OP(shr_s, std::uint32_t(I(ua) >> (ub & 31)))
OP(funnel_l, std::uint32_t(__funnelshift_l(ua, ub, uc)))
OP(funnel_r, std::uint32_t(__funnelshift_r(ua, ub, uc)))
OP(funnel_lc, std::uint32_t(__funnelshift_lc(ua, ub, uc)))
OP(funnel_rc, std::uint32_t(__funnelshift_rc(ua, ub, uc)))
OP(popc, std::uint32_t(__popc(ua)))
OP(popcll, std::uint32_t(__popcll(wa)))
OP(clz, std::uint32_t(__clz(I(ua))))
OP(clzll, std::uint32_t(__clzll((long long)wa)))
OP(ffs, std::uint32_t(__ffs(I(ua))))
OP(ffsll, std::uint32_t(__ffsll((long long)wa)))
OP(brev, std::uint32_t(__brev(ua)))
OP(brevll, (std::uint64_t)__brevll(wa))
OP(byte_perm, std::uint32_t(__byte_perm(ua, ub, uc)))
OP(sad, std::uint32_t(__sad(I(ua), I(ub), uc)))
OP(usad, std::uint32_t(__usad(ua, ub, uc)))
OP(hadd, std::uint32_t(__hadd(I(ua), I(ub))))
OP(rhadd, std::uint32_t(__rhadd(I(ua), I(ub))))
OP(uhadd, std::uint32_t(__uhadd(ua, ub)))
OP(vadd2, std::uint32_t(__vadd2(ua, ub)))
OP(vabsdiffu4, std::uint32_t(__vabsdiffu4(ua, ub)))
OP(vcmpgts2, std::uint32_t(__vcmpgts2(ua, ub)))
OP(vmaxu4, std::uint32_t(__vmaxu4(ua, ub)))
OP(dp4a, std::uint32_t(__dp4a(I(ua), I(ub), I(uc))))
OP(dp2a_lo, std::uint32_t(__dp2a_lo(ua, ub, uc)))
OP(bfe_s, ({ int r; asm("bfe.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(I(ua)), "r"(ub & 63), "r"(uc & 63)); (std::uint32_t)r; }))
OP(bfe_u, ({ unsigned r; asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(ua), "r"(ub & 63), "r"(uc & 63)); r; }))
OP(bfi, ({ unsigned r; asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(ua), "r"(ub), "r"(uc & 63), "r"((uc >> 8) & 63)); r; }))
OP(prmt_f4e, ({ unsigned r; asm("prmt.b32.f4e %0, %1, %2, %3;" : "=r"(r) : "r"(ua), "r"(ub), "r"(uc)); r; }))
OP(prmt_rc16, ({ unsigned r; asm("prmt.b32.rc16 %0, %1, %2, %3;" : "=r"(r) : "r"(ua), "r"(ub), "r"(uc)); r; }))
OP(lop3, ({ unsigned r; asm("lop3.b32 %0, %1, %2, %3, 0x96;" : "=r"(r) : "r"(ua), "r"(ub), "r"(uc)); r; }))
OP(add_sat, ({ int r; asm("add.sat.s32 %0, %1, %2;" : "=r"(r) : "r"(I(ua)), "r"(I(ub))); (std::uint32_t)r; }))
OP(sub_cc, ({ unsigned lo, hi; asm("sub.cc.u32 %0, %2, %3;\n\tsubc.u32 %1, %4, %5;" : "=r"(lo), "=r"(hi) : "r"(ua), "r"(ub), "r"(uc), "r"(ua)); (std::uint64_t(hi) << 32) | lo; }))
OP(mad_cc, ({ unsigned lo, hi; asm("mad.lo.cc.u32 %0, %2, %3, %4;\n\tmadc.hi.u32 %1, %2, %3, 0;" : "=r"(lo), "=r"(hi) : "r"(ua), "r"(ub), "r"(uc)); (std::uint64_t(hi) << 32) | lo; }))

// [SECTION] Single precision (IEEE round to nearest unless named; denormals kept: no -ftz)
OP(fadd, U(F(ua) + F(ub)))
OP(fsub, U(F(ua) - F(ub)))
OP(fmul, U(F(ua) * F(ub)))
OP(fdiv, U(F(ua) / F(ub)))
OP(fma, U(fmaf(F(ua), F(ub), F(uc))))
OP(fadd_rz, U(__fadd_rz(F(ua), F(ub))))
OP(fmul_ru, U(__fmul_ru(F(ua), F(ub))))
OP(fmaf_rd, U(__fmaf_rd(F(ua), F(ub), F(uc))))
OP(fdiv_rz, U(__fdiv_rz(F(ua), F(ub))))
OP(frcp_rn, U(__frcp_rn(F(ua))))
OP(fsqrt, U(sqrtf(F(ua))))
OP(fsqrt_ru, U(__fsqrt_ru(F(ua))))
OP(fmin, U(fminf(F(ua), F(ub))))
OP(fmax, U(fmaxf(F(ua), F(ub))))
OP(fabs, U(fabsf(F(ua))))
OP(fneg, U(-F(ua)))
OP(copysign, U(copysignf(F(ua), F(ub))))
OP(floor, U(floorf(F(ua))))
OP(ceil, U(ceilf(F(ua))))
OP(trunc, U(truncf(F(ua))))
OP(round, U(roundf(F(ua))))
OP(rint, U(rintf(F(ua))))
OP(fmod, U(fmodf(F(ua), F(ub))))
OP(remainder, U(remainderf(F(ua), F(ub))))
OP(ldexp, U(ldexpf(F(ua), I(ub) % 300)))
OP(frexp, ({ int e; float m = frexpf(F(ua), &e); (std::uint64_t(std::uint32_t(e)) << 32) | U(m); }))
OP(fsat, U(__saturatef(F(ua))))
OP(setp_lt, std::uint32_t(F(ua) < F(ub)))
OP(setp_neu, std::uint32_t(F(ua) != F(ub)))
OP(isnan, std::uint32_t(isnan(F(ua))))
OP(signbit, std::uint32_t(signbit(F(ua)) != 0))
OP(fdividef, U(__fdividef(F(ua), F(ub))))  // div.approx.f32: exact bits are the hardware's
OP(sqrt_approx, ({ float r; asm("sqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(F(ua))); U(r); }))
OP(rsqrt, U(rsqrtf(F(ua))))
OP(rcp_approx, ({ float r; asm("rcp.approx.f32 %0, %1;" : "=f"(r) : "f"(F(ua))); U(r); }))
OP(ex2_approx, ({ float r; asm("ex2.approx.f32 %0, %1;" : "=f"(r) : "f"(F(ua))); U(r); }))
OP(lg2_approx, ({ float r; asm("lg2.approx.f32 %0, %1;" : "=f"(r) : "f"(F(ua))); U(r); }))
OP(sin_approx, U(__sinf(F(ua))))
OP(cos_approx, U(__cosf(F(ua))))
OP(tanh_approx, ({ float r; asm("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(F(ua))); U(r); }))
OP(expf_fast, U(__expf(F(ua))))
OP(expf, U(expf(F(ua))))
OP(logf, U(logf(F(ua))))
OP(sinf, U(sinf(F(ua))))
OP(cosf, U(cosf(F(ua))))
OP(tanf, U(tanf(F(ua))))
OP(atan2f, U(atan2f(F(ua), F(ub))))
OP(powf, U(powf(F(ua), F(ub))))
OP(erff, U(erff(F(ua))))
OP(cbrtf, U(cbrtf(F(ua))))
OP(hypotf, U(hypotf(F(ua), F(ub))))

// [SECTION] Double precision
OP(dadd, UD(D(wa) + D(wb)))
OP(dmul, UD(D(wa) * D(wb)))
OP(ddiv, UD(D(wa) / D(wb)))
OP(dfma, UD(fma(D(wa), D(wb), D(wa))))
OP(dsqrt, UD(sqrt(D(wa))))
OP(drcp_rz, UD(__drcp_rz(D(wa))))
OP(dmin, UD(fmin(D(wa), D(wb))))
OP(dfloor, UD(floor(D(wa))))
OP(dexp, UD(exp(D(wa))))
OP(dlog, UD(log(D(wa))))
OP(dsin, UD(sin(D(wa))))
OP(rsqrt_d, ({ double r; asm("rsqrt.approx.f64 %0, %1;" : "=d"(r) : "d"(D(wa))); UD(r); }))

// [SECTION] Conversions
OP(f2i_rn, std::uint32_t(__float2int_rn(F(ua))))
OP(f2i_rz, std::uint32_t(__float2int_rz(F(ua))))
OP(f2i_rd, std::uint32_t(__float2int_rd(F(ua))))
OP(f2u_ru, std::uint32_t(__float2uint_ru(F(ua))))
OP(f2ll_rz, (std::uint64_t)__float2ll_rz(F(ua)))
OP(f2ull_rn, (std::uint64_t)__float2ull_rn(F(ua)))
OP(i2f_rn, U(__int2float_rn(I(ua))))
OP(i2f_rz, U(__int2float_rz(I(ua))))
OP(u2f_ru, U(__uint2float_ru(ua)))
OP(ll2f_rn, U(__ll2float_rn((long long)wa)))
OP(ull2d_rn, UD(__ull2double_rn(wa)))
OP(f2d, UD(double(F(ua))))
OP(d2f_rn, U(float(D(wa))))
OP(d2f_rz, U(__double2float_rz(D(wa))))
OP(d2i_rn, std::uint32_t(__double2int_rn(D(wa))))
OP(d2ll_rz, (std::uint64_t)__double2ll_rz(D(wa)))
OP(f2h_rn, std::uint32_t(__half_as_ushort(__float2half_rn(F(ua)))))
OP(f2h_rz, std::uint32_t(__half_as_ushort(__float2half_rz(F(ua)))))
OP(h2f, U(__half2float(__ushort_as_half((unsigned short)ua))))
OP(f2bf_rn, std::uint32_t(__bfloat16_as_ushort(__float2bfloat16_rn(F(ua)))))
OP(bf2f, U(__bfloat162float(__ushort_as_bfloat16((unsigned short)ua))))
OP(d2h, std::uint32_t(__half_as_ushort(__double2half(D(wa)))))
OP(i2h_rn, std::uint32_t(__half_as_ushort(__int2half_rn(I(ua)))))
OP(cvt_sat_u8, ({ unsigned r; asm("cvt.rni.sat.u8.f32 %0, %1;" : "=r"(r) : "f"(F(ua))); r & 0xffu; }))
OP(cvt_s16_s32, ({ short r; asm("cvt.s16.s32 %0, %1;" : "=h"(r) : "r"(I(ua))); (std::uint32_t)(std::uint16_t)r; }))
OP(cvt_sat_s8_s32, ({ int r; asm("cvt.sat.s8.s32 %0, %1;" : "=r"(r) : "r"(I(ua))); (std::uint32_t)r; }))
OP(cvt_rmi, ({ float r; asm("cvt.rmi.f32.f32 %0, %1;" : "=f"(r) : "f"(F(ua))); U(r); }))
OP(cvt_pack_bf16x2, ({ unsigned r; asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(F(ua)), "f"(F(ub))); r; }))
OP(cvt_tf32, ({ unsigned r; asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(F(ua))); r; }))

// [SECTION] Half precision arithmetic
__device__ __forceinline__ __half H(std::uint32_t x) { return __ushort_as_half((unsigned short)x); }
__device__ __forceinline__ std::uint32_t UH(__half x) { return __half_as_ushort(x); }
__device__ __forceinline__ __half2 H2(std::uint32_t x) { __half2 r; std::memcpy(&r, &x, 4); return r; }
__device__ __forceinline__ std::uint32_t UH2(__half2 x) { std::uint32_t r; std::memcpy(&r, &x, 4); return r; }
OP(hadd_f16, UH(__hadd(H(ua), H(ub))))
OP(hmul_f16, UH(__hmul(H(ua), H(ub))))
OP(hfma_f16, UH(__hfma(H(ua), H(ub), H(uc))))
OP(hdiv_f16, UH(__hdiv(H(ua), H(ub))))
OP(hfma2_relu, UH2(__hfma2_relu(H2(ua), H2(ub), H2(uc))))
OP(hmax_nan, UH(__hmax_nan(H(ua), H(ub))))
OP(hlt, std::uint32_t(__hlt(H(ua), H(ub))))
OP(hsqrt, UH(hsqrt(H(ua))))  // sqrt.approx on f16 through f32
OP(hexp, UH(hexp(H(ua))))
OP(bf16_fma, ({ __nv_bfloat16 r = __hfma(__ushort_as_bfloat16((unsigned short)ua), __ushort_as_bfloat16((unsigned short)ub), __ushort_as_bfloat16((unsigned short)uc)); (std::uint32_t)__bfloat16_as_ushort(r); }))

// [SECTION] Warp intrinsics (all 32 lanes active; lane l's input is a[i])
OP(shfl_idx, std::uint32_t(__shfl_sync(0xffffffffu, ua, int(ub & 63))))
OP(shfl_up, std::uint32_t(__shfl_up_sync(0xffffffffu, ua, ub & 7, 16)))
OP(shfl_down, std::uint32_t(__shfl_down_sync(0xffffffffu, ua, ub & 7, 8)))
OP(shfl_xor, std::uint32_t(__shfl_xor_sync(0xffffffffu, ua, 5, 32)))
OP(ballot, std::uint32_t(__ballot_sync(0xffffffffu, ua & 1)))
OP(vote_any, std::uint32_t(__any_sync(0xffffffffu, (ua & 7) == 3)))
OP(vote_all, std::uint32_t(__all_sync(0xffffffffu, ua != 0)))
OP(match_any, std::uint32_t(__match_any_sync(0xffffffffu, ua & 3)))
OP(reduce_add, std::uint32_t(__reduce_add_sync(0xffffffffu, ua & 0xffff)))
OP(reduce_max, std::uint32_t(__reduce_max_sync(0xffffffffu, I(ua))))
OP(reduce_xor, std::uint32_t(__reduce_xor_sync(0xffffffffu, ua)))
OP(lanemask_lt, ({ unsigned r; asm("mov.u32 %0, %%lanemask_lt;" : "=r"(r)); r; }))
OP(divergent_ballot, ua & 1 ? std::uint32_t(__ballot_sync(__activemask(), ub & 1)) : 7u)

// [SECTION] Atomics: every thread of a block applies its input to one of 4 shared cells; the
// result is the value the thread saw plus the final cell (the old values depend on arrival order,
// so only the final cell and order-free results are compared).
#define ATOMIC_OP(name, type, init, apply)                                                       \
    __global__ void k_##name(Inputs in, std::uint64_t* out)                                     \
    {                                                                                            \
        __shared__ type cell[4];                                                                 \
        const int i = blockIdx.x * blockDim.x + threadIdx.x;                                     \
        if (threadIdx.x < 4) cell[threadIdx.x] = (init);                                         \
        __syncthreads();                                                                         \
        const std::uint32_t ua = in.a[i];                                                        \
        type* p = &cell[threadIdx.x % 4];                                                        \
        (void)ua;                                                                                \
        apply;                                                                                   \
        __syncthreads();                                                                         \
        out[i] = (std::uint64_t)cell[threadIdx.x % 4];                                           \
    }
ATOMIC_OP(atomic_add_u, unsigned, 0u, atomicAdd(p, ua))
ATOMIC_OP(atomic_min_s, int, 0, atomicMin(p, I(ua)))
ATOMIC_OP(atomic_max_u, unsigned, 0u, atomicMax(p, ua))
ATOMIC_OP(atomic_and, unsigned, 0xffffffffu, atomicAnd(p, ua | 0x80000001u))
ATOMIC_OP(atomic_xor, unsigned, 0u, atomicXor(p, ua))
ATOMIC_OP(atomic_inc, unsigned, 0u, atomicInc(p, 37u))
ATOMIC_OP(atomic_dec, unsigned, 5u, atomicDec(p, 40u))
ATOMIC_OP(atomic_add_ll, unsigned long long, 0ull, atomicAdd(p, (unsigned long long)ua * 3u))

__global__ void k_atomic_add_f(Inputs in, std::uint64_t* out)  // global memory, one cell
{
    __shared__ float dummy;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    (void)dummy;
    // Small integers in float: every order of addition gives the same, exact sum.
    atomicAdd(reinterpret_cast<float*>(out) + 2 * N, float(in.a[i] % 1000));
}

// [SECTION] The host side
struct Op {
    const char* name;
    void (*kernel)(Inputs, std::uint64_t*);
    const char* kind;
};

#define E(name) {#name, k_##name, "exact"}
#define A(name, ulps) {#name, k_##name, "ulp" #ulps}
const Op ops[] = {
    E(iadd), E(isub), E(imul), E(imulhi_s), E(imulhi_u), E(imul64hi), E(imad), E(idiv_s),
    E(irem_s), E(idiv_u), E(irem_u), E(ldiv_s), E(ldiv_u), E(lrem_u), E(lmul), E(imin_s),
    E(imax_u), E(iabs), E(shl), E(shr_u), E(shr_s), E(funnel_l), E(funnel_r), E(funnel_lc),
    E(funnel_rc), E(popc), E(popcll), E(clz), E(clzll), E(ffs), E(ffsll), E(brev), E(brevll),
    E(byte_perm), E(sad), E(usad), E(hadd), E(rhadd), E(uhadd), E(vadd2), E(vabsdiffu4),
    E(vcmpgts2), E(vmaxu4), E(dp4a), E(dp2a_lo), E(bfe_s), E(bfe_u), E(bfi), E(prmt_f4e),
    E(prmt_rc16), E(lop3), E(add_sat), E(sub_cc), E(mad_cc),
    E(fadd), E(fsub), E(fmul), E(fdiv), E(fma), E(fadd_rz), E(fmul_ru), E(fmaf_rd), E(fdiv_rz),
    E(frcp_rn), E(fsqrt), E(fsqrt_ru), E(fmin), E(fmax), E(fabs), E(fneg), E(copysign),
    E(floor), E(ceil), E(trunc), E(round), E(rint), E(fmod), E(remainder), E(ldexp), E(frexp),
    E(fsat), E(setp_lt), E(setp_neu), E(isnan), E(signbit),
    A(fdividef, 2), A(sqrt_approx, 1), A(rsqrt, 1), A(rcp_approx, 1), A(ex2_approx, 2),
    A(lg2_approx, 2), A(sin_approx, 2), A(cos_approx, 2), A(tanh_approx, 2), A(expf_fast, 2),
    A(expf, 2), A(logf, 1), E(sinf), E(cosf), E(tanf), E(atan2f), A(powf, 2), E(erff), E(cbrtf),
    E(hypotf),
    E(dadd), E(dmul), E(ddiv), E(dfma), E(dsqrt), E(drcp_rz), E(dmin), E(dfloor), E(dexp),
    E(dlog), E(dsin), A(rsqrt_d, 1),
    E(f2i_rn), E(f2i_rz), E(f2i_rd), E(f2u_ru), E(f2ll_rz), E(f2ull_rn), E(i2f_rn), E(i2f_rz),
    E(u2f_ru), E(ll2f_rn), E(ull2d_rn), E(f2d), E(d2f_rn), E(d2f_rz), E(d2i_rn), E(d2ll_rz),
    E(f2h_rn), E(f2h_rz), E(h2f), E(f2bf_rn), E(bf2f), E(d2h), E(i2h_rn), E(cvt_sat_u8),
    E(cvt_s16_s32), E(cvt_sat_s8_s32), E(cvt_rmi), E(cvt_pack_bf16x2), E(cvt_tf32),
    E(hadd_f16), E(hmul_f16), E(hfma_f16), E(hdiv_f16), E(hfma2_relu), E(hmax_nan), E(hlt),
    A(hsqrt, 1), A(hexp, 1), E(bf16_fma),
    E(shfl_idx), E(shfl_up), E(shfl_down), E(shfl_xor), E(ballot), E(vote_any), E(vote_all),
    E(match_any), E(reduce_add), E(reduce_max), E(reduce_xor), E(lanemask_lt), E(divergent_ballot),
    E(atomic_add_u), E(atomic_min_s), E(atomic_max_u), E(atomic_and), E(atomic_xor),
    E(atomic_inc), E(atomic_dec), E(atomic_add_ll),
};

// The inputs: special values, then a fixed generator's (the same on every machine).
static void make_inputs(std::vector<std::uint32_t>* a, std::vector<std::uint64_t>* w)
{
    const std::uint32_t special[] = {
        0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u, 0x007fffffu, 0x807fffffu,  // 0, denormals
        0x00800000u, 0x80800000u, 0x3f800000u, 0xbf800000u, 0x3fc00000u, 0xbfc00000u,  // FLT_MIN, +-1, +-1.5
        0x4b800001u, 0x7f7fffffu, 0xff7fffffu, 0x7f800000u, 0xff800000u, 0x7fc00000u,  // 2^24+1, max, inf, NaN
        0xffc00000u, 0x7f800001u, 0x3effffffu, 0x3f000000u, 0x3f000001u, 0x40490fdbu,  // NaNs, ~0.5, pi
        0x4f000000u, 0xcf000000u, 0x4f800000u, 0x5f000000u, 0xdf000001u, 0x47000000u,  // 2^31, 2^32, 2^63
        0x477fe000u, 0x477ff000u, 0x33800000u, 0x387fc000u, 0x00000020u, 0x0000001fu,  // half range edges, 31, 32
        0x00000021u, 0x0000003fu, 0x00000040u, 0x7fffffffu, 0xffffffffu, 0xfffffffeu,  // 33, 63, 64, INT_MAX, -1
        0x00000002u, 0x00000003u, 0x00000007u, 0x000000ffu, 0x0000ffffu, 0x00010000u,
        0x3f7fffffu, 0x3f800001u, 0x40000000u, 0xc0000000u, 0x41200000u, 0x42c80000u,  // ~1, 2, 10, 100
        0xc2c80000u, 0x3dcccccdu, 0x3c23d70au, 0xbf000000u, 0x4e6e6b28u, 0xce6e6b28u,  // 0.1, 0.01, 1e9
    };
    const std::uint64_t wide_special[] = {
        0ull, 0x8000000000000000ull, 1ull, 0x000fffffffffffffull, 0x0010000000000000ull,
        0x3ff0000000000000ull, 0xbff0000000000000ull, 0x7ff0000000000000ull,
        0xfff0000000000000ull, 0x7ff8000000000000ull, 0x7fefffffffffffffull,
        0x400921fb54442d18ull, 0x41dfffffffc00000ull, 0x43e0000000000000ull, 0xffffffffffffffffull,
        0x7fffffffffffffffull, 0x3fe0000000000000ull, 0x3ff0000000000001ull, 0x47efffffe0000000ull,
        0x36a0000000000000ull, 0xc1e0000000200000ull, 2ull, 3ull, 0x100000000ull,
    };
    std::uint64_t state = 0x9e3779b97f4a7c15ull;
    auto next = [&state]() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        return state;
    };
    for (int i = 0; i < N; ++i) {
        const std::uint64_t r = next();
        std::uint32_t v;
        if (i < int(sizeof special / sizeof special[0])) v = special[i];
        else if (i % 4 == 0) v = std::uint32_t(r);                                            // any bits
        else if (i % 4 == 1) v = (std::uint32_t(r) & 0x807fffffu) | ((100u + (r >> 40) % 56u) << 23);  // |x| in [2^-27, 2^29)
        else if (i % 4 == 2) v = std::uint32_t(int(r % 2001) - 1000);                        // small ints
        else v = (std::uint32_t(r) & 0x80ffffffu) | 0x3f000000u;                             // [0.5, 2)
        (*a)[i] = v;
        std::uint64_t x;
        if (i < int(sizeof wide_special / sizeof wide_special[0])) x = wide_special[i];
        else if (i % 3 == 0) x = r;
        else if (i % 3 == 1) x = (r & 0x800fffffffffffffull) | ((1000ull + (r >> 52) % 47ull) << 52);
        else x = std::uint64_t(std::int64_t(r % 200001) - 100000);
        (*w)[i] = x;
    }
}

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s out.txt\n", argv[0]);
        return 2;
    }
    std::vector<std::uint32_t> a(N), b(N), c(N);
    std::vector<std::uint64_t> w(N);
    make_inputs(&a, &w);
    for (int i = 0; i < N; ++i) {
        b[i] = a[(i + 37) % N];
        c[i] = a[(i + 101) % N];
    }
    std::uint32_t *da, *db, *dc;
    std::uint64_t *dw, *dout;
    CHECK(cudaMalloc(&da, N * 4));
    CHECK(cudaMalloc(&db, N * 4));
    CHECK(cudaMalloc(&dc, N * 4));
    CHECK(cudaMalloc(&dw, N * 8));
    CHECK(cudaMalloc(&dout, 3 * N * 8));
    CHECK(cudaMemcpy(da, a.data(), N * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b.data(), N * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dc, c.data(), N * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dw, w.data(), N * 8, cudaMemcpyHostToDevice));
    const Inputs in{da, db, dc, dw};

    FILE* f = std::fopen(argv[1], "w");
    if (!f) {
        std::perror(argv[1]);
        return 1;
    }
    std::vector<std::uint64_t> out(N);
    int count = 0;
    for (const Op& op : ops) {
        CHECK(cudaMemset(dout, 0, N * 8));
        op.kernel<<<N / 64, 64>>>(in, dout);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(out.data(), dout, N * 8, cudaMemcpyDeviceToHost));
        std::fprintf(f, "%s %s", op.name, op.kind);
        for (std::uint64_t v : out) std::fprintf(f, " %llx", (unsigned long long)v);
        std::fprintf(f, "\n");
        ++count;
    }
    // The float atomic: one sum over every input, exact whatever the order.
    CHECK(cudaMemset(dout, 0, 3 * N * 8));
    k_atomic_add_f<<<N / 64, 64>>>(in, dout);
    CHECK(cudaGetLastError());
    float sum = 0;
    CHECK(cudaMemcpy(&sum, reinterpret_cast<float*>(dout) + 2 * N, 4, cudaMemcpyDeviceToHost));
    std::uint32_t bits;
    std::memcpy(&bits, &sum, 4);
    std::fprintf(f, "atomic_add_f exact %x\n", bits);
    ++count;
    std::fclose(f);
    CHECK(cudaDeviceSynchronize());
    std::printf("ops: %d operations x %d inputs written to %s\n", count, N, argv[1]);
    return 0;
}
