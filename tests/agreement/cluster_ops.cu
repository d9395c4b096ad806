// The emulator against the GPU on thread block clusters and distributed shared memory (sm_90): the
// companion of ops.cu and tensor_ops.cu, in their output format:
//
//   name kind v0 v1 ...        (each value in hex; every case here is `exact`)
//
// Three kinds of case:
// - what the runtime answers: the error codes of launches with cluster dimensions (a grid that is
//   not a multiple of the cluster, clusters past the portable size of 8, a cluster that disagrees
//   with the kernel's __cluster_dims__), the cluster attributes of kernels, and the occupancy
//   queries (cudaOccupancyMaxPotentialClusterSize, cudaOccupancyMaxActiveClusters);
// - the special registers each block of a cluster sees (%clusterid, %nclusterid, %cluster_ctaid,
//   %cluster_nctaid, %cluster_ctarank, %cluster_nctarank, %is_explicit_cluster), with clusters
//   from __cluster_dims__, from cudaLaunchKernelEx, from cuLaunchKernelEx, and with none;
// - distributed shared memory: blocks reading and writing each other's shared memory through
//   map_shared_rank (mapa on generic addresses) and through shared::cluster addresses (mapa,
//   ld/st/atom/red.shared::cluster, getctarank, isspacep), ordered by cluster barriers
//   (barrier.cluster.arrive/wait, .relaxed, .aligned) and fences.
//
// tests/agreement/cluster_h100.txt is this program's output on an H100 (driver 580.159.04, CUDA
// 13.0; the device machine gave an H100 when an H200 was asked for), for every case but the ones
// written after "Cases added after" below, which no GPU has run yet: run_emulated.py names them and
// leaves them out of the comparison until the reference is recorded again.
//
//   nvcc -arch=sm_90 -o cluster_ops tests/agreement/cluster_ops.cu -lcuda && ./cluster_ops out.txt
#include <cooperative_groups.h>
#include <cstdint>
#include <cstdio>
#include <cuda.h>
#include <string>
#include <vector>

namespace cg = cooperative_groups;

#define CHECK(call)                                                                              \
    do {                                                                                         \
        cudaError_t err_ = (call);                                                               \
        if (err_ != cudaSuccess) {                                                               \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                   \
                         cudaGetErrorString(err_));                                              \
            std::exit(1);                                                                        \
        }                                                                                        \
    } while (0)

static FILE* out_file;
static int cases;

static void line(const char* name, const std::vector<std::uint64_t>& values)
{
    std::fprintf(out_file, "%s exact", name);
    for (std::uint64_t v : values) std::fprintf(out_file, " %llx", (unsigned long long)v);
    std::fprintf(out_file, "\n");
    ++cases;
}

// [SECTION] Kernels

constexpr int kRegs = 20;  // values each block records in k_registers

__device__ void record_registers(unsigned* out)
{
    if (threadIdx.x + threadIdx.y + threadIdx.z != 0) return;
    unsigned v[kRegs];
    asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(v[0]));
    asm volatile("mov.u32 %0, %%clusterid.y;" : "=r"(v[1]));
    asm volatile("mov.u32 %0, %%clusterid.z;" : "=r"(v[2]));
    asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(v[3]));
    asm volatile("mov.u32 %0, %%nclusterid.y;" : "=r"(v[4]));
    asm volatile("mov.u32 %0, %%nclusterid.z;" : "=r"(v[5]));
    asm volatile("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(v[6]));
    asm volatile("mov.u32 %0, %%cluster_ctaid.y;" : "=r"(v[7]));
    asm volatile("mov.u32 %0, %%cluster_ctaid.z;" : "=r"(v[8]));
    asm volatile("mov.u32 %0, %%cluster_nctaid.x;" : "=r"(v[9]));
    asm volatile("mov.u32 %0, %%cluster_nctaid.y;" : "=r"(v[10]));
    asm volatile("mov.u32 %0, %%cluster_nctaid.z;" : "=r"(v[11]));
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(v[12]));
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(v[13]));
    asm volatile("{ .reg .pred p; mov.pred p, %%is_explicit_cluster; selp.u32 %0, 1, 0, p; }"
                 : "=r"(v[14]));
    cg::cluster_group cl = cg::this_cluster();
    v[15] = cl.block_rank();
    v[16] = cl.num_blocks();
    v[17] = cl.block_index().x + 16 * cl.block_index().y + 256 * cl.block_index().z;
    v[18] = unsigned(cg::this_grid().cluster_rank());
    v[19] = unsigned(cg::this_grid().num_clusters());
    const unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    for (int i = 0; i < kRegs; ++i) out[b * kRegs + i] = v[i];
}

