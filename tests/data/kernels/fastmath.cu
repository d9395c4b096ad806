// Compiled with --use_fast_math (manifest.txt): .ftz flushes subnormal inputs and results to
// zero, and the math functions become .approx instructions.

extern "C" __global__ void f32_fast(const unsigned* in, float* out) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const float a = float(in[2 * t] >> 8) / 16777216.0f * 8.0f - 4.0f;
    const float tiny = __uint_as_float(in[2 * t + 1] & 0x807fffffu);  // a subnormal (or zero)
    float* o = out + t * 12;
    o[0] = tiny * (a + 8.0f);   // mul.ftz: a zero of tiny's sign
    o[1] = tiny + tiny;         // add.ftz: 0
    o[2] = a / (a + 9.0f);      // div.approx.ftz / div.full.ftz
    o[3] = sqrtf(a + 4.0f);     // sqrt.approx.ftz
    o[4] = sinf(a);             // sin.approx.ftz
    o[5] = cosf(a);
    o[6] = expf(a);             // ex2.approx.ftz
    o[7] = logf(a + 4.5f);      // lg2.approx.ftz
    o[8] = 1.0f / (a + 4.5f);   // rcp.approx.ftz
    o[9] = rsqrtf(a + 4.5f);
    o[10] = exp2f(a);
    o[11] = __uint_as_float(0x00400000u) * a;  // subnormal operand
}
