// Colours and fonts, in one place: the ImGui style, what each lane state, step kind, verdict and
// token kind looks like, and the palette that tells SMs apart.
#pragma once

#include <imgui.h>

#include <cstdint>

#include "viewmodel/code_annotations.h"
#include "viewmodel/streams_model.h"
#include "viewmodel/syntax.h"
#include "viewmodel/timeline_model.h"
#include "viewmodel/trace_model.h"

namespace cudalab::gui {

struct Fonts {
    ImFont* ui = nullptr;
    ImFont* ui_bold = nullptr;
    ImFont* ui_italic = nullptr;
    ImFont* ui_bold_italic = nullptr;
    ImFont* small = nullptr;
    ImFont* mono = nullptr;
    ImFont* mono_bold = nullptr;
    ImFont* mono_small = nullptr;
    ImFont* h1 = nullptr;
    ImFont* h2 = nullptr;
    ImFont* h3 = nullptr;
    float scale = 1.0f;  // the monitor's content scale (HiDPI)
};
Fonts& fonts();

namespace colors {
constexpr ImU32 rgb(std::uint32_t hex, std::uint8_t alpha = 255) {
    return IM_COL32((hex >> 16) & 0xFF, (hex >> 8) & 0xFF, hex & 0xFF, alpha);
}
// The frame is cleared to `background` and panels are drawn as outlines over it, not filled: under
// a software rasteriser (llvmpipe) every full-window layer of fill costs about 9 ms at 1600x1000.
inline const ImU32 background = rgb(0x181b21);
inline const ImU32 chrome = rgb(0x121419);  // toolbar and status bar
inline const ImU32 panel = rgb(0x1b1e25);
inline const ImU32 panel_light = rgb(0x232731);
inline const ImU32 border = rgb(0x2e3340);
inline const ImU32 text = rgb(0xdfe3ea);
inline const ImU32 text_dim = rgb(0x8a91a0);
inline const ImU32 text_faint = rgb(0x5c6373);
inline const ImU32 accent = rgb(0x76b900);  // NVIDIA green: active, passed
inline const ImU32 accent_soft = rgb(0x76b900, 60);
inline const ImU32 good = rgb(0x6cc04a);
inline const ImU32 fair = rgb(0xe0b43c);
inline const ImU32 poor = rgb(0xe5534b);
inline const ImU32 info = rgb(0x5b9cf0);
inline const ImU32 load = rgb(0x4fc3f7);   // memory read
inline const ImU32 store = rgb(0xffa94d);  // memory write
inline const ImU32 atomic = rgb(0xf06595);
inline const ImU32 current_line = rgb(0x76b900, 38);
// Roles of the panels and views (every colour the app draws is named here).
// the logo's unlit blocks
inline const ImU32 logo_cell = rgb(0x4a5266);
// a chip that states no verdict (checking...)
inline const ImU32 chip_neutral = rgb(0x2c3446);
// a failing chip's background and text
inline const ImU32 chip_fail = rgb(0x5a2326);
inline const ImU32 chip_fail_text = rgb(0xffb4b0);
// a passing chip's background and text
inline const ImU32 chip_pass = rgb(0x2d4a12);
inline const ImU32 chip_pass_text = rgb(0xc8f08c);
// an attention chip (unsaved)
inline const ImU32 chip_warn = rgb(0x4a3b12);
inline const ImU32 chip_warn_text = rgb(0xffd98a);
// the first picture's caption box
inline const ImU32 caption = rgb(0x1d3140);
// sunken areas: the gutter, the timeline strip
inline const ImU32 well = rgb(0x15171c);
// a line with a compile error / warning
inline const ImU32 error_line = rgb(0xe5534b, 40);
// a race between streams on the streams timeline
inline const ImU32 race_mark = rgb(0xe5534b);
inline const ImU32 warning_line = rgb(0xe0b43c, 32);
// behind a TODO in the code
inline const ImU32 todo_mark = rgb(0xffcf4a, 40);
// a hovered row
inline const ImU32 hover_tint = rgb(0xffffff, 14);
inline const ImU32 hover_tint_strong = rgb(0xffffff, 18);
// outlines over coloured cells
inline const ImU32 outline_strong = rgb(0xffffff, 200);
inline const ImU32 block_outline = rgb(0xffffff, 220);  // the open block in the grid
// a sector the request moves (linear buffers)
inline const ImU32 sector_outline = rgb(0xffffff, 230);
// marks that must stand out: the playhead, the caret, traced blocks
inline const ImU32 white = rgb(0xffffff);
// a failed check's name
inline const ImU32 fail_text = rgb(0xffd0cc);
// a revealed hint's box
inline const ImU32 hint_box = rgb(0x2a2618);
// Markdown: inline code, strong text, headings, boxes, tables
inline const ImU32 md_code = rgb(0xe6c07b);
inline const ImU32 text_strong = rgb(0xf3f5f8);
inline const ImU32 md_code_box = rgb(0x2b303b);
inline const ImU32 heading = rgb(0xe9edf3);
inline const ImU32 md_quote = rgb(0x11131a);
inline const ImU32 accent_line = rgb(0x76b900, 150);
inline const ImU32 table_header = rgb(0x262b36);
inline const ImU32 table_row_alt = rgb(0x1e222a);
// mixed in to darken
inline const ImU32 black = rgb(0x000000);
// text on a bright fill
inline const ImU32 ink = rgb(0x0d0f12);
inline const ImU32 ink_soft = rgb(0x0d0f12, 230);  // a block's label on its tile
// empty bars and tracks (occupancy, scrub bar, banks)
inline const ImU32 track = rgb(0x2a2f3b);
// the memory hierarchy's levels and compute
inline const ImU32 compute = rgb(0x4e79a7);
inline const ImU32 l2 = rgb(0xb07aa1);
inline const ImU32 dram = rgb(0xf28e2b);
// a memory cell not touched yet / outside the buffer
inline const ImU32 cell_empty = rgb(0x242935);
inline const ImU32 cell_outside = rgb(0x1c1f26);
// barriers and phase boundaries
inline const ImU32 barrier = rgb(0xe15759);
// a bank asked for one word
inline const ImU32 bank_ok = rgb(0x3f7d3a);
// a lane's line to a conflicting bank
inline const ImU32 conflict_line = rgb(0xe5534b, 200);
// a lane's cell outline
inline const ImU32 lane_outline = rgb(0x3a4152, 160);
inline const ImU32 lane_outline_faint = rgb(0x3a4152, 120);
// nothing running here (a lane with no thread, a page on the host)
inline const ImU32 idle = rgb(0x3a4152);
// the timeline's phases
inline const ImU32 phase_current = rgb(0x31405a);
inline const ImU32 phase_odd = rgb(0x222836);
inline const ImU32 phase_even = rgb(0x2a3040);
// the current row of a table
inline const ImU32 accent_row = rgb(0x76b900, 40);
// the issuing warp's row
inline const ImU32 accent_band = rgb(0x76b900, 28);
// a quoted source line
inline const ImU32 source_text = rgb(0xe6e9ef);
// the cross of a lane with no thread
inline const ImU32 no_thread_cross = rgb(0x5a5f6b);
// the stroke of a predicated-off lane
inline const ImU32 predicated_stroke = rgb(0x2a2410);
// an exited lane
inline const ImU32 exited = rgb(0x2a2d35);
// Clear, for ImGui style colours (a widget whose own drawing is replaced).
inline const ImVec4 clear4 = ImVec4(0, 0, 0, 0);
}  // namespace colors

// Spacing roles, in pixels at scale 1 (multiply by fonts().scale). Horizontal gaps (SameLine),
// smallest first:
namespace spacing {
constexpr float hairline_gap = 2;  // a mark and the text it marks (a check's tick and its name)
constexpr float tight_gap = 4;     // a swatch and its label; controls that belong together
constexpr float button_gap = 6;    // between the toolbar's buttons
constexpr float item_x = 8;        // between items inside a view
constexpr float label_gap = 10;    // a title and the chip or label after it
constexpr float legend_gap = 12;   // between legend entries
constexpr float group_gap = 14;    // between groups of controls or legends on one line
constexpr float wide_gap = 20;     // after a heading or an option group that opens a line
// Vertical gaps (Dummy), smallest first:
constexpr float row_gap = 2;       // under a legend or status line
constexpr float line_gap = 4;      // between a view's lines of controls
constexpr float dense_item_y = 5;  // between the items of a dense list (the check cards)
constexpr float item_y = 6;        // between items inside a view
constexpr float section_gap = 6;   // between a view's parts (the box and the playback bar, buffers)
constexpr float block_gap = 8;     // above a view's explanatory text
constexpr float card_gap = 10;     // between check cards
// Padding:
constexpr float tab_pad_x = 12, tab_pad_y = 6;        // the view tabs' frame padding
constexpr float view_pad_x = 12, view_pad_y = 10;     // inside the view's box and the check list
constexpr float panel_pad_x = 16, panel_pad_y = 12;   // inside the lesson text
constexpr float button_pad_x = 10, button_pad_y = 5;  // the lesson panel's tabs and headers
constexpr float header_pad_x = 8;                     // the course header
}  // namespace spacing

ImU32 lane_color(viewmodel::LaneState s);
ImU32 step_color(viewmodel::StepClass c);
ImU32 verdict_color(viewmodel::Verdict v);
ImU32 token_color(viewmodel::TokenKind k);
ImU32 stream_engine_color(viewmodel::StreamEngine e);  // the streams timeline's items
ImU32 sm_color(std::uint32_t sm, float brightness = 1.0f);
ImU32 heat_color(float t);  // 0..1, dark to bright teal
ImU32 with_alpha(ImU32 c, float alpha);
ImU32 mix(ImU32 a, ImU32 b, float t);

void apply_style(float scale);

}  // namespace cudalab::gui
