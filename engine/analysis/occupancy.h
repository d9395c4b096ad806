// Theoretical occupancy (the CUDA occupancy calculator's rules, as cuda_occupancy.h applies them):
// resident blocks per SM are limited by warps, blocks, registers (allocated per warp in units of
// 256, split over 4 SM sub-partitions) and shared memory (128-byte granularity plus 1 KB reserved
// per block on cc >= 8.0); the smallest limit wins.
#pragma once

#include <string>
#include <vector>

namespace cudalab::analysis {

struct ArchLimits {
    std::string name;           // "sm_90"
    int max_blocks_per_sm;
    int max_warps_per_sm;
    int shared_per_sm;          // bytes usable by blocks
    int max_shared_per_block;   // bytes (opt-in maximum)
    int registers_per_sm = 65536;
    int max_registers_per_thread = 255;
    int register_unit = 256;
    int shared_granularity = 128;
    int reserved_shared_per_block = 1024;
};

// sm_75, sm_80, sm_86, sm_89, sm_90, sm_100, sm_120; null if unknown.
const ArchLimits* arch_limits(const std::string& arch);
std::vector<std::string> known_archs();

struct Occupancy {
    int blocks_per_sm = 0;
    int active_warps = 0;
    int max_warps = 0;
    double occupancy = 0;       // active / max warps
    std::string limiter;        // "warps", "blocks", "registers", "shared memory"
    int limit_by_warps = 0, limit_by_blocks = 0, limit_by_registers = 0, limit_by_shared = 0;
    std::string explain() const;  // one line for people
};

Occupancy theoretical_occupancy(const ArchLimits& arch, int threads_per_block, int registers_per_thread,
                                int shared_bytes_per_block);

}  // namespace cudalab::analysis
