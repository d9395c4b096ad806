#include "viewmodel/streams_model.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <map>

#include <nlohmann/json.hpp>

#include "lessons/program_lesson.h"
#include "viewmodel/format.h"
#include "viewmodel/wrap.h"

namespace cudalab::viewmodel {

namespace {

// [SECTION] reading the file's fields (any field may have any type)

std::string text_of(const nlohmann::json& o, const char* key) {
    if (!o.is_object() || !o.contains(key)) return "";
    const auto& v = o[key];
    return v.is_string() ? v.get<std::string>() : "";
}

double number_of(const nlohmann::json& o, const char* key, double fallback = 0) {
    if (!o.is_object() || !o.contains(key)) return fallback;
    const auto& v = o[key];
    if (v.is_number()) {
        const double d = v.get<double>();
        return std::isfinite(d) ? d : fallback;
    }
    if (v.is_string()) {  // older runtimes quoted some numbers
        const std::string s = v.get<std::string>();
        char* end = nullptr;
        const double d = std::strtod(s.c_str(), &end);
        return end != s.c_str() && std::isfinite(d) ? d : fallback;
    }
    return fallback;
}

std::string arg_text(const nlohmann::json& v) {
    if (v.is_string()) return v.get<std::string>();
    std::string s = v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    if (s.size() > 200) s = s.substr(0, 197) + "...";
    return s;
}

StreamEngine engine_of(const std::string& category, const std::string& name, bool host) {
    if (host) return StreamEngine::api;
    if (category == "kernel") return StreamEngine::kernel;
    if (category == "memcpy") {
        if (name.find("HtoD") != std::string::npos || name == "prefetch to device")
            return StreamEngine::h2d;
        if (name.find("DtoH") != std::string::npos || name == "prefetch to host")
            return StreamEngine::d2h;
        return StreamEngine::copy;
    }
    if (category == "memset") return StreamEngine::memset;
    if (category == "host") return StreamEngine::host_function;
    if (category == "event") return StreamEngine::event;
    if (category == "graph") return StreamEngine::graph;
    if (category == "page") return StreamEngine::pages;
    // A page fault (CUPTI's unified memory counters, on a GPU) is a mark on its row, not a move
    // of pages: the page map reads only moves.
    if (category == "page fault") return StreamEngine::event;
    // A race between streams the runtime found (docs/runtime.md): a mark where the second
    // operation was issued, its message on hover.
    if (category == "race") return StreamEngine::event;
    return StreamEngine::alloc;
}

std::string micros(double us) {
    if (us >= 1e6) return fixed(us / 1e6, 3) + " s";
    if (us >= 1e3) return fixed(us / 1e3, 3) + " ms";
    return fixed(us, 1) + " us";
}

std::string byte_size(std::uint64_t b) {
    if (b >= (1ull << 30)) return fixed(double(b) / double(1ull << 30), 2) + " GiB";
    if (b >= (1ull << 20)) return fixed(double(b) / double(1ull << 20), 2) + " MiB";
    if (b >= (1ull << 10)) return fixed(double(b) / double(1ull << 10), 1) + " KiB";
    return std::to_string(b) + " B";
}

// More than one device: rows say which.
bool several_devices(const StreamsTimeline* t) {
    for (const auto& i : t->items)
        if (i.device > 0) return true;
    return false;
}

// [SECTION] graph layout: a node's level is its longest path from a root

void lay_out(GraphDag& g) {
    const int n = int(g.nodes.size());
    g.level.assign(std::size_t(n), 0);
    // The runtime numbers nodes in a topological order, so every kept edge goes forwards.
    std::vector<std::pair<int, int>> sorted = g.edges;
    std::sort(sorted.begin(), sorted.end(), [](auto& x, auto& y) { return x.second < y.second; });
    for (const auto& [from, to] : sorted)
        g.level[std::size_t(to)] =
            std::max(g.level[std::size_t(to)], g.level[std::size_t(from)] + 1);
    g.levels = 0;
    for (int l : g.level) g.levels = std::max(g.levels, l + 1);
    std::vector<int> filled(std::size_t(std::max(g.levels, 1)), 0);
    g.slot.assign(std::size_t(n), 0);
    for (int i = 0; i < n; ++i)
        g.slot[std::size_t(i)] = filled[std::size_t(g.level[std::size_t(i)])]++;
    g.widest = 0;
    for (int f : filled) g.widest = std::max(g.widest, f);
}

}  // namespace

const char* stream_engine_name(StreamEngine e) {
    switch (e) {
    case StreamEngine::h2d: return "H2D copies";
    case StreamEngine::kernel: return "kernels";
    case StreamEngine::d2h: return "D2H copies";
    case StreamEngine::copy: return "other copies";
    case StreamEngine::memset: return "memsets";
    case StreamEngine::host_function: return "host functions";
    case StreamEngine::event: return "events";
    case StreamEngine::graph: return "graph launches";
    case StreamEngine::alloc: return "allocations";
    case StreamEngine::pages: return "managed pages";
    case StreamEngine::api: return "API calls";
    }
    return "?";
}

const char* stream_engine_short(StreamEngine e) {
    switch (e) {
    case StreamEngine::h2d: return "H2D";
    case StreamEngine::kernel: return "kernels";
    case StreamEngine::d2h: return "D2H";
    case StreamEngine::copy: return "copies";
    case StreamEngine::memset: return "memsets";
    case StreamEngine::host_function: return "host fn";
    case StreamEngine::event: return "events";
    case StreamEngine::graph: return "graphs";
    case StreamEngine::alloc: return "alloc";
    case StreamEngine::pages: return "pages";
    case StreamEngine::api: return "API";
    }
    return "?";
}

// [SECTION] GraphLayout

namespace {

// `text` in lines no wider than `width`: at spaces where it can, else cut between characters.
std::vector<std::string> break_label(const std::string& text, float width,
                                     const std::function<float(const std::string&)>& measure) {
    std::vector<std::string> lines;
    for (std::string rest : wrap_text(text, width, [&](const char*a, const char*b) {
             return measure({a, b});
         })) {
        while (!rest.empty() && measure(rest) > width) {
            std::size_t n = rest.size();
            while (n > 1 && measure(rest.substr(0, n)) > width) {
                --n;
                while (n > 1 && (static_cast<unsigned char>(rest[n]) & 0xC0) == 0x80) --n;
            }
            lines.push_back(rest.substr(0, n));
            rest = rest.substr(n);
        }
        if (!rest.empty()) lines.push_back(rest);
    }
    if (lines.empty()) lines.push_back("");
    return lines;
}

}  // namespace

GraphLayout lay_out_graph(const GraphDag& g, float width, float height, float line_height,
                          const std::function<float(const std::string&)>& measure) {
    GraphLayout out;
    const int n = int(g.nodes.size());
    if (n == 0 || g.level.size() != g.nodes.size() || g.slot.size() != g.nodes.size()) return out;
    const int levels = std::max(1, g.levels);
    const float gap_x = std::max(24.0f, line_height * 1.6f), gap_y = line_height * 0.6f;
    out.pad = line_height * 0.35f;
    // Columns share the width, but none narrower than the widest word of a label (up to 12
    // characters), so labels break between words where they can.
    float widest_word = measure("memcpy");
    for (const auto& name : g.nodes) {
        std::size_t at = 0;
        while (at < name.size()) {
            const std::size_t sp = name.find(' ', at);
            const std::string word = name.substr(at, sp == std::string::npos ? sp : sp - at);
            // A longer word (a kernel's long name) is broken rather than widening every column.
            widest_word = std::max(widest_word, std::min(measure(word), measure("x") * 12));
            if (sp == std::string::npos) break;
            at = sp + 1;
        }
    }
    const float col_w =
        std::max((width - gap_x * float(levels - 1)) / float(levels), widest_word + 2 * out.pad);
    out.boxes.resize(std::size_t(n));
    std::vector<int> in_level(std::size_t(levels), 0);
    for (int i = 0; i < n; ++i) {
        auto& b = out.boxes[std::size_t(i)];
        b.w = col_w;
        b.lines = break_label(g.nodes[std::size_t(i)], col_w - 2 * out.pad, measure);
        b.h = float(b.lines.size()) * line_height + 2 * out.pad;
        ++in_level[std::size_t(std::clamp(g.level[std::size_t(i)], 0, levels - 1))];
    }
    // Each level's nodes share the height; a box is at least as tall as its lines and at most
    // three lines taller, the level centred in the panel.
    for (int l = 0; l < levels; ++l) {
        std::vector<int> members;
        for (int i = 0; i < n; ++i)
            if (std::clamp(g.level[std::size_t(i)], 0, levels - 1) == l) members.push_back(i);
        std::sort(members.begin(), members.end(),
                  [&](int a, int b) { return g.slot[std::size_t(a)] < g.slot[std::size_t(b)]; });
        float need = 0;
        for (int i : members) need += out.boxes[std::size_t(i)].h + gap_y;
        const float spare =
            std::max(0.0f, height - need) / float(std::max<std::size_t>(1, members.size()));
        float y = 0;
        float total = 0;
        for (int i : members) {
            auto& b = out.boxes[std::size_t(i)];
            b.h += std::min(spare, 3 * line_height);
            total += b.h + gap_y;
        }
        y = std::max(0.0f, (height - total + gap_y) * 0.5f);
        for (int i : members) {
            auto& b = out.boxes[std::size_t(i)];
            b.x = float(l) * (col_w + gap_x);
            b.y = y;
            y += b.h + gap_y;
            out.width = std::max(out.width, b.x + b.w);
            out.height = std::max(out.height, b.y + b.h);
        }
    }
    return out;
}

// [SECTION] PageMap

bool PageMap::on_device(int allocation, std::uint64_t page, double t) const {
    bool here = false;
    for (const auto& m : moves)
        if (m.allocation == allocation && m.start_us <= t && page >= m.first &&
            page - m.first < m.count)
            here = m.to_device;
    return here;
}

PageMap::Home PageMap::home(int allocation, std::uint64_t page, double t) const {
    Home here = Home::host;
    for (const auto& m : moves)
        if (m.allocation == allocation && m.start_us <= t && page >= m.first &&
            page - m.first < m.count)
            here = !m.to_device ? Home::host : m.on_demand() ? Home::on_demand : Home::prefetched;
    return here;
}

std::vector<PageMap::Column> PageMap::columns(double t0, double t1, int n) const {
    std::vector<Column> v(std::size_t(std::clamp(n, 1, 1 << 16)));
    if (!(t1 > t0)) return v;
    const auto at = [&](double t) {
        return std::size_t(
            std::clamp((t - t0) / (t1 - t0) * double(v.size()), 0.0, double(v.size() - 1)));
    };
    for (const auto& m : moves)
        if (m.start_us >= t0 && m.start_us <= t1)
            (m.on_demand() ? v[at(m.start_us)].demand : v[at(m.start_us)].prefetched) += m.count;
    for (double f : faults)
        if (f >= t0 && f <= t1) ++v[at(f)].faults;
    return v;
}

std::string PageMap::summary() const {
    std::string s = std::to_string(demand_pages) + " page" + (demand_pages == 1 ? "" : "s") +
                    " moved on demand \xC2\xB7 " + std::to_string(prefetched_pages) +
                    " prefetched \xC2\xB7 " + std::to_string(to_device_pages) + " to the device, " +
                    std::to_string(to_host_pages) + " to the host";
    if (!faults.empty()) s += " \xC2\xB7 " + std::to_string(faults.size()) + " page faults";
    return s;
}

// [SECTION] StreamsTimeline

namespace {

// The union of an engine's items on the devices (the lessons' interval arithmetic, as lesson 14's
// checks compute it).
std::vector<lessons::Interval> spans_of(const StreamsTimeline& t, StreamEngine e) {
    std::vector<lessons::Interval> v;
    for (const auto& i : t.items)
        if (i.engine == e && i.device >= 0) v.push_back({i.start_us, i.end_us});
    return lessons::merge_intervals(std::move(v));
}

// Beside each device's rows per stream, one row per copy direction holding that direction's copies
// from every stream: where two or more streams copy the same way, the engine's row shows them
// queueing (in cudalab's model an H200 has one engine per PCIe direction and one for copies
// between devices' memories: docs/runtime.md). Inserted after the device's last stream row.
void add_copy_engine_rows(StreamsTimeline* out) {
    std::vector<StreamRow> rows;
    for (std::size_t r = 0; r < out->rows.size(); ++r) {
        const StreamRow& row = out->rows[r];
        const bool last_of_device =
            row.device >= 0 && row.engine != StreamEngine::pages &&
            (r + 1 == out->rows.size() || out->rows[r + 1].device != row.device ||
             out->rows[r + 1].engine == StreamEngine::pages);
        rows.push_back(row);
        if (!last_of_device) continue;
        for (StreamEngine e : {StreamEngine::h2d, StreamEngine::d2h, StreamEngine::copy}) {
            std::vector<std::int64_t> streams;
            StreamRow engine_row;
            for (std::size_t i = 0; i < out->items.size(); ++i) {
                const auto& it = out->items[i];
                if (it.device != row.device || it.engine != e) continue;
                engine_row.items.push_back(i);
                if (std::find(streams.begin(), streams.end(), it.stream) == streams.end())
                    streams.push_back(it.stream);
            }
            if (streams.size() < 2) continue;
            engine_row.device = row.device;
            engine_row.stream = kCopyEngineStream;
            engine_row.engine = e;
            engine_row.name = std::string("copy engine ") + stream_engine_short(e) + " (" +
                              std::to_string(streams.size()) + " streams)";
            engine_row.label = std::string("engine \xC2\xB7 ") +
                               (e == StreamEngine::copy ? "D2D" : stream_engine_short(e));
            if (several_devices(out))
                engine_row.label = "GPU " + std::to_string(row.device) + " " + engine_row.label;
            rows.push_back(std::move(engine_row));
        }
    }
    out->rows = std::move(rows);
}

// The devices' own work (kernels, memsets, copies between device memories) of a run whose devices
// exchange data: when it fills less than a quarter of a run that is mostly copies to and from
// the host, the view opens on it.
void focus(StreamsTimeline* out) {
    out->focus_start_us = out->start_us;
    out->focus_end_us = out->end_us;
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const auto& i : out->items)
        if (i.device >= 0 && (i.engine == StreamEngine::kernel || i.engine == StreamEngine::copy ||
                              i.engine == StreamEngine::memset || i.staged)) {
            lo = std::min(lo, i.start_us);
            hi = std::max(hi, i.end_us);
        }
    // Only where devices copy between their memories (a multi-GPU exchange): a one-device run's
    // kernels between its copies are the very thing lesson 14 asks to look at whole.
    bool between_devices = false;
    for (const auto& i : out->items)
        between_devices |= i.device >= 0 && (i.engine == StreamEngine::copy || i.staged);
    if (!between_devices || !std::isfinite(lo) || hi <= lo) return;
    if (hi - lo < 0.25 * (out->end_us - out->start_us)) {
        out->focus_start_us = lo;
        out->focus_end_us = hi;
    }
}

}  // namespace

