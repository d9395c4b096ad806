// Where each view should open: the step of the open block that shows what the view is for (the
// worst access of the line that moves the most sectors, the first step a warp runs split, the
// first bank conflict, the first barrier), with one line that says what to look at. The first
// frame a learner sees should already teach; a view that opens at step 1 mostly shows nothing.
//
// Also the step kinds `--find` and the views' "next ..." buttons look for, as pure functions of
// the trace so that tests can pin them.
#pragma once

#include <cstdint>
#include <string>

#include "viewmodel/trace_views.h"

namespace cudalab::viewmodel {

// The first step at or after `from` of detail block `block` of a kind: "global", "shared",
// "conflict" (a shared access with a bank conflict), "barrier", "divergence" (the first step a
// warp runs split: the instruction after a branch whose lanes went both ways), "exit". -1 when
// none matches or the kind is unknown.
std::int64_t find_step(const TraceViews& views, std::size_t block, const std::string& kind,
                       std::int64_t from = 0);
bool is_step_kind(const std::string& kind);

struct FirstPicture {
    std::int64_t step = -1;  // -1: nothing better than the start
    std::string caption;     // one line: what this picture shows and what to look at
};

// `view` is a view's --view name: grid, warps, memory, shared, timeline, hierarchy.
FirstPicture first_picture(const TraceViews& views, std::size_t block, const std::string& view);

}  // namespace cudalab::viewmodel
