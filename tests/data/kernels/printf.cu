// Device printf: each conversion the course uses. One warp; lanes print in lane order.
#include <cstdio>

extern "C" __global__ void print_formats(const unsigned* in, unsigned* out) {
    const int t = threadIdx.x;
    if (t >= 4) return;
    const float f = float(t) * 1.25f - 2.0f;
    printf("t=%d u=%u x=%x f=%f e=%e g=%g\n", t - 2, 4000000000u + unsigned(t), 0xbeef0 + t, f, f * 1e5f, double(f) / 3.0);
    printf("[%5.2f] [%-6d] [%06.1f] %s %c %ld %lu %lld %%\n", f, t, double(f) * 10.0, t & 1 ? "odd" : "even", 'A' + t,
           -5000000000L * (t + 1), 1ul << (40 + t), (long long)t - 9);
    if (t == 0) printf("%p %p\n", (void*)0, (void*)0x1234);
    if (t == 1) printf("[%6d] [%-9.2f] [%.3s] [%+.0e] [%#x] [%o]\n", t, f, "abcdef", 12345.0, 255u, 8u);  // no '*': the GPU's printf mishandles it
    out[t] = 1;
}
