// cg_multiwarp: cooperative groups' tiles larger than a warp (thread_block_tile<128> and <64>,
// sm_80 and later), whose sync() keeps its barriers in the block's reserved shared memory
// (%reserved_smem_offset_1): each 128-thread tile sums its values through shared memory between
// tile.sync() calls, each 64-thread tile takes the maximum, and every result is checked on the host.
#include <cooperative_groups.h>
#include <vector>
#include "check.h"

namespace cg = cooperative_groups;

constexpr int threads = 512;

__global__ void tile_sums(const int* in, int* sums, int* maxima)
{
    __shared__ int values[threads];
    cg::thread_block block = cg::this_thread_block();
    const int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    values[threadIdx.x] = v;

    auto tile = cg::tiled_partition<128>(block);
    tile.sync();
    for (unsigned stride = tile.num_threads() / 2; stride > 0; stride /= 2) {
        if (tile.thread_rank() < stride) values[threadIdx.x] += values[threadIdx.x + stride];
        tile.sync();
    }
    if (tile.thread_rank() == 0)
        sums[blockIdx.x * tile.meta_group_size() + tile.meta_group_rank()] = values[threadIdx.x];
    block.sync();

    auto half = cg::tiled_partition<64>(block);
    values[threadIdx.x] = v;
    half.sync();
    for (unsigned stride = half.num_threads() / 2; stride > 0; stride /= 2) {
        if (half.thread_rank() < stride)
            values[threadIdx.x] = max(values[threadIdx.x], values[threadIdx.x + stride]);
        half.sync();
    }
    if (half.thread_rank() == 0)
        maxima[blockIdx.x * half.meta_group_size() + half.meta_group_rank()] = values[threadIdx.x];
}

int main()
{
    int major = 0;
    CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
    if (major < 8) {
        std::printf("cg_multiwarp: needs compute capability 8.0: waived\n");
        return 0;
    }
    const int blocks = 6, n = blocks * threads;
    std::vector<int> in(n);
    for (int i = 0; i < n; ++i) in[i] = (i * 37) % 101 - 50;
    int *d_in, *d_sums, *d_max;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_sums, n / 128 * sizeof(int)));
    CHECK(cudaMalloc(&d_max, n / 64 * sizeof(int)));
    CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    tile_sums<<<blocks, threads>>>(d_in, d_sums, d_max);
    CHECK_LAUNCH();
    std::vector<int> sums(n / 128), maxima(n / 64);
    CHECK(cudaMemcpy(sums.data(), d_sums, sums.size() * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(maxima.data(), d_max, maxima.size() * sizeof(int), cudaMemcpyDeviceToHost));
    for (int t = 0; t < n / 128; ++t) {
        int want = 0;
        for (int i = 0; i < 128; ++i) want += in[t * 128 + i];
        EXPECT(sums[t] == want, "tile of 128 number %d summed %d, expected %d", t, sums[t], want);
    }
    for (int t = 0; t < n / 64; ++t) {
        int want = in[t * 64];
        for (int i = 1; i < 64; ++i) want = std::max(want, in[t * 64 + i]);
        EXPECT(maxima[t] == want, "tile of 64 number %d: maximum %d, expected %d", t, maxima[t],
               want);
    }
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_sums));
    CHECK(cudaFree(d_max));
    std::printf("cg_multiwarp: %d tiles of 128 and %d of 64 threads: PASS\n", n / 128, n / 64);
    return 0;
}
