// The warps view: the open block's warps as rows of 32 lanes, each lane coloured by what it does
// at the playhead: active, predicated off, masked by divergence, waiting at a barrier, exited,
// or no thread at all. The warp issuing the current instruction is marked, with its source line.
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "shell/theme.h"
#include "viewmodel/format.h"
#include "views/view_common.h"
#include "widgets/widgets.h"

namespace cudalab::gui {

using viewmodel::LaneState;

namespace {

// The sizes every part of the view shares.
struct WarpsLayout {
    float s = 1;
    float label_w = 0, status_w = 0, avail_w = 0;
    float cell = 0, gap = 0, row_h = 0;
    int current_warp = -1;  // the warp issuing the current instruction (-1: a barrier release)
};

// Lane numbers over the rows, and lines between sector-sized groups of 8 lanes (a reading aid).
void draw_lane_numbers(const ViewContext& c, const WarpsLayout& g) {
    const float s = g.s;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImFont* f = fonts().mono_small;
    const int every = g.cell >= 18 * s ? 2 : g.cell >= 11 * s ? 4 : 8;
    dl->AddText(fonts().small, fonts().small->FontSize, ImVec2(p.x, p.y), colors::text_faint,
                "lane");
    for (int l = 0; l < 32; l += every) {
        char n[4];
        std::snprintf(n, sizeof n, "%d", l);
        const float tw = f->CalcTextSizeA(f->FontSize, 1e9f, 0, n).x;
        dl->AddText(f, f->FontSize,
                    ImVec2(p.x + g.label_w + float(l) * g.cell + (g.cell - g.gap - tw) * 0.5f, p.y),
                    colors::text_faint, n);
    }
    for (int l = 8; l < 32; l += 8)
        dl->AddLine(ImVec2(p.x + g.label_w + float(l) * g.cell - g.gap * 0.5f - 1,
                           p.y + f->FontSize + 2 * s),
                    ImVec2(p.x + g.label_w + float(l) * g.cell - g.gap * 0.5f - 1,
                           p.y + f->FontSize + 2 * s + g.row_h * float(c.warps.size())),
                    colors::hover_tint_strong);
    ImGui::Dummy(ImVec2(g.avail_w, f->FontSize + 4 * s));
}

// A lane's tooltip: which thread it is and what it does.
void lane_tooltip(const ViewContext& c, std::size_t w, int l, LaneState st) {
    const auto& model = c.views->model;
    const KernelInfo& k = model.trace().kernel;
    const auto* b = c.block();
    const std::uint32_t t = std::uint32_t(w) * 32 + std::uint32_t(l);
    ImGui::BeginTooltip();
    ImGui::PushFont(fonts().ui_bold);
    ImGui::Text("warp %zu, lane %d", w, l);
    ImGui::PopFont();
    if (st == LaneState::no_thread)
        text_dim("No thread: the block has %u threads.", model.threads_per_block());
    else {
        const std::uint32_t tx = t % k.block[0], ty = (t / k.block[0]) % k.block[1],
                            tz = t / (k.block[0] * k.block[1]);
        ImGui::Text("threadIdx = (%u, %u, %u)", tx, ty, tz);
        if (model.trace().kernel.grid[1] == 1 && k.block[1] == 1)
            ImGui::Text(
                "global id = %u \xC3\x97 %u + %u = %llu", b->coords[0], k.block[0], tx,
                static_cast<unsigned long long>(std::uint64_t(b->coords[0]) * k.block[0] + tx));
        ImGui::Text("%s", viewmodel::lane_state_name(st));
    }
    ImGui::EndTooltip();
}

// One warp's row: its number and threads, its 32 lanes, and what it last did.
void draw_warp_row(const ViewContext& c, const WarpsLayout& g, std::size_t w, ImVec2 origin) {
    const float s = g.s;
    const auto& model = c.views->model;
    const KernelInfo& k = model.trace().kernel;
    const auto& pcs = model.trace().pcs;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const auto& ws = c.warps[w];
    const float y = origin.y + float(w) * g.row_h;
    const float cell = g.cell;
    const bool is_current = int(w) == g.current_warp;
    if (is_current)
        dl->AddRectFilled(ImVec2(origin.x - 4 * s, y - 2 * s),
                          ImVec2(origin.x + g.avail_w, y + cell + 2 * s), colors::accent_band,
                          4 * s);
    char label[48];
    std::snprintf(label, sizeof label, "warp %zu", w);
    dl->AddText(is_current ? fonts().ui_bold : fonts().ui, fonts().ui->FontSize,
                ImVec2(origin.x + 9 * s, y + (cell - fonts().ui->FontSize) * 0.5f),
                is_current ? colors::accent : colors::text, label);
    if (is_current)
        dl->AddTriangleFilled(ImVec2(origin.x, y + cell * 0.5f - 4 * s),
                              ImVec2(origin.x, y + cell * 0.5f + 4 * s),
                              ImVec2(origin.x + 6 * s, y + cell * 0.5f), colors::accent);
    char range[32];
    const std::uint32_t t0 = std::uint32_t(w) * 32;
    const std::uint32_t t1 = std::min<std::uint32_t>(t0 + 31, model.threads_per_block() - 1);
    if (k.block[1] == 1 && k.block[2] == 1)
        std::snprintf(range, sizeof range, "t%u\xE2\x80\x93%u", t0, t1);
    else std::snprintf(range, sizeof range, "%u\xE2\x80\x93%u", t0, t1);
    dl->AddText(fonts().mono_small, fonts().mono_small->FontSize,
                ImVec2(origin.x + 64 * s, y + (cell - fonts().mono_small->FontSize) * 0.5f),
                colors::text_faint, range);
    const float dim = is_current || g.current_warp < 0 ? 1.0f : 0.55f;
    for (int l = 0; l < 32; ++l) {
        const LaneState st = ws.lane(l);
        const ImVec2 a(origin.x + g.label_w + float(l) * cell, y), z(a.x + cell - g.gap, y + cell);
        if (st == LaneState::no_thread) {
            dl->AddRect(a, z, colors::lane_outline, 0.0f, 0, 1.0f);
        } else {
            ImU32 col = lane_color(st);
            if (dim < 1) col = mix(colors::panel, col, dim);
            dl->AddRectFilled(a, z, col);  // square: rounded cells cost many more vertices
            if (st == LaneState::exited && cell >= 10 * s) {
                dl->AddLine(ImVec2(a.x + 3 * s, a.y + 3 * s), ImVec2(z.x - 3 * s, z.y - 3 * s),
                            colors::no_thread_cross, 1.0f);
                dl->AddLine(ImVec2(z.x - 3 * s, a.y + 3 * s), ImVec2(a.x + 3 * s, z.y - 3 * s),
                            colors::no_thread_cross, 1.0f);
            }
            if (st == LaneState::predicated_off && cell >= 10 * s)
                dl->AddLine(ImVec2(a.x + 2 * s, z.y - 2 * s), ImVec2(z.x - 2 * s, a.y + 2 * s),
                            colors::predicated_stroke, 1.5f * s);
        }
        if (mouse.x >= a.x && mouse.x < z.x && mouse.y >= a.y && mouse.y < z.y &&
            ImGui::IsWindowHovered())
            lane_tooltip(c, w, l, st);
    }
    std::string status;
    if (ws.done()) status = "exited";
    else if (ws.waiting) status = "waiting at barrier";
    else if (ws.last_step < 0) status = "not started";
    else {
        const WarpEvent& e = model.event(c.detail_block, std::size_t(ws.last_step));
        status = "line " + std::to_string(e.pc < pcs.size() ? pcs[e.pc].line : 0) + " \xC2\xB7 " +
                 std::to_string(__builtin_popcount(ws.active & ~ws.exited)) + "/32";
    }
    draw_text_clipped(dl, fonts().small,
                      ImVec2(origin.x + g.label_w + 32 * cell + 10 * s,
                             y + (cell - fonts().small->FontSize) * 0.5f),
                      is_current ? colors::text : colors::text_dim, status, g.status_w - 12 * s);
}

// The rows, in a child that scrolls to keep the current warp in view.
void draw_warp_rows(const ViewContext& c, const WarpsLayout& g) {
    const float s = g.s;
    const float list_h = std::max(g.row_h * 2, ImGui::GetContentRegionAvail().y * 0.62f -
                                                   ImGui::GetTextLineHeightWithSpacing() * 3.2f);
    ImGui::BeginChild("##warp_rows",
                      ImVec2(0, std::min(list_h, g.row_h * float(c.warps.size()) + 4 * s)), false,
                      ImGuiWindowFlags_NoBackground);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    for (std::size_t w = 0; w < c.warps.size(); ++w) draw_warp_row(c, g, w, origin);
    ImGui::Dummy(ImVec2(g.avail_w, g.row_h * float(c.warps.size())));
    if (c.step_changed && g.current_warp >= 0) {
        const float y = float(g.current_warp) * g.row_h;
        if (y < ImGui::GetScrollY() || y + g.row_h > ImGui::GetScrollY() + ImGui::GetWindowHeight())
            ImGui::SetScrollY(y - ImGui::GetWindowHeight() * 0.4f);
    }
    ImGui::EndChild();
}

// The legend, with how many lanes of the block are in each state.
void draw_lane_legend(const ViewContext& c, float s) {
    int counts[7] = {};
    for (const auto& w : c.warps)
        for (int l = 0; l < 32; ++l) ++counts[int(w.lane(l))];
    ImGui::Dummy(ImVec2(0, spacing::line_gap * s));
    const LaneState order[] = {
        LaneState::active, LaneState::predicated_off, LaneState::masked,   LaneState::waiting,
        LaneState::exited, LaneState::not_started,    LaneState::no_thread};
    for (LaneState st : order) {
        char label[64];
        std::snprintf(label, sizeof label, "%s %d", viewmodel::lane_state_name(st),
                      counts[int(st)]);
        const float w = ImGui::CalcTextSize(label).x + 30 * s;
        if (ImGui::GetContentRegionAvail().x < w) ImGui::NewLine();
        legend_item(st == LaneState::no_thread ? colors::idle : lane_color(st), label,
                    st == LaneState::no_thread);
        ImGui::SameLine(0, spacing::group_gap * s);
    }
    ImGui::NewLine();
}

// The current warp's last instructions, one row each: its lanes over time.
void draw_warp_history(const ViewContext& c, const WarpsLayout& g) {
    const float s = g.s;
    if (c.warp_history.empty() || ImGui::GetContentRegionAvail().y < 60 * s) return;
    const auto& model = c.views->model;
    const auto& pcs = model.trace().pcs;
    ImGui::Dummy(ImVec2(0, spacing::section_gap * s));
    ImGui::PushFont(fonts().ui_bold);
    ImGui::Text("Warp %u over time", unsigned(c.event->warp));
    ImGui::PopFont();
    ImGui::SameLine();
    text_dim("its last %zu instructions, the newest at the bottom", c.warp_history.size());
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float cell = g.cell;
    const float hcell = std::min(cell, 14 * s);
    const float hrow = std::max(hcell, fonts().mono_small->FontSize) + 3 * s;
    const ImVec2 hp = ImGui::GetCursorScreenPos();
    const std::size_t fit =
        std::size_t(std::max(1.0f, (ImGui::GetContentRegionAvail().y - 4 * s) / hrow));
    const std::size_t from = c.warp_history.size() > fit ? c.warp_history.size() - fit : 0;
    const std::uint32_t lanes = c.warps.empty() ? 0xffffffffu : c.warps[c.event->warp].lanes;
    for (std::size_t i = from; i < c.warp_history.size(); ++i) {
        const std::size_t st = c.warp_history[i];
        const WarpEvent& e = model.event(c.detail_block, st);
        const float y = hp.y + float(i - from) * hrow;
        const bool now = st == std::size_t(c.step());
        char label[32];
        std::snprintf(label, sizeof label, "%zu", st + 1);
        dl->AddText(fonts().mono_small, fonts().mono_small->FontSize, ImVec2(hp.x, y),
                    now ? colors::accent : colors::text_faint, label);
        char ln[16];
        const std::uint32_t hl = e.pc < pcs.size() ? pcs[e.pc].line : 0;
        if (hl) std::snprintf(ln, sizeof ln, "L%u", hl);
        else std::snprintf(ln, sizeof ln, "L\xE2\x80\x93");
        dl->AddText(fonts().mono_small, fonts().mono_small->FontSize, ImVec2(hp.x + 44 * s, y),
                    now ? colors::accent : colors::text_dim, ln);
        for (int l = 0; l < 32; ++l) {
            const std::uint32_t bit = 1u << l;
            const ImVec2 a(hp.x + g.label_w + float(l) * cell, y),
                z(a.x + hcell - 1, y + hcell - 1);
            if (!(lanes & bit)) {
                dl->AddRect(a, z, colors::lane_outline_faint, 0.0f);
                continue;
            }
            // as TraceModel
            const std::uint32_t on = e.kind == EventKind::branch ? e.active : e.predicated_on;
            const LaneState st_l =
                (e.active & bit) ? ((on & bit) ? LaneState::active : LaneState::predicated_off)
                                 : LaneState::exited;
            ImU32 col = st_l == LaneState::exited ? colors::exited : lane_color(st_l);
            if (!now) col = mix(colors::panel, col, 0.75f);
            dl->AddRectFilled(a, z, col);
        }
        if (e.pc < pcs.size())
            draw_text_clipped(dl, fonts().mono_small,
                              ImVec2(hp.x + g.label_w + 32 * cell + 10 * s, y),
                              now ? colors::text : colors::text_dim, pcs[e.pc].text,
                              g.status_w + ImGui::GetContentRegionAvail().x -
                                  (g.label_w + 32 * cell + g.status_w) - 12 * s);
    }
    ImGui::Dummy(ImVec2(g.avail_w, float(c.warp_history.size() - from) * hrow));
}

}  // namespace

void draw_warps_view(ViewContext& c) {
    const float s = fonts().scale;
    const auto& model = c.views->model;
    const auto* b = c.block();
    if (!b) {
        view_heading("Warps", "");
        draw_no_trace("No block of this launch was traced in full.");
        return;
    }
    char sub[160];
    std::snprintf(sub, sizeof sub, "block %s: %u threads in %u warps of 32",
                  model.block_label(b->block).c_str(), model.threads_per_block(),
                  model.warps_per_block());
    view_heading("Warps", sub);
    current_step_card(c);
    ImGui::Dummy(ImVec2(0, spacing::line_gap * s));

    WarpsLayout g;
    g.s = s;
    g.label_w = 104 * s;
    g.status_w = 104 * s;
    g.avail_w = ImGui::GetContentRegionAvail().x;
    g.cell = std::clamp(std::floor((g.avail_w - g.label_w - g.status_w) / 32.0f), 7 * s, 26 * s);
    g.gap = g.cell >= 12 * s ? 2 * s : 1;
    g.row_h = g.cell + 6 * s;
    g.current_warp =
        c.event && c.event->kind != EventKind::barrier_release ? int(c.event->warp) : -1;
    draw_lane_numbers(c, g);
    draw_warp_rows(c, g);
    draw_lane_legend(c, s);
    draw_warp_history(c, g);
}

}  // namespace cudalab::gui
