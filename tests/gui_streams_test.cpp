// The app's views of a whole program (apps/gui/viewmodel/streams_model.h): the streams timeline of
// a program lesson's run, the DAG of a graph launch and the page map of managed memory, read from
// the timeline file the emulated runtime writes. What these tests pin is what the Streams, Graph
// and Pages tabs draw (docs/images/lessons/14-streams-timeline.png is lesson 14's solution).
#ifdef CUDALAB_HAVE_GUI_MODEL

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <unistd.h>

#include "lessons/course.h"
#include "programs/build.h"
#include "programs/runner.h"
#include "support.h"
#include "viewmodel/check_runner.h"
#include "viewmodel/streams_model.h"

using namespace cudalab;
using namespace cudalab::viewmodel;
namespace fs = std::filesystem;

namespace {

// A program lesson checked on the emulated runtime (its timeline is what the app draws).
lessons::CheckReport check_program_lesson(const std::string& id, bool solution,
                                          std::uint64_t seed) {
    lessons::Course course;
    REQUIRE(lessons::load_course(lessons::find_course_root(), &course).ok());
    const lessons::LessonInfo* l = course.find(id);
    REQUIRE(l);
    compiler::Compiler compiler;
    lessons::CheckOptions o;
    o.backend = "emu";
    o.seed = seed;
    o.solution = solution;
    return lessons::check_lesson(course, *l, o, compiler);
}

StreamsTimeline timeline_of(const lessons::CheckReport& report) {
    REQUIRE_MESSAGE(report.status.ok(), report.status.message);
    StreamsTimeline t;
    std::string error;
    REQUIRE(parse_streams_timeline(report.program_timeline, &t, &error));
    return t;
}

lessons::CheckReport check_14(bool solution, std::uint64_t trace_launch = 0) {
    lessons::Course course;
    REQUIRE(lessons::load_course(lessons::find_course_root(), &course).ok());
    const lessons::LessonInfo* l = course.find("14-streams");
    REQUIRE(l);
    compiler::Compiler compiler;
    lessons::CheckOptions o;
    o.backend = "emu";
    o.seed = 1414;  // the seed of docs/images/lessons/14-streams-timeline.png
    o.solution = solution;
    o.program_trace_launch = trace_launch;
    return lessons::check_lesson(course, *l, o, compiler);
}

// Items of `engine` on device streams, as (stream, start, end).
std::vector<std::tuple<std::int64_t, double, double>> spans(const StreamsTimeline& t,
                                                            StreamEngine engine) {
    std::vector<std::tuple<std::int64_t, double, double>> v;
    for (const auto& i : t.items)
        if (i.device >= 0 && i.engine == engine) v.push_back({i.stream, i.start_us, i.end_us});
    return v;
}

// A program from tests/programs, built with nvcc and run on the emulated runtime with a timeline.
bool run_with_timeline(const std::string& name, std::string* json) {
    const fs::path root = lessons::find_course_root();
    programs::BuildRequest b;
    b.inputs = {(root / "tests" / "programs" / (name + ".cu")).string()};
    b.cwd = (root / "tests" / "programs").string();
    b.limits = programs::default_build_limits();
    const auto built = programs::build_program(b);
    REQUIRE_MESSAGE(built.ok(), built.message << "\n" << built.log);
    const fs::path dir =
        fs::temp_directory_path() / ("cudalab-streams-test-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    programs::RunRequest r;
    r.executable = built.executable;
    r.backend = "emu";
    r.built_by_cudalab = true;
    r.cwd = dir.string();
    r.timeline = (dir / (name + ".json")).string();
    r.output = programs::OutputMode::capture;
    r.limits = programs::default_run_limits(false);
    r.cudart_dir =
        (fs::path(CUDALAB_CLI).parent_path() / "cudart-emu").string();  // the build tree's runtime
    const auto result = programs::run_program(r);
    CHECK_MESSAGE(result.process.outcome == programs::Outcome::exited,
                  programs::run_summary(result));
    std::ifstream in(r.timeline, std::ios::binary);
    json->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    std::error_code ec;
    fs::remove_all(dir, ec);
    return result.timeline_written && !json->empty();
}

}  // namespace

TEST_CASE("streams view: lesson 14's solution has a row per stream and engine, and copies overlap "
          "kernels") {
    if (!test_support::have_nvcc()) return;
    const auto report = check_14(true);
    REQUIRE_MESSAGE(report.status.ok(), report.status.message);
    REQUIRE(report.passed);
    REQUIRE_FALSE(report.program_timeline.empty());
    CHECK(report.program_timeline_run.rfind("./program ", 0) == 0);
    StreamsTimeline t;
    std::string error;
    REQUIRE(parse_streams_timeline(report.program_timeline, &t, &error));
    CHECK(error.empty());

    // Four streams of the pipeline, each with its three engines; the host's API calls below them.
    std::set<std::int64_t> streams;
    for (const auto& r : t.rows)
        if (r.device == 0 && r.engine == StreamEngine::kernel) streams.insert(r.stream);
    CHECK(streams.size() >= 4);
    for (std::int64_t s : streams) {
        CHECK(t.row_of(0, s, StreamEngine::h2d));
        CHECK(t.row_of(0, s, StreamEngine::d2h));
    }
    REQUIRE_FALSE(t.rows.empty());
    CHECK(t.rows.back().device == -1);
    CHECK(t.rows.back().engine == StreamEngine::api);
    // The rows' labels name the stream and the engine.
    const StreamRow* k = t.row_of(0, *streams.begin(), StreamEngine::kernel);
    REQUIRE(k);
    CHECK(k->label.find("kernels") != std::string::npos);
    CHECK(k->label.find("stream") != std::string::npos);

    // Overlap, as the picture must show it: copies in both directions run while a kernel of
    // another stream runs (what the lesson's checks grade: at least half of each hidden).
    const double h2d = t.busy_us(StreamEngine::h2d), d2h = t.busy_us(StreamEngine::d2h);
    REQUIRE(h2d > 0);
    REQUIRE(d2h > 0);
    CHECK(t.overlap_us(StreamEngine::h2d, StreamEngine::kernel) / h2d >= 0.5);
    CHECK(t.overlap_us(StreamEngine::d2h, StreamEngine::kernel) / d2h >= 0.5);
    bool cross_stream = false;
    for (const auto& [ks, ka, kb] : spans(t, StreamEngine::kernel))
        for (const auto& [cs, ca, cb] : spans(t, StreamEngine::h2d))
            cross_stream |= cs != ks && ca < kb && ka < cb;
    CHECK(cross_stream);

    // Beside the rows per stream, a row per copy engine holding every stream's copies of that
    // direction (they queue there), counted as no stream of its own.
    for (StreamEngine e : {StreamEngine::h2d, StreamEngine::d2h}) {
        const StreamRow* engine = t.row_of(0, kCopyEngineStream, e);
        REQUIRE(engine);
        CHECK(engine->copy_engine());
        CHECK(engine->label.find("engine") != std::string::npos);
        CHECK(engine->items.size() == spans(t, e).size());
    }
    CHECK(t.device_streams() == streams.size());
    // Pinned copies (the solution's host buffers are cudaMallocHost'd).
    for (const auto& i : t.items)
        if (i.engine == StreamEngine::h2d) CHECK(i.pinned == 1);

    // Kernels carry the runtime's launch number (the app traces one by it), grid and block.
    std::set<std::uint64_t> launches;
    for (const auto& i : t.items)
        if (i.engine == StreamEngine::kernel) {
            CHECK(i.launch > 0);
            CHECK_FALSE(i.grid.empty());
            launches.insert(i.launch);
        }
    CHECK(launches.size() == spans(t, StreamEngine::kernel).size());
    // Events are instants on their stream; a hover names the item, its stream, its time and bytes.
    for (std::size_t i = 0; i < t.items.size(); ++i)
        if (t.items[i].engine == StreamEngine::h2d) {
            const std::string d = t.describe(i);
            CHECK(d.find("memcpy HtoD") != std::string::npos);
            CHECK(d.find("H2D copies") != std::string::npos);
            CHECK(d.find("start ") != std::string::npos);
            CHECK(d.find("duration ") != std::string::npos);
            CHECK(d.find("iB at ") != std::string::npos);  // its size, and the bandwidth it ran at
            break;
        }
    CHECK(t.start_us < t.end_us);
}

TEST_CASE("streams view: lesson 14's shipped exercise runs in one stream with nothing hidden") {
    if (!test_support::have_nvcc()) return;
    const auto report = check_14(false);
    REQUIRE_MESSAGE(report.status.ok(), report.status.message);
    StreamsTimeline t;
    std::string error;
    REQUIRE(parse_streams_timeline(report.program_timeline, &t, &error));
    CHECK(t.device_streams() == 1);
    CHECK(t.overlap_us(StreamEngine::h2d, StreamEngine::kernel) == doctest::Approx(0.0));
    CHECK(t.overlap_us(StreamEngine::d2h, StreamEngine::kernel) == doctest::Approx(0.0));
}

TEST_CASE("streams view: a kernel of a program lesson is traced by its launch number for the "
          "kernel views") {
    if (!test_support::have_nvcc()) return;
    const auto report = check_14(true, 3);
    REQUIRE_MESSAGE(report.status.ok(), report.status.message);
    REQUIRE(report.last_trace);
    CHECK(report.last_trace->kernel.name.find("mix") != std::string::npos);
    CHECK_FALSE(report.last_trace->events.empty());
    // The same inputs (the seed): the timeline is the untraced run's.
    const auto plain = check_14(true);
    StreamsTimeline a, b;
    std::string error;
    REQUIRE(parse_streams_timeline(report.program_timeline, &a, &error));
    REQUIRE(parse_streams_timeline(plain.program_timeline, &b, &error));
    CHECK(a.items.size() == b.items.size());
}

TEST_CASE(
    "graph view and page map: the runtime records a graph launch's DAG and managed page moves") {
    if (!test_support::have_nvcc()) return;
    std::string json;
    REQUIRE(run_with_timeline("graphs_explicit", &json));
    StreamsTimeline g;
    std::string error;
    REQUIRE(parse_streams_timeline(json, &g, &error));
    REQUIRE_FALSE(g.graphs.empty());
    const GraphDag& dag = g.graphs.front();
    CHECK(dag.nodes.size() == 7);  // "7-node graph" (programs.toml)
    CHECK_FALSE(dag.edges.empty());
    CHECK(dag.levels >= 2);
    for (const auto& [from, to] : dag.edges)
        CHECK(dag.level[std::size_t(to)] > dag.level[std::size_t(from)]);
    CHECK(g.items[dag.item].engine == StreamEngine::graph);
    bool event = false;
    for (const auto& i : g.items) event |= i.engine == StreamEngine::event && i.instant();
    CHECK(event);

    REQUIRE(run_with_timeline("managed_memory", &json));
    StreamsTimeline m;
    REQUIRE(parse_streams_timeline(json, &m, &error));
    REQUIRE_FALSE(m.pages.empty());
    CHECK(m.pages.to_device_pages > 0);
    CHECK(m.row_of(0, 99999, StreamEngine::pages));
    // A page that went to the device is there after its move, on the host before it.
    const auto& first = m.pages.moves.front();
    CHECK(m.pages.on_device(first.allocation, first.first, first.start_us) == first.to_device);
    if (first.to_device)
        CHECK_FALSE(m.pages.on_device(first.allocation, first.first, first.start_us - 1));
}

TEST_CASE("streams view: a timeline file of any shape is read or refused, never trusted") {
    StreamsTimeline t;
    std::string error;
    CHECK_FALSE(parse_streams_timeline("not json", &t, &error));
    CHECK_FALSE(error.empty());
    CHECK_FALSE(parse_streams_timeline("[1,2]", &t, &error));
    error.clear();
    // Wrong types, a cycle and out-of-range edges, a negative pid: kept out, the rest read.
    const std::string odd = R"json({"traceEvents":[
        {"ph":"X","name":"memcpy HtoD","cat":"memcpy","ts":"10","dur":5,"pid":1,"tid":7,"args":{"bytes":4096}},
        {"ph":"X","name":7,"cat":"kernel","ts":12,"dur":4,"pid":1,"tid":8,"args":{"launch":1,"grid":"(1,1,1)"}},
        {"ph":"X","name":"g","cat":"graph","ts":20,"dur":2,"pid":1,"tid":7,
         "args":{"nodes":["kernel a","memcpy",3],"edges":[[0,1],[1,0],[0,9],[1,2],"x",[0]]}},
        {"ph":"X","name":"pages to device","cat":"page","ts":13,"dur":1,"pid":1,"tid":99999,
         "args":{"allocation":"0x1000","allocation_pages":4,"first_page":1,"pages":2,"to":"device"}},
        {"ph":"X","name":"GPU page fault","cat":"page fault","ts":13,"dur":0,"pid":1,"tid":99999,
         "args":{"address":"0x1000","fault_groups":2}},
        {"ph":"X","name":"bad","cat":"api","ts":1,"dur":1,"pid":-3,"tid":0},
        {"ph":"M","name":"thread_name","pid":1,"tid":7,"args":{"name":"stream 7"}},
        42, null
    ]})json";
    REQUIRE(parse_streams_timeline(odd, &t, &error));
    CHECK(t.items.size() == 5);
    for (const auto& i : t.items)  // a fault is a mark, and the page map holds moves only
        if (i.name == "GPU page fault") CHECK(i.engine == StreamEngine::event);
    REQUIRE(t.graphs.size() == 1);
    CHECK(t.graphs[0].nodes.size() == 3);
    CHECK(t.graphs[0].edges == std::vector<std::pair<int, int>>{{0, 1}, {1, 2}});
    CHECK(t.graphs[0].levels == 3);
    REQUIRE(t.pages.allocations.size() == 1);
    CHECK(t.pages.allocations[0].pages == 4);
    CHECK(t.pages.to_device_pages == 2);
    CHECK(t.pages.on_device(0, 1, 100));
    CHECK_FALSE(t.pages.on_device(0, 0, 100));
    CHECK_FALSE(t.pages.on_device(0, 1, 0));  // before its move (times from the first event, ts 10)
    // Times start at the first event; the H2D copy overlaps the kernel for 3 us.
    CHECK(t.overlap_us(StreamEngine::h2d, StreamEngine::kernel) == doctest::Approx(3.0));
    const StreamRow* r = t.row_of(0, 7, StreamEngine::h2d);
    REQUIRE(r);
    CHECK(r->label == "stream 7 \xC2\xB7 H2D");
    CHECK(r->name == "stream 7");
    for (std::size_t i = 0; i < t.items.size(); ++i)
        if (t.items[i].engine == StreamEngine::h2d)
            CHECK(t.describe(i).find("stream 7 on GPU 0 \xC2\xB7 H2D copies") != std::string::npos);
    // Empty and huge values are bounded.
    REQUIRE(parse_streams_timeline(
        R"({"traceEvents":[{"ph":"X","ts":1e300,"dur":-5,"pid":1,"tid":0}]})", &t, &error));
    CHECK(t.items.size() == 1);
    CHECK(t.items[0].duration_us() == 0);
}

