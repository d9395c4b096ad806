// Program lessons (lessons/program_lesson.h): lesson 14's whole program is built with nvcc and run
// on the emulated runtime; its checks read the exit code, out.bin and the timeline.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "../lessons/17-unified-memory/gpu_paging.h"
#include "lessons/course.h"
#include "lessons/program_lesson.h"
#include "programs/build.h"
#include "programs/cupti/cupti_records.h"
#include "report/report.h"
#include "support.h"

namespace fs = std::filesystem;
using namespace cudalab;
using namespace cudalab::lessons;

namespace {

const CheckResult* find_check(const CheckReport& r, const std::string& name) {
    for (const auto& c : r.checks)
        if (c.name == name) return &c;
    return nullptr;
}

// A run on a GPU as the lesson sees it: its timeline made by the CUPTI library's conversion from
// unified memory records made by hand (no GPU here), written and kept as the session keeps it.
struct UmTimeline {
    std::vector<programs::TimelineEvent> events;
    programs::TimelineNames names;
    programs::cupti::ManagedAllocations managed;

    void add(CUpti_ActivityUnifiedMemoryCounterKind kind, std::uint64_t value, std::uint32_t flags,
             std::uint64_t start, int times = 1) {
        for (int i = 0; i < times; ++i) {
            CUpti_ActivityUnifiedMemoryCounter3 u{};
            u.kind = CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER;
            u.counterKind = kind;
            u.value = value;
            u.address = 0x7f0000000000ull + std::uint64_t(i) * 65536;
            const bool to_device =
                kind == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD;
            u.srcId = to_device ? CUPTI_UNIFIED_MEMORY_CPU_DEVICE_ID : 0;
            u.dstId = to_device ? 0 : CUPTI_UNIFIED_MEMORY_CPU_DEVICE_ID;
            u.flags = flags;
            u.start = start + std::uint64_t(i) * 10;
            u.end = u.start + 5;
            if (auto e = programs::cupti::to_event(reinterpret_cast<CUpti_Activity*>(&u), nullptr,
                                                   &names, &managed))
                events.push_back(*e);
        }
    }
    void kernel(std::uint64_t start) {
        programs::TimelineEvent k;
        k.name = "mix_kernel";
        k.category = "kernel";
        k.pid = 1;
        k.tid = 7;
        k.start_ns = start;
        k.end_ns = start + 50000;
        events.push_back(k);
    }
    ProgramRun run(const std::string& availability) {
        programs::cupti::place_page_moves(events, managed);
        ProgramRun r;
        r.completed = true;
        r.exit_code = 0;
        r.backend = "gpu";
        r.timeline = events;
        r.timeline_written = true;
        r.timeline_text =
            programs::timeline_json(events, names,
                                    programs::cupti::unified_memory_summary(events, availability))
                .dump();
        return r;
    }
};

const CheckResult* find_check(const std::vector<CheckResult>& checks, const std::string& name) {
    for (const auto& c : checks)
        if (c.name == name) return &c;
    return nullptr;
}

}  // namespace

TEST_CASE("program lessons: interval arithmetic of the timeline checks") {
    auto m = merge_intervals({{5, 7}, {0, 2}, {1, 3}, {10, 10}});
    REQUIRE(m.size() == 2);
    CHECK(m[0].start == 0);
    CHECK(m[0].end == 3);
    CHECK(covered({2, 6}, m) == doctest::Approx(2.0));  // [2,3) and [5,6)
    CHECK(covered({8, 9}, m) == 0);
}

