// The lesson panel: the course with each lesson's progress, the lesson's text, and below it the
// check results (each metric beside its threshold), the hints revealed so far, and the run's log.
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "app.h"
#include "shell/theme.h"
#include "viewmodel/format.h"
#include "viewmodel/wrap.h"
#include "widgets/widgets.h"

namespace cudalab::gui {

namespace {

ImU32 state_color(lessons::LessonState s) {
    switch (s) {
    case lessons::LessonState::passed: return colors::accent;
    case lessons::LessonState::failed: return colors::poor;
    default: return colors::text_faint;
    }
}

// A check's figure against its bound, e.g. "8.7 ≤ 20".
// A figure as a check shows it: whole numbers without decimals.
std::string metric_number(double v) {
    if (std::fabs(v - std::round(v)) < 1e-9 && std::fabs(v) < 1e12) return viewmodel::fixed(v, 0);
    return viewmodel::fixed(v, std::fabs(v) < 10 ? 2 : 1);
}

std::string metric_text(const lessons::CheckResult& c) {
    const auto num = metric_number;
    const char* op = c.comparison == ">=" ? " \xE2\x89\xA5 " : " \xE2\x89\xA4 ";
    // A figure taken on a wrong result is not shown (the check's message says why), as in the
    // terminal's report.
    if (std::isnan(c.value)) return "not measured";
    return num(c.value) + op + num(c.threshold);
}

}  // namespace

void App::draw_lesson_panel() {
    const float s = fonts().scale;
    draw_lesson_list();
    ImGui::Dummy(ImVec2(0, spacing::line_gap * s));
    const float avail_h = ImGui::GetContentRegionAvail().y;
    const float splitter_h = 6 * s;
    const float text_h = std::floor((avail_h - splitter_h) * text_fraction_);

    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding,
                        ImVec2(spacing::panel_pad_x * s, spacing::panel_pad_y * s));
    ImGui::BeginChild("##lesson_text", ImVec2(0, text_h), true,
                      ImGuiWindowFlags_AlwaysUseWindowPadding);
    if (timeline_only_) {
        ImGui::PushTextWrapPos(0);
        text_dim("A whole program's timeline (%s), as `cudalab run --timeline` saved it. The views "
                 "show its streams, graph "
                 "launches and managed pages; there is no lesson text and no check.",
                 options_.timeline_file.c_str());
        ImGui::PopTextWrapPos();
    } else if (trace_only_) {
        ImGui::PushTextWrapPos(0);
        text_dim("A saved trace (%s) of kernel %s. The views step through it; there is no lesson "
                 "text and no check.",
                 options_.trace_file.c_str(),
                 view_.views ? view_.views->trace().kernel.name.c_str() : "?");
        ImGui::PopTextWrapPos();
    } else if (lesson_text_.empty()) {
        text_dim("This lesson has no text.");
    } else {
        lesson_text_.draw(ImGui::GetContentRegionAvail().x);
    }
    ImGui::EndChild();
    ImGui::PopStyleVar();
    horizontal_splitter("##split_text", &text_fraction_, avail_h, 0.2f, 0.85f,
                        ImGui::GetContentRegionAvail().x);

