// Thread block clusters on the emulator (sm_90): small kernels compiled by NVRTC, launched with
// cluster dimensions. What a learner would notice: the special registers say where each block is
// in its cluster, blocks read and write each other's shared memory, the cluster barrier orders
// them, a launch the runtime would refuse is refused, and a wrong distributed-shared-memory access
// is a fault that names the line, the block and the thread. The bits an H100 gives are compared in
// tests/agreement/cluster_ops.cu.
#include "compiler/compiler.h"
#include "emulator/emu_backend.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

using namespace cudalab;

namespace {

const char* const source = R"(#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// Per block (thread 0): rank, cluster size, %cluster_ctaid.xyz, %clusterid.xyz, explicit.
__global__ void registers(unsigned* out, unsigned) {
    unsigned v[9];
    asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(v[0]));
    asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(v[1]));
    asm("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(v[2]));
    asm("mov.u32 %0, %%cluster_ctaid.y;" : "=r"(v[3]));
    asm("mov.u32 %0, %%clusterid.x;" : "=r"(v[4]));
    asm("mov.u32 %0, %%clusterid.y;" : "=r"(v[5]));
    asm("mov.u32 %0, %%nclusterid.x;" : "=r"(v[6]));
    asm("{ .reg .pred p; mov.pred p, %%is_explicit_cluster; selp.u32 %0, 1, 0, p; }" : "=r"(v[7]));
    v[8] = cg::this_cluster().block_rank();
    const unsigned b = blockIdx.x + gridDim.x * blockIdx.y;
    if (threadIdx.x == 0)
        for (int i = 0; i < 9; ++i) out[b * 9 + i] = v[i];
}

__global__ void __cluster_dims__(2, 1, 1) pairs(unsigned* out, unsigned) {
    unsigned r;
    asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    if (threadIdx.x == 0) out[blockIdx.x] = r + 10 * cg::this_cluster().num_blocks();
}

// Each block reads its right neighbour's shared array.
__global__ void ring(unsigned* out, unsigned) {
    __shared__ unsigned s[64];
    cg::cluster_group cl = cg::this_cluster();
    s[threadIdx.x] = blockIdx.x * 100 + threadIdx.x;
    cl.sync();
    const unsigned* next = cl.map_shared_rank(s, (cl.block_rank() + 1) % cl.num_blocks());
    const unsigned v = next[63 - threadIdx.x];
    cl.sync();
    out[blockIdx.x * 64 + threadIdx.x] = v;
}

// Every thread of the cluster counts at rank 0, through the shared::cluster PTX forms.
__global__ void count(unsigned* out, unsigned) {
    __shared__ unsigned word;
    cg::cluster_group cl = cg::this_cluster();
    if (threadIdx.x == 0) word = 0;
    cl.sync();
    unsigned remote, rank;
    asm("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(remote)
        : "r"(unsigned(__cvta_generic_to_shared(&word))));
    asm volatile("red.shared::cluster.add.u32 [%0], 1;" :: "r"(remote) : "memory");
    asm("getctarank.shared::cluster.u32 %0, %1;" : "=r"(rank) : "r"(remote));
    cl.sync();
    if (threadIdx.x == 0 && cl.block_rank() == 0) out[blockIdx.x / cl.num_blocks()] = word;
    if (threadIdx.x == 1) out[64 + blockIdx.x] = rank;
}