TEST_CASE("program lessons: 17-unified-memory bounds the migrations CUPTI counted on a GPU, "
          "reports the page faults, and says when they were not counted") {
    namespace um = cudalab::lessons::unified_memory;
    const std::string migrations = "page migrations on demand on the GPU";
    const auto htod = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD,
               dtoh = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH,
               gpu_fault = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT,
               cpu_fault = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT;
    const auto user = CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_USER,
               coherence = CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_COHERENCE,
               speculative = CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_PREFETCH;

    // As the solution should look: the host fills the values (CPU faults before any kernel, not
    // counted), both prefetches (not on demand), the table's first copy to the GPU on a fault.
    UmTimeline good;
    good.add(cpu_fault, 0x401000, 0, 1000, 270);
    good.add(htod, 917504, user, 50000);
    good.kernel(100000);
    good.add(gpu_fault, 1, CUPTI_ACTIVITY_UNIFIED_MEMORY_ACCESS_TYPE_READ, 100400);
    good.add(htod, 16384, coherence, 100500);
    good.add(dtoh, 917504, user, 900000);
    good.add(cpu_fault, 0x401000, 0, 950000, 2);
    const ProgramRun solution = good.run("measured");
    const um::GpuPaging p = um::gpu_paging(solution);
    CHECK(p.measured);
    CHECK(p.to_device_bytes == 16384);
    CHECK(p.to_host_bytes == 0);
    CHECK(p.prefetched_bytes == 2 * 917504);
    CHECK(p.gpu_faults == 1);
    CHECK(p.cpu_faults == 2);
    CHECK(p.cpu_faults_before == 270);
    {
        ProgramSession s("", fs::temp_directory_path().string(), "gpu", 1, 0);
        CHECK(um::check_gpu_paging(s, solution, true));
        REQUIRE(s.checks().size() == 1);
        const CheckResult* m = find_check(s.checks(), migrations);
        REQUIRE(m);
        CHECK(m->passed);
        CHECK(m->value == doctest::Approx(16.0));  // KiB
        CHECK(m->threshold == um::kGpuOnDemandKiB);
        CHECK(m->message.find("16 KiB moved on demand") != std::string::npos);
        // The faults are reported in the message, not bounded.
        CHECK(m->message.find("1 GPU page faults and 2 CPU page faults") != std::string::npos);
        CHECK(m->message.find("270 CPU page faults before it") != std::string::npos);
    }

    // As the shipped exercise: the GPU's share over on faults and back on the host's, the table
    // and the split's page every round.
    UmTimeline bad;
    bad.add(cpu_fault, 0x401000, 0, 1000, 270);
    bad.kernel(100000);
    bad.add(gpu_fault, 1, CUPTI_ACTIVITY_UNIFIED_MEMORY_ACCESS_TYPE_WRITE, 100100, 120);
    bad.add(htod, 65536, coherence, 101000, 14);
    bad.add(htod, 65536, speculative, 102000, 4);
    bad.add(dtoh, 65536, coherence, 300000, 16);
    bad.add(cpu_fault, 0x401000, 0, 300000, 230);
    {
        ProgramSession s("", fs::temp_directory_path().string(), "gpu", 1, 0);
        CHECK(um::check_gpu_paging(s, bad.run("measured"), true));
        const CheckResult* m = find_check(s.checks(), migrations);
        REQUIRE(m);
        CHECK_FALSE(m->passed);
        CHECK(m->value == doctest::Approx(34.0 * 64));  // the speculative ones count too
        CHECK(m->advice.find("cudaMemPrefetchAsync") != std::string::npos);
        CHECK(m->message.find("120 GPU page faults and 230 CPU page faults") != std::string::npos);
    }

    // CUPTI could not count (a virtual machine, say): no GPU checks, the log says why; the
    // emulated runtime's count is the bound (the lesson's own check says so).
    {
        UmTimeline none;
        none.kernel(100000);
        const ProgramRun r = none.run("not available: cuptiActivityConfigureUnifiedMemoryCounter: "
                                      "CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED (at cuInit)");
        CHECK_FALSE(um::gpu_paging(r).measured);
        CHECK(um::gpu_paging(r).why_not.find("UM_PROFILING_NOT_SUPPORTED") != std::string::npos);
        ProgramSession s("", fs::temp_directory_path().string(), "gpu", 1, 0);
        CHECK_FALSE(um::check_gpu_paging(s, r, true));
        CHECK(s.checks().empty());
        CHECK_FALSE(s.failed());
        REQUIRE(s.log().size() == 1);
        CHECK(s.log()[0].find("not measured") != std::string::npos);
        // A timeline that does not say (an older CUPTI library) is not taken as measured.
        ProgramRun old = r;
        old.timeline_text = R"j({"traceEvents":[],"otherData":{"clock":"CUPTI (GPU)"}})j";
        CHECK_FALSE(um::gpu_paging(old).measured);
    }

    // A wrong result: the checks are there, failed, "not measured". No timeline (the run did not
    // exit normally, or no CUPTI library): no checks, a line in the log.
    {
        ProgramSession s("", fs::temp_directory_path().string(), "gpu", 1, 0);
        um::check_gpu_paging(s, solution, false);
        REQUIRE(s.checks().size() == 1);
        for (const auto& c : s.checks()) {
            CHECK_FALSE(c.passed);
            CHECK_FALSE(c.measured);
        }
        ProgramRun nothing;
        nothing.completed = true;
        nothing.exit_code = 0;
        ProgramSession t("", fs::temp_directory_path().string(), "gpu", 1, 0);
        CHECK_FALSE(um::check_gpu_paging(t, nothing, true));
        CHECK(t.checks().empty());
        REQUIRE(t.log().size() == 1);
        CHECK(t.log()[0].find("wrote no timeline") != std::string::npos);
    }
}

