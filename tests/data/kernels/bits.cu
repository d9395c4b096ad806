// Bit operations: popc clz brev bfe bfi prmt shf (funnel shifts), shl/shr, __ffs, lop3-style logic,
// selp (conditional select), fns, dp4a, cvt.pack.

__device__ unsigned extract(unsigned v, unsigned pos, unsigned len) {
    return (v >> pos) & ((1u << len) - 1u);  // NVRTC: bfe.u32
}

extern "C" __global__ void bit_ops(const unsigned* in, unsigned* out) {
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned a = in[3 * t], b = in[3 * t + 1], c = in[3 * t + 2];
    const unsigned long long wide = ((unsigned long long)a << 32) | b;
    unsigned* o = out + t * 28;
    o[0] = __popc(a);
    o[1] = __clz(a >> (c & 31));
    o[2] = __brev(a);
    o[3] = extract(a, c & 15, 1 + (b & 15));
    o[4] = unsigned(int(a) << 3 >> 7);  // arithmetic shift
    o[5] = (a & ~(0xffu << 8)) | ((b & 0xffu) << 8);  // bfi
    o[6] = __byte_perm(a, b, c & 0x7777);
    o[7] = __byte_perm(a, b, 0x0123);
    o[8] = __funnelshift_l(a, b, c);
    o[9] = __funnelshift_r(a, b, c);
    o[10] = __funnelshift_lc(a, b, c);
    o[11] = __funnelshift_rc(a, b, c);
    o[12] = a << (c & 31);
    o[13] = a >> (c & 31);
    o[14] = __ffs(int(a >> (c & 31)));
    o[15] = __popcll(wide);
    o[16] = __clzll(wide >> (c & 63));
    o[17] = __ffsll((long long)(wide << (c & 63)));
    o[18] = unsigned(__brevll(wide));
    o[19] = (a & b) | (~a & c);       // lop3 in SASS, and/or/not in PTX
    o[20] = a ^ (b | ~c);
    o[21] = (int(a) < int(b)) ? c : a;  // selp
    o[22] = (a > b) + (a == c) * 2 + (int(a) >= 0) * 4;
    o[23] = unsigned((int)(short)(a & 0xffff)) + unsigned((signed char)(b & 0xff));  // sign extension
    o[24] = __fns(a, c & 31u, int(b % 7u) - 3);  // fns: the n-th set bit from a position
    o[25] = unsigned(__dp4a(int(a), int(b), int(c)));  // dp4a: four byte products and a sum
    const int sa = int(a) >> (c & 31), sb = int(b) >> 20;  // cvt.pack: saturate two values, pack them
    asm("cvt.pack.sat.s16.s32 %0, %1, %2;" : "=r"(o[26]) : "r"(sa), "r"(sb));
    asm("cvt.pack.sat.u4.s32.b32 %0, %1, %2, %3;" : "=r"(o[27]) : "r"(sa), "r"(sb), "r"(c));
}
