// 128-bit integers (unsigned __int128, NVRTC --device-int128): carry chains add.cc / addc,
// sub.cc / subc and mad.lo.cc / madc.

extern "C" __global__ void int128_ops(const unsigned* in, unsigned long long* out) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned __int128 a = ((unsigned __int128)in[4 * t] << 96) | ((unsigned __int128)in[4 * t + 1] << 64) |
                                ((unsigned __int128)in[4 * t + 2] << 32) | in[4 * t + 3];
    const unsigned __int128 b = ((unsigned __int128)in[4 * t + 3] << 80) | ((unsigned __int128)in[4 * t + 2] << 48) |
                                ((unsigned __int128)in[4 * t] << 16) | in[4 * t + 1];
    unsigned long long* o = out + t * 8;
    const unsigned __int128 s = a + b, d = a - b, p = a * b;
    o[0] = (unsigned long long)s;
    o[1] = (unsigned long long)(s >> 64);
    o[2] = (unsigned long long)d;
    o[3] = (unsigned long long)(d >> 64);
    o[4] = (unsigned long long)p;
    o[5] = (unsigned long long)(p >> 64);
    const unsigned long long x = (unsigned long long)a, y = (unsigned long long)(b >> 64);
    const unsigned __int128 full = (unsigned __int128)x * y;
    o[6] = (unsigned long long)(full >> 64);
    o[7] = (unsigned long long)(full);
}
