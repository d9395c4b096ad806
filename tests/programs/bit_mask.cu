// bit_mask: the bmsk instruction (sm_70 and later; CUB and Thrust use it), in both modes, on
// cases worked out by hand from the PTX ISA's definition: a mask of b bits from bit a, .wrap
// taking a and b modulo 32, .clamp making a >= 32 empty and b >= 32 reach bit 31.
#include <cstdint>
#include "check.h"

struct Case {
    unsigned a, b, wrap, clamp;  // operands, then the expected masks
};

constexpr Case cases[] = {
    {1, 2, 0x6u, 0x6u},                 // bits 1 and 2
    {0, 0, 0x0u, 0x0u},                 // no bits
    {4, 8, 0xff0u, 0xff0u},             // bits 4 to 11
    {28, 8, 0xf0000000u, 0xf0000000u},  // stops at bit 31
    {33, 2, 0x6u, 0x0u},                // .wrap: a is 1; .clamp: empty
    {4, 40, 0xff0u, 0xfffffff0u},       // .wrap: b is 8; .clamp: up to bit 31
    {0, 32, 0x0u, 0xffffffffu},         // .wrap: b is 0; .clamp: every bit
    {31, 1, 0x80000000u, 0x80000000u},  // the top bit
};
constexpr int n = sizeof(cases) / sizeof(cases[0]);

__global__ void masks(const Case* in, unsigned* out)
{
    const int i = threadIdx.x;
    if (i >= n) return;
    unsigned w, c;
    asm("bmsk.wrap.b32 %0, %1, %2;" : "=r"(w) : "r"(in[i].a), "r"(in[i].b));
    asm("bmsk.clamp.b32 %0, %1, %2;" : "=r"(c) : "r"(in[i].a), "r"(in[i].b));
    out[2 * i] = w;
    out[2 * i + 1] = c;
}

int main()
{
    Case* d_cases;
    unsigned* d_out;
    CHECK(cudaMalloc(&d_cases, sizeof cases));
    CHECK(cudaMalloc(&d_out, 2 * n * sizeof(unsigned)));
    CHECK(cudaMemcpy(d_cases, cases, sizeof cases, cudaMemcpyHostToDevice));
    masks<<<1, 32>>>(d_cases, d_out);
    CHECK_LAUNCH();
    unsigned out[2 * n];
    CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        EXPECT(out[2 * i] == cases[i].wrap, "bmsk.wrap %u, %u is 0x%08x, expected 0x%08x",
               cases[i].a, cases[i].b, out[2 * i], cases[i].wrap);
        EXPECT(out[2 * i + 1] == cases[i].clamp, "bmsk.clamp %u, %u is 0x%08x, expected 0x%08x",
               cases[i].a, cases[i].b, out[2 * i + 1], cases[i].clamp);
    }
    CHECK(cudaFree(d_cases));
    CHECK(cudaFree(d_out));
    std::printf("bit_mask: %d cases of bmsk.wrap and bmsk.clamp: PASS\n", n);
    return 0;
}
