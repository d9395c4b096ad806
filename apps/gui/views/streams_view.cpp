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

// A dim line that wraps at the panel's edge.
void text_wrapped_dim(const char* fmt, const char* a, const char* b) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colors::text_dim));
    ImGui::PushTextWrapPos(0);
    ImGui::Text(fmt, a, b);
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
}

// The whole run (`whole`), or the part the timeline says to open on (lesson 20's ring).
void fit(StreamsViewContext& c, bool whole = true) {
    const auto& t = *c.timeline;
    const double a = whole ? t.start_us : t.focus_start_us, b = whole ? t.end_us : t.focus_end_us;
    const double pad = (b - a) * 0.02;
    c.view_start = a - pad;
    c.view_end = b + pad;
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
    float last_end = -1e9f;
    std::vector<std::size_t> races;  // drawn last, over the rest
    for (std::size_t index : row.items) {
        const StreamItem& it = t.items[index];
        if (it.end_us < t0 || it.start_us > t1) continue;
        float a = p.x + float((it.start_us - t0) / span) * w;
        float b = p.x + float((it.end_us - t0) / span) * w;
        a = std::max(a, p.x);
        b = std::min(b, p.x + w);
        const ImU32 col = stream_engine_color(it.engine);
        if (it.instant()) {
            // An event: a small diamond; a race between streams: a larger red one, over the rest.
            if (it.race()) {
                races.push_back(index);
                continue;
            }
            const float cx = a, cy = p.y + h * 0.5f, r = h * 0.3f;
            dl->AddQuadFilled(ImVec2(cx, cy - r), ImVec2(cx + r, cy), ImVec2(cx, cy + r),
                              ImVec2(cx - r, cy), col);
            continue;
        }
        b = std::max(b, a + kMinItemWidth * s);
        if (b - a < 3 * s && b <= last_end + 0.5f) continue;  // many items in one pixel: drawn once
        last_end = b;
        const ImVec2 lo(a, p.y + 1 * s), hi(b, p.y + h - 1 * s);
        if (it.pageable()) {
            // Pageable host memory: a hatched outline, unlike a pinned copy's solid bar (the
            // driver stages it through a buffer of its own and the host waits for it).
            dl->AddRectFilled(lo, hi, with_alpha(col, 0.25f), 2 * s);
            dl->PushClipRect(lo, hi, true);
            for (float x = a - h; x < b; x += 6 * s)
                dl->AddLine(ImVec2(x, hi.y), ImVec2(x + (hi.y - lo.y), lo.y), col, 1.0f * s);
            dl->PopClipRect();
            dl->AddRect(lo, hi, col, 2 * s, 0, 1.0f * s);
        } else {
            dl->AddRectFilled(lo, hi, col, 2 * s);
            if (b - a > 3 * s) dl->AddRect(lo, hi, with_alpha(colors::background, 0.6f), 2 * s);
        }
        if (it.staged)  // a peer copy through the host: a band along its top
            dl->AddRectFilled(lo, ImVec2(b, lo.y + 4 * s), colors::fair);
        if (selected && *selected == index)
            dl->AddRect(ImVec2(a - 1, p.y), ImVec2(b + 1, p.y + h), colors::text, 2 * s, 0, 2 * s);
        if (b - a > 40 * s)
            draw_text_clipped(
                dl, fonts().small, ImVec2(a + 4 * s, p.y + (h - fonts().small->FontSize) * 0.5f),
                it.pageable() ? colors::text : colors::background, it.name, b - a - 8 * s);
    }
    for (std::size_t index : races) {
        const float cx = p.x + float((t.items[index].start_us - t0) / span) * w,
                    cy = p.y + h * 0.5f, r = h * 0.45f;
        dl->AddQuadFilled(ImVec2(cx, cy - r), ImVec2(cx + r, cy), ImVec2(cx, cy + r),
                          ImVec2(cx - r, cy), colors::race_mark);
        dl->AddQuad(ImVec2(cx, cy - r), ImVec2(cx + r, cy), ImVec2(cx, cy + r), ImVec2(cx - r, cy),
                    colors::white, 1.0f * s);
    }
    // What is under the mouse: the model's choice (a race before anything under it), an instant
    // within its mark's half width.
    if (!mouse_in_row) return std::nullopt;
    const double per_px = span / double(std::max(w, 1.0f));
    return t.item_at(row, t0 + double(mouse.x - p.x) * per_px, double(h * 0.45f) * per_px);
}

