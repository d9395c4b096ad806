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
            if (!seek_next(c, [&](const WarpEvent& e) {
                    return e.mem >= 0 && t.accesses[std::size_t(e.mem)].space == MemSpace::global;
                }))
                c.playback.seek(std::int64_t(c.block()->steps()) - 1);
        }
        return;
    }
    const int lanes = __builtin_popcount(a.mask);
    const std::uint32_t ideal = std::max<std::uint32_t>(1, (a.cost.requested_bytes + 31) / 32);
    const double efficiency =
        a.cost.sectors ? double(a.cost.requested_bytes) / (32.0 * a.cost.sectors) : 1.0;
    const ImU32 verdict = efficiency >= 0.85   ? colors::good
                          : efficiency >= 0.45 ? colors::fair
                                               : colors::poor;
    ImGui::PushFont(fonts().ui_bold);
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(a.op == MemOp::load    ? colors::load
                                                      : a.op == MemOp::store ? colors::store
                                                                             : colors::atomic),
                       "%s",
                       a.op == MemOp::load    ? "LOAD"
                       : a.op == MemOp::store ? "STORE"
                                              : "ATOMIC");
    ImGui::PopFont();
    ImGui::SameLine();
    ImGui::Text("%d lanes \xC3\x97 %u B = %u B requested", lanes, a.bytes_per_lane,
                a.cost.requested_bytes);
    ImGui::SameLine(0, spacing::tight_gap * s);
    ImGui::TextUnformatted("\xE2\x86\x92");
    ImGui::SameLine(0, spacing::tight_gap * s);
    ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(verdict),
                       "%u sector%s (%u B moved) in %u line%s", a.cost.sectors,
                       a.cost.sectors == 1 ? "" : "s", a.cost.sectors * 32, a.cost.lines,
                       a.cost.lines == 1 ? "" : "s");
    if (efficiency > 1.0)  // lanes share addresses (a broadcast, atomics on one counter): more
                           // asked for than moved
        text_dim("%u sector%s for this request: lanes share addresses, so %u B asked for take %u B "
                 "of sectors.",
                 a.cost.sectors, a.cost.sectors == 1 ? "" : "s", a.cost.requested_bytes,
                 a.cost.sectors * 32);
    else
        text_dim("%u sector%s for this request (the fewest possible: %u); %s of the bytes moved "
                 "are used.",
                 a.cost.sectors, a.cost.sectors == 1 ? "" : "s", ideal,
                 viewmodel::percent(efficiency).c_str());
}

// Where a shaped buffer's cells lie: `g` x `g` elements per drawn cell (cells of at least 3
// pixels), the drawn rows on screen, and which elements the traced blocks had touched by `now`.
struct ShapedGrid {
    const viewmodel::MemoryRegion* r = nullptr;
    std::uint32_t cols = 0, rows = 0, g = 1, dcols = 0, drows = 0;
    std::uint32_t first_row = 0, last_row = 0;
    bool bins = false;
    float label_w = 0, cell = 0, gap = 0;
    ImVec2 origin{};
    float x0 = 0;
    std::uint64_t skip = 0, count = 0;  // elements before the buffer's start; elements in the shape
    std::size_t now = 0;
    std::uint32_t heat_of(std::uint64_t e) const {
        const std::uint64_t k = skip + e;
        if (r->touches.empty() || k >= r->touches.size() || r->first_event[k] > now) return 0;
        return r->touches[k];
    }
    ImVec2 cell_min(std::uint64_t e) const {
        return ImVec2(x0 + float(e % cols / g) * cell, origin.y + float(e / cols / g) * cell);
    }
};

