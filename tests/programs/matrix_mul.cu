// matrix_mul: C = A * B with a shared-memory tiled kernel, A 320x320 and B 320x640 (so C is
// 320x640), launched 300 times and timed with events, as in the classic sample's sizes. The
// result is checked against a double-precision product on the host.
#include <cmath>
#include <vector>
#include "check.h"

template <int TILE> __global__ void matmul(float* C, const float* A, const float* B, int wA, int wB)
{
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int k0 = 0; k0 < wA; k0 += TILE) {
        As[threadIdx.y][threadIdx.x] = A[row * wA + k0 + threadIdx.x];
        Bs[threadIdx.y][threadIdx.x] = B[(k0 + threadIdx.y) * wB + col];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    C[row * wB + col] = acc;
}

int main()
{
    constexpr int TILE = 32;
    const int hA = 10 * TILE, wA = 10 * TILE;   // 320 x 320
    const int hB = wA, wB = 20 * TILE;          // 320 x 640
    const int iterations = 300;
    std::vector<float> A(hA * wA), B(hB * wB), C(hA * wB);
    unsigned s = 2024;
    auto rnd = [&]() { s = s * 1103515245u + 12345u; return ((s >> 9) & 0xffff) / 65536.0f - 0.5f; };
    for (auto& v : A) v = rnd();
    for (auto& v : B) v = rnd();

    float *dA, *dB, *dC;
    CHECK(cudaMalloc(&dA, A.size() * sizeof(float)));
    CHECK(cudaMalloc(&dB, B.size() * sizeof(float)));
    CHECK(cudaMalloc(&dC, C.size() * sizeof(float)));
    CHECK(cudaMemcpy(dA, A.data(), A.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, B.data(), B.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dC, 0xff, C.size() * sizeof(float))); // NaN until written

    dim3 threads(TILE, TILE), grid(wB / TILE, hA / TILE);
    matmul<TILE><<<grid, threads>>>(dC, dA, dB, wA, wB); // warm-up
    CHECK_LAUNCH();
    CHECK(cudaDeviceSynchronize());

    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start));
    for (int it = 0; it < iterations; ++it) matmul<TILE><<<grid, threads>>>(dC, dA, dB, wA, wB);
    CHECK_LAUNCH();
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    const double flops = 2.0 * hA * wA * wB;
    const double per = ms / iterations;
    std::printf("%d launches of %dx%d * %dx%d: %.4f ms each, %.2f GFLOP/s\n", iterations, hA, wA,
                hB, wB, per, flops * 1e-6 / per);

    CHECK(cudaMemcpy(C.data(), dC, C.size() * sizeof(float), cudaMemcpyDeviceToHost));
    double err2 = 0, ref2 = 0;
    for (int i = 0; i < hA; ++i)
        for (int j = 0; j < wB; ++j) {
            double r = 0;
            for (int k = 0; k < wA; ++k) r += (double)A[i * wA + k] * B[k * wB + j];
            double e = C[i * wB + j] - r;
            EXPECT(std::isfinite(C[i * wB + j]), "C[%d][%d] not written", i, j);
            err2 += e * e;
            ref2 += r * r;
        }
    double rel = std::sqrt(err2 / ref2);
    EXPECT(rel < 1e-5, "relative error %g", rel);
    std::printf("relative error %.2e\n", rel);

    CHECK(cudaEventDestroy(start)); CHECK(cudaEventDestroy(stop));
    CHECK(cudaFree(dA)); CHECK(cudaFree(dB)); CHECK(cudaFree(dC));
    std::printf("matrix_mul: PASS\n");
    return 0;
}