TEST_CASE("program lessons: 17-unified-memory's timeline on the emulated runtime has a page event "
          "for every page its counters count, freed allocations' included") {
    if (!test_support::have_nvcc()) return;
    Course course;
    REQUIRE(load_course(find_course_root(), &course).ok());
    const LessonInfo* l = course.find("17-unified-memory");
    REQUIRE(l);
    compiler::Compiler compiler;
    CheckOptions o;
    o.backend = "emu";
    o.seed = 17;
    // The exercise: its last moves (the checksum's host touches) happen just before it frees the
    // values, so the allocation is gone when the runtime would put them on the timeline at exit.
    CheckReport ex = check_lesson(course, *l, o, compiler);
    REQUIRE_MESSAGE(ex.status.ok(), ex.status.message);
    const nlohmann::json t = nlohmann::json::parse(ex.program_timeline, nullptr, false);
    REQUIRE(t.is_object());
    std::uint64_t to_device = 0, to_host = 0;
    for (const auto& e : t["traceEvents"])
        if (e.value("cat", "") == "page" && e["args"].value("cause", "") != "prefetch")
            (e["args"].value("to", "") == "device" ? to_device : to_host) +=
                e["args"].value("pages", std::uint64_t(0));
    const auto& other = t["otherData"];
    CHECK(other["managed_host_to_device_pages"].get<std::uint64_t>() > 200);
    CHECK(to_device == other["managed_host_to_device_pages"].get<std::uint64_t>());
    CHECK(to_host == other["managed_device_to_host_pages"].get<std::uint64_t>());
}

TEST_CASE(
    "program lessons: 14-streams passes the pipeline, fails the serial exercise and a cheat") {
    if (!test_support::have_nvcc()) return;
    Course course;
    REQUIRE(load_course(find_course_root(), &course).ok());
    const LessonInfo* l = course.find("14-streams");
    REQUIRE(l);
    CHECK(l->is_program());
    compiler::Compiler compiler;
    CheckOptions o;
    o.backend = "emu";
    o.seed = 1414;
    o.solution = true;
    CheckReport sol = check_lesson(course, *l, o, compiler);
    REQUIRE_MESSAGE(sol.status.ok(), sol.status.message);
    for (const auto& c : sol.checks) CHECK_MESSAGE(c.passed, c.name << ": " << c.message);
    CHECK(sol.backend == "emu");
    const CheckResult* h2d = find_check(sol, "host-to-device copies overlap kernels");
    REQUIRE(h2d);
    CHECK(h2d->value >= 0.5);
    CHECK(h2d->value < 1.0);  // the first chunk's copy in can never be hidden

    o.solution = false;
    CheckReport ex = check_lesson(course, *l, o, compiler);
    REQUIRE_MESSAGE(ex.status.ok(), ex.status.message);
    CHECK_FALSE(ex.passed);
    CHECK(find_check(ex, "out.bin is right for a large input")->passed);  // correct, but serial
    const CheckResult* pageable = find_check(ex, "no copies from or to pageable memory");
    REQUIRE(pageable);
    CHECK_FALSE(pageable->passed);
    CHECK(pageable->value == 2);
    CHECK(find_check(ex, "device-to-host copies overlap kernels")->value == 0);

    // The reports carry a program lesson like a kernel lesson.
    nlohmann::json j = report::json(ex);
    CHECK(j["lesson"] == "14-streams");
    CHECK(j["checks"].size() == sol.checks.size());
    CHECK(report::junit({ex}).find("failures=") != std::string::npos);
    CHECK(report::gradescope({ex})["tests"].size() == sol.checks.size());
    CHECK(report::text(ex).find("pageable") != std::string::npos);

    // A program that computes the wrong values: correctness fails, the figures are "not measured".
    fs::path dir = test_support::temp_dir() / "lesson14-wrong";
    fs::create_directories(dir);
    std::string wrong = test_support::read_file(l->solution_path);
    const std::string round = "r < 256;";
    REQUIRE(wrong.find(round) != std::string::npos);
    wrong.replace(wrong.find(round), round.size(), "r < 255;");
    std::ofstream(dir / "wrong.cu") << wrong;
    o.source_path = (dir / "wrong.cu").string();
    CheckReport bad = check_lesson(course, *l, o, compiler);
    REQUIRE_MESSAGE(bad.status.ok(), bad.status.message);
    CHECK_FALSE(find_check(bad, "out.bin is right for a small input")->passed);
    CHECK_FALSE(find_check(bad, "host-to-device copies overlap kernels")->measured);

    // A compile error is a compile error, with the learner's path and line.
    std::ofstream(dir / "broken.cu") << "int main() { return undeclared_name; }\n";
    o.source_path = (dir / "broken.cu").string();
    CheckReport broken = check_lesson(course, *l, o, compiler);
    CHECK(broken.status.code == StatusCode::compile_error);
    CHECK(broken.status.message.find("undeclared_name") != std::string::npos);
    REQUIRE_FALSE(broken.diagnostics.empty());
    CHECK(broken.diagnostics[0].line == 1);
    CHECK(broken.checks.size() == sol.checks.size());  // filled out from the solution's list

    // A program that hangs is stopped at the time limit and fails with that reason.
    std::ofstream(dir / "hang.cu") << "int main() { for (;;) {} }\n";
    o.source_path = (dir / "hang.cu").string();
    o.time_limit_seconds = 2;
    CheckReport hang = check_lesson(course, *l, o, compiler);
    REQUIRE_MESSAGE(hang.status.ok(), hang.status.message);
    CHECK_FALSE(hang.passed);
    CHECK(
        find_check(hang, "out.bin is right for a small input")->message.find("wall-clock limit") !=
        std::string::npos);
}

