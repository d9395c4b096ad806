#include "cli/course_commands.h"

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <regex>

#include "cli/strict_parse.h"
#include "compiler/compiler.h"
#include "lessons/course.h"
#include "lessons/lint.h"
#include "lessons/program_lesson.h"
#include "programs/runner.h"

namespace fs = std::filesystem;
using namespace cudalab;

namespace cli {

bool take_course_option(int& argc, char** argv, std::string* error) {
    int out = 1;
    bool passthrough = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (!passthrough && a == "--") passthrough = true;
        std::string value;
        bool found = false;
        if (!passthrough && a == "--course") {
            if (i + 1 >= argc) {
                *error = "--course needs a folder: --course DIR";
                return false;
            }
            value = argv[++i];
            found = true;
        } else if (!passthrough && a.rfind("--course=", 0) == 0) {
            value = a.substr(9);
            found = true;
        }
        if (found) {
            if (value.empty()) {
                *error = "--course needs a folder: --course DIR";
                return false;
            }
            std::error_code ec;
            const fs::path abs = fs::absolute(value, ec);
            ::setenv("CUDALAB_COURSE",
                     (ec ? fs::path(value) : abs).lexically_normal().string().c_str(), 1);
            continue;
        }
        argv[out++] = argv[i];
    }
    argc = out;
    argv[argc] = nullptr;
    return true;
}

// [SECTION] new-lesson

void add_new_lesson_options(CLI::App* cmd, NewLessonArgs& args) {
    cmd->add_option("id", args.id, "the new lesson's id, NN-slug (e.g. 03-scale)")->required();
    cmd->add_option("--title", args.title, "its title (default: from the slug)");
}

namespace {

// The course a command works on: --course / $CUDALAB_COURSE, else the one cudalab finds.
std::string course_root() {
    if (const char* env = std::getenv("CUDALAB_COURSE"); env && *env) return env;
    return lessons::find_course_root();
}

bool write_new(const fs::path& path, const std::string& text) {
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (fs::exists(path, ec)) {
        std::cerr << "cudalab new-lesson: " << path.string()
                  << " exists already; nothing written over it\n";
        return false;
    }
    std::ofstream out(path, std::ios::binary);
    out << text;
    out.close();
    if (!out) {
        std::cerr << "cudalab new-lesson: cannot write " << path.string() << "\n";
        return false;
    }
    return true;
}

std::string toml_string(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') out += '\\';
        out += c;
    }
    return out + "\"";
}

}  // namespace

int run_new_lesson(const NewLessonArgs& args) {
    const std::string& id = args.id;
    if (!std::regex_match(id, std::regex(R"(\d\d[a-z]?-[a-z0-9-]+)"))) {
        std::cerr << "cudalab new-lesson: '" << id
                  << "' is not an id: NN-slug, e.g. 03-scale (lower-case letters, digits, -)\n";
        return 2;
    }
    const fs::path root = course_root();
    std::error_code ec;
    fs::create_directories(root, ec);
    const std::string manifest = lessons::manifest_path(root.string());
    // A new course gets its manifest at the top of the folder.
    const bool new_course = !fs::exists(manifest, ec);
    const fs::path manifest_file = new_course ? root / "manifest.toml" : fs::path(manifest);
    if (!new_course) {
        lessons::Course course;
        Status s = lessons::load_course(root.string(), &course);
        if (!s.ok()) {
            std::cerr << "cudalab new-lesson: cannot read the course: " << s.message << "\n";
            return 2;
        }
        if (course.find(id)) {
            std::cerr << "cudalab new-lesson: the course has a lesson " << id << " already ("
                      << manifest << ")\n";
            return 2;
        }
    }
    std::string title = args.title;
    if (title.empty()) {
        title = id.substr(id.find('-') + 1);
        std::replace(title.begin(), title.end(), '-', ' ');
        title[0] = char(std::toupper((unsigned char)title[0]));
    }

    const std::string toml = R"X(# Lesson )X" + id +
                             R"X(: the host side, as data. docs/instructors.md lists every key.
#
# As scaffolded: `scale` multiplies every element of `in` by `factor` into `out`, launched with
# one thread per element and then on a small grid (only a grid-stride loop covers every element
# there), on sizes that are not multiples of the block and one chosen at run time. `out` is
# checked against what solutions/)X" +
                             id + R"X(.cu computes from the same inputs; then the
# sectors the loads and stores moved against those the data needs. Change all of it.

kernel = "scale"
grid = "ceil_div(n, 256)"
block = 256

[[arg]]
name = "in"
type = "float*"
count = "n"
fill = "uniform"
lo = -1
hi = 1

[[arg]]
name = "out"
type = "float*"
count = "n"

[[arg]]
name = "factor"
type = "float"
value = "random_float(0.5, 4)"

[[arg]]
name = "n"
type = "int"
value = "n"

[[launch]]
each = { n = [1, 1000, 4099] }
words = { size = "n = {n}" }

[[launch]]
let = ["n = random_int(20000, 60000)"]
grid = 4
block = 128
words = { size = "n chosen at run time, small grid" }
log = "the launch of a size chosen at run time had n = {n}"

[[compare]]
buffer = "out"
name = "out = factor * in, {size}"
where = "out[{i}]"
ulps = 1
advice = "{grid.x * block.x < n ? 'This launch has fewer threads than elements: each thread must take several (a grid-stride loop).' : 'out[i] = factor * in[i] for every i below n.'}"

[[metric]]
name = "global loads: sectors moved per sector needed"
kind = "sectors"
direction = "loads"
needed = "coalesced(1, n, 32)"
over = "reading `in` over every launch"
advice = "Let neighbouring threads take neighbouring elements: start at the global thread id and step by blockDim.x * gridDim.x."

[[metric]]
name = "global stores: sectors moved per sector needed"
kind = "sectors"
direction = "stores"
needed = "coalesced(1, n, 32)"
over = "writing `out` over every launch"
advice = "Let neighbouring threads take neighbouring elements: start at the global thread id and step by blockDim.x * gridDim.x."
)X";

    const std::string text = "# " + title + R"X(