TEST_CASE("pages view: lesson 17's exercise moves pages on demand, its solution prefetches them") {
    if (!test_support::have_nvcc()) return;
    // The seed of docs/images/lessons/17-unified-memory-pages-*.png.
    const StreamsTimeline ex =
        timeline_of(check_program_lesson("17-unified-memory", false, 20261130));
    const StreamsTimeline sol =
        timeline_of(check_program_lesson("17-unified-memory", true, 20261130));
    // Hundreds of pages fault in and out in the exercise; none in the solution, which prefetches.
    CHECK(ex.pages.demand_pages >= 100);
    CHECK(ex.pages.prefetched_pages == 0);
    CHECK(sol.pages.demand_pages == 0);
    CHECK(sol.pages.prefetched_pages >= 100);
    CHECK(ex.pages.summary().rfind(std::to_string(ex.pages.demand_pages) + " pages moved on demand",
                                   0) == 0);
    CHECK(sol.pages.summary().rfind("0 pages moved on demand", 0) == 0);
    // The strip above the bands: demand and prefetch marks apart, every page counted once.
    for (const auto* t : {&ex, &sol}) {
        std::uint64_t demand = 0, prefetched = 0;
        for (const auto& c : t->pages.columns(t->start_us - 1, t->end_us + 1, 300)) {
            demand += c.demand;
            prefetched += c.prefetched;
        }
        CHECK(demand == t->pages.demand_pages);
        CHECK(prefetched == t->pages.prefetched_pages);
    }
    // A page on the device is red when a fault pulled it there, green when prefetched.
    const auto home_after_first_move = [](const StreamsTimeline& t) {
        for (const auto& m : t.pages.moves)
            if (m.to_device) return t.pages.home(m.allocation, m.first, m.start_us);
        return PageMap::Home::host;
    };
    CHECK(home_after_first_move(ex) == PageMap::Home::on_demand);
    CHECK(home_after_first_move(sol) == PageMap::Home::prefetched);
}