__global__ void k_registers(unsigned* out) { record_registers(out); }
__global__ void __cluster_dims__(2, 2, 1) k_registers_dims(unsigned* out) { record_registers(out); }
__global__ void __cluster_dims__(2, 1, 1) k_dims2(unsigned* out) { record_registers(out); }

// Each block fills its shared array, the cluster meets, and each block reads its right neighbour's
// (rank + 1) through a generic pointer from map_shared_rank.
__global__ void k_ring(unsigned* out)
{
    __shared__ unsigned s[128];
    cg::cluster_group cl = cg::this_cluster();
    const unsigned rank = cl.block_rank();
    s[threadIdx.x] = rank * 1000 + threadIdx.x * 3;
    cl.sync();
    const unsigned* other = cl.map_shared_rank(s, (rank + 1) % cl.num_blocks());
    const unsigned v = other[(threadIdx.x * 5) % blockDim.x];
    cl.sync();  // the neighbour's shared memory must outlive the read
    out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}

// Each block writes into every other block's shared memory (a slot per writer), then reads its own.
__global__ void k_scatter(unsigned* out)
{
    extern __shared__ unsigned slots[];  // cluster size x blockDim.x
    cg::cluster_group cl = cg::this_cluster();
    const unsigned rank = cl.block_rank(), n = cl.num_blocks();
    for (unsigned r = 0; r < n; ++r) {
        unsigned* remote = cl.map_shared_rank(slots, r);
        remote[rank * blockDim.x + threadIdx.x] = (rank << 16) | (threadIdx.x << 4) | r;
    }
    cl.sync();
    const unsigned b = blockIdx.x + gridDim.x * blockIdx.y;
    for (unsigned i = threadIdx.x; i < n * blockDim.x; i += blockDim.x)
        out[b * n * blockDim.x + i] = slots[i];
}

// Atomics on another block's shared memory: every thread of the cluster updates rank 0's words.
__global__ void k_atomics(unsigned* out)
{
    __shared__ unsigned w[6];
    cg::cluster_group cl = cg::this_cluster();
    if (threadIdx.x < 6) w[threadIdx.x] = threadIdx.x == 2 ? 0xffffffffu : threadIdx.x == 5 ? 7 : 0;
    cl.sync();
    unsigned* r0 = cl.map_shared_rank(w, 0);
    const unsigned t = cl.block_rank() * blockDim.x + threadIdx.x;
    atomicAdd(&r0[0], t + 1);
    atomicMax(&r0[1], (t * 7919u) % 1000u);
    atomicMin(&r0[2], (t * 104729u) % 5000u + 3);
    atomicOr(&r0[3], 1u << (t % 32));
    atomicXor(&r0[4], t * 0x9e3779b9u);
    if (t == 5) atomicCAS(&r0[5], 7u, 99u);  // succeeds: nobody else touches word 5
    if (t == 6) atomicCAS(&r0[5], 8u, 55u);  // fails: word 5 is never 8
    cl.sync();
    if (cl.block_rank() == 0 && threadIdx.x < 6) out[blockIdx.x / cl.num_blocks() * 6 + threadIdx.x] = w[threadIdx.x];
    cl.sync();
}

