// atomics: every thread of a grid applies the atomic operations to a few shared counters; the
// final values are computed on the host from the same inputs.
#include <climits>
#include <cmath>
#include "check.h"

enum { ADD, SUB, EXCH, MAX, MIN, INC, DEC, CAS, AND, OR, XOR, NINT };

__global__ void int_atomics(int* r, unsigned* u)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&r[ADD], 10);
    atomicSub(&r[SUB], 10);
    atomicExch(&r[EXCH], t);            // some thread's id is left
    atomicMax(&r[MAX], t);
    atomicMin(&r[MIN], t);
    atomicInc(&u[0], 17);               // wraps to 0 after 17
    atomicDec(&u[1], 137);              // wraps to 137 below 0
    int old = r[CAS], assumed;          // an add through compare-and-swap
    do {
        assumed = old;
        old = atomicCAS(&r[CAS], assumed, assumed + (t % 3));
    } while (old != assumed);
    atomicAnd(&r[AND], ~(1 << (t % 31)));   // clears bits 0..30 as t covers them
    atomicOr(&r[OR], 1 << (t % 31));
    atomicXor(&r[XOR], t);
}

__global__ void float_atomics(float* f, double* d, unsigned long long* ull)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(f, 0.5f);           // exact: multiples of 0.5 far below 2^24
    atomicAdd(d, (double)t);
    atomicAdd(ull, (unsigned long long)t << 20);
    atomicMax(ull + 1, (unsigned long long)t * 3);
}

int main()
{
    const int blocks = 64, threads = 256, total = blocks * threads;
    int init[NINT] = {0, 0, -1, INT_MIN, INT_MAX, 0, 0, 0, -1, 0, 0};
    int* r = nullptr;
    unsigned* u = nullptr;
    CHECK(cudaMalloc(&r, sizeof(init)));
    CHECK(cudaMalloc(&u, 2 * sizeof(unsigned)));
    CHECK(cudaMemcpy(r, init, sizeof(init), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(u, 0, 2 * sizeof(unsigned)));
    int_atomics<<<blocks, threads>>>(r, u);
    CHECK_LAUNCH();
    int got[NINT];
    unsigned ugot[2];
    CHECK(cudaMemcpy(got, r, sizeof(got), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(ugot, u, sizeof(ugot), cudaMemcpyDeviceToHost));

    long long cas_sum = 0;
    int xor_all = 0;
    for (int t = 0; t < total; ++t) { cas_sum += t % 3; xor_all ^= t; }
    unsigned inc = 0, dec = 0;
    for (int t = 0; t < total; ++t) {
        inc = inc >= 17 ? 0 : inc + 1;
        dec = (dec == 0 || dec > 137) ? 137 : dec - 1;
    }
    EXPECT(got[ADD] == 10 * total, "add %d", got[ADD]);
    EXPECT(got[SUB] == -10 * total, "sub %d", got[SUB]);
    EXPECT(got[EXCH] >= 0 && got[EXCH] < total, "exch %d", got[EXCH]);
    EXPECT(got[MAX] == total - 1, "max %d", got[MAX]);
    EXPECT(got[MIN] == 0, "min %d", got[MIN]);
    EXPECT(ugot[0] == inc, "inc %u, expected %u", ugot[0], inc);
    EXPECT(ugot[1] == dec, "dec %u, expected %u", ugot[1], dec);
    EXPECT(got[CAS] == cas_sum, "cas %d, expected %lld", got[CAS], cas_sum);
    EXPECT(got[AND] == INT_MIN, "and %#x", got[AND]);        // only the sign bit survives
    EXPECT(got[OR] == INT_MAX, "or %#x", got[OR]);           // bits 0..30 all set
    EXPECT(got[XOR] == xor_all, "xor %d, expected %d", got[XOR], xor_all);

    float* f = nullptr;
    double* d = nullptr;
    unsigned long long* ull = nullptr;
    CHECK(cudaMalloc(&f, sizeof(float)));
    CHECK(cudaMalloc(&d, sizeof(double)));
    CHECK(cudaMalloc(&ull, 2 * sizeof(unsigned long long)));
    CHECK(cudaMemset(f, 0, sizeof(float)));
    CHECK(cudaMemset(d, 0, sizeof(double)));
    CHECK(cudaMemset(ull, 0, 2 * sizeof(unsigned long long)));
    float_atomics<<<blocks, threads>>>(f, d, ull);
    CHECK_LAUNCH();
    float hf = 0;
    double hd = 0;
    unsigned long long hu[2];
    CHECK(cudaMemcpy(&hf, f, sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&hd, d, sizeof(double), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hu, ull, sizeof(hu), cudaMemcpyDeviceToHost));
    double dsum = (double)total * (total - 1) / 2;
    EXPECT(hf == 0.5f * total, "float add %g", hf);
    EXPECT(hd == dsum, "double add %.1f, expected %.1f", hd, dsum); // integers: exact in double
    EXPECT(hu[0] == ((unsigned long long)dsum << 20), "u64 add %llu", hu[0]);
    EXPECT(hu[1] == 3ull * (total - 1), "u64 max %llu", hu[1]);

    CHECK(cudaFree(r)); CHECK(cudaFree(u)); CHECK(cudaFree(f)); CHECK(cudaFree(d)); CHECK(cudaFree(ull));
    std::printf("atomics: %d threads, 15 operations: PASS\n", total);
    return 0;
}
