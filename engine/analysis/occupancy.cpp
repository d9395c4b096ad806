#include "analysis/occupancy.h"

#include <algorithm>
#include <cstdio>

namespace cudalab::analysis {

namespace {
int round_up(int v, int unit) { return unit ? (v + unit - 1) / unit * unit : v; }
}  // namespace

const char* to_string(Limiter limiter) {
    switch (limiter) {
    case Limiter::warps: return "warps per SM";
    case Limiter::blocks: return "blocks per SM";
    case Limiter::registers: return "registers";
    case Limiter::shared_memory: return "shared memory";
    }
    return "?";
}

Occupancy theoretical_occupancy(const ArchLimits& a, int threads, int regs, int shared) {
    Occupancy o;
    o.max_warps = a.max_warps_per_sm;
    if (threads <= 0) return o;
    const int warps_per_block = (threads + hw::warp_size - 1) / hw::warp_size;
    o.limit_by_warps = a.max_warps_per_sm / warps_per_block;
    o.limit_by_blocks = a.max_blocks_per_sm;
    // Registers: per warp in units of 256; the register file is split over 4 sub-partitions and a
    // warp's registers must fit in one.
    if (regs <= 0) o.limit_by_registers = a.max_blocks_per_sm;
    else if (regs > a.max_registers_per_thread) o.limit_by_registers = 0;
    else {
        const int per_warp = round_up(regs * hw::warp_size, a.register_unit);
        const int partitions = 4;
        const int warps_per_partition = (a.registers_per_sm / partitions) / per_warp;
        o.limit_by_registers = (warps_per_partition * partitions) / warps_per_block;
    }
    // Shared memory.
    const int per_block = round_up(shared, a.shared_granularity) + a.reserved_shared_per_block;
    if (shared > a.max_shared_per_block) o.limit_by_shared = 0;
    else o.limit_by_shared = per_block > 0 ? a.shared_per_sm / per_block : a.max_blocks_per_sm;
    o.blocks_per_sm =
        std::min({o.limit_by_warps, o.limit_by_blocks, o.limit_by_registers, o.limit_by_shared});
    o.blocks_per_sm = std::max(0, o.blocks_per_sm);
    o.active_warps = o.blocks_per_sm * warps_per_block;
    o.occupancy = double(o.active_warps) / double(o.max_warps);
    if (o.blocks_per_sm == o.limit_by_registers && o.limit_by_registers < o.limit_by_warps)
        o.limiter = Limiter::registers;
    else if (o.blocks_per_sm == o.limit_by_shared && o.limit_by_shared < o.limit_by_warps)
        o.limiter = Limiter::shared_memory;
    else if (o.blocks_per_sm == o.limit_by_blocks && o.limit_by_blocks < o.limit_by_warps)
        o.limiter = Limiter::blocks;
    else o.limiter = Limiter::warps;
    return o;
}

std::string Occupancy::explain() const {
    char buf[256];
    std::snprintf(buf, sizeof buf, "%d blocks/SM, %d of %d warps (%.0f%%), limited by %s",
                  blocks_per_sm, active_warps, max_warps, occupancy * 100, to_string(limiter));
    return buf;
}

}  // namespace cudalab::analysis
