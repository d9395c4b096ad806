// The adversarial corpus: submissions a course could receive, each with the verdict the grader
// must give. tests/submissions/ID/ holds, per lesson,
//   pass-*.cu   correct alternatives that must pass (every check);
//   failc-*.cu  subtle bugs: a correctness check must fail;
//   failp-*.cu  correct but slow: every correctness check passes, a performance check fails;
//   cheat-*.cu  submissions that try to pass without doing the work: must not pass.
// Program lessons' submissions are whole programs (built with nvcc; skipped, saying so, without
// it). A file may say, in a comment line of its own:
//   // corpus: expect TEXT      some check's message or advice (or the compile error) contains TEXT
//   // corpus: pending NAME     the verdict depends on work not merged yet (NAME says which); the
//                              test says so rather than failing while the file still passes
// Every report, whatever the verdict, must have the solution's checks (a fixed set), and the
// solutions' performance figures are pinned in tests/submissions/golden.txt (regenerate with
// CUDALAB_UPDATE_GOLDEN=1 after a deliberate change, and say why in the commit).
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "lessons/course.h"
#include "programs/build.h"
#include "support.h"

namespace fs = std::filesystem;
using namespace cudalab;
using namespace cudalab::lessons;

namespace {

// Inputs are random per run in real use; the corpus uses one seed per file so CI is repeatable.
std::uint64_t seed_for(const std::string& name) {
    std::uint64_t h = 1469598103934665603ull;
    for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
    return h;
}

struct Corpus {
    Course course;
    compiler::Compiler compiler;
};

Corpus& corpus() {
    static Corpus c;
    static const bool loaded = [] {
        Status s = load_course(find_course_root(), &c.course);
        REQUIRE_MESSAGE(s.ok(), s.message);
        return true;
    }();
    (void)loaded;
    return c;
}

CheckReport check(const LessonInfo& lesson, const std::string& path, bool solution,
                  std::uint64_t seed) {
    CheckOptions o;
    o.backend = "emu";
    o.solution = solution;
    o.source_path = path;
    o.seed = seed;
    o.trace.auto_detail_blocks = 0;
    return check_lesson(corpus().course, lesson, o, corpus().compiler);
}

std::vector<std::string> directive(const std::string& source, const std::string& key) {
    std::vector<std::string> values;
    std::istringstream in(source);
    std::string line;
    const std::string marker = "// corpus: " + key + " ";
    while (std::getline(in, line)) {
        const auto at = line.find(marker);
        if (at != std::string::npos) values.push_back(line.substr(at + marker.size()));
    }
    return values;
}

std::string summary(const CheckReport& r) {
    std::ostringstream o;
    if (!r.status.ok()) o << "  status: " << r.status.message.substr(0, 400) << "\n";
    for (const auto& c : r.checks)
        o << "  " << (c.passed ? "PASS " : "FAIL ") << c.name << " [" << c.value
          << "]: " << c.message.substr(0, 300) << "\n";
    return o.str();
}

void run_corpus(const std::string& id) {
    const LessonInfo* lesson = corpus().course.find(id);
    REQUIRE(lesson);
    if (lesson->is_program()) {
        // Program lessons build every submission with the toolkit's nvcc.
        if (!test_support::have_nvcc()) return;
    }
    const fs::path dir = fs::path(corpus().course.root) / "tests" / "submissions" / id;
    REQUIRE_MESSAGE(fs::is_directory(dir), dir.string());
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".cu") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    std::map<std::string, int> kinds;
    for (const auto& f : files)
        kinds[f.filename().string().substr(0, f.filename().string().find('-'))]++;
    CHECK_MESSAGE(files.size() >= 6,
                  id << ": the corpus needs at least six submissions per lesson");
    CHECK_MESSAGE(kinds["pass"] >= 1, id << ": no pass- submission");
    CHECK_MESSAGE(kinds["cheat"] + kinds["failc"] + kinds["failp"] >= 3,
                  id << ": too few failing submissions");

    // The fixed set of checks every report of this lesson must have.
    const CheckReport solution = check(*lesson, "", true, 1);
    REQUIRE_MESSAGE(solution.passed, id << ": the solution fails\n" << summary(solution));
    std::vector<std::string> names;
    for (const auto& c : solution.checks) names.push_back(c.name);

