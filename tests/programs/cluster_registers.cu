// cluster_registers: the cluster special registers of sm_90 in a launch without cluster
// dimensions, where every block is a cluster of one: rank 0 of 1, its cluster's id is its own
// block index (PTX ISA, special registers %cluster_*, %clusterid, %nclusterid). Cooperative
// groups' this_cluster() reads them, so code written for clusters runs unclustered too.
#include <cooperative_groups.h>
#include "check.h"

namespace cg = cooperative_groups;

__global__ void ranks(unsigned* out)
{
    unsigned rank, count, cx, ncx, cidx, ncidx;
    asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(count));
    asm("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(cx));
    asm("mov.u32 %0, %%cluster_nctaid.x;" : "=r"(ncx));
    asm("mov.u32 %0, %%clusterid.x;" : "=r"(cidx));
    asm("mov.u32 %0, %%nclusterid.x;" : "=r"(ncidx));
    const unsigned b = blockIdx.x;
    if (threadIdx.x == 0) {
        unsigned* o = out + 8 * b;
        o[0] = rank;
        o[1] = count;
        o[2] = cx;
        o[3] = ncx;
        o[4] = cidx;
        o[5] = ncidx;
        o[6] = cg::this_cluster().block_rank();
        o[7] = cg::this_cluster().num_blocks();
    }
}

int main()
{
    const unsigned blocks = 5;
    unsigned* d_out;
    CHECK(cudaMalloc(&d_out, 8 * blocks * sizeof(unsigned)));
    ranks<<<blocks, 64>>>(d_out);
    CHECK_LAUNCH();
    unsigned out[8 * blocks];
    CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
    for (unsigned b = 0; b < blocks; ++b) {
        const unsigned* o = out + 8 * b;
        const unsigned want[8] = {0, 1, 0, 1, b, blocks, 0, 1};
        for (int k = 0; k < 8; ++k)
            EXPECT(o[k] == want[k], "block %u, value %d is %u, expected %u", b, k, o[k], want[k]);
    }
    CHECK(cudaFree(d_out));
    std::printf("cluster_registers: %u blocks, each a cluster of one: PASS\n", blocks);
    return 0;
}
