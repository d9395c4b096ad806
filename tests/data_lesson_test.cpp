// Data lessons (lessons/ID/lesson.toml, lessons/data_lesson.h) and course packs: a lesson written
// as data in a temporary course folder, with no C++ and no rebuild, lints, fails its shipped
// exercise and passes its solution, through the built binary; a malformed lesson.toml is an error
// naming file:line; expressions; progress kept per course.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "lessons/course.h"
#include "lessons/expr.h"
#include "lessons/lint.h"
#include "lessons/progress.h"
#include "support.h"

namespace fs = std::filesystem;
using namespace cudalab;
using namespace cudalab::lessons;
using test_support::run_command;
using test_support::temp_dir;

namespace {

fs::path fresh(const std::string& name) {
    const fs::path root = temp_dir() / name;
    fs::remove_all(root);
    fs::create_directories(root);
    return root;
}

void write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
}

std::string cli(const fs::path& course) {
    return std::string(CUDALAB_CLI) + " --course " + course.string() + " ";
}

// A lesson written by hand: reverse a 2D array's rows, with a bound relative to the solution's own
// figure and a known-slow variant, using keys the scaffold does not.
void write_reverse_course(const fs::path& root) {
    write(root / "manifest.toml", R"X([course]
name = "test reverse course"

[[lesson]]
id = "01-reverse"
title = "Reverse every row"
part = "I"
views = ["memory"]
hints = ["Each row is reversed on its own.", "Element col goes to width - 1 - col.", "out[row * width + width - 1 - col] = in[row * width + col];"]
)X");
    write(root / "lessons" / "01-reverse" / "lesson.md",
          "# Reverse\n\n## Your task\n\nReverse every row.\n");
    write(root / "lessons" / "01-reverse" / "lesson.toml", R"X(kernel = "reverse_rows"
grid = ["ceil_div(width, 32)", "ceil_div(height, 8)"]
block = [32, 8]
let = ["w0 = random_int(40, 90)"]
words = { label = "" }

[[arg]]
name = "in"
type = "int*"
count = "width * height"
fill = "uniform"
lo = -1000
hi = 1000
edges = [{ at = 0, value = -2147483647 }]
shape = { rows = "height", cols = "width", kind = "matrix" }

[[arg]]
name = "out"
type = "int*"
count = "width * height"

[[arg]]
name = "width"
type = "int"
value = "width"

[[arg]]
name = "height"
type = "int"
value = "height"

[[launch]]
each = { width = [1, 33] }
let = ["height = 3"]

[[launch]]
let = ["width = w0", "height = 17"]
grid = [2, 2]
tags = ["small"]
words = { label = "small grid" }

[[compare]]
buffer = "out"
name = "reversed rows, {width} x {height}{label == '' ? '' : ', ' + label}"
where = "row {i / width}, col {i % width}"

[[metric]]
name = "global stores per element"
value = "write_requests * 32"
per = "width * height"
at_most = "1.5 * reference + 1"
message = "{fixed(value, 2)} lanes' worth of store requests per element (the solution: {fixed(reference, 2)})"
advice = "Let each thread store one element per pass of a grid-stride loop."
)X");
    write(root / "exercises" / "01-reverse.cu",
          R"X(// TODO: reverse each row, and cover the whole array even on a small grid.
__global__ void reverse_rows(const int* in, int* out, int width, int height)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < height && col < width) out[row * width + col] = in[row * width + col];
}
)X");
    write(root / "solutions" / "01-reverse.cu",
          R"X(__global__ void reverse_rows(const int* in, int* out, int width, int height)
{
    for (int row = blockIdx.y * blockDim.y + threadIdx.y; row < height; row += blockDim.y * gridDim.y)
        for (int col = blockIdx.x * blockDim.x + threadIdx.x; col < width; col += blockDim.x * gridDim.x)
            out[row * width + width - 1 - col] = in[row * width + col];
}
)X");
    // Correct, but every thread stores every element of its row 4 times: the metric must fail.
    write(root / "lessons" / "01-reverse" / "wrong" / "stores-four-times.cu", R"X(
__global__ void reverse_rows(const int* in, int* out, int width, int height)
{
    for (int row = blockIdx.y * blockDim.y + threadIdx.y; row < height; row += blockDim.y * gridDim.y)
        for (int col = blockIdx.x * blockDim.x + threadIdx.x; col < width; col += blockDim.x * gridDim.x)
            for (int k = 0; k < 4; ++k) out[row * width + width - 1 - col] = in[row * width + col];
}
)X");
}

}  // namespace

