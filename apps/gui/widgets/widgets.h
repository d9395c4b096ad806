// Small drawing helpers shared by the panels and views: splitters, chips, legend swatches,
// drawn icon buttons, tooltips. Dear ImGui 1.86 has no docking, so the layout is fixed columns
// with splitters between them.
#pragma once

#include <imgui.h>

#include <string>

namespace cudalab::gui {

// A vertical bar between two columns; dragging it moves `fraction` (of `total`). True while
// dragged.
bool vertical_splitter(const char* id, float* fraction, float total, float min_fraction,
                       float max_fraction, float height);
// A horizontal bar between two rows.
bool horizontal_splitter(const char* id, float* fraction, float total, float min_fraction,
                         float max_fraction, float width);

// A rounded label with a background ("✓ passed").
void chip(const char* text, ImU32 background, ImU32 foreground);
// A small coloured square and a label, for legends.
void legend_item(ImU32 color, const char* label, bool outline = false);
// Text in the dimmed colour.
void text_dim(const char* fmt, ...) IM_FMTARGS(1);
// A section title in bold.
void section_title(const char* text);
// A tooltip when the last item is hovered.
void tooltip(const std::string& text);

enum class Icon { play, pause, step_forward, step_back, to_start, to_end, next_barrier };
bool icon_button(const char* id, Icon icon, const char* tip, bool enabled = true);

// Text drawn into the window's draw list, clipped to a width (with "…" when cut).
void draw_text_clipped(ImDrawList* dl, ImFont* font, ImVec2 pos, ImU32 color,
                       const std::string& text, float max_width);

}  // namespace cudalab::gui

namespace cudalab::gui {
// The draw list's current clip rectangle as (min x, min y, max x, max y).
inline ImVec4 clip_rect(ImDrawList* dl) {
    const ImVec2 a = dl->GetClipRectMin(), b = dl->GetClipRectMax();
    return ImVec4(a.x, a.y, b.x, b.y);
}
}  // namespace cudalab::gui