// Row labels, the untouched cells as one rectangle, and each touched cell by its heat (bins: with
// the count where it fits).
void shaped_cells(ImDrawList* dl, const ShapedGrid& sg) {
    const float s = fonts().scale;
    const auto& r = *sg.r;
    ImFont* small = fonts().mono_small;
    const float cell = sg.cell, gap = sg.gap;
    ImFont* count_font = sg.bins && sg.g == 1 ? fonts().mono_small : nullptr;
    // Row labels, never closer than a line of text.
    const std::uint32_t label_every =
        std::max<std::uint32_t>(1, std::uint32_t(std::ceil((small->FontSize + 2 * s) / cell)));
    // Untouched cells are one rectangle: a heat map is mostly untouched, and each cell drawn on
    // its own costs four vertices a frame (a 150 x 130 matrix: 80 000).
    if (sg.last_row > sg.first_row)
        dl->AddRectFilled(ImVec2(sg.x0, sg.origin.y + float(sg.first_row) * cell),
                          ImVec2(sg.x0 + float(sg.dcols) * cell - gap,
                                 sg.origin.y + float(sg.last_row) * cell - gap),
                          colors::cell_empty);
    for (std::uint32_t dr = sg.first_row; dr < sg.last_row; ++dr) {
        const float y = sg.origin.y + float(dr) * cell;
        if (dr % label_every == 0) {
            char label[24];
            std::snprintf(label, sizeof label, sg.bins ? "%u" : "row %u",
                          dr * sg.g * (sg.bins ? sg.cols : 1));
            dl->AddText(small, small->FontSize, ImVec2(sg.origin.x, y), colors::text_faint, label);
        }
        for (std::uint32_t dc = 0; dc < sg.dcols; ++dc) {
            std::uint32_t heat = 0;
            bool any = false;
            for (std::uint32_t rr = dr * sg.g; rr < std::min(sg.rows, (dr + 1) * sg.g); ++rr)
                for (std::uint32_t cc = dc * sg.g; cc < std::min(sg.cols, (dc + 1) * sg.g); ++cc) {
                    const std::uint64_t e = std::uint64_t(rr) * sg.cols + cc;
                    if (e >= sg.count) continue;
                    any = true;
                    heat = std::max(heat, sg.heat_of(e));
                }
            if (!any || !heat) continue;
            const ImU32 col =
                heat_color(float(heat) / float(std::max<std::uint32_t>(1, r.max_touches)));
            const ImVec2 a(sg.x0 + float(dc) * cell, y);
            dl->AddRectFilled(a, ImVec2(a.x + cell - gap, a.y + cell - gap), col);
            if (count_font && heat) {  // bins: the count itself, where it fits
                char n[16];
                std::snprintf(n, sizeof n, "%u", heat);
                const float tw = count_font->CalcTextSizeA(count_font->FontSize, 1e9f, 0, n).x;
                if (tw <= cell - 3 * s)
                    dl->AddText(count_font, count_font->FontSize,
                                ImVec2(a.x + (cell - gap - tw) * 0.5f,
                                       a.y + (cell - gap - count_font->FontSize) * 0.5f),
                                heat * 2 > r.max_touches ? colors::ink : colors::text_dim, n);
            }
        }
    }
}