// The cluster-scope fences and barrier forms a Hopper kernel uses, around a write to rank 0.
__global__ void fences(unsigned* out, unsigned) {
    __shared__ unsigned s[64];
    cg::cluster_group cl = cg::this_cluster();
    s[threadIdx.x] = 0;
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("barrier.cluster.arrive.release.aligned; barrier.cluster.wait.acquire.aligned;" ::: "memory");
    asm volatile("fence.acq_rel.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    asm volatile("fence.proxy.async;" ::: "memory");
    if (cl.block_rank() == 1) cl.map_shared_rank(s, 0)[threadIdx.x] = threadIdx.x + 7;
    asm volatile("barrier.cluster.arrive.relaxed; barrier.cluster.wait;" ::: "memory");
    out[blockIdx.x * 64 + threadIdx.x] = s[threadIdx.x];
    cl.sync();
}

// Rank 1 fills rank 0's array and arrives on rank 0's mbarrier; rank 0 waits on it (a producer
// block and a consumer block).
__global__ void remote_arrive(unsigned* out, unsigned) {
    __shared__ unsigned long long bar;
    __shared__ unsigned data[64];
    cg::cluster_group cl = cg::this_cluster();
    const unsigned bar_addr = unsigned(__cvta_generic_to_shared(&bar));
    if (cl.block_rank() == 0 && threadIdx.x == 0)
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 64;" :: "r"(bar_addr) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    cl.sync();
    if (cl.block_rank() == 1) {
        cl.map_shared_rank(data, 0)[threadIdx.x] = threadIdx.x * 3 + blockIdx.x;
        unsigned remote;
        asm("mapa.shared::cluster.u32 %0, %1, 0;" : "=r"(remote) : "r"(bar_addr));
        asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];"
                     :: "r"(remote) : "memory");
    } else {
        unsigned done = 0;
        while (!done)
            asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 "
                         "p, [%1], 0; selp.u32 %0, 1, 0, p; }"
                         : "=r"(done) : "r"(bar_addr) : "memory");
        out[blockIdx.x * 64 + threadIdx.x] = data[threadIdx.x];
    }
    cl.sync();
}

__global__ void outside(unsigned* out, unsigned rank) {
    __shared__ unsigned s[64];
    cg::cluster_group cl = cg::this_cluster();
    s[threadIdx.x] = 1;
    cl.sync();
    out[threadIdx.x] = *cl.map_shared_rank(s + threadIdx.x, rank);  // FAULT(outside)
    cl.sync();
}

__global__ void exited(unsigned* out, unsigned) {
    __shared__ unsigned s[64];
    cg::cluster_group cl = cg::this_cluster();
    s[threadIdx.x] = 1;
    cl.sync();
    if (cl.block_rank() == 1) return;
    unsigned sum = 0;
    for (int i = 0; i < 1000; ++i)
        sum += *(volatile unsigned*)cl.map_shared_rank(s + threadIdx.x, 1);  // FAULT(exited)
    out[threadIdx.x] = sum;
}

// Rank 0's second warp waits at __syncthreads() for its first, which waits at the cluster barrier
// for the second: no block can go on.
__global__ void stuck(unsigned* out, unsigned) {
    cg::cluster_group cl = cg::this_cluster();
    if (cl.block_rank() == 0 && threadIdx.x >= 32) {
        __syncthreads();
        return;
    }
    cl.sync();  // FAULT(stuck)
    out[blockIdx.x] = 1;
}
)";

struct Run {
    LaunchResult result;
    std::vector<std::uint32_t> out;
};

Run run(const std::string& kernel, Dim3 grid, Dim3 block, Dim3 cluster, bool explicit_cluster,
        std::uint32_t arg = 0, bool trace = false) {
    static compiler::Compiler compiler;
    const auto compiled = compiler.compile(source, "cluster.cu");
    INFO(compiled->error_text());
    REQUIRE(compiled->ok);
    emu::EmuBackend backend;
    REQUIRE(backend.load(compiled).ok());
    DevicePtr dout = 0;
    const std::size_t words = 4096;
    REQUIRE(backend.allocate(words * 4, &dout).ok());
    Run r;
    r.out.assign(words, 0);
    REQUIRE(backend.copy_to_device(dout, r.out.data(), words * 4).ok());
    TraceOptions options;
    options.enabled = trace;
    LaunchConfig config{grid, block, 0};
    config.cluster = cluster;
    config.explicit_cluster = explicit_cluster;
    r.result = backend.launch(kernel, config, {KernelArg::of(dout), KernelArg::of(arg)}, options);
    if (r.result.status.ok()) REQUIRE(backend.copy_to_host(r.out.data(), dout, words * 4).ok());
    return r;
}

std::uint32_t line_of(const std::string& marker) {
    std::istringstream in(source);
    std::string text;
    for (std::uint32_t line = 1; std::getline(in, text); ++line)
        if (text.find("// FAULT(" + marker + ")") != std::string::npos) return line;
    return 0;
}

}  // namespace

