// The trace as the views step through it: the detail blocks' events indexed per block, and the
// state of every warp of a block after any step, without replaying from the start (a checkpoint
// every kCheckpointInterval events), so scrubbing costs the same wherever the playhead is.
//
// A step is one event of the block (WarpEvent, in the order the emulator ran it); "at step s"
// means after events 0..s of that block were executed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "trace/trace.h"

namespace cudalab::viewmodel {

// What one lane of a warp is doing at a step, as the warps view colours it.
enum class LaneState : std::uint8_t {
    no_thread,       // the block has no thread here (its size is not a multiple of 32)
    not_started,     // the warp has not issued an instruction yet
    active,          // executing the current instruction
    predicated_off,  // active, but the instruction's guard predicate is false for it
    masked,          // waiting on the other side of a divergent branch
    waiting,         // arrived at __syncthreads and waits for the rest of the block
    exited,          // returned / exited
};
const char* lane_state_name(LaneState s);

struct WarpState {
    std::uint32_t lanes = 0;  // threads that exist in this warp
    std::uint32_t exited = 0;
    std::uint32_t active = 0;         // at its last instruction
    std::uint32_t predicated_on = 0;  // ... whose guard held
    bool waiting = false;             // at a barrier
    std::int64_t last_step = -1;      // its last event (block-relative), -1: none yet
    LaneState lane(int lane) const;
    bool done() const { return lanes != 0 && (exited & lanes) == lanes; }
};

struct BlockEvents {
    std::uint32_t block = 0;  // linear block id
    std::uint32_t coords[3] = {0, 0, 0};
    std::size_t begin = 0, end = 0;  // range in Trace::events
    std::uint8_t sm = 0;
    std::vector<std::size_t> barrier_steps;  // block-relative steps of barrier releases
    std::size_t steps() const { return end - begin; }
};

class TraceModel {
  public:
    static constexpr std::size_t kCheckpointInterval = 256;

    explicit TraceModel(std::shared_ptr<const Trace> trace);

    const Trace& trace() const { return *trace_; }
    const std::shared_ptr<const Trace>& trace_ptr() const { return trace_; }
    std::uint32_t threads_per_block() const { return threads_per_block_; }
    std::uint32_t warps_per_block() const { return warps_per_block_; }
    std::uint32_t block_count() const { return block_count_; }  // whole grid

    const std::vector<BlockEvents>& detail_blocks() const { return blocks_; }
    // Index into detail_blocks() of a linear block id, or -1 when that block was not traced.
    int find_detail_block(std::uint32_t linear) const;

    // Every warp of detail block `b` after step `step` (-1: before the first).
    std::vector<WarpState> warps_at(std::size_t b, std::int64_t step) const;
    const WarpEvent& event(std::size_t b, std::size_t step) const {
        return trace_->events[blocks_[b].begin + step];
    }
    // The first barrier release after `step`, or -1.
    std::int64_t next_barrier(std::size_t b, std::int64_t step) const;
    // The block's coordinates "(x, y, z)" with trailing 1-dimensions dropped: "(5)", "(2, 3)".
    std::string block_label(std::uint32_t linear) const;
    void block_coords(std::uint32_t linear, std::uint32_t out[3]) const;

  private:
    void apply(std::vector<WarpState>& warps, const WarpEvent& e, std::int64_t step) const;

    std::shared_ptr<const Trace> trace_;
    std::uint32_t threads_per_block_ = 0, warps_per_block_ = 0, block_count_ = 0;
    std::vector<BlockEvents> blocks_;
    // Per detail block: warp states after steps k*interval - 1 (k = 0 is the initial state).
    std::vector<std::vector<std::vector<WarpState>>> checkpoints_;
};

}  // namespace cudalab::viewmodel