TEST_CASE("streams view: lessons 02b and 16 show an ordinary run, not one with a fault injected") {
    if (!test_support::have_nvcc()) return;
    // The last run of 02b has its kernel made to fault (the program stops before copying back);
    // the app shows the run before it: copies in, the kernel, the copy back.
    const StreamsTimeline t = timeline_of(check_program_lesson("02b-host-program", true, 20261130));
    CHECK(t.busy_us(StreamEngine::h2d) > 0);
    CHECK(t.busy_us(StreamEngine::kernel) > 0);
    CHECK(t.busy_us(StreamEngine::d2h) > 0);
    // Lesson 16 names decoy faults that never fire in every run: its first run is the ordinary
    // one, which copies the result back.
    const StreamsTimeline e = timeline_of(check_program_lesson("16-errors", true, 20261130));
    CHECK(e.busy_us(StreamEngine::d2h) > 0);
}

TEST_CASE("streams view: lesson 20 opens on its ring, a sliver of a run spent copying in") {
    if (!test_support::have_nvcc()) return;
    for (bool solution : {false, true}) {
        CAPTURE(solution);
        const StreamsTimeline t = timeline_of(check_program_lesson("20-multi-gpu", solution, 2020));
        REQUIRE(t.focused());
        CHECK(t.focus_end_us - t.focus_start_us < 0.25 * (t.end_us - t.start_us));
        // The window holds every kernel and every copy between devices, and no copy in.
        int kernels = 0;
        for (const auto& i : t.items) {
            if (i.device < 0) continue;
            if (i.engine == StreamEngine::kernel || i.engine == StreamEngine::copy || i.staged) {
                kernels += i.engine == StreamEngine::kernel;
                CHECK(i.start_us >= t.focus_start_us);
                CHECK(i.end_us <= t.focus_end_us);
            }
        }
        CHECK(kernels > 0);
        // Pinned or pageable is said only of copies with the program's host memory.
        for (const auto& i : t.items)
            if (i.engine == StreamEngine::copy) CHECK(i.pinned == -1);
    }
    // Lesson 14's pipeline is the whole run, and its exercise's one kernel between long copies is
    // what the lesson asks to look at: both open whole.
    CHECK_FALSE(timeline_of(check_14(true)).focused());
    CHECK_FALSE(timeline_of(check_14(false)).focused());
}