// The PTX forms directly: mapa.shared::cluster, ld/st/atom/red.shared::cluster, getctarank on
// both address kinds, isspacep.shared::cta and ::cluster on local and remote generic addresses.
__global__ void k_ptx_forms(unsigned* out)
{
    __shared__ unsigned s[64];
    unsigned rank, n;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(n));
    s[threadIdx.x] = 0;
    asm volatile("barrier.cluster.arrive.aligned; barrier.cluster.wait.aligned;" ::: "memory");
    const unsigned target = (rank + n - 1) % n;
    const unsigned local = unsigned(__cvta_generic_to_shared(&s[threadIdx.x]));
    unsigned remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(local), "r"(target));
    asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(remote), "r"(rank * 100 + threadIdx.x)
                 : "memory");
    unsigned own_rank_of_remote, old;
    asm volatile("getctarank.shared::cluster.u32 %0, %1;" : "=r"(own_rank_of_remote) : "r"(remote));
    asm volatile("barrier.cluster.arrive.release; barrier.cluster.wait.acquire;" ::: "memory");
    // Everyone adds to word 0 of the block after it, and reduces into word 1.
    unsigned w0, w1;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
                 : "=r"(w0)
                 : "r"(unsigned(__cvta_generic_to_shared(&s[0]))), "r"((rank + 1) % n));
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
                 : "=r"(w1)
                 : "r"(unsigned(__cvta_generic_to_shared(&s[1]))), "r"((rank + 1) % n));
    asm volatile("barrier.cluster.arrive; barrier.cluster.wait;" ::: "memory");
    asm volatile("atom.shared::cluster.add.u32 %0, [%1], %2;" : "=r"(old) : "r"(w0), "r"(1u) : "memory");
    asm volatile("red.shared::cluster.add.u32 [%0], %1;" ::"r"(w1), "r"(threadIdx.x) : "memory");
    asm volatile("fence.acq_rel.cluster;" ::: "memory");
    asm volatile("barrier.cluster.arrive; barrier.cluster.wait;" ::: "memory");
    unsigned v;
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(local));  // own, as ::cta
    const void* gremote = cg::this_cluster().map_shared_rank(&s[threadIdx.x], target);
    unsigned g_rank, is_cluster_l, is_cluster_r, is_cta_l, is_cta_r;
    asm volatile("getctarank.u64 %0, %1;" : "=r"(g_rank) : "l"(gremote));
    asm volatile("{ .reg .pred p; isspacep.shared::cluster p, %1; selp.u32 %0, 1, 0, p; }"
                 : "=r"(is_cluster_l)
                 : "l"(&s[threadIdx.x]));
    asm volatile("{ .reg .pred p; isspacep.shared::cluster p, %1; selp.u32 %0, 1, 0, p; }"
                 : "=r"(is_cluster_r)
                 : "l"(gremote));
    asm volatile("{ .reg .pred p; isspacep.shared::cta p, %1; selp.u32 %0, 1, 0, p; }"
                 : "=r"(is_cta_l)
                 : "l"(&s[threadIdx.x]));
    asm volatile("{ .reg .pred p; isspacep.shared::cta p, %1; selp.u32 %0, 1, 0, p; }"
                 : "=r"(is_cta_r)
                 : "l"(gremote));
    unsigned* o = out + (blockIdx.x * blockDim.x + threadIdx.x) * 8;
    o[0] = v;
    o[1] = own_rank_of_remote;
    o[2] = g_rank;
    o[3] = is_cluster_l | is_cluster_r << 1 | is_cta_l << 2 | is_cta_r << 3;
    o[4] = threadIdx.x < 2 ? s[threadIdx.x] : 0;  // words 0 and 1 after the others' updates
    o[5] = old < 64 ? 1 : 0;  // atom returned an old value in range (the order is the hardware's)
    o[6] = rank;
    o[7] = target;
    asm volatile("barrier.cluster.arrive; barrier.cluster.wait;" ::: "memory");
}

// Split arrive/wait with work between (relaxed arrive, then a fence before the flag is read).
__global__ void k_split_barrier(unsigned* out)
{
    __shared__ unsigned flag[2];
    cg::cluster_group cl = cg::this_cluster();
    const unsigned rank = cl.block_rank(), n = cl.num_blocks();
    if (threadIdx.x == 0) flag[0] = flag[1] = 0;
    cl.sync();
    unsigned* next = cl.map_shared_rank(flag, (rank + 1) % n);
    if (threadIdx.x == 0) next[0] = rank + 10;
    asm volatile("barrier.cluster.arrive.release;" ::: "memory");
    unsigned busy = 0;
    for (unsigned i = 0; i < 64; ++i) busy += i * threadIdx.x;  // independent work
    asm volatile("barrier.cluster.wait;" ::: "memory");
    unsigned a = flag[0];
    cl.sync();
    if (threadIdx.x == 0) next[1] = a * 2;
    // A relaxed arrive orders nothing: the fence before it releases the store.
    asm volatile("fence.acq_rel.cluster;" ::: "memory");
    asm volatile("barrier.cluster.arrive.relaxed.aligned;" ::: "memory");
    asm volatile("barrier.cluster.wait.aligned;" ::: "memory");
    asm volatile("fence.acq_rel.cluster;" ::: "memory");
    out[(blockIdx.x * blockDim.x + threadIdx.x) * 3 + 0] = a;
    out[(blockIdx.x * blockDim.x + threadIdx.x) * 3 + 1] = flag[1];
    out[(blockIdx.x * blockDim.x + threadIdx.x) * 3 + 2] = busy;
    cl.sync();
}

