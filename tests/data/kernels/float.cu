// Floating point, f32 and f64: arithmetic in every rounding mode (the __f*_r* and __d*_r*
// intrinsics), division, square root, reciprocal, min/max, rounding to integers, and the math
// library (whose sequences are exact on the emulator) next to the .approx intrinsics.

__device__ float to_float(unsigned bits, float scale) {  // a value in [-scale, scale)
    return (float(bits >> 8) / 16777216.0f * 2.0f - 1.0f) * scale;
}

extern "C" __global__ void f32_ops(const unsigned* in, float* out) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const float a = to_float(in[3 * t], 100.0f), b = to_float(in[3 * t + 1], 10.0f), c = to_float(in[3 * t + 2], 1000.0f);
    float* o = out + t * 32;
    o[0] = a + b;
    o[1] = a - b;
    o[2] = a * b;
    o[3] = a / b;
    o[4] = fmaf(a, b, c);
    o[5] = __fadd_rz(a, b);
    o[6] = __fadd_rd(a, b);
    o[7] = __fadd_ru(a, b);
    o[8] = __fmul_rz(a, b);
    o[9] = __fmul_rd(a, b);
    o[10] = __fmul_ru(a, b);
    o[11] = __fmaf_rz(a, b, c);
    o[12] = __fmaf_rd(a, b, c);
    o[13] = __fmaf_ru(a, b, c);
    o[14] = __fdiv_rz(a, b);
    o[15] = sqrtf(fabsf(a));
    o[16] = __fsqrt_rd(fabsf(a));
    o[17] = __frcp_rn(b);
    o[18] = __frcp_ru(b);
    o[19] = fminf(a, b);
    o[20] = fmaxf(a, b);
    o[21] = fabsf(a) + copysignf(c, b);
    o[22] = -a;
    o[23] = floorf(a);
    o[24] = ceilf(a);
    o[25] = truncf(a);
    o[26] = rintf(a * 0.5f);
    o[27] = roundf(a);
    o[28] = __saturatef(b * 0.1f);
    o[29] = fdimf(a, b);
    o[30] = __fsub_ru(a, c);
    o[31] = __fdiv_rn(c, a);
}

extern "C" __global__ void f32_math(const unsigned* in, float* out) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const float a = to_float(in[2 * t], 20.0f), b = to_float(in[2 * t + 1], 4.0f);
    float* o = out + t * 16;
    o[0] = sinf(a);
    o[1] = cosf(a);
    o[2] = expf(b);
    o[3] = logf(fabsf(a) + 0.5f);
    o[4] = powf(fabsf(b) + 0.1f, 1.7f);
    o[5] = exp2f(b);
    o[6] = log2f(fabsf(a) + 0.5f);
    o[7] = tanhf(b);
    o[8] = atan2f(a, b);
    o[9] = rsqrtf(fabsf(a) + 0.01f);  // rsqrt.approx
    o[10] = __sinf(b);                 // sin.approx
    o[11] = __cosf(b);                 // cos.approx
    o[12] = __expf(b);                 // ex2.approx after a multiply
    o[13] = __logf(fabsf(a) + 0.5f);   // lg2.approx
    o[14] = __fdividef(a, b + 5.0f);   // div.approx / div.full
    o[15] = erff(b);
}

__device__ double to_double(unsigned hi, unsigned lo, double scale) {
    const unsigned long long bits = ((unsigned long long)hi << 32 | lo) >> 11;  // 53 bits
    return (double(bits) / 9007199254740992.0 * 2.0 - 1.0) * scale;
}

extern "C" __global__ void f64_ops(const unsigned* in, double* out) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const double a = to_double(in[4 * t], in[4 * t + 1], 100.0), b = to_double(in[4 * t + 2], in[4 * t + 3], 10.0);
    double* o = out + t * 24;
    o[0] = a + b;
    o[1] = a - b;
    o[2] = a * b;
    o[3] = a / b;
    o[4] = fma(a, b, 1.0 / 3.0);
    o[5] = __dadd_rz(a, b);
    o[6] = __dadd_rd(a, b);
    o[7] = __dadd_ru(a, b);
    o[8] = __dmul_rz(a, b);
    o[9] = __dmul_ru(a, b);
    o[10] = __fma_rd(a, b, 0.1);
    o[11] = sqrt(fabs(a));
    o[12] = __dsqrt_ru(fabs(a));
    o[13] = 1.0 / b;
    o[14] = __drcp_rz(b);
    o[15] = fmin(a, b);
    o[16] = fmax(a, b);
    o[17] = floor(a);
    o[18] = ceil(a);
    o[19] = trunc(a);
    o[20] = rint(a);
    o[21] = sin(a);
    o[22] = exp(b);
    o[23] = log(fabs(a) + 0.5);
}

// Classification and exact library functions on special values: NaN, infinities, subnormals,
// signed zeros (testp, copysign, and the integer sequences of frexpf / ilogbf / fmodf).
extern "C" __global__ void classify(const unsigned* in, unsigned* out) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned special[8] = {0x7f800000u, 0xff800000u, 0x7fc00000u, 0x00000003u, 0x80000000u, 0x00800000u, 0x7f7fffffu, 0x3f800000u};
    const float x = (t & 1) ? __uint_as_float(special[(t >> 1) & 7]) : __uint_as_float(in[2 * t]);
    const float y = __uint_as_float((in[2 * t + 1] & 0x807fffffu) | 0x3f000000u);  // +-[0.5, 1)
    unsigned* o = out + t * 10;
    o[0] = isnan(x) + 2 * isinf(x) + 4 * isfinite(x) + 8 * (signbit(x) != 0);
    int e = 0;
    const float m = frexpf(x, &e);
    o[1] = __float_as_uint(m);
    o[2] = unsigned(isfinite(x) && x != 0.0f ? e : 0);
    o[3] = unsigned(isfinite(x) && x != 0.0f ? ilogbf(x) : 0);
    o[4] = __float_as_uint(fmodf(x, y));
    o[5] = __float_as_uint(copysignf(1.5f, x));
    o[6] = __float_as_uint(ldexpf(y, int(in[2 * t] % 300u) - 150));
    o[7] = __float_as_uint(nextafterf(x, 0.0f));
    o[8] = __float_as_uint(fabsf(x) * 2.0f);
    o[9] = __float_as_uint(truncf(x) + floorf(y));
}
