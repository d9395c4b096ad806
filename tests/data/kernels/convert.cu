// Conversions (cvt) in every direction: float <-> integer with each rounding mode and saturation,
// f32 <-> f64, integer widening and narrowing with sign, and f16 / bf16 (cuda_fp16.h,
// cuda_bf16.h), including the packed f16x2 forms and __half arithmetic.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

extern "C" __global__ void cvt_ops(const unsigned* in, unsigned* out) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned bits = in[2 * t];
    const float f = (float(bits >> 8) / 16777216.0f * 2.0f - 1.0f) * 3.0e9f;  // beyond int range too
    const float g = (float(in[2 * t + 1] >> 8) / 16777216.0f * 2.0f - 1.0f) * 100.0f;
    const double d = double(f) * 1.0000001;
    unsigned* o = out + t * 32;
    o[0] = unsigned(__float2int_rn(g));
    o[1] = unsigned(__float2int_rz(g));
    o[2] = unsigned(__float2int_rd(g));
    o[3] = unsigned(__float2int_ru(g));
    o[4] = __float2uint_rn(g);            // negative -> 0 (saturates)
    o[5] = unsigned(__float2int_rz(f));   // out of range -> INT_MIN / INT_MAX
    o[6] = __float2uint_rz(f);
    o[7] = unsigned(__float2ll_rd(f));
    o[8] = unsigned(__float2ull_ru(f) >> 3);
    o[9] = __float_as_uint(__int2float_rz(int(bits)));
    o[10] = __float_as_uint(__uint2float_rd(bits));
    o[11] = __float_as_uint(__ll2float_ru((long long)bits << 20));
    o[12] = __float_as_uint(__ull2float_rn((unsigned long long)bits << 35));
    o[13] = __float_as_uint(__double2float_rz(d));
    o[14] = __float_as_uint(__double2float_ru(d));
    o[15] = __float_as_uint(float(d));
    o[16] = unsigned(__double2int_rd(d * 1e-3));
    o[17] = unsigned(__double2ll_rn(d));
    o[18] = unsigned((signed char)bits);            // cvt.s32.s8
    o[19] = unsigned((unsigned short)(bits >> 3));  // cvt.u32.u16
    o[20] = unsigned((short)(bits >> 5));
    o[21] = unsigned((int)(long long)(int)bits);
    o[22] = __float_as_uint((float)(int)(bits & 0xffffff));
    o[23] = unsigned(__double_as_longlong(double(int(bits))));
    o[24] = unsigned(__double_as_longlong(double(bits) * 0.5) >> 32);
    o[25] = unsigned(int(g));              // cvt.rzi.s32.f32
    o[26] = unsigned(long(d) >> 8);
    o[27] = __float_as_uint(__int_as_float(0x7fc00000) * 0.0f) == 0x7fffffffu;  // canonical NaN
    o[28] = unsigned(__float2int_rn(__int_as_float(0x7fc00000)));  // NaN -> 0
    o[29] = __float_as_uint(nearbyintf(g));
    o[30] = unsigned(lrintf(g));
    o[31] = unsigned(llroundf(g));
}

extern "C" __global__ void half_ops(const unsigned* in, unsigned* out) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const float a = (float(in[2 * t] >> 8) / 16777216.0f * 2.0f - 1.0f) * 70000.0f;
    const float b = (float(in[2 * t + 1] >> 8) / 16777216.0f * 2.0f - 1.0f) * 4.0f;
    unsigned* o = out + t * 24;
    const __half ha = __float2half(a), hb = __float2half(b);
    o[0] = __half_as_ushort(ha);                        // cvt.rn.f16.f32 (overflow -> inf)
    o[1] = __half_as_ushort(__float2half_rz(b));
    o[2] = __half_as_ushort(__float2half_rd(b));
    o[3] = __half_as_ushort(__float2half_ru(b * 1e-5f));  // subnormal halves
    o[4] = __float_as_uint(__half2float(hb));
    o[5] = __half_as_ushort(__hadd(hb, __float2half(0.3f)));
    o[6] = __half_as_ushort(__hmul(hb, hb));
    o[7] = __half_as_ushort(__hfma(hb, __float2half(1.5f), __float2half(-0.25f)));
    o[8] = __half_as_ushort(__hsub(hb, __float2half(2.0f)));
    o[9] = __hlt(hb, __float2half(0.5f)) + 2 * __heq(hb, hb);
    const __half2 h2 = __floats2half2_rn(b, b * 0.5f);  // cvt.rn.f16x2.f32
    const __half2 s2 = __hadd2(h2, __float2half2_rn(1.0f));
    const __half2 m2 = __hfma2(h2, h2, s2);
    o[10] = *reinterpret_cast<const unsigned*>(&h2);
    o[11] = *reinterpret_cast<const unsigned*>(&s2);
    o[12] = *reinterpret_cast<const unsigned*>(&m2);
    o[13] = __float_as_uint(__low2float(m2) + __high2float(m2));
    const __nv_bfloat16 ba = __float2bfloat16(a), bb = __float2bfloat16(b);
    o[14] = __bfloat16_as_ushort(ba);
    o[15] = __bfloat16_as_ushort(__float2bfloat16_rz(b));
    o[16] = __float_as_uint(__bfloat162float(bb));
    o[17] = __bfloat16_as_ushort(__hadd(bb, bb));
    o[18] = __bfloat16_as_ushort(__hmul(bb, __float2bfloat16(3.0f)));
    const __nv_bfloat162 b2 = __floats2bfloat162_rn(a, b);
    o[19] = *reinterpret_cast<const unsigned*>(&b2);
    o[20] = __half_as_ushort(__double2half(double(b) * 1.1));
    o[21] = __half_as_ushort(__int2half_rn(int(a)));
    o[22] = unsigned(__half2int_rz(hb * __float2half(10.0f)));
    o[23] = __half_as_ushort(hsqrt(__habs(hb)));
}