// The current request: outlines of the sectors it moves, then its lanes (numbered where they fit).
void shaped_request(ImDrawList* dl, const ViewContext& c, const ShapedGrid& sg,
                    const std::vector<std::pair<std::uint64_t, int>>& lit) {
    const float s = fonts().scale;
    const auto& r = *sg.r;
    const float cell = sg.cell, gap = sg.gap;
    ImFont* lane_font = fonts().mono_small;
    const bool lane_numbers =
        sg.g == 1 && cell >= lane_font->CalcTextSizeA(lane_font->FontSize, 1e9f, 0, "00").x + 2 * s;
    const ImU32 op_col = c.access.op == MemOp::load    ? colors::load
                         : c.access.op == MemOp::store ? colors::store
                                                       : colors::atomic;
    for (std::uint64_t sector : c.access.sectors) {
        if (sector + 32 <= r.first_address) continue;
        const std::uint64_t lo =
            sector < r.first_address ? 0 : (sector - r.first_address) / r.element_bytes;
        const std::uint64_t hi = std::min(
            sg.count, (sector + 32 - r.first_address + r.element_bytes - 1) / r.element_bytes);
        for (std::uint64_t e = lo; e < hi;) {
            const std::uint64_t row_end = std::min(hi, (e / sg.cols + 1) * sg.cols);
            const ImVec2 a = sg.cell_min(e), z = sg.cell_min(row_end - 1);
            dl->AddRect(ImVec2(a.x - 1.5f * s, a.y - 1.5f * s),
                        ImVec2(z.x + cell + 0.5f * s, z.y + cell + 0.5f * s),
                        colors::outline_strong, 2 * s, 0, 1.2f * s);
            e = row_end;
        }
    }
    for (auto [e, lane] : lit) {
        const ImVec2 a = sg.cell_min(e);
        dl->AddRectFilled(
            a, ImVec2(a.x + std::max(cell - gap, 2.0f), a.y + std::max(cell - gap, 2.0f)), op_col);
        if (lane_numbers) {
            char n[4];
            std::snprintf(n, sizeof n, "%d", lane);
            const float tw = lane_font->CalcTextSizeA(lane_font->FontSize, 1e9f, 0, n).x;
            dl->AddText(
                lane_font, lane_font->FontSize,
                ImVec2(a.x + (cell - 1 - tw) * 0.5f, a.y + (cell - 1 - lane_font->FontSize) * 0.5f),
                colors::ink, n);
        }
    }
}

// The hovered cell: its element (row and column), how often it was touched, the lanes on it now.
void shaped_cell_tooltip(const ShapedGrid& sg,
                         const std::vector<std::pair<std::uint64_t, int>>& lit) {
    const auto& r = *sg.r;
    const ImVec2 m = ImGui::GetIO().MousePos;
    const std::int64_t dr = std::int64_t(std::floor((m.y - sg.origin.y) / sg.cell)),
                       dc = std::int64_t(std::floor((m.x - sg.x0) / sg.cell));
    if (dr < 0 || dc < 0 || std::uint32_t(dr) >= sg.drows || std::uint32_t(dc) >= sg.dcols) return;
    const std::uint64_t e = std::uint64_t(dr) * sg.g * sg.cols + std::uint64_t(dc) * sg.g;
    if (e >= sg.count) return;
    ImGui::BeginTooltip();
    ImGui::PushFont(fonts().mono);
    if (sg.bins) ImGui::Text("%s[%llu]", r.name.c_str(), static_cast<unsigned long long>(e));
    else
        ImGui::Text("%s[%llu]  row %llu, col %llu", r.name.c_str(),
                    static_cast<unsigned long long>(e),
                    static_cast<unsigned long long>(e / sg.cols),
                    static_cast<unsigned long long>(e % sg.cols));
    ImGui::PopFont();
    if (sg.g > 1) text_dim("one cell: %u x %u elements", sg.g, sg.g);
    ImGui::Text("touched %u time%s by the traced blocks", sg.heat_of(e),
                sg.heat_of(e) == 1 ? "" : "s");
    for (auto [le, lane] : lit)
        if (le == e) ImGui::Text("lane %d of the current warp", lane);
    ImGui::EndTooltip();
}

