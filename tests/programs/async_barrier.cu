// async_barrier: the asynchronous barrier and copy of compute capability 8.0 and later (and 9.0's
// elect.sync), as real programs use them through libcu++ and the pipeline primitives:
//   1. cuda::barrier<thread_scope_block> (mbarrier.init / arrive / try_wait): a block-wide sum in
//      which the warps meet at a barrier several times, one phase per round;
//   2. arrive_and_drop: half the threads leave the barrier after the first phase, and the later
//      phases complete with the others alone;
//   3. cuda::memcpy_async into shared memory completed by a barrier (cp.async with
//      cp.async.mbarrier.arrive), then a stencil that reads the staged tile;
//   4. __pipeline_memcpy_async / __pipeline_commit / __pipeline_wait_prior (cp.async with
//      commit_group and wait_group), double-buffered;
//   5. elect.sync (one leader per warp, inline PTX) and the barrier's token API (arrive, then wait
//      on the token);
//   6. bulk copies (sm_90): cuda::memcpy_async of a 16-byte-aligned size by one thread
//      (cp.async.bulk completing a barrier's transaction count) and a bulk copy back to global
//      memory (cp.async.bulk.global.shared::cta.bulk_group).
// Each result is checked against the host.
#include <cuda/barrier>
#include <cuda_pipeline.h>
#include <cooperative_groups.h>
#include <vector>
#include "check.h"

#pragma nv_diag_suppress static_var_with_dynamic_init  // a __shared__ barrier, init() by one thread

namespace cg = cooperative_groups;
using block_barrier = cuda::barrier<cuda::thread_scope_block>;

constexpr int threads = 256;
constexpr int rounds = 5;

// 1 and 2: each round every thread adds its value into one of 8 bins, then the block meets at
// the barrier; with drop, the odd threads leave after round 0.
__global__ void rounds_kernel(const int* in, int* out, bool drop)
{
    __shared__ block_barrier bar;
    __shared__ int bins[rounds][8];
    if (threadIdx.x == 0) init(&bar, blockDim.x);
    if (threadIdx.x < rounds * 8) bins[threadIdx.x / 8][threadIdx.x % 8] = 0;
    __syncthreads();
    const int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    for (int r = 0; r < rounds; ++r) {
        atomicAdd(&bins[r][threadIdx.x % 8], v * (r + 1));
        if (drop && r == 0 && threadIdx.x % 2 == 1) {
            (void)bar.arrive_and_drop();
            return;
        }
        bar.arrive_and_wait();
        // Every thread still here sees the round complete: thread 0 of each warp checks a bin.
        if (threadIdx.x % 32 == 0) out[(blockIdx.x * rounds + r) * 8 + threadIdx.x / 32] =
                                       bins[r][threadIdx.x / 32];
    }
}

// 3: a tile of blockDim.x + 2 floats staged with cuda::memcpy_async, completed on a barrier.
__global__ void stencil_kernel(const float* in, float* out, int n)
{
    __shared__ block_barrier bar;
    __shared__ float tile[threads + 2];
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) init(&bar, block.size());
    block.sync();
    const int base = blockIdx.x * blockDim.x;  // in has n + 2 elements: a halo on each side
    cuda::memcpy_async(block, tile, in + base, sizeof(float) * (blockDim.x + 2), bar);
    bar.arrive_and_wait();
    const int i = base + threadIdx.x;
    if (i < n) out[i] = 0.25f * tile[threadIdx.x] + 0.5f * tile[threadIdx.x + 1] +
                        0.25f * tile[threadIdx.x + 2];
}

// 4: double-buffered copies with the pipeline primitives: chunk c + 1 is in flight while chunk c
// is summed. Each thread copies one float4 per chunk.
__global__ void pipeline_kernel(const float4* in, float* out, int chunks)
{
    __shared__ float4 buf[2][threads];
    float sum = 0;
    __pipeline_memcpy_async(&buf[0][threadIdx.x], &in[threadIdx.x], sizeof(float4));
    __pipeline_commit();
    for (int c = 0; c < chunks; ++c) {
        if (c + 1 < chunks)
            __pipeline_memcpy_async(&buf[(c + 1) % 2][threadIdx.x],
                                    &in[(c + 1) * threads + threadIdx.x], sizeof(float4));
        __pipeline_commit();
        __pipeline_wait_prior(1);  // chunk c has landed
        __syncthreads();
        const float4 q = buf[c % 2][(threadIdx.x + 1) % threads];  // a neighbour's copy
        sum += q.x + q.y + q.z + q.w;
        __syncthreads();
    }
    out[threadIdx.x] = sum;
}

