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

// A cell of the gutter: the text, its colour, and (the runs column) a heat bar behind it.
struct GutterCell {
    std::string text;
    ImU32 color = colors::text_dim;
    float heat = -1;  // 0..1 when the cell has a bar
};

// The gutter is a table: each column has a title, what it means, a width in characters and the
// cell it shows for a line's figures.
struct GutterColumn {
    const char* title;
    const char* tip;
    float chars;
    GutterCell (*cell)(const viewmodel::LineAnnotation&);
};

GutterCell runs_cell(const viewmodel::LineAnnotation& a) {
    // A heat bar behind the count: how busy this line is next to the busiest.
    return {viewmodel::compact_count(a.warp_instructions), colors::text, float(a.heat)};
}

GutterCell sectors_cell(const viewmodel::LineAnnotation& a) {
    if (!a.has_global) return {};
    return {viewmodel::fixed(a.sectors_per_request, 1), verdict_color(a.memory)};
}

GutterCell banks_cell(const viewmodel::LineAnnotation& a) {
    if (!a.has_shared) return {};
    return {a.bank_conflicts ? viewmodel::compact_count(a.bank_conflicts) : "0",
            verdict_color(a.banks)};
}

GutterCell divergence_cell(const viewmodel::LineAnnotation& a) {
    if (!a.branches) return {};
    return {a.divergent_branches ? viewmodel::compact_count(a.divergent_branches) : "0",
            verdict_color(a.divergence)};
}

// The columns the figures call for: runs always; the others when some line has them.
std::vector<GutterColumn> gutter_columns(const viewmodel::CodeAnnotations* notes) {
    std::vector<GutterColumn> columns = {
        {"runs", "warp instructions executed on this line (all blocks)", 5, runs_cell}};
    if (notes && notes->any_global)
        columns.push_back(
            {"sect/req", "global memory: 32-byte sectors per request (4 is ideal for 4-byte loads)",
             6, sectors_cell});
    if (notes && notes->any_shared)
        columns.push_back(
            {"bank", "shared memory: extra wavefronts from bank conflicts", 5, banks_cell});
    if (notes && notes->any_branches)
        columns.push_back({"div", "branches that split a warp (divergent)", 4, divergence_cell});
    return columns;
}

}  // namespace

// What the parts of the code panel share: fonts' sizes, the gutter's columns and width, and where
// the code was drawn this frame (the gutter is drawn after the code, scrolled with it).
struct CodeLayout {
    float s = 1, line_h = 0, char_w = 0, small_w = 0;
    const viewmodel::CodeAnnotations* notes = nullptr;
    bool stale_notes = false;
    std::vector<GutterColumn> columns;
    float number_w = 0, gutter_w = 0;
    int total_lines = 1;
    ImVec2 area_min{}, area_size{};
    ImVec2 text_origin{};
    int step_line = -1;
    std::vector<const compiler::Diagnostic*> diagnostics;
};

void App::draw_code_panel() {
    CodeLayout l;
    l.s = fonts().scale;
    l.line_h = fonts().mono->FontSize;
    l.char_w = fonts().mono->CalcTextSizeA(fonts().mono->FontSize, 1e9f, 0, "0").x;
    l.small_w = fonts().mono_small->CalcTextSizeA(fonts().mono_small->FontSize, 1e9f, 0, "0").x;
    if (editor_.highlight_stale) {
        editor_.lines = viewmodel::highlight(editor_.text);
        editor_.highlight_stale = false;
    }
    draw_code_header();
    ImGui::Dummy(ImVec2(0, 4 * l.s));
    layout_gutter(l);
    draw_gutter_header(l);
    draw_code_editor(l);
    draw_gutter(l);
}

// [SECTION] the header: file name, state, save