TEST_CASE("data lesson: expressions and templates") {
    ExprContext c;
    c.vars["n"] = Value::integer(1000);
    c.vars["grid.x"] = Value::integer(4);
    CHECK(evaluate("ceil_div(n, 256)", c).as_int() == 4);
    CHECK(evaluate("n / 3", c).as_int() == 333);  // integers divide as integers
    CHECK(evaluate("n / 3.0", c).as_double() == doctest::Approx(333.333333));
    CHECK(evaluate("n % 7 == 6 ? 'yes' : 'no'", c).str() == "yes");
    CHECK(evaluate("1 + 2 * 3 - -1", c).as_int() == 8);
    std::mt19937_64 rng(1);
    c.rng = &rng;
    CHECK(evaluate("random_int(2, 2) | 1", c).as_int() == 3);
}

TEST_CASE("data lesson: expression errors say what and where") {
    ExprContext c;
    c.vars["n"] = Value::integer(5);
    CHECK_THROWS_WITH_AS(evaluate("n +", c), doctest::Contains("expected a value"), ExprError);
    CHECK_THROWS_WITH_AS(evaluate("m * 2", c), doctest::Contains("unknown name 'm'"), ExprError);
    CHECK_THROWS_WITH_AS(evaluate("n / 0", c), doctest::Contains("division by zero"), ExprError);
    CHECK_THROWS_WITH_AS(evaluate("random_int(1, 9)", c), doctest::Contains("not available here"),
                         ExprError);
    CHECK_THROWS_WITH_AS(expand("a {n", c), doctest::Contains("no '}'"), ExprError);
    CHECK(expand(
              "{{n}} = {n}, {grid == 1 ? 'block' : 'blocks'}", *[&] {
                  c.vars["grid"] = Value::integer(2);
                  return &c;
              }()) == "{n} = 5, blocks");
    CHECK(evaluate("coalesced(1, 1000, 32)", c).as_int() == 125);
    CHECK(expand("{fixed(2 / 3.0, 3)}", c) == "0.667");
}

TEST_CASE("data lesson: a malformed lesson.toml is an error naming file:line") {
    const fs::path root = fresh("data-malformed");
    write(root / "manifest.toml",
          "[[lesson]]\nid = \"01-bad\"\ntitle = \"Bad\"\nhints = [\"h\"]\n");
    const fs::path toml = root / "lessons" / "01-bad" / "lesson.toml";
    auto error_of = [&](const std::string& text) {
        write(toml, text);
        Course course;
        REQUIRE(load_course(root.string(), &course)
                    .ok());  // the course loads; the lesson carries its error
        REQUIRE(course.lessons.size() == 1);
        return course.lessons[0].data_error;
    };
    // TOML syntax.
    std::string e = error_of("kernel = \"k\"\n[[arg]\nname = 1\n");
    CHECK(e.find(toml.string() + ":2:") != std::string::npos);
    // A key that does not exist (a typo), on line 4.
    e = error_of("kernel = \"k\"\n\n[[arg]]\nnmae = \"x\"\n");
    INFO(e);
    CHECK(e.find(toml.string() + ":4: unknown key 'nmae' in [[arg]]") != std::string::npos);
    // An expression that does not parse, on line 5.
    e = error_of("kernel = \"k\"\n[[arg]]\nname = \"x\"\ntype = \"float*\"\ncount = \"n +* 2\"\n");
    CHECK(e.find(toml.string() + ":5: [[arg]] 'x' count:") != std::string::npos);
    // A compare of a buffer that is not an argument.
    e = error_of("kernel = \"k\"\n[[arg]]\nname = \"n\"\ntype = \"int\"\nvalue = "
                 "3\n[[launch]]\n[[compare]]\nbuffer = \"out\"\nname = \"x\"\n");
    CHECK(e.find(":8: [[compare]] buffer 'out' is not a buffer [[arg]]") != std::string::npos);
    // Checking the lesson says the same, as a could-not-run status, and so does lint.
    Course course;
    REQUIRE(load_course(root.string(), &course).ok());
    compiler::Compiler compiler;
    CheckOptions o;
    o.backend = "emu";
    CheckReport r = check_lesson(course, course.lessons[0], o, compiler);
    CHECK_FALSE(r.status.ok());
    CHECK(r.status.message.find(toml.string() + ":8:") != std::string::npos);
    auto lint = run_command(cli(root) + "lint --static");
    CHECK(lint.exit_code == 1);
    CHECK(lint.output.find("lesson.toml:8: [[compare]] buffer 'out'") != std::string::npos);
    fs::remove_all(root);
}