// Edge cases, one per output word (thread 0 writes them all): NaN and overflow conversions,
// signed zeros in min/max, and which predicate of setp.f16x2 p|q gets the low half.
extern "C" __global__ void half_edge(const unsigned* in, unsigned* out) {
    if (threadIdx.x != 0) return;
    const float nan = __int_as_float(0x7fc00001 | (in[0] & 0x3f)), inf = __int_as_float(0x7f800000);
    const float neg_zero = __int_as_float(0x80000000);
    out[0] = __half_as_ushort(__float2half(nan));
    out[1] = __bfloat16_as_ushort(__float2bfloat16(nan));
    out[2] = __half_as_ushort(__float2half(-inf));
    out[3] = __half_as_ushort(__float2half_rz(1.0e6f));    // overflow toward zero: max finite
    out[4] = __half_as_ushort(__float2half_rd(1.0e6f));
    out[5] = __half_as_ushort(__float2half_ru(-1.0e6f));
    out[6] = __half_as_ushort(__float2half(65520.0f));     // ties up to infinity
    out[7] = __half_as_ushort(__float2half(5.9604645e-08f * 0.5f));  // half the smallest subnormal: 0
    out[8] = __half_as_ushort(__float2half(5.9604645e-08f * 0.75f)); // rounds up to the smallest
    out[9] = __float_as_uint(fminf(neg_zero, 0.0f * float(in[1] & 1)));
    out[10] = __float_as_uint(fmaxf(neg_zero, 0.0f * float(in[1] & 1)));
    out[11] = __float_as_uint(fminf(nan, 2.0f));
    out[12] = __half_as_ushort(__hmin(__float2half(-0.0f), __float2half(0.0f)));
    out[13] = __half_as_ushort(__hmax(__float2half(-0.0f), __float2half(0.0f)));
    const __half2 lo_small = __halves2half2(__float2half(1.0f), __float2half(3.0f));  // low 1, high 3
    const __half2 twos = __float2half2_rn(2.0f);
    unsigned p_lo, q_lo, bits_a = *reinterpret_cast<const unsigned*>(&lo_small), bits_b = *reinterpret_cast<const unsigned*>(&twos);
    asm("{ .reg .pred p, q; setp.lt.f16x2 p|q, %2, %3; selp.u32 %0, 1, 0, p; selp.u32 %1, 1, 0, q; }"
        : "=r"(p_lo), "=r"(q_lo) : "r"(bits_a), "r"(bits_b));
    out[14] = p_lo;
    out[15] = q_lo;
    out[16] = __float_as_uint(__half2float(__ushort_as_half(0x7e01)));  // f16 NaN payload -> f32
    out[17] = unsigned(__float2int_rz(inf));
    out[18] = unsigned(__float2ll_rz(-inf) >> 32);
    out[19] = __float2uint_rn(-3.7f);
    out[20] = __double2uint_rz(-0.5);
    out[21] = __float_as_uint(__int_as_float(0x00000001) * 1.0f);  // subnormal survives without ftz
    out[22] = __float_as_uint(__fmul_rn(__int_as_float(0x00800000), 0.5f));
    out[23] = __float_as_uint(sqrtf(-1.0f));
    out[24] = __float_as_uint(__frcp_rn(0.0f));
    out[25] = __float_as_uint(rsqrtf(0.0f));
    out[26] = __float_as_uint(__fdividef(1.0f, 0.0f));
    out[27] = __float_as_uint(__log2f(0.0f));
    out[28] = __float_as_uint(exp2f(-200.0f));
    out[29] = __float_as_uint(__saturatef(nan));
    out[30] = unsigned(__double_as_longlong(sqrt(-2.0)) >> 32);
    out[31] = __float_as_uint(float(1.0 / 3.0));
}
