// Warp collectives: shuffles (up, down, xor, idx, with widths), votes (all, any, ballot, uni),
// __activemask, match (any, all), redux (__reduce_*_sync), __syncwarp, and collectives inside
// divergent code with partial member masks; cooperative groups (tiles, their shuffles and reduce).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void shuffles(const unsigned* in, unsigned* out) {
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned v = in[g];
    const float f = float(v & 0xffff) * 0.5f;
    const double d = double(v) * 1.5;
    unsigned* o = out + g * 14;
    o[0] = __shfl_sync(0xffffffffu, v, 5);
    o[1] = __shfl_sync(0xffffffffu, v, int(v & 31));
    o[2] = __shfl_up_sync(0xffffffffu, v, 3);
    o[3] = __shfl_down_sync(0xffffffffu, v, 7);
    o[4] = __shfl_xor_sync(0xffffffffu, v, 13);
    o[5] = __shfl_sync(0xffffffffu, v, 2, 8);        // width 8: lane 2 of each group of 8
    o[6] = __shfl_up_sync(0xffffffffu, v, 1, 16);
    o[7] = __shfl_down_sync(0xffffffffu, v, 2, 4);
    o[8] = __shfl_xor_sync(0xffffffffu, v, 1, 2);
    o[9] = __float_as_uint(__shfl_down_sync(0xffffffffu, f, 16));
    const double dd = __shfl_xor_sync(0xffffffffu, d, 9);  // two 32-bit shuffles
    o[10] = unsigned(__double_as_longlong(dd));
    o[11] = unsigned(__double_as_longlong(dd) >> 32);
    // A warp sum by butterfly.
    unsigned s = v & 0xffff;
    for (int k = 16; k > 0; k >>= 1) s += __shfl_xor_sync(0xffffffffu, s, k);
    o[12] = s;
    // Shuffles among the even lanes only.
    unsigned e = 0;
    if ((threadIdx.x & 1) == 0) e = __shfl_sync(0x55555555u, v, (threadIdx.x + 2) & 31);
    o[13] = e;
}

extern "C" __global__ void votes(const unsigned* in, unsigned* out) {
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = threadIdx.x & 31;
    const unsigned v = in[g];
    unsigned* o = out + g * 16;
    o[0] = __ballot_sync(0xffffffffu, v & 1);
    o[1] = __all_sync(0xffffffffu, v != 0);
    o[2] = __any_sync(0xffffffffu, (v & 0xff) == 0);
    o[3] = __all_sync(0xffffffffu, (v & 7) == 0);
    o[4] = __uni_sync(0xffffffffu, lane < 40);
    o[5] = __uni_sync(0xffffffffu, lane < 16);
    o[6] = __activemask();
    if (lane % 3 == 0) {
        o[7] = __activemask();
        o[8] = __ballot_sync(0x49249249u, v & 2);  // the lanes with lane % 3 == 0
    } else {
        o[7] = 0;
        o[8] = 0;
    }
    o[9] = __match_any_sync(0xffffffffu, v & 3);
    int pred = 0;
    o[10] = __match_all_sync(0xffffffffu, lane < 32 ? 7u : v, &pred);
    o[11] = unsigned(pred);
    o[12] = __match_all_sync(0xffffffffu, v & 1, &pred) | (unsigned(pred) << 31);
    o[13] = __match_any_sync(0xffffffffu, (unsigned long long)(v & 1) << 40);
    __syncwarp();
    if (lane < 20) {
        __syncwarp(0x000fffffu);
        o[14] = __ballot_sync(0x000fffffu, v & 4);
    } else {
        o[14] = 1;
    }
    o[15] = __popc(__ballot_sync(0xffffffffu, lane >= 5));
}

extern "C" __global__ void reductions(const unsigned* in, unsigned* out) {
    const int g = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned v = in[g] >> 4;
    unsigned* o = out + g * 8;
    o[0] = __reduce_add_sync(0xffffffffu, v);
    o[1] = __reduce_min_sync(0xffffffffu, v);
    o[2] = __reduce_max_sync(0xffffffffu, v);
    o[3] = unsigned(__reduce_min_sync(0xffffffffu, int(in[g])));
    o[4] = unsigned(__reduce_max_sync(0xffffffffu, int(in[g])));
    o[5] = __reduce_and_sync(0xffffffffu, v | 0x0f0f0f0fu);
    o[6] = __reduce_or_sync(0xffffffffu, v & 0x01010101u);
    o[7] = __reduce_xor_sync(0xffffffffu, v);
}

extern "C" __global__ void coop_groups(const unsigned* in, unsigned* out) {
    cg::thread_block block = cg::this_thread_block();
    const unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    const unsigned v = in[g] & 0xffff;
    cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
    unsigned* o = out + g * 6;
    o[0] = cg::reduce(tile, v, cg::plus<unsigned>());
    o[1] = cg::reduce(tile, v, cg::greater<unsigned>());
    o[2] = tile.shfl_down(v, 3);
    o[3] = tile.thread_rank() + 100u * tile.meta_group_rank();
    block.sync();
    cg::coalesced_group active = cg::coalesced_threads();
    o[4] = active.size();
    if (v & 1) {
        cg::coalesced_group odd = cg::coalesced_threads();
        o[5] = odd.thread_rank() + 1000u * odd.size();
    } else {
        o[5] = 0;
    }
}
