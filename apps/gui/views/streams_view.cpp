// The views of a whole program's run: the streams timeline (one row per stream and engine, time
// left to right, zoomed with the wheel, panned by dragging, every item described on hover), the
// DAG of a graph launch, and the page map of managed memory (pages down, time across, coloured by
// where each page lives). All from viewmodel::StreamsTimeline; nothing is measured here.
//
// [SECTION] index
//   names and tabs
//   the time axis            ruler, zoom and pan
//   the streams timeline     rows, items, hover, the selected item's card, export
//   the graph                levels left to right, edges as curves
//   the page map             one band per allocation
#include "views/streams_view.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "shell/theme.h"
#include "viewmodel/format.h"
#include "views/view_common.h"
#include "views/view_context.h"
#include "widgets/widgets.h"

namespace cudalab::gui {

using viewmodel::StreamEngine;
using viewmodel::StreamItem;
using viewmodel::StreamsTimeline;

// [SECTION] names and tabs

const char* program_view_name(ProgramView v) {
    switch (v) {
    case ProgramView::streams: return "streams";
    case ProgramView::graph: return "graph";
    case ProgramView::pages: return "pages";
    }
    return "streams";
}

const char* program_view_title(ProgramView v) {
    switch (v) {
    case ProgramView::streams: return "Streams";
    case ProgramView::graph: return "Graph";
    case ProgramView::pages: return "Pages";
    }
    return "Streams";
}

std::optional<ProgramView> program_view_from_name(const std::string& name) {
    for (int i = 0; i < kProgramViewCount; ++i)
        if (name == program_view_name(ProgramView(i))) return ProgramView(i);
    return std::nullopt;
}

namespace {

// Spacing roles of these views (multiplied by the UI scale).
constexpr float kLabelWidth = 150;  // the rows' names
constexpr float kRowHeight = 20;
constexpr float kRowGap = 3;
constexpr float kAxisHeight = 22;
constexpr float kMinItemWidth = 1.5f;

std::string micros(double us) {
    if (std::fabs(us) >= 1e6) return viewmodel::fixed(us / 1e6, 3) + " s";
    if (std::fabs(us) >= 1e3) return viewmodel::fixed(us / 1e3, us >= 1e4 ? 1 : 2) + " ms";
    return viewmodel::fixed(us, us >= 100 ? 0 : 1) + " us";
}

void fit(StreamsViewContext& c) {
    const auto& t = *c.timeline;
    const double pad = (t.end_us - t.start_us) * 0.02;
    c.view_start = t.start_us - pad;
    c.view_end = t.end_us + pad;
    c.fitted_for = c.timeline.get();
}

// [SECTION] the time axis

// A ruler of round times over [x0, x0 + w] for the visible window.
void draw_axis(ImDrawList* dl, ImVec2 p, float w, double t0, double t1) {
    const float s = fonts().scale;
    ImFont* f = fonts().small;
    const double span = std::max(t1 - t0, 1e-6);
    dl->AddLine(ImVec2(p.x, p.y + kAxisHeight * s - 1), ImVec2(p.x + w, p.y + kAxisHeight * s - 1),
                colors::border);
    for (const auto& tick : viewmodel::time_axis_ticks(t0, t1)) {
        const float x = p.x + float((tick.us - t0) / span) * w;
        dl->AddLine(ImVec2(x, p.y + kAxisHeight * s - 6 * s), ImVec2(x, p.y + kAxisHeight * s - 1),
                    colors::text_faint);
        dl->AddText(f, f->FontSize, ImVec2(x + 3 * s, p.y + 2 * s), colors::text_dim,
                    tick.label.c_str());
    }
}

// Wheel: zoom about the mouse; drag: pan; double-click: the whole run. `w`: the plot's width.
void zoom_and_pan(StreamsViewContext& c, float x0, float w) {
    ImGuiIO& io = ImGui::GetIO();
    const double span = c.view_end - c.view_start;
    if (ImGui::IsItemHovered() && io.MouseWheel != 0) {
        const double at = c.view_start + double((io.MousePos.x - x0) / w) * span;
        const double k = std::pow(0.8, double(io.MouseWheel));
        const double full = c.timeline->end_us - c.timeline->start_us;
        const double next = std::clamp(span * k, 0.05, full * 4 + 1);
        c.view_start = at - (at - c.view_start) * next / span;
        c.view_end = c.view_start + next;
    }
    if (ImGui::IsItemActive() && ImGui::IsMouseDragging(ImGuiMouseButton_Left, 2.0f)) {
        const double dt = double(io.MouseDelta.x / w) * span;
        c.view_start -= dt;
        c.view_end -= dt;
    }
    if (ImGui::IsItemHovered() && ImGui::IsMouseDoubleClicked(ImGuiMouseButton_Left)) fit(c);
}

// [SECTION] the streams timeline

// Draws one row's items; returns the item under the mouse, if any.
std::optional<std::size_t> draw_row(ImDrawList* dl, const StreamsTimeline& t,
                                    const viewmodel::StreamRow& row, ImVec2 p, float w, double t0,
                                    double t1, std::optional<std::size_t> selected) {
    const float s = fonts().scale;
    const float h = kRowHeight * s;
    const double span = t1 - t0;
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    const bool mouse_in_row =
        mouse.y >= p.y && mouse.y < p.y + h && mouse.x >= p.x && mouse.x < p.x + w;
    std::optional<std::size_t> hovered;
    float last_end = -1e9f;
    for (std::size_t index : row.items) {
        const StreamItem& it = t.items[index];
        if (it.end_us < t0 || it.start_us > t1) continue;
        float a = p.x + float((it.start_us - t0) / span) * w;
        float b = p.x + float((it.end_us - t0) / span) * w;
        a = std::max(a, p.x);
        b = std::min(b, p.x + w);
        const ImU32 col = stream_engine_color(it.engine);
        if (it.instant()) {
            // An event: a small diamond; a race between streams: a larger red one.
            const bool race = it.category == "race";
            const float cx = a, cy = p.y + h * 0.5f, r = h * (race ? 0.45f : 0.3f);
            dl->AddQuadFilled(ImVec2(cx, cy - r), ImVec2(cx + r, cy), ImVec2(cx, cy + r),
                              ImVec2(cx - r, cy), race ? colors::race_mark : col);
            if (mouse_in_row && std::fabs(mouse.x - cx) <= r) hovered = index;
            continue;
        }
        b = std::max(b, a + kMinItemWidth * s);
        if (b - a < 3 * s && b <= last_end + 0.5f) continue;  // many items in one pixel: drawn once
        last_end = b;
        dl->AddRectFilled(ImVec2(a, p.y + 1 * s), ImVec2(b, p.y + h - 1 * s), col, 2 * s);
        if (b - a > 3 * s)
            dl->AddRect(ImVec2(a, p.y + 1 * s), ImVec2(b, p.y + h - 1 * s),
                        with_alpha(colors::background, 0.6f), 2 * s);
        if (selected && *selected == index)
            dl->AddRect(ImVec2(a - 1, p.y), ImVec2(b + 1, p.y + h), colors::text, 2 * s, 0, 2 * s);
        if (b - a > 40 * s)
            draw_text_clipped(dl, fonts().small,
                              ImVec2(a + 4 * s, p.y + (h - fonts().small->FontSize) * 0.5f),
                              colors::background, it.name, b - a - 8 * s);
        if (mouse_in_row && mouse.x >= a - 1 && mouse.x <= b + 1) hovered = index;
    }
    return hovered;
}

void selected_card(StreamsViewContext& c) {
    if (!c.selected || *c.selected >= c.timeline->items.size()) return;
    const StreamItem& it = c.timeline->items[*c.selected];
    ImGui::Separator();
    ImGui::PushTextWrapPos(0);
    ImGui::TextUnformatted(c.timeline->describe(*c.selected).c_str());
    if (it.engine == StreamEngine::kernel) {
        if (it.launch == 0) {
            text_dim(
                "The runtime did not number this launch (an older timeline): it cannot be traced.");
        } else if (c.can_trace) {
            if (ImGui::Button("Open in the kernel views")) c.trace_launch_request = it.launch;
            tooltip("Runs the lesson again with the same inputs, tracing launch " +
                    std::to_string(it.launch) +
                    " in full, and opens it in the grid, warps and memory views");
        } else {
            text_dim("To step through this launch: cudalab run PROGRAM.cu --trace k.trace -- ARGS "
                     "with CUDALAB_TRACE_LAUNCH=%llu, "
                     "then cudalab gui --trace k.trace --source PROGRAM.cu",
                     static_cast<unsigned long long>(it.launch));
        }
    }
    ImGui::PopTextWrapPos();
}

void export_button(StreamsViewContext& c) {
    if (ImGui::Button("Export for Perfetto")) {
        std::string slug = c.lesson.empty() ? "program" : c.lesson;
        const std::string path =
            (std::filesystem::current_path() / ("cudalab-timeline-" + slug + ".json")).string();
        std::string error;
        c.message_error = !viewmodel::export_streams_timeline(c.json, path, &error);
        c.message = c.message_error
                        ? error
                        : "Wrote " + path +
                              ": open ui.perfetto.dev and drop the file on it (Open trace file).";
    }
    tooltip("Writes the run's timeline (Trace Event JSON, as the runtime wrote it) to "
            "cudalab-timeline-LESSON.json in the "
            "current folder; ui.perfetto.dev and chrome://tracing open it");
}

}  // namespace

void draw_streams_view(StreamsViewContext& c) {
    const float s = fonts().scale;
    if (!c.timeline) {
        draw_no_trace("No timeline: the program wrote none.");
        return;
    }
    const StreamsTimeline& t = *c.timeline;
    if (c.fitted_for != &t) {
        fit(c);
        c.selected.reset();
    }

    // Heading: the run, and how much of each copy direction kernels hid (what lesson 14 grades).
    const double h2d = t.busy_us(StreamEngine::h2d), d2h = t.busy_us(StreamEngine::d2h);
    std::string sub = t.run + "  \xC2\xB7  " + std::to_string(t.device_streams()) + " stream" +
                      (t.device_streams() == 1 ? "" : "s");
    view_heading("Streams", sub);
    if (c.show_copy_overlap && (h2d > 0 || d2h > 0))
        text_dim("copies hidden behind kernels: H2D %s of %s, D2H %s of %s",
                 viewmodel::percent(
                     h2d > 0 ? t.overlap_us(StreamEngine::h2d, StreamEngine::kernel) / h2d : 0)
                     .c_str(),
                 micros(h2d).c_str(),
                 viewmodel::percent(
                     d2h > 0 ? t.overlap_us(StreamEngine::d2h, StreamEngine::kernel) / d2h : 0)
                     .c_str(),
                 micros(d2h).c_str());
    if (ImGui::Button("Fit")) fit(c);
    tooltip("Show the whole run (or double-click the timeline)");
    ImGui::SameLine();
    export_button(c);
    ImGui::SameLine();
    ImGui::AlignTextToFramePadding();
    text_dim("wheel: zoom \xC2\xB7 drag: pan \xC2\xB7 click: details");
    if (!c.message.empty()) {
        ImGui::PushStyleColor(
            ImGuiCol_Text,
            ImGui::ColorConvertU32ToFloat4(c.message_error ? colors::poor : colors::text_dim));
        ImGui::TextWrapped("%s", c.message.c_str());
        ImGui::PopStyleColor();
    }
    if (t.dropped)
        text_dim("%llu events were not recorded (the runtime's limit)",
                 static_cast<unsigned long long>(t.dropped));

    // The rows, under a fixed axis; the card of the clicked item below them.
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float label_w = std::min(kLabelWidth * s, ImGui::GetContentRegionAvail().x * 0.4f);
    const float w = ImGui::GetContentRegionAvail().x - label_w;
    const ImVec2 axis = ImGui::GetCursorScreenPos();
    draw_axis(dl, ImVec2(axis.x + label_w, axis.y), w, c.view_start, c.view_end);
    ImGui::Dummy(ImVec2(0, kAxisHeight * s));
    const float card_h = c.selected ? 7 * ImGui::GetTextLineHeightWithSpacing() : 0;
    const float rows_h = std::max(60 * s, ImGui::GetContentRegionAvail().y - card_h);
    ImGui::BeginChild("##stream_rows", ImVec2(0, rows_h), false,
                      ImGuiWindowFlags_NoScrollWithMouse);
    ImDrawList* rdl = ImGui::GetWindowDrawList();
    const ImVec2 top = ImGui::GetCursorScreenPos();
    const float row_h = (kRowHeight + kRowGap) * s;
    const float total_h = float(t.rows.size()) * row_h;
    // One button over every row: the wheel zooms, a drag pans, a click picks.
    ImGui::SetCursorScreenPos(ImVec2(top.x + label_w, top.y));
    ImGui::InvisibleButton("##plot", ImVec2(std::max(1.0f, w), std::max(1.0f, total_h)));
    // A click, not the end of a drag (the drag delta is zero below its threshold).
    const ImVec2 dragged = ImGui::GetMouseDragDelta(ImGuiMouseButton_Left, 2.0f);
    const bool clicked = ImGui::IsItemDeactivated() && dragged.x == 0 && dragged.y == 0;
    zoom_and_pan(c, top.x + label_w, w);
    std::optional<std::size_t> hovered;
    std::string previous_group;
    for (std::size_t r = 0; r < t.rows.size(); ++r) {
        const auto& row = t.rows[r];
        const float y = top.y + float(r) * row_h;
        if (y > ImGui::GetWindowPos().y + ImGui::GetWindowHeight() ||
            y + row_h < ImGui::GetWindowPos().y)
            continue;
        if (r % 2 == 0)
            rdl->AddRectFilled(ImVec2(top.x, y), ImVec2(top.x + label_w + w, y + kRowHeight * s),
                               colors::panel_light);
        draw_text_clipped(
            rdl, fonts().small,
            ImVec2(top.x + 4 * s, y + (kRowHeight * s - fonts().small->FontSize) * 0.5f),
            row.device < 0 ? colors::text_dim : colors::text, row.label, label_w - 8 * s);
        rdl->PushClipRect(ImVec2(top.x + label_w, y), ImVec2(top.x + label_w + w, y + row_h), true);
        if (auto h = draw_row(rdl, t, row, ImVec2(top.x + label_w, y), w, c.view_start, c.view_end,
                              c.selected))
            hovered = h;
        rdl->PopClipRect();
    }
    if (hovered && ImGui::IsWindowHovered()) {
        ImGui::BeginTooltip();
        ImGui::TextUnformatted(t.describe(*hovered).c_str());
        if (t.items[*hovered].engine == StreamEngine::kernel)
            text_dim("click: details, and open it in the kernel views");
        ImGui::EndTooltip();
    }
    if (clicked) c.selected = hovered;
    ImGui::SetCursorScreenPos(ImVec2(top.x, top.y + total_h));
    ImGui::Dummy(ImVec2(0, 0));
    ImGui::EndChild();
    selected_card(c);
}

// [SECTION] the graph

void draw_graph_view(StreamsViewContext& c) {
    const float s = fonts().scale;
    if (!c.timeline || c.timeline->graphs.empty()) {
        view_heading("Graph", "");
        draw_no_trace("This run launched no CUDA graph (cudaGraphLaunch). A program that captures "
                      "its work once "
                      "(cudaStreamBeginCapture ... cudaGraphInstantiate) and launches it draws its "
                      "DAG here.");
        return;
    }
    const auto& graphs = c.timeline->graphs;
    c.graph = std::clamp(c.graph, 0, int(graphs.size()) - 1);
    const auto& g = graphs[std::size_t(c.graph)];
    const StreamItem& launch = c.timeline->items[g.item];
    view_heading("Graph", std::to_string(g.nodes.size()) + " nodes, " +
                              std::to_string(g.edges.size()) + " edges \xC2\xB7 " +
                              std::to_string(graphs.size()) + " graph launch" +
                              (graphs.size() == 1 ? "" : "es"));
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.6f);
    const std::string current = "launch " + std::to_string(c.graph + 1) + " at " +
                                micros(launch.start_us) + ", " + micros(launch.duration_us());
    if (ImGui::BeginCombo("##graph_launch", current.c_str())) {
        for (int i = 0; i < int(graphs.size()) && i < 1000; ++i) {
            const StreamItem& it = c.timeline->items[graphs[std::size_t(i)].item];
            const std::string label =
                "launch " + std::to_string(i + 1) + " at " + micros(it.start_us) + " (" +
                std::to_string(graphs[std::size_t(i)].nodes.size()) + " nodes)";
            if (ImGui::Selectable(label.c_str(), i == c.graph)) c.graph = i;
        }
        ImGui::EndCombo();
    }
    if (g.nodes.empty()) {
        draw_no_trace(
            "The runtime did not record this graph's nodes (more than 512, or an older timeline).");
        return;
    }
    // Levels left to right (a node's level: its longest path from a root), a level's nodes stacked.
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p(ImGui::GetCursorScreenPos().x, ImGui::GetCursorScreenPos().y + 8 * s);
    const float avail_w = ImGui::GetContentRegionAvail().x,
                avail_h = ImGui::GetContentRegionAvail().y - 16 * s;
    const float col_w = std::clamp(avail_w / float(std::max(1, g.levels)), 40 * s, 180 * s);
    const float node_h = std::clamp(avail_h / float(std::max(1, g.widest)) - 8 * s, 14 * s, 30 * s);
    const float node_w = col_w - 24 * s;
    struct Box {
        float x, y, z, w;  // left, top, right, bottom
    };
    auto box = [&](int i) {
        const float x = p.x + float(g.level[std::size_t(i)]) * col_w;
        const float y = p.y + float(g.slot[std::size_t(i)]) * (node_h + 8 * s);
        return Box{x, y, x + node_w, y + node_h};
    };
    for (const auto& [from, to] : g.edges) {
        const Box a = box(from), b = box(to);
        const ImVec2 p0(a.z, (a.y + a.w) * 0.5f), p1(b.x, (b.y + b.w) * 0.5f);
        dl->AddBezierCubic(p0, ImVec2(p0.x + 12 * s, p0.y), ImVec2(p1.x - 12 * s, p1.y), p1,
                           colors::text_faint, 1.5f * s);
        dl->AddTriangleFilled(p1, ImVec2(p1.x - 5 * s, p1.y - 3 * s),
                              ImVec2(p1.x - 5 * s, p1.y + 3 * s), colors::text_faint);
    }
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    for (int i = 0; i < int(g.nodes.size()); ++i) {
        const Box r = box(i);
        const std::string& name = g.nodes[std::size_t(i)];
        const StreamEngine kind = name.rfind("kernel", 0) == 0  ? StreamEngine::kernel
                                  : name == "memcpy"            ? StreamEngine::copy
                                  : name == "memset"            ? StreamEngine::memset
                                  : name == "host function"     ? StreamEngine::host_function
                                  : name.rfind("event", 0) == 0 ? StreamEngine::event
                                                                : StreamEngine::alloc;
        dl->AddRectFilled(ImVec2(r.x, r.y), ImVec2(r.z, r.w),
                          with_alpha(stream_engine_color(kind), 0.85f), 4 * s);
        draw_text_clipped(dl, fonts().small,
                          ImVec2(r.x + 5 * s, (r.y + r.w - fonts().small->FontSize) * 0.5f),
                          colors::background, name, node_w - 10 * s);
        if (mouse.x >= r.x && mouse.x < r.z && mouse.y >= r.y && mouse.y < r.w &&
            ImGui::IsWindowHovered()) {
            int in = 0, out = 0;
            for (const auto& [from, to] : g.edges) {
                in += to == i;
                out += from == i;
            }
            ImGui::SetTooltip(
                "node %d: %s\nlevel %d \xC2\xB7 %d dependenc%s \xC2\xB7 %d dependent%s", i,
                name.c_str(), g.level[std::size_t(i)], in, in == 1 ? "y" : "ies", out,
                out == 1 ? "" : "s");
        }
    }
    ImGui::Dummy(ImVec2(float(g.levels) * col_w, float(g.widest) * (node_h + 8 * s) + 16 * s));
}

