// Hostile submissions cannot hurt the grader: the compile jail's #include check and its helper
// process, the report writers under any bytes, and the progress store under damage and
// concurrency. The CLI rows of the hostile corpus (tests/hostile/) run through run_corpus.py.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <random>
#include <sqlite3.h>
#include <string>
#include <thread>
#include <vector>

#include "compiler/compile_helper.h"
#include "compiler/compiler.h"
#include "compiler/include_jail.h"
#include "lessons/progress.h"
#include "report/report.h"
#include "report/sanitize.h"
#include "support.h"

using namespace cudalab;
namespace fs = std::filesystem;

namespace {

compiler::IncludePolicy policy() {
    compiler::IncludePolicy p;
    p.toolkit_dirs = compiler::toolkit_include_dirs();
    p.extra_names = {"cstdio", "cuda_runtime.h", "lesson_helpers.cuh"};
    return p;
}

std::vector<compiler::Diagnostic> refused(const std::string& source) {
    return compiler::check_includes(source, "sub.cu", policy());
}

fs::path scratch(const std::string& name) {
    fs::path dir =
        fs::temp_directory_path() / ("cudalab-hostile-" + std::to_string(::getpid())) / name;
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The #include check
// ---------------------------------------------------------------------------------------------

TEST_CASE("the include check allows the shims, the lesson's headers and the toolkit's headers") {
    CHECK(
        refused("#include <cstdio>\n#include \"cuda_runtime.h\"\n#include \"lesson_helpers.cuh\"\n")
            .empty());
    CHECK(refused("#include <cuda_fp16.h>\n#include <cooperative_groups.h>\n").empty());
    CHECK(refused("#if __has_include(<cuda_fp16.h>)\n#endif\n").empty());
    // Text that only looks like a directive: in a comment, a string, a raw string, a number.
    CHECK(refused("// #include \"/etc/passwd\"\n/* \n#include </etc/shadow>\n*/\n").empty());
    CHECK(refused("const char* s = \"#include </etc/passwd>\";\n").empty());
    CHECK(refused("const char* s = R\"x(\n#include </etc/passwd>\n)x\";\n").empty());
    CHECK(refused("int n = 1'000'000; // __has_include(</etc/passwd>)\n").empty());
}

TEST_CASE("the include check refuses every other file, at its line and column") {
    struct Case {
        const char* source;
        int line, column;
        const char* says;
    };
    const Case cases[] = {
        {"#include \"/etc/passwd\"\n", 1, 1, "absolute path"},
        {"\n  #  include </proc/self/environ>\n", 2, 3, "absolute path"},
        {"#include \"../solutions/01-threads.cu\"\n", 1, 1, "'..'"},
        {"#include \"cuda/../../../../etc/passwd\"\n", 1, 1, "'..'"},
        {"#include <solutions/01-threads.cu>\n", 1, 1, "not one of the headers"},
        {"#include <vector>\n", 1, 1, "not one of the headers"},
        {"#define F \"/etc/passwd\"\n#include F\n", 2, 1, "macro"},
        {"#include __FILE__\n", 1, 1, "macro"},
        {"#if __has_include(\"/etc/shadow\")\n#endif\n", 1, 5, "absolute path"},
        {"#if defined(__has_include) && __has_include_next(<x/../../y>)\n#endif\n", 1, 31, "'..'"},
        {"%:include </etc/passwd>\n", 1, 1, "absolute path"},  // digraph
        {"?"
         "?=include </etc/passwd>\n",
         1, 1, "absolute path"},                                  // trigraph
        {"#inc\\\nlude </etc/passwd>\n", 1, 1, "absolute path"},  // line splice
        {"/* a */ # /* b */ include </etc/passwd>\n", 1, 9, "absolute path"},
        {"#include_next </etc/passwd>\n", 1, 1, "absolute path"},
        {"#include \"sub\\\\..\\\\x\"\n", 1, 1, "backslash"},
        {"int x = 1'0'0 + __has_include(</etc/passwd>);\n", 1, 17, "absolute path"},
        {"#include \\ \n\"/etc/passwd\"\n", 1, 1, "macro"},  // backslash-space: never a hidden name
        {"#include </etc/passwd\n", 1, 1, "not closed"},
    };
    for (const Case& c : cases) {
        CAPTURE(c.source);
        const auto d = refused(c.source);
        REQUIRE(d.size() == 1);
        CHECK(d[0].severity == Severity::error);
        CHECK(d[0].file == "sub.cu");
        CHECK(d[0].line == c.line);
        CHECK(d[0].column == c.column);
        CHECK(d[0].message.find(c.says) != std::string::npos);
    }
}

TEST_CASE("a refused include's message lists what this policy allows, the lesson's header too") {
    const auto d = refused("#include <vector>\n");
    REQUIRE(d.size() == 1);
    CHECK(d[0].message.find("<cstdio>, <cuda_runtime.h>") != std::string::npos);
    CHECK(d[0].message.find("<cmath>") == std::string::npos);  // not a name this policy allows
    CHECK(d[0].message.find("\"lesson_helpers.cuh\" (the lesson's)") != std::string::npos);
    CHECK(d[0].message.find("the CUDA Toolkit's headers") != std::string::npos);
    // Without the toolkit's folders the toolkit's headers are not offered.
    compiler::IncludePolicy shims_only;
    shims_only.extra_names = {"cstdio", "stdio.h"};
    const auto e = compiler::check_includes("#include <vector>\n", "sub.cu", shims_only);
    REQUIRE(e.size() == 1);
    CHECK(e[0].message.find("<cstdio>, the other standard headers cudalab provides") !=
          std::string::npos);
    CHECK(e[0].message.find("Toolkit") == std::string::npos);
}

TEST_CASE(
    "a refused include is a compile error before NVRTC runs, and a 0xFF byte is refused too") {
    compiler::Compiler compiler;
    auto r = compiler.compile("#include \"/etc/passwd\"\n__global__ void k() {}\n", "cheat.cu");
    CHECK_FALSE(r->ok);
    CHECK(r->error_text().find("cheat.cu:1:1: error: #include \"/etc/passwd\" is not allowed") !=
          std::string::npos);
    CHECK(r->error_text().find("root:") == std::string::npos);
    // NVRTC stops reading at a 0xFF byte and compiles what came before, silently.
    r = compiler.compile("// caf\xff\n__global__ void k(int* x) { *x = 1; }\n", "latin.cu");
    CHECK_FALSE(r->ok);
    CHECK(r->error_text().find("latin.cu:1:7: error: the file contains the byte 0xFF") !=
          std::string::npos);
}

TEST_CASE("a header the lesson ships is included from memory, and no other file beside it") {
    compiler::Compiler compiler;
    compiler::CompileOptions o;
    o.headers = {
        {"lesson_helpers.cuh", "__device__ inline float twice(float x) { return 2 * x; }\n"}};
    auto r = compiler.compile(
        "#include \"lesson_helpers.cuh\"\n__global__ void k(float* x) { x[0] = twice(x[0]); }\n",
        "with_header.cu", o);
    CHECK(r->ok);
    r = compiler.compile("#include \"other_helpers.cuh\"\n__global__ void k(float* x) {}\n",
                         "with_header.cu", o);
    CHECK_FALSE(r->ok);
    CHECK(r->error_text().find(
              "with_header.cu:1:1: error: #include \"other_helpers.cuh\" is not allowed") !=
          std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// The compile helper
// ---------------------------------------------------------------------------------------------

TEST_CASE("the compile helper compiles what the compiler compiled in process") {
    const std::string source =
        "__global__ void add(float* x, int n) { int i = threadIdx.x; if (i < n) x[i] += 1; }\n";
    compiler::CompileOptions in_process;
    in_process.limits.isolate = false;
    const auto a = compiler::compile_in_process(source, "add.cu", in_process);
    const auto b = compiler::compile_in_helper(source, "add.cu", compiler::CompileOptions{});
    REQUIRE(a->ok);
    REQUIRE(b->ok);
    // The same PTX, but for the .file directive: NVRTC makes the name absolute from its working
    // folder, which in the helper is the toolkit's include folder.
    auto without_file = [](std::string ptx) {
        const size_t at = ptx.find("\t.file\t");
        if (at != std::string::npos) ptx.erase(at, ptx.find('\n', at) - at);
        return ptx;
    };
    CHECK(without_file(a->ptx) == without_file(b->ptx));
    REQUIRE(b->kernels.size() == 1);
    CHECK(b->kernels[0].source_name == "add");
    CHECK(b->kernels[0].registers == a->kernels[0].registers);
}

TEST_CASE(
    "in the helper, NVRTC cannot read files outside the toolkit even past the include check") {
    // The include check is bypassed on purpose: this is the second wall, for a toolkit header that
    // might include a file through a macro.
    const auto r = compiler::compile_in_helper("#include \"/etc/passwd\"\n__global__ void k() {}\n",
                                               "wall.cu", compiler::CompileOptions{});
    CHECK_FALSE(r->ok);
    const std::string text = r->error_text() + r->log;
    if (compiler::landlock_available()) CHECK(text.find("root:") == std::string::npos);
    else
        WARN_MESSAGE(false,
                     "this kernel offers no Landlock: the helper's second wall is not tested here");
    // The environment is empty: a probe of it finds nothing of the grader's.
    ::setenv("CUDALAB_SECRET_FOR_TEST", "hunter2", 1);
    const auto env = compiler::compile_in_helper("#include \"/proc/self/environ\"\n", "env.cu",
                                                 compiler::CompileOptions{});
    CHECK((env->error_text() + env->log).find("hunter2") == std::string::npos);
    ::unsetenv("CUDALAB_SECRET_FOR_TEST");
}

TEST_CASE("a compile that reaches its time or memory limit is killed and says which limit") {
    compiler::Compiler compiler;
    compiler::CompileOptions o;
    o.limits.seconds = 1;
    std::string bomb = "#define A0 x + x\n";
    for (int i = 1; i <= 26; ++i)
        bomb += "#define A" + std::to_string(i) + " A" + std::to_string(i - 1) + " + A" +
                std::to_string(i - 1) + "\n";
    bomb += "__global__ void k(int* o) { int x = *o; *o = A26; }\n";
    auto r = compiler.compile(bomb, "macro.cu", o);
    CHECK_FALSE(r->ok);
    CHECK(r->limit_reached);
    CHECK(r->error_text().find("compile time limit reached") != std::string::npos);
    CHECK(r->error_text().find("after 1 s") != std::string::npos);

    o.limits.seconds = 60;
    o.limits.memory_mb = 256;
    const std::string templates =
        "template <int N, int M> struct B { static __device__ int v() { return B<N - 1, 2 * "
        "M>::v() + B<N - 1, 2 * M + 1>::v(); } };\n"
        "template <int M> struct B<0, M> { static __device__ int v() { return M; } };\n"
        "__global__ void k(int* o) { *o = B<40, 0>::v(); }\n";
    r = compiler.compile(templates, "templates.cu", o);
    CHECK_FALSE(r->ok);
    CHECK(r->limit_reached);
    CHECK(r->error_text().find("compile memory limit reached") != std::string::npos);
    CHECK(r->error_text().find("256 MB") != std::string::npos);
    // Not cached: a larger limit compiles it again (and reaches the time limit instead here).
    o.limits.memory_mb = 4096;
    o.limits.seconds = 1;
    r = compiler.compile(templates, "templates.cu", o);
    CHECK(r->error_text().find("256 MB") == std::string::npos);
}

// ---------------------------------------------------------------------------------------------
// Reports under any bytes
// ---------------------------------------------------------------------------------------------

namespace {

bool valid_utf8(const std::string& s) {
    try {
        (void)nlohmann::json(s).dump();  // throws on invalid UTF-8
        return true;
    } catch (const nlohmann::json::exception&) {
        return false;
    }
}

lessons::CheckReport random_report(std::mt19937& rng) {
    auto bytes = [&](std::size_t max) {
        std::string s(std::uniform_int_distribution<std::size_t>(0, max)(rng), '\0');
        for (char& c : s) c = char(rng());
        return s;
    };
    lessons::CheckReport r;
    r.lesson = bytes(40);
    r.title = bytes(40);
    r.source = bytes(80);
    r.backend = "emu";
    r.printf_output = bytes(200000);
    r.log = {bytes(100), bytes(100)};
    if (rng() % 3 == 0) {
        r.status = Status::error(StatusCode::compile_error, bytes(3000));
        compiler::Diagnostic d;
        d.file = bytes(50);
        d.message = bytes(500);
        d.context = bytes(500);
        d.severity = Severity::error;
        r.diagnostics.push_back(d);
    }
    for (int i = 0; i < 3; ++i) {
        lessons::CheckResult c;
        c.name = bytes(60);
        c.message = bytes(5000);
        c.advice = bytes(100);
        c.passed = rng() % 2;
        c.mismatches.push_back(
            lessons::Mismatch{1, bytes(20), bytes(20), bytes(20), std::nullopt, false});
        r.checks.push_back(c);
    }
    return r;
}

}  // namespace

TEST_CASE("safe_text gives valid UTF-8 without control characters, cut at a character boundary") {
    CHECK(report::safe_text("caf\xe9") == "caf\xef\xbf\xbd");
    CHECK(report::safe_text("a\x1b[2Jb") == "a [2Jb");
    CHECK(report::safe_text("tab\tnew\nline") == "tab\tnew\nline");
    CHECK(report::safe_text("\xed\xa0\x80") ==
          "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd");                       // a surrogate
    CHECK(report::safe_text("\xc0\xaf") == "\xef\xbf\xbd\xef\xbf\xbd");  // overlong '/'
    CHECK(report::safe_text("\xef\xbf\xbf") == "\xef\xbf\xbd");          // U+FFFF
    const std::string cut = report::safe_text("\xc3\xa9\xc3\xa9\xc3\xa9", 5);
    CHECK(cut.rfind("\xc3\xa9\xc3\xa9\n...(", 0) == 0);
    CHECK(valid_utf8(cut));
}

TEST_CASE("fuzz: every report writer gives well-formed, bounded output for random bytes") {
    std::mt19937 rng(20261201);
    for (int round = 0; round < 60; ++round) {
        std::vector<lessons::CheckReport> reports = {random_report(rng), random_report(rng)};
        const std::string json = report::json(reports[0]).dump();  // throws on invalid UTF-8
        CHECK(nlohmann::json::parse(json).is_object());
        CHECK(json.size() < 400000);
        const std::string grades = report::gradescope(reports).dump();
        CHECK(nlohmann::json::parse(grades)["tests"].is_array());
        const std::string xml = report::junit(reports);
        CHECK(valid_utf8(xml));
        for (unsigned char c : xml)
            CHECK_MESSAGE((c >= 0x20 || c == '\n' || c == '\t'), "control byte in XML");
        CHECK(xml.find("<testsuites") != std::string::npos);
        const std::string text = report::text(reports[0]);
        CHECK(valid_utf8(text));
        CHECK(text.find('\x1b') == std::string::npos);
    }
}

// ---------------------------------------------------------------------------------------------
// The progress store
// ---------------------------------------------------------------------------------------------

TEST_CASE("progress is kept in SQLite and read back validated") {
    const fs::path dir = scratch("store");
    const std::string path = (dir / "progress.db").string();
    {
        lessons::Progress p(path);
        CHECK(p.problems().empty());
        p.record_check("02-vector-add", false);
        p.record_check("02-vector-add", true);
        p.record_check("02-vector-add", false);  // once passed, stays passed
        CHECK(p.reveal_hint("02-vector-add", 3) == 0);
        CHECK(p.reveal_hint("02-vector-add", 3) == 1);
        CHECK(p.save());
    }
    lessons::Progress again(path);
    CHECK(again.get("02-vector-add").state == lessons::LessonState::passed);
    CHECK(again.get("02-vector-add").hints_shown == 2);
    CHECK(again.results_recorded("02-vector-add") == 3);

    // Values written by hand: negative, huge, the wrong type. Defaults and a note, no crash.
    sqlite3* db = nullptr;
    REQUIRE(sqlite3_open(path.c_str(), &db) == SQLITE_OK);
    REQUIRE(sqlite3_exec(db,
                         "INSERT OR REPLACE INTO lessons VALUES ('03-a', 'passed', -5, 'x');"
                         "INSERT OR REPLACE INTO lessons VALUES ('04-b', 'bogus', 1.5e300, NULL);"
                         "INSERT OR REPLACE INTO lessons VALUES ('05-c', 7, 'seven', 42);",
                         nullptr, nullptr, nullptr) == SQLITE_OK);
    sqlite3_close(db);
    lessons::Progress damaged(path);
    CHECK(damaged.get("03-a").hints_shown == 0);
    CHECK(damaged.get("03-a").state == lessons::LessonState::passed);
    CHECK(damaged.get("04-b").state == lessons::LessonState::not_tried);
    CHECK(damaged.get("04-b").hints_shown == 0);
    CHECK(damaged.get("05-c").hints_shown == 0);
    CHECK(damaged.problems().size() >= 4);
    CHECK(damaged.reveal_hint("03-a", 2) == 0);  // never a negative index
}

TEST_CASE("a damaged progress store is reported and kept, never overwritten") {
    const fs::path dir = scratch("damaged");
    const std::string path = (dir / "progress.db").string();
    for (int round = 0; round < 2; ++round) {
        { std::ofstream(path) << "this is not a database " << round << std::string(5000, 'x'); }
        lessons::Progress p(path);
        REQUIRE(p.problems().size() == 1);
        CHECK(p.problems()[0].find("damaged") != std::string::npos);
        p.record_check("01-threads", true);
        CHECK(p.save());
        // the kept copy's name has the second
        std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    }
    int kept = 0;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().filename().string().find("progress.db.damaged-") == 0) ++kept;
    CHECK(kept == 2);
    CHECK(lessons::Progress(path).get("01-threads").state == lessons::LessonState::passed);
}

TEST_CASE("an earlier progress.json is migrated once, its values validated") {
    const fs::path dir = scratch("migrate");
    {
        std::ofstream(dir / "progress.json") << R"({"version": 1, "lessons": {
        "01-threads": {"state": "passed", "hints_shown": 2, "last_checked": "2026-11-30T10:00:00Z"},
        "02-vector-add": {"state": "failed", "hints_shown": -5},
        "03-x": {"state": "failed", "hints_shown": 1.5e300},
        "../../etc": {"state": "passed"}}})";
    }
    // a .json path names the database beside it
    lessons::Progress p((dir / "progress.json").string());
    CHECK(p.path() == (dir / "progress.db").string());
    CHECK(p.get("01-threads").state == lessons::LessonState::passed);
    CHECK(p.get("01-threads").hints_shown == 2);
    CHECK(p.get("02-vector-add").state == lessons::LessonState::failed);
    CHECK(p.get("02-vector-add").hints_shown == 0);
    CHECK(p.get("03-x").hints_shown == 0);
    CHECK(p.get("../../etc").state == lessons::LessonState::not_tried);
    CHECK(fs::exists(dir / "progress.json.migrated"));
    CHECK_FALSE(fs::exists(dir / "progress.json"));
}

