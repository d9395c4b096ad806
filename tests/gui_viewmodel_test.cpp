// The GUI's view-model: what each view of the trace draws, the lesson text as the lesson panel
// lays it out, the code panel's colours and gutter figures, and the exercise file actions (reset,
// open in an editor). It links no GL, GLFW or ImGui (apps/gui/viewmodel); the screenshot tests in
// tests/gui/ cover the drawing.
#ifdef CUDALAB_HAVE_GUI_MODEL

#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <unistd.h>

#include "lessons/course.h"
#include "viewmodel/check_runner.h"
#include "viewmodel/code_annotations.h"
#include "viewmodel/exercise_files.h"
#include "viewmodel/fault_lines.h"
#include "viewmodel/first_picture.h"
#include "viewmodel/format.h"
#include "viewmodel/grid_model.h"
#include "viewmodel/header_fit.h"
#include "viewmodel/markdown.h"
#include "viewmodel/memory_model.h"
#include "viewmodel/playback.h"
#include "viewmodel/shared_model.h"
#include "viewmodel/syntax.h"
#include "viewmodel/timeline_model.h"
#include "viewmodel/trace_model.h"

using namespace cudalab;
using namespace cudalab::viewmodel;
namespace fs = std::filesystem;

namespace {

// A hand-made trace: one block of `threads` threads, events added in order.
struct TraceBuilder {
    std::shared_ptr<Trace> t = std::make_shared<Trace>();
    std::uint64_t seq = 0;