// The Programming Guide's distributed-shared-memory histogram: the bins are spread over the
// cluster's blocks, each block adds its inputs into whichever block holds the bin.
__global__ void k_histogram(unsigned* bins, const unsigned* input, unsigned count, unsigned nbins)
{
    extern __shared__ unsigned smem[];
    cg::cluster_group cl = cg::this_cluster();
    const unsigned per_block = nbins / cl.num_blocks();
    for (unsigned i = threadIdx.x; i < per_block; i += blockDim.x) smem[i] = 0;
    cl.sync();
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += blockDim.x * gridDim.x) {
        const unsigned bin = input[i] % nbins;
        unsigned* dst = cl.map_shared_rank(smem, bin / per_block);
        atomicAdd(dst + bin % per_block, 1);
    }
    cl.sync();
    unsigned* lbins = bins + (blockIdx.x / cl.num_blocks()) * nbins;
    for (unsigned i = threadIdx.x; i < per_block; i += blockDim.x)
        atomicAdd(&lbins[cl.block_rank() * per_block + i], smem[i]);
}

// A sum over the cluster: each block reduces its part, rank 0 gathers the partial sums.
__global__ void k_reduce(unsigned* out, const unsigned* input)
{
    __shared__ unsigned partial;
    cg::cluster_group cl = cg::this_cluster();
    if (threadIdx.x == 0) partial = 0;
    __syncthreads();
    atomicAdd(&partial, input[blockIdx.x * blockDim.x + threadIdx.x]);
    cl.sync();
    if (cl.block_rank() == 0 && threadIdx.x == 0) {
        unsigned total = 0;
        for (unsigned r = 0; r < cl.num_blocks(); ++r) total += *cl.map_shared_rank(&partial, r);
        out[blockIdx.x / cl.num_blocks()] = total;
    }
    cl.sync();
}

__global__ void k_plain(unsigned*) {}
__global__ void k_plain2(unsigned*) {}
__global__ void k_attr(unsigned* out) { record_registers(out); }  // given a cluster size at run time

// [SECTION] Host

static cudaLaunchConfig_t config(dim3 grid, dim3 block, dim3 cluster, size_t smem,
                                 cudaLaunchAttribute* attr)
{
    cudaLaunchConfig_t c = {};
    c.gridDim = grid;
    c.blockDim = block;
    c.dynamicSmemBytes = smem;
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = cluster.x;
    attr[0].val.clusterDim.y = cluster.y;
    attr[0].val.clusterDim.z = cluster.z;
    c.attrs = attr;
    c.numAttrs = 1;
    return c;
}

// The error a launch answers (and what cudaGetLastError says after it), the device left usable.
template <class... Args>
static std::uint64_t launch_error(void (*k)(Args...), dim3 grid, dim3 block, dim3 cluster,
                                  size_t smem, Args... args)
{
    cudaLaunchAttribute attr[1];
    cudaLaunchConfig_t c = config(grid, block, cluster, smem, attr);
    const cudaError_t e = cudaLaunchKernelEx(&c, k, args...);
    const cudaError_t last = cudaGetLastError();
    const cudaError_t sync = cudaDeviceSynchronize();
    return std::uint64_t(e) | std::uint64_t(last) << 16 | std::uint64_t(sync) << 32;
}

template <class... Args>
static void launch(void (*k)(Args...), dim3 grid, dim3 block, dim3 cluster, size_t smem,
                   Args... args)
{
    cudaLaunchAttribute attr[1];
    cudaLaunchConfig_t c = config(grid, block, cluster, smem, attr);
    CHECK(cudaLaunchKernelEx(&c, k, args...));
    CHECK(cudaDeviceSynchronize());
}

static std::vector<std::uint64_t> fetch(const unsigned* d, size_t n)
{
    std::vector<unsigned> h(n);
    CHECK(cudaMemcpy(h.data(), d, n * 4, cudaMemcpyDeviceToHost));
    return std::vector<std::uint64_t>(h.begin(), h.end());
}