TEST_CASE("program lessons: 02b-host-program finds missing copies and leaked device memory") {
    if (!test_support::have_nvcc()) return;
    Course course;
    REQUIRE(load_course(find_course_root(), &course).ok());
    const LessonInfo* l = course.find("02b-host-program");
    REQUIRE(l);
    compiler::Compiler compiler;
    CheckOptions o;
    o.backend = "emu";
    o.seed = 2;
    CheckReport ex = check_lesson(course, *l, o, compiler);
    REQUIRE_MESSAGE(ex.status.ok(), ex.status.message);
    const CheckResult* leak = find_check(ex, "every device allocation is freed");
    REQUIRE(leak);
    CHECK_FALSE(leak->passed);
    CHECK(leak->value == 3);  // d_a, d_b, d_c
    CHECK(ex.checks.front().message.find("values of c are wrong") != std::string::npos);

    // The solution with one cudaFree taken out: right result, one leak.
    std::string text = test_support::read_file(l->solution_path);
    const std::string free_c = "CHECK(cudaFree(d_c));";
    REQUIRE(text.find(free_c) != std::string::npos);
    text.erase(text.find(free_c), free_c.size());
    fs::path dir = test_support::temp_dir() / "lesson02b";
    fs::create_directories(dir);
    std::ofstream(dir / "leaky.cu") << text;
    o.source_path = (dir / "leaky.cu").string();
    CheckReport leaky = check_lesson(course, *l, o, compiler);
    REQUIRE_MESSAGE(leaky.status.ok(), leaky.status.message);
    CHECK(find_check(leaky, "c = a + b for a larger n")->passed);
    const CheckResult* one = find_check(leaky, "every device allocation is freed");
    CHECK(one->value == 1);
    // It says where the leaked buffer was allocated.
    CHECK_MESSAGE(one->message.find("allocated at leaky.cu:") != std::string::npos, one->message);

    // A program that gives up at an error leaks its buffers with it: the leak check does not pile
    // on, and the failed run's message holds the program's line, not the leak note.
    std::string early = test_support::read_file(l->solution_path);
    early.replace(early.find(free_c), free_c.size(),
                  "fprintf(stderr, \"giving up early\\n\"); return 2;");
    std::ofstream(dir / "early.cu") << early;
    o.source_path = (dir / "early.cu").string();
    CheckReport gave_up = check_lesson(course, *l, o, compiler);
    REQUIRE_MESSAGE(gave_up.status.ok(), gave_up.status.message);
    const CheckResult* larger = find_check(gave_up, "c = a + b for a larger n");
    CHECK_FALSE(larger->passed);
    CHECK_MESSAGE(larger->message.find("its stderr: giving up early") != std::string::npos,
                  larger->message);
    CHECK_MESSAGE(larger->message.find("never freed") == std::string::npos, larger->message);
    const CheckResult* none = find_check(gave_up, "every device allocation is freed");
    CHECK_FALSE(none->passed);
    CHECK_MESSAGE(none->message.find("not checked: the program exited with status 2") !=
                      std::string::npos,
                  none->message);
}

// [SECTION] the emulated runtime's figures that lessons 13, 15 and 19 read

namespace {

// A program built with nvcc into `dir`, run once on the emulated runtime through a session.
struct BuiltProgram {
    std::string executable;
    std::string error;
};

BuiltProgram build(const fs::path& dir, const std::string& source) {
    fs::create_directories(dir);
    std::ofstream(dir / "prog.cu") << source;
    programs::BuildRequest req;
    req.inputs = {(dir / "prog.cu").string()};
    req.cwd = dir.string();
    req.limits = programs::default_build_limits();
    programs::BuildResult r = programs::build_program(req);
    return {r.ok() ? r.executable : "", r.ok() ? "" : r.message + "\n" + r.log};
}

const nlohmann::json* kernel_entry(const ProgramRun& run, const std::string& name) {
    if (!run.runtime.is_object() || !run.runtime.contains("kernels")) return nullptr;
    for (const auto& k : run.runtime["kernels"])
        if (k["name"] == name) return &k;
    return nullptr;
}

}  // namespace

