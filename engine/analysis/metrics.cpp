#include "analysis/metrics.h"

#include "base/hardware.h"

#include <algorithm>

namespace cudalab::analysis {

namespace {
double ratio(std::uint64_t a, std::uint64_t b) { return b ? double(a) / double(b) : 0.0; }

void add(Figures& f, const PcInfo& info, const PcCounters& c) {
    f.warp_instructions += c.warp_executions;
    f.thread_instructions += c.predicated_lanes;
    f.active_lanes += c.active_lanes;
    const bool global = c.requests > 0;
    if (info.opcode == "ld" || info.opcode == "ldu") {
        if (global) {
            f.global_load_requests += c.requests;
            f.global_load_sectors += c.sectors;
            f.global_load_bytes += c.requested_bytes;
        }
    } else if (info.opcode == "st") {
        if (global) {
            f.global_store_requests += c.requests;
            f.global_store_sectors += c.sectors;
            f.global_store_bytes += c.requested_bytes;
        }
    } else if (info.opcode == "atom" || info.opcode == "red") {
        if (global) {
            f.global_atomic_requests += c.requests;
            f.global_atomics += c.atomics;
            f.global_atomic_sectors += c.sectors;
            f.global_atomic_bytes += c.requested_bytes;
            if (info.opcode == "red") {
                f.global_reduction_requests += c.requests;
                f.global_reduction_sectors += c.sectors;
                f.global_reduction_bytes += c.requested_bytes;
            }
        } else f.shared_atomics += c.atomics;
    }
    if (c.shared_ideal_wavefronts > 0) {
        // One request per warp instruction that touched shared memory.
        f.shared_requests += c.warp_executions;
        f.shared_wavefronts += c.shared_wavefronts;
        f.shared_ideal_wavefronts += c.shared_ideal_wavefronts;
        const std::uint64_t extra = c.shared_wavefronts - c.shared_ideal_wavefronts;
        if (info.opcode == "st") f.shared_store_conflicts += extra;
        else if (info.opcode == "ld" || info.opcode == "ldu") f.shared_load_conflicts += extra;
    }
    if (info.opcode == "bra") {
        f.branches += c.warp_executions;
        f.divergent_branches += c.divergent_branches;
    }
    if (info.opcode == "bar" || info.opcode == "barrier") f.barriers_executed += c.warp_executions;
}
}  // namespace

double Figures::load_sectors_per_request() const {
    return ratio(global_load_sectors, global_load_requests);
}
double Figures::store_sectors_per_request() const {
    return ratio(global_store_sectors, global_store_requests);
}
double Figures::load_efficiency() const {
    return ratio(global_load_bytes, std::uint64_t(hw::sector_bytes) * global_load_sectors);
}
double Figures::store_efficiency() const {
    return ratio(global_store_bytes, std::uint64_t(hw::sector_bytes) * global_store_sectors);
}
double Figures::branch_efficiency() const {
    return warp_instructions
               ? double(active_lanes) / (double(hw::warp_size) * double(warp_instructions))
               : 1.0;
}

KernelFigures analyze(const Trace& trace) {
    KernelFigures k;
    std::map<std::uint32_t, Figures> by_line;
    for (std::size_t pc = 0; pc < trace.per_pc.size() && pc < trace.pcs.size(); ++pc) {
        const PcCounters& c = trace.per_pc[pc];
        if (c.warp_executions == 0) continue;
        const PcInfo& info = trace.pcs[pc];
        add(k.total, info, c);
        add(by_line[info.line], info, c);
        k.warp_instructions_by_class[info.op_class] += c.warp_executions;
    }
    for (auto& [line, f] : by_line) k.lines.push_back({line, f});
    k.block_barriers = trace.barriers;
    return k;
}

}  // namespace cudalab::analysis
