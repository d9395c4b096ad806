// The timeline view: the open block's whole run, one row per warp, time left to right, each column
// coloured by what the warp did (compute, global or shared memory, branch, barrier, exit) and as
// bright as its active lanes; barrier releases as red lines. Click or drag to move the playhead.
// Below, the last steps up to the playhead.
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "shell/theme.h"
#include "viewmodel/format.h"
#include "views/view_common.h"
#include "widgets/widgets.h"

namespace cudalab::gui {

using viewmodel::StepClass;

namespace {

// The block's phases, the stretches between barriers, as a ruler above the strip: every phase at
// least a label wide, whatever its length, so that barriers a few steps apart in a run of a
// million steps are still told apart. Click a phase to go to its start.
void phase_ruler(ViewContext& c, float label_w, float strip_w) {
    const float s = fonts().scale;
    const auto* b = c.block();
    if (!b || b->barrier_steps.empty() || b->steps() == 0) return;
    std::vector<std::size_t> starts{0};
    for (std::size_t bs : b->barrier_steps)
        if (bs + 1 < b->steps()) starts.push_back(bs + 1);
    const std::size_t n = starts.size();
    const float h = fonts().small->FontSize + 6 * s;
    const float min_w =
        std::min(strip_w / float(n),
                 fonts().small->CalcTextSizeA(fonts().small->FontSize, 1e9f, 0, "00").x + 8 * s);
    const float spare = std::max(0.0f, strip_w - min_w * float(n));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    dl->AddText(fonts().small, fonts().small->FontSize, ImVec2(p.x, p.y + 3 * s), colors::text_dim,
                "phases");
    float x = p.x + label_w;
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t begin = starts[i], end = i + 1 < n ? starts[i + 1] : b->steps();
        const float w = min_w + spare * float(end - begin) / float(b->steps());
        const bool current = c.step() >= std::int64_t(begin) && c.step() < std::int64_t(end);
        const ImVec2 a(x, p.y), z(x + w - 1, p.y + h);
        dl->AddRectFilled(a, z,
                          current ? colors::phase_current
                          : i % 2 ? colors::phase_odd
                                  : colors::phase_even,
                          2 * s);
        if (i > 0)
            dl->AddLine(ImVec2(x, p.y - 1 * s), ImVec2(x, p.y + h + 1 * s), colors::barrier,
                        1.5f * s);
        char label[32];
        std::snprintf(label, sizeof label, w > 70 * s ? "phase %zu" : "%zu", i + 1);
        const float tw = fonts().small->CalcTextSizeA(fonts().small->FontSize, 1e9f, 0, label).x;
        if (tw + 4 * s <= w)
            dl->AddText(fonts().small, fonts().small->FontSize,
                        ImVec2(x + (w - tw) * 0.5f, p.y + 3 * s),
                        current ? colors::text : colors::text_dim, label);
        ImGui::SetCursorScreenPos(a);
        ImGui::PushID(int(i));
        if (ImGui::InvisibleButton("##phase", ImVec2(std::max(1.0f, w - 1), h))) {
            c.playback.pause();
            c.playback.seek(std::int64_t(begin));
        }
        if (ImGui::IsItemHovered()) {
            ImGui::BeginTooltip();
            ImGui::Text("phase %zu: steps %zu\xE2\x80\x93%zu (%zu steps)", i + 1, begin + 1, end,
                        end - begin);
            text_dim(i == 0       ? "from the start to the first barrier"
                     : i + 1 == n ? "after the last barrier"
                                  : "between two barriers");
            text_dim("click: go to its first step");
            ImGui::EndTooltip();
        }
        ImGui::PopID();
        x += w;
    }
    ImGui::SetCursorScreenPos(ImVec2(p.x, p.y + h + 10 * s));
}

}  // namespace