TEST_CASE("program lessons: the emulated runtime counts constant-cache requests per kernel, "
          "broadcast and serialised") {
    if (!test_support::have_nvcc()) return;
    const fs::path dir = test_support::temp_dir() / "constant-requests";
    BuiltProgram p = build(dir, R"(
#include <cstdio>
__constant__ float c[64];
__global__ void broadcast(float* out) { out[threadIdx.x] = c[blockIdx.x]; }
__global__ void per_lane(float* out) { out[threadIdx.x] = c[threadIdx.x % 8] + c[threadIdx.x]; }
int main() {
    float h[64];
    for (int i = 0; i < 64; ++i) h[i] = float(i);
    cudaMemcpyToSymbol(c, h, sizeof h);
    float* d;
    cudaMalloc(&d, 64 * sizeof(float));
    broadcast<<<2, 64>>>(d);   // 4 warps, one load each: 1 request each
    per_lane<<<1, 64>>>(d);    // 2 warps, two loads each: 8 and 32 requests
    per_lane<<<1, 64>>>(d);    // traced too (a kernel's first two launches are)
    per_lane<<<1, 64>>>(d);    // not traced: counted in launches only
    float back[64];
    cudaMemcpy(back, d, sizeof back, cudaMemcpyDeviceToHost);
    cudaFree(d);
    std::printf("%g\n", back[9]);
    return 0;
}
)");
    REQUIRE_MESSAGE(!p.executable.empty(), p.error);
    ProgramSession session(p.executable, dir.string(), "emu", 1, 60);
    const ProgramRun& run = session.run({});
    REQUIRE_MESSAGE(run.ok(), run.failure << run.err);
    CHECK(run.out == "10\n");  // c[1] + c[9]
    const nlohmann::json* b = kernel_entry(run, "broadcast");
    const nlohmann::json* l = kernel_entry(run, "per_lane");
    REQUIRE(b);
    REQUIRE(l);
    CHECK((*b)["constant_loads"] == 4);
    CHECK((*b)["constant_requests"] == 4);
    CHECK((*l)["launches"] == 3);
    CHECK((*l)["traced_launches"] == 2);
    CHECK((*l)["constant_loads"] == 8);  // 2 launches x 2 warps x 2 loads
    CHECK((*l)["constant_requests"] == 2 * 2 * (8 + 32));
    CHECK((*l)["global_load_requests"] == 0);
    CHECK(run.runtime["memory"]["peak_device_bytes"] == 256);
}