// A buffer the lesson gave a shape: drawn as its rows and columns, one cell per element (several
// per cell when the picture would be too fine), heat by how often the traced blocks touched it,
// the current request's lanes lit where they fall. A warp walking down a column of a row-major
// matrix shows as a vertical stripe, one walking along a row as a short bar.
void shaped_region(ViewContext& c, const viewmodel::MemoryRegion& r, bool current, float avail_w,
                   std::size_t now) {
    const float s = fonts().scale;
    ShapedGrid sg;
    sg.r = &r;
    sg.now = now;
    sg.cols = r.shape_cols;
    sg.rows = r.shape_rows;
    sg.bins = r.shape_kind == lessons::ShapeKind::bins;
    ImFont* small = fonts().mono_small;
    sg.label_w =
        small->CalcTextSizeA(small->FontSize, 1e9f, 0, sg.bins ? "000" : "row 0000").x + 8 * s;
    const float width = std::max(40 * s, avail_w - sg.label_w);
    sg.g = std::max<std::uint32_t>(1, std::uint32_t(std::ceil(float(sg.cols) * 3 * s / width)));
    sg.dcols = (sg.cols + sg.g - 1) / sg.g;
    sg.drows = (sg.rows + sg.g - 1) / sg.g;
    sg.cell = std::clamp(std::floor(width / float(sg.dcols)), 1.0f, sg.bins ? 26 * s : 18 * s);
    sg.gap = sg.cell >= 6 * s ? 1.0f : 0.0f;
    const float box_h =
        std::min(float(sg.drows) * sg.cell, (current ? 340.0f : 220.0f) * s) + 4 * s;
    ImGui::BeginChild("##shape", ImVec2(0, box_h), false, ImGuiWindowFlags_NoBackground);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    sg.origin = ImGui::GetCursorScreenPos();
    sg.x0 = sg.origin.x + sg.label_w;
    const ImVec4 clip = clip_rect(dl);
    sg.first_row = std::uint32_t(std::max(0.0f, (clip.y - sg.origin.y) / sg.cell));
    sg.last_row = std::min<std::uint32_t>(
        sg.drows, std::uint32_t(std::max(0.0f, (clip.w - sg.origin.y) / sg.cell)) + 1);
    sg.skip = (r.first_address - r.begin) / r.element_bytes;
    sg.count = std::uint64_t(sg.rows) * sg.cols;
    shaped_cells(dl, sg);
    std::vector<std::pair<std::uint64_t, int>> lit;  // the current request's lanes: element, lane
    if (current)
        for (int l = 0; l < 32; ++l)
            if (c.access.mask >> l & 1) {
                const std::uint64_t a = c.access.address[std::size_t(l)];
                if (a >= r.first_address && (a - r.first_address) / r.element_bytes < sg.count)
                    lit.emplace_back((a - r.first_address) / r.element_bytes, l);
            }
    if (current) shaped_request(dl, c, sg, lit);
    ImGui::Dummy(ImVec2(sg.label_w + float(sg.dcols) * sg.cell, float(sg.drows) * sg.cell));
    if (current && c.follow && c.step_changed && !lit.empty()) {
        std::uint64_t lo = ~0ull, hi = 0;
        for (auto [e, lane] : lit) {
            lo = std::min(lo, e / sg.cols / sg.g);
            hi = std::max(hi, e / sg.cols / sg.g);
        }
        const float top = float(lo) * sg.cell, bottom = float(hi + 1) * sg.cell;
        if (top < ImGui::GetScrollY() || bottom > ImGui::GetScrollY() + ImGui::GetWindowHeight())
            ImGui::SetScrollY(std::max(0.0f, top - 2 * sg.cell));
    }
    if (ImGui::IsWindowHovered()) shaped_cell_tooltip(sg, lit);
    ImGui::EndChild();
}

// The legend of the cells' colours, and the "follow" switch.
void memory_legend(ViewContext& c) {
    const float s = fonts().scale;
    ImGui::Dummy(ImVec2(0, spacing::row_gap * s));
    legend_item(colors::load, "load");
    ImGui::SameLine(0, spacing::legend_gap * s);
    legend_item(colors::store, "store");
    ImGui::SameLine(0, spacing::legend_gap * s);
    legend_item(colors::white, "sector touched", true);
    ImGui::SameLine(0, spacing::legend_gap * s);
    legend_item(heat_color(0.6f), "touched before");
    ImGui::SameLine(0, spacing::legend_gap * s);
    legend_item(colors::cell_empty, "not yet / never");
    ImGui::SameLine(0, spacing::group_gap * s);
    if (ImGui::GetContentRegionAvail().x < 90 * s) ImGui::NewLine();
    ImGui::Checkbox("follow", &c.follow);
    tooltip("Scroll each buffer to the cells the current instruction touches");
}

