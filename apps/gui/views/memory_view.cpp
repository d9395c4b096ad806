// The memory view: each global buffer the trace touched as cells of its element size, one row
// per 128-byte line split into four 32-byte sectors. The current warp instruction's lanes light
// the cells they access (with their lane numbers); the sectors and lines the request touches are
// outlined; what the traced blocks touched before is shaded by how often. Above, the request in
// numbers: bytes asked for, sectors moved, sectors per request.
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "shell/theme.h"
#include "viewmodel/format.h"
#include "views/view_common.h"
#include "widgets/widgets.h"

namespace cudalab::gui {

namespace {

void access_summary(ViewContext& c) {
    const float s = fonts().scale;
    const auto& a = c.access;
    if (!c.event) return;
    if (!a.valid || a.space != MemSpace::global) {
        text_dim("This step does not touch global memory.");
        ImGui::SameLine();
        if (ImGui::SmallButton("Next global access \xE2\x86\x92")) {
            const Trace& t = c.views->trace();
            if (!seek_next(c, [&](const WarpEvent& e) { return e.mem >= 0 && t.accesses[std::size_t(e.mem)].space == MemSpace::global; }))
                c.playback.seek(std::int64_t(c.block()->steps()) - 1);
        }
        return;
    }
    const int lanes = __builtin_popcount(a.mask);
    const std::uint32_t ideal = std::max<std::uint32_t>(1, (a.cost.requested_bytes + 31) / 32);
    const double efficiency = a.cost.sectors ? double(a.cost.requested_bytes) / (32.0 * a.cost.sectors) : 1.0;
    const ImU32 verdict = efficiency >= 0.85 ? colors::good : efficiency >= 0.45 ? colors::fair : colors::poor;
    ImGui::PushFont(fonts().ui_bold);
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(a.op == MemOp::load ? colors::load : a.op == MemOp::store ? colors::store : colors::atomic),
                       "%s", a.op == MemOp::load ? "LOAD" : a.op == MemOp::store ? "STORE" : "ATOMIC");
    ImGui::PopFont();
    ImGui::SameLine();
    ImGui::Text("%d lanes \xC3\x97 %u B = %u B requested", lanes, a.bytes_per_lane, a.cost.requested_bytes);
    ImGui::SameLine(0, 4 * s);
    ImGui::TextUnformatted("\xE2\x86\x92");
    ImGui::SameLine(0, 4 * s);
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(verdict), "%u sector%s (%u B moved) in %u line%s", a.cost.sectors,
                       a.cost.sectors == 1 ? "" : "s", a.cost.sectors * 32, a.cost.lines, a.cost.lines == 1 ? "" : "s");
    text_dim("%u sectors for this request (the fewest possible: %u); %s of the bytes moved are used.", a.cost.sectors, ideal,
             viewmodel::percent(efficiency).c_str());
}

}  // namespace