TEST_CASE("program lessons: a captured graph's DAG is in the timeline, captured allocations are "
          "graph memory, an unjoined fork fails") {
    if (!test_support::have_nvcc()) return;
    const fs::path dir = test_support::temp_dir() / "graph-dag";
    BuiltProgram p = build(dir, R"(
#include <cstdint>
#include <cstdio>
__global__ void add(int* v, int k) { v[threadIdx.x] += k; }
__global__ void copy(int* dst, const int* src) { dst[threadIdx.x] = src[threadIdx.x]; }
int main() {
    int* v;
    cudaMalloc(&v, 32 * sizeof(int));
    cudaMemset(v, 0, 32 * sizeof(int));
    cudaStream_t a, b;
    cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking);
    cudaEvent_t fork, join;
    cudaEventCreate(&fork);
    cudaEventCreate(&join);
    cudaGraph_t g;
    cudaGraphExec_t e;
    cudaStreamBeginCapture(a, cudaStreamCaptureModeGlobal);
    int* tmp;
    cudaMallocAsync(&tmp, 32 * sizeof(int), a);       // node 0: alloc
    copy<<<1, 32, 0, a>>>(tmp, v);                    // node 1
    cudaEventRecord(fork, a);
    cudaStreamWaitEvent(b, fork, 0);
    add<<<1, 32, 0, a>>>(v, 1);                       // branch in a
    add<<<1, 32, 0, b>>>(tmp, 2);                     // branch in b
    cudaEventRecord(join, b);
    cudaStreamWaitEvent(a, join, 0);
    add<<<1, 32, 0, a>>>(v, 3);
    cudaFreeAsync(tmp, a);                            // free node
    cudaStreamEndCapture(a, &g);
    cudaGraphInstantiate(&e, g, 0);
    for (int i = 0; i < 5; ++i) cudaGraphLaunch(e, a);
    cudaStreamSynchronize(a);
    int h[32];
    cudaMemcpy(h, v, sizeof h, cudaMemcpyDeviceToHost);
    // Stream-ordered allocation in a loop: a pool with the default threshold gives its memory
    // back at each synchronisation, one that keeps it does not.
    for (int round = 0; round < 2; ++round) {
        if (round == 1) {
            cudaMemPool_t pool;
            cudaDeviceGetDefaultMemPool(&pool, 0);
            std::uint64_t keep = UINT64_MAX;
            cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep);
        }
        for (int i = 0; i < 3; ++i) {
            int* s;
            cudaMallocAsync(&s, 4096, a);
            cudaFreeAsync(s, a);
            cudaStreamSynchronize(a);
        }
    }
    // A fork never joined back: CUDA ends the capture with cudaErrorStreamCaptureUnjoined.
    cudaGraph_t unjoined = nullptr;
    cudaStreamBeginCapture(a, cudaStreamCaptureModeGlobal);
    add<<<1, 32, 0, a>>>(v, 1);
    cudaEventRecord(fork, a);
    cudaStreamWaitEvent(b, fork, 0);
    add<<<1, 32, 0, b>>>(v, 2);
    cudaError_t end = cudaStreamEndCapture(a, &unjoined);
    std::printf("%d %s %s %d\n", h[0], cudaGetErrorName(end), unjoined ? "graph" : "no graph", int(cudaGetLastError() == end));
    return 0;
}
)");
    REQUIRE_MESSAGE(!p.executable.empty(), p.error);
    ProgramSession session(p.executable, dir.string(), "emu", 1, 60);
    const ProgramRun& run = session.run({});
    REQUIRE_MESSAGE(run.ok(), run.failure << run.err);
    CHECK(run.out == "20 cudaErrorStreamCaptureUnjoined no graph 1\n");  // 5 launches of +1 and +3
    const auto& memory = run.runtime["memory"];
    CHECK(memory["graph_allocations"] == 1);
    // Round 0: a reservation per step (3); round 1: one, then kept.
    CHECK(memory["pool_reservations"] == 4);
    REQUIRE(run.timeline_written);
    const programs::TimelineEvent* launch = nullptr;
    int graph_kernels = 0, node_allocs = 0, launches = 0;
    for (const auto& ev : run.timeline) {
        if (ev.pid >= 1 && ev.category == "graph") {
            launch = &ev;
            ++launches;
        }
        if (ev.pid >= 1 && ev.category == "kernel" && ev.args.contains("graph_node"))
            ++graph_kernels;
        if (ev.pid >= 1 && ev.name == "graph allocation") ++node_allocs;
    }
    REQUIRE(launch);
    CHECK(launches == 5);
    CHECK(launch->name == "graph launch (6 nodes)");
    CHECK(launch->args["graph_exec"] == 1);
    CHECK(launch->args["kernel_nodes"] == 4);
    const auto& nodes = launch->args["nodes"];
    const auto& edges = launch->args["edges"];
    REQUIRE(nodes.size() == 6);
    CHECK(nodes[0] == "memory alloc");
    CHECK(nodes[1] == "kernel copy");
    CHECK(nodes[5] == "memory free");
    // alloc -> copy -> {add a, add b} -> add -> free
    std::vector<std::pair<int, int>> got;
    for (const auto& edge : edges) got.push_back({edge[0].get<int>(), edge[1].get<int>()});
    std::sort(got.begin(), got.end());
    CHECK(got == std::vector<std::pair<int, int>>{{0, 1}, {1, 2}, {1, 3}, {2, 4}, {3, 4}, {4, 5}});
    CHECK(graph_kernels == 5 * 4);
    CHECK(node_allocs == 5);
}

