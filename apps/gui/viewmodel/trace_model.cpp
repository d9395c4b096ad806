#include "viewmodel/trace_model.h"

#include <algorithm>
#include <cstdio>

namespace cudalab::viewmodel {

const char* lane_state_name(LaneState s) {
    switch (s) {
    case LaneState::no_thread: return "no thread";
    case LaneState::not_started: return "not started";
    case LaneState::active: return "active";
    case LaneState::predicated_off: return "predicated off";
    case LaneState::masked: return "masked (divergence)";
    case LaneState::waiting: return "waiting at barrier";
    case LaneState::exited: return "exited";
    }
    return "?";
}

LaneState WarpState::lane(int l) const {
    const std::uint32_t bit = 1u << l;
    if (!(lanes & bit)) return LaneState::no_thread;
    if (exited & bit) return LaneState::exited;
    if (last_step < 0) return LaneState::not_started;
    if (waiting) return (active & bit) ? LaneState::waiting : LaneState::masked;
    if (active & bit) return (predicated_on & bit) ? LaneState::active : LaneState::predicated_off;
    return LaneState::masked;
}

TraceModel::TraceModel(std::shared_ptr<const Trace> trace) : trace_(std::move(trace)) {
    const KernelInfo& k = trace_->kernel;
    threads_per_block_ = k.block[0] * k.block[1] * k.block[2];
    warps_per_block_ = (threads_per_block_ + 31) / 32;
    block_count_ = k.grid[0] * k.grid[1] * k.grid[2];

    // Events are stored block after block (the emulator sorts detail blocks by id).
    const auto& ev = trace_->events;
    std::size_t i = 0;
    while (i < ev.size()) {
        BlockEvents b;
        b.block = ev[i].block;
        b.sm = ev[i].sm;
        b.begin = i;
        while (i < ev.size() && ev[i].block == b.block) {
            if (ev[i].kind == EventKind::barrier_release) b.barrier_steps.push_back(i - b.begin);
            ++i;
        }
        b.end = i;
        block_coords(b.block, b.coords);
        blocks_.push_back(std::move(b));
    }

    std::vector<WarpState> initial(warps_per_block_);
    for (std::uint32_t w = 0; w < warps_per_block_; ++w) {
        const std::uint32_t n = std::min<std::uint32_t>(32, threads_per_block_ - w * 32);
        initial[w].lanes = n == 32 ? 0xffffffffu : (1u << n) - 1;
    }
    checkpoints_.resize(blocks_.size());
    for (std::size_t b = 0; b < blocks_.size(); ++b) {
        std::vector<WarpState> state = initial;
        checkpoints_[b].push_back(state);
        const std::size_t n = blocks_[b].steps();
        for (std::size_t s = 0; s < n; ++s) {
            apply(state, ev[blocks_[b].begin + s], std::int64_t(s));
            if ((s + 1) % kCheckpointInterval == 0) checkpoints_[b].push_back(state);
        }
    }
}

void TraceModel::apply(std::vector<WarpState>& warps, const WarpEvent& e, std::int64_t step) const {
    if (e.kind == EventKind::barrier_release) {
        for (WarpState& w : warps) w.waiting = false;
        return;
    }
    if (e.warp >= warps.size()) return;
    WarpState& w = warps[e.warp];
    w.active = e.active;
    // A guarded branch's predicate picks the direction, not whether a lane runs: every active lane
    // executes it (the split shows at the next steps, as masked lanes).
    w.predicated_on = e.kind == EventKind::branch ? e.active : e.predicated_on;
    w.last_step = step;
    if (e.kind == EventKind::exit) w.exited |= e.predicated_on;
    if (e.kind == EventKind::barrier_arrive) w.waiting = true;
}

int TraceModel::find_detail_block(std::uint32_t linear) const {
    for (std::size_t i = 0; i < blocks_.size(); ++i)
        if (blocks_[i].block == linear) return int(i);
    return -1;
}

std::vector<WarpState> TraceModel::warps_at(std::size_t b, std::int64_t step) const {
    if (b >= blocks_.size()) return {};
    const std::int64_t last = std::int64_t(blocks_[b].steps()) - 1;
    step = std::clamp<std::int64_t>(step, -1, last);
    const std::size_t k = std::size_t(step + 1) / kCheckpointInterval;
    std::vector<WarpState> state = checkpoints_[b][std::min(k, checkpoints_[b].size() - 1)];
    for (std::int64_t s = std::int64_t(k * kCheckpointInterval); s <= step; ++s)
        apply(state, trace_->events[blocks_[b].begin + std::size_t(s)], s);
    return state;
}

std::int64_t TraceModel::next_barrier(std::size_t b, std::int64_t step) const {
    if (b >= blocks_.size()) return -1;
    const auto& steps = blocks_[b].barrier_steps;
    if (step < 0) return steps.empty() ? -1 : std::int64_t(steps.front());
    auto it = std::upper_bound(steps.begin(), steps.end(), std::size_t(step));
    return it == steps.end() ? -1 : std::int64_t(*it);
}

void TraceModel::block_coords(std::uint32_t linear, std::uint32_t out[3]) const {
    const KernelInfo& k = trace_->kernel;
    out[0] = linear % k.grid[0];
    out[1] = (linear / k.grid[0]) % k.grid[1];
    out[2] = linear / (k.grid[0] * k.grid[1]);
}

std::string TraceModel::block_label(std::uint32_t linear) const {
    std::uint32_t c[3];
    block_coords(linear, c);
    const KernelInfo& k = trace_->kernel;
    char buf[48];
    if (k.grid[2] > 1) std::snprintf(buf, sizeof buf, "(%u, %u, %u)", c[0], c[1], c[2]);
    else if (k.grid[1] > 1) std::snprintf(buf, sizeof buf, "(%u, %u)", c[0], c[1]);
    else std::snprintf(buf, sizeof buf, "(%u)", c[0]);
    return buf;
}

}  // namespace cudalab::viewmodel
