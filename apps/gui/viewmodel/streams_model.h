// The streams timeline of a whole program (a program lesson's run): what the runtime's timeline
// file (Trace Event JSON, engine/cudart/timeline.h) holds, as rows and items for the app to draw.
// One row per stream and engine (H2D copies, kernels, D2H copies, other copies, memsets, host
// functions, events, graph launches), one for the managed pages of each device and one for the
// API calls of each host thread; the DAG of each graph launch; and the page map of managed memory
// (where each page lives over time). Built once per check, with no GL, GLFW or ImGui, so a test
// can pin what the view shows.
//
// [SECTION] index
//   StreamItem, StreamRow      what is drawn
//   GraphDag                   one graph launch's nodes and edges, laid out in levels
//   PageMap                    managed pages: allocations, migrations, where a page lives at a time
//   StreamsTimeline            the whole, with the figures the lesson grades (copy/kernel overlap)
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace cudalab::viewmodel {

// What an item is; the order is the order of a stream's rows.
enum class StreamEngine {
    h2d,
    kernel,
    d2h,
    copy,
    memset,
    host_function,
    event,
    graph,
    alloc,
    pages,
    api
};
constexpr int kStreamEngineCount = 11;
const char* stream_engine_name(StreamEngine e);   // "H2D copies", "kernels", ...
const char* stream_engine_short(StreamEngine e);  // "H2D", "kernels", ... (row labels)

struct StreamItem {
    std::string name;      // as the runtime wrote it: "memcpy HtoD", "scale", "event record"
    std::string category;  // the file's "cat"
    StreamEngine engine = StreamEngine::api;
    int device = -1;          // -1: the host
    std::int64_t stream = 0;  // the file's tid: the stream id (a device), the thread (the host)
    double start_us = 0, end_us = 0;  // from the first event of the file
    std::uint64_t bytes = 0;          // copies, memsets, page moves (0: none said)
    // kernels: the runtime's launch number (1-based, CUDALAB_TRACE_LAUNCH); 0: unknown
    std::uint64_t launch = 0;
    std::string grid, block;  // kernels
    int graph = -1;           // graph launches: index into StreamsTimeline::graphs
    // Copies: whether the host memory was pinned (-1: not said, 0: pageable, 1: pinned), and a
    // peer copy staged through the host (two legs over PCIe) for want of peer access.
    int pinned = -1;
    bool staged = false;
    std::vector<std::pair<std::string, std::string>>
        args;  // every argument, as text, for the hover
    double duration_us() const { return end_us - start_us; }
    bool instant() const { return end_us <= start_us; }
    bool race() const { return category == "race"; }
    bool pageable() const { return pinned == 0; }
};

// The stream of a device's copy engine rows (all copies of one direction, from every stream), and
// of its managed pages row.
constexpr std::int64_t kCopyEngineStream = -2;
constexpr std::int64_t kPagesStream = 99999;

struct StreamRow {
    std::string label;  // short: "stream 13 · kernels", "host · main thread", "GPU 0 · pages"
    std::string name;   // the stream or thread as the runtime named it ("stream 13 (non-blocking)")
    int device = -1;
    std::int64_t stream = 0;
    StreamEngine engine = StreamEngine::api;
    std::vector<std::size_t> items;  // indices into StreamsTimeline::items, by start time
    // A copy engine's row: every copy of one direction on the device, whichever stream issued it
    // (so copies queueing for one engine show as a packed row), beside the rows per stream.
    bool copy_engine() const { return stream == kCopyEngineStream; }
};

struct GraphDag {
    std::size_t item = 0;                    // the graph launch it belongs to
    std::vector<std::string> nodes;          // "kernel scale", "memcpy", ...
    std::vector<std::pair<int, int>> edges;  // (from, to), indices into nodes
    // A layout: each node's level (the longest path from a root) and its place in that level.
    std::vector<int> level, slot;
    int levels = 0, widest = 0;
};

// Where the Graph tab draws each node of a DAG over a panel of `width` x `height` (pixels): the
// levels share the width, a level's nodes share the height (centred), and each node's label is
// broken into lines (at spaces, else anywhere) no wider than its box, the box as tall as they
// need, so no label is cut. When the panel is too small for that the layout grows beyond it (the
// view scrolls). `measure` gives a text's width.
struct GraphBox {
    float x = 0, y = 0, w = 0, h = 0;
    std::vector<std::string> lines;
};
struct GraphLayout {
    std::vector<GraphBox> boxes;  // one per node
    float width = 0, height = 0;  // what it covers
    float pad = 0;                // the text's inset in its box
};
GraphLayout lay_out_graph(const GraphDag& g, float width, float height, float line_height,
                          const std::function<float(const std::string&)>& measure);

struct PageMap {
    struct Allocation {
        std::string base;         // "0x7f..." as the runtime wrote it
        std::uint64_t pages = 0;  // 4 KB pages
        int device = 0;
    };
    struct Move {
        int allocation = 0;
        std::uint64_t first = 0, count = 0;
        bool to_device = false;
        double start_us = 0, end_us = 0;
        std::string cause;  // "kernel touch", "host touch", "prefetch"
        // Moved because a kernel or the host touched pages that were elsewhere (page faults),
        // not by a prefetch.
        bool on_demand() const { return cause != "prefetch"; }
    };
    std::vector<Allocation> allocations;
    std::vector<Move> moves;  // by time
    std::vector<double>
        faults;  // page faults a GPU's driver reported (times; none on the emulator)
    std::uint64_t to_device_pages = 0, to_host_pages = 0, prefetched_pages = 0;
    std::uint64_t demand_pages = 0;  // moved on demand, either way (what prefetching avoids)
    // What moved in each of `columns` equal slices of [t0, t1]: pages on demand, pages
    // prefetched, faults: the marks the Pages tab draws above its bands (demand and prefetch
    // apart, so a run that prefetches does not look like one that faults).
    struct Column {
        std::uint64_t demand = 0, prefetched = 0, faults = 0;
    };
    std::vector<Column> columns(double t0, double t1, int columns) const;
    // The Pages tab's heading: "502 pages moved on demand (faults) · 0 prefetched".
    std::string summary() const;
    // Where page `page` of allocation `a` lives after every move up to time `t` (pages start on
    // the host, as cudaMallocManaged leaves them in cudalab's runtime).
    bool on_device(int allocation, std::uint64_t page, double t) const;
    // How it got there: the Pages tab draws a page on the device green when it was prefetched,
    // red when a fault pulled it (what lesson 17's exercise does hundreds of times).
    enum class Home { host, prefetched, on_demand };
    Home home(int allocation, std::uint64_t page, double t) const;
    bool empty() const { return allocations.empty(); }
};

struct StreamsTimeline {
    std::vector<StreamItem> items;
    std::vector<StreamRow> rows;
    std::vector<GraphDag> graphs;
    PageMap pages;
    double start_us = 0, end_us = 0;  // the extent of the device items (else of everything)
    // Where the streams view opens: the whole run, or, when the device's own work (kernels and
    // copies between device memories) is a sliver of a run spent copying to and from the host
    // (lesson 20's ring all-reduce after its inputs are copied in), that work.
    double focus_start_us = 0, focus_end_us = 0;
    bool focused() const { return focus_start_us > start_us || focus_end_us < end_us; }
    std::uint64_t dropped = 0;  // events the runtime did not record (its limit)
    std::string run;            // the command line of the run ("./program in.bin out.bin")

    // The time during which items of engine `a` (on any device stream) run while an item of engine
    // `b` runs, in microseconds: e.g. (h2d, kernel) is how much copying in is hidden behind
    // kernels.
    double overlap_us(StreamEngine a, StreamEngine b) const;
    // The total time of engine `a`'s items (their union).
    double busy_us(StreamEngine a) const;
    // The rows of one device stream (any engine).
    std::size_t device_streams() const;
    // What a hover says about an item: name, stream, start, duration, bytes, and its arguments.
    std::string describe(std::size_t item) const;
    const StreamRow* row_of(int device, std::int64_t stream, StreamEngine engine) const;
    // The item of `row` under time `t`, an instant within `radius_us` of it: a race first (its
    // mark is drawn over the rest), then any instant, then the latest span. Where the hover goes.
    std::optional<std::size_t> item_at(const StreamRow& row, double t, double radius_us) const;
};

// Parses the runtime's timeline file. False (with `error`) when it is not a Trace Event JSON
// object; a file from the learner's process may hold anything, so every field is checked.
bool parse_streams_timeline(const std::string& json_text, StreamsTimeline* out, std::string* error);

// Writes the timeline as the runtime wrote it (Perfetto and chrome://tracing open it).
bool export_streams_timeline(const std::string& json_text, const std::string& path,
                             std::string* error);

// One tick of the streams view's time ruler.
struct AxisTick {
    double us = 0;      // where it stands
    std::string label;  // "1.5 ms"
};
// Round times for a ruler over [t0, t1] microseconds (the view pads the run on both sides): a step
// of 1, 2 or 5 times a power of ten giving at most 8 ticks, none before 0 (no "-0.0 ms"), the
// labels' unit and decimals following the step so that neighbours never read alike.
std::vector<AxisTick> time_axis_ticks(double t0, double t1);

}  // namespace cudalab::viewmodel