    for (const auto& f : files) {
        const std::string file = f.filename().string();
        const std::string kind = file.substr(0, file.find('-'));
        const std::string source = test_support::read_file(f.string());
        const CheckReport r = check(*lesson, f.string(), false, seed_for(file));
        bool correctness_failed = false, performance_failed = false;
        for (const auto& c : r.checks) {
            correctness_failed |= !c.passed && c.kind == CheckKind::correctness;
            performance_failed |= !c.passed && c.kind == CheckKind::performance;
        }
        const bool ran = r.status.ok();
        bool ok = false;
        if (kind == "pass") ok = r.passed;
        else if (kind == "failc") ok = ran && correctness_failed;
        else if (kind == "failp") ok = ran && !correctness_failed && performance_failed;
        else if (kind == "cheat") ok = !r.passed;
        else FAIL_CHECK(id << "/" << file << ": unknown prefix (pass-, failc-, failp-, cheat-)");
        const auto pending = directive(source, "pending");
        if (!ok && !pending.empty() && r.passed) {
            MESSAGE(id << "/" << file << ": passes until " << pending[0] << " lands (expected)");
            continue;
        }
        CHECK_MESSAGE(ok, id << "/" << file << " (" << kind << ", seed " << seed_for(file)
                             << ") got:\n"
                             << summary(r));
        for (const auto& text : directive(source, "expect")) {
            bool found = r.status.message.find(text) != std::string::npos;
            for (const auto& c : r.checks)
                found |= c.message.find(text) != std::string::npos ||
                         c.advice.find(text) != std::string::npos ||
                         (!c.passed && c.name.find(text) != std::string::npos);
            CHECK_MESSAGE(found, id << "/" << file << ": no message says \"" << text << "\":\n"
                                    << summary(r));
        }
        std::vector<std::string> got;
        for (const auto& c : r.checks) got.push_back(c.name);
        CHECK_MESSAGE(got == names, id << "/" << file
                                       << ": the report's checks differ from the solution's\n"
                                       << summary(r));
    }
}

// The solutions' performance figures, one line per check: "ID<TAB>check<TAB>value".
std::string golden_figures() {
    std::ostringstream o;
    for (const auto& lesson : corpus().course.lessons) {
        const CheckReport r = check(lesson, "", true, 1);
        o << lesson.id << "\tchecks passed\t" << (r.passed ? "all " : "NOT all ") << r.checks.size()
          << "\n";
        for (const auto& c : r.checks) {
            // A program lesson's figures come from a timeline whose host clock includes the
            // program's own real time between calls: they vary in the last digits from run to run.
            if (c.kind != CheckKind::performance || c.timed || lesson.is_program()) continue;
            char value[64];
            std::snprintf(value, sizeof value, "%.6g", c.value);
            o << lesson.id << "\t" << c.name << "\t" << value << "\n";
        }
    }
    return o.str();
}

}  // namespace

TEST_CASE("corpus: 01-threads") { run_corpus("01-threads"); }
TEST_CASE("corpus: 02-vector-add") { run_corpus("02-vector-add"); }
TEST_CASE("corpus: 03-matrix-2d") { run_corpus("03-matrix-2d"); }
TEST_CASE("corpus: 04-divergence") { run_corpus("04-divergence"); }
TEST_CASE("corpus: 05-coalescing") { run_corpus("05-coalescing"); }
TEST_CASE("corpus: 06-shared-stencil") { run_corpus("06-shared-stencil"); }
TEST_CASE("corpus: 07-transpose") { run_corpus("07-transpose"); }
TEST_CASE("corpus: 08-matmul-tiled") { run_corpus("08-matmul-tiled"); }
TEST_CASE("corpus: 09-reduction") { run_corpus("09-reduction"); }
TEST_CASE("corpus: 10-histogram") { run_corpus("10-histogram"); }
TEST_CASE("corpus: 11-scan") { run_corpus("11-scan"); }
TEST_CASE("corpus: 12-occupancy") { run_corpus("12-occupancy"); }
// Program lessons' corpora are named like the other program-lesson tests, which the ASan step
// leaves out (their programs would load the instrumented emulated runtime: test.sh, docs/ci.md).
TEST_CASE("program lessons: corpus of 13-constant-memory") { run_corpus("13-constant-memory"); }
TEST_CASE("program lessons: corpus of 14-streams") { run_corpus("14-streams"); }
TEST_CASE("program lessons: corpus of 15-cuda-graphs") { run_corpus("15-cuda-graphs"); }
TEST_CASE("program lessons: corpus of 16-errors") { run_corpus("16-errors"); }
TEST_CASE("program lessons: corpus of 17-unified-memory") { run_corpus("17-unified-memory"); }
TEST_CASE("program lessons: corpus of 18-compatibility") { run_corpus("18-compatibility"); }
TEST_CASE("program lessons: corpus of 19-async-alloc") { run_corpus("19-async-alloc"); }
TEST_CASE("program lessons: corpus of 20-multi-gpu") { run_corpus("20-multi-gpu"); }

TEST_CASE("corpus: the solutions' performance figures match tests/submissions/golden.txt") {
    const std::string path = corpus().course.root + "/tests/submissions/golden.txt";
    const std::string now = golden_figures();
    if (const char* update = std::getenv("CUDALAB_UPDATE_GOLDEN"); update && *update) {
        std::ofstream(path) << now;
        MESSAGE("rewrote " << path);
        return;
    }
    const std::string pinned = test_support::read_file(path);
    CHECK_MESSAGE(now == pinned,
                  "the solutions' figures changed; if that is intended, run with "
                  "CUDALAB_UPDATE_GOLDEN=1 and commit tests/submissions/golden.txt. Now:\n"
                      << now);
}