// 6: sm_90's bulk copies. One thread stages the block's whole slice with cuda::memcpy_async of a
// 16-byte-aligned size (cp.async.bulk into shared memory, completing the barrier's transaction
// count); after the block changes the tile, one thread writes it back with a bulk copy from shared
// to global memory (cp.async.bulk.global.shared::cta.bulk_group, commit_group, wait_group).
__global__ void bulk_kernel(const float4* in, float4* out)
{
    __shared__ alignas(16) float4 tile[threads];
    __shared__ block_barrier bar;
    if (threadIdx.x == 0) init(&bar, blockDim.x);
    __syncthreads();
    const unsigned bytes = sizeof(float4) * blockDim.x;
    if (threadIdx.x == 0)
        cuda::memcpy_async(tile, in + blockIdx.x * blockDim.x, cuda::aligned_size_t<16>(bytes), bar);
    bar.arrive_and_wait();
    float4 v = tile[(threadIdx.x + 1) % blockDim.x];
    __syncthreads();
    tile[threadIdx.x] = make_float4(v.x * 2, v.y * 2, v.z + 1, v.w - 1);
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // generic writes, then bulk reads
    __syncthreads();
    if (threadIdx.x == 0) {
        const unsigned from = unsigned(__cvta_generic_to_shared(tile));
        asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(
                         out + blockIdx.x * blockDim.x),
                     "r"(from), "r"(bytes)
                     : "memory");
        asm volatile("cp.async.bulk.commit_group;" ::: "memory");
        asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
    }
}

// 5: one leader per warp (elect.sync) arrives for the warp with the warp's count; the others only
// wait on the leader's token, passed through shared memory.
__global__ void leader_kernel(int* out)
{
    __shared__ block_barrier bar;
    __shared__ unsigned long long tokens[threads / 32];
    __shared__ int leaders[threads / 32];
    const int warps = blockDim.x / 32;
    if (threadIdx.x == 0) init(&bar, warps);
    __syncthreads();
    unsigned elected = 0, leader = 0;
    asm volatile("{\n\t.reg .pred p;\n\telect.sync %0|p, 0xffffffff;\n\tselp.u32 %1, 1, 0, p;\n\t}"
                 : "=r"(leader), "=r"(elected));
    const int warp = threadIdx.x / 32;
    if (elected) {
        leaders[warp] = threadIdx.x;
        block_barrier::arrival_token t = bar.arrive();
        static_assert(sizeof t == sizeof tokens[0], "a block barrier's token is 64 bits");
        memcpy(&tokens[warp], &t, sizeof t);
    }
    __syncwarp();
    block_barrier::arrival_token t;
    memcpy(&t, &tokens[warp], sizeof t);
    bar.wait(std::move(t));
    if (threadIdx.x % 32 == 0) out[warp] = leaders[warp] * 100 + int(leader);
}

