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
    std::uint64_t thread_instructions = 0;  // lanes that executed (guard passed)
    std::uint64_t active_lanes = 0;         // lanes active (before the guard)
    // Global memory, split by direction.
    std::uint64_t global_load_requests = 0, global_load_sectors = 0, global_load_bytes = 0;
    std::uint64_t global_store_requests = 0, global_store_sectors = 0, global_store_bytes = 0;
    // Atomics and reductions move data too: atom reads and writes its words (atomicAdd(p, 0) is a
    // load, atomicExch a store), red writes them. Counted here and folded into read_*/write_*.
    std::uint64_t global_atomic_requests = 0, global_atomics = 0;
    std::uint64_t global_atomic_sectors = 0, global_atomic_bytes = 0;
    std::uint64_t global_reduction_requests = 0, global_reduction_sectors = 0,
                  global_reduction_bytes = 0;  // red only
    // Shared memory.
    std::uint64_t shared_requests = 0, shared_wavefronts = 0, shared_ideal_wavefronts = 0;
    std::uint64_t shared_load_conflicts = 0,
                  shared_store_conflicts = 0;  // wavefronts beyond the ideal
    std::uint64_t shared_atomics = 0;
    // Control.
    std::uint64_t branches = 0, divergent_branches = 0;
    std::uint64_t barriers_executed = 0;  // warp-level bar.sync executions

    // Every instruction that reads global memory (ld, ldu, ld.global.nc, vector loads, atom) and
    // every one that writes it (st, atom, red). Lessons bound these, never the ld/st figures alone,
    // so traffic cannot hide in another instruction.
    std::uint64_t read_requests() const {
        return global_load_requests + global_atomic_requests - global_reduction_requests;
    }
    std::uint64_t read_sectors() const {
        return global_load_sectors + global_atomic_sectors - global_reduction_sectors;
    }
    std::uint64_t read_bytes() const {
        return global_load_bytes + global_atomic_bytes - global_reduction_bytes;
    }
    std::uint64_t write_requests() const { return global_store_requests + global_atomic_requests; }
    std::uint64_t write_sectors() const { return global_store_sectors + global_atomic_sectors; }
    std::uint64_t write_bytes() const { return global_store_bytes + global_atomic_bytes; }

    double load_sectors_per_request() const;
    double store_sectors_per_request() const;
    double load_efficiency() const;  // requested bytes / (32 * sectors)
    double store_efficiency() const;
    std::uint64_t bank_conflicts() const { return shared_wavefronts - shared_ideal_wavefronts; }
    // Active lanes / (32 * warp instructions): what Nsight Compute calls warp execution
    // efficiency. An average, so cheap uniform work dilutes it; lessons bound divergent branches
    // and warp instructions per element instead, and show this figure only as information.
    double branch_efficiency() const;
};

struct LineFigures {
    std::uint32_t line = 0;
    Figures figures;
};

struct KernelFigures {
    Figures total;
    std::vector<LineFigures> lines;  // by source line, ascending
    std::map<std::string, std::uint64_t> warp_instructions_by_class;
    std::uint64_t block_barriers = 0;  // barrier completions (block-level)
};

KernelFigures analyze(const Trace& trace);

}  // namespace cudalab::analysis