TEST_CASE("course pack: new-lesson scaffolds a data lesson that lints, fails as shipped and passes "
          "as solved") {
    const fs::path root = fresh("data-new-lesson");
    auto made = run_command(cli(root) + "new-lesson 01-scale --title \"Scale a vector\"");
    INFO(made.output);
    REQUIRE(made.exit_code == 0);
    for (const char* f :
         {"manifest.toml", "lessons/01-scale/lesson.toml", "lessons/01-scale/lesson.md",
          "exercises/01-scale.cu", "solutions/01-scale.cu"})
        CHECK_MESSAGE(fs::exists(root / f), f);
    CHECK(test_support::read_file((root / "manifest.toml").string()).find("TODO") !=
          std::string::npos);
    // A second time: the lesson exists, nothing is written over.
    CHECK(run_command(cli(root) + "new-lesson 01-scale").exit_code == 2);
    CHECK(run_command(cli(root) + "new-lesson Scale").exit_code == 2);

    auto lint = run_command(cli(root) + "lint");
    INFO(lint.output);
    CHECK(lint.exit_code == 0);
    CHECK(lint.output.find(
              "warning: 01-scale: manifest.toml: hint 1 of 01-scale is still a TODO placeholder") !=
          std::string::npos);
    auto exercise = run_command(cli(root) + "check 01-scale --backend emu --seed 7");
    CHECK(exercise.exit_code == 1);
    auto solution = run_command(cli(root) + "check 01-scale --solution --backend emu");
    INFO(solution.output);
    CHECK(solution.exit_code == 0);
    // CUDALAB_COURSE does what --course does.
    auto listed = run_command("CUDALAB_COURSE=" + root.string() + " " + CUDALAB_CLI + " list");
    CHECK(listed.output.find("01-scale") != std::string::npos);
    CHECK(listed.output.find("02-vector-add") == std::string::npos);
    fs::remove_all(root);
}

TEST_CASE("course pack: a data lesson written by hand lints, fails as shipped, passes as solved, "
          "and grades a slow variant") {
    const fs::path root = fresh("data-reverse");
    write_reverse_course(root);
    auto lint = run_command(cli(root) + "lint");
    INFO(lint.output);
    CHECK(lint.exit_code == 0);
    CHECK(lint.output.find("lint passed: 0 errors, 0 warnings") != std::string::npos);

    Course course;
    REQUIRE(load_course(root.string(), &course).ok());
    CHECK(course.key == "test reverse course");
    const LessonInfo& l = course.lessons.at(0);
    REQUIRE(l.data);
    compiler::Compiler compiler;
    CheckOptions o;
    o.backend = "emu";
    o.seed = 11;
    o.solution = true;
    const CheckReport solution = check_lesson(course, l, o, compiler);
    REQUIRE(solution.status.ok());
    CHECK(solution.passed);
    // The same report shape as a C++ lesson's: a check per launch, named from the template, then
    // the metric.
    REQUIRE(solution.checks.size() == 4);
    CHECK(solution.checks[0].name == "reversed rows, 1 x 3");
    CHECK(solution.checks[1].name == "reversed rows, 33 x 3");
    CHECK(solution.checks[2].name.rfind("reversed rows, ", 0) == 0);
    CHECK(solution.checks[2].name.find(" x 17, small grid") != std::string::npos);
    CHECK(solution.checks[3].name == "global stores per element");
    CHECK(solution.checks[3].kind == CheckKind::performance);
    CHECK(solution.launches.size() == 3);
    CHECK(solution.launch_label(2).find("grid (2,2,1) x block (32,8,1)") != std::string::npos);
    REQUIRE(!solution.shapes.empty());
    CHECK(solution.shapes[0].name == "in");

    o.solution = false;
    const CheckReport exercise = check_lesson(course, l, o, compiler);
    CHECK_FALSE(exercise.passed);
    CHECK(exercise.checks[0].passed);  // a row of one element reversed is itself
    CHECK_FALSE(exercise.checks[1].passed);
    CHECK(exercise.checks[3].message.rfind("not measured", 0) == 0);  // measured on a wrong result
    REQUIRE(!exercise.checks[1].mismatches.empty());
    CHECK(exercise.checks[1].mismatches[0].where.rfind("row 0, col ", 0) == 0);

    o.source_path = (root / "lessons" / "01-reverse" / "wrong" / "stores-four-times.cu").string();
    const CheckReport slow = check_lesson(course, l, o, compiler);
    for (int i = 0; i < 3; ++i) CHECK(slow.checks[std::size_t(i)].passed);
    CHECK_FALSE(slow.checks[3].passed);
    CHECK(slow.checks[3].message.find("the solution:") != std::string::npos);
    fs::remove_all(root);
}

