// Thread block clusters: the cluster barrier and the geometry of a block in its cluster
// (cluster.h). The instructions themselves are in execute.cpp (barrier.cluster, mapa, getctarank,
// the .shared::cluster forms of ld/st/atom/red); the co-scheduling in emulator.cpp.
#include "emulator/cluster.h"

#include <bit>
#include <sstream>

#include "emulator/execute.h"

namespace cudalab::emu {

std::uint32_t cluster_rank(const Block& block, const Dim3& cluster) {
    const std::uint32_t x = block.ctaid[0] % cluster.x, y = block.ctaid[1] % cluster.y,
                        z = block.ctaid[2] % cluster.z;
    return x + cluster.x * (y + cluster.y * z);
}

bool release_cluster_barrier(ClusterState& cluster) {
    // PTX ISA, barrier.cluster: wait completes once all non-exited threads of the cluster have
    // performed arrive. A thread that exits after arriving has done its part.
    bool any = false;
    for (const Block* b : cluster.blocks)
        for (const Warp& w : b->warps) {
            if (w.live & ~w.cluster_arrived) return false;
            any |= w.cluster_arrived != 0;
        }
    if (!any) return false;
    ++cluster.phase;
    for (Block* b : cluster.blocks) {
        // Every thread of each block took part, so it orders the block's shared memory as
        // __syncthreads() does: the race detector starts a new barrier interval.
        ++b->epoch;
        for (Warp& w : b->warps) {
            w.cluster_arrived = 0;
            if (w.waiting && w.barrier_id == Block::cluster_barrier &&
                w.cluster_target <= cluster.phase) {
                w.waiting = false;
                w.stamp = next_stamp(*b);
            }
        }
    }
    return true;
}

std::string cluster_wait_text(const LaunchState& launch, const ClusterState& cluster) {
    std::ostringstream d;
    const char* separator = " ";
    int shown = 0;
    for (std::size_t r = 0; r < cluster.blocks.size(); ++r) {
        const Block& b = *cluster.blocks[r];
        for (const Warp& w : b.warps) {
            if (w.done() || !w.waiting) continue;
            if (++shown > 6) {
                d << ", ...";
                return d.str();
            }
            const auto& fn = launch.program.functions[std::size_t(w.frames.back().function)].fn;
            const std::uint32_t line =
                w.barrier_pc < fn.code.size() ? fn.code[w.barrier_pc].line : 0;
            d << separator << "block " << b.linear << " (rank " << r << ") warp " << w.id
              << " at line " << line;
            if (w.barrier_id == Block::cluster_barrier) {
                d << " (barrier.cluster.wait; threads of the cluster that did not arrive: ";
                std::uint32_t missing = 0;
                for (const Block* o : cluster.blocks)
                    for (const Warp& ow : o->warps)
                        missing += std::uint32_t(std::popcount(ow.live & ~ow.cluster_arrived));
                d << missing << ")";
            } else if (w.barrier_id < Block::barrier_count) {
                d << " (barrier " << w.barrier_id << ")";
            } else {
                d << " (an mbarrier)";
            }
            separator = ", ";
        }
    }
    return d.str();
}

}  // namespace cudalab::emu
