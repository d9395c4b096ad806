// Analysis: pure functions from a Trace to the figures lessons grade on and views show. One
// implementation serves traces from either backend. Rules: docs/design.md "Rules the analysis
// implements"; the per-instruction costs come from analysis/memory_rules.h.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "trace/trace.h"

namespace cudalab::analysis {

// Figures for one group of instructions (a source line, or the whole kernel).
struct Figures {
    std::uint64_t warp_instructions = 0;
    std::uint64_t thread_instructions = 0;   // lanes that executed (guard passed)
    std::uint64_t active_lanes = 0;          // lanes active (before the guard)
    // Global memory, split by direction.
    std::uint64_t global_load_requests = 0, global_load_sectors = 0, global_load_bytes = 0;
    std::uint64_t global_store_requests = 0, global_store_sectors = 0, global_store_bytes = 0;
    std::uint64_t global_atomic_requests = 0, global_atomics = 0;
    // Shared memory.
    std::uint64_t shared_requests = 0, shared_wavefronts = 0, shared_ideal_wavefronts = 0;
    std::uint64_t shared_load_conflicts = 0, shared_store_conflicts = 0;  // wavefronts beyond the ideal
    std::uint64_t shared_atomics = 0;
    // Control.
    std::uint64_t branches = 0, divergent_branches = 0;
    std::uint64_t barriers_executed = 0;     // warp-level bar.sync executions

    double load_sectors_per_request() const;
    double store_sectors_per_request() const;
    double load_efficiency() const;   // requested bytes / (32 * sectors)
    double store_efficiency() const;
    std::uint64_t bank_conflicts() const { return shared_wavefronts - shared_ideal_wavefronts; }
    double branch_efficiency() const;  // active lanes / (32 * warp instructions)
};

struct LineFigures {
    std::uint32_t line = 0;
    Figures figures;
};

struct KernelFigures {
    Figures total;
    std::vector<LineFigures> lines;                         // by source line, ascending
    std::map<std::string, std::uint64_t> warp_instructions_by_class;
    std::uint64_t block_barriers = 0;                       // barrier completions (block-level)
};

KernelFigures analyze(const Trace& trace);

}  // namespace cudalab::analysis
