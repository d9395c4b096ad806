#include "views/view_common.h"

#include "viewmodel/first_picture.h"

#include <algorithm>
#include <functional>

#include "shell/theme.h"
#include "widgets/widgets.h"

namespace cudalab::gui {

void view_heading(const char* title, const std::string& subtitle) {
    ImGui::PushFont(fonts().h3);
    ImGui::TextUnformatted(title);
    ImGui::PopFont();
    if (!subtitle.empty()) {
        ImGui::SameLine(0, spacing::legend_gap * fonts().scale);
        ImGui::SetCursorPosY(ImGui::GetCursorPosY() +
                             (fonts().h3->FontSize - fonts().ui->FontSize) * 0.6f);
        text_dim("%s", subtitle.c_str());
    }
}

std::string source_line_text(const ViewContext& c, std::uint32_t line) {
    if (!c.views || line == 0) return "";
    const std::string& src = c.views->source;
    std::size_t at = 0;
    for (std::uint32_t l = 1; l < line; ++l) {
        at = src.find('\n', at);
        if (at == std::string::npos) return "";
        ++at;
    }
    std::size_t end = src.find('\n', at);
    std::string text = src.substr(at, end == std::string::npos ? std::string::npos : end - at);
    const std::size_t first = text.find_first_not_of(" \t");
    return first == std::string::npos ? "" : text.substr(first);
}

void current_step_card(const ViewContext& c) {
    const float s = fonts().scale;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float w = ImGui::GetContentRegionAvail().x;
    const float line = ImGui::GetTextLineHeight();
    const float h = line * 2 + fonts().mono->FontSize + 22 * s;
    dl->AddRectFilled(p, ImVec2(p.x + w, p.y + h), colors::panel_light, 6 * s);
    dl->AddRectFilled(p, ImVec2(p.x + 3 * s, p.y + h), colors::accent, 6 * s,
                      ImDrawFlags_RoundCornersLeft);
    float x = p.x + 14 * s, y = p.y + 8 * s;
    if (!c.event) {
        dl->AddText(fonts().ui, fonts().ui->FontSize, ImVec2(x, y), colors::text_dim,
                    "No step selected.");
        ImGui::Dummy(ImVec2(w, h));
        return;
    }
    const auto* b = c.block();
    const WarpEvent& e = *c.event;
    char head[200];
    const char* what =
        e.kind == EventKind::barrier_release ? "the block's barrier completes: every warp may go on"
        : e.kind == EventKind::barrier_arrive ? "arrives at __syncthreads() and waits"
        : e.kind == EventKind::exit           ? "lanes exit"
        : e.kind == EventKind::branch
            ? (e.taken && e.taken != e.active ? "branches, and the warp splits" : "branches")
            : "";
    if (e.kind == EventKind::barrier_release)
        std::snprintf(head, sizeof head, "Step %lld of %zu  \xC2\xB7  block %s  \xC2\xB7  %s",
                      static_cast<long long>(c.step() + 1), b->steps(),
                      c.views->model.block_label(b->block).c_str(), what);
    else
        std::snprintf(
            head, sizeof head,
            "Step %lld of %zu  \xC2\xB7  block %s, warp %u  \xC2\xB7  %d of 32 lanes active%s%s",
            static_cast<long long>(c.step() + 1), b->steps(),
            c.views->model.block_label(b->block).c_str(), unsigned(e.warp),
            __builtin_popcount(e.active), *what ? "  \xC2\xB7  " : "", what);
    dl->AddText(fonts().ui_bold, fonts().ui_bold->FontSize, ImVec2(x, y), colors::text, head);
    y += line + 4 * s;
    // The source line and the PTX instruction.
    char ln[32];
    std::snprintf(ln, sizeof ln, "line %u", c.line);
    dl->AddText(fonts().mono_small, fonts().mono_small->FontSize, ImVec2(x, y + 2 * s),
                colors::accent, ln);
    const float lw =
        fonts().mono_small->CalcTextSizeA(fonts().mono_small->FontSize, 1e9f, 0, "line 0000").x +
        10 * s;
    draw_text_clipped(dl, fonts().mono, ImVec2(x + lw, y), colors::source_text,
                      source_line_text(c, c.line), w - lw - 28 * s);
    y += fonts().mono->FontSize + 4 * s;
    const auto& pcs = c.views->trace().pcs;
    const std::string ptx =
        e.pc < pcs.size() && e.kind != EventKind::barrier_release ? "PTX  " + pcs[e.pc].text : "";
    draw_text_clipped(dl, fonts().mono_small, ImVec2(x, y + 1 * s), colors::text_dim, ptx,
                      w - 28 * s);
    ImGui::Dummy(ImVec2(w, h));
}

bool seek_first(ViewContext& c, const std::string& kind, std::int64_t from) {
    if (!c.has_steps()) return false;
    const std::int64_t step = viewmodel::find_step(*c.views, c.detail_block, kind, from);
    if (step < 0) return false;
    c.playback.pause();
    c.playback.seek(step);
    return true;
}

void draw_no_trace(const char* why) {
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float w = std::min(avail.x - 40, 420.0f * fonts().scale);
    ImGui::SetCursorPos(ImVec2((avail.x - w) * 0.5f, avail.y * 0.35f));
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + w);
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colors::text_dim));
    ImGui::TextUnformatted(why);
    ImGui::PopStyleColor();
    ImGui::PopTextWrapPos();
}

}  // namespace cudalab::gui