// [SECTION] the page map

void draw_pages_view(StreamsViewContext& c) {
    const float s = fonts().scale;
    if (!c.timeline || c.timeline->pages.empty()) {
        view_heading("Pages", "");
        draw_no_trace("No managed page moved in this run. A program that uses cudaMallocManaged "
                      "draws here where each "
                      "4 KB page lives over time: on the host, on the device, and each migration "
                      "between them.");
        return;
    }
    const auto& pm = c.timeline->pages;
    view_heading("Pages", std::to_string(pm.to_device_pages) + " pages to the device, " +
                              std::to_string(pm.to_host_pages) + " to the host (" +
                              std::to_string(pm.prefetched_pages) + " prefetched)");
    legend_item(colors::accent, "on the device");
    ImGui::SameLine(0, spacing::group_gap * s);
    legend_item(colors::idle, "on the host");
    ImGui::SameLine(0, spacing::group_gap * s);
    legend_item(stream_engine_color(StreamEngine::pages), "a migration");
    const StreamsTimeline& t = *c.timeline;
    if (c.fitted_for != &t) fit(c);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float label_w = std::min(kLabelWidth * s * 0.7f, ImGui::GetContentRegionAvail().x * 0.3f);
    const float w = ImGui::GetContentRegionAvail().x - label_w;
    const ImVec2 axis = ImGui::GetCursorScreenPos();
    draw_axis(dl, ImVec2(axis.x + label_w, axis.y), w, c.view_start, c.view_end);
    ImGui::Dummy(ImVec2(0, kAxisHeight * s));
    const std::size_t shown = std::min<std::size_t>(pm.allocations.size(), 8);
    const float band_h = std::clamp(
        (ImGui::GetContentRegionAvail().y - 10 * s) / float(shown) - 8 * s, 24 * s, 160 * s);
    const int columns = std::max(1, int(w / (3 * s)));
    const double span = c.view_end - c.view_start;
    const ImVec2 top = ImGui::GetCursorScreenPos();
    ImGui::SetCursorScreenPos(ImVec2(top.x + label_w, top.y));
    ImGui::InvisibleButton("##pages_plot",
                           ImVec2(std::max(1.0f, w), float(shown) * (band_h + 8 * s)));
    zoom_and_pan(c, top.x + label_w, w);
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    for (std::size_t a = 0; a < shown; ++a) {
        const auto& alloc = pm.allocations[a];
        const float y0 = top.y + float(a) * (band_h + 8 * s);
        const std::uint64_t pages = std::max<std::uint64_t>(alloc.pages, 1);
        const int bins =
            int(std::min<std::uint64_t>(pages, std::uint64_t(std::max(1.0f, band_h / (3 * s)))));
        char label[96];
        std::snprintf(label, sizeof label, "%s\n%llu pages", alloc.base.c_str(),
                      static_cast<unsigned long long>(alloc.pages));
        dl->AddText(fonts().small, fonts().small->FontSize, ImVec2(top.x + 4 * s, y0),
                    colors::text_dim, label);
        // Replays the moves column by column: a bin is as green as the share of its pages on the
        // device.
        std::vector<std::uint8_t> where(std::size_t(std::min<std::uint64_t>(pages, 1u << 22)), 0);
        std::size_t next = 0;
        const float cell_h = band_h / float(bins), cell_w = w / float(columns);
        for (int col = 0; col < columns; ++col) {
            const double t_end = c.view_start + span * double(col + 1) / double(columns);
            bool moved = false;
            for (; next < pm.moves.size() && pm.moves[next].start_us <= t_end; ++next) {
                const auto& m = pm.moves[next];
                if (m.allocation != int(a)) continue;
                for (std::uint64_t q = m.first; q < m.first + m.count && q < where.size(); ++q)
                    where[q] = m.to_device;
                moved |= m.start_us >= t_end - span / double(columns);
            }
            const float x = top.x + label_w + float(col) * cell_w;
            for (int b = 0; b < bins; ++b) {
                const std::uint64_t lo = std::uint64_t(b) * where.size() / std::uint64_t(bins);
                const std::uint64_t hi =
                    std::max(lo + 1, std::uint64_t(b + 1) * where.size() / std::uint64_t(bins));
                std::uint64_t on = 0;
                for (std::uint64_t q = lo; q < hi && q < where.size(); ++q) on += where[q];
                const float frac = float(on) / float(hi - lo);
                const float y = y0 + float(b) * cell_h;
                dl->AddRectFilled(ImVec2(x, y), ImVec2(x + cell_w, y + cell_h),
                                  mix(colors::idle, colors::accent, frac));
            }
            if (moved)
                dl->AddLine(ImVec2(x + cell_w * 0.5f, y0 - 2 * s),
                            ImVec2(x + cell_w * 0.5f, y0 + band_h + 2 * s),
                            with_alpha(stream_engine_color(StreamEngine::pages), 0.7f), 1.0f * s);
            if (mouse.x >= x && mouse.x < x + cell_w && mouse.y >= y0 && mouse.y < y0 + band_h &&
                ImGui::IsWindowHovered()) {
                const int b = std::clamp(int((mouse.y - y0) / cell_h), 0, bins - 1);
                const std::uint64_t lo = std::uint64_t(b) * where.size() / std::uint64_t(bins);
                const std::uint64_t hi =
                    std::max(lo + 1, std::uint64_t(b + 1) * where.size() / std::uint64_t(bins));
                std::uint64_t on = 0;
                for (std::uint64_t q = lo; q < hi && q < where.size(); ++q) on += where[q];
                ImGui::SetTooltip(
                    "%s, pages %llu\xE2\x80\x93%llu at %s:\n%llu on the device, %llu on the host",
                    alloc.base.c_str(), static_cast<unsigned long long>(lo),
                    static_cast<unsigned long long>(hi - 1), micros(t_end).c_str(),
                    static_cast<unsigned long long>(on),
                    static_cast<unsigned long long>(hi - lo - on));
            }
        }
        dl->AddRect(ImVec2(top.x + label_w, y0), ImVec2(top.x + label_w + w, y0 + band_h),
                    colors::border);
    }
    if (pm.allocations.size() > shown)
        text_dim("and %zu more allocations", pm.allocations.size() - shown);
}

}  // namespace cudalab::gui