TEST_CASE("streams view: pageable, pinned and staged copies, copy engines and races on hover") {
    const std::string json = R"json({"traceEvents":[
        {"ph":"X","name":"memcpy HtoD","cat":"memcpy","ts":0,"dur":10,"pid":1,"tid":7,"args":{"bytes":4096,"pinned":true}},
        {"ph":"X","name":"memcpy HtoD","cat":"memcpy","ts":10,"dur":30,"pid":1,"tid":8,"args":{"bytes":4096,"pinned":false}},
        {"ph":"X","name":"memcpy DtoH","cat":"memcpy","ts":40,"dur":5,"pid":1,"tid":8,"args":{"bytes":64}},
        {"ph":"X","name":"memcpy PtoP staged (DtoH leg)","cat":"memcpy","ts":50,"dur":5,"pid":1,"tid":7,
         "args":{"bytes":64,"pinned":false,"staged":true}},
        {"ph":"X","name":"cudaMemcpyAsync","cat":"api","ts":20,"dur":10,"pid":0,"tid":1},
        {"ph":"X","name":"race: write after read","cat":"race","ts":25,"dur":0,"pid":0,"tid":1,
         "args":{"kind":"write after read","first":"kernel k in stream 7","second":"memcpy in stream 8",
                 "fix":"make stream 8 wait for an event recorded after the kernel"}}
    ]})json";
    StreamsTimeline t;
    std::string error;
    REQUIRE(parse_streams_timeline(json, &t, &error));
    REQUIRE(t.items.size() == 6);
    CHECK(t.items[0].pinned == 1);
    CHECK_FALSE(t.items[0].pageable());
    CHECK(t.items[1].pageable());
    CHECK(t.items[2].pinned == -1);  // not said: drawn as before
    CHECK(t.items[3].staged);
    CHECK(t.items[3].pinned == -1);  // a staged peer copy has no host memory of the program's
    CHECK(t.items[3].engine == StreamEngine::d2h);
    // H2D copies come from two streams: an engine row holds both; D2H from two (8, and the staged
    // leg in 7).
    const StreamRow* h2d = t.row_of(0, kCopyEngineStream, StreamEngine::h2d);
    REQUIRE(h2d);
    CHECK(h2d->items == std::vector<std::size_t>{0, 1});
    CHECK(t.row_of(0, kCopyEngineStream, StreamEngine::d2h));
    CHECK(t.device_streams() == 2);
    // The engine rows sit after the device's stream rows, before the host's.
    std::size_t engine_at = 0, host_at = 0;
    for (std::size_t r = 0; r < t.rows.size(); ++r) {
        if (t.rows[r].copy_engine() && !engine_at) engine_at = r;
        if (t.rows[r].device < 0 && !host_at) host_at = r;
    }
    CHECK(engine_at > 0);
    CHECK(engine_at < host_at);
    // A race drawn over an API call on the host's row: the hover is the race, with its message.
    const StreamRow* host = t.row_of(-1, 1, StreamEngine::api);
    REQUIRE(host);
    const auto hit = t.item_at(*host, 25.4, 1.0);
    REQUIRE(hit);
    CHECK(t.items[*hit].race());
    const std::string d = t.describe(*hit);
    CHECK(d.find("race: write after read") != std::string::npos);
    CHECK(d.find("fix: make stream 8 wait") != std::string::npos);
    CHECK(d.find("second: memcpy in stream 8") != std::string::npos);
    // Away from it, the call under the mouse; nothing outside both.
    CHECK(t.item_at(*host, 29.0, 1.0) == std::optional<std::size_t>{4});
    CHECK_FALSE(t.item_at(*host, 45.0, 1.0));
}

