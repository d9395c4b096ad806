// Thread block clusters (sm_90): the blocks of one cluster run together on one host thread, can
// read and write each other's shared memory (distributed shared memory) and meet at the cluster
// barrier (PTX ISA 9.7.13.3 barrier.cluster, 9.7.9.22 mapa, 9.7.9.23 getctarank).
//
// Addresses. A block's own shared memory is at shared::cta offsets 0 ... shared_bytes, as before.
// A shared::cluster address at or above 1 << 24 names block rank r of the cluster as
// (r + 1) << 24 | offset; one below names the executing block's own memory, so a shared::cta
// address is also a valid shared::cluster address of the same byte, as the PTX ISA requires (the
// shared::cta window lies inside the shared::cluster one). Generic addresses put either kind in
// the shared window (shared_window + address). mapa to the executing block's own rank gives its
// plain offset, so `cluster.map_shared_rank(p, own rank) == p` holds, as on a GPU. 16 MB per
// block is far above the 227 KB a block can have.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "emulator/state.h"
#include "runtime/backend.h"

namespace cudalab::emu {

inline constexpr int cluster_rank_shift = 24;
inline constexpr std::uint64_t cluster_offset_mask = (1ull << cluster_rank_shift) - 1;
inline constexpr std::uint32_t max_cluster_blocks = 16;  // sm_90, non-portable (8 portable)

// The blocks of one cluster while they run (emulator.cpp, run_cluster).
struct ClusterState {
    std::vector<Block*> blocks;  // by rank (%cluster_ctarank)
    std::uint64_t phase = 0;     // cluster barriers completed so far
};

// The shared::cluster address of `offset` in the shared memory of block `rank`, as mapa gives it
// to a block of rank `own`.
inline std::uint64_t cluster_address(std::uint32_t rank, std::uint32_t own, std::uint64_t offset) {
    return rank == own ? offset : (std::uint64_t(rank) + 1) << cluster_rank_shift | offset;
}
// The rank a shared::cluster address names (`own` for a plain shared::cta offset).
inline std::uint64_t cluster_rank_of(std::uint64_t address, std::uint32_t own) {
    return address >> cluster_rank_shift ? (address >> cluster_rank_shift) - 1 : own;
}

// A block's rank in its cluster and the cluster geometry a launch gives it.
std::uint32_t cluster_rank(const Block& block, const Dim3& cluster);

// Releases the cluster barrier when every thread of the cluster that has not exited has arrived
// (barrier.cluster.arrive) in the current phase: the phase advances and the warps waiting in
// barrier.cluster.wait run again. Returns true when it released one.
bool release_cluster_barrier(ClusterState& cluster);

// Where the block's warps wait, for the deadlock message of a cluster whose blocks all wait.
std::string cluster_wait_text(const LaunchState& launch, const ClusterState& cluster);

}  // namespace cudalab::emu