TODO: what this lesson teaches, and why it matters on a GPU.

## The idea

TODO: explain the idea, with a small worked example.

## Your task

Open `exercises/)X" + id + R"X(.cu`. `scale` must write `out[i] = factor * in[i]` for every `i` in
`[0, n)`, for any grid: the checks launch it with one thread per element and on a small grid of
4 blocks of 128 threads.

```sh
cudalab check )X" + id + R"X(
```
)X";

    const std::string exercise = "// Lesson " + id +
                                 R"X( (exercise): out[i] = factor * in[i] for every i in [0, n).
//
// The host side (lessons/)X" + id +
                                 R"X(/lesson.toml) launches this kernel with one thread per
// element, and on a small grid where each thread must take several elements.
//
// Run the checks with:  cudalab check )X" +
                                 id + R"X(

__global__ void scale(const float* in, float* out, float factor, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    // TODO: multiply by factor, and cover every element even when the grid has fewer threads
    //       than n (a grid-stride loop: i += blockDim.x * gridDim.x).
    if (i < n) {
        out[i] = in[i];
    }
}
)X";

    const std::string solution = "// Lesson " + id + R"X( (reference solution): a grid-stride loop.

__global__ void scale(const float* in, float* out, float factor, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        out[i] = factor * in[i];
    }
}
)X";

    std::string entry;
    if (new_course)
        entry +=
            "# A cudalab course (docs/instructors.md): one [[lesson]] table per lesson, in course "
            "order.\n"
            "[course]\nname = " +
            toml_string(root.filename().string().empty() ? "course" : root.filename().string()) +
            "\n";
    entry +=
        "\n[[lesson]]\nid = " + toml_string(id) + "\ntitle = " + toml_string(title) +
        "\npart = \"TODO: the part of the course\"\nviews = [\"grid\", \"memory\"]\nhints = [\n"
        "    \"TODO: a gentle nudge: what to look at first.\",\n"
        "    \"TODO: the idea, without the code.\",\n"
        "    \"TODO: nearly the answer.\",\n]\n";

    const fs::path dir = root / "lessons" / id;
    for (const auto& [path, body] : {std::pair{dir / "lesson.toml", toml},
                                     {dir / "lesson.md", text},
                                     {root / "exercises" / (id + ".cu"), exercise},
                                     {root / "solutions" / (id + ".cu"), solution}})
        if (!write_new(path, body)) return 2;
    std::ofstream m(manifest_file, std::ios::app | std::ios::binary);
    m << entry;
    m.close();
    if (!m) {
        std::cerr << "cudalab new-lesson: cannot write " << manifest_file.string() << "\n";
        return 2;
    }
    std::cout << "New lesson " << id << " in " << root.string() << ":\n"
              << "  " << (dir / "lesson.toml").string() << "   the host side (data)\n"
              << "  " << (dir / "lesson.md").string() << "     the text\n"
              << "  " << (root / "exercises" / (id + ".cu")).string() << "   fails as shipped\n"
              << "  " << (root / "solutions" / (id + ".cu")).string() << "   passes\n"
              << "  " << manifest_file.string() << "   a [[lesson]] entry, hints marked TODO\n"
              << "Next: cudalab --course " << root.string() << " lint --lesson " << id << "\n";
    return 0;
}

// [SECTION] lint

void add_lint_options(CLI::App* cmd, LintArgs& args) {
    cmd->add_option("--lesson", args.lesson, "lint only this lesson");
    cmd->add_flag("--static", args.static_only,
                  "only the files, texts, hints and views: compile and run nothing");
    cmd->add_option("--backend", args.backend,
                    "emu, gpu or auto (default emu: the figures are deterministic)")
        ->check(CLI::IsMember({"emu", "gpu", "auto"}));
}