TEST_CASE("graph view: the DAG fills its panel and no node's label is cut") {
    GraphDag g;
    g.nodes = {"memcpy",        "kernel scale_rows_by_their_norms_in_place",
               "kernel add",    "memset",
               "kernel reduce", "host function",
               "memcpy"};
    g.edges = {{0, 1}, {0, 2}, {3, 2}, {1, 4}, {2, 4}, {4, 5}, {5, 6}};
    g.level = {0, 1, 1, 0, 2, 3, 4};
    g.slot = {0, 0, 1, 1, 0, 0, 0};
    g.levels = 5;
    g.widest = 2;
    const auto measure = [](const std::string& text) { return 7.0f * float(text.size()); };
    for (const auto& [w, h] : std::vector<std::pair<float, float>>{{900, 600}, {640, 300}}) {
        CAPTURE(w);
        const GraphLayout l = lay_out_graph(g, w, h, 16, measure);
        REQUIRE(l.boxes.size() == g.nodes.size());
        for (std::size_t i = 0; i < l.boxes.size(); ++i) {
            const auto& b = l.boxes[i];
            // Every character of the label is on one of its lines, each inside its box.
            std::string joined;
            for (const auto& line : b.lines) {
                CHECK(measure(line) <= b.w - 2 * l.pad + 0.01f);
                joined += line;
            }
            std::string name = g.nodes[i];
            name.erase(std::remove(name.begin(), name.end(), ' '), name.end());
            joined.erase(std::remove(joined.begin(), joined.end(), ' '), joined.end());
            CHECK(joined == name);
            CHECK(b.h >= float(b.lines.size()) * 16 + 2 * l.pad);
            // Nodes do not overlap, and an edge goes left to right.
            for (std::size_t j = 0; j < i; ++j) {
                const auto& o = l.boxes[j];
                CHECK_FALSE(
                    (b.x < o.x + o.w && o.x < b.x + b.w && b.y < o.y + o.h && o.y < b.y + b.h));
            }
        }
        for (const auto& [from, to] : g.edges)
            CHECK(l.boxes[std::size_t(from)].x + l.boxes[std::size_t(from)].w <
                  l.boxes[std::size_t(to)].x);
        // The panel is used: the levels span its width, the tallest level most of its height.
        CHECK(l.width >= 0.95f * w);
        CHECK(l.width <= w + 0.01f);
        CHECK(l.height >= 0.5f * h);
    }
    // Too narrow for the words: wider than the panel (the view scrolls), labels still whole.
    const GraphLayout narrow = lay_out_graph(g, 100, 100, 16, measure);
    CHECK(narrow.width > 100);
    for (const auto& b : narrow.boxes)
        for (const auto& line : b.lines) CHECK(measure(line) <= b.w - 2 * narrow.pad + 0.01f);
}

