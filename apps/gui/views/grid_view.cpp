// The grid view: every block of the launch as a tile, coloured by the SM it was modelled on (or
// its wave). Traced blocks carry a dot; the open block an outline and a bar of how far the
// playhead is through it. Hover for the block's indices; click a traced block to open it, an
// untraced one to trace it (the lesson runs again).
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "shell/theme.h"
#include "viewmodel/format.h"
#include "views/view_common.h"
#include "widgets/widgets.h"

namespace cudalab::gui {

namespace {

// The open block's threads laid out as the programmer indexes them (x across, y down; a 1D block
// in rows of 32, one warp each), coloured by what each thread does at the playhead, warps told
// apart by shade: which threads form which warp, and which of them stopped at a guard.
void block_map(ViewContext& c, float height) {
    const float s = fonts().scale;
    const auto* b = c.block();
    if (!b || c.warps.empty() || height < 60 * s) return;
    const auto& model = c.views->model;
    const KernelInfo& k = model.trace().kernel;
    const bool one_d = k.block[1] == 1 && k.block[2] == 1;
    const std::uint32_t threads = model.threads_per_block();
    const std::uint32_t cols = one_d ? std::min<std::uint32_t>(32, threads) : k.block[0];
    const std::uint32_t rows = one_d ? (threads + 31) / 32 : k.block[1] * k.block[2];
    ImGui::PushFont(fonts().ui_bold);
    ImGui::Text("Block %s, thread by thread", model.block_label(b->block).c_str());
    ImGui::PopFont();
    ImGui::SameLine();
    text_dim(one_d ? "in rows of 32: each row is one warp"
                   : "threadIdx.x across, .y down; warps alternate in shade");
    const float avail_w = ImGui::GetContentRegionAvail().x - 60 * s;
    const float avail_h = height - ImGui::GetTextLineHeightWithSpacing() - 8 * s;
    const float cell = std::clamp(
        std::floor(std::min(avail_w / float(cols), avail_h / float(rows))), 3 * s, 20 * s);
    const float gap = cell >= 8 * s ? 1 : 0;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float x0 = p.x + 40 * s;
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const int current_warp =
        c.event && c.event->kind != EventKind::barrier_release ? int(c.event->warp) : -1;
    ImFont* f = fonts().mono_small;
    // Row labels never closer together than a line of text (every 2nd, 4th, ... row when small).
    std::uint32_t label_every = 1;
    while (float(label_every) * cell < f->FontSize * 0.95f) label_every *= 2;
    for (std::uint32_t r = 0; r < rows; ++r) {
        if (r % label_every == 0) {
            char label[16];
            std::snprintf(label, sizeof label, one_d ? "w%u" : "y%u", r);
            dl->AddText(f, f->FontSize,
                        ImVec2(p.x, p.y + float(r) * cell + (cell - f->FontSize) * 0.5f),
                        colors::text_faint, label);
        }
        for (std::uint32_t x = 0; x < cols; ++x) {
            const std::uint32_t t = one_d ? r * 32 + x : x + r * k.block[0];
            if (t >= threads) continue;
            const std::uint32_t w = t / 32, lane = t % 32;
            if (w >= c.warps.size()) continue;
            const viewmodel::LaneState st = c.warps[w].lane(int(lane));
            ImU32 col = lane_color(st);
            if (w % 2) col = mix(col, colors::black, 0.28f);  // odd warps darker
            if (int(w) != current_warp && current_warp >= 0) col = mix(colors::panel, col, 0.8f);
            const ImVec2 a(x0 + float(x) * cell, p.y + float(r) * cell),
                z(a.x + cell - gap, a.y + cell - gap);
            dl->AddRectFilled(a, z, col);
            if (mouse.x >= a.x && mouse.x < z.x && mouse.y >= a.y && mouse.y < z.y &&
                ImGui::IsWindowHovered()) {
                ImGui::BeginTooltip();
                ImGui::Text("threadIdx = (%u, %u, %u)", t % k.block[0],
                            (t / k.block[0]) % k.block[1], t / (k.block[0] * k.block[1]));
                ImGui::Text("warp %u, lane %u", w, lane);
                text_dim("%s", viewmodel::lane_state_name(st));
                ImGui::EndTooltip();
            }
        }
    }
    ImGui::Dummy(ImVec2(40 * s + float(cols) * cell, float(rows) * cell + 4 * s));
    // What the colours mean (the states present in this block).
    bool present[7] = {};
    for (const auto& w : c.warps)
        for (int l = 0; l < 32; ++l) present[int(w.lane(l))] = true;
    ImGui::SetCursorPosX(ImGui::GetCursorPosX() + 40 * s);
    for (int i = 0; i < 7; ++i) {
        const auto st = viewmodel::LaneState(i);
        if (!present[i] || st == viewmodel::LaneState::no_thread) continue;
        legend_item(lane_color(st), viewmodel::lane_state_name(st));
        ImGui::SameLine(0, spacing::group_gap * s);
    }
    ImGui::NewLine();
}

}  // namespace

void draw_grid_view(ViewContext& c) {
    const float s = fonts().scale;
    const auto& g = c.views->grid;
    const auto& model = c.views->model;
    const KernelInfo& k = c.views->trace().kernel;
    const std::uint64_t threads = std::uint64_t(g.blocks) * g.threads_per_block;
    const std::uint32_t warps_per_block = (g.threads_per_block + 31) / 32;

    view_heading("Grid", k.name.empty() ? "" : "kernel " + k.name);
    char dims[256];
    std::snprintf(dims, sizeof dims, "gridDim (%u, %u, %u)  \xC3\x97  blockDim (%u, %u, %u)",
                  k.grid[0], k.grid[1], k.grid[2], k.block[0], k.block[1], k.block[2]);
    ImGui::PushFont(fonts().mono);
    ImGui::TextUnformatted(dims);
    ImGui::PopFont();
    ImGui::PushTextWrapPos(0);
    text_dim("%u block%s of %u threads = %s threads, run as %s warps (%u per block); %u modelled "
             "SMs, %u wave%s",
             g.blocks, g.blocks == 1 ? "" : "s", g.threads_per_block,
             viewmodel::compact_count(threads).c_str(),
             viewmodel::compact_count(std::uint64_t(g.blocks) * warps_per_block).c_str(),
             warps_per_block, g.num_sms, g.waves, g.waves == 1 ? "" : "s");
    if (g.threads_per_block % 32 != 0)
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colors::fair),
                           "%u threads per block is not a multiple of 32: the last warp of every "
                           "block has %u empty lanes.",
                           g.threads_per_block, 32 - g.threads_per_block % 32);
    ImGui::PopTextWrapPos();

    ImGui::AlignTextToFramePadding();
    text_dim("Colour by");
    ImGui::SameLine();
    ImGui::RadioButton("SM", &c.grid_coloring, 0);
    ImGui::SameLine();
    ImGui::RadioButton("wave", &c.grid_coloring, 1);
    ImGui::SameLine(0, spacing::wide_gap * s);
    legend_item(colors::white, "traced in full");
    ImGui::SameLine(0, spacing::group_gap * s);
    legend_item(colors::accent, "open block", true);

    // Tiles.
    const float footer = ImGui::GetTextLineHeightWithSpacing() * 2.2f;
    const float total_h = std::max(80.0f * s, ImGui::GetContentRegionAvail().y - footer);
    const float gap = std::max(2.0f, 3 * s);
    // The tiles take what they need, at most 60% when a traced block's map is shown below.
    const float tiles_max_h = c.block() ? total_h * 0.6f : total_h;
    viewmodel::GridLayout layout =
        g.layout(ImGui::GetContentRegionAvail().x - 14 * s, tiles_max_h, 12 * s, 56 * s);
    const ImVec2 avail(ImGui::GetContentRegionAvail().x,
                       std::min(tiles_max_h, float(layout.rows) * layout.tile + 4 * s));
    const float tile = layout.tile;
    ImGui::BeginChild("##tiles", avail, false,
                      ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoBackground);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    const ImVec4 clip = clip_rect(dl);
    const std::uint32_t first_row = std::uint32_t(std::max(0.0f, (clip.y - origin.y) / tile));
    const std::uint32_t last_row =
        std::min<std::uint32_t>(layout.rows, std::uint32_t((clip.w - origin.y) / tile) + 1);
    const auto* open = c.block();
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    std::int64_t hovered = -1;
    ImFont* label_font = fonts().mono_small;
    for (std::uint32_t row = first_row; row < last_row; ++row) {
        for (std::uint32_t col = 0; col < layout.columns; ++col) {
            const std::int64_t b = g.block_at(layout, col, row);
            if (b < 0) continue;
            const ImVec2 a(origin.x + float(col) * tile, origin.y + float(row) * tile);
            const ImVec2 z(a.x + tile - gap, a.y + tile - gap);
            const std::uint32_t sm = b < std::int64_t(c.views->trace().block_sm.size())
                                         ? c.views->trace().block_sm[std::size_t(b)]
                                         : 0;
            const std::uint32_t wave = b < std::int64_t(c.views->trace().block_wave.size())
                                           ? c.views->trace().block_wave[std::size_t(b)]
                                           : 0;
            const bool traced = g.traced[std::size_t(b)];
            ImU32 fill = c.grid_coloring == 0 ? sm_color(sm, traced ? 1.0f : 0.8f)
                                              : sm_color(wave * 7 + 1, traced ? 1.0f : 0.8f);
            const bool is_hover = mouse.x >= a.x && mouse.x < z.x && mouse.y >= a.y &&
                                  mouse.y < z.y && ImGui::IsWindowHovered();
            if (is_hover) {
                hovered = b;
                fill = mix(fill, colors::white, 0.25f);
            }
            dl->AddRectFilled(a, z, fill, 3 * s);
            if (traced)
                dl->AddCircleFilled(ImVec2(z.x - 5 * s, a.y + 5 * s), 2.5f * s, colors::white, 8);
            if (open && open->block == std::uint32_t(b)) {
                // How far the playhead is through the open block.
                const float done = open->steps() ? float(c.step() + 1) / float(open->steps()) : 0;
                dl->AddRectFilled(ImVec2(a.x + 3 * s, z.y - 5 * s),
                                  ImVec2(a.x + 3 * s + (z.x - a.x - 6 * s) * done, z.y - 3 * s),
                                  colors::block_outline, 1 * s);
                dl->AddRect(ImVec2(a.x - 2 * s, a.y - 2 * s), ImVec2(z.x + 2 * s, z.y + 2 * s),
                            colors::accent, 4 * s, 0, 2.5f * s);
            }
            if (tile >= 26 * s) {
                char label[32];
                std::uint32_t co[3];
                model.block_coords(std::uint32_t(b), co);
                if (g.is_1d()) std::snprintf(label, sizeof label, "%u", co[0]);
                else std::snprintf(label, sizeof label, "%u,%u", co[0], co[1]);
                const ImVec2 ts = label_font->CalcTextSizeA(label_font->FontSize, 1e9f, 0, label);
                if (ts.x < tile - gap - 4 * s)
                    dl->AddText(label_font, label_font->FontSize, ImVec2(a.x + 4 * s, a.y + 3 * s),
                                colors::ink_soft, label);
            }
        }
    }
    ImGui::Dummy(ImVec2(float(layout.columns) * tile, float(layout.rows) * tile));
    if (hovered >= 0) {
        const std::uint32_t b = std::uint32_t(hovered);
        std::uint32_t co[3];
        model.block_coords(b, co);
        const bool traced = g.traced[b];
        const std::uint64_t first_thread = std::uint64_t(b) * g.threads_per_block;
        ImGui::BeginTooltip();
        ImGui::PushFont(fonts().ui_bold);
        ImGui::Text("block %s", model.block_label(b).c_str());
        ImGui::PopFont();
        ImGui::Text("blockIdx = (%u, %u, %u), linear id %u", co[0], co[1], co[2], b);
        if (g.is_1d() && k.block[1] == 1 && k.block[2] == 1)
            ImGui::Text("global ids %llu \xE2\x80\x93 %llu",
                        static_cast<unsigned long long>(first_thread),
                        static_cast<unsigned long long>(first_thread + g.threads_per_block - 1));
        ImGui::Text("modelled SM %u, wave %u", unsigned(c.views->trace().block_sm[b]),
                    c.views->trace().block_wave[b]);
        text_dim(traced
                     ? "Traced in full: click to open it in the warps, memory and timeline views."
                     : "Counted, not traced: click to run again with this block traced in full.");
        ImGui::EndTooltip();
        if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) {
            const int d = model.find_detail_block(b);
            if (d >= 0) c.select_block(std::size_t(d));
            else c.trace_block_request = b;
        }
        if (ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left) && traced)
            c.switch_view = ViewId::warps;
    }
    ImGui::EndChild();
    ImGui::Dummy(ImVec2(0, spacing::section_gap * s));
    block_map(c, total_h - avail.y - 10 * s);
    if (open) {
        ImGui::SetCursorPosY(
            std::max(ImGui::GetCursorPosY(),
                     ImGui::GetWindowHeight() - footer - ImGui::GetStyle().WindowPadding.y));
        ImGui::PushTextWrapPos(0);
        text_dim("Open: block %s on SM %u, %zu steps traced. Click another traced block (white "
                 "dot) to open it; "
                 "double-click to see its warps.",
                 model.block_label(open->block).c_str(), unsigned(open->sm), open->steps());
        ImGui::PopTextWrapPos();
    }
}

}  // namespace cudalab::gui