double StreamsTimeline::overlap_us(StreamEngine a, StreamEngine b) const {
    const auto y = spans_of(*this, b);
    double sum = 0;
    for (const auto& s : spans_of(*this, a)) sum += lessons::covered(s, y);
    return sum;
}

double StreamsTimeline::busy_us(StreamEngine a) const {
    double sum = 0;
    for (const auto& s : spans_of(*this, a)) sum += s.end - s.start;
    return sum;
}

std::size_t StreamsTimeline::device_streams() const {
    std::vector<std::pair<int, std::int64_t>> seen;
    for (const auto& r : rows)
        if (r.device >= 0 && r.engine != StreamEngine::pages && !r.copy_engine())
            seen.push_back({r.device, r.stream});
    std::sort(seen.begin(), seen.end());
    return std::size_t(std::unique(seen.begin(), seen.end()) - seen.begin());
}

std::optional<std::size_t> StreamsTimeline::item_at(const StreamRow& row, double t,
                                                    double radius_us) const {
    std::optional<std::size_t> race, instant, span;
    double race_d = radius_us, instant_d = radius_us;
    for (std::size_t index : row.items) {
        if (index >= items.size()) continue;
        const StreamItem& i = items[index];
        if (i.instant()) {
            const double d = std::fabs(i.start_us - t);
            if (i.race() && d <= race_d) {
                race = index;
                race_d = d;
            } else if (!i.race() && d <= instant_d) {
                instant = index;
                instant_d = d;
            }
        } else if (i.start_us - radius_us <= t && t <= i.end_us + radius_us) {
            span = index;  // the latest to start: drawn last, on top
        }
    }
    return race ? race : instant ? instant : span;
}