void draw_timeline_view(ViewContext& c) {
    const float s = fonts().scale;
    const auto* b = c.block();
    if (!b) {
        view_heading("Timeline", "");
        draw_no_trace("No block was traced in full.");
        return;
    }
    const auto& model = c.views->model;
    char sub[200];
    std::snprintf(sub, sizeof sub, "block %s: %zu warp instructions over %u warps, %zu barrier%s",
                  model.block_label(b->block).c_str(), b->steps(), model.warps_per_block(),
                  b->barrier_steps.size(), b->barrier_steps.size() == 1 ? "" : "s");
    view_heading("Timeline", sub);
    const StepClass legend[] = {
        StepClass::compute, StepClass::global_memory, StepClass::shared_memory, StepClass::control,
        StepClass::barrier, StepClass::waiting,       StepClass::exit};
    for (StepClass k : legend) {
        const float w = ImGui::CalcTextSize(viewmodel::step_class_name(k)).x + 30 * s;
        if (ImGui::GetContentRegionAvail().x < w) ImGui::NewLine();
        legend_item(step_color(k), viewmodel::step_class_name(k));
        ImGui::SameLine(0, spacing::legend_gap * s);
    }
    ImGui::NewLine();
    ImGui::Dummy(ImVec2(0, spacing::row_gap * s));

    const float label_w = 62 * s;
    const float avail_w = ImGui::GetContentRegionAvail().x;
    const float strip_w = std::max(50.0f, avail_w - label_w - 6 * s);
    phase_ruler(c, label_w, strip_w);
    const std::uint32_t columns = std::uint32_t(std::max(16.0f, strip_w / std::max(1.0f, 2 * s)));
    c.ensure_strip(columns);
    const auto& strip = c.strip;
    const std::uint32_t warps = strip.warps;
    const float row_h = std::clamp(std::floor((ImGui::GetContentRegionAvail().y * 0.55f) /
                                              float(std::max<std::uint32_t>(1, warps))),
                                   5 * s, 22 * s);
    const float col_w = strip_w / float(std::max<std::uint32_t>(1, strip.columns));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float x0 = p.x + label_w;
    const float height = row_h * float(warps);
    dl->AddRectFilled(ImVec2(x0, p.y), ImVec2(x0 + strip_w, p.y + height), colors::well, 3 * s);
    for (std::uint32_t w = 0; w < warps; ++w) {
        const float y = p.y + float(w) * row_h;
        if (row_h >= fonts().small->FontSize ||
            w % std::max<std::uint32_t>(1, std::uint32_t(fonts().small->FontSize / row_h) + 1) ==
                0) {
            char label[24];
            std::snprintf(label, sizeof label, "warp %u", w);
            dl->AddText(fonts().small, fonts().small->FontSize,
                        ImVec2(p.x, y + (row_h - fonts().small->FontSize) * 0.5f), colors::text_dim,
                        label);
        }
        // Runs of equal columns as one rectangle each.
        std::uint32_t start = 0;
        for (std::uint32_t col = 1; col <= strip.columns; ++col) {
            const bool boundary =
                col == strip.columns || strip.at(w, col) != strip.at(w, start) ||
                strip.issued_at(w, col) != strip.issued_at(w, start) ||
                std::abs(int(strip.lanes_at(w, col)) - int(strip.lanes_at(w, start))) > 3;
            if (!boundary) continue;
            const StepClass k = strip.at(w, start);
            if (k != StepClass::none) {
                const float lanes =
                    k == StepClass::waiting ? 32.0f : float(strip.lanes_at(w, start));
                ImU32 col_c = step_color(k);
                col_c =
                    mix(colors::well, col_c,
                        (0.35f + 0.65f * lanes / 32.0f) *
                            (strip.issued_at(w, start) || k == StepClass::waiting ? 1.0f : 0.38f));
                dl->AddRectFilled(ImVec2(x0 + float(start) * col_w, y + 1),
                                  ImVec2(x0 + float(col) * col_w, y + row_h - 1), col_c);
            }
            start = col;
        }
    }
    for (std::size_t bs : strip.barriers) {
        const float x = x0 + float(strip.column_of(bs)) * col_w + col_w * 0.5f;
        dl->AddLine(ImVec2(x, p.y - 3 * s), ImVec2(x, p.y + height + 3 * s), colors::barrier,
                    1.5f * s);
    }
    // The playhead.
    if (c.step() >= 0 && strip.steps) {
        const float x = x0 + (float(c.step()) + 0.5f) / float(strip.steps) * strip_w;
        dl->AddLine(ImVec2(x, p.y - 6 * s), ImVec2(x, p.y + height + 6 * s), colors::white, 2 * s);
        dl->AddTriangleFilled(ImVec2(x - 5 * s, p.y - 8 * s), ImVec2(x + 5 * s, p.y - 8 * s),
                              ImVec2(x, p.y - 2 * s), colors::white);
        if (c.event && c.event->warp < warps && c.event->kind != EventKind::barrier_release) {
            const float y = p.y + float(c.event->warp) * row_h;
            dl->AddRect(ImVec2(x - 4 * s, y - 1), ImVec2(x + 4 * s, y + row_h + 1), colors::accent,
                        2 * s, 0, 2 * s);
        }
    }
    ImGui::SetCursorScreenPos(ImVec2(x0, p.y - 6 * s));
    ImGui::InvisibleButton("##strip", ImVec2(strip_w, height + 12 * s));
    if (ImGui::IsItemActive() && strip.steps) {
        const float t = std::clamp((ImGui::GetIO().MousePos.x - x0) / strip_w, 0.0f, 1.0f);
        c.playback.pause();
        c.playback.seek(std::int64_t(t * float(strip.steps - 1) + 0.5f));
    }
    if (ImGui::IsItemHovered() && strip.steps) {
        const ImVec2 m = ImGui::GetIO().MousePos;
        const std::uint32_t col =
            std::min(strip.columns - 1, std::uint32_t(std::max(0.0f, (m.x - x0) / col_w)));
        const std::int64_t w = std::int64_t((m.y - p.y) / row_h);
        ImGui::BeginTooltip();
        const std::size_t a = strip.column_start(col),
                          z = std::max(a, strip.column_start(col + 1) -
                                              (col + 1 < strip.columns ? 1 : 0));
        ImGui::Text("steps %zu\xE2\x80\x93%zu", a + 1, std::min(z + 1, strip.steps));
        if (w >= 0 && w < std::int64_t(warps)) {
            const StepClass k = strip.at(std::uint32_t(w), col);
            ImGui::Text("warp %lld: %s", static_cast<long long>(w), viewmodel::step_class_name(k));
            if (k != StepClass::none && k != StepClass::waiting)
                text_dim("%u of 32 lanes active on average",
                         unsigned(strip.lanes_at(std::uint32_t(w), col)));
        }
        text_dim("click or drag to move the playhead");
        ImGui::EndTooltip();
    }
    ImGui::SetCursorScreenPos(ImVec2(p.x, p.y + height + 14 * s));

    // The last steps up to the playhead.
    section_title("Steps up to the playhead");
    const auto& trace = model.trace();
    const int shown = std::max(
        3, int((ImGui::GetContentRegionAvail().y - 8 * s) / ImGui::GetTextLineHeightWithSpacing()) -
               1);
    if (ImGui::BeginTable("##recent", 5,
                          ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit |
                              ImGuiTableFlags_NoHostExtendX)) {
        ImGui::TableSetupColumn("step");
        ImGui::TableSetupColumn("warp");
        ImGui::TableSetupColumn("line");
        ImGui::TableSetupColumn("lanes");
        ImGui::TableSetupColumn("instruction", ImGuiTableColumnFlags_WidthStretch);
        ImGui::TableHeadersRow();
        const std::int64_t last = c.step();
        for (std::int64_t st = std::max<std::int64_t>(0, last - shown + 1); st <= last; ++st) {
            const WarpEvent& e = model.event(c.detail_block, std::size_t(st));
            ImGui::TableNextRow();
            if (st == last) ImGui::TableSetBgColor(ImGuiTableBgTarget_RowBg0, colors::accent_row);
            ImGui::TableNextColumn();
            ImGui::Text("%lld", static_cast<long long>(st + 1));
            ImGui::TableNextColumn();
            if (e.kind == EventKind::barrier_release) text_dim("all");
            else ImGui::Text("%u", unsigned(e.warp));
            ImGui::TableNextColumn();
            if (e.kind == EventKind::barrier_release) text_dim("\xE2\x80\x93");
            else ImGui::Text("%u", e.pc < trace.pcs.size() ? trace.pcs[e.pc].line : 0);
            ImGui::TableNextColumn();
            {
                const ImVec2 q = ImGui::GetCursorScreenPos();
                const float bw = 64 * s, bh = ImGui::GetTextLineHeight() * 0.55f;
                const float y = q.y + (ImGui::GetTextLineHeight() - bh) * 0.5f;
                ImDrawList* tdl = ImGui::GetWindowDrawList();
                tdl->AddRectFilled(ImVec2(q.x, y), ImVec2(q.x + bw, y + bh), colors::track, 2 * s);
                if (e.kind != EventKind::barrier_release)
                    tdl->AddRectFilled(
                        ImVec2(q.x, y),
                        ImVec2(q.x + bw * float(__builtin_popcount(e.active)) / 32.0f, y + bh),
                        step_color(viewmodel::classify(trace, e)), 2 * s);
                ImGui::Dummy(ImVec2(bw, ImGui::GetTextLineHeight()));
            }
            ImGui::TableNextColumn();
            ImGui::PushFont(fonts().mono_small);
            if (e.kind == EventKind::barrier_release) ImGui::TextUnformatted("barrier released");
            else
                ImGui::TextUnformatted(e.pc < trace.pcs.size() ? trace.pcs[e.pc].text.c_str() : "");
            ImGui::PopFont();
        }
        ImGui::EndTable();
    }
}

}  // namespace cudalab::gui
