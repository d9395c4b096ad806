// The hierarchy view's data: the bytes that moved between registers, L1 / shared memory, L2 and
// device memory over the whole launch, as the analysis counted them, and the SM's occupancy from
// ptxas' resource usage. No cache is modelled: every sector a request touches is counted as moved
// from L2 (the upper bound the checks grade on).
#pragma once

#include <cstdint>
#include <string>

#include "analysis/metrics.h"
#include "analysis/occupancy.h"
#include "compiler/compiler.h"
#include "trace/trace.h"

namespace cudalab::viewmodel {

struct HierarchyFigures {
    // Registers <-> L1: what the lanes asked for.
    std::uint64_t load_requested_bytes = 0, store_requested_bytes = 0;
    std::uint64_t load_requests = 0, store_requests = 0, atomic_requests = 0, atomics = 0;
    // L1 <-> L2: whole 32-byte sectors.
    std::uint64_t load_sectors = 0, store_sectors = 0;
    std::uint64_t load_moved_bytes() const { return load_sectors * 32; }
    std::uint64_t store_moved_bytes() const { return store_sectors * 32; }
    double load_efficiency = 0, store_efficiency = 0;  // requested / moved
    double load_sectors_per_request = 0, store_sectors_per_request = 0;
    // Shared memory.
    std::uint64_t shared_requests = 0, shared_wavefronts = 0, shared_ideal_wavefronts = 0;
    std::uint64_t bank_conflicts = 0;
    // Work.
    std::uint64_t warp_instructions = 0, thread_instructions = 0;
    double branch_efficiency = 1;
    std::uint64_t block_barriers = 0;
    // The SM.
    bool has_occupancy = false;
    std::string arch;
    int registers_per_thread = 0, shared_bytes_per_block = 0, threads_per_block = 0;
    analysis::Occupancy occupancy;
};

HierarchyFigures hierarchy_figures(const analysis::KernelFigures& figures, const KernelInfo& kernel,
                                   const compiler::KernelResources* resources,
                                   const std::string& arch);

}  // namespace cudalab::viewmodel
