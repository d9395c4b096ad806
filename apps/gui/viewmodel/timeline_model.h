// The timeline view's data: one block's steps compressed into at most N columns per warp, each
// column saying what the warp mostly did there (computed, touched memory, branched, waited at a
// barrier, exited) and how many of its lanes were active. Built once per block and trace; drawing
// it costs the same for ten steps or a million.
#pragma once

#include <cstdint>
#include <vector>

#include "viewmodel/trace_model.h"

namespace cudalab::viewmodel {

enum class StepClass : std::uint8_t {
    none,
    compute,
    global_memory,
    shared_memory,
    control,
    barrier,
    waiting,
    exit
};
const char* step_class_name(StepClass c);
StepClass classify(const Trace& trace, const WarpEvent& event);

struct TimelineStrip {
    std::uint32_t warps = 0;
    std::uint32_t columns = 0;
    std::size_t steps = 0;
    std::vector<StepClass> cls;              // warps x columns, row-major
    std::vector<std::uint8_t> active_lanes;  // mean active lanes (0..32), warps x columns
    std::vector<std::uint8_t> issued;        // 1 where the warp issued in that column; 0 where the
                                       // column repeats its last instruction (other warps ran)
    std::vector<std::size_t> barriers;  // steps of barrier releases

    StepClass at(std::uint32_t warp, std::uint32_t column) const {
        return cls[std::size_t(warp) * columns + column];
    }
    std::uint8_t lanes_at(std::uint32_t warp, std::uint32_t column) const {
        return active_lanes[std::size_t(warp) * columns + column];
    }
    bool issued_at(std::uint32_t warp, std::uint32_t column) const {
        return issued[std::size_t(warp) * columns + column];
    }
    // The first step a column covers, and the column a step falls in.
    std::size_t column_start(std::uint32_t column) const {
        return columns ? std::size_t(double(column) * double(steps) / columns) : 0;
    }
    std::uint32_t column_of(std::size_t step) const;
};

TimelineStrip build_timeline(const TraceModel& model, std::size_t detail_block,
                             std::uint32_t max_columns);

}  // namespace cudalab::viewmodel
