// Program lessons: the learner's file is a whole CUDA program (host code, kernels, `main`), not a
// kernel the lesson launches. A lesson declares it in lessons/manifest.toml (`kind = "program"`)
// and registers its host side with CUDALAB_PROGRAM_LESSON("NN-slug", run_function).
//
// check_lesson() builds the file with nvcc through engine/programs (the build cache and the limits
// of `cudalab run`) and hands the lesson a ProgramSession. The lesson writes its inputs (random,
// seeded) into a private work folder, runs the program there as often as it likes, in a
// supervised child process on the emulated CUDA runtime (or NVIDIA's with --backend gpu), and
// checks what came back: the exit code, stdout/stderr, the files it wrote, the runtime's result
// JSON (faults, leaks) and the timeline (every API call, copy and kernel per stream, with its
// modelled start and end). The checks are the same CheckResults as a kernel lesson's, so the
// reports, the planned check list and the linter treat both kinds alike.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/safe_files.h"
#include "lessons/lesson.h"
#include "programs/build.h"
#include "programs/timeline_json.h"

namespace cudalab::lessons {

// One run of the learner's program.
struct ProgramRun {
    bool completed = false;  // it ran and exited by itself (whatever its status)
    std::string failure;     // when !completed: why (could not start, a limit, a signal), in words
    int exit_code = -1;      // cudalab's exit code for the run (programs/runner.h)
    std::string out, err;    // its stdout and stderr (bounded by the output limit)
    double wall_seconds = 0;
    std::string backend;     // "emu" or "gpu"
    nlohmann::json runtime;  // the emulated runtime's result ({"faults", "leaks", ...}) or null
    std::vector<programs::TimelineEvent>
        timeline;  // device and host events; empty when none was written
    bool timeline_written = false;
    std::string timeline_text;      // the timeline file as written (for the app and its export)
    std::vector<std::string> args;  // what it was run with
    bool learner = true;            // the learner's program, not one of the lesson's own
    // Run with an injected fault that fired (CUDALAB_INJECT) or under an emulated older driver:
    // not the ordinary run the app's timeline shows.
    bool contrived = false;
    std::string
        trace_path;  // the traced launch's file (ProgramSession::trace_launch), "" when none
    bool ok() const { return completed && exit_code == 0; }
    // The runtime's faults, one line each ("" when none).
    std::string faults() const;
};

// The most JSON values a program lesson's timeline may hold (a bound on the memory its parse
// takes): about one per 12 bytes of an ordinary timeline's text.
inline constexpr std::size_t max_timeline_values = max_timeline_file_bytes / 12;
// [SECTION] a run's stderr in a check's message

// The program's own stderr: the runtime's lines ("cudalab: ..." and the indented lines that
// continue them) left out. The names a check looks for must come from the program.
std::string program_stderr(const std::string& err);
// The runtime's lines alone.
std::string runtime_stderr(const std::string& err);
// `text` without its trailing blanks, cut to about `max` characters at a line boundary (a first
// line longer than that at a space), "..." where cut; "(nothing)" when empty.
std::string excerpt(const std::string& text, std::size_t max = 600);
// What a run that failed left to read, for a check's message: "; its stderr: " the program's own
// lines, then "; the runtime says: " its lines (or the faults of its result when it printed
// none), each once. "" when there is neither.
std::string run_details(const ProgramRun& run);

// How one run differs from the lesson's default (the session's backend, one emulated GPU, the
// runtime's driver version).
struct RunSettings {
    std::vector<std::pair<std::string, std::string>>
        environment;          // e.g. {"CUDALAB_INJECT", "malloc:1"}
    int devices = 0;          // emulated GPUs (CUDALAB_DEVICES; on a GPU, the first N)
    long driver_version = 0;  // emulated driver version (CUDALAB_DRIVER_VERSION), 0: the runtime's
    // "" the session's; "emu" for what only the emulated runtime measures or does (constant-cache
    // requests, peak device memory, fault injection): on a GPU a lesson takes those from a second
    // run on it.
    std::string backend;
    // "" the learner's program; else another one the lesson built (ProgramSession::build), e.g. a
    // measurement of the machine the learner's figures are compared with.
    std::string executable;
};

// The NVIDIA GPUs this machine has (0 without a driver): a lesson that needs several runs on the
// emulated runtime where there are fewer.
int gpus_on_this_machine();

class ProgramSession {
  public:
    ProgramSession(std::string executable, std::string work_dir, std::string backend,
                   std::uint64_t seed, double time_limit_seconds);
    ~ProgramSession();
    ProgramSession(const ProgramSession&) = delete;
    ProgramSession& operator=(const ProgramSession&) = delete;
    // Every later run traces launch N in full (the emulated runtime's CUDALAB_TRACE_LAUNCH);
    // ProgramRun::trace_path names the file.
    void trace_launch(std::uint64_t n) { trace_launch_ = n; }