TEST_CASE("course pack: progress is kept per course") {
    const fs::path state = fresh("data-progress") / "progress.db";
    {
        Progress p(state.string());
        p.record_check("01-threads", true);  // the built-in course
        p.set_course("another course");
        CHECK(p.get("01-threads").state == LessonState::not_tried);
        p.record_check("01-threads", false);
        CHECK(p.get("01-threads").state == LessonState::failed);
    }
    Progress again(state.string());
    CHECK(again.get("01-threads").state == LessonState::passed);
    again.set_course("another course");
    CHECK(again.get("01-threads").state == LessonState::failed);
    CHECK(again.results_recorded("01-threads") == 1);
    again.set_course("");
    CHECK(again.get("01-threads").state == LessonState::passed);
}

TEST_CASE("course pack: a data lesson launches in thread block clusters ([[launch]] cluster)") {
    // Each block hands its values to the next block of its cluster through distributed shared
    // memory. The exercise reads its own shared memory instead: right only if the launch ignored
    // the clusters (every block a cluster of one).
    const fs::path root = fresh("data-cluster");
    write(root / "manifest.toml", R"X([course]
name = "test cluster course"

[[lesson]]
id = "01-pass"
title = "Pass it on"
part = "I"
views = ["memory"]
hints = ["map_shared_rank(s, rank) points into another block's shared memory."]
)X");
    write(root / "lessons" / "01-pass" / "lesson.md", "# Pass it on\n\n## Your task\n\nPass.\n");
    write(root / "lessons" / "01-pass" / "lesson.toml", R"X(kernel = "pass_on"
grid = 8
block = 64

[[arg]]
name = "in"
type = "int*"
count = 512
fill = "uniform"
lo = -1000
hi = 1000

[[arg]]
name = "out"
type = "int*"
count = 512

[[launch]]
cluster = [4, 1, 1]

[[compare]]
buffer = "out"
name = "values passed to the next block of the cluster"
)X");
    const std::string head = R"X(#include <cooperative_groups.h>
namespace cg = cooperative_groups;
__global__ void pass_on(const int* in, int* out)
{
    __shared__ int s[64];
    cg::cluster_group cl = cg::this_cluster();
    s[threadIdx.x] = in[blockIdx.x * 64 + threadIdx.x];
    cl.sync();
)X";
    write(
        root / "exercises" / "01-pass.cu",
        head +
            "    out[blockIdx.x * 64 + threadIdx.x] = s[threadIdx.x];  // TODO: the next block's\n"
            "    cl.sync();\n}\n");
    write(
        root / "solutions" / "01-pass.cu",
        head +
            "    out[blockIdx.x * 64 + threadIdx.x] =\n"
            "        cl.map_shared_rank(s, (cl.block_rank() + 1) % cl.num_blocks())[threadIdx.x];\n"
            "    cl.sync();\n}\n");
    Course course;
    REQUIRE(load_course(root.string(), &course).ok());
    const LessonInfo& l = course.lessons.at(0);
    compiler::Compiler compiler;
    CheckOptions o;
    o.backend = "emu";
    o.seed = 3;
    o.solution = true;
    const CheckReport solution = check_lesson(course, l, o, compiler);
    INFO(solution.status.message);
    REQUIRE(solution.status.ok());
    CHECK(solution.passed);
    o.solution = false;
    const CheckReport exercise = check_lesson(course, l, o, compiler);
    CHECK_FALSE(exercise.passed);
    fs::remove_all(root);
}
