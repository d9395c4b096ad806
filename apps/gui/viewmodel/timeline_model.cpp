#include "viewmodel/timeline_model.h"

#include <algorithm>

namespace cudalab::viewmodel {

const char* step_class_name(StepClass c) {
    switch (c) {
    case StepClass::none: return "idle";
    case StepClass::compute: return "compute";
    case StepClass::global_memory: return "global memory";
    case StepClass::shared_memory: return "shared memory";
    case StepClass::control: return "branch";
    case StepClass::barrier: return "barrier";
    case StepClass::waiting: return "waiting at barrier";
    case StepClass::exit: return "exit";
    }
    return "?";
}

StepClass classify(const Trace& trace, const WarpEvent& e) {
    if (e.kind == EventKind::exit) return StepClass::exit;
    if (e.kind == EventKind::barrier_arrive || e.kind == EventKind::barrier_release)
        return StepClass::barrier;
    if (e.mem >= 0) {
        MemSpace s = trace.accesses[std::size_t(e.mem)].space;
        // Another block's shared memory (a cluster's distributed shared memory) is shared memory.
        return s == MemSpace::shared || s == MemSpace::distributed_shared
                   ? StepClass::shared_memory
                   : StepClass::global_memory;
    }
    if (e.kind == EventKind::branch) return StepClass::control;
    if (e.pc < trace.pcs.size() && trace.pcs[e.pc].op_class == "control") return StepClass::control;
    return StepClass::compute;
}

std::uint32_t TimelineStrip::column_of(std::size_t step) const {
    if (steps == 0 || columns == 0) return 0;
    return std::min<std::uint32_t>(columns - 1,
                                   std::uint32_t(double(step) * columns / double(steps)));
}

namespace {
// When several kinds of step share a column, the rarer, more telling one wins.
int priority(StepClass c) {
    switch (c) {
    case StepClass::none: return 0;
    case StepClass::waiting: return 1;
    case StepClass::compute: return 2;
    case StepClass::control: return 3;
    case StepClass::global_memory: return 4;
    case StepClass::shared_memory: return 5;
    case StepClass::barrier: return 6;
    case StepClass::exit: return 7;
    }
    return 0;
}
}  // namespace

TimelineStrip build_timeline(const TraceModel& model, std::size_t detail_block,
                             std::uint32_t max_columns) {
    TimelineStrip s;
    if (detail_block >= model.detail_blocks().size()) return s;
    const BlockEvents& b = model.detail_blocks()[detail_block];
    const Trace& trace = model.trace();
    s.warps = model.warps_per_block();
    s.steps = b.steps();
    s.columns = std::max<std::uint32_t>(
        1, std::min<std::uint32_t>(max_columns, std::uint32_t(std::max<std::size_t>(1, s.steps))));
    s.cls.assign(std::size_t(s.warps) * s.columns, StepClass::none);
    s.active_lanes.assign(std::size_t(s.warps) * s.columns, 0);
    s.barriers = b.barrier_steps;
    std::vector<std::uint32_t> lane_sum(std::size_t(s.warps) * s.columns, 0),
        count(std::size_t(s.warps) * s.columns, 0);
    std::vector<bool> waiting(s.warps, false);
    std::uint32_t column = 0;
    auto mark_waiting = [&](std::uint32_t col) {
        for (std::uint32_t w = 0; w < s.warps; ++w) {
            StepClass& c = s.cls[std::size_t(w) * s.columns + col];
            if (waiting[w] && c == StepClass::none) c = StepClass::waiting;
        }
    };
    for (std::size_t step = 0; step < s.steps; ++step) {
        const std::uint32_t col = s.column_of(step);
        while (column < col) mark_waiting(column++);
        const WarpEvent& e = trace.events[b.begin + step];
        if (e.kind == EventKind::barrier_release) {
            mark_waiting(col);
            std::fill(waiting.begin(), waiting.end(), false);
            continue;
        }
        if (e.warp >= s.warps) continue;
        const std::size_t at = std::size_t(e.warp) * s.columns + col;
        StepClass c = classify(trace, e);
        if (priority(c) > priority(s.cls[at])) s.cls[at] = c;
        lane_sum[at] += std::uint32_t(__builtin_popcount(e.active));
        count[at] += 1;
        if (e.kind == EventKind::barrier_arrive) waiting[e.warp] = true;
    }
    while (column < s.columns) mark_waiting(column++);
    for (std::size_t i = 0; i < lane_sum.size(); ++i)
        s.active_lanes[i] = count[i] ? std::uint8_t((lane_sum[i] + count[i] / 2) / count[i]) : 0;
    // Between two of its instructions a warp is still in the state of the first: carry it forward
    // (until it exits or waits), marked as not issued.
    s.issued.assign(s.cls.size(), 0);
    for (std::uint32_t w = 0; w < s.warps; ++w) {
        StepClass last = StepClass::none;
        std::uint8_t last_lanes = 0;
        for (std::uint32_t col = 0; col < s.columns; ++col) {
            const std::size_t at = std::size_t(w) * s.columns + col;
            if (count[at]) {
                s.issued[at] = 1;
                last = s.cls[at] == StepClass::exit || s.cls[at] == StepClass::barrier
                           ? StepClass::none
                           : s.cls[at];
                last_lanes = s.active_lanes[at];
            } else if (s.cls[at] == StepClass::none && last != StepClass::none) {
                s.cls[at] = last;
                s.active_lanes[at] = last_lanes;
            } else if (s.cls[at] == StepClass::waiting) {
                last = StepClass::none;
            }
        }
    }
    return s;
}

}  // namespace cudalab::viewmodel