TEST_CASE("program lessons: 13, 15 and 19 fail a program stopped at the time or memory limit, "
          "naming the limit") {
    if (!test_support::have_nvcc()) return;
    Course course;
    REQUIRE(load_course(find_course_root(), &course).ok());
    compiler::Compiler compiler;
    const fs::path dir = test_support::temp_dir() / "part4-limits";
    fs::create_directories(dir);
    std::ofstream(dir / "hang.cu") << "int main() { for (;;) {} }\n";
    // Device memory the emulator backs with host memory, 64 MB more every turn, never freed.
    std::ofstream(dir / "hog.cu") << R"(
int main() {
    cudaStream_t s;
    cudaStreamCreate(&s);
    for (;;) {
        void* p;
        if (cudaMallocAsync(&p, 64 << 20, s) != cudaSuccess) return 1;
        cudaMemsetAsync(p, 1, 64 << 20, s);
    }
}
)";
    for (const char* id : {"13-constant-memory", "15-cuda-graphs", "19-async-alloc"}) {
        CAPTURE(id);
        const LessonInfo* l = course.find(id);
        REQUIRE(l);
        CheckOptions o;
        o.backend = "emu";
        o.seed = 19;
        o.source_path = (dir / "hang.cu").string();
        o.time_limit_seconds = 2;
        CheckReport hang = check_lesson(course, *l, o, compiler);
        REQUIRE_MESSAGE(hang.status.ok(), hang.status.message);
        CHECK_FALSE(hang.passed);
        REQUIRE_FALSE(hang.checks.empty());
        CHECK(hang.checks.front().message.find("wall-clock limit of 2 s") != std::string::npos);
        for (const auto& c : hang.checks)
            if (c.kind == CheckKind::performance) CHECK_FALSE(c.measured);
    }
    const LessonInfo* l = course.find("19-async-alloc");
    CheckOptions o;
    o.backend = "emu";
    o.seed = 19;
    o.source_path = (dir / "hog.cu").string();
    o.memory_limit = 512ull << 20;
    CheckReport hog = check_lesson(course, *l, o, compiler);
    REQUIRE_MESSAGE(hog.status.ok(), hog.status.message);
    CHECK_FALSE(hog.passed);
    CHECK(hog.checks.front().message.find("memory limit of 512") != std::string::npos);
}

TEST_CASE("program lessons: 16-errors runs the program under injected faults and reads only the "
          "program's own stderr") {
    if (!test_support::have_nvcc()) return;
    Course course;
    REQUIRE(load_course(find_course_root(), &course).ok());
    const LessonInfo* l = course.find("16-errors");
    REQUIRE(l);
    compiler::Compiler compiler;
    CheckOptions o;
    o.backend = "emu";
    o.seed = 1616;
    CheckReport ex = check_lesson(course, *l, o, compiler);
    REQUIRE_MESSAGE(ex.status.ok(), ex.status.message);
    // The shipped exercise is right without faults and silent under each: the runtime's own
    // "cudalab:" lines name the errors, and must not count as the program's.
    CHECK(find_check(ex, "out.bin is right when nothing fails")->passed);
    for (const char* name : {"a failing cudaMalloc is named and recovered from",
                             "an invalid launch configuration is named and recovered from",
                             "an illegal address in a kernel is named and ends the program"}) {
        const CheckResult* c = find_check(ex, name);
        REQUIRE(c);
        CHECK_FALSE(c->passed);
        CHECK(c->message.find("does not name") != std::string::npos);
    }
    bool injected = false;
    for (const auto& line : ex.log)
        injected |= line.find("CUDALAB_INJECT=illegal-address:") != std::string::npos;
    CHECK(injected);

    // A program the sandbox stops fails every check with that reason, and the fault checks do not
    // pass for a program that never ran.
    fs::path dir = test_support::temp_dir() / "lesson16";
    fs::create_directories(dir);
    std::ofstream(dir / "hang.cu") << "int main() { for (;;) {} }\n";
    o.source_path = (dir / "hang.cu").string();
    o.time_limit_seconds = 1;
    CheckReport hang = check_lesson(course, *l, o, compiler);
    REQUIRE_MESSAGE(hang.status.ok(), hang.status.message);
    CHECK_FALSE(hang.passed);
    for (const auto& c : hang.checks)
        if (c.kind == CheckKind::correctness) {
            CHECK_FALSE(c.passed);
            CHECK_MESSAGE(c.message.find("wall-clock limit") != std::string::npos,
                          c.name << ": " << c.message);
        }
}

TEST_CASE("program lessons: 20-multi-gpu runs on 4 emulated GPUs and times the all-reduce against "
          "the ring's bound") {
    if (!test_support::have_nvcc()) return;
    Course course;
    REQUIRE(load_course(find_course_root(), &course).ok());
    const LessonInfo* l = course.find("20-multi-gpu");
    REQUIRE(l);
    compiler::Compiler compiler;
    CheckOptions o;
    o.backend = "emu";
    o.seed = 2020;
    o.solution = true;
    CheckReport sol = check_lesson(course, *l, o, compiler);
    REQUIRE_MESSAGE(sol.status.ok(), sol.status.message);
    CHECK(sol.passed);
    const CheckResult* ring = find_check(sol, "all-reduce time against the ring's bound");
    REQUIRE(ring);
    // The model's ring: 6 steps of quarter-vector copies (2 us to start each) and 3 adds, about
    // 1.9x the bandwidth bound; the host's issue time is left out (CUDALAB_HOST_CLOCK=free), so
    // the figure is the same at any load.
    CHECK(ring->value > 1.2);
    CHECK(ring->value < 2.5);
    o.solution = false;
    CheckReport ex = check_lesson(course, *l, o, compiler);
    REQUIRE_MESSAGE(ex.status.ok(), ex.status.message);
    CHECK(find_check(ex, "every GPU holds the sum")->passed);
    const CheckResult* gather = find_check(ex, "all-reduce time against the ring's bound");
    CHECK_FALSE(gather->passed);
    CHECK(gather->value > 4);  // GPU 0's link carries 6 vectors
    // The report shows the learner's run, not the lesson's peer-bandwidth measurement before it.
    CHECK(ex.program_timeline_run == "./program in.bin out.bin");
    CHECK(ex.printf_output.find("all-reduced 4 vectors") != std::string::npos);
    bool measured = false;
    for (const auto& line : ex.log) measured |= line.find("./peer-bandwidth ") != std::string::npos;
    CHECK_MESSAGE(measured, "the lesson runs lessons/20-multi-gpu/peer-bandwidth.cu first");
}

