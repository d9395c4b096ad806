// What every view of the trace shares: the trace's view data, which traced block is open, the
// playhead, and what the current step looks like (the warps' states, the memory access), cached
// so that it is rebuilt only when the step, the block or the trace changes, never per frame.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "viewmodel/memory_model.h"
#include "viewmodel/playback.h"
#include "viewmodel/shared_model.h"
#include "viewmodel/timeline_model.h"
#include "viewmodel/trace_views.h"

namespace cudalab::gui {

enum class ViewId { grid, warps, memory, shared, timeline, hierarchy };
constexpr int kViewCount = 6;
const char* view_name(ViewId v);   // "grid", ... (the --view argument)
const char* view_title(ViewId v);  // "Grid", ... (the tab)
std::optional<ViewId> view_from_name(const std::string& name);

struct ViewContext {
    std::shared_ptr<const viewmodel::TraceViews> views;
    std::size_t detail_block = 0;  // index into views->model.detail_blocks()
    viewmodel::Playback playback;

    // Rebuilt by refresh() when the step, block or trace changed.
    std::vector<viewmodel::WarpState> warps;
    viewmodel::AccessView access;
    viewmodel::SharedAccessView shared_access;
    const WarpEvent* event = nullptr;       // the current step's event
    std::vector<std::size_t> warp_history;  // the current warp's last steps, oldest first
    std::uint32_t line = 0;                 // its source line
    viewmodel::TimelineStrip strip;
    std::uint32_t strip_columns = 0;
    bool step_changed = false;  // this frame (views scroll to follow it)

    // View settings.
    int grid_coloring = 0;  // 0 SM, 1 wave
    bool follow = true;     // memory views scroll to the current access

    // Requests a view makes of the app.
    std::optional<std::uint32_t> trace_block_request;  // re-run, tracing this block in full
    std::optional<ViewId> switch_view;

    bool has_steps() const;
    const viewmodel::BlockEvents* block() const;
    std::int64_t step() const { return playback.position(); }
    void set_views(std::shared_ptr<const viewmodel::TraceViews> v,
                   std::optional<std::uint32_t> prefer_block);
    void select_block(std::size_t detail_index);
    void refresh();
    void ensure_strip(std::uint32_t columns);

  private:
    const viewmodel::TraceViews* cached_views_ = nullptr;
    std::int64_t cached_step_ = -2;
    std::size_t cached_block_ = ~std::size_t(0);
    const viewmodel::TraceViews* strip_views_ = nullptr;
    std::size_t strip_block_ = ~std::size_t(0);
};

void draw_grid_view(ViewContext& c);
void draw_warps_view(ViewContext& c);
void draw_memory_view(ViewContext& c);
void draw_shared_view(ViewContext& c);
void draw_timeline_view(ViewContext& c);
void draw_hierarchy_view(ViewContext& c);
void draw_playback_bar(ViewContext& c);
// Shown when there is no trace yet (compiling, compile error).
void draw_no_trace(const char* why);

}  // namespace cudalab::gui
