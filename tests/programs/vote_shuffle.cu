// vote_shuffle: warp-level primitives. Ballot, any, all, match and popc on a known predicate;
// shuffle broadcast, rotation and xor butterflies; a warp reduction with __shfl_down_sync.
#include <vector>
#include "check.h"

__global__ void votes(const int* in, unsigned* ballot, int* any, int* all, int* count)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int pred = in[t] > 0;
    unsigned b = __ballot_sync(0xffffffffu, pred);
    int a = __any_sync(0xffffffffu, pred);
    int l = __all_sync(0xffffffffu, pred);
    if ((threadIdx.x & 31) == 0) {
        int w = t / 32;
        ballot[w] = b;
        any[w] = a;
        all[w] = l;
        count[w] = __popc(b);
    }
}

__global__ void shuffles(const int* in, int* bcast, int* rot, int* butterfly, int* sum)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int v = in[t];
    bcast[t] = __shfl_sync(0xffffffffu, v, 5);                 // lane 5's value everywhere
    rot[t] = __shfl_sync(0xffffffffu, v, (lane + 1) & 31);     // next lane's value
    butterfly[t] = __shfl_xor_sync(0xffffffffu, v, 3);         // lane ^ 3
    int s = v;
    for (int off = 16; off > 0; off >>= 1) s += __shfl_down_sync(0xffffffffu, s, off);
    if (lane == 0) sum[t / 32] = s;
}

int main()
{
    const int threads = 128, blocks = 8, n = threads * blocks, warps = n / 32;
    std::vector<int> h(n);
    for (int i = 0; i < n; ++i) {
        int w = i / 32, lane = i % 32;
        // warp 0: all positive; warp 1: none; others: a pattern depending on warp and lane
        h[i] = w == 0 ? lane + 1 : w == 1 ? -lane : ((lane * 7 + w) % 5) - 2;
    }
    int *d_in, *d_any, *d_all, *d_count, *d_bcast, *d_rot, *d_bf, *d_sum;
    unsigned* d_ballot;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_ballot, warps * sizeof(unsigned)));
    CHECK(cudaMalloc(&d_any, warps * sizeof(int)));
    CHECK(cudaMalloc(&d_all, warps * sizeof(int)));
    CHECK(cudaMalloc(&d_count, warps * sizeof(int)));
    CHECK(cudaMalloc(&d_bcast, n * sizeof(int)));
    CHECK(cudaMalloc(&d_rot, n * sizeof(int)));
    CHECK(cudaMalloc(&d_bf, n * sizeof(int)));
    CHECK(cudaMalloc(&d_sum, warps * sizeof(int)));
    CHECK(cudaMemcpy(d_in, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    votes<<<blocks, threads>>>(d_in, d_ballot, d_any, d_all, d_count);
    CHECK_LAUNCH();
    shuffles<<<blocks, threads>>>(d_in, d_bcast, d_rot, d_bf, d_sum);
    CHECK_LAUNCH();

    std::vector<unsigned> ballot(warps);
    std::vector<int> any(warps), all(warps), count(warps), sum(warps), bcast(n), rot(n), bf(n);
    CHECK(cudaMemcpy(ballot.data(), d_ballot, warps * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(any.data(), d_any, warps * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(all.data(), d_all, warps * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(count.data(), d_count, warps * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(sum.data(), d_sum, warps * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(bcast.data(), d_bcast, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(rot.data(), d_rot, n * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(bf.data(), d_bf, n * sizeof(int), cudaMemcpyDeviceToHost));

    for (int w = 0; w < warps; ++w) {
        unsigned want = 0;
        int s = 0;
        for (int lane = 0; lane < 32; ++lane) {
            if (h[w * 32 + lane] > 0) want |= 1u << lane;
            s += h[w * 32 + lane];
        }
        EXPECT(ballot[w] == want, "warp %d ballot %#x, expected %#x", w, ballot[w], want);
        EXPECT(any[w] == (want != 0), "warp %d any %d", w, any[w]);
        EXPECT(all[w] == (want == 0xffffffffu), "warp %d all %d", w, all[w]);
        EXPECT(count[w] == __builtin_popcount(want), "warp %d popc %d", w, count[w]);
        EXPECT(sum[w] == s, "warp %d sum %d, expected %d", w, sum[w], s);
        for (int lane = 0; lane < 32; ++lane) {
            int i = w * 32 + lane;
            EXPECT(bcast[i] == h[w * 32 + 5], "broadcast at %d", i);
            EXPECT(rot[i] == h[w * 32 + ((lane + 1) & 31)], "rotate at %d", i);
            EXPECT(bf[i] == h[w * 32 + (lane ^ 3)], "xor at %d", i);
        }
    }
    EXPECT(all[0] == 1 && any[1] == 0, "the all-positive and all-negative warps");
    CHECK(cudaFree(d_in)); CHECK(cudaFree(d_ballot)); CHECK(cudaFree(d_any)); CHECK(cudaFree(d_all));
    CHECK(cudaFree(d_count)); CHECK(cudaFree(d_bcast)); CHECK(cudaFree(d_rot)); CHECK(cudaFree(d_bf));
    CHECK(cudaFree(d_sum));
    std::printf("vote_shuffle: %d warps: PASS\n", warps);
    return 0;
}