TEST_CASE("program lessons: 20-multi-gpu on 2 and 3 emulated GPUs (CUDALAB_DEVICES)") {
    if (!test_support::have_nvcc()) return;
    Course course;
    REQUIRE(load_course(find_course_root(), &course).ok());
    const LessonInfo* l = course.find("20-multi-gpu");
    REQUIRE(l);
    compiler::Compiler compiler;
    struct Devices {  // the checker's CUDALAB_DEVICES picks the lesson's G on the emulator
        explicit Devices(const char* n) { ::setenv("CUDALAB_DEVICES", n, 1); }
        ~Devices() { ::unsetenv("CUDALAB_DEVICES"); }
    };
    const char* const counts[] = {"2", "3"};
    for (const char* count : counts) {
        CAPTURE(count);
        Devices devices(count);
        const std::string g = count;
        CheckOptions o;
        o.backend = "emu";
        o.seed = 2020;
        o.solution = true;
        CheckReport sol = check_lesson(course, *l, o, compiler);
        REQUIRE_MESSAGE(sol.status.ok(), sol.status.message);
        for (const auto& c : sol.checks) CHECK_MESSAGE(c.passed, c.name << ": " << c.message);
        CHECK(sol.printf_output.find("all-reduced " + g + " vectors") != std::string::npos);
        const CheckResult* ring = find_check(sol, "all-reduce time against the ring's bound");
        REQUIRE(ring);
        // The allowance is 1 + 3G/8: 1.75 for 2 GPUs, 2.125 for 3; the model's ring reaches about
        // 1.56 and 1.75 (two and four steps, each with a 2 us copy start-up, and the adds).
        CHECK(ring->threshold == doctest::Approx(1.0 + 3.0 * std::stoi(g) / 8));
        CHECK(ring->value > 1.2);
        CHECK(ring->value < ring->threshold);
        // The bound's arithmetic reads for this G: "2 x 1/2" (an exchange), "2 x 2/3".
        CHECK_MESSAGE(ring->message.find("2 x " + std::to_string(std::stoi(g) - 1) + "/" + g +
                                         " x ") != std::string::npos,
                      ring->message);
        CHECK(find_check(sol, "every GPU holds the sum")->message.find(g + " emulated GPUs") !=
              std::string::npos);

        o.solution = false;
        CheckReport ex = check_lesson(course, *l, o, compiler);
        REQUIRE_MESSAGE(ex.status.ok(), ex.status.message);
        CHECK(find_check(ex, "every GPU holds the sum")->passed);
        CHECK(find_check(ex, "no staging through the host")->passed);
        const CheckResult* gather = find_check(ex, "all-reduce time against the ring's bound");
        CHECK_FALSE(gather->passed);
        CHECK(gather->value > std::stoi(g));  // a gather takes at least G x the bound
        CHECK_MESSAGE(gather->advice.find("carry " + std::to_string(std::stoi(g) - 1) +
                                          " whole vector") != std::string::npos,
                      gather->advice);

        // A program written for exactly 4 GPUs stops with its own message, and the lesson says
        // what the contract is.
        o.source_path = (fs::path(course.root) / "tests" / "submissions" / "20-multi-gpu" /
                         "pass-sender-streams.cu")
                            .string();
        CheckReport four = check_lesson(course, *l, o, compiler);
        REQUIRE_MESSAGE(four.status.ok(), four.status.message);
        const CheckResult* sum = find_check(four, "every GPU holds the sum");
        CHECK_FALSE(sum->passed);
        CHECK_MESSAGE(sum->message.find("needs 4 GPUs, there are " + g) != std::string::npos,
                      sum->message);
        CHECK_MESSAGE(sum->advice.find("cudaGetDeviceCount reports (here " + g + ")") !=
                          std::string::npos,
                      sum->advice);
        CHECK_FALSE(find_check(four, "no staging through the host")->passed);
    }
}
