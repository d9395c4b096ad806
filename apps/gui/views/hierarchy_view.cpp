// The hierarchy view: registers, L1 / shared memory, L2 and device memory as a stack, with the
// bytes that moved between each pair over the whole launch (from the analysis): what the lanes
// asked for, what moved in whole 32-byte sectors, and how much of that was used. Beside it, the
// SM: how many blocks and warps fit at once, and what limits them.
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "shell/theme.h"
#include "viewmodel/format.h"
#include "views/view_common.h"
#include "widgets/widgets.h"

namespace cudalab::gui {

namespace {

float thickness(std::uint64_t bytes, float s) {
    if (bytes == 0) return 1.0f * s;
    return std::clamp(std::log2(float(bytes)) * 0.9f * s, 2.0f * s, 18.0f * s);
}

// An arrow between two levels at x, from y0 to y1 (up when y1 < y0).
void flow_arrow(ImDrawList* dl, float x, float y0, float y1, float width, ImU32 color) {
    const float head = std::max(width * 1.2f, 7.0f);
    const float dir = y1 < y0 ? -1.0f : 1.0f;
    const float shaft_end = y1 - dir * head;
    dl->AddRectFilled(ImVec2(x - width * 0.5f, std::min(y0, shaft_end)),
                      ImVec2(x + width * 0.5f, std::max(y0, shaft_end)), color);
    dl->AddTriangleFilled(ImVec2(x - head, shaft_end), ImVec2(x + head, shaft_end), ImVec2(x, y1),
                          color);
}

void level_box(ImDrawList* dl, ImVec2 a, ImVec2 z, const char* name, const std::string& detail,
               ImU32 accent) {
    const float s = fonts().scale;
    dl->AddRectFilled(a, z, colors::panel_light, 6 * s);
    dl->AddRectFilled(a, ImVec2(a.x + 4 * s, z.y), accent, 6 * s, ImDrawFlags_RoundCornersLeft);
    dl->AddText(fonts().ui_bold, fonts().ui_bold->FontSize, ImVec2(a.x + 14 * s, a.y + 8 * s),
                colors::text, name);
    draw_text_clipped(dl, fonts().small,
                      ImVec2(a.x + 14 * s, a.y + 10 * s + fonts().ui_bold->FontSize),
                      colors::text_dim, detail, z.x - a.x - 24 * s);
}

void flow_label(ImDrawList* dl, ImVec2 at, ImU32 color, const std::string& top,
                const std::string& bottom, float max_w) {
    draw_text_clipped(dl, fonts().ui_bold, at, color, top, max_w);
    draw_text_clipped(dl, fonts().small, ImVec2(at.x, at.y + fonts().ui_bold->FontSize + 2),
                      colors::text_dim, bottom, max_w);
}

void limit_bar(const char* name, int blocks, int best, int widest, float width) {
    const float s = fonts().scale;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float h = ImGui::GetTextLineHeight();
    const float label_w = 104 * s;
    dl->AddText(fonts().small, fonts().small->FontSize, ImVec2(p.x, p.y + 2 * s), colors::text_dim,
                name);
    const float bw = width - label_w - 40 * s;
    dl->AddRectFilled(ImVec2(p.x + label_w, p.y + 3 * s),
                      ImVec2(p.x + label_w + bw, p.y + h - 3 * s), colors::track, 2 * s);
    const float f = std::clamp(float(blocks) / float(std::max(widest, 1)), 0.02f, 1.0f);
    dl->AddRectFilled(ImVec2(p.x + label_w, p.y + 3 * s),
                      ImVec2(p.x + label_w + bw * f, p.y + h - 3 * s),
                      blocks == best ? colors::fair : colors::compute, 2 * s);
    char n[16];
    std::snprintf(n, sizeof n, "%d", blocks);
    dl->AddText(fonts().small, fonts().small->FontSize,
                ImVec2(p.x + label_w + bw + 6 * s, p.y + 2 * s), colors::text, n);
    ImGui::Dummy(ImVec2(width, h));
}

}  // namespace

void draw_hierarchy_view(ViewContext& c) {
    const float s = fonts().scale;
    const auto& h = c.views->hierarchy;
    view_heading("Memory hierarchy", "bytes moved over the whole launch, every block");
    ImGui::Dummy(ImVec2(0, spacing::line_gap * s));
    const float avail_w = ImGui::GetContentRegionAvail().x;
    const float box_h = 50 * s;
    const float gap =
        std::clamp((ImGui::GetContentRegionAvail().y - 4 * box_h - 250 * s) / 3.0f, 40 * s, 70 * s);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p = ImGui::GetCursorScreenPos();

    // The stack: boxes on the left, arrows between them, what moved on the right.
    const float bx = p.x, bw = std::max(200 * s, avail_w * 0.44f);
    float y = p.y;
    const ImVec2 reg_a(bx, y), reg_z(bx + bw, y + box_h);
    level_box(dl, reg_a, reg_z, "Registers",
              viewmodel::compact_count(h.thread_instructions) + " thread instructions ran",
              colors::accent);
    y += box_h + gap;
    const ImVec2 l1_a(bx, y), l1_z(bx + bw, y + box_h);
    std::string l1_detail = "128-byte lines of four 32-byte sectors";
    if (h.shared_requests)
        l1_detail = "shared: " + viewmodel::compact_count(h.shared_requests) + " requests, " +
                    viewmodel::compact_count(h.shared_wavefronts) + " wavefronts, " +
                    viewmodel::compact_count(h.bank_conflicts) + " conflicts";
    level_box(dl, l1_a, l1_z, "L1 / shared memory", l1_detail, colors::info);
    y += box_h + gap;
    const ImVec2 l2_a(bx, y), l2_z(bx + bw, y + box_h);
    level_box(dl, l2_a, l2_z, "L2 cache", "shared by all SMs", colors::l2);
    y += box_h + gap;
    const ImVec2 dram_a(bx, y), dram_z(bx + bw, y + box_h);
    level_box(dl, dram_a, dram_z, "Device memory", "global: HBM or GDDR", colors::dram);
    const float bottom = y + box_h;

    // Loads go up (left arrow), stores down (right arrow).
    const float load_x = bx + bw * 0.3f, store_x = bx + bw * 0.7f;
    const float label_x = bx + bw + 16 * s, label_w = avail_w - bw - 20 * s;
    auto pair = [&](ImVec2 upper_z, ImVec2 lower_a, std::uint64_t load_bytes,
                    std::uint64_t store_bytes, const std::string& load_top,
                    const std::string& load_sub, const std::string& store_top,
                    const std::string& store_sub, bool modelled) {
        const float y0 = upper_z.y + 4 * s, y1 = lower_a.y - 4 * s;
        const ImU32 lc = modelled ? colors::load : with_alpha(colors::load, 0.35f);
        const ImU32 sc = modelled ? colors::store : with_alpha(colors::store, 0.35f);
        if (load_bytes) flow_arrow(dl, load_x, y1, y0, thickness(load_bytes, s), lc);
        if (store_bytes) flow_arrow(dl, store_x, y0, y1, thickness(store_bytes, s), sc);
        const float mid = (y0 + y1) * 0.5f;
        const float lh = fonts().ui_bold->FontSize + fonts().small->FontSize + 4 * s;
        const bool both = !load_top.empty() && !store_top.empty();
        if (!load_top.empty())
            flow_label(dl, ImVec2(label_x, both ? mid - lh - 1 * s : mid - lh * 0.5f), colors::load,
                       load_top, load_sub, label_w);
        if (!store_top.empty())
            flow_label(dl, ImVec2(label_x, both ? mid + 3 * s : mid - lh * 0.5f), colors::store,
                       store_top, store_sub, label_w);
    };
    auto bytes = [](std::uint64_t b) { return viewmodel::byte_count(b); };
    pair(reg_z, l1_a, h.load_requested_bytes, h.store_requested_bytes,
         h.load_requests ? "\xE2\x86\x91 " + bytes(h.load_requested_bytes) + " loaded"
                         : "no global loads",
         h.load_requests ? viewmodel::compact_count(h.load_requests) +
                               " warp requests: the bytes lanes asked for"
                         : "",
         h.store_requests ? "\xE2\x86\x93 " + bytes(h.store_requested_bytes) + " stored"
                          : "no global stores",
         h.store_requests
             ? viewmodel::compact_count(h.store_requests) + " warp requests: the bytes lanes wrote"
             : "",
         true);
    pair(l1_z, l2_a, h.load_moved_bytes(), h.store_moved_bytes(),
         h.load_requests ? "\xE2\x86\x91 " + bytes(h.load_moved_bytes()) + " in " +
                               viewmodel::compact_count(h.load_sectors) + " sectors"
                         : "",
         h.load_requests ? viewmodel::fixed(h.load_sectors_per_request, 1) + " sectors/request, " +
                               viewmodel::percent(h.load_efficiency) + " of it used"
                         : "",
         h.store_requests ? "\xE2\x86\x93 " + bytes(h.store_moved_bytes()) + " in " +
                                viewmodel::compact_count(h.store_sectors) + " sectors"
                          : "",
         h.store_requests
             ? viewmodel::fixed(h.store_sectors_per_request, 1) + " sectors/request, " +
                   viewmodel::percent(h.store_efficiency) + " of it used"
             : "",
         true);
    pair(l2_z, dram_a, h.load_moved_bytes(), h.store_moved_bytes(),
         h.load_requests || h.store_requests ? "at most the same sectors" : "",
         h.load_requests || h.store_requests ? "L2 hits are not modelled: an upper bound" : "", "",
         "", false);

    // Below: the SM (occupancy) and the work, side by side.
    ImGui::SetCursorScreenPos(ImVec2(p.x, bottom + 16 * s));
    const float col_w = (avail_w - 20 * s) * 0.5f;
    const float wrap_x = ImGui::GetCursorPosX() + col_w;  // window-local, as PushTextWrapPos wants
    ImGui::BeginGroup();
    ImGui::PushFont(fonts().ui_bold);
    ImGui::TextUnformatted("The SM");
    ImGui::PopFont();
    if (!h.has_occupancy) {
        ImGui::PushTextWrapPos(wrap_x);
        text_dim("No resource usage (a saved trace has no ptxas report).");
        ImGui::PopTextWrapPos();
    } else {
        const auto& o = h.occupancy;
        const ImVec2 g = ImGui::GetCursorScreenPos();
        const float gh = 18 * s;
        ImDrawList* d = ImGui::GetWindowDrawList();
        d->AddRectFilled(g, ImVec2(g.x + col_w, g.y + gh), colors::track, 3 * s);
        d->AddRectFilled(g, ImVec2(g.x + col_w * float(o.occupancy), g.y + gh), colors::accent,
                         3 * s);
        char occ[96];
        std::snprintf(occ, sizeof occ, "%s occupancy: %d of %d warps",
                      viewmodel::percent(o.occupancy).c_str(), o.active_warps, o.max_warps);
        d->AddText(fonts().ui_bold, fonts().small->FontSize,
                   ImVec2(g.x + 6 * s, g.y + (gh - fonts().small->FontSize) * 0.5f),
                   o.occupancy > 0.3 ? colors::ink : colors::text, occ);
        ImGui::Dummy(ImVec2(col_w, gh + 2 * s));
        ImGui::PushTextWrapPos(wrap_x);
        text_dim("%s: %d threads/block, %d registers/thread, %s shared/block", h.arch.c_str(),
                 h.threads_per_block, h.registers_per_thread,
                 viewmodel::byte_count(std::uint64_t(h.shared_bytes_per_block)).c_str());
        text_dim("Blocks per SM each limit allows:");
        const int widest = std::max(
            {o.limit_by_warps, o.limit_by_blocks, o.limit_by_registers, o.limit_by_shared});
        limit_bar("warps", o.limit_by_warps, o.blocks_per_sm, widest, col_w);
        limit_bar("blocks", o.limit_by_blocks, o.blocks_per_sm, widest, col_w);
        limit_bar("registers", o.limit_by_registers, o.blocks_per_sm, widest, col_w);
        limit_bar("shared memory", o.limit_by_shared, o.blocks_per_sm, widest, col_w);
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(colors::fair),
                           "%d blocks per SM, limited by %s", o.blocks_per_sm,
                           analysis::to_string(o.limiter));
        ImGui::PopTextWrapPos();
    }
    ImGui::EndGroup();
    ImGui::SameLine(0, 0);
    ImGui::SetCursorScreenPos(ImVec2(p.x + col_w + 20 * s, bottom + 16 * s));
    ImGui::BeginGroup();
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + col_w);
    ImGui::PushFont(fonts().ui_bold);
    ImGui::TextUnformatted("The work");
    ImGui::PopFont();
    text_dim("%s warp instructions", viewmodel::compact_count(h.warp_instructions).c_str());
    text_dim("%s thread instructions", viewmodel::compact_count(h.thread_instructions).c_str());
    text_dim("%s of lanes active per instruction", viewmodel::percent(h.branch_efficiency).c_str());
    if (h.load_requests)
        text_dim("loads: %s sectors/request",
                 viewmodel::fixed(h.load_sectors_per_request, 2).c_str());
    if (h.store_requests)
        text_dim("stores: %s sectors/request",
                 viewmodel::fixed(h.store_sectors_per_request, 2).c_str());
    if (h.shared_requests)
        text_dim("shared: %s bank conflicts", viewmodel::compact_count(h.bank_conflicts).c_str());
    if (h.block_barriers)
        text_dim("%s barrier completions", viewmodel::compact_count(h.block_barriers).c_str());
    if (h.atomics) text_dim("%s atomic operations", viewmodel::compact_count(h.atomics).c_str());
    ImGui::PopTextWrapPos();
    ImGui::EndGroup();
}

}  // namespace cudalab::gui
