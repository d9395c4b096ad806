// multi_file: one program from three files. This host-only C++ file owns main and the runtime
// calls; histogram.cu and transform.cu each hold a kernel and a launcher. Build:
//   nvcc -cudart shared main.cpp histogram.cu transform.cu -o multi_file
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#include <vector>
#include "../check.h"
#include "ops.h"

int main()
{
    const int n = 100000, bins = 64, modulus = bins;
    std::vector<int> h(n);
    for (int i = 0; i < n; ++i) h[i] = (i * 7 + 3) % 1000;
    int *d_in, *d_sq;
    unsigned* d_counts;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_sq, n * sizeof(int)));
    CHECK(cudaMalloc(&d_counts, bins * sizeof(unsigned)));
    CHECK(cudaMemcpy(d_in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_counts, 0, bins * sizeof(unsigned)));

    launch_square_mod(d_in, d_sq, n, modulus); // from transform.cu
    CHECK_LAUNCH();
    launch_histogram(d_sq, n, d_counts, bins); // from histogram.cu
    CHECK_LAUNCH();

    std::vector<unsigned> counts(bins);
    CHECK(cudaMemcpy(counts.data(), d_counts, bins * sizeof(unsigned), cudaMemcpyDeviceToHost));
    std::vector<unsigned> want(bins, 0);
    for (int v : h) ++want[v * v % modulus];
    unsigned total = 0;
    for (int b = 0; b < bins; ++b) {
        EXPECT(counts[b] == want[b], "bin %d: %u, expected %u", b, counts[b], want[b]);
        total += counts[b];
    }
    EXPECT(total == (unsigned)n, "total %u", total);
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_sq));
    CHECK(cudaFree(d_counts));
    std::printf("multi_file: kernels from 2 .cu files driven from a .cpp file: PASS\n");
    return 0;
}