int main()
{
    int cc = 0;
    CHECK(cudaDeviceGetAttribute(&cc, cudaDevAttrComputeCapabilityMajor, 0));
    if (cc < 9) {  // elect.sync is sm_90's
        std::printf("async_barrier: needs compute capability 9.0: waived\n");
        return 0;
    }
    const int blocks = 4;
    std::vector<int> in(blocks * threads);
    for (size_t i = 0; i < in.size(); ++i) in[i] = int(i * 7 % 23) - 11;
    int *d_in, *d_out;
    CHECK(cudaMalloc(&d_in, in.size() * sizeof(int)));
    CHECK(cudaMalloc(&d_out, blocks * rounds * 8 * sizeof(int)));
    CHECK(cudaMemcpy(d_in, in.data(), in.size() * sizeof(int), cudaMemcpyHostToDevice));
    for (int drop = 0; drop < 2; ++drop) {
        CHECK(cudaMemset(d_out, 0, blocks * rounds * 8 * sizeof(int)));
        rounds_kernel<<<blocks, threads>>>(d_in, d_out, drop);
        CHECK_LAUNCH();
        std::vector<int> got(blocks * rounds * 8);
        CHECK(cudaMemcpy(got.data(), d_out, got.size() * sizeof(int), cudaMemcpyDeviceToHost));
        for (int b = 0; b < blocks; ++b)
            for (int r = 0; r < rounds; ++r)
                for (int k = 0; k < 8; ++k) {
                    int want = 0;
                    for (int t = k; t < threads; t += 8)
                        if (!(drop && r > 0 && t % 2 == 1)) want += in[b * threads + t] * (r + 1);
                    EXPECT(got[(b * rounds + r) * 8 + k] == want,
                           "rounds (drop %d): block %d round %d bin %d is %d, expected %d", drop, b,
                           r, k, got[(b * rounds + r) * 8 + k], want);
                }
    }

    const int n = blocks * threads;
    std::vector<float> f(n + 2);
    for (int i = 0; i < n + 2; ++i) f[i] = float(i % 13) * 0.5f;
    float *d_f, *d_g;
    CHECK(cudaMalloc(&d_f, (n + 2) * sizeof(float)));
    CHECK(cudaMalloc(&d_g, n * sizeof(float)));
    CHECK(cudaMemcpy(d_f, f.data(), (n + 2) * sizeof(float), cudaMemcpyHostToDevice));
    stencil_kernel<<<blocks, threads>>>(d_f, d_g, n);
    CHECK_LAUNCH();
    std::vector<float> g(n);
    CHECK(cudaMemcpy(g.data(), d_g, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        const float want = 0.25f * f[i] + 0.5f * f[i + 1] + 0.25f * f[i + 2];
        EXPECT(g[i] == want, "stencil: element %d is %g, expected %g", i, g[i], want);
    }

    const int chunks = 6;
    std::vector<float> p(chunks * threads * 4);
    for (size_t i = 0; i < p.size(); ++i) p[i] = float(i % 17);
    float *d_p, *d_sum;
    CHECK(cudaMalloc(&d_p, p.size() * sizeof(float)));
    CHECK(cudaMalloc(&d_sum, threads * sizeof(float)));
    CHECK(cudaMemcpy(d_p, p.data(), p.size() * sizeof(float), cudaMemcpyHostToDevice));
    pipeline_kernel<<<1, threads>>>(reinterpret_cast<const float4*>(d_p), d_sum, chunks);
    CHECK_LAUNCH();
    std::vector<float> sums(threads);
    CHECK(cudaMemcpy(sums.data(), d_sum, threads * sizeof(float), cudaMemcpyDeviceToHost));
    for (int t = 0; t < threads; ++t) {
        float want = 0;
        for (int c = 0; c < chunks; ++c)
            for (int k = 0; k < 4; ++k) want += p[(size_t(c) * threads + (t + 1) % threads) * 4 + k];
        EXPECT(sums[t] == want, "pipeline: thread %d summed %g, expected %g", t, sums[t], want);
    }

    std::vector<float> q(blocks * threads * 4);
    for (size_t i = 0; i < q.size(); ++i) q[i] = float(i % 29) - 3;
    float *d_q, *d_r;
    CHECK(cudaMalloc(&d_q, q.size() * sizeof(float)));
    CHECK(cudaMalloc(&d_r, q.size() * sizeof(float)));
    CHECK(cudaMemcpy(d_q, q.data(), q.size() * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_r, 0, q.size() * sizeof(float)));
    bulk_kernel<<<blocks, threads>>>(reinterpret_cast<const float4*>(d_q),
                                     reinterpret_cast<float4*>(d_r));
    CHECK_LAUNCH();
    std::vector<float> r(q.size());
    CHECK(cudaMemcpy(r.data(), d_r, r.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; ++b)
        for (int t = 0; t < threads; ++t) {
            const float* from = &q[(size_t(b) * threads + (t + 1) % threads) * 4];
            const float want[4] = {from[0] * 2, from[1] * 2, from[2] + 1, from[3] - 1};
            for (int k = 0; k < 4; ++k)
                EXPECT(r[(size_t(b) * threads + t) * 4 + k] == want[k],
                       "bulk: block %d thread %d component %d is %g, expected %g", b, t, k,
                       r[(size_t(b) * threads + t) * 4 + k], want[k]);
        }
    CHECK(cudaFree(d_q));
    CHECK(cudaFree(d_r));

    int* d_leaders;
    CHECK(cudaMalloc(&d_leaders, threads / 32 * sizeof(int)));
    leader_kernel<<<1, threads>>>(d_leaders);
    CHECK_LAUNCH();
    int leaders[threads / 32];
    CHECK(cudaMemcpy(leaders, d_leaders, sizeof leaders, cudaMemcpyDeviceToHost));
    for (int w = 0; w < threads / 32; ++w)
        EXPECT(leaders[w] == w * 32 * 100 + 0, "leader: warp %d elected thread %d (lane %d)", w,
               leaders[w] / 100, leaders[w] % 100);

    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_f));
    CHECK(cudaFree(d_g));
    CHECK(cudaFree(d_p));
    CHECK(cudaFree(d_sum));
    CHECK(cudaFree(d_leaders));
    std::printf("async_barrier: barrier rounds, arrive_and_drop, memcpy_async, pipeline, "
                "elect.sync, bulk copies: PASS\n");
    return 0;
}