void App::draw_code_header() {
    const float s = fonts().scale;
    const std::string name = editor_.path.empty()
                                 ? "(no source)"
                                 : std::filesystem::path(editor_.path).filename().string();
    ImGui::AlignTextToFramePadding();
    ImGui::PushFont(fonts().mono_bold);
    ImGui::TextUnformatted(name.c_str());
    ImGui::PopFont();
    ImGui::SameLine(0, spacing::label_gap * s);
    if (editor_.read_only) chip("read-only", colors::panel_light, colors::text_dim);
    else if (editor_.modified())
        chip("\xE2\x97\x8F unsaved  \xC2\xB7  Ctrl+S", colors::chip_warn, colors::chip_warn_text);
    else chip("saved", colors::panel_light, colors::text_dim);
    if (!editor_.read_only) {
        ImGui::SameLine(ImGui::GetContentRegionAvail().x + ImGui::GetCursorPosX() - 60 * s);
        if (!editor_.modified()) ImGui::BeginDisabled();
        if (ImGui::Button("Save", ImVec2(60 * s, 0))) save_editor();
        if (!editor_.modified()) ImGui::EndDisabled();
    }
    if (editor_.conflict) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colors::fair));
        ImGui::TextWrapped("The file changed on disk while you were editing it here. The checks "
                           "ran the version on disk.");
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

// [SECTION] the gutter: its columns, its header, its cells

void App::layout_gutter(CodeLayout& l) {
    const float s = l.s;
    ImFont* small = fonts().mono_small;
    l.notes = view_.views ? &view_.views->annotations : nullptr;
    l.stale_notes = view_.views && view_.views->source != editor_.text;
    l.columns = gutter_columns(l.notes);
    l.total_lines = std::max<int>(1, int(editor_.lines.size()));
    l.number_w = l.small_w * (l.total_lines >= 100 ? 4.0f : 3.0f);
    l.gutter_w = 10 * s + l.number_w + 12 * s;
    for (auto& c : l.columns) {
        c.chars = std::max(c.chars,
                           small->CalcTextSizeA(small->FontSize, 1e9f, 0, c.title).x / l.small_w);
        l.gutter_w += c.chars * l.small_w + 8 * s;
    }
}

void App::draw_gutter_header(const CodeLayout& l) {
    const float s = l.s;
    ImFont* small = fonts().mono_small;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float h = small->FontSize + 8 * s;
    dl->AddRectFilled(p, ImVec2(p.x + ImGui::GetContentRegionAvail().x, p.y + h),
                      colors::panel_light, 4 * s, ImDrawFlags_RoundCornersTop);
    float x = p.x + 10 * s + l.number_w + 12 * s;
    dl->AddText(small, small->FontSize, ImVec2(p.x + 10 * s, p.y + 4 * s), colors::text_faint,
                "line");
    for (const auto& c : l.columns) {
        const float w = c.chars * l.small_w;
        const float tw = small->CalcTextSizeA(small->FontSize, 1e9f, 0, c.title).x;
        dl->AddText(small, small->FontSize, ImVec2(x + w - tw, p.y + 4 * s), colors::text_dim,
                    c.title);
        ImGui::SetCursorScreenPos(ImVec2(x, p.y));
        ImGui::InvisibleButton(c.title, ImVec2(w, h));
        tooltip(c.tip);
        x += w + 8 * s;
    }
    const bool broken = outcome_ && outcome_->report.status.code == StatusCode::compile_error;
    std::string note = !view_.views ? ""
                       : broken     ? "figures from the last run that compiled"
                       : l.stale_notes
                           ? (editor_.modified() ? "figures from the last run (save to refresh)"
                                                 : "figures from the last run")
                           : "figures from the last run";
    if (!note.empty()) {
        const float tw = small->CalcTextSizeA(small->FontSize, 1e9f, 0, note.c_str()).x;
        dl->AddText(small, small->FontSize,
                    ImVec2(p.x + ImGui::GetContentRegionAvail().x - tw - 8 * s, p.y + 4 * s),
                    l.stale_notes ? colors::fair : colors::text_faint, note.c_str());
    }
    ImGui::SetCursorScreenPos(ImVec2(p.x, p.y + h));
}

