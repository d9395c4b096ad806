#include "shell/theme.h"

#include <algorithm>
#include <cmath>

namespace cudalab::gui {

Fonts& fonts() {
    static Fonts f;
    return f;
}

ImU32 with_alpha(ImU32 c, float alpha) {
    ImU32 a = ImU32(std::clamp(alpha, 0.0f, 1.0f) * float((c >> IM_COL32_A_SHIFT) & 0xFF));
    return (c & ~IM_COL32_A_MASK) | (a << IM_COL32_A_SHIFT);
}

ImU32 mix(ImU32 a, ImU32 b, float t) {
    t = std::clamp(t, 0.0f, 1.0f);
    auto ch = [&](int shift) {
        float x = float((a >> shift) & 0xFF), y = float((b >> shift) & 0xFF);
        return ImU32(x + (y - x) * t) << shift;
    };
    return ch(IM_COL32_R_SHIFT) | ch(IM_COL32_G_SHIFT) | ch(IM_COL32_B_SHIFT) |
           ch(IM_COL32_A_SHIFT);
}

ImU32 lane_color(viewmodel::LaneState s) {
    using viewmodel::LaneState;
    switch (s) {
    case LaneState::no_thread: return colors::rgb(0x000000, 0);
    case LaneState::not_started: return colors::rgb(0x3a4152);
    case LaneState::active: return colors::accent;
    case LaneState::predicated_off: return colors::rgb(0xc9a227);
    case LaneState::masked: return colors::rgb(0xb4532a);
    case LaneState::waiting: return colors::rgb(0x5b8def);
    case LaneState::exited: return colors::rgb(0x2a2d35);
    }
    return colors::text;
}

ImU32 step_color(viewmodel::StepClass c) {
    using viewmodel::StepClass;
    switch (c) {
    case StepClass::none: return colors::rgb(0x000000, 0);
    case StepClass::compute: return colors::rgb(0x4e79a7);
    case StepClass::global_memory: return colors::rgb(0xf28e2b);
    case StepClass::shared_memory: return colors::rgb(0xb07aa1);
    case StepClass::control: return colors::rgb(0xedc948);
    case StepClass::barrier: return colors::rgb(0xe15759);
    case StepClass::waiting: return colors::rgb(0x5b8def, 90);
    case StepClass::exit: return colors::rgb(0x8a8f9c);
    }
    return colors::text;
}

// Copies in the memory colours (in: load blue, out: store orange), kernels in the accent, so that
// overlap reads as colours stacked in one column of time.
ImU32 stream_engine_color(viewmodel::StreamEngine e) {
    using viewmodel::StreamEngine;
    switch (e) {
    case StreamEngine::h2d: return colors::load;
    case StreamEngine::kernel: return colors::accent;
    case StreamEngine::d2h: return colors::store;
    case StreamEngine::copy: return colors::rgb(0xb07aa1);
    case StreamEngine::memset: return colors::rgb(0x9c755f);
    case StreamEngine::host_function: return colors::rgb(0xedc948);
    case StreamEngine::event: return colors::rgb(0xe15759);
    case StreamEngine::graph: return colors::rgb(0x76b7b2);
    case StreamEngine::alloc: return colors::rgb(0x8a8f9c);
    case StreamEngine::pages: return colors::atomic;
    case StreamEngine::api: return colors::rgb(0x5c6b8a);
    }
    return colors::text;
}

ImU32 verdict_color(viewmodel::Verdict v) {
    switch (v) {
    case viewmodel::Verdict::good: return colors::good;
    case viewmodel::Verdict::fair: return colors::fair;
    case viewmodel::Verdict::poor: return colors::poor;
    default: return colors::text_dim;
    }
}

ImU32 token_color(viewmodel::TokenKind k) {
    using viewmodel::TokenKind;
    switch (k) {
    case TokenKind::text: return colors::rgb(0xd7dae0);
    case TokenKind::keyword: return colors::rgb(0xc678dd);
    case TokenKind::type: return colors::rgb(0x56b6c2);
    case TokenKind::cuda: return colors::rgb(0x9ccc3a);
    case TokenKind::number: return colors::rgb(0xd19a66);
    case TokenKind::string: return colors::rgb(0x98c379);
    case TokenKind::comment: return colors::rgb(0x7d8799);
    case TokenKind::preprocessor: return colors::rgb(0xe06c75);
    case TokenKind::todo: return colors::rgb(0xffcf4a);
    case TokenKind::punctuation: return colors::rgb(0xabb2bf);
    }
    return colors::text;
}

ImU32 sm_color(std::uint32_t sm, float brightness) {
    // Golden-ratio hues: neighbouring SMs get clearly different colours.
    float h = std::fmod(0.58f + float(sm) * 0.618034f, 1.0f);
    float r, g, b;
    ImGui::ColorConvertHSVtoRGB(h, 0.50f, 0.72f * brightness, r, g, b);
    return ImGui::ColorConvertFloat4ToU32(ImVec4(r, g, b, 1.0f));
}

ImU32 heat_color(float t) {
    t = std::clamp(t, 0.0f, 1.0f);
    return mix(colors::rgb(0x1f3a44), colors::rgb(0x3fa7b5), std::sqrt(t));
}

void apply_style(float scale) {
    ImGuiStyle& s = ImGui::GetStyle();
    ImGui::StyleColorsDark(&s);
    s.WindowPadding = ImVec2(10, 8);
    s.FramePadding = ImVec2(8, 4);
    s.ItemSpacing = ImVec2(8, 6);
    s.ItemInnerSpacing = ImVec2(6, 4);
    s.ScrollbarSize = 12;
    s.GrabMinSize = 10;
    s.WindowBorderSize = 0;
    s.ChildBorderSize = 1;
    s.FrameBorderSize = 0;
    s.PopupBorderSize = 1;
    s.WindowRounding = 0;
    s.ChildRounding = 4;
    s.FrameRounding = 4;
    s.PopupRounding = 4;
    s.ScrollbarRounding = 6;
    s.GrabRounding = 4;
    s.TabRounding = 4;
    s.IndentSpacing = 18;
    ImVec4* c = s.Colors;
    auto v = [](std::uint32_t hex, float a = 1.0f) {
        return ImVec4(float((hex >> 16) & 0xFF) / 255.f, float((hex >> 8) & 0xFF) / 255.f,
                      float(hex & 0xFF) / 255.f, a);
    };
    c[ImGuiCol_Text] = v(0xdfe3ea);
    c[ImGuiCol_TextDisabled] = v(0x8a91a0);
    c[ImGuiCol_WindowBg] = v(0x181b21);
    c[ImGuiCol_ChildBg] = v(0x1b1e25, 0.0f);  // panels are outlined, not filled (theme.h)
    c[ImGuiCol_PopupBg] = v(0x1f232b, 0.98f);
    c[ImGuiCol_Border] = v(0x2e3340);
    c[ImGuiCol_FrameBg] = v(0x262a34);
    c[ImGuiCol_FrameBgHovered] = v(0x2f3441);
    c[ImGuiCol_FrameBgActive] = v(0x363c4b);
    c[ImGuiCol_TitleBg] = v(0x14161b);
    c[ImGuiCol_TitleBgActive] = v(0x1b1e25);
    c[ImGuiCol_MenuBarBg] = v(0x1b1e25);
    c[ImGuiCol_ScrollbarBg] = v(0x1b1e25, 0.0f);
    c[ImGuiCol_ScrollbarGrab] = v(0x3a4050);
    c[ImGuiCol_ScrollbarGrabHovered] = v(0x4a5266);
    c[ImGuiCol_ScrollbarGrabActive] = v(0x5a6378);
    c[ImGuiCol_CheckMark] = v(0x76b900);
    c[ImGuiCol_SliderGrab] = v(0x76b900, 0.85f);
    c[ImGuiCol_SliderGrabActive] = v(0x8fd400);
    c[ImGuiCol_Button] = v(0x2a2f3b);
    c[ImGuiCol_ButtonHovered] = v(0x384052);
    c[ImGuiCol_ButtonActive] = v(0x465067);
    c[ImGuiCol_Header] = v(0x2a2f3b);
    c[ImGuiCol_HeaderHovered] = v(0x323848);
    c[ImGuiCol_HeaderActive] = v(0x3a4255);
    c[ImGuiCol_Separator] = v(0x2e3340);
    c[ImGuiCol_SeparatorHovered] = v(0x76b900, 0.6f);
    c[ImGuiCol_SeparatorActive] = v(0x76b900);
    c[ImGuiCol_Tab] = v(0x1b1e25);
    c[ImGuiCol_TabHovered] = v(0x323848);
    c[ImGuiCol_TabActive] = v(0x2c3240);
    c[ImGuiCol_TabUnfocused] = v(0x1b1e25);
    c[ImGuiCol_TabUnfocusedActive] = v(0x2c3240);
    c[ImGuiCol_TableHeaderBg] = v(0x232731);
    c[ImGuiCol_TableBorderStrong] = v(0x2e3340);
    c[ImGuiCol_TableBorderLight] = v(0x262a34);
    c[ImGuiCol_TableRowBg] = v(0x000000, 0.0f);
    c[ImGuiCol_TableRowBgAlt] = v(0xffffff, 0.025f);
    c[ImGuiCol_TextSelectedBg] = v(0x3d6fb4, 0.55f);
    c[ImGuiCol_NavHighlight] = v(0x76b900);
    s.ScaleAllSizes(scale);
}

}  // namespace cudalab::gui