// The keys the run needs: pinned and pageable copies, staged peer copies, races.
void legend_keys(const StreamsTimeline& t) {
    bool pinned = false, pageable = false, staged = false, race = false;
    for (const auto& i : t.items) {
        pinned |= i.pinned == 1;
        pageable |= i.pageable();
        staged |= i.staged;
        race |= i.race();
    }
    const float s = fonts().scale;
    bool first = true;
    auto next = [&] {
        if (!first) ImGui::SameLine(0, spacing::group_gap * s);
        first = false;
    };
    if (pinned) {
        next();
        legend_item(stream_engine_color(StreamEngine::h2d), "pinned copy");
    }
    if (pageable) {
        next();
        legend_item(stream_engine_color(StreamEngine::h2d), "pageable copy (hatched)", true);
    }
    if (staged) {
        next();
        legend_item(colors::fair, "peer copy staged through the host");
    }
    if (race) {
        next();
        legend_item(colors::race_mark, "race between streams (hover it)");
    }
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
        fit(c, /*whole=*/false);
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
    if (t.focused()) {
        ImGui::SameLine();
        if (ImGui::Button("Device work")) fit(c, false);
        tooltip("Show the kernels and the copies between devices' memories only: here they are "
                "a sliver of a run spent mostly copying to and from the host");
    }
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
    if (t.focused() && c.view_end - c.view_start < (t.end_us - t.start_us) * 0.5)
        text_wrapped_dim("Showing the device's own work (%s of the %s run, after the copies in): "
                         "Fit shows the whole run",
                         micros(t.focus_end_us - t.focus_start_us).c_str(),
                         micros(t.end_us - t.start_us).c_str());
    legend_keys(t);

    // The rows, under a fixed axis; the card of the clicked item below them.
    ImDrawList* dl = ImGui::GetWindowDrawList();
    // The labels' column as wide as the longest label (several GPUs: "GPU 3 stream 4 · H2D"), up
    // to 40 % of the panel.
    float longest = kLabelWidth * s;
    for (const auto& r : t.rows)
        longest = std::max(
            longest,
            fonts().small->CalcTextSizeA(fonts().small->FontSize, 1e9f, 0, r.label.c_str()).x +
                12 * s);
    const float label_w = std::min(longest, ImGui::GetContentRegionAvail().x * 0.4f);
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
            row.device < 0 || row.copy_engine() ? colors::text_dim : colors::text, row.label,
            label_w - 8 * s);
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
    // Levels left to right (a node's level: its longest path from a root), a level's nodes stacked,
    // over the whole panel; labels broken into lines, never cut (viewmodel::lay_out_graph).
    ImFont* f = fonts().small;
    const float avail_w = ImGui::GetContentRegionAvail().x - 4 * s,
                avail_h = ImGui::GetContentRegionAvail().y - 12 * s;
    const auto layout = viewmodel::lay_out_graph(
        g, avail_w, avail_h, f->FontSize + 2 * s, [f](const std::string& text) {
            return f->CalcTextSizeA(f->FontSize, 1e9f, 0, text.c_str()).x;
        });
    ImGui::BeginChild("##graph_panel", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p(ImGui::GetCursorScreenPos().x + 2 * s, ImGui::GetCursorScreenPos().y + 4 * s);
    auto box = [&](int i) {
        const auto& b = layout.boxes[std::size_t(i)];
        return ImVec4(p.x + b.x, p.y + b.y, p.x + b.x + b.w, p.y + b.y + b.h);
    };
    for (const auto& [from, to] : g.edges) {
        const ImVec4 a = box(from), b = box(to);
        const ImVec2 p0(a.z, (a.y + a.w) * 0.5f), p1(b.x, (b.y + b.w) * 0.5f);
        const float bend = std::max(12 * s, (p1.x - p0.x) * 0.5f);
        dl->AddBezierCubic(p0, ImVec2(p0.x + bend, p0.y), ImVec2(p1.x - bend, p1.y), p1,
                           colors::text_faint, 1.5f * s);
        dl->AddTriangleFilled(p1, ImVec2(p1.x - 6 * s, p1.y - 4 * s),
                              ImVec2(p1.x - 6 * s, p1.y + 4 * s), colors::text_faint);
    }
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    for (int i = 0; i < int(g.nodes.size()); ++i) {
        const ImVec4 r = box(i);
        const auto& lines = layout.boxes[std::size_t(i)].lines;
        const std::string& name = g.nodes[std::size_t(i)];
        const StreamEngine kind = name.rfind("kernel", 0) == 0  ? StreamEngine::kernel
                                  : name == "memcpy"            ? StreamEngine::copy
                                  : name == "memset"            ? StreamEngine::memset
                                  : name == "host function"     ? StreamEngine::host_function
                                  : name.rfind("event", 0) == 0 ? StreamEngine::event
                                                                : StreamEngine::alloc;
        dl->AddRectFilled(ImVec2(r.x, r.y), ImVec2(r.z, r.w),
                          with_alpha(stream_engine_color(kind), 0.85f), 4 * s);
        // The lines centred in the box.
        const float line_h = f->FontSize + 2 * s;
        float y = (r.y + r.w) * 0.5f - float(lines.size()) * line_h * 0.5f + 1 * s;
        for (const auto& line : lines) {
            const float tw = f->CalcTextSizeA(f->FontSize, 1e9f, 0, line.c_str()).x;
            dl->AddText(f, f->FontSize,
                        ImVec2(std::max(r.x + layout.pad, (r.x + r.z - tw) * 0.5f), y), colors::ink,
                        line.c_str());
            y += line_h;
        }
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
    ImGui::Dummy(ImVec2(layout.width + 4 * s, layout.height + 8 * s));
    ImGui::EndChild();
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
    view_heading("Pages", pm.summary());
    // The verdict first, in words and colour: moves on demand are what prefetching removes.
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(
                                             pm.demand_pages ? colors::poor : colors::good));
    ImGui::TextWrapped(
        "%s",
        pm.demand_pages
            ? (std::to_string(pm.demand_pages) +
               " pages moved on demand: each first touch stopped on a page fault until its page "
               "arrived")
                  .c_str()
            : "No page moved on demand: every page was where it was needed (prefetched)");
    ImGui::PopStyleColor();
    legend_item(colors::accent, "on the device, prefetched");
    ImGui::SameLine(0, spacing::group_gap * s);
    legend_item(colors::poor, "on the device, moved on demand");
    ImGui::SameLine(0, spacing::group_gap * s);
    legend_item(colors::idle, "on the host");

    if (!pm.faults.empty()) {
        ImGui::SameLine(0, spacing::group_gap * s);
        legend_item(colors::fair, "page fault");
    }
    const StreamsTimeline& t = *c.timeline;
    if (c.fitted_for != &t) fit(c);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float label_w = std::min(kLabelWidth * s * 0.7f, ImGui::GetContentRegionAvail().x * 0.3f);
    const float w = ImGui::GetContentRegionAvail().x - label_w;
    const ImVec2 axis = ImGui::GetCursorScreenPos();
    draw_axis(dl, ImVec2(axis.x + label_w, axis.y), w, c.view_start, c.view_end);
    ImGui::Dummy(ImVec2(0, kAxisHeight * s));
    const int columns = std::max(1, int(w / (3 * s)));
    {
        // A strip of what moved when, over every allocation: demand moves above the line,
        // prefetches below it, each as tall as its share of the most pages moved in one column.
        const ImVec2 q = ImGui::GetCursorScreenPos();
        const float strip_h = 2 * kRowHeight * s, mid = q.y + strip_h * 0.5f;
        const auto marks = pm.columns(c.view_start, c.view_end, columns);
        std::uint64_t most = 1;
        for (const auto& m : marks) most = std::max({most, m.demand, m.prefetched});
        const float cw = w / float(columns);
        draw_text_clipped(dl, fonts().small, ImVec2(q.x + 4 * s, q.y), colors::poor, "on demand",
                          label_w - 8 * s);
        draw_text_clipped(dl, fonts().small, ImVec2(q.x + 4 * s, mid + 1 * s), colors::info,
                          "prefetched", label_w - 8 * s);
        dl->AddLine(ImVec2(q.x + label_w, mid), ImVec2(q.x + label_w + w, mid), colors::border);
        for (int col = 0; col < columns; ++col) {
            const auto& m = marks[std::size_t(col)];
            const float x = q.x + label_w + float(col) * cw;
            const auto height = [&](std::uint64_t n) {
                return n ? std::max(2 * s, float(double(n) / double(most)) * (strip_h * 0.5f - s))
                         : 0.0f;
            };
            if (m.demand)
                dl->AddRectFilled(ImVec2(x, mid - height(m.demand)),
                                  ImVec2(x + std::max(cw, 2 * s), mid), colors::poor);
            if (m.prefetched)
                dl->AddRectFilled(ImVec2(x, mid),
                                  ImVec2(x + std::max(cw, 2 * s), mid + height(m.prefetched)),
                                  colors::info);
            if (m.faults)
                dl->AddTriangleFilled(ImVec2(x, q.y), ImVec2(x + 4 * s, q.y),
                                      ImVec2(x + 2 * s, q.y + 5 * s), colors::fair);
        }
        ImGui::Dummy(ImVec2(0, strip_h + 6 * s));
    }
    const std::size_t shown = std::min<std::size_t>(pm.allocations.size(), 8);
    const float band_h = std::clamp(
        (ImGui::GetContentRegionAvail().y - 10 * s) / float(shown) - 8 * s, 24 * s, 160 * s);
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
        // Replays the moves column by column: a bin is as bright as the share of its pages on the
        // device, green where they were prefetched, red where they came on demand (0: on the host,
        // 1: on the device, prefetched, 2: on the device, moved on demand).
        std::vector<std::uint8_t> where(std::size_t(std::min<std::uint64_t>(pages, 1u << 22)), 0);
        std::size_t next = 0;
        const float cell_h = band_h / float(bins), cell_w = w / float(columns);
        for (int col = 0; col < columns; ++col) {
            const double t_end = c.view_start + span * double(col + 1) / double(columns);
            bool on_demand = false, prefetched = false;
            for (; next < pm.moves.size() && pm.moves[next].start_us <= t_end; ++next) {
                const auto& m = pm.moves[next];
                if (m.allocation != int(a)) continue;
                for (std::uint64_t q = m.first; q < m.first + m.count && q < where.size(); ++q)
                    where[q] = m.to_device ? (m.on_demand() ? 2 : 1) : 0;
                if (m.start_us >= t_end - span / double(columns))
                    (m.on_demand() ? on_demand : prefetched) = true;
            }
            const float x = top.x + label_w + float(col) * cell_w;
            for (int b = 0; b < bins; ++b) {
                const std::uint64_t lo = std::uint64_t(b) * where.size() / std::uint64_t(bins);
                const std::uint64_t hi =
                    std::max(lo + 1, std::uint64_t(b + 1) * where.size() / std::uint64_t(bins));
                std::uint64_t on = 0, demand = 0;
                for (std::uint64_t q = lo; q < hi && q < where.size(); ++q) {
                    on += where[q] != 0;
                    demand += where[q] == 2;
                }
                const float frac = float(on) / float(hi - lo);
                const ImU32 there =
                    mix(colors::accent, colors::poor, on ? float(demand) / float(on) : 0.0f);
                const float y = y0 + float(b) * cell_h;
                dl->AddRectFilled(ImVec2(x, y), ImVec2(x + cell_w, y + cell_h),
                                  mix(colors::idle, there, frac));
            }
            if (on_demand || prefetched)  // a move: red on demand, blue prefetched
                dl->AddLine(ImVec2(x + cell_w * 0.5f, y0 - 2 * s),
                            ImVec2(x + cell_w * 0.5f, y0 + band_h + 2 * s),
                            with_alpha(on_demand ? colors::poor : colors::info, 0.8f), 1.0f * s);
            if (mouse.x >= x && mouse.x < x + cell_w && mouse.y >= y0 && mouse.y < y0 + band_h &&
                ImGui::IsWindowHovered()) {
                const int b = std::clamp(int((mouse.y - y0) / cell_h), 0, bins - 1);
                const std::uint64_t lo = std::uint64_t(b) * where.size() / std::uint64_t(bins);
                const std::uint64_t hi =
                    std::max(lo + 1, std::uint64_t(b + 1) * where.size() / std::uint64_t(bins));
                std::uint64_t on = 0, demand = 0;
                for (std::uint64_t q = lo; q < hi && q < where.size(); ++q) {
                    on += where[q] != 0;
                    demand += where[q] == 2;
                }
                ImGui::SetTooltip(
                    "%s, pages %llu\xE2\x80\x93%llu at %s:\n%llu on the device (%llu moved "
                    "there on demand), %llu on the host",
                    alloc.base.c_str(), static_cast<unsigned long long>(lo),
                    static_cast<unsigned long long>(hi - 1), micros(t_end).c_str(),
                    static_cast<unsigned long long>(on), static_cast<unsigned long long>(demand),
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
