// Theoretical occupancy (the CUDA occupancy calculator's rules, as cuda_occupancy.h applies them):
// resident blocks per SM are limited by warps, blocks, registers (allocated per warp in units of
// 256, split over 4 SM sub-partitions) and shared memory (128-byte granularity plus 1 KB reserved
// per block on cc >= 8.0); the smallest limit wins.
#pragma once

#include <string>

#include "base/hardware.h"

namespace cudalab::analysis {

// The per-architecture limits are base/hardware.h's (hw::ArchLimits, hw::arch_limits).
using hw::ArchLimits;

// What keeps more blocks off an SM: the smallest of the four limits (warps when none is below it).
enum class Limiter { warps, blocks, registers, shared_memory };
// "warps per SM", "blocks per SM", "registers", "shared memory": the words reports and lessons
// print.
const char* to_string(Limiter limiter);

struct Occupancy {
    int blocks_per_sm = 0;
    int active_warps = 0;
    int max_warps = 0;
    double occupancy = 0;  // active / max warps
    Limiter limiter = Limiter::warps;
    int limit_by_warps = 0, limit_by_blocks = 0, limit_by_registers = 0, limit_by_shared = 0;
    std::string explain() const;  // one line for people
};

Occupancy theoretical_occupancy(const ArchLimits& arch, int threads_per_block,
                                int registers_per_thread, int shared_bytes_per_block);

}  // namespace cudalab::analysis