void draw_memory_view(ViewContext& c) {
    const float s = fonts().scale;
    const auto& mem = c.views->memory;
    view_heading("Memory", "global buffers, 128-byte lines of four 32-byte sectors");
    if (!c.block()) {
        draw_no_trace("No block was traced in full, so there are no accesses to show.");
        return;
    }
    current_step_card(c);
    access_summary(c);
    ImGui::Dummy(ImVec2(0, 2 * s));
    legend_item(colors::load, "load");
    ImGui::SameLine(0, 12 * s);
    legend_item(colors::store, "store");
    ImGui::SameLine(0, 12 * s);
    legend_item(colors::rgb(0xffffff), "sector touched", true);
    ImGui::SameLine(0, 12 * s);
    legend_item(heat_color(0.6f), "touched before");
    ImGui::SameLine(0, 12 * s);
    legend_item(colors::rgb(0x242935), "not yet / never");
    ImGui::SameLine(0, 16 * s);
    if (ImGui::GetContentRegionAvail().x < 90 * s) ImGui::NewLine();
    ImGui::Checkbox("follow", &c.follow);
    tooltip("Scroll each buffer to the cells the current instruction touches");

    if (mem.regions.empty()) {
        draw_no_trace("The traced blocks did not touch global memory.");
        return;
    }
    const std::size_t now = c.block()->begin + std::size_t(std::max<std::int64_t>(0, c.step()));
    const float label_w = 64 * s;
    ImGui::BeginChild("##regions", ImVec2(0, 0), false, ImGuiWindowFlags_NoBackground);
    const float avail_w = ImGui::GetContentRegionAvail().x - 4 * s;
    for (std::size_t ri = 0; ri < mem.regions.size(); ++ri) {
        const auto& r = mem.regions[ri];
        const bool current = c.access.valid && c.access.region == int(ri);
        const std::uint32_t per_row = r.elements_per_row();
        const float group_gap = 4 * s;  // between sectors
        const std::uint32_t per_sector = std::max<std::uint32_t>(1, 32 / r.element_bytes);
        const std::uint32_t sectors_per_row = per_row / per_sector;
        const float cell = std::clamp(std::floor((avail_w - label_w - group_gap * float(sectors_per_row - 1)) / float(per_row)), 4 * s, 30 * s);
        const float row_h = std::max(cell, 8 * s);
        // Title line.
        ImGui::PushID(int(ri));
        ImGui::PushFont(fonts().mono_bold);
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(current ? (c.access.op == MemOp::load ? colors::load : colors::store) : colors::text), "%s", r.name.c_str());
        ImGui::PopFont();
        ImGui::SameLine();
        std::string lines;
        for (std::size_t i = 0; i < r.source_lines.size() && i < 4; ++i) lines += (i ? ", " : "") + std::to_string(r.source_lines[i]);
        text_dim("%s%s%s \xC2\xB7 %s elements of %u B traced \xC2\xB7 line%s %s",
                 r.loaded ? "read" : "", r.loaded && r.stored ? " + " : "", r.stored ? "written" : (r.atomic ? "atomics" : ""),
                 viewmodel::compact_count((r.end - r.first_address) / r.element_bytes).c_str(), r.element_bytes,
                 r.source_lines.size() == 1 ? "" : "s", lines.c_str());
        const std::uint64_t rows = r.rows();
        const float max_rows = current ? 8.0f : 4.0f;
        const float box_h = std::min(float(rows), max_rows) * row_h + 6 * s;
        ImGui::BeginChild("##cells", ImVec2(0, box_h), false, ImGuiWindowFlags_NoBackground);
        ImDrawList* dl = ImGui::GetWindowDrawList();
        const ImVec2 origin = ImGui::GetCursorScreenPos();
        const ImVec4 clip = clip_rect(dl);
        const std::uint64_t first_row = std::uint64_t(std::max(0.0f, (clip.y - origin.y) / row_h));
        const std::uint64_t last_row = std::min<std::uint64_t>(rows, std::uint64_t(std::max(0.0f, (clip.w - origin.y) / row_h)) + 1);
        auto cell_x = [&](std::uint32_t i) { return origin.x + label_w + float(i) * cell + float(i / per_sector) * group_gap; };
        // Lanes of the current access, by element.
        std::vector<std::pair<std::uint64_t, int>> lit;  // element index, lane
        if (current)
            for (int l = 0; l < 32; ++l)
                if (c.access.mask >> l & 1) lit.emplace_back((c.access.address[std::size_t(l)] - r.begin) / r.element_bytes, l);
        ImFont* lane_font = fonts().mono_small;
        const bool lane_numbers = cell >= lane_font->CalcTextSizeA(lane_font->FontSize, 1e9f, 0, "00").x + 2 * s;
        for (std::uint64_t row = first_row; row < last_row; ++row) {
            const float y = origin.y + float(row) * row_h;
            char label[32];
            const std::int64_t index = r.index_of(r.begin + row * 128);
            std::snprintf(label, sizeof label, "[%lld]", static_cast<long long>(index));
            dl->AddText(fonts().mono_small, fonts().mono_small->FontSize, ImVec2(origin.x, y + (cell - fonts().mono_small->FontSize) * 0.5f),
                        colors::text_faint, label);
            for (std::uint32_t i = 0; i < per_row; ++i) {
                const std::uint64_t e = row * per_row + i;
                const std::uint64_t address = r.begin + e * r.element_bytes;
                ImU32 col = colors::rgb(0x242935);
                if (address < r.first_address) col = colors::rgb(0x1c1f26);
                else if (!r.touches.empty() && r.touches[e] && r.first_event[e] <= now)
                    col = heat_color(float(r.touches[e]) / float(std::max<std::uint32_t>(1, r.max_touches)));
                const ImVec2 a(cell_x(i), y), z(a.x + cell - 1, y + cell - 1);
                dl->AddRectFilled(a, z, col);  // square: a rounded cell costs ~10x the vertices
            }
        }
        // The current request: lit cells, then sector outlines.
        if (current) {
            for (auto [e, lane] : lit) {
                const std::uint64_t row = e / per_row;
                if (row < first_row || row >= last_row) continue;
                const std::uint32_t i = std::uint32_t(e % per_row);
                const ImVec2 a(cell_x(i), origin.y + float(row) * row_h), z(a.x + cell - 1, a.y + cell - 1);
                dl->AddRectFilled(a, z, c.access.op == MemOp::load ? colors::load : c.access.op == MemOp::store ? colors::store : colors::atomic, 2 * s);
                if (lane_numbers) {
                    char n[4];
                    std::snprintf(n, sizeof n, "%d", lane);
                    const float tw = lane_font->CalcTextSizeA(lane_font->FontSize, 1e9f, 0, n).x;
                    dl->AddText(lane_font, lane_font->FontSize, ImVec2(a.x + (cell - 1 - tw) * 0.5f, a.y + (cell - 1 - lane_font->FontSize) * 0.5f),
                                colors::rgb(0x0d0f12), n);
                }
            }
            for (std::uint64_t sector : c.access.sectors) {
                if (sector < r.begin || sector >= r.end) continue;
                const std::uint64_t e = (sector - r.begin) / r.element_bytes;
                const std::uint64_t row = e / per_row;
                if (row < first_row || row >= last_row) continue;
                const std::uint32_t i = std::uint32_t(e % per_row);
                const std::uint32_t n = std::max<std::uint32_t>(1, 32 / r.element_bytes);
                const float y = origin.y + float(row) * row_h;
                dl->AddRect(ImVec2(cell_x(i) - 2 * s, y - 2 * s), ImVec2(cell_x(i + n - 1) + cell + 1 * s, y + cell + 1 * s),
                            colors::rgb(0xffffff, 230), 3 * s, 0, 1.5f * s);
            }
        }
        ImGui::Dummy(ImVec2(avail_w, float(rows) * row_h));
        // Follow the access: scroll its first row into view.
        if (current && c.follow && c.step_changed && !lit.empty()) {
            std::uint64_t lo = ~0ull, hi = 0;
            for (auto [e, lane] : lit) { lo = std::min(lo, e / per_row); hi = std::max(hi, e / per_row); }
            const float top = float(lo) * row_h, bottom = float(hi + 1) * row_h;
            if (top < ImGui::GetScrollY() || bottom > ImGui::GetScrollY() + ImGui::GetWindowHeight())
                ImGui::SetScrollY(std::max(0.0f, top - row_h));
        }
        if (ImGui::IsWindowHovered()) {
            const ImVec2 m = ImGui::GetIO().MousePos;
            const std::int64_t row = std::int64_t(std::floor((m.y - origin.y) / row_h));
            for (std::uint32_t i = 0; i < per_row && row >= 0 && std::uint64_t(row) < rows; ++i) {
                if (m.x < cell_x(i) || m.x >= cell_x(i) + cell) continue;
                const std::uint64_t e = std::uint64_t(row) * per_row + i;
                const std::uint64_t address = r.begin + e * r.element_bytes;
                ImGui::BeginTooltip();
                ImGui::PushFont(fonts().mono);
                ImGui::Text("%s[%lld]", r.name.c_str(), static_cast<long long>(r.index_of(address)));
                ImGui::PopFont();
                text_dim("address 0x%llx, sector %llu of its line", static_cast<unsigned long long>(address),
                         static_cast<unsigned long long>((address % 128) / 32));
                if (!r.touches.empty()) ImGui::Text("touched %u time%s by the traced blocks", r.touches[e], r.touches[e] == 1 ? "" : "s");
                for (auto [le, lane] : lit)
                    if (le == e) ImGui::Text("lane %d of the current warp", lane);
                ImGui::EndTooltip();
            }
        }
        ImGui::EndChild();
        ImGui::Dummy(ImVec2(0, 6 * s));
        ImGui::PopID();
    }
    ImGui::EndChild();
}

}  // namespace cudalab::gui