const StreamRow* StreamsTimeline::row_of(int device, std::int64_t stream,
                                         StreamEngine engine) const {
    for (const auto& r : rows)
        if (r.device == device && r.stream == stream && r.engine == engine) return &r;
    return nullptr;
}

std::string StreamsTimeline::describe(std::size_t index) const {
    if (index >= items.size()) return "";
    const StreamItem& i = items[index];
    std::string s = i.name + "\n";
    for (const auto& r : rows)
        if (r.device == i.device && r.stream == i.stream && r.engine == i.engine) {
            s += (r.device >= 0 ? r.name + " on GPU " + std::to_string(r.device)
                                : "host, " + r.name) +
                 " \xC2\xB7 " + stream_engine_name(r.engine) + "\n";
            break;
        }
    s += "start " + micros(i.start_us) +
         (i.instant() ? " (an instant)" : " \xC2\xB7 duration " + micros(i.duration_us())) + "\n";
    if (i.bytes)
        s += byte_size(i.bytes) +
             (i.duration_us() > 0 && i.engine != StreamEngine::pages
                  ? " at " + fixed(double(i.bytes) / i.duration_us() / 1e3, 1) + " GB/s"
                  : std::string()) +
             "\n";
    if (!i.grid.empty()) s += "grid " + i.grid + " x block " + i.block + "\n";
    if (i.graph >= 0 && std::size_t(i.graph) < graphs.size())
        s += std::to_string(graphs[std::size_t(i.graph)].nodes.size()) + " nodes, " +
             std::to_string(graphs[std::size_t(i.graph)].edges.size()) +
             " edges (the Graph tab draws them)\n";
    for (const auto& [k, v] : i.args) {
        if (k == "nodes" || k == "edges" || k == "bytes" || k == "grid" || k == "block") continue;
        s += k + ": " + v + "\n";
    }
    if (!s.empty() && s.back() == '\n') s.pop_back();
    return s;
}

