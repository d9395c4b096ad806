// cluster_launch: thread block clusters (sm_90) through the runtime: cudaLaunchKernelEx with a
// cluster dimension, a kernel compiled with __cluster_dims__, distributed shared memory (each block
// reads its neighbour's shared array through cluster.map_shared_rank), the launch checks a GPU
// makes (a grid that is not a multiple of the cluster, a cluster past the portable 8 blocks unless
// the kernel allows non-portable sizes) and the occupancy queries for clusters.
#include <cooperative_groups.h>
#include "check.h"

namespace cg = cooperative_groups;

__global__ void ring(unsigned* out)
{
    extern __shared__ unsigned s[];
    cg::cluster_group cluster = cg::this_cluster();
    const unsigned rank = cluster.block_rank();
    s[threadIdx.x] = blockIdx.x * 1000 + threadIdx.x;
    cluster.sync();
    const unsigned* next = cluster.map_shared_rank(s, (rank + 1) % cluster.num_blocks());
    const unsigned v = next[blockDim.x - 1 - threadIdx.x];
    cluster.sync();  // the neighbour's shared memory must outlive the read
    out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

__global__ void __cluster_dims__(2, 1, 1) pairs(unsigned* out)
{
    __shared__ unsigned word;
    cg::cluster_group cluster = cg::this_cluster();
    if (threadIdx.x == 0) word = 0;
    cluster.sync();
    atomicAdd(cluster.map_shared_rank(&word, 0), 1u);  // every thread of the pair counts at rank 0
    cluster.sync();
    if (threadIdx.x == 0 && cluster.block_rank() == 0) out[blockIdx.x / 2] = word;
}

static cudaError_t launch_ring(unsigned* out, unsigned blocks, unsigned cluster, unsigned threads)
{
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = cluster;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(blocks);
    config.blockDim = dim3(threads);
    config.dynamicSmemBytes = threads * sizeof(unsigned);
    config.attrs = attr;
    config.numAttrs = 1;
    return cudaLaunchKernelEx(&config, ring, out);
}

int main()
{
    const unsigned blocks = 16, threads = 64;
    unsigned* d_out;
    CHECK(cudaMalloc(&d_out, blocks * threads * sizeof(unsigned)));

    for (unsigned cluster : {2u, 4u, 8u}) {
        CHECK(cudaMemset(d_out, 0, blocks * threads * sizeof(unsigned)));
        CHECK(launch_ring(d_out, blocks, cluster, threads));
        CHECK(cudaDeviceSynchronize());
        unsigned out[blocks * threads];
        CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
        for (unsigned b = 0; b < blocks; ++b) {
            const unsigned first = b / cluster * cluster, next = first + (b - first + 1) % cluster;
            for (unsigned t = 0; t < threads; ++t)
                EXPECT(out[b * threads + t] == next * 1000 + (threads - 1 - t),
                       "cluster %u, block %u, thread %u read %u", cluster, b, t, out[b * threads + t]);
        }
    }

    // The launch checks.
    CHECK_IS(launch_ring(d_out, 6, 4, threads), cudaErrorInvalidClusterSize);  // 6 blocks, 4 a cluster
    CHECK_IS(cudaGetLastError(), cudaErrorInvalidClusterSize);
    CHECK_IS(launch_ring(d_out, 16, 16, threads), cudaErrorInvalidClusterSize);  // past 8, portable
    CHECK_IS(cudaGetLastError(), cudaErrorInvalidClusterSize);
    CHECK(cudaFuncSetAttribute(ring, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    CHECK(launch_ring(d_out, 16, 16, threads));  // allowed now
    CHECK(cudaDeviceSynchronize());
    CHECK_IS(launch_ring(d_out, 32, 32, threads), cudaErrorInvalidClusterSize);  // past 16
    CHECK_IS(cudaGetLastError(), cudaErrorInvalidClusterSize);

    // __cluster_dims__: a <<<>>> launch forms the clusters; a grid of 3 is refused.
    CHECK(cudaMemset(d_out, 0, blocks * threads * sizeof(unsigned)));
    pairs<<<blocks, threads>>>(d_out);
    CHECK_LAUNCH();
    CHECK(cudaDeviceSynchronize());
    unsigned counts[blocks / 2];
    CHECK(cudaMemcpy(counts, d_out, sizeof counts, cudaMemcpyDeviceToHost));
    for (unsigned c = 0; c < blocks / 2; ++c)
        EXPECT(counts[c] == 2 * threads, "cluster %u counted %u", c, counts[c]);
    pairs<<<3, threads>>>(d_out);
    CHECK_IS(cudaGetLastError(), cudaErrorInvalidClusterSize);
    cudaFuncAttributes attributes;
    CHECK(cudaFuncGetAttributes(&attributes, pairs));
    EXPECT(attributes.requiredClusterWidth == 2 && attributes.requiredClusterHeight == 1 &&
               attributes.requiredClusterDepth == 1,
           "pairs: required cluster %d x %d x %d", attributes.requiredClusterWidth,
           attributes.requiredClusterHeight, attributes.requiredClusterDepth);

    // Occupancy for clusters.
    CHECK(cudaFuncSetAttribute(ring, cudaFuncAttributeNonPortableClusterSizeAllowed, 0));
    cudaLaunchConfig_t config = {};
    config.gridDim = dim3(blocks);
    config.blockDim = dim3(threads);
    int size = 0;
    CHECK(cudaOccupancyMaxPotentialClusterSize(&size, ring, &config));
    EXPECT(size == 8, "cudaOccupancyMaxPotentialClusterSize: %d, expected 8", size);
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = 4;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    config.attrs = attr;
    config.numAttrs = 1;
    int clusters = 0;
    CHECK(cudaOccupancyMaxActiveClusters(&clusters, ring, &config));
    EXPECT(clusters > 0, "cudaOccupancyMaxActiveClusters: %d", clusters);

    CHECK(cudaFree(d_out));
    std::printf("cluster_launch: clusters of 2, 4, 8 and 16 blocks, distributed shared memory, "
                "launch checks, at most %d clusters of 4 at once: PASS\n", clusters);
    return 0;
}