// A buffer's title line: its name (in the access's colour when the current request is in it),
// its shape, how it was used, from which lines.
void region_title(const ViewContext& c, const viewmodel::MemoryRegion& r, bool current) {
    const float s = fonts().scale;
    ImGui::PushFont(fonts().mono_bold);
    ImGui::TextColored(
        ImGui::ColorConvertU32ToFloat4(
            current ? (c.access.op == MemOp::load ? colors::load : colors::store) : colors::text),
        "%s", r.name.c_str());
    ImGui::PopFont();
    ImGui::SameLine();
    std::string lines;
    for (std::size_t i = 0; i < r.source_lines.size() && i < 4; ++i)
        lines += (i ? ", " : "") + std::to_string(r.source_lines[i]);
    if (r.shaped()) {
        if (r.shape_kind == lessons::ShapeKind::bins)
            text_dim("%u bins, heat by hits \xC2\xB7", r.shape_rows * r.shape_cols);
        else if (r.shape_kind == lessons::ShapeKind::image)
            text_dim("image %u x %u (width x height) \xC2\xB7", r.shape_cols, r.shape_rows);
        else text_dim("matrix %u x %u (rows x cols) \xC2\xB7", r.shape_rows, r.shape_cols);
        ImGui::SameLine(0, spacing::tight_gap * s);
    }
    text_dim("%s%s%s \xC2\xB7 %s elements of %u B traced \xC2\xB7 line%s %s",
             r.loaded ? "read" : "", r.loaded && r.stored ? " + " : "",
             r.stored ? "written" : (r.atomic ? "atomics" : ""),
             viewmodel::compact_count((r.end - r.first_address) / r.element_bytes).c_str(),
             r.element_bytes, r.source_lines.size() == 1 ? "" : "s", lines.c_str());
}

// Where the cells of a buffer with no declared shape lie: rows of one 128-byte line, the line's
// four sectors apart by a gap; the rows on screen.
struct LinearGrid {
    ImVec2 origin{};
    float label_w = 0, cell = 0, row_h = 0, group_gap = 0;
    std::uint32_t per_row = 0, per_sector = 1;
    std::uint64_t rows = 0, first_row = 0, last_row = 0;
    float cell_x(std::uint32_t i) const {
        return origin.x + label_w + float(i) * cell + float(i / per_sector) * group_gap;
    }
    float row_y(std::uint64_t row) const { return origin.y + float(row) * row_h; }
};

// Row labels (the first element of the buffer on the row, never closer together than a line of
// text), and every cell shaded by how often the traced blocks touched it up to the playhead.
void linear_cells(ImDrawList* dl, const viewmodel::MemoryRegion& r, const LinearGrid& g,
                  std::size_t now) {
    const float s = fonts().scale;
    ImFont* small = fonts().mono_small;
    const std::uint64_t label_every =
        std::max<std::uint64_t>(1, std::uint64_t(std::ceil((small->FontSize + 1 * s) / g.row_h)));
    for (std::uint64_t row = g.first_row; row < g.last_row; ++row) {
        const float y = g.row_y(row);
        if (row % label_every == 0) {
            char label[32];
            const std::int64_t index = std::max<std::int64_t>(0, r.index_of(r.begin + row * 128));
            std::snprintf(label, sizeof label, "[%lld]", static_cast<long long>(index));
            dl->AddText(small, small->FontSize,
                        ImVec2(g.origin.x, y + std::max(0.0f, g.cell - small->FontSize) * 0.5f),
                        colors::text_faint, label);
        }
        for (std::uint32_t i = 0; i < g.per_row; ++i) {
            const std::uint64_t e = row * g.per_row + i;
            const std::uint64_t address = r.begin + e * r.element_bytes;
            ImU32 col = colors::cell_empty;
            if (address < r.first_address) col = colors::cell_outside;
            else if (!r.touches.empty() && r.touches[e] && r.first_event[e] <= now)
                col = heat_color(float(r.touches[e]) /
                                 float(std::max<std::uint32_t>(1, r.max_touches)));
            const ImVec2 a(g.cell_x(i), y), z(a.x + g.cell - 1, y + g.cell - 1);
            dl->AddRectFilled(a, z, col);  // square: a rounded cell costs ~10x the vertices
        }
    }
}

