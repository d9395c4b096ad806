// Integer arithmetic, 32 and 64 bit: add sub mul mul.hi mul.wide mad div rem min max abs neg sad
// mul24; division by constants (mul.hi).
// Launch: see manifest.txt. in: random 32-bit words; out: one row of results per thread.

extern "C" __global__ void int32_ops(const unsigned* in, unsigned* out) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int a = int(in[2 * t]), b0 = int(in[2 * t + 1]);
    const int b = (t & 3) == 0 ? (b0 >> 20) : b0;  // small divisors too
    const unsigned ua = unsigned(a), ub = unsigned(b);
    unsigned* o = out + t * 24;
    o[0] = unsigned(a + b);
    o[1] = unsigned(a - b);
    o[2] = unsigned(a * b);
    o[3] = unsigned(__mulhi(a, b));
    o[4] = __umulhi(ua, ub);
    const long long wide = (long long)a * (long long)b;  // mul.wide.s32
    o[5] = unsigned(wide);
    o[6] = unsigned(wide >> 32);
    const unsigned long long uwide = (unsigned long long)ua * ub;  // mul.wide.u32
    o[7] = unsigned(uwide >> 32);
    o[8] = (b != 0 && !(a == (-2147483647 - 1) && b == -1)) ? unsigned(a / b) : 0u;
    o[9] = (b != 0 && !(a == (-2147483647 - 1) && b == -1)) ? unsigned(a % b) : 0u;
    o[10] = ub ? ua / ub : 0u;
    o[11] = ub ? ua % ub : 0u;
    o[12] = unsigned(min(a, b));
    o[13] = unsigned(max(a, b));
    o[14] = min(ua, ub);
    o[15] = max(ua, ub);
    o[16] = unsigned(abs(a));
    o[17] = unsigned(-a);
    o[18] = unsigned(a * 7 + b);  // mad.lo
    o[19] = __sad(a, b, 5u);
    o[20] = __usad(ua, ub, 3u);
    o[21] = unsigned(__mul24(a, b));
    o[22] = __umul24(ua, ub);
    o[23] = unsigned(a) / 3u + unsigned(b) / 10u;  // division by constants: mul.hi
}

extern "C" __global__ void int64_ops(const unsigned* in, unsigned long long* out) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const long long a = (long long)(((unsigned long long)in[4 * t] << 32) | in[4 * t + 1]);
    long long b = (long long)(((unsigned long long)in[4 * t + 2] << 32) | in[4 * t + 3]);
    if ((t & 3) == 0) b >>= 40;
    const unsigned long long ua = (unsigned long long)a, ub = (unsigned long long)b;
    unsigned long long* o = out + t * 16;
    o[0] = (unsigned long long)(a + b);
    o[1] = (unsigned long long)(a - b);
    o[2] = (unsigned long long)(a * b);
    o[3] = (unsigned long long)__mul64hi(a, b);
    o[4] = __umul64hi(ua, ub);
    o[5] = (b != 0 && b != -1) ? (unsigned long long)(a / b) : 0ull;
    o[6] = (b != 0 && b != -1) ? (unsigned long long)(a % b) : 0ull;
    o[7] = ub ? ua / ub : 0ull;
    o[8] = ub ? ua % ub : 0ull;
    o[9] = (unsigned long long)min(a, b);
    o[10] = max(ua, ub);
    o[11] = (unsigned long long)llabs(a);
    o[12] = ua / 1000000007ull;  // division by a constant
    o[13] = (unsigned long long)(a >> (t & 63));
    o[14] = ua >> (t & 63);
    o[15] = ua << (t & 63);
}
