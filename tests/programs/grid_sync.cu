// grid_sync: a cooperative launch (cudaLaunchCooperativeKernel) of as many blocks as can be
// resident at once, with cooperative_groups grid-wide barriers between the phases of a sum:
// every block writes a partial sum, the grid synchronises, block 0 adds the partials, the grid
// synchronises again, and every thread then normalises its elements by the total.
#include <cooperative_groups.h>
#include <cmath>
#include <vector>
#include "check.h"

namespace cg = cooperative_groups;

__global__ void normalise(const float* in, float* out, float* partial, float* total, int n)
{
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();
    extern __shared__ float s[];

    float mine = 0;
    for (int i = grid.thread_rank(); i < n; i += grid.size()) mine += in[i];
    s[block.thread_rank()] = mine;
    block.sync();
    for (int stride = block.size() / 2; stride > 0; stride >>= 1) {
        if (block.thread_rank() < stride) s[block.thread_rank()] += s[block.thread_rank() + stride];
        block.sync();
    }
    if (block.thread_rank() == 0) partial[blockIdx.x] = s[0];

    grid.sync(); // every partial is written

    if (grid.thread_rank() == 0) {
        float t = 0;
        for (unsigned b = 0; b < gridDim.x; ++b) t += partial[b];
        *total = t;
    }

    grid.sync(); // the total is written

    float t = *total;
    for (int i = grid.thread_rank(); i < n; i += grid.size()) out[i] = in[i] / t;
}

int main()
{
    int dev = 0, coop = 0, sms = 0;
    CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    EXPECT(coop, "device %d does not support cooperative launches", dev);

    const int threads = 256;
    const size_t shared = threads * sizeof(float);
    int per_sm = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, normalise, threads, shared));
    EXPECT(per_sm >= 1, "no block fits");
    const int blocks = sms * per_sm;

    const int n = 1 << 20;
    std::vector<float> h(n);
    double total = 0;
    for (int i = 0; i < n; ++i) { h[i] = (float)((i * 37) % 101 + 1); total += h[i]; }
    float *in, *out, *partial, *d_total;
    CHECK(cudaMalloc(&in, n * sizeof(float)));
    CHECK(cudaMalloc(&out, n * sizeof(float)));
    CHECK(cudaMalloc(&partial, blocks * sizeof(float)));
    CHECK(cudaMalloc(&d_total, sizeof(float)));
    CHECK(cudaMemcpy(in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    int nn = n;
    void* args[] = {&in, &out, &partial, &d_total, &nn};
    CHECK(cudaLaunchCooperativeKernel((void*)normalise, blocks, threads, args, shared, 0));
    CHECK(cudaDeviceSynchronize());

    float got_total = 0;
    CHECK(cudaMemcpy(&got_total, d_total, sizeof(float), cudaMemcpyDeviceToHost));
    EXPECT(std::fabs(got_total - total) <= 1e-5 * total, "total %g, expected %g", got_total, total);
    std::vector<float> o(n);
    CHECK(cudaMemcpy(o.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        double want = h[i] / total;
        EXPECT(std::fabs(o[i] - want) <= 1e-5 * want, "out[%d] = %g, expected %g", i, o[i], want);
    }

    // One block more than can be resident is refused, not run into a deadlock.
    cudaError_t too_many = cudaLaunchCooperativeKernel((void*)normalise, blocks + 1, threads, args,
                                                       shared, 0);
    EXPECT(too_many == cudaErrorCooperativeLaunchTooLarge, "oversized launch: %s",
           cudaGetErrorName(too_many));
    cudaGetLastError();

    CHECK(cudaFree(in)); CHECK(cudaFree(out)); CHECK(cudaFree(partial)); CHECK(cudaFree(d_total));
    std::printf("grid_sync: %d blocks (%d per SM), two grid-wide barriers: PASS\n", blocks, per_sm);
    return 0;
}