    std::mt19937_64& rng() { return rng_; }
    // The lesson's folder (lessons/ID/), where its own helper programs live.
    void set_lesson_dir(std::string dir) { lesson_dir_ = std::move(dir); }
    // Builds `file` (relative to the lesson's folder) with nvcc, through the cache and limits the
    // learner's program is built with; the executable goes in RunSettings::executable. False,
    // with `why` (file: and nvcc's message), when it does not build.
    bool build(const std::string& file, std::string* executable, std::string* why);
    // The resident memory a run may use (the program and its children); 0: the sandbox's default.
    void set_memory_limit(std::uint64_t bytes) { memory_limit_bytes_ = bytes; }
    // Whether builds and runs are sandboxed (programs/sandbox.h), and the folders the sandbox
    // hides even inside one it shows (the course's root).
    void set_sandbox(bool on, std::vector<std::string> hidden) {
        sandbox_ = on;
        hidden_ = std::move(hidden);
    }
    // The limits nvcc builds the lesson's own programs under.
    void set_build_limits(const programs::Limits& limits) { build_limits_ = limits; }
    // The folder the program runs in; the lesson writes its inputs there.
    const std::string& work_dir() const { return work_dir_; }
    // Writes the file `name` in the work folder: a new file renamed over whatever the program left
    // under that name (a link is replaced, never written through).
    bool write_file(const std::string& name, const void* data, std::size_t bytes);
    // The bytes of a file the program wrote in the work folder: false when there is none, or when
    // it is a link (or reached through one), not a regular file, or larger than max_bytes.
    bool read_file(const std::string& name, std::vector<unsigned char>* bytes,
                   std::size_t max_bytes = max_lesson_output_bytes);

    // Runs the program with `args` in the work folder, with a timeline. The run's outcome is
    // kept for later checks (last_run()).
    const ProgramRun& run(const std::vector<std::string>& args, const RunSettings& settings = {});
    const ProgramRun* last_run() const { return runs_.empty() ? nullptr : &runs_.back(); }
    const std::deque<ProgramRun>& runs() const { return runs_; }
    const std::string& backend() const { return backend_; }

    // The lesson's out.bin is partly the host's work by design (lesson 17 shares each round between
    // the GPU and the host): the check that out.bin came back from kernels says so instead, and the
    // lesson's own checks hold the GPU to its share.
    void set_host_share(std::string why) { host_share_ = std::move(why); }
    const std::string& host_share() const { return host_share_; }
    // Inputs only (`cudalab inputs`, write_program_inputs): the first run of the learner's program
    // runs nothing; the files the lesson wrote for it are kept and the lesson's host side is
    // stopped there (an InputsWritten is thrown). A helper program is neither built nor run.
    void set_inputs_only() { inputs_only_ = true; }
    bool inputs_only() const { return inputs_only_; }

    // A correctness check: passed or not, with what happened and what to try.
    bool check(const std::string& name, bool passed, double bad, const std::string& message,
               const std::string& advice);
    // Performance checks; `measured_on_correct` false: the figure was taken on a wrong result and
    // fails as "not measured".
    bool check_at_least(const std::string& name, double value, double threshold,
                        const std::string& message, const std::string& advice,
                        bool measured_on_correct, const std::string& fix_first);
    bool check_at_most(const std::string& name, double value, double threshold,
                       const std::string& message, const std::string& advice,
                       bool measured_on_correct, const std::string& fix_first);