// The current request: its lanes' cells lit (with their lane numbers where they fit), then every
// sector it touches outlined.
void light_request(ImDrawList* dl, const ViewContext& c, const viewmodel::MemoryRegion& r,
                   const LinearGrid& g, const std::vector<std::pair<std::uint64_t, int>>& lit) {
    const float s = fonts().scale;
    ImFont* lane_font = fonts().mono_small;
    const bool lane_numbers =
        g.cell >= lane_font->CalcTextSizeA(lane_font->FontSize, 1e9f, 0, "00").x + 2 * s;
    for (auto [e, lane] : lit) {
        const std::uint64_t row = e / g.per_row;
        if (row < g.first_row || row >= g.last_row) continue;
        const std::uint32_t i = std::uint32_t(e % g.per_row);
        const ImVec2 a(g.cell_x(i), g.row_y(row)), z(a.x + g.cell - 1, a.y + g.cell - 1);
        dl->AddRectFilled(a, z,
                          c.access.op == MemOp::load    ? colors::load
                          : c.access.op == MemOp::store ? colors::store
                                                        : colors::atomic,
                          2 * s);
        if (lane_numbers) {
            char n[4];
            std::snprintf(n, sizeof n, "%d", lane);
            const float tw = lane_font->CalcTextSizeA(lane_font->FontSize, 1e9f, 0, n).x;
            dl->AddText(lane_font, lane_font->FontSize,
                        ImVec2(a.x + (g.cell - 1 - tw) * 0.5f,
                               a.y + (g.cell - 1 - lane_font->FontSize) * 0.5f),
                        colors::ink, n);
        }
    }
    for (std::uint64_t sector : c.access.sectors) {
        if (sector < r.begin || sector >= r.end) continue;
        const std::uint64_t e = (sector - r.begin) / r.element_bytes;
        const std::uint64_t row = e / g.per_row;
        if (row < g.first_row || row >= g.last_row) continue;
        const std::uint32_t i = std::uint32_t(e % g.per_row);
        const std::uint32_t n = std::max<std::uint32_t>(1, 32 / r.element_bytes);
        const float y = g.row_y(row);
        dl->AddRect(ImVec2(g.cell_x(i) - 2 * s, y - 2 * s),
                    ImVec2(g.cell_x(i + n - 1) + g.cell + 1 * s, y + g.cell + 1 * s),
                    colors::sector_outline, 3 * s, 0, 1.5f * s);
    }
}

// The hovered cell: its element, address, sector, how often it was touched, the lanes on it now.
void linear_cell_tooltip(const viewmodel::MemoryRegion& r, const LinearGrid& g,
                         const std::vector<std::pair<std::uint64_t, int>>& lit) {
    const ImVec2 m = ImGui::GetIO().MousePos;
    const std::int64_t row = std::int64_t(std::floor((m.y - g.origin.y) / g.row_h));
    for (std::uint32_t i = 0; i < g.per_row && row >= 0 && std::uint64_t(row) < g.rows; ++i) {
        if (m.x < g.cell_x(i) || m.x >= g.cell_x(i) + g.cell) continue;
        const std::uint64_t e = std::uint64_t(row) * g.per_row + i;
        const std::uint64_t address = r.begin + e * r.element_bytes;
        ImGui::BeginTooltip();
        ImGui::PushFont(fonts().mono);
        ImGui::Text("%s[%lld]", r.name.c_str(), static_cast<long long>(r.index_of(address)));
        ImGui::PopFont();
        text_dim("address 0x%llx, sector %llu of its line",
                 static_cast<unsigned long long>(address),
                 static_cast<unsigned long long>((address % 128) / 32));
        if (!r.touches.empty())
            ImGui::Text("touched %u time%s by the traced blocks", r.touches[e],
                        r.touches[e] == 1 ? "" : "s");
        for (auto [le, lane] : lit)
            if (le == e) ImGui::Text("lane %d of the current warp", lane);
        ImGui::EndTooltip();
    }
}

