#include "views/view_context.h"

#include <algorithm>

namespace cudalab::gui {

const char* view_name(ViewId v) {
    switch (v) {
    case ViewId::grid: return "grid";
    case ViewId::warps: return "warps";
    case ViewId::memory: return "memory";
    case ViewId::shared: return "shared";
    case ViewId::timeline: return "timeline";
    case ViewId::hierarchy: return "hierarchy";
    }
    return "grid";
}

const char* view_title(ViewId v) {
    switch (v) {
    case ViewId::grid: return "Grid";
    case ViewId::warps: return "Warps";
    case ViewId::memory: return "Memory";
    case ViewId::shared: return "Shared";
    case ViewId::timeline: return "Timeline";
    case ViewId::hierarchy: return "Hierarchy";
    }
    return "Grid";
}

std::optional<ViewId> view_from_name(const std::string& name) {
    for (int i = 0; i < kViewCount; ++i)
        if (name == view_name(ViewId(i))) return ViewId(i);
    return std::nullopt;
}

bool ViewContext::has_steps() const {
    return views && detail_block < views->model.detail_blocks().size();
}

const viewmodel::BlockEvents* ViewContext::block() const {
    return has_steps() ? &views->model.detail_blocks()[detail_block] : nullptr;
}

void ViewContext::set_views(std::shared_ptr<const viewmodel::TraceViews> v,
                            std::optional<std::uint32_t> prefer_block) {
    std::uint32_t previous = block() ? block()->block : 0;
    views = std::move(v);
    detail_block = 0;
    if (views) {
        int i = views->model.find_detail_block(prefer_block.value_or(previous));
        if (i >= 0) detail_block = std::size_t(i);
    }
    playback.reset(block() ? block()->steps() : 0);
}

void ViewContext::select_block(std::size_t detail_index) {
    if (!views || detail_index >= views->model.detail_blocks().size()) return;
    detail_block = detail_index;
    playback.reset(block()->steps());
}

void ViewContext::refresh() {
    step_changed = false;
    const std::int64_t s = step();
    if (views.get() == cached_views_ && s == cached_step_ && detail_block == cached_block_) return;
    cached_views_ = views.get();
    cached_step_ = s;
    cached_block_ = detail_block;
    step_changed = true;
    warps.clear();
    access = {};
    shared_access = {};
    event = nullptr;
    line = 0;
    warp_history.clear();
    if (!has_steps() || s < 0) return;
    const auto& model = views->model;
    warps = model.warps_at(detail_block, s);
    const std::size_t index = block()->begin + std::size_t(s);
    event = &model.trace().events[index];
    if (event->kind != EventKind::barrier_release && event->pc < model.trace().pcs.size())
        line = model.trace().pcs[event->pc].line;
    access = viewmodel::access_at(model.trace(), views->memory, index);
    // The current warp's recent instructions: a bounded look back, so the cost does not grow
    // with the trace.
    if (event->kind != EventKind::barrier_release) {
        constexpr std::size_t kHistory = 12, kLookBack = 4096;
        for (std::int64_t st = s;
             st >= 0 && std::size_t(s - st) < kLookBack && warp_history.size() < kHistory; --st) {
            const WarpEvent& e = model.event(detail_block, std::size_t(st));
            if (e.kind != EventKind::barrier_release && e.warp == event->warp)
                warp_history.push_back(std::size_t(st));
        }
        std::reverse(warp_history.begin(), warp_history.end());
    }
    shared_access = viewmodel::shared_access_at(model.trace(), index);
}

void ViewContext::ensure_strip(std::uint32_t columns) {
    columns = std::max<std::uint32_t>(16, columns);
    if (strip_views_ == views.get() && strip_block_ == detail_block && strip_columns == columns)
        return;
    strip_views_ = views.get();
    strip_block_ = detail_block;
    strip_columns = columns;
    strip = has_steps() ? viewmodel::build_timeline(views->model, detail_block, columns)
                        : viewmodel::TimelineStrip{};
}

}  // namespace cudalab::gui