    ImGui::PushStyleVar(ImGuiStyleVar_FramePadding,
                        ImVec2(spacing::button_pad_x * s, spacing::button_pad_y * s));
    if (ImGui::BeginTabBar("##lesson_tabs")) {
        int passed = 0, total = 0;
        if (outcome_)
            for (const auto& c : outcome_->report.checks) {
                passed += c.passed;
                ++total;
            }
        std::string checks_label = outcome_ ? "Checks " + std::to_string(passed) + "/" +
                                                  std::to_string(total) + "###checks"
                                            : "Checks###checks";
        const int hints_shown = lesson_ ? progress_.get(lesson_->id).hints_shown : 0;
        std::string hints_label =
            lesson_ ? "Hints " +
                          std::to_string(std::min<int>(hints_shown, int(lesson_->hints.size()))) +
                          "/" + std::to_string(lesson_->hints.size()) + "###hints"
                    : "Hints###hints";
        const char* labels[] = {checks_label.c_str(), hints_label.c_str(), "Output###output"};
        for (int i = 0; i < 3; ++i) {
            ImGuiTabItemFlags flags = (select_lesson_tab_ && *select_lesson_tab_ == i)
                                          ? ImGuiTabItemFlags_SetSelected
                                          : 0;
            if (ImGui::BeginTabItem(labels[i], nullptr, flags)) {
                lesson_tab_ = i;
                ImGui::EndTabItem();
            }
        }
        ImGui::EndTabBar();
    }
    ImGui::PopStyleVar();
    select_lesson_tab_.reset();
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding,
                        ImVec2(spacing::view_pad_x * s, spacing::view_pad_y * s));
    ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing,
                        ImVec2(spacing::item_x * s, spacing::dense_item_y * s));
    ImGui::BeginChild("##lesson_bottom", ImVec2(0, 0), true,
                      ImGuiWindowFlags_AlwaysUseWindowPadding);
    if (lesson_tab_ == 0) draw_checks();
    else if (lesson_tab_ == 1) draw_hints();
    else draw_output();
    ImGui::EndChild();
    ImGui::PopStyleVar(2);
}

void App::draw_lesson_list() {
    const float s = fonts().scale;
    int passed = 0;
    for (const auto& l : course_.lessons)
        passed += progress_.get(l.id).state == lessons::LessonState::passed;
    std::string header = "Course  \xC2\xB7  " + std::to_string(passed) + " of " +
                         std::to_string(course_.lessons.size()) + " passed###course";
    ImGui::PushStyleVar(ImGuiStyleVar_FramePadding,
                        ImVec2(spacing::header_pad_x * s, spacing::button_pad_y * s));
    const bool open = ImGui::CollapsingHeader(header.c_str(), ImGuiTreeNodeFlags_DefaultOpen);
    ImGui::PopStyleVar();
    if (!open) return;
    const float row_h = ImGui::GetTextLineHeight() + 8 * s;
    const float list_h = std::min<float>(float(course_.lessons.size()), 6.5f) * row_h + 4 * s;
    ImGui::BeginChild("##lessons", ImVec2(0, list_h), false, ImGuiWindowFlags_NoBackground);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    for (const auto& l : course_.lessons) {
        const auto p = progress_.get(l.id);
        ImGui::PushID(l.id.c_str());
        const ImVec2 at = ImGui::GetCursorScreenPos();
        const bool selected = lesson_ == &l && !trace_only_;
        if (ImGui::Selectable("##row", selected, 0, ImVec2(0, row_h)) && !selected) {
            trace_only_ = false;
            open_block_.reset();
            open_lesson(l);
        }
        std::string tip = l.id + "  " + l.title + "\n" + lessons::progress_label(p);
        if (!p.last_checked.empty()) tip += " (last checked " + p.last_checked + ")";
        if (p.hints_shown)
            tip += ", " + std::to_string(p.hints_shown) + " hint" + (p.hints_shown > 1 ? "s" : "") +
                   " seen";
        tooltip(tip);
        const float cy = at.y + row_h * 0.5f;
        const float r = 5 * s;
        const ImVec2 c(at.x + 10 * s, cy);
        if (p.state == lessons::LessonState::not_tried)
            dl->AddCircle(c, r, state_color(p.state), 16, 1.5f * s);
        else dl->AddCircleFilled(c, r, state_color(p.state), 16);
        // Passed before, fails now: the pass stays, ringed in the failing colour.
        if (p.fails_now())
            dl->AddCircle(c, r + 2 * s, state_color(lessons::LessonState::failed), 16, 1.5f * s);
        const float ty = cy - ImGui::GetTextLineHeight() * 0.5f;
        dl->AddText(fonts().mono, fonts().mono->FontSize, ImVec2(at.x + 24 * s, ty + 1 * s),
                    colors::text_dim, l.id.substr(0, l.id.find('-')).c_str());
        // A title that does not fit is set smaller before it is cut.
        ImFont* title_font = selected ? fonts().ui_bold : fonts().ui;
        const float title_w = ImGui::GetContentRegionAvail().x - 52 * s;
        if (title_font->CalcTextSizeA(title_font->FontSize, 1e9f, 0, l.title.c_str()).x > title_w)
            title_font = fonts().small;
        draw_text_clipped(dl, title_font, ImVec2(at.x + 48 * s, cy - title_font->FontSize * 0.5f),
                          colors::text, l.title, title_w);
        ImGui::PopID();
    }
    ImGui::EndChild();
}