bool parse_streams_timeline(const std::string& json_text, StreamsTimeline* out,
                            std::string* error) {
    *out = StreamsTimeline{};
    nlohmann::json j = nlohmann::json::parse(json_text, nullptr, false);
    if (j.is_discarded() || !j.is_object() || !j.contains("traceEvents") ||
        !j["traceEvents"].is_array()) {
        *error = "the timeline is not a Trace Event JSON object ({\"traceEvents\": [...]})";
        return false;
    }
    if (j.contains("otherData") && j["otherData"].is_object())
        out->dropped = std::uint64_t(std::max(0.0, number_of(j["otherData"], "dropped_events")));

    std::map<std::pair<std::int64_t, std::int64_t>, std::string> thread_names;
    double first = std::numeric_limits<double>::infinity();
    for (const auto& e : j["traceEvents"]) {
        if (!e.is_object()) continue;
        const std::string ph = text_of(e, "ph");
        if (ph == "M" && text_of(e, "name") == "thread_name" && e.contains("args"))
            thread_names[{std::int64_t(number_of(e, "pid")), std::int64_t(number_of(e, "tid"))}] =
                text_of(e["args"], "name");
        if (ph != "X") continue;
        const std::int64_t pid = std::int64_t(std::clamp(number_of(e, "pid"), -1e9, 1e9));
        if (pid < 0 || pid > 4096) continue;
        StreamItem it;
        it.name = text_of(e, "name");
        it.category = text_of(e, "cat");
        it.device = int(pid) - 1;
        it.stream = std::int64_t(std::clamp(number_of(e, "tid"), -1e15, 1e15));
        it.start_us = std::clamp(number_of(e, "ts"), 0.0, 1e15);
        it.end_us = it.start_us + std::clamp(number_of(e, "dur"), 0.0, 1e15);
        it.engine = engine_of(it.category, it.name, it.device < 0);
        if (e.contains("args") && e["args"].is_object()) {
            const auto& a = e["args"];
            for (auto kv = a.begin(); kv != a.end() && it.args.size() < 24; ++kv)
                it.args.push_back({kv.key(), arg_text(kv.value())});
            it.bytes = std::uint64_t(std::clamp(number_of(a, "bytes"), 0.0, 1e18));
            it.launch = std::uint64_t(std::clamp(number_of(a, "launch"), 0.0, 1e18));
            it.grid = text_of(a, "grid");
            const auto flag = [&](const char* key) {
                if (!a.contains(key)) return -1;
                const auto& v = a[key];
                if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
                if (v.is_string()) return v.get<std::string>() == "true" ? 1 : 0;
                return -1;
            };
            if (it.category == "memcpy") {
                it.staged = flag("staged") == 1;
                // Pinned or pageable is said of the host's memory: a copy between device memories
                // (and a staged peer copy, through the driver's own buffer) has none.
                if ((it.engine == StreamEngine::h2d || it.engine == StreamEngine::d2h) &&
                    !it.staged && it.name.rfind("prefetch", 0) != 0)
                    it.pinned = flag("pinned");
            }
            it.block = text_of(a, "block");
            if (it.engine == StreamEngine::graph && a.contains("nodes") && a["nodes"].is_array()) {
                GraphDag g;
                for (const auto& n : a["nodes"]) {
                    if (g.nodes.size() >= 512) break;
                    g.nodes.push_back(n.is_string() ? n.get<std::string>() : "?");
                }
                if (a.contains("edges") && a["edges"].is_array())
                    for (const auto& ed : a["edges"]) {
                        if (!ed.is_array() || ed.size() != 2 || !ed[0].is_number_integer() ||
                            !ed[1].is_number_integer())
                            continue;
                        const auto from = ed[0].get<std::int64_t>(), to = ed[1].get<std::int64_t>();
                        // Forward edges only (the runtime writes them so): a cycle cannot be laid
                        // out.
                        if (from >= 0 && to > from && to < std::int64_t(g.nodes.size()) &&
                            g.edges.size() < 4096)
                            g.edges.push_back({int(from), int(to)});
                    }
                g.item = out->items.size();
                lay_out(g);
                it.graph = int(out->graphs.size());
                out->graphs.push_back(std::move(g));
            }
            if (it.engine == StreamEngine::pages) {
                const std::string base = text_of(a, "allocation");
                const auto pages =
                    std::uint64_t(std::clamp(number_of(a, "allocation_pages"), 0.0, 1e15));
                int index = -1;
                for (std::size_t k = 0; k < out->pages.allocations.size(); ++k)
                    if (out->pages.allocations[k].base == base &&
                        out->pages.allocations[k].device == it.device)
                        index = int(k);
                if (index < 0 && out->pages.allocations.size() < 256) {
                    index = int(out->pages.allocations.size());
                    out->pages.allocations.push_back({base, pages, it.device});
                }
                if (index >= 0) {
                    PageMap::Move m;
                    m.allocation = index;
                    m.first = std::uint64_t(std::clamp(number_of(a, "first_page"), 0.0, 1e15));
                    m.count = std::uint64_t(std::clamp(number_of(a, "pages"), 0.0, 1e15));
                    m.to_device = text_of(a, "to") == "device";
                    m.start_us = it.start_us;
                    m.end_us = it.end_us;
                    m.cause = text_of(a, "cause");
                    auto& alloc = out->pages.allocations[std::size_t(index)];
                    alloc.pages = std::max(alloc.pages, m.first + m.count);
                    (m.to_device ? out->pages.to_device_pages : out->pages.to_host_pages) +=
                        m.count;
                    (m.on_demand() ? out->pages.demand_pages : out->pages.prefetched_pages) +=
                        m.count;
                    out->pages.moves.push_back(std::move(m));
                }
            }
        }
        if (it.category == "page fault") out->pages.faults.push_back(it.start_us);
        first = std::min(first, it.start_us);
        out->items.push_back(std::move(it));
        if (out->items.size() >= 2'000'000) break;  // the runtime's own limit
    }
    if (out->items.empty()) {
        *error = "the timeline holds no events";
        return true;
    }
    // Times from the first event.
    for (auto& i : out->items) {
        i.start_us -= first;
        i.end_us -= first;
    }
    for (auto& m : out->pages.moves) {
        m.start_us -= first;
        m.end_us -= first;
    }
    for (auto& f : out->pages.faults) f -= first;
    std::sort(out->pages.faults.begin(), out->pages.faults.end());
    std::stable_sort(
        out->pages.moves.begin(), out->pages.moves.end(),
        [](const PageMap::Move& a, const PageMap::Move& b) { return a.start_us < b.start_us; });

    // Rows: each device's streams (by id), each with one row per engine it used, then the
    // device's page row; then the host's threads.
    std::map<std::tuple<int, std::int64_t, int>, std::size_t> row_index;
    std::vector<std::tuple<int, std::int64_t, int>> keys;
    for (std::size_t i = 0; i < out->items.size(); ++i) {
        const auto& it = out->items[i];
        // The host after every device; a device's page row after its streams.
        const int device_key = it.device < 0 ? 1 << 20 : it.device;
        const std::int64_t stream_key = it.engine == StreamEngine::pages ? kPagesStream : it.stream;
        keys.push_back({device_key, stream_key, int(it.engine)});
    }
    std::vector<std::tuple<int, std::int64_t, int>> sorted = keys;
    std::sort(sorted.begin(), sorted.end());
    sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
    for (const auto& k : sorted) {
        StreamRow r;
        const auto& [device_key, stream_key, engine] = k;
        r.device = device_key == (1 << 20) ? -1 : device_key;
        r.engine = StreamEngine(engine);
        r.stream = stream_key;
        // Labels stay short (the view's label column is narrow): the runtime's stream name up to
        // its parenthesis ("stream 3 (non-blocking)" -> "stream 3"), and the engine's short name.
        if (r.device < 0) {
            auto n = thread_names.find({0, r.stream});
            r.name = n != thread_names.end() && !n->second.empty()
                         ? n->second
                         : "thread " + std::to_string(r.stream);
            r.label = "host \xC2\xB7 " + r.name;
        } else if (r.engine == StreamEngine::pages) {
            r.name = "GPU " + std::to_string(r.device) + " managed pages";
            r.label = "GPU " + std::to_string(r.device) + " \xC2\xB7 pages";
        } else {
            auto n = thread_names.find({r.device + 1, r.stream});
            r.name = n != thread_names.end() && !n->second.empty()
                         ? n->second
                         : "stream " + std::to_string(r.stream);
            std::string shown = r.name.substr(0, r.name.find(" ("));
            if (shown.empty()) shown = r.name;
            r.label = shown + " \xC2\xB7 " + stream_engine_short(r.engine);
            if (several_devices(out)) r.label = "GPU " + std::to_string(r.device) + " " + r.label;
        }
        row_index[k] = out->rows.size();
        out->rows.push_back(std::move(r));
    }
    for (std::size_t i = 0; i < out->items.size(); ++i)
        out->rows[row_index[keys[i]]].items.push_back(i);
    add_copy_engine_rows(out);
    for (auto& r : out->rows)
        std::stable_sort(r.items.begin(), r.items.end(), [&](std::size_t a, std::size_t b) {
            return out->items[a].start_us < out->items[b].start_us;
        });

    // The extent: the device's work (the host's teardown after the last copy is not the point).
    double lo = std::numeric_limits<double>::infinity(), hi = 0;
    for (const auto& i : out->items)
        if (i.device >= 0) {
            lo = std::min(lo, i.start_us);
            hi = std::max(hi, i.end_us);
        }
    if (!std::isfinite(lo))
        for (const auto& i : out->items) {
            lo = std::min(lo, i.start_us);
            hi = std::max(hi, i.end_us);
        }
    out->start_us = lo;
    out->end_us = std::max(hi, lo + 1.0);
    focus(out);
    return true;
}

