// The course: the manifest (lessons/manifest.toml) and checking a learner's file against a lesson.
// check_lesson() is the one path from a .cu file to a graded report; the CLI, the tests and the GUI
// all go through it.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "compiler/compiler.h"
#include "lessons/data_lesson.h"
#include "lessons/lesson.h"

namespace cudalab::lessons {

struct LessonInfo {
    std::string id;  // "02-vector-add"
    std::string title;
    std::string part;
    // "kernel": the learner writes kernels that the lesson's host side launches (Parts I-III);
    // "program": the learner writes a whole program with `main` (lessons/program_lesson.h).
    std::string kind = "kernel";
    bool is_program() const { return kind == "program"; }
    std::vector<std::string> views;
    std::vector<std::string> hints;
    // hints_LANG = [...] beside `hints`: language -> the same hints translated
    // (lessons/translation.h)
    std::map<std::string, std::vector<std::string>> translated_hints;
    std::map<std::string, double> points;  // check name -> points (default 1)
    std::vector<std::string>
        nvcc;  // program lessons: more nvcc options for the learner's program (e.g. "-lnvrtc")
    // Program lessons: the learner's file may choose its own GPU targets in a comment line
    // `// nvcc: -gencode arch=compute_75,code=sm_75 ...` (or -arch=..., -code=...), which replace
    // the manifest's -arch (manifest: `nvcc_targets_from_source = true`; lesson 18).
    bool nvcc_targets_from_source = false;
    std::string text_path;      // lessons/ID/lesson.md
    std::string exercise_path;  // exercises/ID.cu
    std::string solution_path;  // solutions/ID.cu
    std::string host_path;  // lessons/ID/lesson.toml for a data lesson, else lessons/ID/lesson.cpp
    // A data lesson (lessons/ID/lesson.toml, lessons/data_lesson.h): its parsed host side, or why
    // it does not parse (file:line); checking the lesson reports that error.
    std::shared_ptr<const DataLesson> data;
    std::string data_error;
};

struct Course {
    std::string root;  // the folder holding lessons/, exercises/, solutions/ (and assets/)
    // ROOT/manifest.toml, or ROOT/lessons/manifest.toml (the built-in course)
    std::string manifest;
    // What progress is kept under: "" for the built-in course (the repository cudalab was built
    // from), else [course] name in the manifest, else the course folder's absolute path.
    std::string key;
    std::vector<LessonInfo> lessons;
    const LessonInfo* find(const std::string& id) const;
    // The lesson with this id, or with this number: "5" and "05" name 05-coalescing, "2b" and
    // "02b" name 02b-host-program (the part of an id before its first '-'); nullptr for neither.
    const LessonInfo* resolve(const std::string& id_or_number) const;
    std::string ids() const;  // "01-threads, 02-vector-add, ..."
};

// Where the course lives: $CUDALAB_COURSE (set by `cudalab --course DIR` too), else $CUDALAB_ROOT,
// else the nearest folder upwards from the working directory holding lessons/manifest.toml, else
// the source tree cudalab was built from (the built-in course).
// A course is any folder with manifest.toml (or lessons/manifest.toml), lessons/, exercises/,
// solutions/ and, if its texts show pictures, assets/.
std::string find_course_root();
Status load_course(const std::string& root, Course* course);
// The manifest of the course in `root`: ROOT/manifest.toml when there is one, else
// ROOT/lessons/manifest.toml (which need not exist yet).
std::string manifest_path(const std::string& root);

struct CheckOptions {
    std::string source_path;       // empty: the lesson's exercise
    bool solution = false;         // check the reference solution instead
    std::string backend = "auto";  // emu | gpu | auto
    // Seed of the random inputs. Unset: a new one every run (the report carries it), so a kernel
    // cannot be written against one run's values; set it to reproduce a run.
    std::optional<std::uint64_t> seed;
    TraceOptions trace;
    std::uint64_t instruction_budget = 0;  // 0: the emulator's default
    // Limits (docs/grading.md, "Limits"); 0: the defaults. Each one reached is a failed check
    // (or a compile error) that names the limit and its value.
    std::uint64_t memory_limit = 0;  // emulator memory in bytes, in total
    std::uint64_t printf_limit = 0;  // device printf bytes per launch
    double time_limit_seconds = 0;   // wall-clock for the whole check
    compiler::CompileLimits compile_limits;
    // A program lesson: trace kernel launch N (the runtime's 1-based number, as its timeline gives
    // it) of the run whose timeline the report keeps; the trace comes back as `last_trace`.
    std::uint64_t program_trace_launch = 0;
    // Host threads the emulator runs a launch's blocks on; 0: one per core. 1 runs blocks in
    // order, so that a report that depends on which block came first (the two blocks a race
    // between blocks names) reads the same on every regrade; `cudalab grade` uses it, its
    // parallelism being its worker processes.
    unsigned emulator_threads = 0;
    // Program lessons: how the learner's program is isolated (docs/grading.md, "The sandbox").
    // required: built and run in the sandbox, refused where it cannot be made (check, grade, the
    // Gradescope bundle); optional: sandboxed where it can be, else run as it is (the learner's
    // own code on their own machine: the app, the course linter); off: never (`--no-sandbox`,
    // for trusted code only).
    enum class Sandbox { required, optional, off } sandbox = Sandbox::required;
};

struct CheckReport {
    std::string lesson;
    std::string title;
    std::string source;        // the file checked, relative to the course root when inside it
    std::string backend;       // "emu" / "gpu" ("" when it could not run)
    std::string backend_note;  // why this backend ("no CUDA driver: using the emulator")
    bool passed = false;
    std::uint64_t seed = 0;  // the inputs' seed: `--seed N` reproduces this run
    Status status;           // not ok: could not run (compile error, bad usage, no backend)
    std::vector<compiler::Diagnostic> diagnostics;
    std::vector<CheckResult> checks;
    std::vector<LaunchSummary> launches;
    std::vector<std::string> log;
    std::string printf_output;  // device printf; a program lesson: the last run's stdout
    bool program = false;       // a program lesson's report (built by nvcc, no launches of its own)
    // A program lesson: the timeline (Trace Event JSON, as the runtime wrote it) of its last run
    // that wrote one, the run its timeline checks read, and that run's command line. Empty
    // otherwise.
    std::string program_timeline;
    std::string program_timeline_run;  // "./program in.bin out.bin"
    double compile_seconds = 0;
    bool compile_cached = false;
    double compiled_seconds = 0;  // how long the compile took when it ran (a cached one: earlier)
    double run_seconds = 0;
    LaunchStats totals;
    std::shared_ptr<const compiler::CompileResult> module;
    std::shared_ptr<const Trace> last_trace;
    // Every completed launch's trace, parallel to `launches` (null: the backend traced none), and
    // the buffer shapes the lesson declared.
    std::vector<std::shared_ptr<const Trace>> launch_traces;
    std::vector<BufferShape> shapes;
    // The launch to show first: the one the first failing check measured; when every check
    // passed (or the failing ones measured none), the one the performance checks measured, else
    // the last. -1 when no launch completed.
    int focus_launch() const;
    // "launch 2 of 3: transpose, grid (7,3,1) x block (32,32,1)"
    std::string launch_label(int index) const;
    // Shorter, for a picker: "1 of 3: grid 7x3, block 32x32" (the kernel named when there are
    // several)
    std::string launch_shape(int index) const;
    double score() const;      // points earned
    double max_score() const;  // points available
};

CheckReport check_lesson(const Course& course, const LessonInfo& lesson,
                         const CheckOptions& options, compiler::Compiler& compiler);

// The report of a submission that could not be checked at all (missing, refused unread, its
// grader's worker lost): the lesson's checks as the reference solution gets them (learned once per
// lesson and backend, as check_lesson() learns them), each failed with "not run: " + why (a
// performance check "not measured: "), with the lesson's points, so that the pair keeps the
// lesson's maximum and its checks. status is an error with `why`.
CheckReport unchecked_report(const Course& course, const LessonInfo& lesson,
                             const CheckOptions& options, compiler::Compiler& compiler,
                             const std::string& why);

// A path for messages: relative to the course root when inside it.
std::string display_path(const Course& course, const std::string& path);

}  // namespace cudalab::lessons