int run_lint(const LintArgs& args) {
    lessons::Course course;
    const std::string root = course_root();
    Status s = lessons::load_course(root, &course);
    if (!s.ok()) {
        std::cerr << "cudalab lint: cannot read the course: " << s.message << "\n";
        return 2;
    }
    const lessons::LessonInfo* only = args.lesson.empty() ? nullptr : course.resolve(args.lesson);
    if (!args.lesson.empty() && !only) {
        std::cerr << "cudalab lint: no lesson '" << args.lesson
                  << "'. The lessons are: " << course.ids() << "\n";
        return 2;
    }
    compiler::Compiler compiler;
    lessons::LintOptions o;
    o.run = !args.static_only;
    o.only = only ? only->id : "";
    o.backend = args.backend;
    o.on_lesson = [](const std::string& id, int errors) {
        std::cerr << "  " << (errors ? "FAIL  " : "ok    ") << id << "\n";
    };
    std::cerr << "Linting " << course.root << " (" << course.lessons.size() << " lessons)\n";
    const auto findings = lessons::lint_course(course, compiler, o);
    int errors = 0, warnings = 0;
    for (const auto& f : findings) {
        std::cout << (f.error ? "error: " : "warning: ")
                  << (f.lesson.empty() ? "" : f.lesson + ": ") << f.message << "\n";
        (f.error ? errors : warnings)++;
    }
    std::cout << (errors ? "lint failed: " : "lint passed: ") << errors << " error"
              << (errors == 1 ? "" : "s") << ", " << warnings << " warning"
              << (warnings == 1 ? "" : "s") << "\n";
    return errors ? 1 : 0;
}

// [SECTION] inputs

void add_inputs_options(CLI::App* cmd, InputsArgs& args) {
    cmd->add_option("lesson", args.lesson, "a program lesson's id (e.g. 14-streams)")->required();
    cmd->add_option("--seed", args.seed, "the seed `check` printed (default: a new one, printed)");
    cmd->add_option("-o,--output", args.dir, "the folder to write them in (default: here)");
    cmd->add_option("--backend", args.backend,
                    "the backend `check` ran on: emu, gpu or auto (default auto, as check); "
                    "lesson 20's sizes depend on it")
        ->check(CLI::IsMember({"emu", "gpu", "auto"}));
}

int run_inputs(const InputsArgs& args) {
    lessons::Course course;
    Status s = lessons::load_course(course_root(), &course);
    if (!s.ok()) {
        std::cerr << "cudalab inputs: cannot read the course: " << s.message << "\n";
        return 2;
    }
    const lessons::LessonInfo* lesson = course.resolve(args.lesson);
    if (!lesson) {
        std::cerr << "cudalab inputs: no lesson '" << args.lesson
                  << "'. The lessons are: " << course.ids() << "\n";
        return 2;
    }
    if (!lesson->is_program()) {
        std::cerr << "cudalab inputs: " << lesson->id
                  << " is a kernel lesson: the lesson launches your kernel itself, there is no "
                     "program to run by hand (cudalab check "
                  << lesson->id << " -v shows its launches)\n";
        return 2;
    }
    std::uint64_t seed = 0;
    if (args.seed.empty()) {
        seed = std::random_device{}() * 0x100000000ull + std::random_device{}();
    } else {
        std::string error;
        const auto parsed = parse_unsigned(args.seed, 0, UINT64_MAX, "--seed", &error);
        if (!parsed) {
            std::cerr << "cudalab inputs: " << error << "\n";
            return 2;
        }
        seed = *parsed;
    }
    // As check_program_lesson() picks it, so that the lesson draws the same sizes.
    std::string backend = args.backend, why;
    if (backend == "auto") backend = programs::gpu_available(&why) ? "gpu" : "emu";
    lessons::ProgramInputs inputs;
    s = lessons::write_program_inputs(*lesson, seed, backend, args.dir, &inputs);
    if (!s.ok()) {
        std::cerr << "cudalab inputs: " << s.message << "\n";
        return 2;
    }
    std::string files;
    for (const auto& f : inputs.files) files += (files.empty() ? "" : ", ") + f;
    std::cout << "Wrote " << (files.empty() ? "no files" : files) << " in " << args.dir
              << ": the inputs of " << lesson->id << "'s first run of your program, seed " << seed
              << " (" << backend << ").\nRun it on them with:\n  ";
    if (args.dir != ".") std::cout << "cd " << args.dir << " && ";
    // The environment the lesson sets for that run (an emulated driver, GPUs, an injected
    // fault) is part of the run; `cudalab run` passes it on.
    const auto& set = inputs.run.settings;
    for (const auto& [k, v] : set.environment) std::cout << k << "=" << v << " ";
    if (set.devices) std::cout << "CUDALAB_DEVICES=" << set.devices << " ";
    if (set.driver_version) std::cout << "CUDALAB_DRIVER_VERSION=" << set.driver_version << " ";
    // From here the exercise's path as the course names it; from another folder, in full.
    std::error_code ec;
    const fs::path exercise = args.dir == "."
                                  ? fs::proximate(lesson->exercise_path, ec)
                                  : fs::absolute(lesson->exercise_path, ec).lexically_normal();
    std::cout << "cudalab run " << (ec ? lesson->exercise_path : exercise.string()) << " --";
    for (const auto& a : inputs.run.args) std::cout << " " << a;
    std::cout << "\n";
    return 0;
}

}  // namespace cli
