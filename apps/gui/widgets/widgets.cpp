#include "widgets/widgets.h"

#include <algorithm>
#include <cmath>
#include <cstdarg>

#include "shell/theme.h"

namespace cudalab::gui {

namespace {
bool splitter(const char* id, float* fraction, float total, float min_f, float max_f, ImVec2 size,
              bool vertical) {
    ImGui::InvisibleButton(id, size);
    const bool hovered = ImGui::IsItemHovered(), active = ImGui::IsItemActive();
    if (hovered || active)
        ImGui::SetMouseCursor(vertical ? ImGuiMouseCursor_ResizeEW : ImGuiMouseCursor_ResizeNS);
    if (active && total > 0) {
        const float d = vertical ? ImGui::GetIO().MouseDelta.x : ImGui::GetIO().MouseDelta.y;
        *fraction = std::clamp(*fraction + d / total, min_f, max_f);
    }
    ImDrawList* dl = ImGui::GetWindowDrawList();
    ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    const ImU32 c = active    ? colors::accent
                    : hovered ? with_alpha(colors::accent, 0.6f)
                              : colors::border;
    if (vertical) {
        float x = std::floor((a.x + b.x) * 0.5f);
        dl->AddLine(ImVec2(x, a.y), ImVec2(x, b.y), c, active || hovered ? 2.0f : 1.0f);
    } else {
        float y = std::floor((a.y + b.y) * 0.5f);
        dl->AddLine(ImVec2(a.x, y), ImVec2(b.x, y), c, active || hovered ? 2.0f : 1.0f);
    }
    return active;
}
}  // namespace

bool vertical_splitter(const char* id, float* fraction, float total, float min_f, float max_f,
                       float height) {
    return splitter(id, fraction, total, min_f, max_f, ImVec2(6 * fonts().scale, height), true);
}

bool horizontal_splitter(const char* id, float* fraction, float total, float min_f, float max_f,
                         float width) {
    return splitter(id, fraction, total, min_f, max_f, ImVec2(width, 6 * fonts().scale), false);
}

void chip(const char* text, ImU32 background, ImU32 foreground) {
    const float s = fonts().scale;
    ImFont* font = fonts().ui_bold;
    const ImVec2 size = font->CalcTextSizeA(font->FontSize, 1e9f, 0, text);
    const ImVec2 pad(8 * s, 3 * s);
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float frame_h = ImGui::GetFrameHeight();
    const float y = p.y + (frame_h - size.y - 2 * pad.y) * 0.5f;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    dl->AddRectFilled(ImVec2(p.x, y), ImVec2(p.x + size.x + 2 * pad.x, y + size.y + 2 * pad.y),
                      background, 10 * s);
    dl->AddText(font, font->FontSize, ImVec2(p.x + pad.x, y + pad.y), foreground, text);
    ImGui::Dummy(ImVec2(size.x + 2 * pad.x, frame_h));
}

void legend_item(ImU32 color, const char* label, bool outline) {
    const float s = fonts().scale;
    const float h = ImGui::GetTextLineHeight();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float box = std::round(h * 0.75f);
    const ImVec2 a(p.x, p.y + (h - box) * 0.5f), b(a.x + box, a.y + box);
    if (outline) dl->AddRect(a, b, color, 2 * s, 0, 1.5f * s);
    else dl->AddRectFilled(a, b, color, 2 * s);
    ImGui::Dummy(ImVec2(box + 4 * s, h));
    ImGui::SameLine(0, 0);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colors::text_dim));
    ImGui::TextUnformatted(label);
    ImGui::PopStyleColor();
}

void text_dim(const char* fmt, ...) {
    va_list args;
    va_start(args, fmt);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colors::text_dim));
    ImGui::TextV(fmt, args);
    ImGui::PopStyleColor();
    va_end(args);
}

void section_title(const char* text) {
    ImGui::PushFont(fonts().ui_bold);
    ImGui::TextUnformatted(text);
    ImGui::PopFont();
}

void tooltip(const std::string& text) {
    if (!ImGui::IsItemHovered()) return;
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 32.0f);
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
}

bool icon_button(const char* id, Icon icon, const char* tip, bool enabled) {
    const float s = fonts().scale;
    const float h = ImGui::GetFrameHeight();
    const ImVec2 size(h * 1.25f, h);
    if (!enabled) ImGui::PushStyleVar(ImGuiStyleVar_Alpha, 0.4f);
    const bool pressed = ImGui::Button(id, size) && enabled;
    if (!enabled) ImGui::PopStyleVar();
    if (tip) tooltip(tip);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 a = ImGui::GetItemRectMin(), b = ImGui::GetItemRectMax();
    const ImVec2 c((a.x + b.x) * 0.5f, (a.y + b.y) * 0.5f);
    const float r = h * 0.24f;
    const ImU32 col = enabled ? colors::text : colors::text_faint;
    auto tri_right = [&](float cx) {
        dl->AddTriangleFilled(ImVec2(cx - r * 0.7f, c.y - r), ImVec2(cx - r * 0.7f, c.y + r),
                              ImVec2(cx + r * 0.8f, c.y), col);
    };
    auto tri_left = [&](float cx) {
        dl->AddTriangleFilled(ImVec2(cx + r * 0.7f, c.y - r), ImVec2(cx + r * 0.7f, c.y + r),
                              ImVec2(cx - r * 0.8f, c.y), col);
    };
    auto bar = [&](float x) {
        dl->AddRectFilled(ImVec2(x - 1.2f * s, c.y - r), ImVec2(x + 1.2f * s, c.y + r), col);
    };
    switch (icon) {
    case Icon::play: tri_right(c.x + r * 0.1f); break;
    case Icon::pause:
        bar(c.x - r * 0.45f);
        bar(c.x + r * 0.45f);
        break;
    case Icon::step_forward:
        tri_right(c.x - r * 0.3f);
        bar(c.x + r * 0.75f);
        break;
    case Icon::step_back:
        tri_left(c.x + r * 0.3f);
        bar(c.x - r * 0.75f);
        break;
    case Icon::to_start:
        tri_left(c.x + r * 0.2f);
        tri_left(c.x - r * 0.6f);
        break;
    case Icon::to_end:
        tri_right(c.x - r * 0.2f);
        tri_right(c.x + r * 0.6f);
        break;
    case Icon::next_barrier:
        tri_right(c.x - r * 0.5f);
        dl->AddRectFilled(ImVec2(c.x + r * 0.55f, c.y - r * 1.15f),
                          ImVec2(c.x + r * 0.95f, c.y + r * 1.15f), colors::barrier);
        break;
    }
    return pressed;
}

void draw_text_clipped(ImDrawList* dl, ImFont* font, ImVec2 pos, ImU32 color,
                       const std::string& text, float max_width) {
    const float w = font->CalcTextSizeA(font->FontSize, 1e9f, 0, text.c_str()).x;
    if (w <= max_width) {
        dl->AddText(font, font->FontSize, pos, color, text.c_str());
        return;
    }
    const char* ellipsis = "\xE2\x80\xA6";
    const float ew = font->CalcTextSizeA(font->FontSize, 1e9f, 0, ellipsis).x;
    std::size_t n = text.size();
    while (n > 0 &&
           font->CalcTextSizeA(font->FontSize, 1e9f, 0, text.c_str(), text.c_str() + n).x + ew >
               max_width)
        --n;
    while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80)
        --n;  // whole UTF-8 characters
    std::string cut = text.substr(0, n) + ellipsis;
    dl->AddText(font, font->FontSize, pos, color, cut.c_str());
}

}  // namespace cudalab::gui