TEST_CASE("streams view: the time ruler starts at 0, never at \"-0.0 ms\", and its labels differ") {
    // The view pads the run by 2 % on each side, so the window starts before 0.
    for (const auto& [t0, t1] : std::vector<std::pair<double, double>>{
             {-66.0, 3366.0}, {-0.004, 0.2}, {-20.0, 1020.0}, {-2e4, 1.02e6}, {150.0, 160.0}}) {
        const auto ticks = cudalab::viewmodel::time_axis_ticks(t0, t1);
        REQUIRE_FALSE(ticks.empty());
        CHECK(ticks.size() <= 9);
        for (std::size_t i = 0; i < ticks.size(); ++i) {
            CHECK_MESSAGE(ticks[i].label[0] != '-', ticks[i].label);
            CHECK(ticks[i].us >= 0);
            CHECK(ticks[i].us <= t1);
            if (i) CHECK_MESSAGE(ticks[i].label != ticks[i - 1].label, ticks[i].label);
        }
        if (t0 < 0) CHECK(ticks.front().us == 0);
    }
    CHECK(cudalab::viewmodel::time_axis_ticks(-66.0, 3366.0).front().label == "0.0 ms");
    CHECK(cudalab::viewmodel::time_axis_ticks(5.0, 5.0).empty());
}

#endif  // CUDALAB_HAVE_GUI_MODEL