// One line's row of the gutter: its number (marked at the playhead and at errors) and its cells.
void App::draw_gutter_line(const CodeLayout& l, int i, float y, bool hovered) {
    const float s = l.s;
    ImFont* small = fonts().mono_small;
    ImDrawList* outer = ImGui::GetWindowDrawList();
    const float small_dy = (l.line_h - small->FontSize) * 0.5f;
    const std::uint32_t line = std::uint32_t(i + 1);
    if (hovered)
        outer->AddRectFilled(ImVec2(l.area_min.x, y),
                             ImVec2(l.area_min.x + l.gutter_w, y + l.line_h), colors::hover_tint);
    const bool is_step = i == l.step_line && view_.views;
    if (is_step) {
        outer->AddRectFilled(ImVec2(l.area_min.x, y),
                             ImVec2(l.area_min.x + l.gutter_w, y + l.line_h), colors::current_line);
        outer->AddTriangleFilled(ImVec2(l.area_min.x + 2 * s, y + 3 * s),
                                 ImVec2(l.area_min.x + 2 * s, y + l.line_h - 3 * s),
                                 ImVec2(l.area_min.x + 8 * s, y + l.line_h * 0.5f), colors::accent);
    }
    bool has_error = false;
    for (const auto* d : l.diagnostics) has_error |= d->line == int(line);
    char num[16];
    std::snprintf(num, sizeof num, "%u", line);
    const float nw = small->CalcTextSizeA(small->FontSize, 1e9f, 0, num).x;
    outer->AddText(small, small->FontSize,
                   ImVec2(l.area_min.x + 10 * s + l.number_w - nw, y + small_dy),
                   has_error ? colors::poor
                   : is_step ? colors::accent
                             : colors::text_faint,
                   num);
    const viewmodel::LineAnnotation* a = l.notes ? l.notes->at(line) : nullptr;
    if (!a) return;
    const float alpha = l.stale_notes ? 0.45f : 1.0f;
    float x = l.area_min.x + 10 * s + l.number_w + 12 * s;
    for (const auto& c : l.columns) {
        const float w = c.chars * l.small_w;
        const GutterCell cell = c.cell(*a);
        if (cell.heat >= 0) {
            const float bar = std::max(2 * s, w * cell.heat);
            outer->AddRectFilled(ImVec2(x + w - bar, y + 2 * s),
                                 ImVec2(x + w, y + l.line_h - 2 * s),
                                 with_alpha(colors::accent, 0.22f * alpha), 2 * s);
        }
        if (!cell.text.empty()) {
            const float tw = small->CalcTextSizeA(small->FontSize, 1e9f, 0, cell.text.c_str()).x;
            outer->AddText(small, small->FontSize, ImVec2(x + w - tw - 2 * s, y + small_dy),
                           with_alpha(cell.color, alpha), cell.text.c_str());
        }
        x += w + 8 * s;
    }
}

