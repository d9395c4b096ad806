// The code panel: the exercise with syntax colours and line numbers, the analysis' figures per
// line in the gutter, compile errors at their lines, and the line the playhead is on. Editable in
// place: an ImGui multiline input whose own text is drawn transparent, with the coloured text laid
// over it at the same positions (a monospace font makes that exact). Ctrl+S saves atomically.
#include <imgui.h>
#include <imgui_internal.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "app.h"
#include "shell/theme.h"
#include "viewmodel/format.h"
#include "widgets/widgets.h"

namespace cudalab::gui {

namespace {

int cursor_callback(ImGuiInputTextCallbackData* data) {
    *static_cast<int*>(data->UserData) = data->CursorPos;
    return 0;
}

struct GutterColumn {
    const char* title;
    const char* tip;
    float chars;
};

}  // namespace

void App::draw_code_panel() {
    const float s = fonts().scale;
    ImFont* mono = fonts().mono;
    ImFont* small = fonts().mono_small;
    const float line_h = mono->FontSize;
    const float char_w = mono->CalcTextSizeA(mono->FontSize, 1e9f, 0, "0").x;
    const float small_w = small->CalcTextSizeA(small->FontSize, 1e9f, 0, "0").x;

    if (editor_.highlight_stale) {
        editor_.lines = viewmodel::highlight(editor_.text);
        editor_.highlight_stale = false;
    }

    // ---- header: file name, state, save
    {
        const std::string name = editor_.path.empty() ? "(no source)" : std::filesystem::path(editor_.path).filename().string();
        ImGui::AlignTextToFramePadding();
        ImGui::PushFont(fonts().mono_bold);
        ImGui::TextUnformatted(name.c_str());
        ImGui::PopFont();
        ImGui::SameLine(0, 10 * s);
        if (editor_.read_only) chip("read-only", colors::panel_light, colors::text_dim);
        else if (editor_.modified()) chip("\xE2\x97\x8F unsaved  \xC2\xB7  Ctrl+S", colors::rgb(0x4a3b12), colors::rgb(0xffd98a));
        else chip("saved", colors::panel_light, colors::text_dim);
        if (!editor_.read_only) {
            ImGui::SameLine(ImGui::GetContentRegionAvail().x + ImGui::GetCursorPosX() - 60 * s);
            if (!editor_.modified()) ImGui::BeginDisabled();
            if (ImGui::Button("Save", ImVec2(60 * s, 0))) save_editor();
            if (!editor_.modified()) ImGui::EndDisabled();
        }
        if (editor_.conflict) {
            ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colors::fair));
            ImGui::TextWrapped("The file changed on disk while you were editing it here. The checks ran the version on disk.");
            ImGui::PopStyleColor();
            if (ImGui::SmallButton("Load the disk version")) {
                ImGui::ClearActiveID();
                editor_.text = editor_.disk_text;
                editor_.highlight_stale = true;
                editor_.conflict = false;
            }
            ImGui::SameLine();
            if (ImGui::SmallButton("Keep mine")) editor_.conflict = false;
        }
    }
    ImGui::Dummy(ImVec2(0, 4 * s));

    // ---- what the gutter shows
    const viewmodel::CodeAnnotations* notes = view_.views ? &view_.views->annotations : nullptr;
    const bool stale_notes = view_.views && view_.views->source != editor_.text;
    std::vector<GutterColumn> columns = {{"runs", "warp instructions executed on this line (all blocks)", 5}};
    const bool show_mem = notes && notes->any_global, show_banks = notes && notes->any_shared, show_div = notes && notes->any_branches;
    if (show_mem) columns.push_back({"sect/req", "global memory: 32-byte sectors per request (4 is ideal for 4-byte loads)", 6});
    if (show_banks) columns.push_back({"bank", "shared memory: extra wavefronts from bank conflicts", 5});
    if (show_div) columns.push_back({"div", "branches that split a warp (divergent)", 4});
    const int total_lines = std::max<int>(1, int(editor_.lines.size()));
    const float number_w = small_w * (total_lines >= 100 ? 4.0f : 3.0f);
    float gutter_w = 10 * s + number_w + 12 * s;
    for (auto& c : columns) {
        c.chars = std::max(c.chars, small->CalcTextSizeA(small->FontSize, 1e9f, 0, c.title).x / small_w);
        gutter_w += c.chars * small_w + 8 * s;
    }

    // ---- gutter header
    {
        const ImVec2 p = ImGui::GetCursorScreenPos();
        ImDrawList* dl = ImGui::GetWindowDrawList();
        const float h = small->FontSize + 8 * s;
        dl->AddRectFilled(p, ImVec2(p.x + ImGui::GetContentRegionAvail().x, p.y + h), colors::panel_light, 4 * s, ImDrawFlags_RoundCornersTop);
        float x = p.x + 10 * s + number_w + 12 * s;
        dl->AddText(small, small->FontSize, ImVec2(p.x + 10 * s, p.y + 4 * s), colors::text_faint, "line");
        for (const auto& c : columns) {
            const float w = c.chars * small_w;
            const float tw = small->CalcTextSizeA(small->FontSize, 1e9f, 0, c.title).x;
            dl->AddText(small, small->FontSize, ImVec2(x + w - tw, p.y + 4 * s), colors::text_dim, c.title);
            ImGui::SetCursorScreenPos(ImVec2(x, p.y));
            ImGui::InvisibleButton(c.title, ImVec2(w, h));
            tooltip(c.tip);
            x += w + 8 * s;
        }
        const bool broken = outcome_ && outcome_->report.status.code == StatusCode::compile_error;
        std::string note = !view_.views ? "" : broken ? "figures from the last run that compiled"
                         : stale_notes ? (editor_.modified() ? "figures from the last run (save to refresh)" : "figures from the last run")
                         : "figures from the last run";
        if (!note.empty()) {
            const float tw = small->CalcTextSizeA(small->FontSize, 1e9f, 0, note.c_str()).x;
            dl->AddText(small, small->FontSize, ImVec2(p.x + ImGui::GetContentRegionAvail().x - tw - 8 * s, p.y + 4 * s),
                        stale_notes ? colors::fair : colors::text_faint, note.c_str());
        }
        ImGui::SetCursorScreenPos(ImVec2(p.x, p.y + h));
    }

    // ---- the editor
    const ImVec2 area_min = ImGui::GetCursorScreenPos();
    const ImVec2 area_size = ImGui::GetContentRegionAvail();
    ImDrawList* outer = ImGui::GetWindowDrawList();
    outer->AddRect(area_min, ImVec2(area_min.x + area_size.x, area_min.y + area_size.y), colors::border, 4 * s);
    outer->AddRectFilled(ImVec2(area_min.x + 1, area_min.y), ImVec2(area_min.x + gutter_w, area_min.y + area_size.y - 1), colors::rgb(0x15171c));

    ImGui::SetCursorScreenPos(ImVec2(area_min.x + gutter_w, area_min.y));
    ImGui::PushStyleColor(ImGuiCol_ChildBg, ImVec4(0, 0, 0, 0));
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
    ImGui::BeginChild("##code_scroll", ImVec2(area_size.x - gutter_w, area_size.y), false, ImGuiWindowFlags_HorizontalScrollbar);
    ImGui::PopStyleVar();
    const ImVec2 frame_pad(8 * s, 6 * s);
    float longest = 0;
    for (const auto& l : editor_.lines) longest = std::max(longest, float(l.length));
    ImGui::PushFont(mono);
    const ImVec2 input_size(std::max(ImGui::GetContentRegionAvail().x, longest * char_w + 2 * frame_pad.x + 80 * s),
                            std::max(ImGui::GetContentRegionAvail().y, float(total_lines + 3) * line_h + 2 * frame_pad.y));
    const ImVec2 input_pos = ImGui::GetCursorScreenPos();
    const ImVec2 text_origin(input_pos.x + frame_pad.x, input_pos.y + frame_pad.y);
    const float scroll_y = ImGui::GetScrollY();
    const float view_h = ImGui::GetWindowHeight();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec4 clip = clip_rect(dl);
    const int first_visible = std::max(0, int((clip.y - text_origin.y) / line_h) - 1);
    const int last_visible = std::min(total_lines - 1, int((clip.w - text_origin.y) / line_h) + 1);
    auto line_y = [&](int i) { return text_origin.y + float(i) * line_h; };
    auto prefix_w = [&](int line, int byte) {
        if (line < 0 || line >= int(editor_.lines.size())) return 0.0f;
        const char* b = editor_.text.c_str() + editor_.lines[std::size_t(line)].offset;
        return mono->CalcTextSizeA(mono->FontSize, 1e9f, 0, b, b + byte).x;
    };

    // Backgrounds: the playhead's line, compile errors.
    const int step_line = int(view_.line) - 1;
    if (step_line >= 0 && step_line < total_lines && view_.views) {
        const float y = line_y(step_line);
        dl->AddRectFilled(ImVec2(input_pos.x, y), ImVec2(input_pos.x + input_size.x, y + line_h), colors::current_line);
    }
    std::vector<const compiler::Diagnostic*> diagnostics;
    if (outcome_ && outcome_->report.status.code == StatusCode::compile_error)
        for (const auto& d : outcome_->report.diagnostics) diagnostics.push_back(&d);
    for (const auto* d : diagnostics) {
        const int i = d->line - 1;
        if (i < 0 || i >= total_lines) continue;
        const float y = line_y(i);
        dl->AddRectFilled(ImVec2(input_pos.x, y), ImVec2(input_pos.x + input_size.x, y + line_h),
                          d->severity == Severity::error ? colors::rgb(0xe5534b, 40) : colors::rgb(0xe0b43c, 32));
    }

    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0, 0, 0, 0));
    ImGui::PushStyleColor(ImGuiCol_FrameBg, ImVec4(0, 0, 0, 0));
    ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, frame_pad);
    ImGuiInputTextFlags flags = ImGuiInputTextFlags_AllowTabInput | ImGuiInputTextFlags_CallbackAlways |
                                ImGuiInputTextFlags_NoHorizontalScroll;
    if (editor_.read_only) flags |= ImGuiInputTextFlags_ReadOnly;
    int cursor = editor_.cursor;
    if (ImGui::InputTextMultiline("##source", &editor_.text, input_size, flags, cursor_callback, &cursor))
        editor_.highlight_stale = true;
    const bool active = ImGui::IsItemActive();
    ImGui::PopStyleVar();
    ImGui::PopStyleColor(2);
    if (editor_.highlight_stale) {
        editor_.lines = viewmodel::highlight(editor_.text);
        editor_.highlight_stale = false;
    }
    editor_.cursor = cursor;

    // The coloured text over the transparent input.
    for (int i = first_visible; i <= last_visible && i < int(editor_.lines.size()); ++i) {
        const auto& hl = editor_.lines[std::size_t(i)];
        const char* base = editor_.text.c_str() + hl.offset;
        float x = text_origin.x;
        const float y = line_y(i);
        for (const auto& t : hl.tokens) {
            const float w = mono->CalcTextSizeA(mono->FontSize, 1e9f, 0, base + t.begin, base + t.end).x;
            if (t.kind == viewmodel::TokenKind::todo)
                dl->AddRectFilled(ImVec2(x - 1 * s, y), ImVec2(x + w + 1 * s, y + line_h), colors::rgb(0xffcf4a, 40), 2 * s);
            dl->AddText(mono, mono->FontSize, ImVec2(x, y), token_color(t.kind), base + t.begin, base + t.end);
            x += w;
        }
    }
    // Compile errors: a wavy underline from the column, and the message after the line.
    for (const auto* d : diagnostics) {
        const int i = d->line - 1;
        if (i < first_visible || i > last_visible || i >= int(editor_.lines.size())) continue;
        const auto& hl = editor_.lines[std::size_t(i)];
        const float y = line_y(i) + line_h - 1 * s;
        float x0 = text_origin.x + prefix_w(i, std::clamp(d->column - 1, 0, int(hl.length)));
        float x1 = std::max(x0 + 3 * char_w, text_origin.x + prefix_w(i, int(hl.length)));
        const ImU32 c = d->severity == Severity::error ? colors::poor : colors::fair;
        for (float x = x0; x < x1; x += 4 * s)
            dl->AddLine(ImVec2(x, y), ImVec2(x + 2 * s, y - 2 * s), c, 1.2f * s), dl->AddLine(ImVec2(x + 2 * s, y - 2 * s), ImVec2(x + 4 * s, y), c, 1.2f * s);
        const std::string msg = "  \xE2\x97\x80 " + d->message;
        dl->AddText(fonts().ui_italic, fonts().ui_italic->FontSize * 0.9f,
                    ImVec2(text_origin.x + prefix_w(i, int(hl.length)) + 2 * char_w, line_y(i) + 1 * s), c, msg.c_str());
    }
    // The caret (the input's own is transparent with its text).
    int caret_line = 0, caret_col = 0;
    for (std::size_t i = 0; i < editor_.lines.size(); ++i)
        if (std::uint32_t(cursor) >= editor_.lines[i].offset) { caret_line = int(i); caret_col = cursor - int(editor_.lines[i].offset); }
    if (active) {
        const bool blink_on = std::fmod(ImGui::GetTime(), 1.0) < 0.6 || cursor != editor_.previous_cursor;
        if (blink_on) {
            const float x = text_origin.x + prefix_w(caret_line, caret_col);
            dl->AddLine(ImVec2(x, line_y(caret_line)), ImVec2(x, line_y(caret_line) + line_h), colors::rgb(0xffffff), 1.5f * s);
        }
        // Keep the caret in view when it moved (arrows, typing at the bottom).
        if (cursor != editor_.previous_cursor) {
            const float local = line_y(caret_line) - input_pos.y + scroll_y;
            if (local < scroll_y) ImGui::SetScrollY(local - line_h);
            else if (local + 2 * line_h > scroll_y + view_h) ImGui::SetScrollY(local + 2 * line_h - view_h);
        }
        editor_.previous_cursor = cursor;
    }
    // Jump requests (a diagnostic clicked), and following the playhead while it plays.
    std::uint32_t target = editor_.scroll_to_line;
    if (!target && !active && view_.step_changed && step_line >= 0) {
        const float local = float(step_line) * line_h + frame_pad.y;
        if (local < scroll_y || local + line_h > scroll_y + view_h) target = std::uint32_t(step_line + 1);
    }
    if (target) {
        ImGui::SetScrollY(std::max(0.0f, float(target - 1) * line_h + frame_pad.y - view_h * 0.35f));
        editor_.scroll_to_line = 0;
    }
    ImGui::PopFont();
    ImGui::EndChild();
    ImGui::PopStyleColor();

    // ---- the gutter, scrolled with the code
    outer->PushClipRect(area_min, ImVec2(area_min.x + gutter_w, area_min.y + area_size.y), true);
    const float gutter_origin_y = text_origin.y;  // already includes the code's scroll
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    int hovered_line = -1;
    const bool mouse_in_gutter = mouse.x >= area_min.x && mouse.x < area_min.x + gutter_w && mouse.y >= area_min.y &&
                                 mouse.y < area_min.y + area_size.y && ImGui::IsWindowHovered(ImGuiHoveredFlags_ChildWindows);
    const float small_dy = (line_h - small->FontSize) * 0.5f;
    for (int i = first_visible; i <= last_visible; ++i) {
        const float y = gutter_origin_y + float(i) * line_h;
        if (y + line_h < area_min.y || y > area_min.y + area_size.y) continue;
        const std::uint32_t line = std::uint32_t(i + 1);
        if (mouse_in_gutter && mouse.y >= y && mouse.y < y + line_h) {
            hovered_line = i;
            outer->AddRectFilled(ImVec2(area_min.x, y), ImVec2(area_min.x + gutter_w, y + line_h), colors::rgb(0xffffff, 14));
        }
        const bool is_step = i == step_line && view_.views;
        if (is_step) {
            outer->AddRectFilled(ImVec2(area_min.x, y), ImVec2(area_min.x + gutter_w, y + line_h), colors::current_line);
            outer->AddTriangleFilled(ImVec2(area_min.x + 2 * s, y + 3 * s), ImVec2(area_min.x + 2 * s, y + line_h - 3 * s),
                                     ImVec2(area_min.x + 8 * s, y + line_h * 0.5f), colors::accent);
        }
        bool has_error = false;
        for (const auto* d : diagnostics) has_error |= d->line == int(line);
        char num[16];
        std::snprintf(num, sizeof num, "%u", line);
        const float nw = small->CalcTextSizeA(small->FontSize, 1e9f, 0, num).x;
        outer->AddText(small, small->FontSize, ImVec2(area_min.x + 10 * s + number_w - nw, y + small_dy),
                       has_error ? colors::poor : is_step ? colors::accent : colors::text_faint, num);
        const viewmodel::LineAnnotation* a = notes ? notes->at(line) : nullptr;
        if (!a) continue;
        const float alpha = stale_notes ? 0.45f : 1.0f;
        float x = area_min.x + 10 * s + number_w + 12 * s;
        for (const auto& c : columns) {
            const float w = c.chars * small_w;
            std::string text;
            ImU32 color = colors::text_dim;
            if (c.title[0] == 'r') {
                // A heat bar behind the count: how busy this line is next to the busiest.
                const float bar = std::max(2 * s, w * float(a->heat));
                outer->AddRectFilled(ImVec2(x + w - bar, y + 2 * s), ImVec2(x + w, y + line_h - 2 * s),
                                     with_alpha(colors::accent, 0.22f * alpha), 2 * s);
                text = viewmodel::compact_count(a->warp_instructions);
                color = colors::text;
            } else if (c.title[0] == 's' && a->has_global) {
                text = viewmodel::fixed(a->sectors_per_request, 1);
                color = verdict_color(a->memory);
            } else if (c.title[0] == 'b' && a->has_shared) {
                text = a->bank_conflicts ? viewmodel::compact_count(a->bank_conflicts) : "0";
                color = verdict_color(a->banks);
            } else if (c.title[0] == 'd' && a->branches) {
                text = a->divergent_branches ? viewmodel::compact_count(a->divergent_branches) : "0";
                color = verdict_color(a->divergence);
            }
            if (!text.empty()) {
                const float tw = small->CalcTextSizeA(small->FontSize, 1e9f, 0, text.c_str()).x;
                outer->AddText(small, small->FontSize, ImVec2(x + w - tw - 2 * s, y + small_dy), with_alpha(color, alpha), text.c_str());
            }
            x += w + 8 * s;
        }
    }
    outer->PopClipRect();
    if (hovered_line >= 0) {
        std::string tip;
        for (const auto* d : diagnostics)
            if (d->line == hovered_line + 1) tip += std::string(to_string(d->severity)) + ": " + d->message + "\n";
        if (notes) tip += notes->describe(std::uint32_t(hovered_line + 1));
        else if (tip.empty()) tip = "line " + std::to_string(hovered_line + 1) + ": no figures (nothing ran yet)";
        ImGui::BeginTooltip();
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30.0f);
        ImGui::TextUnformatted(tip.c_str());
        ImGui::PopTextWrapPos();
        ImGui::EndTooltip();
    }
}

}  // namespace cudalab::gui
