// vector_add: the first CUDA program. Adds two vectors of 50000 floats on the device and checks
// every element against the same sum on the host.
#include <cmath>
#include <vector>
#include "check.h"

__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

int main()
{
    const int n = 50000;
    const size_t bytes = n * sizeof(float);
    std::vector<float> a(n), b(n), c(n, -1.0f);
    for (int i = 0; i < n; ++i) {
        a[i] = std::sin(0.001f * i);
        b[i] = 0.5f * std::cos(0.003f * i) + 1.0f;
    }

    float *d_a = nullptr, *d_b = nullptr, *d_c = nullptr;
    CHECK(cudaMalloc(&d_a, bytes));
    CHECK(cudaMalloc(&d_b, bytes));
    CHECK(cudaMalloc(&d_c, bytes));
    CHECK(cudaMemcpy(d_a, a.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, b.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_c, 0xff, bytes)); // poison: NaNs, so an unwritten element fails the check

    const int threads = 256;
    const int blocks = (n + threads - 1) / threads;
    vector_add<<<blocks, threads>>>(d_a, d_b, d_c, n);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(c.data(), d_c, bytes, cudaMemcpyDeviceToHost));

    for (int i = 0; i < n; ++i) {
        float want = a[i] + b[i];
        EXPECT(c[i] == want, "c[%d] = %g, expected %g", i, c[i], want);
    }
    CHECK(cudaFree(d_a));
    CHECK(cudaFree(d_b));
    CHECK(cudaFree(d_c));
    std::printf("vector_add: %d elements, %d blocks of %d threads: PASS\n", n, blocks, threads);
    return 0;
}