// A buffer with no declared shape: cells of its element size in rows of one 128-byte line, split
// into four 32-byte sectors; the current request's lanes lit and its sectors outlined.
void linear_region(ViewContext& c, const viewmodel::MemoryRegion& r, bool current, float avail_w,
                   std::size_t now) {
    const float s = fonts().scale;
    LinearGrid g;
    g.label_w = 64 * s;
    g.per_row = r.elements_per_row();
    g.group_gap = 4 * s;
    g.per_sector = std::max<std::uint32_t>(1, 32 / r.element_bytes);
    const std::uint32_t sectors_per_row = g.per_row / g.per_sector;
    g.cell =
        std::clamp(std::floor((avail_w - g.label_w - g.group_gap * float(sectors_per_row - 1)) /
                              float(g.per_row)),
                   4 * s, 30 * s);
    g.row_h = std::max(g.cell, 8 * s);
    g.rows = r.rows();
    const float max_rows = current ? 8.0f : 4.0f;
    ImGui::BeginChild("##cells", ImVec2(0, std::min(float(g.rows), max_rows) * g.row_h + 6 * s),
                      false, ImGuiWindowFlags_NoBackground);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    g.origin = ImGui::GetCursorScreenPos();
    const ImVec4 clip = clip_rect(dl);
    g.first_row = std::uint64_t(std::max(0.0f, (clip.y - g.origin.y) / g.row_h));
    g.last_row = std::min<std::uint64_t>(
        g.rows, std::uint64_t(std::max(0.0f, (clip.w - g.origin.y) / g.row_h)) + 1);
    std::vector<std::pair<std::uint64_t, int>>
        lit;  // the current access's lanes: element index, lane
    if (current)
        for (int l = 0; l < 32; ++l)
            if (c.access.mask >> l & 1)
                lit.emplace_back((c.access.address[std::size_t(l)] - r.begin) / r.element_bytes, l);
    linear_cells(dl, r, g, now);
    if (current) light_request(dl, c, r, g, lit);
    ImGui::Dummy(ImVec2(avail_w, float(g.rows) * g.row_h));
    // Follow the access: scroll its first row into view.
    if (current && c.follow && c.step_changed && !lit.empty()) {
        std::uint64_t lo = ~0ull, hi = 0;
        for (auto [e, lane] : lit) {
            lo = std::min(lo, e / g.per_row);
            hi = std::max(hi, e / g.per_row);
        }
        const float top = float(lo) * g.row_h, bottom = float(hi + 1) * g.row_h;
        if (top < ImGui::GetScrollY() || bottom > ImGui::GetScrollY() + ImGui::GetWindowHeight())
            ImGui::SetScrollY(std::max(0.0f, top - g.row_h));
    }
    if (ImGui::IsWindowHovered()) linear_cell_tooltip(r, g, lit);
    ImGui::EndChild();
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
    memory_legend(c);
    if (mem.regions.empty()) {
        draw_no_trace("The traced blocks did not touch global memory.");
        return;
    }
    const std::size_t now = c.block()->begin + std::size_t(std::max<std::int64_t>(0, c.step()));
    ImGui::BeginChild("##regions", ImVec2(0, 0), false, ImGuiWindowFlags_NoBackground);
    const float avail_w = ImGui::GetContentRegionAvail().x - 4 * s;
    for (std::size_t ri = 0; ri < mem.regions.size(); ++ri) {
        const auto& r = mem.regions[ri];
        const bool current = c.access.valid && c.access.region == int(ri);
        ImGui::PushID(int(ri));
        region_title(c, r, current);
        if (r.shaped()) shaped_region(c, r, current, avail_w, now);
        else linear_region(c, r, current, avail_w, now);
        ImGui::Dummy(ImVec2(0, spacing::section_gap * s));
        ImGui::PopID();
    }
    ImGui::EndChild();
}

}  // namespace cudalab::gui