    TraceBuilder(std::uint32_t grid, std::uint32_t threads) {
        t->kernel.name = "k";
        t->kernel.grid[0] = grid;
        t->kernel.block[0] = threads;
        t->kernel.num_sms = 4;
        // pc 0: arithmetic (line 10), 1: global load (line 11), 2: branch (12), 3: store (13),
        // 4: exit (14), 5: barrier (15), 6: shared load (16)
        const char* ops[][3] = {{"add", "arith", "add.s32"},      {"ld", "memory", "ld.global.f32"},
                                {"bra", "control", "@%p bra"},    {"st", "memory", "st.global.f32"},
                                {"ret", "control", "ret"},        {"bar", "barrier", "bar.sync 0"},
                                {"ld", "memory", "ld.shared.f32"}};
        for (std::uint32_t i = 0; i < 7; ++i) {
            PcInfo p;
            p.line = 10 + i;
            p.opcode = ops[i][0];
            p.op_class = ops[i][1];
            p.text = ops[i][2];
            t->pcs.push_back(p);
        }
        t->per_pc.resize(7);
        for (std::uint32_t b = 0; b < grid; ++b) {
            t->block_sm.push_back(std::uint8_t(b % 4));
            t->block_wave.push_back(b / 8);
        }
    }
    WarpEvent& add(std::uint32_t block, std::uint16_t warp, std::uint32_t pc, EventKind kind,
                   std::uint32_t active, std::uint32_t pred = ~0u) {
        WarpEvent e;
        e.seq = seq++;
        e.block = block;
        e.warp = warp;
        e.pc = pc;
        e.kind = kind;
        e.active = active;
        e.predicated_on = active & pred;
        if (t->detail_blocks.empty() || t->detail_blocks.back() != block)
            t->detail_blocks.push_back(block);
        t->events.push_back(e);
        return t->events.back();
    }
    void access(WarpEvent& e, MemSpace space, MemOp op, std::uint32_t mask, std::uint32_t width,
                const std::function<std::uint64_t(int)>& address) {
        MemAccess m;
        m.space = space;
        m.op = op;
        m.mask = mask;
        m.bytes_per_lane = std::uint8_t(width);
        std::uint64_t lo = ~0ull;
        for (int l = 0; l < 32; ++l)
            if (mask >> l & 1) lo = std::min(lo, address(l));
        m.base = lo;
        for (int l = 0; l < 32; ++l)
            if (mask >> l & 1) m.offset[std::size_t(l)] = std::uint32_t(address(l) - lo);
        e.mem = std::int32_t(t->accesses.size());
        t->accesses.push_back(m);
    }
};

constexpr std::uint32_t kAll = 0xffffffffu;

struct TempDir {
    fs::path path;
    TempDir() {
        path = fs::temp_directory_path() / ("cudalab-gui-test-" + std::to_string(::getpid()) + "-" +
                                            std::to_string(std::rand()));
        fs::create_directories(path);
    }
    ~TempDir() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

void write(const fs::path& p, const std::string& s) { std::ofstream(p, std::ios::binary) << s; }
std::string read(const fs::path& p) {
    std::string s;
    read_file(p.string(), &s);
    return s;
}

}  // namespace

// ---- lesson text ------------------------------------------------------------------------------

TEST_CASE("lesson Markdown becomes headings, styled runs, lists, code blocks and tables") {
    const Document d =
        parse_markdown("# Threads\n\nA **grid** of *blocks*, see `blockIdx.x` &amp; more.\n\n"
                       "- first\n- second\n  1. nested one\n  2. nested two\n\n"
                       "```cpp\nint id = blockIdx.x;\nreturn;\n```\n\n"
                       "| block | lanes |\n|---|---|\n| 0 | 0 … 7 |\n\n---\n");
    REQUIRE(d.blocks.size() >= 7);
    CHECK(d.blocks[0].kind == BlockKind::heading);
    CHECK(d.blocks[0].level == 1);
    CHECK(plain_text(d.blocks[0].runs) == "Threads");

    const Block& p = d.blocks[1];
    CHECK(p.kind == BlockKind::paragraph);
    CHECK(plain_text(p.runs) == "A grid of blocks, see blockIdx.x & more.");
    std::map<std::string, std::uint8_t> style;
    for (const Run& r : p.runs) style[r.text] = r.style;
    CHECK(style["grid"] == run_bold);
    CHECK(style["blocks"] == run_italic);
    CHECK(style["blockIdx.x"] == run_code);

    CHECK(d.blocks[2].bullet == "\xE2\x80\xA2");
    CHECK(d.blocks[2].indent == 1);
    CHECK(plain_text(d.blocks[2].runs) == "first");
    CHECK(plain_text(d.blocks[3].runs) == "second");
    CHECK(d.blocks[4].bullet == "1.");
    CHECK(d.blocks[4].indent == 2);
    CHECK(d.blocks[5].bullet == "2.");

    const Block& code = d.blocks[6];
    CHECK(code.kind == BlockKind::code);
    CHECK(code.language == "cpp");
    CHECK(code.code == "int id = blockIdx.x;\nreturn;");

    const Block& table = d.blocks[7];
    REQUIRE(table.kind == BlockKind::table);
    REQUIRE(table.rows.size() == 2);
    CHECK(plain_text(table.rows[0][1].runs) == "lanes");
    CHECK(plain_text(table.rows[1][1].runs) == "0 … 7");
    CHECK(d.blocks.back().kind == BlockKind::rule);
}

TEST_CASE("every lesson's text parses into a heading and paragraphs") {
    lessons::Course course;
    REQUIRE(lessons::load_course(lessons::find_course_root(), &course).ok());
    for (const auto& l : course.lessons) {
        CAPTURE(l.id);
        std::string md;
        REQUIRE(read_file(l.text_path, &md));
        const Document d = parse_markdown(md);
        REQUIRE(!d.blocks.empty());
        CHECK(d.blocks.front().kind == BlockKind::heading);
        int paragraphs = 0;
        for (const auto& b : d.blocks) paragraphs += b.kind == BlockKind::paragraph;
        CHECK(paragraphs >= 1);  // how much text a lesson needs is the course linter's business
    }
}

// ---- the code panel -----------------------------------------------------------------------------

TEST_CASE("CUDA source is coloured by kind, across lines, without gaps") {
    const std::string src = "#include <cstdio>\n"
                            "__global__ void k(float* a, int n) { // TODO: guard\n"
                            "    /* a comment\n"
                            "       over lines */ int i = blockIdx.x * 256 + threadIdx.x;\n"
                            "    if (i < n) a[i] = 1.5f; printf(\"%d\", i);\n";
    const auto lines = highlight(src);
    REQUIRE(lines.size() == 6);  // the last, empty line too
    auto kind_of = [&](std::size_t line, const std::string& word) {
        const auto& hl = lines[line];
        const std::size_t at = src.find(word, hl.offset) - hl.offset;
        for (const Token& t : hl.tokens)
            if (at >= t.begin && at < t.end) return t.kind;
        return TokenKind::punctuation;
    };
    CHECK(kind_of(0, "#include") == TokenKind::preprocessor);
    CHECK(kind_of(1, "__global__") == TokenKind::cuda);
    CHECK(kind_of(1, "void") == TokenKind::type);
    CHECK(kind_of(1, "TODO") == TokenKind::todo);
    CHECK(kind_of(1, "guard") == TokenKind::comment);
    CHECK(kind_of(2, "comment") == TokenKind::comment);
    CHECK(kind_of(3, "lines") == TokenKind::comment);
    CHECK(kind_of(3, "blockIdx") == TokenKind::cuda);
    CHECK(kind_of(3, "256") == TokenKind::number);
    CHECK(kind_of(4, "if") == TokenKind::keyword);
    CHECK(kind_of(4, "1.5f") == TokenKind::number);
    CHECK(kind_of(4, "\"%d\"") == TokenKind::string);
    for (const auto& hl : lines) {
        std::uint32_t at = 0;
        for (const Token& t : hl.tokens) {
            CHECK(t.begin == at);
            at = t.end;
        }
        CHECK(at == hl.length);
    }
}

TEST_CASE("the gutter rates each line's memory, bank and branch figures") {
    analysis::KernelFigures k;
    analysis::LineFigures coalesced{20, {}};
    coalesced.figures.warp_instructions = 100;
    coalesced.figures.active_lanes = 3200;
    coalesced.figures.global_load_requests = 10;
    coalesced.figures.global_load_sectors = 40;
    coalesced.figures.global_load_bytes = 1280;
    analysis::LineFigures strided{21, {}};
    strided.figures.warp_instructions = 10;
    strided.figures.active_lanes = 320;
    strided.figures.global_store_requests = 10;
    strided.figures.global_store_sectors = 320;
    strided.figures.global_store_bytes = 1280;
    strided.figures.shared_requests = 10;
    strided.figures.shared_wavefronts = 40;
    strided.figures.shared_ideal_wavefronts = 10;
    strided.figures.branches = 4;
    strided.figures.divergent_branches = 2;
    k.lines = {coalesced, strided};
    const CodeAnnotations a = annotate(k);
    REQUIRE(a.at(20));
    REQUIRE(a.at(21));
    CHECK(a.at(19) == nullptr);
    CHECK(a.any_global);
    CHECK(a.any_shared);
    CHECK(a.at(20)->sectors_per_request == doctest::Approx(4.0));
    CHECK(a.at(20)->memory == Verdict::good);
    CHECK(a.at(21)->sectors_per_request == doctest::Approx(32.0));
    CHECK(a.at(21)->memory == Verdict::poor);
    CHECK(a.at(21)->bank_conflicts == 30);
    CHECK(a.at(21)->banks == Verdict::poor);
    CHECK(a.at(21)->divergence == Verdict::poor);
    CHECK(a.at(20)->heat == doctest::Approx(1.0));
    CHECK(a.at(21)->heat < a.at(20)->heat);
    CHECK(a.describe(21).find("32.0 sectors per request") != std::string::npos);
}

TEST_CASE("short numbers for the gutter and tiles") {
    CHECK(compact_count(999) == "999");
    CHECK(compact_count(1234) == "1.2k");
    CHECK(compact_count(45678) == "46k");
    CHECK(compact_count(12345678) == "12M");
    CHECK(byte_count(512) == "512 B");
    CHECK(byte_count(2048) == "2.0 KB");
    CHECK(percent(0.873) == "87%");
}

// ---- stepping through a trace -------------------------------------------------------------------

TEST_CASE("the warps view shows each lane active, masked, predicated off, waiting or exited") {
    // One block of 48 threads: warp 0 full, warp 1 with 16 lanes.
    TraceBuilder tb(1, 48);
    const std::uint32_t low16 = 0xffffu;
    tb.add(0, 0, 0, EventKind::instruction, kAll);                 // 0
    tb.add(0, 1, 0, EventKind::instruction, low16);                // 1
    tb.add(0, 0, 2, EventKind::branch, kAll).taken = 0x0000ff00u;  // 2: splits warp 0
    tb.add(0, 0, 3, EventKind::instruction, 0x000000ffu,
           0x0000000fu);                                      // 3: 8 lanes, 4 pass the guard
    tb.add(0, 0, 4, EventKind::exit, 0x0000ff00u);            // 4: lanes 8..15 exit
    tb.add(0, 0, 5, EventKind::barrier_arrive, 0xffff00ffu);  // 5
    tb.add(0, 1, 5, EventKind::barrier_arrive, low16);        // 6
    tb.add(0, 0, 5, EventKind::barrier_release, 0);           // 7
    tb.add(0, 1, 0, EventKind::instruction, low16);           // 8
    TraceModel m(tb.t);
    REQUIRE(m.detail_blocks().size() == 1);
    CHECK(m.warps_per_block() == 2);
    CHECK(m.detail_blocks()[0].steps() == 9);

    auto w = m.warps_at(0, -1);
    CHECK(w[0].lane(0) == LaneState::not_started);
    CHECK(w[1].lane(20) == LaneState::no_thread);

    w = m.warps_at(0, 3);
    CHECK(w[0].lane(0) == LaneState::active);
    CHECK(w[0].lane(5) == LaneState::predicated_off);
    CHECK(w[0].lane(20) == LaneState::masked);
    CHECK(w[1].lane(3) == LaneState::active);

    w = m.warps_at(0, 4);
    CHECK(w[0].lane(9) == LaneState::exited);
    CHECK_FALSE(w[0].done());

    w = m.warps_at(0, 6);
    CHECK(w[0].waiting);
    CHECK(w[0].lane(0) == LaneState::waiting);
    CHECK(w[0].lane(9) == LaneState::exited);
    CHECK(w[1].lane(0) == LaneState::waiting);

    w = m.warps_at(0, 7);
    CHECK_FALSE(w[0].waiting);
    CHECK_FALSE(w[1].waiting);
    CHECK(m.next_barrier(0, -1) == 7);
    CHECK(m.next_barrier(0, 7) == -1);
    CHECK(m.block_label(0) == "(0)");
}

TEST_CASE("a warp's state at any step is the same from a checkpoint as from the start") {
    TraceBuilder tb(1, 64);
    // 1500 events: the warps alternate, each exits some lanes now and then.
    for (int i = 0; i < 1500; ++i) {
        const std::uint16_t warp = std::uint16_t(i % 2);
        if (i % 97 == 0) tb.add(0, warp, 4, EventKind::exit, 1u << (i % 32));
        else tb.add(0, warp, 0, EventKind::instruction, kAll >> (i % 5));
    }
    TraceModel m(tb.t);
    // Reference: replay from the start without checkpoints.
    auto replay = [&](std::int64_t step) {
        std::vector<WarpState> w(2);
        w[0].lanes = w[1].lanes = kAll;
        for (std::int64_t s = 0; s <= step; ++s) {
            const WarpEvent& e = tb.t->events[std::size_t(s)];
            WarpState& x = w[e.warp];
            x.active = e.active;
            x.predicated_on = e.predicated_on;
            x.last_step = s;
            if (e.kind == EventKind::exit) x.exited |= e.predicated_on;
        }
        return w;
    };
    for (std::int64_t step : {0, 255, 256, 257, 511, 777, 1024, 1499}) {
        CAPTURE(step);
        auto a = m.warps_at(0, step), b = replay(step);
        for (int w = 0; w < 2; ++w) {
            CHECK(a[std::size_t(w)].exited == b[std::size_t(w)].exited);
            CHECK(a[std::size_t(w)].active == b[std::size_t(w)].active);
            CHECK(a[std::size_t(w)].last_step == b[std::size_t(w)].last_step);
        }
    }
}

TEST_CASE("playback plays, stops at the end, steps and seeks within range") {
    Playback p;
    CHECK(p.position() == -1);
    p.reset(10);
    CHECK(p.position() == 0);
    p.set_speed(100);
    p.play();
    CHECK(p.advance(0.025));  // 2.5 steps
    CHECK(p.position() == 2);
    CHECK(p.advance(0.025));  // the half step carried over
    CHECK(p.position() == 5);
    p.advance(1.0);
    CHECK(p.position() == 9);
    CHECK_FALSE(p.playing());
    p.play();  // from the end: starts again
    CHECK(p.position() == 0);
    p.pause();
    CHECK_FALSE(p.advance(1.0));
    CHECK(p.step(-5) == false);
    CHECK(p.seek(1000));
    CHECK(p.position() == 9);
    p.reset(4);  // a shorter trace keeps the playhead inside it
    CHECK(p.position() == 3);
}

TEST_CASE("the grid view lays 1D grids out to fit and 2D grids as x by y") {
    TraceBuilder tb(79, 128);
    tb.add(0, 0, 0, EventKind::instruction, kAll);
    GridModel g = GridModel::build(*tb.t);
    CHECK(g.blocks == 79);
    CHECK(g.is_1d());
    CHECK(g.traced[0] == 1);
    CHECK(g.traced[1] == 0);
    CHECK(g.waves == 10);
    GridLayout l = g.layout(600, 400, 10, 64);
    CHECK(l.columns * l.rows >= 79);
    CHECK(float(l.columns) * l.tile <= 600);
    CHECK(float(l.rows) * l.tile <= 400);
    CHECK(l.tile >= 40);  // 79 tiles in 600 x 400 leave room for big ones
    for (std::uint32_t b = 0; b < 79; ++b) {
        std::uint32_t c, r;
        g.tile_of(l, b, &c, &r);
        CHECK(g.block_at(l, c, r) == b);
    }
    CHECK(g.block_at(l, l.columns - 1, l.rows - 1) == (l.columns * l.rows == 79 ? 78 : -1));

    TraceBuilder tb2(1, 32);
    tb2.t->kernel.grid[0] = 4;
    tb2.t->kernel.grid[1] = 3;
    tb2.t->kernel.grid[2] = 2;
    GridModel g2 = GridModel::build(*tb2.t);
    GridLayout l2 = g2.layout(400, 400, 10, 64);
    CHECK(l2.columns == 4);
    CHECK(l2.rows == 6);
    CHECK(g2.block_at(l2, 1, 2) == 1 + 4 * 2);        // x 1, y 2, z 0
    CHECK(g2.block_at(l2, 3, 5) == 3 + 4 * (2 + 3));  // x 3, y 2, z 1
}

// ---- memory and shared memory ----------------------------------------------------------------

TEST_CASE("the memory view shows one buffer read by two instructions over adjacent ranges once") {
    // An unrolled loop reads b[0..31] at one pc and its remainder b[32] at another: the ranges
    // touch at a line boundary but do not overlap.
    TraceBuilder tb(1, 32);
    const std::uint64_t b = 0x20000;
    auto& body = tb.add(0, 0, 1, EventKind::instruction, kAll);
    tb.access(body, MemSpace::global, MemOp::load, kAll, 4,
              [&](int l) { return b + 4 * std::uint32_t(l); });
    auto& rest = tb.add(0, 0, 2, EventKind::instruction, 1u);
    tb.access(rest, MemSpace::global, MemOp::load, 1u, 4, [&](int) { return b + 128; });
    std::string source = "\n    s += b[k];\n";
    MemoryModel mm = MemoryModel::build(*tb.t, source);
    REQUIRE(mm.regions.size() == 1);
    CHECK(mm.regions[0].rows() == 2);
    CHECK(mm.region_of(b + 128) == 0);
}

TEST_CASE(
    "the memory view finds each buffer, names it from the source and lights a request's sectors") {
    TraceBuilder tb(1, 64);
    const std::uint64_t a = 0x10000, b = 0x20000, c = 0x30000;
    for (std::uint16_t w = 0; w < 2; ++w) {
        auto& la = tb.add(0, w, 1, EventKind::instruction, kAll);
        tb.access(la, MemSpace::global, MemOp::load, kAll, 4,
                  [&](int l) { return a + 4 * (32u * w + std::uint32_t(l)); });
        auto& lb = tb.add(0, w, 1, EventKind::instruction, kAll);
        lb.pc = 1;
        tb.access(lb, MemSpace::global, MemOp::load, kAll, 4,
                  [&](int l) { return b + 4 * (32u * w + std::uint32_t(l)); });
        auto& sc = tb.add(0, w, 3, EventKind::instruction, kAll);
        tb.access(sc, MemSpace::global, MemOp::store, kAll, 4,
                  [&](int l) { return c + 4 * (32u * w + std::uint32_t(l)); });
    }
    // The two loads come from two instructions of one source line: give b's its own pc.
    tb.t->pcs.push_back(tb.t->pcs[1]);
    tb.t->per_pc.emplace_back();
    for (auto& e : tb.t->events)
        if (e.mem >= 0 && tb.t->accesses[std::size_t(e.mem)].base >= b &&
            tb.t->accesses[std::size_t(e.mem)].base < c)
            e.pc = 7;
    // Source: line 11 loads a then b, line 13 stores c.
    std::string source;
    for (int i = 1; i <= 13; ++i)
        source += i == 11 ? "    float s = a[i] + b[i];\n" : i == 13 ? "    c[i] = s;\n" : "\n";
    MemoryModel mm = MemoryModel::build(*tb.t, source);
    REQUIRE(mm.regions.size() == 3);
    CHECK(mm.regions[0].name == "a");
    CHECK(mm.regions[1].name == "b");
    CHECK(mm.regions[2].name == "c");
    CHECK(mm.regions[0].loaded);
    CHECK(mm.regions[2].stored);
    CHECK(mm.regions[0].rows() == 2);  // 64 floats: two 128-byte lines
    CHECK(mm.regions[0].touches[5] == 1);
    CHECK(mm.regions[2].first_event[40] == 5);  // warp 1's store, the 6th event
    CHECK(mm.region_of(b + 8) == 1);
    CHECK(mm.region_of(0x40000) == -1);

    AccessView v = access_at(*tb.t, mm, 0);
    REQUIRE(v.valid);
    CHECK(v.region == 0);
    CHECK(v.cost.sectors == 4);
    CHECK(v.sectors.size() == 4);
    CHECK(v.lines.size() == 1);
    CHECK(v.source_line == 11);

    // A strided request: every lane in its own sector.
    TraceBuilder ts(1, 32);
    auto& e = ts.add(0, 0, 1, EventKind::instruction, kAll);
    ts.access(e, MemSpace::global, MemOp::load, kAll, 4,
              [&](int l) { return a + 128u * std::uint32_t(l); });
    MemoryModel ms = MemoryModel::build(*ts.t, "");
    REQUIRE(ms.regions.size() == 1);
    CHECK(ms.regions[0].name == "buffer 1");
    AccessView sv = access_at(*ts.t, ms, 0);
    CHECK(sv.cost.sectors == 32);
    CHECK(sv.lines.size() == 32);
}

TEST_CASE("a kernel's parameter names come from its signature in the source") {
    const std::string src =
        "// vector_add(x) in a comment\n"
        "template <typename T> __device__ T twice(T v) { return 2 * v; }\n"
        "__global__ void vector_add(const float* __restrict__ a, const float* b,\n"
        "                           float* c, int n = 4)\n{ }\n"
        "__global__ void tiles(float (*tile)[33], std::pair<int, int> p, unsigned mask) {}\n";
    CHECK(kernel_parameter_names(src, "vector_add") ==
          std::vector<std::string>{"a", "b", "c", "n"});
    CHECK(kernel_parameter_names(src, "tiles") == std::vector<std::string>{"tile", "p", "mask"});
    CHECK(kernel_parameter_names(src, "absent").empty());
}

TEST_CASE("the PTX is followed back from a load or store to the parameter its address comes from") {
    TraceBuilder tb(1, 32);
    tb.t->pcs.clear();
    const char* ptx[] = {"ld.param.u64 \t%rd15, [_Z1kPKfS0_Pfi_param_0]",
                         "ld.param.u64 \t%rd16, [_Z1kPKfS0_Pfi_param_1]",
                         "ld.param.u64 \t%rd17, [_Z1kPKfS0_Pfi_param_2]",
                         "cvta.to.global.u64 \t%rd1, %rd17",
                         "cvta.to.global.u64 \t%rd2, %rd16",
                         "cvta.to.global.u64 \t%rd3, %rd15",
                         "mul.wide.s32 \t%rd18, %r27, 4",
                         "add.s64 \t%rd34, %rd1, %rd18",
                         "add.s64 \t%rd33, %rd2, %rd18",
                         "ld.global.f32 \t%f1, [%rd33]",
                         "ld.global.f32 \t%f2, [%rd3+16]",
                         "st.global.f32 \t[%rd34], %f3",
                         "add.s64 \t%rd34, %rd34, %rd5",
                         "@%p1 st.global.f32 \t[%rd34], %f3"};
    for (const char* text : ptx) {
        PcInfo p;
        p.text = text;
        p.function = "_Z1kPKfS0_Pfi";
        tb.t->pcs.push_back(p);
    }
    CHECK(parameter_of_address(*tb.t, 9) == 1);   // b
    CHECK(parameter_of_address(*tb.t, 10) == 0);  // a, with an offset
    CHECK(parameter_of_address(*tb.t, 11) == 2);  // c
    CHECK(parameter_of_address(*tb.t, 13) == 2);  // c, through the loop's increment
    CHECK(parameter_of_address(*tb.t, 6) == -1);  // not a memory instruction's address
}

TEST_CASE("array names on a source line split into written and read") {
    auto n = indexed_names("c[i] = a[i] + b [i]; // d[0]");
    CHECK(n.stored == std::vector<std::string>{"c"});
    CHECK(n.loaded == std::vector<std::string>{"a", "b"});
    n = indexed_names("hist[bin[i]] += w[i];");
    CHECK(n.stored == std::vector<std::string>{"hist"});
    CHECK(n.loaded == std::vector<std::string>{"hist", "bin", "w"});
    n = indexed_names("if (x[i] <= y[i]) return;");
    CHECK(n.stored.empty());
    CHECK(n.loaded == std::vector<std::string>{"x", "y"});
}

TEST_CASE(
    "the shared view counts words per bank: a column read is a 32-way conflict, a broadcast none") {
    TraceBuilder tb(1, 32);
    auto& column = tb.add(0, 0, 6, EventKind::instruction, kAll);
    tb.access(column, MemSpace::shared, MemOp::load, kAll, 4,
              [](int l) { return std::uint64_t(l) * 128; });  // tile[l][0]
    auto& row = tb.add(0, 0, 6, EventKind::instruction, kAll);
    tb.access(row, MemSpace::shared, MemOp::load, kAll, 4,
              [](int l) { return std::uint64_t(l) * 4; });
    auto& broadcast = tb.add(0, 0, 6, EventKind::instruction, kAll);
    tb.access(broadcast, MemSpace::shared, MemOp::load, kAll, 4,
              [](int) { return std::uint64_t(64); });
    auto& padded = tb.add(0, 0, 6, EventKind::instruction, kAll);
    tb.access(padded, MemSpace::shared, MemOp::load, kAll, 4,
              [](int l) { return std::uint64_t(l) * 132; });  // tile[l][0], [32][33]

    const SharedModel sm = SharedModel::build(*tb.t);
    CHECK(sm.used);
    CHECK(sm.conflicted_requests == 1);
    CHECK(sm.rows == 32);
    CHECK(sm.touches[0] == 3);  // word 0: the column, the row and the padded column

    SharedAccessView c = shared_access_at(*tb.t, 0);
    REQUIRE(c.valid);
    CHECK(c.banks[0].size() == 32);
    CHECK(c.busiest_bank_words == 32);
    CHECK(c.cost.wavefronts == 32);
    CHECK(c.cost.conflicts() == 31);
    CHECK(shared_access_at(*tb.t, 1).cost.conflicts() == 0);
    SharedAccessView b = shared_access_at(*tb.t, 2);
    CHECK(b.cost.wavefronts == 1);
    CHECK(b.banks[16].size() == 1);
    CHECK(b.banks[16][0].lanes == kAll);
    CHECK(shared_access_at(*tb.t, 3).busiest_bank_words == 1);
}

TEST_CASE("the timeline compresses a block's steps into columns per warp") {
    TraceBuilder tb(1, 64);
    for (int i = 0; i < 1000; ++i) {
        auto& e = tb.add(0, std::uint16_t(i % 2), i < 500 ? 0 : 1, EventKind::instruction,
                         i % 2 ? 0xffffu : kAll);
        if (i >= 500)
            tb.access(e, MemSpace::global, MemOp::load, e.active, 4,
                      [](int l) { return 0x1000u + 4u * std::uint32_t(l); });
    }
    tb.add(0, 0, 5, EventKind::barrier_arrive, kAll);
    tb.add(0, 1, 5, EventKind::barrier_arrive, kAll);
    tb.add(0, 0, 5, EventKind::barrier_release, 0);
    TraceModel m(tb.t);
    const TimelineStrip s = build_timeline(m, 0, 100);
    CHECK(s.columns == 100);
    CHECK(s.warps == 2);
    CHECK(s.steps == 1003);
    CHECK(s.at(0, 10) == StepClass::compute);
    CHECK(s.at(0, 60) == StepClass::global_memory);
    CHECK(s.lanes_at(0, 10) == 32);
    CHECK(s.lanes_at(1, 10) == 16);
    CHECK(s.at(0, 99) == StepClass::barrier);
    REQUIRE(s.barriers.size() == 1);
    CHECK(s.barriers[0] == 1002);
    CHECK(s.column_of(1002) == 99);
    // A short trace gets one column per step, and a warp between its instructions keeps its state.
    TraceBuilder tb2(1, 64);
    tb2.add(0, 0, 0, EventKind::instruction, kAll);
    tb2.add(0, 1, 0, EventKind::instruction, kAll);
    tb2.add(0, 1, 0, EventKind::instruction, kAll);
    TraceModel m2(tb2.t);
    const TimelineStrip s2 = build_timeline(m2, 0, 100);
    CHECK(s2.columns == 3);
    CHECK(s2.issued_at(0, 0));
    CHECK_FALSE(s2.issued_at(0, 1));
    CHECK(s2.at(0, 1) == StepClass::compute);
    CHECK(s2.at(1, 0) == StepClass::none);
}

// ---- the exercise file --------------------------------------------------------------------------

TEST_CASE("reset exercise restores the committed version and keeps the learner's as a backup") {
    TempDir dir;
    const fs::path repo = dir.path / "course";
    fs::create_directories(repo / "exercises");
    const fs::path file = repo / "exercises" / "01-threads.cu";
    write(file, "// shipped\n");
    std::string out;
    const std::string r = repo.string();
    REQUIRE(run_capture({"git", "-C", r, "init", "-q"}, &out) == 0);
    REQUIRE(run_capture({"git", "-C", r, "-c", "user.email=t@t", "-c", "user.name=t", "add",
                         "exercises/01-threads.cu"},
                        &out) == 0);
    REQUIRE(run_capture({"git", "-C", r, "-c", "user.email=t@t", "-c", "user.name=t", "commit",
                         "-q", "-m", "x"},
                        &out) == 0);

    write(file, "// my work\n");
    const std::time_t now = 1'800'000'000;
    ResetResult res = reset_exercise(file.string(), now);
    INFO(res.message);
    CHECK(res.ok);
    CHECK(res.changed);
    CHECK(read(file) == "// shipped\n");
    REQUIRE(!res.backup_path.empty());
    CHECK(read(res.backup_path) == "// my work\n");
    CHECK(res.backup_path.find(".cu.bak-") != std::string::npos);

    // Again, unchanged: nothing to do, no new backup.
    ResetResult again = reset_exercise(file.string(), now);
    CHECK(again.ok);
    CHECK_FALSE(again.changed);
    CHECK(again.backup_path.empty());

    // A second backup in the same second does not overwrite the first.
    write(file, "// more work\n");
    ResetResult third = reset_exercise(file.string(), now);
    CHECK(third.backup_path != res.backup_path);
    CHECK(read(res.backup_path) == "// my work\n");
    CHECK(read(third.backup_path) == "// more work\n");
}

TEST_CASE("reset exercise refuses outside a git checkout and leaves the file alone") {
    TempDir dir;
    const fs::path file = dir.path / "02-vector-add.cu";
    write(file, "// mine\n");
    ResetResult res = reset_exercise(file.string(), std::time(nullptr));
    CHECK_FALSE(res.ok);
    CHECK(res.message.find("not touched") != std::string::npos);
    CHECK(read(file) == "// mine\n");
    CHECK(fs::directory_iterator(dir.path) != fs::directory_iterator{});
    int files = 0;
    for (auto& e : fs::directory_iterator(dir.path)) {
        (void)e;
        ++files;
    }
    CHECK(files == 1);  // no backup written
}

TEST_CASE("open in my editor uses $VISUAL, then $EDITOR, then xdg-open") {
    auto env = [](std::map<std::string, std::string> vars) {
        return [vars](const char* name) -> const char* {
            auto it = vars.find(name);
            return it == vars.end() ? nullptr : it->second.c_str();
        };
    };
    auto no_terminal = [](const std::string&) { return false; };
    auto terminal = [](const std::string& p) { return p == "x-terminal-emulator"; };
    CHECK(editor_command("ex.cu", 12, env({}), no_terminal) ==
          std::vector<std::string>{"xdg-open", "ex.cu"});
    CHECK(editor_command("ex.cu", 12, env({{"VISUAL", "code --wait"}, {"EDITOR", "vim"}}),
                         no_terminal) ==
          std::vector<std::string>{"code", "--wait", "--goto", "ex.cu:12"});
    CHECK(editor_command("ex.cu", 12, env({{"EDITOR", "vim"}}), no_terminal) ==
          std::vector<std::string>{"vim", "+12", "ex.cu"});
    CHECK(editor_command("ex.cu", 0, env({{"EDITOR", "nano"}}), terminal) ==
          std::vector<std::string>{"x-terminal-emulator", "-e", "nano", "ex.cu"});
}

TEST_CASE("a saved file is noticed by its time stamp and size") {
    TempDir dir;
    const fs::path f = dir.path / "k.cu";
    CHECK_FALSE(stamp_of(f.string()).exists);
    write(f, "a");
    const FileStamp one = stamp_of(f.string());
    CHECK(one.exists);
    write(f, "abc");
    CHECK(stamp_of(f.string()) != one);
    CHECK(backup_name((dir.path / "x.cu").string(), 0).find("x.cu.bak-19") != std::string::npos);
}

// ---- the worker: the real course ---------------------------------------------------------------

TEST_CASE("the check worker runs a lesson off the UI thread and returns the views' data") {
    lessons::Course course;
    REQUIRE(lessons::load_course(lessons::find_course_root(), &course).ok());
    const lessons::LessonInfo* l = course.find("01-threads");
    REQUIRE(l);
    CheckRunner runner(course);
    CheckRequest r;
    r.lesson = *l;
    r.options.solution = true;
    r.options.backend = "emu";
    r.options.trace.detail_blocks = {0, 78};
    r.requested = Clock::now();
    runner.request(r);
    auto o = runner.wait(120);
    REQUIRE(o.has_value());
    CHECK(o->report.passed);
    REQUIRE(o->views);
    const TraceViews& v = *o->views;
    CHECK(v.grid.blocks == 79);  // the last launch: 79 blocks of 128
    CHECK(v.model.detail_blocks().size() == 2);
    CHECK(v.model.find_detail_block(78) == 1);
    CHECK(!o->source.empty());
    // The four output arrays, named as the source names them.
    std::vector<std::string> names;
    for (const auto& region : v.memory.regions) names.push_back(region.name);
    CHECK(names == std::vector<std::string>{"global_id", "block_id", "warp_id", "lane"});
    // The last block: 23 threads inside n = 10007; the rest exit at the guard.
    const auto& last = v.model.detail_blocks()[1];
    auto warps = v.model.warps_at(1, std::int64_t(last.steps()) - 1);
    REQUIRE(warps.size() == 4);
    for (const auto& w : warps) CHECK(w.done());
    CHECK(v.annotations.any_global);
    CHECK(v.hierarchy.store_requests > 0);
    CHECK(v.hierarchy.has_occupancy);
    CHECK_FALSE(runner.busy());

    // Lesson 02: NVRTC loads b before a; the buffers are still named after their parameters.
    const lessons::LessonInfo* l2 = course.find("02-vector-add");
    REQUIRE(l2);
    r.lesson = *l2;
    r.options.trace.detail_blocks = {};
    runner.request(r);
    auto o2 = runner.wait(120);
    REQUIRE(o2.has_value());
    REQUIRE(o2->views);
    names.clear();
    for (const auto& region : o2->views->memory.regions) names.push_back(region.name);
    CHECK(names == std::vector<std::string>{"a", "b", "c"});
}

// ---- which launch the app shows, and where each view opens
// ----------------------------------------

namespace {

// Runs a lesson through the check worker as the app does; `source` relative to the course root
// ("" for the shipped exercise, "solution" for the reference solution).
CheckOutcome run_lesson(const std::string& id, const std::string& source, int launch = -1) {
    lessons::Course course;
    REQUIRE(lessons::load_course(lessons::find_course_root(), &course).ok());
    const lessons::LessonInfo* l = course.find(id);
    REQUIRE(l);
    CheckRunner runner(course);
    CheckRequest r;
    r.lesson = *l;
    r.options.backend = "emu";
    // the seed scripts/lesson_pictures.sh renders with: the same launches every run
    r.options.seed = 20261130;
    r.options.solution = source == "solution";
    if (!source.empty() && source != "solution")
        r.options.source_path = (fs::path(course.root) / source).string();
    r.launch = launch;
    r.requested = Clock::now();
    runner.request(r);
    auto o = runner.wait(180);
    REQUIRE(o.has_value());
    return std::move(*o);
}

const lessons::CheckResult* find_check(const lessons::CheckReport& r, const std::string& name) {
    for (const auto& c : r.checks)
        if (c.name == name) return &c;
    return nullptr;
}

// The step's event of detail block 0.
const WarpEvent& event_at(const TraceViews& v, std::int64_t step) {
    return v.model.event(0, std::size_t(step));
}

}  // namespace

TEST_CASE("lesson 07 with an unpadded tile opens on the launch the bank-conflict check measured, "
          "on a conflict") {
    CheckOutcome o = run_lesson("07-transpose", "lessons/07-transpose/wrong/unpadded.cu");
    const lessons::CheckReport& r = o.report;
    CHECK_FALSE(r.passed);
    REQUIRE(r.launches.size() >= 3);
    REQUIRE(r.launch_traces.size() == r.launches.size());
    const lessons::CheckResult* banks = find_check(r, "shared-memory bank conflicts");
    REQUIRE(banks);
    CHECK_FALSE(banks->passed);
    // The check sums every launch; it names the one with the most conflicts, the 72 x 200 matrix
    // (the largest), not the last launch.
    CHECK(banks->launch == 0);
    CHECK(r.focus_launch() == 0);
    CHECK(r.launch_label(0) == "launch 1 of " + std::to_string(r.launches.size()) +
                                   ": transpose, grid (7,3,1) x block (32,32,1)");
    REQUIRE(o.views);
    CHECK(o.launch == 0);
    const TraceViews& v = *o.views;
    CHECK(v.grid.blocks == 21);
    // The views' figures are the launch's: the gutter and the hierarchy show the conflicts the
    // report lists for it, the most of any launch.
    const auto& l0 = r.launches[0];
    CHECK(v.figures.total.shared_load_conflicts == l0.shared_load_conflicts);
    for (const auto& l : r.launches)
        CHECK(l.shared_load_conflicts + l.shared_store_conflicts <=
              l0.shared_load_conflicts + l0.shared_store_conflicts);
    CHECK(v.figures.total.bank_conflicts() > 1000);
    // The shared view opens on the first conflict, which --find conflict also finds.
    const FirstPicture p = first_picture(v, 0, "shared");
    REQUIRE(p.step >= 0);
    CHECK(p.step == find_step(v, 0, "conflict"));
    const auto access =
        shared_access_at(v.trace(), v.model.detail_blocks()[0].begin + std::size_t(p.step));
    REQUIRE(access.valid);
    CHECK(access.cost.conflicts() > 0);
    CHECK(access.cost.wavefronts == 32);  // a column of a [32][32] tile: one bank, 32 words
    CHECK(p.caption.find("32 wavefronts") != std::string::npos);
    // Both matrices are drawn in their shapes: `in` 72 x 200, `out` 200 x 72.
    int shaped = 0;
    for (const auto& region : v.memory.regions) {
        if (region.name == "in") {
            CHECK(region.shape_rows == 72);
            CHECK(region.shape_cols == 200);
            ++shaped;
        }
        if (region.name == "out") {
            CHECK(region.shape_rows == 200);
            CHECK(region.shape_cols == 72);
            ++shaped;
        }
    }
    CHECK(shaped == 2);

    // Asking for another launch shows that one.
    CheckOutcome third = run_lesson("07-transpose", "lessons/07-transpose/wrong/unpadded.cu", 2);
    CHECK(third.launch == 2);
    REQUIRE(third.views);
    CHECK(third.views->grid.blocks == 2);  // 45 x 1: two tiles side by side
}

TEST_CASE("lesson 07's shipped exercise: the store check fails on launch 1, whose stores are a "
          "vertical stripe") {
    CheckOutcome o = run_lesson("07-transpose", "");
    const lessons::CheckResult* stores =
        find_check(o.report, "global stores: sectors moved per sector needed");
    REQUIRE(stores);
    CHECK_FALSE(stores->passed);
    CHECK(stores->launch == 0);  // the launch that wastes the most store sectors
    REQUIRE(o.views);
    CHECK(o.launch == 0);
    const TraceViews& v = *o.views;
    CHECK(v.figures.total.global_store_sectors == o.report.launches[0].store_sectors);
    // The memory view opens on a store whose 32 lanes land in one column of `out`: 32 rows, 32
    // sectors.
    const FirstPicture p = first_picture(v, 0, "memory");
    REQUIRE(p.step >= 0);
    const AccessView a =
        access_at(v.trace(), v.memory, v.model.detail_blocks()[0].begin + std::size_t(p.step));
    REQUIRE(a.valid);
    CHECK(a.op == MemOp::store);
    CHECK(a.cost.sectors == 32);
    REQUIRE(a.region >= 0);
    const MemoryRegion& out = v.memory.regions[std::size_t(a.region)];
    CHECK(out.name == "out");
    REQUIRE(out.shaped());
    std::set<std::uint64_t> cols, rows;
    for (int l = 0; l < 32; ++l) {
        const std::uint64_t e = (a.address[std::size_t(l)] - out.first_address) / 4;
        rows.insert(e / out.shape_cols);
        cols.insert(e % out.shape_cols);
    }
    CHECK(cols.size() == 1);   // one column ...
    CHECK(rows.size() == 32);  // ... 32 rows long: the stripe the lesson's text describes
    CHECK(p.caption.find("32 sectors") != std::string::npos);
}

TEST_CASE("lesson 03's exercise: the views show the image the checks measured, with the gutter's "
          "figure") {
    CheckOutcome o = run_lesson("03-matrix-2d", "");
    const lessons::CheckResult* loads =
        find_check(o.report, "global loads: sectors moved per sector needed");
    REQUIRE(loads);
    CHECK_FALSE(loads->passed);
    CHECK(loads->launch == 0);  // the 200 x 70 image wastes the most sectors
    REQUIRE(o.views);
    CHECK(o.launch == 0);
    const TraceViews& v = *o.views;
    CHECK(v.grid.blocks == 21);  // 200 x 70 in 32 x 32 blocks: 7 x 3
    // The gutter's figures are that launch's, as the report lists it.
    std::uint64_t requests = 0, sectors = 0;
    for (const auto& lf : v.figures.lines) {
        requests += lf.figures.global_load_requests;
        sectors += lf.figures.global_load_sectors;
    }
    CHECK(requests == o.report.launches[0].load_requests);
    CHECK(sectors == o.report.launches[0].load_sectors);
    for (const auto& region : v.memory.regions) {
        CHECK(region.shaped());
        CHECK(region.shape_rows == 70);
        CHECK(region.shape_cols == 200);
        CHECK(region.shape_kind == lessons::ShapeKind::image);
    }
    // The memory view opens on a request down a column: 32 lanes, 32 sectors.
    const FirstPicture p = first_picture(v, 0, "memory");
    REQUIRE(p.step >= 0);
    const AccessView a =
        access_at(v.trace(), v.memory, v.model.detail_blocks()[0].begin + std::size_t(p.step));
    CHECK(a.cost.sectors == 32);
    CHECK(__builtin_popcount(a.mask) == 32);
}

TEST_CASE("lesson 08's hierarchy follows the launch its loads check names") {
    CheckOutcome o = run_lesson("08-matmul-tiled", "solution");
    CHECK(o.report.passed);
    REQUIRE(o.report.launches.size() >= 5);
    const lessons::CheckResult* loads =
        find_check(o.report, "global loads per FMA, worst launch against its bound");
    REQUIRE(loads);
    REQUIRE(loads->launch >= 0);
    // all pass: the launch the performance check measured
    CHECK(o.report.focus_launch() == loads->launch);
    REQUIRE(o.views);
    CHECK(o.launch == loads->launch);
    CHECK(o.views->hierarchy.load_requests ==
          o.report.launches[std::size_t(o.launch)].load_requests);
}

TEST_CASE("lesson 04: the warps view and --find divergence land where a warp runs split") {
    CheckOutcome o = run_lesson("04-divergence", "");
    REQUIRE(o.views);
    const TraceViews& v = *o.views;
    const std::int64_t split = find_step(v, 0, "divergence");
    REQUIRE(split > 0);
    const WarpEvent& e = event_at(v, split);
    CHECK(e.kind != EventKind::barrier_release);
    const auto warps = v.model.warps_at(0, split);
    const WarpState& w = warps[e.warp];
    // Some of the warp's live lanes run, the others wait on the other side of the branch.
    CHECK(__builtin_popcount(e.active) > 0);
    CHECK(__builtin_popcount(e.active) < __builtin_popcount(w.lanes & ~w.exited));
    CHECK(w.lane(__builtin_ctz(~e.active & w.lanes & ~w.exited)) == LaneState::masked);
    // The step before it in the same warp was the branch that split it.
    const FirstPicture p = first_picture(v, 0, "warps");
    CHECK(p.step == split);
    CHECK(p.caption.find("split") != std::string::npos);
}

TEST_CASE("lesson 10: the histogram's bins are a heat map of 8 rows of 32, the image 2D") {
    CheckOutcome o = run_lesson("10-histogram", "");
    REQUIRE(o.views);
    const TraceViews& v = *o.views;
    CHECK(o.launch == 2);  // 401 x 250, the measured launch
    bool bins = false, pixels = false;
    for (const auto& region : v.memory.regions) {
        if (region.shape_kind == lessons::ShapeKind::bins) {
            bins = true;
            CHECK(region.shape_rows == 8);
            CHECK(region.shape_cols == 32);
            CHECK(region.element_bytes == 4);
            CHECK(region.max_touches > 1);  // some bins are hit again and again
        } else if (region.element_bytes == 1) {
            pixels = true;
            CHECK(region.shape_rows == 250);
            CHECK(region.shape_cols == 401);
            CHECK(region.index_of(region.first_address) == 0);
        }
    }
    CHECK(bins);
    CHECK(pixels);
}

TEST_CASE(
    "find_step: divergence is the instruction after the splitting branch, kinds are checked") {
    TraceBuilder b(1, 64);
    b.add(0, 0, 0, EventKind::instruction, kAll);
    b.add(0, 1, 0, EventKind::instruction, kAll);
    WarpEvent& br = b.add(0, 0, 2, EventKind::branch, kAll);
    br.taken = 0x0000ffffu;                               // half the lanes jump
    b.add(0, 1, 0, EventKind::instruction, kAll);         // another warp in between
    b.add(0, 0, 3, EventKind::instruction, 0x0000ffffu);  // warp 0 runs one side: the split
    b.add(0, 0, 0, EventKind::instruction, 0xffff0000u);
    auto v = build_trace_views(b.t, "", nullptr);
    CHECK(find_step(*v, 0, "divergence") == 4);
    CHECK(find_step(*v, 0, "barrier") == -1);
    CHECK(find_step(*v, 0, "nonsense") == -1);
    CHECK(find_step(*v, 7, "divergence") == -1);  // no such block
    CHECK_FALSE(is_step_kind("nonsense"));
    const FirstPicture p = first_picture(*v, 0, "warps");
    CHECK(p.step == 4);
    CHECK(p.caption.find("16 lanes while 16 wait") != std::string::npos);
    // A view of a kernel without barriers says so instead of opening on nothing.
    CHECK(first_picture(*v, 0, "timeline").caption.find("No barrier") != std::string::npos);
}

TEST_CASE("every lesson picture in docs/images/lessons shows what pictures.tsv says it must") {
    lessons::Course course;
    REQUIRE(lessons::load_course(lessons::find_course_root(), &course).ok());
    const fs::path dir = fs::path(course.root) / "docs" / "images" / "lessons";
    std::ifstream table(dir / "pictures.tsv");
    REQUIRE(table.good());
    std::map<std::string, CheckOutcome> outcomes;  // one check per lesson and source
    std::set<std::string> lessons_pictured;
    std::string row;
    int pictures = 0;
    while (std::getline(table, row)) {
        if (row.empty() || row[0] == '#') continue;
        std::istringstream in(row);
        std::string lesson, view, source, expect;
        std::getline(in, lesson, '\t');
        std::getline(in, view, '\t');
        std::getline(in, source, '\t');
        std::getline(in, expect);
        INFO("pictures.tsv: " << row);
        ++pictures;
        lessons_pictured.insert(lesson);
        REQUIRE(course.find(lesson));
        const bool file = source.size() > 3 && source.substr(source.size() - 3) == ".cu";
        REQUIRE((source == "exercise" || source == "solution" ||
                 (file && fs::exists(fs::path(course.root) / source))));
        const std::string name = file ? fs::path(source).stem().string() : source;
        CHECK(fs::exists(dir / (lesson + "-" + view + "-" + name + ".png")));
        const std::string key = lesson + "/" + source;
        if (!outcomes.count(key))
            outcomes.emplace(key, run_lesson(lesson, source == "exercise" ? "" : source));
        const CheckOutcome& o = outcomes.at(key);
        REQUIRE(o.views);
        const TraceViews& v = *o.views;
        const FirstPicture p = first_picture(v, 0, view);
        const auto& block = v.model.detail_blocks().at(0);
        const AccessView access =
            p.step >= 0 ? access_at(v.trace(), v.memory, block.begin + std::size_t(p.step))
                        : AccessView{};
        const auto shared = p.step >= 0
                                ? shared_access_at(v.trace(), block.begin + std::size_t(p.step))
                                : SharedAccessView{};
        std::istringstream pairs(expect);
        std::string pair;
        while (pairs >> pair) {
            const std::string name = pair.substr(0, pair.find('=')),
                              want = pair.substr(pair.find('=') + 1);
            INFO("expecting " << pair << "; caption: " << p.caption);
            if (name == "launch") CHECK(std::to_string(o.launch + 1) == want);
            else if (name == "blocks") CHECK(std::to_string(v.grid.blocks) == want);
            else if (name == "split")
                CHECK((find_step(v, 0, "divergence") >= 0 ? "yes" : "no") == want);
            else if (name == "active") {
                REQUIRE(p.step >= 0);
                CHECK(std::to_string(__builtin_popcount(
                          v.model.event(0, std::size_t(p.step)).active)) == want);
            } else if (name == "op") {
                REQUIRE(access.valid);
                CHECK((access.op == MemOp::load    ? "load"
                       : access.op == MemOp::store ? "store"
                                                   : "atomic") == want);
            } else if (name == "sectors") {
                REQUIRE(access.valid);
                CHECK(std::to_string(access.cost.sectors) == want);
            } else if (name == "region") {
                REQUIRE(access.region >= 0);
                CHECK(v.memory.regions[std::size_t(access.region)].name == want);
            } else if (name == "lit") {
                REQUIRE(access.region >= 0);
                const MemoryRegion& r = v.memory.regions[std::size_t(access.region)];
                REQUIRE(r.shaped());
                std::set<std::uint64_t> rows, cols;
                for (int l = 0; l < 32; ++l)
                    if (access.mask >> l & 1) {
                        const std::uint64_t e =
                            (access.address[std::size_t(l)] - r.first_address) / r.element_bytes;
                        rows.insert(e / r.shape_cols);
                        cols.insert(e % r.shape_cols);
                    }
                CHECK(std::to_string(rows.size()) + "x" + std::to_string(cols.size()) == want);
            } else if (name == "wavefronts") {
                REQUIRE(shared.valid);
                CHECK(std::to_string(shared.cost.wavefronts) == want);
            } else if (name == "shared") CHECK((v.shared.used ? "yes" : "no") == want);
            else if (name == "barriers") CHECK(std::to_string(block.barrier_steps.size()) == want);
            else if (name == "occupancy")
                CHECK(std::to_string(int(std::lround(v.hierarchy.occupancy.occupancy * 100))) ==
                      want);
            else FAIL("unknown expectation " << name);
        }
    }
    // Program lessons (Part IV) have no kernel views to picture.
    int kernel_lessons = 0;
    for (const auto& l : course.lessons) kernel_lessons += !l.is_program();
    CHECK(pictures >= 2 * kernel_lessons);
    CHECK(int(lessons_pictured.size()) == kernel_lessons);  // every kernel lesson has its pictures
}

TEST_CASE("header: the status never reaches the actions, at any width") {
    const std::vector<std::string> chips = {
        "\xE2\x9C\x97 3 of 5 checks failed \xC2\xB7 passed before, fails now",
        "\xE2\x9C\x97 3 of 5 checks failed", "\xE2\x9C\x97 3/5 failed"};
    const std::vector<std::string> details = {
        "emu \xC2\xB7 compile cached (812 ms when compiled) \xC2\xB7 checked in 95 ms",
        "emu \xC2\xB7 checked in 95 ms", "emu"};
    const auto chip_w = [](const std::string& t) { return 7.5f * float(t.size()) + 16; };
    const auto text_w = [](const std::string& t) { return 7.0f * float(t.size()); };
    int last_chip = -2, last_detail = -2;
    for (float room = 0; room <= 1200; room += 1) {
        const auto f = viewmodel::fit_header_status(chips, details, room, chip_w, text_w, 6);
        float w = 0;
        if (f.chip >= 0) w += chip_w(chips[std::size_t(f.chip)]);
        if (f.detail >= 0) {
            REQUIRE(f.chip >= 0);  // a detail only beside its verdict
            w += 6 + text_w(details[std::size_t(f.detail)]);
        }
        CHECK(w <= room);
        CHECK(f.width == doctest::Approx(w));
        // More room never shows less.
        if (last_chip >= 0) CHECK((f.chip >= 0 && f.chip <= last_chip));
        last_chip = f.chip;
        last_detail = f.detail;
    }
    CHECK(last_chip == 0);
    CHECK(last_detail == 0);
    // The shortest chip fits where the window is narrowest (the picker leaves it 140 px at scale
    // 1).
    CHECK(viewmodel::fit_header_status(chips, details, 140, chip_w, text_w, 6).chip == 2);
    CHECK(viewmodel::fit_header_status(chips, details, 10, chip_w, text_w, 6).chip == -1);
}

TEST_CASE("the code panel marks the lines a run's failures name, and only those") {
    lessons::CheckReport report;
    report.status = Status{};
    lessons::CheckResult fault;
    fault.name = "c = a + b";
    fault.passed = false;
    fault.message = "exercises/02-vector-add.cu:12: error: out-of-bounds store in kernel 'add': "
                    "block 3, thread 17\n  launched at 02-vector-add.cu:40";
    lessons::CheckResult other_file;
    other_file.name = "helper";
    other_file.passed = false;
    other_file.message = "lessons/02-vector-add/helper.cu:7: error: not the learner's file; "
                         "my02-vector-add.cu:9 is not it either";
    lessons::CheckResult passed;
    passed.name = "passes";
    passed.passed = true;
    passed.message = "02-vector-add.cu:99: a passing check names no fault";
    report.checks = {fault, other_file, passed};
    const auto lines = viewmodel::fault_lines(report, "/home/me/course/exercises/02-vector-add.cu");
    REQUIRE(lines.size() == 2);
    CHECK(lines[0].line == 12);
    CHECK(lines[0].message.rfind("error: out-of-bounds store", 0) == 0);
    CHECK(lines[1].line == 40);
    CHECK(lines[1].message.find("launched at") != std::string::npos);
    // A compile error's lines are the compiler's diagnostics, not these.
    report.status = Status::error(StatusCode::compile_error, "exercises/02-vector-add.cu:5: error");
    CHECK(viewmodel::fault_lines(report, "exercises/02-vector-add.cu").empty());
}

#endif  // CUDALAB_HAVE_GUI_MODEL