int main(int argc, char** argv)
{
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s out.txt\n", argv[0]);
        return 2;
    }
    out_file = std::fopen(argv[1], "w");
    if (!out_file) {
        std::perror(argv[1]);
        return 1;
    }
    unsigned* d;
    const size_t words = 1 << 16;
    CHECK(cudaMalloc(&d, words * 4));
    auto clear = [&] { CHECK(cudaMemset(d, 0, words * 4)); };

    // Launch validation. The cases from here to the distributed-shared-memory ones are the
    // sequence cluster_h100.txt was recorded with; they share k_plain, whose attributes each
    // case leaves as the next finds them (a non-portable value of 2, then a required width of 2).
    line("launch_errors",
         {launch_error(k_plain, dim3(3), dim3(32), dim3(2), 0, d),          // grid not a multiple
          launch_error(k_plain, dim3(4, 3), dim3(32), dim3(1, 2), 0, d),    // in y
          launch_error(k_plain, dim3(16), dim3(32), dim3(16), 0, d),        // past 8, portable
          launch_error(k_plain, dim3(9), dim3(32), dim3(9), 0, d),          // 9
          launch_error(k_plain, dim3(8), dim3(32), dim3(8), 0, d),          // 8: fine
          launch_error(k_plain, dim3(8), dim3(32), dim3(2, 2, 2), 0, d),    // 2x2x2, grid 8x1x1
          launch_error(k_plain, dim3(1), dim3(32), dim3(1), 0, d),          // 1: fine
          launch_error(k_plain, dim3(4), dim3(32), dim3(0, 1, 1), 0, d),    // 0
          launch_error(k_plain, dim3(4), dim3(1024), dim3(4), 200 * 1024, d),
          launch_error(k_plain, dim3(8), dim3(1024), dim3(8), 0, d),
          launch_error(k_dims2, dim3(4), dim3(32), dim3(4), 0, d),          // against __cluster_dims__
          launch_error(k_dims2, dim3(4), dim3(32), dim3(2), 0, d),          // the same: fine
          launch_error(k_dims2, dim3(4), dim3(32), dim3(1), 0, d)});        // 1 against 2
    {
        // A kernel with __cluster_dims__ launched with <<<>>>: the grid must be a multiple.
        std::vector<std::uint64_t> v;
        k_dims2<<<3, 32>>>(d);
        v.push_back(cudaGetLastError());
        v.push_back(cudaDeviceSynchronize());
        k_dims2<<<4, 32>>>(d);
        v.push_back(cudaGetLastError());
        v.push_back(cudaDeviceSynchronize());
        line("launch_cluster_dims_chevrons", v);
    }
    {
        // Non-portable sizes, allowed per kernel (left at 2 for the cases after).
        std::vector<std::uint64_t> v;
        v.push_back(cudaFuncSetAttribute(k_plain, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
        v.push_back(launch_error(k_plain, dim3(16), dim3(32), dim3(16), 0, d));
        v.push_back(launch_error(k_plain, dim3(32), dim3(32), dim3(32), 0, d));
        v.push_back(launch_error(k_plain, dim3(16), dim3(32), dim3(4, 4), 0, d));  // grid 16x1
        v.push_back(launch_error(k_plain, dim3(12), dim3(32), dim3(12), 0, d));
        v.push_back(cudaFuncSetAttribute(k_plain, cudaFuncAttributeNonPortableClusterSizeAllowed, 0));
        v.push_back(launch_error(k_plain, dim3(16), dim3(32), dim3(16), 0, d));
        v.push_back(cudaFuncSetAttribute(k_plain, cudaFuncAttributeNonPortableClusterSizeAllowed, 2));
        cudaGetLastError();
        line("launch_nonportable", v);
    }
    {
        // The kernels' cluster attributes; then a required width of 2 set on k_plain at run time.
        std::vector<std::uint64_t> v;
        for (const void* k : {(const void*)k_plain, (const void*)k_dims2, (const void*)k_registers_dims}) {
            cudaFuncAttributes fa;
            CHECK(cudaFuncGetAttributes(&fa, k));
            v.push_back(fa.clusterDimMustBeSet);
            v.push_back(fa.requiredClusterWidth);
            v.push_back(fa.requiredClusterHeight);
            v.push_back(fa.requiredClusterDepth);
            v.push_back(fa.clusterSchedulingPolicyPreference);
            v.push_back(fa.nonPortableClusterSizeAllowed);
        }
        std::uint64_t e = cudaFuncSetAttribute(k_plain, cudaFuncAttributeRequiredClusterWidth, 2);
        v.push_back(e);
        cudaGetLastError();
        e = cudaFuncSetAttribute(k_plain, cudaFuncAttributeClusterSchedulingPolicyPreference,
                                 cudaClusterSchedulingPolicySpread);
        v.push_back(e);
        cudaFuncAttributes fa;
        CHECK(cudaFuncGetAttributes(&fa, k_plain));
        v.push_back(fa.clusterSchedulingPolicyPreference);
        v.push_back(fa.requiredClusterWidth);
        cudaGetLastError();
        line("func_attributes", v);
    }
    {
        // Occupancy of k_plain as the cases above left it: a required width of 2 (height and
        // depth never set), so only clusters of 2 x 1 x 1 are taken.
        std::vector<std::uint64_t> v;
        struct Shape { unsigned threads; size_t smem; };
        for (Shape s : {Shape{32, 0}, Shape{128, 0}, Shape{1024, 0}, Shape{256, 100 * 1024},
                        Shape{128, 200 * 1024}}) {
            cudaLaunchAttribute attr[1];
            cudaLaunchConfig_t c = config(dim3(64), dim3(s.threads), dim3(1), s.smem, attr);
            c.numAttrs = 0;
            if (s.smem > 48 * 1024)
                CHECK(cudaFuncSetAttribute(k_plain, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           int(s.smem)));
            int size = -1;
            std::uint64_t e = cudaOccupancyMaxPotentialClusterSize(&size, k_plain, &c);
            v.push_back(e);
            v.push_back(std::uint64_t(size));
            for (unsigned cs : {1u, 2u, 3u, 4u, 8u}) {
                c = config(dim3(cs * 8), dim3(s.threads), dim3(cs), s.smem, attr);
                int clusters = -1;
                e = cudaOccupancyMaxActiveClusters(&clusters, k_plain, &c);
                v.push_back(e);
                v.push_back(std::uint64_t(clusters));
            }
            cudaGetLastError();
        }
        CHECK(cudaFuncSetAttribute(k_plain, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
        for (unsigned threads : {128u, 1024u}) {
            cudaLaunchAttribute attr[1];
            cudaLaunchConfig_t c = config(dim3(64), dim3(threads), dim3(1), 0, attr);
            c.numAttrs = 0;
            int size = -1;
            v.push_back(cudaOccupancyMaxPotentialClusterSize(&size, k_plain, &c));
            v.push_back(std::uint64_t(size));
            c = config(dim3(16), dim3(threads), dim3(16), 0, attr);
            int clusters = -1;
            v.push_back(cudaOccupancyMaxActiveClusters(&clusters, k_plain, &c));
            v.push_back(std::uint64_t(clusters));
        }
        CHECK(cudaFuncSetAttribute(k_plain, cudaFuncAttributeNonPortableClusterSizeAllowed, 0));
        CHECK(cudaFuncSetAttribute(k_plain, cudaFuncAttributeMaxDynamicSharedMemorySize, 0));
        {
            // A kernel with compiled dims (2 x 2 x 1) and a grid of one row, which cannot hold them.
            cudaLaunchAttribute attr[1];
            cudaLaunchConfig_t c = config(dim3(64), dim3(128), dim3(1), 0, attr);
            c.numAttrs = 0;
            int size = -1;
            v.push_back(cudaOccupancyMaxPotentialClusterSize(&size, k_registers_dims, &c));
            v.push_back(std::uint64_t(size));
            int clusters = -1;
            v.push_back(cudaOccupancyMaxActiveClusters(&clusters, k_registers_dims, &c));
            v.push_back(std::uint64_t(clusters));
        }
        cudaGetLastError();
        line("occupancy", v);
    }

    // Special registers.
    clear();
    k_registers_dims<<<dim3(4, 4, 2), dim3(2, 3)>>>(d);
    CHECK(cudaDeviceSynchronize());
    line("registers_cluster_dims", fetch(d, 32 * kRegs));
    clear();
    launch(k_registers, dim3(6, 2, 4), dim3(4), dim3(3, 1, 2), 0, d);
    line("registers_launch_ex", fetch(d, 48 * kRegs));
    clear();
    launch(k_registers, dim3(4, 2, 1), dim3(4), dim3(1, 1, 1), 0, d);
    line("registers_explicit_1", fetch(d, 8 * kRegs));
    clear();
    k_registers<<<dim3(3, 2, 2), 32>>>(d);
    CHECK(cudaDeviceSynchronize());
    line("registers_no_cluster", fetch(d, 12 * kRegs));
    {
        // The driver API's launch (cuLaunchKernelEx; the program links libcuda).
        clear();
        cudaFunction_t f;
        CHECK(cudaGetFuncBySymbol(&f, (const void*)k_registers));
        CUlaunchAttribute attr[1];
        attr[0].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        attr[0].value.clusterDim.x = 2;
        attr[0].value.clusterDim.y = 1;
        attr[0].value.clusterDim.z = 2;
        CUlaunchConfig c = {};
        c.gridDimX = 4;
        c.gridDimY = 1;
        c.gridDimZ = 4;
        c.blockDimX = 8;
        c.blockDimY = 1;
        c.blockDimZ = 1;
        c.attrs = attr;
        c.numAttrs = 1;
        void* args[] = {&d};
        auto launch_ex = cuLaunchKernelEx;
        std::vector<std::uint64_t> v;
        v.push_back(launch_ex(&c, (CUfunction)f, args, nullptr));
        CHECK(cudaDeviceSynchronize());
        for (auto x : fetch(d, 16 * kRegs)) v.push_back(x);
        c.gridDimX = 3;  // not a multiple of 2
        v.push_back(launch_ex(&c, (CUfunction)f, args, nullptr));
        cudaGetLastError();
        line("registers_cu_launch_ex", v);
    }

    // Distributed shared memory.
    clear();
    launch(k_ring, dim3(8), dim3(128), dim3(4), 0, d);
    line("dsmem_ring_4", fetch(d, 8 * 128));
    clear();
    launch(k_ring, dim3(16), dim3(96), dim3(8), 0, d);
    line("dsmem_ring_8", fetch(d, 16 * 96));
    clear();
    launch(k_atomics, dim3(8), dim3(64), dim3(4), 0, d);
    line("dsmem_atomics", fetch(d, 2 * 6));
    clear();
    launch(k_ptx_forms, dim3(6), dim3(64), dim3(3), 0, d);
    line("dsmem_ptx_forms", fetch(d, 6 * 64 * 8));
    clear();
    launch(k_split_barrier, dim3(4), dim3(64), dim3(4), 0, d);
    line("cluster_split_barrier", fetch(d, 4 * 64 * 3));
    {
        const unsigned count = 20000, nbins = 256;
        std::vector<unsigned> in(count);
        std::uint64_t r = 12345;
        for (auto& x : in) {
            r = r * 6364136223846793005ull + 1442695040888963407ull;
            x = unsigned(r >> 33);
        }
        unsigned* din;
        CHECK(cudaMalloc(&din, count * 4));
        CHECK(cudaMemcpy(din, in.data(), count * 4, cudaMemcpyHostToDevice));
        clear();
        launch(k_histogram, dim3(8), dim3(128), dim3(4), nbins / 4 * 4, d, (const unsigned*)din,
               count, nbins);
        line("dsmem_histogram", fetch(d, 2 * nbins));
        clear();
        launch(k_reduce, dim3(16), dim3(256), dim3(8), 0, d, (const unsigned*)din);
        line("dsmem_reduce", fetch(d, 2));
        CHECK(cudaFree(din));
    }

    // Cases added after cluster_h100.txt was recorded, on kernels of their own (k_plain2, k_attr)
    // so that they change nothing above: run_emulated.py lists them as not compared until the
    // reference is recorded again on a GPU (docs/clusters.md).
    line("launch_errors_3d",
         {launch_error(k_plain2, dim3(2, 2, 2), dim3(32), dim3(2, 2, 2), 0, d),
          launch_error(k_plain2, dim3(8, 4), dim3(32), dim3(4, 4), 0, d)});
    {
        std::vector<std::uint64_t> v;
        v.push_back(cudaFuncSetAttribute(k_plain2, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
        v.push_back(launch_error(k_plain2, dim3(8, 4), dim3(32), dim3(4, 4), 0, d));
        v.push_back(launch_error(k_plain2, dim3(4, 2, 2), dim3(32), dim3(4, 2, 2), 0, d));
        v.push_back(cudaFuncSetAttribute(k_plain2, cudaFuncAttributeNonPortableClusterSizeAllowed, 2));
        v.push_back(launch_error(k_plain2, dim3(16), dim3(32), dim3(16), 0, d));  // is 2 "allowed"?
        cudaFuncAttributes fa;
        CHECK(cudaFuncGetAttributes(&fa, k_plain2));
        v.push_back(fa.nonPortableClusterSizeAllowed);
        v.push_back(cudaFuncSetAttribute(k_plain2, cudaFuncAttributeNonPortableClusterSizeAllowed, 0));
        cudaGetLastError();
        line("launch_nonportable_2d", v);
    }
    {
        // A size given at run time (k_attr), one compiled in (k_dims2: not permitted).
        std::vector<std::uint64_t> v;
        v.push_back(cudaFuncSetAttribute(k_attr, cudaFuncAttributeRequiredClusterWidth, 2));
        v.push_back(cudaFuncSetAttribute(k_dims2, cudaFuncAttributeRequiredClusterWidth, 4));
        cudaGetLastError();
        cudaFuncAttributes fa;
        CHECK(cudaFuncGetAttributes(&fa, k_attr));
        v.push_back(fa.clusterDimMustBeSet);
        v.push_back(fa.requiredClusterWidth);
        v.push_back(fa.requiredClusterHeight);
        v.push_back(fa.requiredClusterDepth);
        CHECK(cudaFuncGetAttributes(&fa, k_dims2));
        v.push_back(fa.requiredClusterWidth);
        // Launches of k_attr: <<<>>> takes the width set; cudaLaunchKernelEx must agree with it.
        k_attr<<<3, 32>>>(d);
        v.push_back(cudaGetLastError());
        v.push_back(launch_error(k_attr, dim3(4), dim3(32), dim3(2), 0, d));
        v.push_back(launch_error(k_attr, dim3(4), dim3(32), dim3(4), 0, d));
        CHECK(cudaFuncSetAttribute(k_attr, cudaFuncAttributeRequiredClusterHeight, 1));
        CHECK(cudaFuncSetAttribute(k_attr, cudaFuncAttributeRequiredClusterDepth, 1));
        cudaLaunchAttribute attr[1];
        cudaLaunchConfig_t c = config(dim3(64), dim3(128), dim3(1), 0, attr);
        c.numAttrs = 0;
        int size = -1, clusters = -1;
        v.push_back(cudaOccupancyMaxPotentialClusterSize(&size, k_attr, &c));
        v.push_back(std::uint64_t(size));
        v.push_back(cudaOccupancyMaxActiveClusters(&clusters, k_attr, &c));
        v.push_back(std::uint64_t(clusters));
        cudaGetLastError();
        clear();
        k_attr<<<dim3(4, 2), 32>>>(d);
        v.push_back(cudaGetLastError());
        CHECK(cudaDeviceSynchronize());
        for (auto x : fetch(d, 8 * kRegs)) v.push_back(x);
        line("func_attributes_runtime", v);
    }
    {
        // Occupancy of a kernel with no cluster attributes set, and of one with compiled dims on
        // a grid that holds them.
        std::vector<std::uint64_t> v;
        for (unsigned threads : {64u, 512u}) {
            cudaLaunchAttribute attr[1];
            cudaLaunchConfig_t c = config(dim3(64), dim3(threads), dim3(1), 0, attr);
            c.numAttrs = 0;
            int size = -1;
            v.push_back(cudaOccupancyMaxPotentialClusterSize(&size, k_plain2, &c));
            v.push_back(std::uint64_t(size));
            for (unsigned cs : {1u, 2u, 4u, 8u}) {
                c = config(dim3(cs * 8), dim3(threads), dim3(cs), 0, attr);
                int clusters = -1;
                v.push_back(cudaOccupancyMaxActiveClusters(&clusters, k_plain2, &c));
                v.push_back(std::uint64_t(clusters));
            }
        }
        cudaLaunchAttribute attr[1];
        cudaLaunchConfig_t c = config(dim3(64, 2), dim3(128), dim3(1), 0, attr);
        c.numAttrs = 0;
        int size = -1, clusters = -1;
        v.push_back(cudaOccupancyMaxPotentialClusterSize(&size, k_registers_dims, &c));
        v.push_back(std::uint64_t(size));
        v.push_back(cudaOccupancyMaxActiveClusters(&clusters, k_registers_dims, &c));
        v.push_back(std::uint64_t(clusters));
        cudaGetLastError();
        line("occupancy_plain", v);
    }
    clear();
    launch(k_scatter, dim3(4, 2), dim3(64), dim3(2, 2), 4 * 64 * 4, d);
    line("dsmem_scatter_2x2", fetch(d, 8 * 4 * 64));
    std::fclose(out_file);
    CHECK(cudaFree(d));
    std::printf("cluster_ops: %d cases written to %s\n", cases, argv[1]);
    return 0;
}
