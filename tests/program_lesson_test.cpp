// Program lessons (lessons/program_lesson.h): lesson 14's whole program is built with nvcc and run
// on the emulated runtime; its checks read the exit code, out.bin and the timeline.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>

#include "lessons/course.h"
#include "lessons/program_lesson.h"
#include "programs/build.h"
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

}  // namespace

TEST_CASE("program lessons: interval arithmetic of the timeline checks") {
    auto m = merge_intervals({{5, 7}, {0, 2}, {1, 3}, {10, 10}});
    REQUIRE(m.size() == 2);
    CHECK(m[0].start == 0);
    CHECK(m[0].end == 3);
    CHECK(covered({2, 6}, m) == doctest::Approx(2.0));  // [2,3) and [5,6)
    CHECK(covered({8, 9}, m) == 0);
}

TEST_CASE("program lessons: 14-streams passes the pipeline, fails the serial exercise and a cheat") {
    std::string looked;
    if (programs::find_nvcc(&looked).empty()) {
        MESSAGE("SKIPPED: no nvcc (" << looked << "): program lessons need the CUDA toolkit's nvcc");
        return;
    }
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
    CHECK(find_check(hang, "out.bin is right for a small input")->message.find("wall-clock limit") != std::string::npos);
}

TEST_CASE("program lessons: 02b-host-program finds missing copies and leaked device memory") {
    std::string looked;
    if (programs::find_nvcc(&looked).empty()) {
        MESSAGE("SKIPPED: no nvcc (" << looked << "): program lessons need the CUDA toolkit's nvcc");
        return;
    }
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
    CHECK(find_check(leaky, "every device allocation is freed")->value == 1);
}

TEST_CASE("program lessons: 16-errors runs the program under injected faults and reads only the program's own stderr") {
    std::string looked;
    if (programs::find_nvcc(&looked).empty()) {
        MESSAGE("SKIPPED: no nvcc (" << looked << "): program lessons need the CUDA toolkit's nvcc");
        return;
    }
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
    for (const char* name : {"a failing cudaMalloc is named and recovered from", "an invalid launch configuration is named and recovered from",
                             "an illegal address in a kernel is named and ends the program"}) {
        const CheckResult* c = find_check(ex, name);
        REQUIRE(c);
        CHECK_FALSE(c->passed);
        CHECK(c->message.find("does not name") != std::string::npos);
    }
    bool injected = false;
    for (const auto& line : ex.log) injected |= line.find("CUDALAB_INJECT=illegal-address:") != std::string::npos;
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
            CHECK_MESSAGE(c.message.find("wall-clock limit") != std::string::npos, c.name << ": " << c.message);
        }
}

TEST_CASE("program lessons: 20-multi-gpu runs on 4 emulated GPUs and times the all-reduce against the ring's bound") {
    std::string looked;
    if (programs::find_nvcc(&looked).empty()) {
        MESSAGE("SKIPPED: no nvcc (" << looked << "): program lessons need the CUDA toolkit's nvcc");
        return;
    }
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
}