TEST_CASE("clusters: each block's special registers place it in its cluster") {
    // A 4 x 2 grid in clusters of 2 x 2: blocks (x, y) are rank x % 2 + 2 (y % 2) of cluster x / 2.
    const Run r = run("registers", Dim3{4, 2, 1}, Dim3{32, 1, 1}, Dim3{2, 2, 1}, true);
    REQUIRE(r.result.status.ok());
    for (std::uint32_t y = 0; y < 2; ++y)
        for (std::uint32_t x = 0; x < 4; ++x) {
            const std::uint32_t* v = &r.out[(x + 4 * y) * 9];
            INFO("block " << x << "," << y);
            CHECK(v[0] == x % 2 + 2 * y);
            CHECK(v[1] == 4);
            CHECK(v[2] == x % 2);
            CHECK(v[3] == y);
            CHECK(v[4] == x / 2);
            CHECK(v[5] == 0);
            CHECK(v[6] == 2);
            CHECK(v[7] == 1);
            CHECK(v[8] == v[0]);
        }
    // Without cluster dimensions every block is a cluster of one, and not an explicit one.
    const Run plain = run("registers", Dim3{3, 1, 1}, Dim3{32, 1, 1}, Dim3{}, false);
    REQUIRE(plain.result.status.ok());
    for (std::uint32_t b = 0; b < 3; ++b) {
        CHECK(plain.out[b * 9 + 0] == 0);
        CHECK(plain.out[b * 9 + 1] == 1);
        CHECK(plain.out[b * 9 + 4] == b);
        CHECK(plain.out[b * 9 + 6] == 3);
        CHECK(plain.out[b * 9 + 7] == 0);
    }
}

TEST_CASE("clusters: __cluster_dims__ forms the clusters of a launch that gives none") {
    const Run r = run("pairs", Dim3{6, 1, 1}, Dim3{32, 1, 1}, Dim3{}, false);
    REQUIRE(r.result.status.ok());
    for (std::uint32_t b = 0; b < 6; ++b) CHECK(r.out[b] == b % 2 + 20);
    // A launch that asks for another shape, or a grid that is not a whole number of clusters.
    const Run other = run("pairs", Dim3{4, 1, 1}, Dim3{32, 1, 1}, Dim3{4, 1, 1}, true);
    CHECK(other.result.status.code == StatusCode::bad_usage);
    CHECK(other.result.status.message.find("__cluster_dims__(2,1,1)") != std::string::npos);
    const Run odd = run("pairs", Dim3{3, 1, 1}, Dim3{32, 1, 1}, Dim3{}, false);
    CHECK(odd.result.status.code == StatusCode::bad_usage);
    CHECK(odd.result.status.message.find("not a whole number of clusters") != std::string::npos);
    const Run big = run("ring", Dim3{32, 1, 1}, Dim3{64, 1, 1}, Dim3{32, 1, 1}, true);
    CHECK(big.result.status.code == StatusCode::bad_usage);
    CHECK(big.result.status.message.find("at most 16") != std::string::npos);
}

TEST_CASE("clusters: blocks read each other's shared memory (distributed shared memory)") {
    for (std::uint32_t size : {2u, 4u, 8u, 16u}) {
        INFO("clusters of " << size);
        const Run r = run("ring", Dim3{16, 1, 1}, Dim3{64, 1, 1}, Dim3{size, 1, 1}, true);
        REQUIRE(r.result.status.ok());
        for (std::uint32_t b = 0; b < 16; ++b) {
            const std::uint32_t first = b / size * size, next = first + (b - first + 1) % size;
            for (std::uint32_t t = 0; t < 64; t += 7)
                CHECK(r.out[b * 64 + t] == next * 100 + 63 - t);
        }
    }
}

TEST_CASE("clusters: red and getctarank on shared::cluster addresses, traced as their own space") {
    const Run r = run("count", Dim3{8, 1, 1}, Dim3{96, 1, 1}, Dim3{4, 1, 1}, true, 0, true);
    INFO(r.result.status.message);
    REQUIRE(r.result.status.ok());
    CHECK(r.out[0] == 4 * 96);
    CHECK(r.out[1] == 4 * 96);
    for (std::uint32_t b = 0; b < 8; ++b) CHECK(r.out[64 + b] == 0);
    REQUIRE(r.result.trace);
    const Trace& t = *r.result.trace;
    CHECK(t.kernel.cluster[0] == 4);
    CHECK(t.kernel.cluster[1] == 1);
    std::size_t remote = 0;
    for (const MemAccess& a : t.accesses)
        if (a.space == MemSpace::distributed_shared) ++remote;
    // Blocks 1, 2 and 3 (traced in detail) reduce into block 0's word: three warps each.
    CHECK(remote == 9);
    CHECK(std::string(mem_space_name(MemSpace::distributed_shared)) == "distributed shared");
}