// The gutter, scrolled with the code, and a hovered line's figures in words.
void App::draw_gutter(const CodeLayout& l) {
    ImDrawList* outer = ImGui::GetWindowDrawList();
    outer->PushClipRect(l.area_min, ImVec2(l.area_min.x + l.gutter_w, l.area_min.y + l.area_size.y),
                        true);
    const float gutter_origin_y = l.text_origin.y;  // already includes the code's scroll
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    int hovered_line = -1;
    const bool mouse_in_gutter = mouse.x >= l.area_min.x && mouse.x < l.area_min.x + l.gutter_w &&
                                 mouse.y >= l.area_min.y &&
                                 mouse.y < l.area_min.y + l.area_size.y &&
                                 ImGui::IsWindowHovered(ImGuiHoveredFlags_ChildWindows);
    const ImVec4 clip = clip_rect(outer);
    const int first_visible = std::max(0, int((clip.y - l.text_origin.y) / l.line_h) - 1);
    const int last_visible =
        std::min(l.total_lines - 1, int((clip.w - l.text_origin.y) / l.line_h) + 1);
    for (int i = first_visible; i <= last_visible; ++i) {
        const float y = gutter_origin_y + float(i) * l.line_h;
        if (y + l.line_h < l.area_min.y || y > l.area_min.y + l.area_size.y) continue;
        const bool hovered = mouse_in_gutter && mouse.y >= y && mouse.y < y + l.line_h;
        if (hovered) hovered_line = i;
        draw_gutter_line(l, i, y, hovered);
    }
    outer->PopClipRect();
    if (hovered_line < 0) return;
    std::string tip;
    for (const auto* d : l.diagnostics)
        if (d->line == hovered_line + 1)
            tip += std::string(to_string(d->severity)) + ": " + d->message + "\n";
    if (l.notes) tip += l.notes->describe(std::uint32_t(hovered_line + 1));
    else if (tip.empty())
        tip = "line " + std::to_string(hovered_line + 1) + ": no figures (nothing ran yet)";
    ImGui::BeginTooltip();
    ImGui::PushTextWrapPos(ImGui::GetFontSize() * 30.0f);
    ImGui::TextUnformatted(tip.c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndTooltip();
}

// [SECTION] the code: an ImGui multiline input drawn transparent, the coloured text laid over it

namespace {

// Where the code's text lies inside its scrolled child, this frame.
struct CodeGeometry {
    ImVec2 input_pos{}, input_size{}, text_origin{};
    float scroll_y = 0, view_h = 0;
    int first_visible = 0, last_visible = -1;
    float line_y(int i, float line_h) const { return text_origin.y + float(i) * line_h; }
};

float prefix_width(const Editor& e, int line, int byte) {
    if (line < 0 || line >= int(e.lines.size())) return 0.0f;
    ImFont* mono = fonts().mono;
    const char* b = e.text.c_str() + e.lines[std::size_t(line)].offset;
    return mono->CalcTextSizeA(mono->FontSize, 1e9f, 0, b, b + byte).x;
}

// Backgrounds: the playhead's line, compile errors.
void draw_code_backgrounds(ImDrawList* dl, const CodeLayout& l, const CodeGeometry& g,
                           bool has_views) {
    if (l.step_line >= 0 && l.step_line < l.total_lines && has_views) {
        const float y = g.line_y(l.step_line, l.line_h);
        dl->AddRectFilled(ImVec2(g.input_pos.x, y),
                          ImVec2(g.input_pos.x + g.input_size.x, y + l.line_h),
                          colors::current_line);
    }
    for (const auto* d : l.diagnostics) {
        const int i = d->line - 1;
        if (i < 0 || i >= l.total_lines) continue;
        const float y = g.line_y(i, l.line_h);
        dl->AddRectFilled(
            ImVec2(g.input_pos.x, y), ImVec2(g.input_pos.x + g.input_size.x, y + l.line_h),
            d->severity == Severity::error ? colors::error_line : colors::warning_line);
    }
}

// The coloured tokens of the visible lines, over the transparent input.
void draw_code_text(ImDrawList* dl, const Editor& e, const CodeLayout& l, const CodeGeometry& g) {
    ImFont* mono = fonts().mono;
    for (int i = g.first_visible; i <= g.last_visible && i < int(e.lines.size()); ++i) {
        const auto& hl = e.lines[std::size_t(i)];
        const char* base = e.text.c_str() + hl.offset;
        float x = g.text_origin.x;
        const float y = g.line_y(i, l.line_h);
        for (const auto& t : hl.tokens) {
            const float w =
                mono->CalcTextSizeA(mono->FontSize, 1e9f, 0, base + t.begin, base + t.end).x;
            if (t.kind == viewmodel::TokenKind::todo)
                dl->AddRectFilled(ImVec2(x - 1 * l.s, y), ImVec2(x + w + 1 * l.s, y + l.line_h),
                                  colors::todo_mark, 2 * l.s);
            dl->AddText(mono, mono->FontSize, ImVec2(x, y), token_color(t.kind), base + t.begin,
                        base + t.end);
            x += w;
        }
    }
}

// Compile errors: a wavy underline from the column, and the message after the line.
void draw_diagnostics(ImDrawList* dl, const Editor& e, const CodeLayout& l, const CodeGeometry& g) {
    const float s = l.s;
    for (const auto* d : l.diagnostics) {
        const int i = d->line - 1;
        if (i < g.first_visible || i > g.last_visible || i >= int(e.lines.size())) continue;
        const auto& hl = e.lines[std::size_t(i)];
        const float y = g.line_y(i, l.line_h) + l.line_h - 1 * s;
        float x0 =
            g.text_origin.x + prefix_width(e, i, std::clamp(d->column - 1, 0, int(hl.length)));
        float x1 =
            std::max(x0 + 3 * l.char_w, g.text_origin.x + prefix_width(e, i, int(hl.length)));
        const ImU32 c = d->severity == Severity::error ? colors::poor : colors::fair;
        for (float x = x0; x < x1; x += 4 * s)
            dl->AddLine(ImVec2(x, y), ImVec2(x + 2 * s, y - 2 * s), c, 1.2f * s),
                dl->AddLine(ImVec2(x + 2 * s, y - 2 * s), ImVec2(x + 4 * s, y), c, 1.2f * s);
        const std::string msg = "  \xE2\x97\x80 " + d->message;
        dl->AddText(fonts().ui_italic, fonts().ui_italic->FontSize * 0.9f,
                    ImVec2(g.text_origin.x + prefix_width(e, i, int(hl.length)) + 2 * l.char_w,
                           g.line_y(i, l.line_h) + 1 * s),
                    c, msg.c_str());
    }
}

}  // namespace

void App::draw_code_editor(CodeLayout& l) {
    const float s = l.s;
    ImFont* mono = fonts().mono;
    l.area_min = ImGui::GetCursorScreenPos();
    l.area_size = ImGui::GetContentRegionAvail();
    ImDrawList* outer = ImGui::GetWindowDrawList();
    outer->AddRect(l.area_min, ImVec2(l.area_min.x + l.area_size.x, l.area_min.y + l.area_size.y),
                   colors::border, 4 * s);
    outer->AddRectFilled(ImVec2(l.area_min.x + 1, l.area_min.y),
                         ImVec2(l.area_min.x + l.gutter_w, l.area_min.y + l.area_size.y - 1),
                         colors::well);

    ImGui::SetCursorScreenPos(ImVec2(l.area_min.x + l.gutter_w, l.area_min.y));
    ImGui::PushStyleColor(ImGuiCol_ChildBg, colors::clear4);
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
    ImGui::BeginChild("##code_scroll", ImVec2(l.area_size.x - l.gutter_w, l.area_size.y), false,
                      ImGuiWindowFlags_HorizontalScrollbar);
    ImGui::PopStyleVar();
    const ImVec2 frame_pad(8 * s, 6 * s);
    float longest = 0;
    for (const auto& line : editor_.lines) longest = std::max(longest, float(line.length));
    ImGui::PushFont(mono);
    CodeGeometry g;
    g.input_size = ImVec2(
        std::max(ImGui::GetContentRegionAvail().x, longest * l.char_w + 2 * frame_pad.x + 80 * s),
        std::max(ImGui::GetContentRegionAvail().y,
                 float(l.total_lines + 3) * l.line_h + 2 * frame_pad.y));
    g.input_pos = ImGui::GetCursorScreenPos();
    g.text_origin = ImVec2(g.input_pos.x + frame_pad.x, g.input_pos.y + frame_pad.y);
    g.scroll_y = ImGui::GetScrollY();
    g.view_h = ImGui::GetWindowHeight();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec4 clip = clip_rect(dl);
    g.first_visible = std::max(0, int((clip.y - g.text_origin.y) / l.line_h) - 1);
    g.last_visible = std::min(l.total_lines - 1, int((clip.w - g.text_origin.y) / l.line_h) + 1);
    l.text_origin = g.text_origin;

    l.step_line = int(view_.line) - 1;
    if (outcome_ && outcome_->report.status.code == StatusCode::compile_error)
        for (const auto& d : outcome_->report.diagnostics) l.diagnostics.push_back(&d);
    else if (outcome_)
        for (const auto& d : outcome_->faults) l.diagnostics.push_back(&d);  // a run's failures
    draw_code_backgrounds(dl, l, g, view_.views != nullptr);

    ImGui::PushStyleColor(ImGuiCol_Text, colors::clear4);
    ImGui::PushStyleColor(ImGuiCol_FrameBg, colors::clear4);
    ImGui::PushStyleVar(ImGuiStyleVar_FramePadding, frame_pad);
    ImGuiInputTextFlags flags = ImGuiInputTextFlags_AllowTabInput |
                                ImGuiInputTextFlags_CallbackAlways |
                                ImGuiInputTextFlags_NoHorizontalScroll;
    if (editor_.read_only) flags |= ImGuiInputTextFlags_ReadOnly;
    int cursor = editor_.cursor;
    if (ImGui::InputTextMultiline("##source", &editor_.text, g.input_size, flags, cursor_callback,
                                  &cursor))
        editor_.highlight_stale = true;
    const bool active = ImGui::IsItemActive();
    ImGui::PopStyleVar();
    ImGui::PopStyleColor(2);
    if (editor_.highlight_stale) {
        editor_.lines = viewmodel::highlight(editor_.text);
        editor_.highlight_stale = false;
    }
    editor_.cursor = cursor;

    draw_code_text(dl, editor_, l, g);
    draw_diagnostics(dl, editor_, l, g);
    follow_caret(dl, l, g.input_pos, g.text_origin, g.scroll_y, g.view_h, frame_pad.y, active);
    ImGui::PopFont();
    ImGui::EndChild();
    ImGui::PopStyleColor();
}

// The caret (the input's own is transparent with its text), kept in view when it moves; jumps to a
// line asked for (a diagnostic clicked), and following the playhead while it plays.
void App::follow_caret(ImDrawList* dl, const CodeLayout& l, ImVec2 input_pos, ImVec2 text_origin,
                       float scroll_y, float view_h, float pad_y, bool active) {
    const float s = l.s;
    const int cursor = editor_.cursor;
    auto line_y = [&](int i) { return text_origin.y + float(i) * l.line_h; };
    int caret_line = 0, caret_col = 0;
    for (std::size_t i = 0; i < editor_.lines.size(); ++i)
        if (std::uint32_t(cursor) >= editor_.lines[i].offset) {
            caret_line = int(i);
            caret_col = cursor - int(editor_.lines[i].offset);
        }
    if (active) {
        const bool blink_on =
            std::fmod(ImGui::GetTime(), 1.0) < 0.6 || cursor != editor_.previous_cursor;
        if (blink_on) {
            const float x = text_origin.x + prefix_width(editor_, caret_line, caret_col);
            dl->AddLine(ImVec2(x, line_y(caret_line)), ImVec2(x, line_y(caret_line) + l.line_h),
                        colors::white, 1.5f * s);
        }
        if (cursor != editor_.previous_cursor) {
            const float local = line_y(caret_line) - input_pos.y + scroll_y;
            if (local < scroll_y) ImGui::SetScrollY(local - l.line_h);
            else if (local + 2 * l.line_h > scroll_y + view_h)
                ImGui::SetScrollY(local + 2 * l.line_h - view_h);
        }
        editor_.previous_cursor = cursor;
    }
    std::uint32_t target = editor_.scroll_to_line;
    if (!target && !active && view_.step_changed && l.step_line >= 0) {
        const float local = float(l.step_line) * l.line_h + pad_y;
        if (local < scroll_y || local + l.line_h > scroll_y + view_h)
            target = std::uint32_t(l.step_line + 1);
    }
    if (target) {
        ImGui::SetScrollY(std::max(0.0f, float(target - 1) * l.line_h + pad_y - view_h * 0.35f));
        editor_.scroll_to_line = 0;
    }
}

}  // namespace cudalab::gui
