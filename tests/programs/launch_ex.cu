// launch_ex: launches through cudaLaunchKernel (argument array) and cudaLaunchKernelEx with a
// cudaLaunchConfig_t and launch attributes: a stream priority, and the cooperative attribute that
// makes grid-wide synchronisation legal.
#include <cooperative_groups.h>
#include "check.h"

namespace cg = cooperative_groups;

__global__ void fill(int* out, int n, int base)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = base + i;
}

// Each block writes its id, the grid synchronises, and each block reads its neighbour's.
__global__ void neighbours(int* slots, int* seen)
{
    if (threadIdx.x == 0) slots[blockIdx.x] = (int)blockIdx.x * 10;
    cg::this_grid().sync();
    if (threadIdx.x == 0) seen[blockIdx.x] = slots[(blockIdx.x + 1) % gridDim.x];
}

int main()
{
    const int n = 3000, threads = 128, blocks = (n + threads - 1) / threads;
    int* d = nullptr;
    CHECK(cudaMalloc(&d, n * sizeof(int)));
    int h[n];
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));

    // 1. cudaLaunchKernel with an argument array.
    int nn = n, base = 100;
    void* args[] = {&d, &nn, &base};
    CHECK(cudaLaunchKernel((const void*)fill, dim3(blocks), dim3(threads), args, 0, s));
    CHECK(cudaMemcpyAsync(h, d, sizeof(h), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; ++i) EXPECT(h[i] == 100 + i, "cudaLaunchKernel: h[%d] = %d", i, h[i]);

    // 2. cudaLaunchKernelEx with a priority attribute, through the type-checked template.
    int lowest = 0, greatest = 0;
    CHECK(cudaDeviceGetStreamPriorityRange(&lowest, &greatest));
    cudaLaunchAttribute attrs[2] = {};
    attrs[0].id = cudaLaunchAttributePriority;
    attrs[0].val.priority = greatest;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(blocks);
    cfg.blockDim = dim3(threads);
    cfg.dynamicSmemBytes = 0;
    cfg.stream = s;
    cfg.attrs = attrs;
    cfg.numAttrs = 1;
    CHECK(cudaLaunchKernelEx(&cfg, fill, d, n, 7));
    CHECK(cudaMemcpyAsync(h, d, sizeof(h), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; ++i) EXPECT(h[i] == 7 + i, "cudaLaunchKernelEx: h[%d] = %d", i, h[i]);

    // 3. The cooperative attribute, with a grid that fits on the device at once.
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int coop_blocks = sms;
    int *slots, *seen;
    CHECK(cudaMalloc(&slots, coop_blocks * sizeof(int)));
    CHECK(cudaMalloc(&seen, coop_blocks * sizeof(int)));
    attrs[1].id = cudaLaunchAttributeCooperative;
    attrs[1].val.cooperative = 1;
    cfg.gridDim = dim3(coop_blocks);
    cfg.blockDim = dim3(64);
    cfg.attrs = attrs;
    cfg.numAttrs = 2;
    CHECK(cudaLaunchKernelEx(&cfg, neighbours, slots, seen));
    int* hs = new int[coop_blocks];
    CHECK(cudaMemcpyAsync(hs, seen, coop_blocks * sizeof(int), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    for (int b = 0; b < coop_blocks; ++b)
        EXPECT(hs[b] == ((b + 1) % coop_blocks) * 10, "block %d saw %d", b, hs[b]);

    // 4. The C form, cudaLaunchKernelExC, with an argument array and no attributes.
    cfg.gridDim = dim3(blocks);
    cfg.blockDim = dim3(threads);
    cfg.numAttrs = 0;
    cfg.attrs = nullptr;
    base = -50;
    CHECK(cudaLaunchKernelExC(&cfg, (const void*)fill, args));
    CHECK(cudaMemcpyAsync(h, d, sizeof(h), cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; ++i) EXPECT(h[i] == -50 + i, "cudaLaunchKernelExC: h[%d] = %d", i, h[i]);

    delete[] hs;
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d)); CHECK(cudaFree(slots)); CHECK(cudaFree(seen));
    std::printf("launch_ex: cudaLaunchKernel, cudaLaunchKernelEx (priority, cooperative), "
                "cudaLaunchKernelExC: PASS\n");
    return 0;
}
