// %clock, %clock64 and %globaltimer: monotonic per thread across work; membar / fence / nanosleep.
extern "C" __global__ void clocks(const unsigned* in, unsigned* out) {
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    const long long c0 = clock64();
    const unsigned k0 = unsigned(clock());
    unsigned long long g0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
    unsigned acc = in[g];
    for (int i = 0; i < 100; ++i) acc = acc * 1664525u + 1013904223u;
    __threadfence_block();  // fences and sleep: no effect on results
    __threadfence();
    __threadfence_system();
    __nanosleep(100);
    const long long c1 = clock64();
    const unsigned k1 = unsigned(clock());
    unsigned long long g1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
    out[g * 4 + 0] = c1 > c0;
    out[g * 4 + 1] = (k1 - k0) > 0u && (k1 - k0) < 0x80000000u;
    out[g * 4 + 2] = g1 >= g0;
    out[g * 4 + 3] = acc;
}
