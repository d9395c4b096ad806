// Colours and fonts, in one place: the ImGui style, what each lane state, step kind, verdict and
// token kind looks like, and the palette that tells SMs apart.
#pragma once

#include <imgui.h>

#include <cstdint>

#include "viewmodel/code_annotations.h"
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
inline const ImU32 chrome = rgb(0x121419);       // toolbar and status bar
inline const ImU32 panel = rgb(0x1b1e25);
inline const ImU32 panel_light = rgb(0x232731);
inline const ImU32 border = rgb(0x2e3340);
inline const ImU32 text = rgb(0xdfe3ea);
inline const ImU32 text_dim = rgb(0x8a91a0);
inline const ImU32 text_faint = rgb(0x5c6373);
inline const ImU32 accent = rgb(0x76b900);       // NVIDIA green: active, passed
inline const ImU32 accent_soft = rgb(0x76b900, 60);
inline const ImU32 good = rgb(0x6cc04a);
inline const ImU32 fair = rgb(0xe0b43c);
inline const ImU32 poor = rgb(0xe5534b);
inline const ImU32 info = rgb(0x5b9cf0);
inline const ImU32 load = rgb(0x4fc3f7);         // memory read
inline const ImU32 store = rgb(0xffa94d);        // memory write
inline const ImU32 atomic = rgb(0xf06595);
inline const ImU32 current_line = rgb(0x76b900, 38);
}  // namespace colors

ImU32 lane_color(viewmodel::LaneState s);
ImU32 step_color(viewmodel::StepClass c);
ImU32 verdict_color(viewmodel::Verdict v);
ImU32 token_color(viewmodel::TokenKind k);
ImU32 sm_color(std::uint32_t sm, float brightness = 1.0f);
ImU32 heat_color(float t);  // 0..1, dark to bright teal
ImU32 with_alpha(ImU32 c, float alpha);
ImU32 mix(ImU32 a, ImU32 b, float t);

void apply_style(float scale);

}  // namespace cudalab::gui