bool export_streams_timeline(const std::string& json_text, const std::string& path,
                             std::string* error) {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    if (f) f.write(json_text.data(), std::streamsize(json_text.size()));
    if (!f) {
        *error = "cannot write " + path;
        return false;
    }
    return true;
}

std::vector<AxisTick> time_axis_ticks(double t0, double t1) {
    std::vector<AxisTick> ticks;
    if (!std::isfinite(t0) || !std::isfinite(t1) || t1 <= t0) return ticks;
    const double span = std::max(t1 - t0, 1e-6);
    double step = std::pow(10.0, std::floor(std::log10(span / 6)));
    for (double m : {2.0, 5.0, 10.0})
        if (span / step > 8) step = std::pow(10.0, std::floor(std::log10(span / 6))) * m;
    const double unit = step >= 1e5 ? 1e6 : step >= 100 ? 1e3 : 1;
    const char* unit_name = unit == 1e6 ? " s" : unit == 1e3 ? " ms" : " us";
    const int decimals = std::max(0, int(-std::floor(std::log10(step / unit) + 1e-9)));
    // Times before the run's start mean nothing; counting ticks by index keeps the sum of many
    // steps from drifting.
    const double first = t0 > 0 ? std::ceil(t0 / step) : 0.0;
    for (int i = 0; i < 64; ++i) {
        const double t = (first + i) * step;
        if (t > t1) break;
        ticks.push_back({t, fixed(t / unit, decimals) + unit_name});
    }
    return ticks;
}

}  // namespace cudalab::viewmodel