namespace {
// `text` split at spaces into lines no wider than `width` in the current font (a word wider than
// that gets a line of its own).
std::vector<std::string> wrap_words(const std::string& text, float width) {
    std::vector<std::string> lines{""};
    std::size_t at = 0;
    while (at < text.size()) {
        std::size_t end = text.find(' ', at);
        if (end == std::string::npos) end = text.size();
        const std::string word = text.substr(at, end - at);
        const std::string candidate = lines.back().empty() ? word : lines.back() + " " + word;
        if (!lines.back().empty() && ImGui::CalcTextSize(candidate.c_str()).x > width)
            lines.push_back(word);
        else lines.back() = candidate;
        at = end + 1;
    }
    return lines;
}
}  // namespace

void App::draw_checks() {
    const float s = fonts().scale;
    if (!outcome_) {
        text_dim(trace_only_ ? "A saved trace: no checks ran."
                 : checking_ ? "Compiling, running and checking\xE2\x80\xA6"
                             : "Not checked yet.");
        return;
    }
    const auto& r = outcome_->report;
    if (r.status.code == StatusCode::compile_error) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colors::poor));
        section_title("The exercise does not compile");
        ImGui::PopStyleColor();
        for (const auto& d : r.diagnostics) {
            ImGui::PushID(&d);
            std::string where =
                d.file + ":" + std::to_string(d.line) + ":" + std::to_string(d.column);
            if (ImGui::Selectable(where.c_str(), false))
                editor_.scroll_to_line = std::uint32_t(d.line);
            tooltip("Show this line in the code");
            ImGui::PushTextWrapPos(0);
            ImGui::TextUnformatted((std::string(to_string(d.severity)) + ": " + d.message).c_str());
            ImGui::PopTextWrapPos();
            if (!d.context.empty()) {
                ImGui::PushFont(fonts().mono_small);
                text_dim("%s", d.context.c_str());
                ImGui::PopFont();
            }
            ImGui::Separator();
            ImGui::PopID();
        }
        if (r.diagnostics.empty()) {
            ImGui::PushTextWrapPos(0);
            ImGui::TextUnformatted(r.status.message.c_str());
            ImGui::PopTextWrapPos();
        }
        return;
    }
    if (!r.status.ok()) {
        ImGui::PushTextWrapPos(0);
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colors::poor), "Could not run: %s",
                           r.status.message.c_str());
        ImGui::PopTextWrapPos();
        return;
    }
    if (!r.backend_note.empty()) text_dim("%s", r.backend_note.c_str());
    ImDrawList* dl = ImGui::GetWindowDrawList();
    bool opened_one = false;  // only the first failed check opens by itself
    for (std::size_t i = 0; i < r.checks.size(); ++i) {
        const auto& c = r.checks[i];
        ImGui::PushID(int(i));
        const ImVec2 at = ImGui::GetCursorScreenPos();
        const float line_h = ImGui::GetTextLineHeight();
        // Status mark.
        const ImU32 mark_color = c.passed ? colors::accent : colors::poor;
        ImGui::Dummy(ImVec2(18 * s, line_h));
        dl->AddText(fonts().ui_bold, fonts().ui_bold->FontSize, at, mark_color,
                    c.passed ? "\xE2\x9C\x93" : "\xE2\x9C\x97");
        ImGui::SameLine(0, spacing::hairline_gap * s);
        const bool perf = c.kind == lessons::CheckKind::performance;
        const bool open_by_default = !c.passed && !opened_one;
        opened_one |= open_by_default;
        const ImGuiTreeNodeFlags flags = ImGuiTreeNodeFlags_SpanAvailWidth |
                                         (open_by_default ? ImGuiTreeNodeFlags_DefaultOpen : 0);
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(
                                                 c.passed ? colors::text : colors::fail_text));
        // The name stops short of the metric (performance checks) and of the panel's edge.
        const float metric_space =
            perf ? fonts().mono
                           ->CalcTextSizeA(fonts().mono->FontSize, 1e9f, 0, metric_text(c).c_str())
                           .x +
                       18 * s
                 : 4 * s;
        const ImVec2 row_min = ImGui::GetCursorScreenPos();
        // A long name wraps onto more lines rather than being cut: on a small screen the name is
        // what says which input failed.
        const float name_w =
            ImGui::GetContentRegionAvail().x - metric_space - ImGui::GetTreeNodeToLabelSpacing();
        const std::vector<std::string> name_lines = wrap_words(c.name, name_w);
        ImGui::PushClipRect(row_min,
                            ImVec2(row_min.x + ImGui::GetContentRegionAvail().x - metric_space,
                                   row_min.y + line_h + 8 * s),
                            true);
        const bool open = ImGui::TreeNodeEx("##check", flags, "%s", name_lines.front().c_str());
        ImGui::PopClipRect();
        ImGui::PopStyleColor();
        if (perf) {
            // The metric beside its threshold, with a gauge of how close it is.
            const std::string m = metric_text(c);
            const ImVec2 rmax = ImGui::GetItemRectMax();
            ImFont* mf = fonts().mono;
            const float mw = mf->CalcTextSizeA(mf->FontSize, 1e9f, 0, m.c_str()).x;
            const float x = rmax.x - mw - 4 * s;
            dl->AddRectFilled(ImVec2(x - 6 * s, at.y - 1 * s),
                              ImVec2(rmax.x, at.y + line_h + 1 * s), colors::panel_light, 4 * s);
            dl->AddText(mf, mf->FontSize, ImVec2(x, at.y + 1 * s),
                        c.passed ? colors::good : colors::poor, m.c_str());
        }
        for (std::size_t k = 1; k < name_lines.size(); ++k) {
            ImGui::SetCursorPosX(ImGui::GetCursorPosX() + 18 * s + 2 * s +
                                 ImGui::GetTreeNodeToLabelSpacing());
            ImGui::TextColored(
                ImGui::ColorConvertU32ToFloat4(c.passed ? colors::text : colors::fail_text), "%s",
                name_lines[k].c_str());
        }
        if (open) {
            ImGui::Indent(4 * s);
            ImGui::PushTextWrapPos(0);
            if (!c.message.empty()) text_dim("%s", c.message.c_str());
            if (c.launch >= 0 && r.launches.size() > 1) {
                // Which launch this figure came from; the views can show it.
                text_dim("measured on launch %s", r.launch_shape(c.launch).c_str());
                if (c.launch != launch_) {
                    ImGui::SameLine();
                    if (ImGui::SmallButton("show it")) select_launch(c.launch, true);
                }
            }
            if (perf && !std::isnan(c.value)) {
                // "measured 8, needs <= 0": a share of a bound of 0 says nothing, so it is left
                // out.
                const std::string bound =
                    (c.comparison == ">=" ? "\xE2\x89\xA5 " : "\xE2\x89\xA4 ") +
                    metric_number(c.threshold);
                ImGui::Text("measured %s, needs %s", metric_number(c.value).c_str(), bound.c_str());
                if (c.threshold != 0) {
                    ImGui::SameLine();
                    text_dim("(%s of the bound)",
                             viewmodel::percent(c.value / c.threshold).c_str());
                }
            }
            for (const auto& m : c.mismatches) {
                char index[32];
                std::snprintf(index, sizeof index, "[%zu]", m.index);
                std::string line = (m.where.empty() ? std::string(index) : m.where) +
                                   ": expected " + m.expected + ", got " + m.actual;
                if (m.writer)
                    line += " (written by block " + std::to_string(m.writer->block.x) +
                            ", thread " + std::to_string(m.writer->thread.x) + ")";
                else if (m.writer_tracked) line += " (no thread wrote it)";
                ImGui::PushFont(fonts().mono_small);
                ImGui::TextUnformatted(line.c_str());
                ImGui::PopFont();
            }
            if (!c.passed && !c.advice.empty()) {
                ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colors::fair));
                ImGui::TextUnformatted(("Try: " + c.advice).c_str());
                ImGui::PopStyleColor();
            }
            ImGui::PopTextWrapPos();
            ImGui::Unindent(4 * s);
            ImGui::TreePop();
        }
        ImGui::PopID();
    }
}