TEST_CASE("clusters: cluster-scope fences and barrier variants are accepted and order accesses") {
    const Run r = run("fences", Dim3{4, 1, 1}, Dim3{64, 1, 1}, Dim3{2, 1, 1}, true);
    INFO(r.result.status.message);
    REQUIRE(r.result.status.ok());
    for (std::uint32_t b = 0; b < 4; ++b)
        for (std::uint32_t t = 0; t < 64; ++t) CHECK(r.out[b * 64 + t] == (b % 2 == 0 ? t + 7 : 0));
}

TEST_CASE("clusters: a block arrives on another block's mbarrier (shared::cluster)") {
    const Run r = run("remote_arrive", Dim3{4, 1, 1}, Dim3{64, 1, 1}, Dim3{2, 1, 1}, true);
    INFO(r.result.status.message);
    REQUIRE(r.result.status.ok());
    for (std::uint32_t b : {0u, 2u})
        for (std::uint32_t t = 0; t < 64; ++t) CHECK(r.out[b * 64 + t] == t * 3 + b + 1);
}

TEST_CASE("clusters: an access outside the cluster names the line, the block and the thread") {
    const Run r = run("outside", Dim3{4, 1, 1}, Dim3{64, 1, 1}, Dim3{2, 1, 1}, true, 5);
    INFO(r.result.status.message);
    CHECK(r.result.status.code == StatusCode::kernel_fault);
    const std::string& m = r.result.status.message;
    CHECK(m.rfind("cluster.cu:" + std::to_string(line_of("outside")) +
                      ": error: distributed shared memory access outside the cluster",
                  0) == 0);
    CHECK(m.find("the cluster has 2 blocks") != std::string::npos);
    CHECK(m.find("cluster rank 5") != std::string::npos);
    CHECK(m.find(", thread (") != std::string::npos);
    CHECK(m.find("num_blocks()") != std::string::npos);
}

TEST_CASE("clusters: reading the shared memory of a block that has exited is a fault") {
    const Run r = run("exited", Dim3{2, 1, 1}, Dim3{64, 1, 1}, Dim3{2, 1, 1}, true);
    INFO(r.result.status.message);
    CHECK(r.result.status.code == StatusCode::kernel_fault);
    const std::string& m = r.result.status.message;
    CHECK(m.rfind("cluster.cu:" + std::to_string(line_of("exited")) +
                      ": error: distributed shared memory access to a block that has exited",
                  0) == 0);
    CHECK(m.find("block 1 (1,0,0) has finished") != std::string::npos);
    CHECK(m.find("cluster.sync() before returning") != std::string::npos);
}

TEST_CASE("clusters: a cluster barrier that cannot complete is a deadlock, not a hang") {
    const Run r = run("stuck", Dim3{2, 1, 1}, Dim3{64, 1, 1}, Dim3{2, 1, 1}, true);
    INFO(r.result.status.message);
    CHECK(r.result.status.code == StatusCode::kernel_fault);
    CHECK(r.result.status.message.find("barrier deadlock") != std::string::npos);
    CHECK(r.result.status.message.find("barrier.cluster.wait") != std::string::npos);
}

TEST_CASE("clusters: compiling cluster code for sm_80 says that clusters need sm_90") {
    compiler::Compiler compiler;
    compiler::CompileOptions options;
    options.arch = "sm_80";
    const auto compiled = compiler.compile(
        "__global__ void __cluster_dims__(2, 1, 1) k(int* o) { o[0] = 1; }\n", "old.cu", options);
    REQUIRE_FALSE(compiled->ok);
    INFO(compiled->error_text());
    CHECK(compiled->error_text().find("need sm_90 or later; this file is compiled for sm_80") !=
          std::string::npos);
}