TEST_CASE("ten processes recording checks at once lose no update") {
    const fs::path dir = scratch("concurrent");
    const std::string path = (dir / "progress.db").string();
    { lessons::Progress create(path); }
    std::vector<pid_t> children;
    for (int i = 0; i < 10; ++i) {
        const pid_t pid = ::fork();
        if (pid == 0) {
            lessons::Progress p(path);
            p.record_check("02-vector-add", i == 7);
            p.reveal_hint("02-vector-add", 100);
            ::_exit(p.save() ? 0 : 1);
        }
        children.push_back(pid);
    }
    for (pid_t pid : children) {
        int status = 0;
        ::waitpid(pid, &status, 0);
        CHECK(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 0);
    }
    lessons::Progress p(path);
    CHECK(p.results_recorded("02-vector-add") == 10);
    CHECK(p.get("02-vector-add").hints_shown == 10);
    CHECK(p.get("02-vector-add").state == lessons::LessonState::passed);
}

// ---------------------------------------------------------------------------------------------
// Fuzzing the #include check and the store
// ---------------------------------------------------------------------------------------------

TEST_CASE("fuzz: the include check reads any bytes and never misses a plain directive after them") {
    std::mt19937 rng(1301);
    const char* pieces[] = {"#",
                            "include",
                            " ",
                            "\"",
                            "<",
                            ">",
                            "/",
                            "..",
                            "\\\n",
                            "\\",
                            "\n",
                            "//",
                            "/*",
                            "*/",
                            "R\"x(",
                            ")x\"",
                            "'",
                            "1'0",
                            "%:",
                            "?"
                            "?=",
                            "__has_include(",
                            ")",
                            "etc/passwd",
                            "cstdio",
                            "\r\n"};
    for (int round = 0; round < 2000; ++round) {
        std::string noise;
        const int n = std::uniform_int_distribution<int>(0, 40)(rng);
        for (int i = 0; i < n; ++i) {
            if (rng() % 4 == 0) noise += char(rng());
            else noise += pieces[rng() % std::size(pieces)];
        }
        const auto d = compiler::check_includes(noise, "fuzz.cu", policy());
        CHECK(d.size() <= 20);
        // Whatever came before, a comment or string closed by the end of a line cannot hide a
        // directive on a line of its own after a closed block comment.
        // (The blank line first: a backslash ending the noise splices only that line.)
        const std::string probe = noise + "\n \n*/\n#include \"/etc/passwd\"\n";
        bool found = false;
        for (const auto& diagnostic : compiler::check_includes(probe, "fuzz.cu", policy()))
            found = found || diagnostic.message.find("/etc/passwd") != std::string::npos;
        // A raw string left open swallows the rest of the file for the compiler too: no directive.
        const bool open_raw = noise.find("R\"x(") != std::string::npos;
        if (!open_raw) CHECK_MESSAGE(found, "missed the directive after: " << noise);
    }
}

TEST_CASE("fuzz: a progress store of random bytes is reported, never a crash") {
    std::mt19937 rng(77);
    const fs::path dir = scratch("fuzz-store");
    for (int round = 0; round < 40; ++round) {
        const std::string path = (dir / ("p" + std::to_string(round) + ".db")).string();
        std::string bytes(std::uniform_int_distribution<std::size_t>(0, 8192)(rng), '\0');
        for (char& c : bytes) c = char(rng());
        if (round % 4 == 0)
            bytes.replace(0, std::min<std::size_t>(16, bytes.size()),
                          std::string("SQLite format 3\0", 16)
                              .substr(0, std::min<std::size_t>(16, bytes.size())));
        { std::ofstream(path, std::ios::binary) << bytes; }
        lessons::Progress p(path);
        p.record_check("01-threads", true);
        CHECK(p.reveal_hint("01-threads", 3) >= 0);
        CHECK(p.get("01-threads").hints_shown >= 0);
        if (!bytes.empty()) CHECK_FALSE(p.problems().empty());
    }
}