void App::draw_hints() {
    const float s = fonts().scale;
    if (!lesson_ || lesson_->hints.empty()) {
        text_dim("No hints for this lesson.");
        return;
    }
    const int total = int(lesson_->hints.size());
    const int shown = std::min(progress_.get(lesson_->id).hints_shown, total);
    for (int i = 0; i < shown; ++i) {
        ImGui::PushID(i);
        const ImVec2 at = ImGui::GetCursorScreenPos();
        ImDrawList* dl = ImGui::GetWindowDrawList();
        dl->ChannelsSplit(2);
        dl->ChannelsSetCurrent(1);
        ImGui::Indent(12 * s);
        ImGui::PushFont(fonts().ui_bold);
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colors::fair),
                           hints_lang_ == "zh" ? "提示 %d / %d" : "Hint %d of %d", i + 1, total);
        ImGui::PopFont();
        // Chinese has no spaces to wrap at: wrapped between characters (viewmodel::wrap_points).
        const std::string& hint = std::size_t(i) < lesson_hints_.size()
                                      ? lesson_hints_[std::size_t(i)]
                                      : lesson_->hints[std::size_t(i)];
        for (const auto& line : viewmodel::wrap_text(
                 hint, ImGui::GetContentRegionAvail().x - 8 * s,
                 [](const char*b, const char*e) { return ImGui::CalcTextSize(b, e).x; }))
            ImGui::TextUnformatted(line.c_str());
        ImGui::Unindent(12 * s);
        dl->ChannelsSetCurrent(0);
        const ImVec2 end(at.x + ImGui::GetContentRegionAvail().x,
                         ImGui::GetItemRectMax().y + 6 * s);
        dl->AddRectFilled(ImVec2(at.x, at.y - 4 * s), end, colors::hint_box, 5 * s);
        dl->AddRectFilled(ImVec2(at.x, at.y - 4 * s), ImVec2(at.x + 3 * s, end.y), colors::fair);
        dl->ChannelsMerge();
        ImGui::Dummy(ImVec2(0, spacing::card_gap * s));
        ImGui::PopID();
    }
    if (shown < total) {
        std::string label = shown == 0 ? "Show a hint (F1)"
                                       : "Show hint " + std::to_string(shown + 1) + " of " +
                                             std::to_string(total) + " (F1)";
        if (ImGui::Button(label.c_str())) reveal_hint();
        ImGui::SameLine();
        text_dim("One at a time, from a nudge to nearly the answer.");
    } else {
        text_dim("That was the last hint.");
    }
}