    // A performance check whose figure does not exist for a reason other than a wrong result
    // (no kernel ran, no constant loads to count): failed, "not measured: " + why.
    bool not_measured(const std::string& name, double threshold, bool at_least,
                      const std::string& why, const std::string& advice);

    const std::vector<CheckResult>& checks() const { return checks_; }
    std::vector<std::string>& log() { return log_; }
    bool failed() const;

  private:
    std::string host_share_;
    bool bounded(const std::string& name, double value, double threshold, bool at_least,
                 const std::string& message, const std::string& advice, bool measured_on_correct,
                 const std::string& fix_first);
    std::string executable_, work_dir_, backend_, lesson_dir_;
    // The work folder, opened before any run: its files are reached through it, never by a path
    // the program could have turned into a link.
    OpenDir work_;
    // The session's own folder, which the program never sees (the sandbox binds the work folder
    // only): the timelines and traces are copied here.
    std::string out_dir_;
    OpenDir out_;
    std::map<std::string, std::string> helper_names_;  // executable -> "./name" for the log
    std::mt19937_64 rng_;
    double time_limit_seconds_;
    std::uint64_t trace_launch_ = 0;
    // A deque: run() hands out references that stay valid while later runs are added.
    std::deque<ProgramRun> runs_;
    std::vector<CheckResult> checks_;
    std::vector<std::string> log_;
    std::uint64_t memory_limit_bytes_ = 0;
    bool sandbox_ = true;
    std::vector<std::string> hidden_;
    programs::Limits build_limits_ = programs::default_build_limits();
    bool inputs_only_ = false;
};

// What the inputs-only session stops with: the run the lesson would have made.
struct InputsWritten {
    std::vector<std::string> args;  // the program's arguments ("in.bin", "out.bin")
    RunSettings settings;           // its environment, GPUs, driver version
};

// [SECTION] timeline arithmetic, for the lessons' checks

struct Interval {
    double start = 0, end = 0;  // microseconds
};
// The union of intervals, sorted and merged.
std::vector<Interval> merge_intervals(std::vector<Interval> v);
// How much of [a.start, a.end) the merged intervals cover.
double covered(const Interval& a, const std::vector<Interval>& merged);

struct Course;
struct LessonInfo;
struct CheckOptions;
struct CheckReport;
// Builds `path` (the learner's program) and runs the lesson's host side on it; `report` comes with
// the lesson, title and source filled in. Called by check_lesson() for `kind = "program"` lessons.
CheckReport check_program_lesson(const Course& course, const LessonInfo& lesson,
                                 const CheckOptions& options, const std::string& path,
                                 CheckReport report);

// The input files (in.bin ...) of the lesson's first run of the learner's program, written into
// `dir` exactly as check_program_lesson() writes them for `seed` and `backend` ("emu" or "gpu"):
// the lesson's host side runs in an inputs-only session up to that run (no program is built).
// `files` gets the names written, `run` the arguments and settings of that run.
struct ProgramInputs {
    std::vector<std::string> files;
    InputsWritten run;
};
Status write_program_inputs(const LessonInfo& lesson, std::uint64_t seed,
                            const std::string& backend, const std::string& dir, ProgramInputs* out);

using ProgramLessonRun = std::function<void(ProgramSession&)>;

struct ProgramHostSide {
    std::string id;
    ProgramLessonRun run;
};
std::vector<ProgramHostSide>& registered_program_host_sides();
struct ProgramRegistrar {
    ProgramRegistrar(const char* id, ProgramLessonRun run) {
        registered_program_host_sides().push_back({id, std::move(run)});
    }
};
#define CUDALAB_PROGRAM_LESSON(id, run_function)                                                   \
    static ::cudalab::lessons::ProgramRegistrar cudalab_program_lesson_registrar_ {                \
        id, run_function                                                                           \
    }

}  // namespace cudalab::lessons