void App::draw_output() {
    if (!outcome_) {
        text_dim("Nothing ran yet.");
        return;
    }
    const auto& r = outcome_->report;
    ImGui::PushFont(fonts().mono_small);
    for (const auto& line : r.log) ImGui::TextUnformatted(line.c_str());
    if (!r.printf_output.empty()) {
        ImGui::Separator();
        ImGui::TextUnformatted(r.printf_output.c_str());
    }
    ImGui::PopFont();
    ImGui::Separator();
    text_dim("backend %s  \xC2\xB7  %llu warp instructions, %llu thread instructions  \xC2\xB7  "
             "compile %.0f ms%s, run %.0f ms",
             r.backend.c_str(), static_cast<unsigned long long>(r.totals.warp_instructions),
             static_cast<unsigned long long>(r.totals.thread_instructions), r.compile_seconds * 1e3,
             r.compile_cached ? " (cached)" : "", r.run_seconds * 1e3);
    if (view_.views) {
        const auto& t = view_.views->trace();
        text_dim("trace: %zu events, %zu memory accesses, %zu blocks in full, %s in memory",
                 t.events.size(), t.accesses.size(), t.detail_blocks.size(),
                 viewmodel::byte_count(t.memory_bytes()).c_str());
    }
}

}  // namespace cudalab::gui
