// Program lessons (program_lesson.h): the session a lesson's host side runs the learner's program
// through, and check_program_lesson(), the build-and-run path check_lesson() takes for them.
//
// [SECTION] ProgramRun and ProgramSession
// [SECTION] timeline arithmetic
// [SECTION] check_program_lesson
#include "lessons/program_lesson.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <sstream>

#include "compiler/include_jail.h"
#include "lessons/course.h"
#include "programs/build.h"
#include "programs/runner.h"
#include "programs/sandbox.h"
#include "trace/trace_io.h"

namespace fs = std::filesystem;

namespace cudalab::lessons {

std::vector<ProgramHostSide>& registered_program_host_sides() {
    static std::vector<ProgramHostSide> sides;
    return sides;
}

// [SECTION] ProgramRun and ProgramSession

std::string ProgramRun::faults() const {
    std::string s;
    if (runtime.is_object() && runtime.contains("faults") && runtime["faults"].is_array())
        for (const auto& f : runtime["faults"]) {
            // The runtime writes each fault as {device, error, message}: the message (file:line,
            // block and thread, what to try) is what a learner reads.
            std::string text = f.is_string() ? f.get<std::string>()
                               : f.is_object() && f.contains("message") && f["message"].is_string()
                                   ? f["message"].get<std::string>()
                                   : f.dump();
            s += (s.empty() ? "" : "\n") + text;
        }
    return s;
}

namespace {

// The lines of `err` that the runtime wrote (`runtime` true) or the program (false).
std::string stderr_lines(const std::string& err, bool runtime_lines) {
    std::string out;
    bool runtime = false;
    for (std::size_t at = 0; at < err.size();) {
        const std::size_t nl = std::min(err.find('\n', at), err.size());
        const std::string line = err.substr(at, nl - at);
        at = nl + 1;
        if (line.rfind("cudalab:", 0) == 0) runtime = true;
        else if (!(runtime && line.rfind("  ", 0) == 0)) runtime = false;
        if (runtime == runtime_lines) out += line + "\n";
    }
    return out;
}

}  // namespace

std::string program_stderr(const std::string& err) { return stderr_lines(err, false); }
std::string runtime_stderr(const std::string& err) { return stderr_lines(err, true); }

std::string excerpt(const std::string& text, std::size_t max) {
    std::size_t end = text.size();
    while (end > 0 && (text[end - 1] == '\n' || text[end - 1] == ' ' || text[end - 1] == '\r'))
        --end;
    if (end == 0) return "(nothing)";
    if (end <= max) return text.substr(0, end);
    // Whole lines: a CHECK line cut in half hides what the program said.
    std::size_t cut = text.rfind('\n', max);
    if (cut == std::string::npos || cut == 0) {
        cut = text.rfind(' ', max);
        if (cut == std::string::npos || cut == 0) cut = max;
    }
    return text.substr(0, cut) + " ...";
}

std::string run_details(const ProgramRun& run) {
    const std::string own = program_stderr(run.err), runtime = runtime_stderr(run.err);
    std::string s;
    if (own.find_first_not_of(" \n\r") != std::string::npos) s += "; its stderr: " + excerpt(own);
    // The runtime prints each fault as it happens; its result repeats them: one of the two.
    // The runtime's note of device memory never freed is no news after the program gave up at an
    // error (its buffers go with it): it would only bury the cause.
    std::string kept;
    bool leak_note = false;
    for (std::size_t at = 0; at < runtime.size();) {
        const std::size_t nl = std::min(runtime.find('\n', at), runtime.size());
        const std::string line = runtime.substr(at, nl - at);
        at = nl + 1;
        if (line.rfind("cudalab:", 0) == 0)
            leak_note = run.exit_code != 0 && line.find("never freed") != std::string::npos;
        if (!leak_note) kept += line + "\n";
    }
    const std::string said = kept.empty() ? run.faults() : kept;
    if (!said.empty()) s += "; the runtime says: " + excerpt(said);
    return s;
}

int gpus_on_this_machine() {
    std::string why;
    int gpus = 0;
    return programs::gpu_available(&why, &gpus) ? gpus : 0;
}

ProgramSession::ProgramSession(std::string executable, std::string work_dir, std::string backend,
                               std::uint64_t seed, double time_limit_seconds)
    : executable_(std::move(executable)), work_dir_(std::move(work_dir)),
      backend_(std::move(backend)), rng_(seed), time_limit_seconds_(time_limit_seconds) {
    work_.open(work_dir_);
    std::error_code ec;
    std::string tmpl = (fs::temp_directory_path(ec) / "cudalab-session-XXXXXX").string();
    if (::mkdtemp(tmpl.data())) {
        out_dir_ = tmpl;
        out_.open(out_dir_);
    }
}

ProgramSession::~ProgramSession() {
    std::error_code ec;
    if (!out_dir_.empty()) fs::remove_all(out_dir_, ec);
}

bool ProgramSession::write_file(const std::string& name, const void* data, std::size_t bytes) {
    std::string why;
    return work_.is_open() && write_file_beneath(work_.fd(), name, data, bytes, &why);
}

bool ProgramSession::read_file(const std::string& name, std::vector<unsigned char>* bytes,
                               std::size_t max_bytes) {
    bytes->clear();
    std::string text, why;
    if (!work_.is_open() ||
        read_file_beneath(work_.fd(), name, max_bytes, name, &text, &why) != ReadOutcome::ok)
        return false;
    bytes->assign(text.begin(), text.end());
    return true;
}

namespace {

// The timeline file the runtime (or the CUPTI library) wrote, in the session's own folder:
// complete events only. Read with the rules of base/safe_files.h (no link, a regular file, at most
// max_timeline_file_bytes, nesting and values bounded): *refused says why when it was refused.
std::vector<programs::TimelineEvent> read_timeline(int dir_fd, const std::string& name,
                                                   std::string* text, std::string* why,
                                                   std::string* refused) {
    std::vector<programs::TimelineEvent> events;
    const ReadOutcome got =
        read_file_beneath(dir_fd, name, max_timeline_file_bytes, "the timeline", text, why);
    if (got != ReadOutcome::ok) {
        if (got == ReadOutcome::refused) *refused = *why;
        text->clear();
        return events;
    }
    nlohmann::json j =
        parse_json_bounded(*text, max_json_depth, max_timeline_values, "the timeline", why);
    if (j.is_discarded()) {
        *refused = *why;
        return events;
    }
    if (!j.is_object() || !j.contains("traceEvents") || !j["traceEvents"].is_array()) {
        *why = "the timeline has no traceEvents list";
        return events;
    }
    // A timeline past the runtime's cap lost events: no figure read from it can be trusted, so the
    // run fails with the count rather than being measured on what was kept.
    if (j.contains("otherData") && j["otherData"].is_object() &&
        j["otherData"].contains("dropped_events") && j["otherData"]["dropped_events"].is_number() &&
        j["otherData"]["dropped_events"].get<double>() > 0) {
        *refused = "its timeline overflowed the runtime's cap of 2000000 events (" +
                   std::to_string(std::uint64_t(j["otherData"]["dropped_events"].get<double>())) +
                   " more were dropped); a lesson's program makes far fewer CUDA calls";
        *why = *refused;
        return events;
    }
    for (const auto& e : j["traceEvents"]) {
        // The file comes from the learner's process: any field may have any type.
        auto text = [&e](const char* key) {
            return e.contains(key) && e[key].is_string() ? e[key].get<std::string>()
                                                         : std::string();
        };
        auto number = [&e](const char* key) {
            return e.contains(key) && e[key].is_number() ? e[key].get<double>() : 0.0;
        };
        if (!e.is_object() || text("ph") != "X") continue;
        programs::TimelineEvent t;
        t.name = text("name");
        t.category = text("cat");
        const double ts = std::clamp(number("ts"), 0.0, 1e15),
                     dur = std::clamp(number("dur"), 0.0, 1e15);
        t.start_ns = std::uint64_t(ts * 1000.0);
        t.end_ns = t.start_ns + std::uint64_t(dur * 1000.0);
        t.pid = std::int64_t(std::clamp(number("pid"), -1e9, 1e9));
        t.tid = std::int64_t(std::clamp(number("tid"), -1e18, 1e18));
        if (e.contains("args") && e["args"].is_object()) t.args = e["args"];
        events.push_back(std::move(t));
    }
    return events;
}

}  // namespace

const ProgramRun& ProgramSession::run(const std::vector<std::string>& args,
                                      const RunSettings& settings) {
    ProgramRun run;
    if (inputs_only_) {
        // The learner's first run: its inputs are written, the lesson stops here.
        if (settings.executable.empty()) throw InputsWritten{args, settings};
        run.failure = "not run: only the inputs are written";
        run.args = args;
        run.learner = false;
        runs_.push_back(std::move(run));
        return runs_.back();
    }
    programs::RunRequest req;
    req.executable = settings.executable.empty() ? executable_ : settings.executable;
    // The learner's program on the emulated runtime: the device vouches for out.bin (its bytes
    // came back from device memory that kernels wrote; cudart/provenance.h).
    std::vector<std::pair<std::string, std::string>> environment = settings.environment;
    if (settings.executable.empty() &&
        (settings.backend.empty() ? backend_ : settings.backend) == "emu")
        environment.push_back({"CUDALAB_PROVENANCE", work_dir_ + "/out.bin"});
    req.argv0 = "./program";
    req.args = args;
    req.backend = settings.backend.empty() ? backend_ : settings.backend;
    req.environment = environment;
    req.devices = settings.devices;
    req.driver_version = settings.driver_version;
    req.built_by_cudalab = true;
    req.cwd = work_dir_;
    // The timeline and the trace go to the session's own folder, out of the program's reach (in
    // the sandbox it sees the work folder only; copies into it would follow its links).
    const std::string timeline_name = "timeline.json";
    const std::string timeline = out_dir_ + "/" + timeline_name;
    if (out_.is_open()) ::unlinkat(out_.fd(), timeline_name.c_str(), 0);
    req.timeline = timeline;
    req.output_file_cap = max_timeline_file_bytes;
    if (trace_launch_) {
        // One file per run: the app opens the one of the run whose timeline it shows.
        const std::string name = "trace-" + std::to_string(runs_.size());
        run.trace_path = out_dir_ + "/" + name;
        if (out_.is_open()) ::unlinkat(out_.fd(), name.c_str(), 0);
        req.trace = run.trace_path;
        req.trace_launch = trace_launch_;
    }
    // Learner code is untrusted: in the sandbox (check_program_lesson() decided), with the
    // sandbox's limits either way.
    req.sandbox = sandbox_;
    req.sandbox_hidden = hidden_;
    req.limits = programs::default_run_limits(true);
    if (time_limit_seconds_ > 0) req.limits.wall_seconds = time_limit_seconds_;
    if (memory_limit_bytes_ > 0) req.limits.memory_bytes = memory_limit_bytes_;
    req.limits.cpu_seconds = std::max(req.limits.cpu_seconds, req.limits.wall_seconds);
    req.output = programs::OutputMode::capture;
    req.limits.output_bytes = 1u << 20;
    req.stdin_null = true;
    // The runtime next to the executable (cudalab's), else the build tree's (the test binary lives
    // in a sub-folder of it).
    if (programs::find_emulated_runtime("", nullptr).empty())
        req.cudart_dir = std::string(CUDALAB_BUILD_DIR) + "/cudart-emu";
    if (programs::find_cupti_library("", nullptr).empty())
        req.cupti_library = std::string(CUDALAB_BUILD_DIR) + "/libcudalab_cupti.so";
    programs::RunResult r = programs::run_program(req);
    run.backend = r.backend;
    run.exit_code = programs::run_exit_code(r);
    run.out = r.process.out;
    run.err = r.process.err;
    run.wall_seconds = r.process.wall_seconds;
    run.runtime = r.runtime;
    run.completed = r.started && r.process.outcome == programs::Outcome::exited;
    if (!run.completed) {
        std::string s = programs::run_summary(r, false);
        if (s.rfind("cudalab: ", 0) == 0) s = s.substr(9);
        run.failure = s.empty() ? "the program did not run" : s;
    }
    std::string why, refused = r.file_refused;
    if (r.timeline_written && out_.is_open())
        run.timeline = read_timeline(out_.fd(), timeline_name, &run.timeline_text, &why, &refused);
    run.timeline_written = r.timeline_written && out_.is_open() && why.empty();
    if (!run.timeline_written) run.timeline_text.clear();
    if (!refused.empty() && !run.completed) {
        // Stopped by a limit while its runtime was writing: the limit is what happened (the
        // half-written record counts for nothing).
        run.timeline.clear();
        run.timeline_text.clear();
        run.timeline_written = false;
        run.runtime = nullptr;
    } else if (!refused.empty()) {
        // The runtime writes these files; only a program that replaced them (a link to another
        // file, a FIFO, a huge file) gets here. Its run counts for nothing.
        run.completed = false;
        run.failure =
            refused.rfind("its timeline overflowed", 0) == 0
                ? "the program's run cannot be measured: " + refused
                : "the program tampered with the files its CUDA runtime writes: " + refused;
        run.timeline.clear();
        run.timeline_text.clear();
        run.timeline_written = false;
        run.runtime = nullptr;
    }
    run.args = args;
    run.learner = settings.executable.empty();
    // Contrived: an older driver emulated, or a fault injected that fired (lesson 16 names decoy
    // faults that never fire in every run; the runtime's result says which fired). Without the
    // runtime's result, any injection counts.
    run.contrived = settings.driver_version != 0;
    const nlohmann::json* injected = run.runtime.is_object() && run.runtime.contains("injected")
                                         ? &run.runtime["injected"]
                                         : nullptr;
    for (const auto& [name, value] : settings.environment)
        if (name == "CUDALAB_INJECT" && (!injected || !injected->is_array())) run.contrived = true;
    if (injected && injected->is_array())
        for (const auto& i : *injected)
            run.contrived |= i.is_object() && i.contains("fired") && i["fired"].is_boolean() &&
                             i["fired"].get<bool>();
    std::string env;
    for (const auto& [k, v] : settings.environment) env += k + "=" + v + " ";
    if (settings.devices) env += "CUDALAB_DEVICES=" + std::to_string(settings.devices) + " ";
    if (settings.driver_version)
        env += "CUDALAB_DRIVER_VERSION=" + std::to_string(settings.driver_version) + " ";
    const auto helper = helper_names_.find(settings.executable);
    const std::string shown_name = settings.executable.empty() ? "./program"
                                   : helper != helper_names_.end()
                                       ? helper->second
                                       : "./" + fs::path(settings.executable).filename().string();
    log_.push_back("ran " + env + shown_name +
                   [&] {
                       std::string a;
                       for (const auto& x : args) a += " " + x;
                       return a;
                   }() +
                   " on " + (run.backend.empty() ? backend_ : run.backend) + ": exit " +
                   std::to_string(run.exit_code) + " in " +
                   std::to_string(int(run.wall_seconds * 1000)) + " ms");
    runs_.push_back(std::move(run));
    return runs_.back();
}

bool ProgramSession::build(const std::string& file, std::string* executable, std::string* why) {
    if (inputs_only_) {
        *why = "not built: only the inputs are written";
        return false;
    }
    programs::BuildRequest b;
    std::error_code ec;
    const fs::path source = fs::absolute(fs::path(lesson_dir_) / file, ec);
    b.inputs = {source.string()};
    b.cwd = source.parent_path().string();
    b.limits = build_limits_;
    b.sandbox = sandbox_;
    b.sandbox_hidden = hidden_;
    programs::BuildResult built = programs::build_program(b);
    if (!built.ok()) {
        *why = source.string() + ": " + built.message +
               (built.log.empty() ? "" : "\n" + built.log.substr(0, 2000));
        return false;
    }
    *executable = built.executable;
    helper_names_[built.executable] = "./" + fs::path(file).stem().string();
    return true;
}

bool ProgramSession::check(const std::string& name, bool passed, double bad,
                           const std::string& message, const std::string& advice) {
    CheckResult c;
    c.name = name;
    c.kind = CheckKind::correctness;
    c.passed = passed;
    c.value = passed ? 0 : std::max(bad, 1.0);
    c.message = message;
    if (!passed) c.advice = advice;
    checks_.push_back(std::move(c));
    return passed;
}

bool ProgramSession::bounded(const std::string& name, double value, double threshold, bool at_least,
                             const std::string& message, const std::string& advice,
                             bool measured_on_correct, const std::string& fix_first) {
    CheckResult c;
    c.name = name;
    c.kind = CheckKind::performance;
    c.threshold = threshold;
    c.comparison = at_least ? ">=" : "<=";
    if (!measured_on_correct) {
        // A figure taken on a wrong result means nothing (a program that does nothing overlaps
        // nothing fast).
        c.value = std::nan("");
        c.measured = false;
        c.passed = false;
        c.message =
            "not measured: the program's result is wrong, so the figure would mean nothing (" +
            message + ")";
        c.advice = fix_first;
    } else {
        c.value = value;
        c.passed = at_least ? value >= threshold : value <= threshold;
        c.message = message;
        if (!c.passed) c.advice = advice;
    }
    const bool passed = c.passed;
    checks_.push_back(std::move(c));
    return passed;
}

bool ProgramSession::check_at_least(const std::string& name, double value, double threshold,
                                    const std::string& message, const std::string& advice,
                                    bool measured_on_correct, const std::string& fix_first) {
    return bounded(name, value, threshold, true, message, advice, measured_on_correct, fix_first);
}

bool ProgramSession::check_at_most(const std::string& name, double value, double threshold,
                                   const std::string& message, const std::string& advice,
                                   bool measured_on_correct, const std::string& fix_first) {
    return bounded(name, value, threshold, false, message, advice, measured_on_correct, fix_first);
}

bool ProgramSession::not_measured(const std::string& name, double threshold, bool at_least,
                                  const std::string& why, const std::string& advice) {
    CheckResult c;
    c.name = name;
    c.kind = CheckKind::performance;
    c.threshold = threshold;
    c.comparison = at_least ? ">=" : "<=";
    c.value = std::nan("");
    c.measured = false;
    c.passed = false;
    c.message = "not measured: " + why;
    c.advice = advice;
    checks_.push_back(std::move(c));
    return false;
}

bool ProgramSession::failed() const {
    for (const auto& c : checks_)
        if (!c.passed) return true;
    return false;
}

// [SECTION] timeline arithmetic

std::vector<Interval> merge_intervals(std::vector<Interval> v) {
    std::sort(v.begin(), v.end(),
              [](const Interval& a, const Interval& b) { return a.start < b.start; });
    std::vector<Interval> out;
    for (const auto& i : v) {
        if (i.end <= i.start) continue;
        if (!out.empty() && i.start <= out.back().end)
            out.back().end = std::max(out.back().end, i.end);
        else out.push_back(i);
    }
    return out;
}

double covered(const Interval& a, const std::vector<Interval>& merged) {
    // `merged` is sorted and disjoint: start at the first interval that ends after a starts, stop
    // at the first that starts after a ends (the app calls this per item of long timelines).
    auto it = std::upper_bound(merged.begin(), merged.end(), a.start,
                               [](double t, const Interval& m) { return t < m.end; });
    double sum = 0;
    for (; it != merged.end() && it->start < a.end; ++it) {
        const double lo = std::max(a.start, it->start), hi = std::min(a.end, it->end);
        if (hi > lo) sum += hi - lo;
    }
    return sum;
}

// [SECTION] check_program_lesson

namespace {

// A private folder the program runs in, removed afterwards.
struct WorkDir {
    fs::path path;
    WorkDir() {
        std::random_device rd;
        std::error_code ec;
        for (int i = 0; i < 8 && path.empty(); ++i) {
            fs::path p =
                fs::temp_directory_path(ec) /
                ("cudalab-lesson-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
            if (fs::create_directory(p, ec)) path = p;
        }
    }
    ~WorkDir() {
        std::error_code ec;
        if (!path.empty()) fs::remove_all(path, ec);
    }
};

// nvcc's "file:12: error: message" lines (as programs::colon_line_numbers writes them), as the
// reports' diagnostics.
std::vector<compiler::Diagnostic> parse_nvcc_log(const std::string& log, const std::string& file) {
    std::vector<compiler::Diagnostic> out;
    static const std::regex line_re(R"(^(.+?):(\d+): (error|warning|catastrophic error): (.*)$)");
    std::istringstream in(log);
    std::string line;
    while (std::getline(in, line)) {
        std::smatch m;
        if (!std::regex_match(line, m, line_re)) continue;
        compiler::Diagnostic d;
        d.file = file;
        d.line = std::stoi(m[2]);
        d.severity = m[3] == "warning" ? Severity::warning : Severity::error;
        d.message = m[4];
        out.push_back(std::move(d));
    }
    return out;
}

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    if (from.empty()) return s;
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
    return s;
}

}  // namespace

// The GPU targets a learner's file names in `// nvcc: OPTIONS` lines (LessonInfo::
// nvcc_targets_from_source): only -arch, -code and -gencode with their values, of letters, digits
// and `_ , = [ ]`, are taken; `ignored` gets anything else, which is not passed to nvcc.
std::vector<std::string> source_targets(const std::string& path, std::string* ignored) {
    std::vector<std::string> out;
    std::ifstream in(path);
    std::string line;
    static const std::regex comment(R"(^\s*//\s*nvcc:\s*(.*)$)");
    static const std::regex value(R"(^[A-Za-z0-9_,=\[\]]+$)");
    static const std::regex joined(
        R"(^(-arch|-code|-gencode|--gpu-architecture|--gpu-code|--generate-code)=([A-Za-z0-9_,=\[\]]+)$)");
    std::size_t lines = 0;
    while (std::getline(in, line) && ++lines <= 10000) {
        std::smatch m;
        if (!std::regex_match(line, m, comment)) continue;
        std::istringstream words(m[1].str());
        std::vector<std::string> w{std::istream_iterator<std::string>(words), {}};
        for (std::size_t i = 0; i < w.size(); ++i) {
            const bool takes_next = w[i] == "-arch" || w[i] == "-code" || w[i] == "-gencode" ||
                                    w[i] == "--generate-code";
            if (std::regex_match(w[i], joined)) out.push_back(w[i]);
            else if (takes_next && i + 1 < w.size() && std::regex_match(w[i + 1], value)) {
                out.push_back(w[i]);
                out.push_back(w[++i]);
            } else *ignored += (ignored->empty() ? "" : " ") + w[i];
        }
    }
    return out;
}

namespace {

// Every program lesson: work that a GPU may run in either order, found by the emulated runtime's
// race check between streams (docs/runtime.md, "Races between streams"), fails the lesson with
// both lines and the fix, whatever the lesson's own checks found. On a GPU only the emulated
// runtime's runs can tell.
void check_stream_order(ProgramSession& s) {
    std::uint64_t total = 0;
    const nlohmann::json* first = nullptr;
    bool looked = false;
    std::size_t unfinished = 0;  // runs of the program with no record of the runtime's
    std::uint64_t launches = 0;
    std::string why;
    for (const auto& r : s.runs()) {
        if (!r.learner) continue;
        if (!r.completed || !r.runtime.is_object()) {
            if (!unfinished++) why = r.failure;
            continue;
        }
        looked = true;
        if (const auto k = r.runtime.find("kernels"); k != r.runtime.end() && k->is_array())
            for (const auto& kernel : *k)
                if (kernel.is_object()) launches += kernel.value("launches", std::uint64_t(0));
        const auto t = r.runtime.find("races_total");
        if (t != r.runtime.end() && t->is_number_unsigned()) total += t->get<std::uint64_t>();
        const auto list = r.runtime.find("races");
        if (!first && list != r.runtime.end() && list->is_array() && !list->empty() &&
            list->front().is_object())
            first = &list->front();
    }
    const std::string name = "streams are ordered: nothing a GPU may run in either order";
    if (!looked && s.backend() == "gpu") {
        s.check(name, true, 0, "not checked: only the emulated runtime follows the order of work",
                "");
        return;
    }
    if (!looked || unfinished) {
        s.check(
            name, false, 1,
            "not checked: " +
                (looked ? std::to_string(unfinished) + " of the program's runs" : "the program") +
                " did not finish with the emulated runtime's record" +
                (why.empty() ? std::string(" (the checks above say why)") : ": " + why),
            "make the program run to the end first");
        return;
    }
    if (total == 0 && launches == 0) {
        // Nothing ran on the device: nothing to order, and no credit for it.
        s.check(name, false, 1, "not checked: the program launched no kernel",
                "do the lesson's work on the GPU first");
        return;
    }
    if (total == 0) {
        s.check(name, true, 0,
                "every access to shared bytes was ordered by streams, events or waits", "");
        return;
    }
    auto text = [&](const char* key) -> std::string {
        if (!first) return "";
        const auto it = first->find(key);
        return it != first->end() && it->is_string() ? it->get<std::string>() : "";
    };
    std::string message = std::to_string(total) + (total == 1 ? " race" : " races") + ": ";
    std::string head = text("message");
    if (const auto cut = head.find("\n  fix:"); cut != std::string::npos) head.resize(cut);
    message += head.empty() ? "see the program's stderr" : head;
    s.check(name, false, double(total), message,
            text("fix").empty()
                ? "order the work with events (cudaEventRecord, cudaStreamWaitEvent) "
                  "or a synchronisation"
                : text("fix"));
}

// Every program lesson: out.bin must hold what the program's kernels computed, as it came back
// from device memory they wrote (the emulated device process vouches for it; cudart/
// provenance.h). A program that computes on the host and launches decoy kernels fails here,
// whatever its counters say.
void check_output_provenance(ProgramSession& s) {
    const std::string name = "out.bin is what the kernels computed, copied back from the device";
    if (!s.host_share().empty()) {
        s.check(name, true, 0, "not checked: " + s.host_share(), "");
        return;
    }
    std::size_t looked = 0, wrote = 0, unfinished = 0;
    std::string why;
    const nlohmann::json* failed = nullptr;
    for (const auto& r : s.runs()) {
        // A run with a fault injected (lesson 16) may leave whatever the program wrote after it:
        // only the ordinary runs must be the kernels' work.
        if (!r.learner || r.contrived) continue;
        if (!r.completed || !r.runtime.is_object()) {
            if (!unfinished++) why = r.failure;
            continue;
        }
        const auto list = r.runtime.find("provenance");
        if (list == r.runtime.end() || !list->is_array()) continue;
        ++looked;
        for (const auto& v : *list) {
            if (!v.is_object() || !v.value("read", false)) continue;
            ++wrote;
            if (!v.value("from_device", false) && !failed) failed = &v;
        }
    }
    if (!looked && s.backend() == "gpu") {
        s.check(name, true, 0, "not checked: only the emulated device follows the bytes", "");
        return;
    }
    if (!looked) {
        s.check(name, false, 1,
                "not checked: the program did not finish with the emulated device's record" +
                    (why.empty() ? std::string(" (the checks above say why)") : ": " + why),
                "make the program run to the end first");
        return;
    }
    if (!wrote) {
        s.check(name, false, 1, "not checked: the program wrote no out.bin",
                "write the result the kernels computed to out.bin");
        return;
    }
    if (!failed) {
        s.check(name, true, 0,
                "every out.bin the program wrote came back from device memory its kernels wrote",
                "");
        return;
    }
    s.check(name, false, 1,
            "out.bin was not copied from device memory that the kernels wrote: " +
                failed->value("why", std::string("no reason recorded")),
            "compute the result on the GPU and copy it back (cudaMemcpy from the device buffer the "
            "kernel wrote) before writing out.bin; host arithmetic on the result is not the "
            "lesson's");
}

}  // namespace

Status write_program_inputs(const LessonInfo& lesson, std::uint64_t seed,
                            const std::string& backend, const std::string& dir,
                            ProgramInputs* out) {
    const ProgramHostSide* host = nullptr;
    for (const auto& h : registered_program_host_sides())
        if (h.id == lesson.id) host = &h;
    if (!host)
        return Status::error(StatusCode::bad_usage,
                             lesson.id +
                                 " is not a program lesson: its checks write no input files");
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (!fs::is_directory(dir, ec))
        return Status::error(StatusCode::io_error, "cannot create the folder " + dir);
    // The lesson writes into a private folder (it may remove an old out.bin there); only what it
    // wrote for the run is copied to `dir`.
    WorkDir work;
    if (work.path.empty())
        return Status::error(StatusCode::io_error, "cannot create a work folder in " +
                                                       fs::temp_directory_path(ec).string());
    // The same session as check_program_lesson's: same seed, same backend, so the same draws.
    ProgramSession session("", work.path.string(), backend, seed, 60);
    session.set_lesson_dir(fs::path(lesson.host_path).parent_path().string());
    session.set_inputs_only();
    bool reached = false;
    try {
        host->run(session);
    } catch (const InputsWritten& w) {
        out->run = w;
        reached = true;
    }
    if (!reached)
        return Status::error(StatusCode::bad_usage,
                             "lesson " + lesson.id +
                                 " never ran the program, so it wrote no inputs");
    out->files.clear();
    for (const auto& e : fs::directory_iterator(work.path, ec)) {
        const std::string name = e.path().filename().string();
        if (name.empty() || name[0] == '.' || !e.is_regular_file(ec)) continue;
        if (!fs::copy_file(e.path(), fs::path(dir) / name, fs::copy_options::overwrite_existing,
                           ec))
            return Status::error(StatusCode::io_error, "cannot write " +
                                                           (fs::path(dir) / name).string() + ": " +
                                                           ec.message());
        out->files.push_back(name);
    }
    std::sort(out->files.begin(), out->files.end());
    return Status::success();
}

CheckReport check_program_lesson(const Course& course, const LessonInfo& lesson,
                                 const CheckOptions& options, const std::string& path,
                                 CheckReport report) {
    report.program = true;
    const ProgramHostSide* host = nullptr;
    for (const auto& h : registered_program_host_sides())
        if (h.id == lesson.id) host = &h;
    if (!host) {
        report.status = Status::error(StatusCode::bad_usage,
                                      "lesson " + lesson.id + " has no host side compiled in (" +
                                          lesson.host_path + "); rebuild cudalab");
        return report;
    }

    // Learner code is untrusted: nvcc and the program run in the sandbox, or not at all unless the
    // grader says the code is trusted (--no-sandbox); the learner's own code on their own
    // machine (the app, `learn`) runs as it is where no sandbox can be made.
    bool sandboxed = options.sandbox != CheckOptions::Sandbox::off;
    if (sandboxed && !programs::sandbox_support().ok) {
        if (options.sandbox == CheckOptions::Sandbox::required) {
            report.status = Status::error(
                StatusCode::backend_unavailable,
                "cannot check " + report.source + ": lesson " + lesson.id +
                    " builds and runs a whole program, which needs the sandbox, and the sandbox "
                    "cannot be made on this machine: " +
                    programs::sandbox_support().why_not);
            return report;
        }
        sandboxed = false;
    }
    std::error_code ec;
    const std::string abs = fs::absolute(path, ec).string();
    // The include rule NVRTC's compile jail has, for nvcc: no absolute path, no '..', no macro
    // (what a relative name can find is decided by the sandbox nvcc runs in), refused before
    // nvcc reads a file, so `#include "/etc/shadow"` or "/dev/zero" is a clear error at its line
    // and never the file's contents or an endless read.
    {
        struct stat st {};
        constexpr off_t max_source = 4 << 20;
        if (::stat(abs.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > max_source) {
            report.status = Status::error(
                StatusCode::compile_error,
                report.source + ": error: " +
                    (::stat(abs.c_str(), &st) != 0 ? std::string("no such file")
                     : !S_ISREG(st.st_mode)        ? std::string("not a regular file")
                                                   : "larger than 4 MB, more than any program of "
                                                     "a course"));
            return report;
        }
        std::ifstream in(abs, std::ios::binary);
        const std::string text((std::istreambuf_iterator<char>(in)),
                               std::istreambuf_iterator<char>());
        compiler::IncludePolicy policy;
        policy.any_relative_name = true;
        auto refused = compiler::check_includes(text, report.source, policy);
        if (!refused.empty()) {
            std::string message;
            for (const auto& d : refused)
                message += d.file + ":" + std::to_string(d.line) + ":" + std::to_string(d.column) +
                           ": error: " + d.message + "\n";
            report.diagnostics = std::move(refused);
            report.status = Status::error(StatusCode::compile_error, message);
            return report;
        }
    }
    // The course's root is never shown (its solutions, a grade store kept in it); the
    // submission's folder and the lesson's headers are bound back when they are inside it.
    std::vector<std::string> hidden = {fs::absolute(course.root, ec).string()};
    const fs::path lesson_include = fs::path(lesson.host_path).parent_path() / "include";

    // Build with nvcc, through the same cache as `cudalab run`, under the compile limits.
    programs::BuildRequest build;
    build.inputs = {abs};
    build.nvcc_options = lesson.nvcc;  // the manifest's, e.g. libraries the program links
    std::string ignored_options;
    if (lesson.nvcc_targets_from_source) {
        const auto targets = source_targets(abs, &ignored_options);
        if (!targets.empty()) {
            // The file's targets replace the manifest's -arch; its libraries stay.
            std::vector<std::string> kept;
            for (const auto& o : build.nvcc_options)
                if (o.rfind("-arch", 0) != 0 && o.rfind("-code", 0) != 0 &&
                    o.rfind("-gencode", 0) != 0)
                    kept.push_back(o);
            kept.insert(kept.end(), targets.begin(), targets.end());
            build.nvcc_options = kept;
        }
    }
    if (fs::is_directory(lesson_include, ec)) {
        build.nvcc_options.insert(build.nvcc_options.end(), {"-I", lesson_include.string()});
        build.sandbox_read_only.push_back(lesson_include.string());
    }
    build.cwd = fs::path(abs).parent_path().string();
    build.limits = programs::default_build_limits();
    build.limits.wall_seconds = options.compile_limits.seconds;
    build.limits.memory_bytes = options.compile_limits.memory_mb << 20;
    build.sandbox = sandboxed;
    build.sandbox_hidden = hidden;
    programs::BuildResult built = programs::build_program(build);
    report.compile_seconds = built.seconds;
    report.compile_cached = built.cached;
    report.compiled_seconds = built.nvcc_seconds;
    if (!built.ok()) {
        const std::string log = replace_all(built.log, programs::one_line_name(abs), report.source);
        report.diagnostics = parse_nvcc_log(log, report.source);
        const bool learner = built.failure == programs::BuildFailure::compile_error ||
                             built.failure == programs::BuildFailure::limit;
        report.status = Status::error(learner ? StatusCode::compile_error : StatusCode::bad_usage,
                                      (log.empty() ? "" : log + (log.back() == '\n' ? "" : "\n")) +
                                          report.source + ": " + built.message);
        return report;
    }

    WorkDir work;
    if (work.path.empty()) {
        report.status =
            Status::error(StatusCode::io_error,
                          "cannot create a work folder in " + fs::temp_directory_path(ec).string());
        return report;
    }
    // As root the program runs as the sandbox's user: its work folder is that user's.
    std::string why_not_given;
    if (sandboxed && !programs::give_to_sandbox_user(work.path.string(), &why_not_given)) {
        report.status = Status::error(StatusCode::io_error, why_not_given);
        return report;
    }
    // The backend: the lesson asks run_program for it, which chooses as `cudalab run` does.
    std::string backend = options.backend;
    if (backend == "gpu") {
        std::string why;
        if (!programs::gpu_available(&why)) {
            report.status =
                Status::error(StatusCode::backend_unavailable,
                              "--backend gpu: " + why +
                                  "; --backend emu runs the program on the emulated CUDA runtime");
            return report;
        }
    } else if (backend == "auto") {
        std::string why;
        backend = programs::gpu_available(&why) ? "gpu" : "emu";
        report.backend_note = backend == "gpu" ? "a CUDA driver and a GPU were found"
                                               : why + ": using the emulated CUDA runtime";
    }
    report.backend = backend;
    report.seed = options.seed ? *options.seed
                               : std::random_device{}() * 0x100000000ull + std::random_device{}();
    ProgramSession session(built.executable, work.path.string(), backend, report.seed,
                           options.time_limit_seconds > 0 ? options.time_limit_seconds : 60);
    if (options.program_trace_launch) session.trace_launch(options.program_trace_launch);
    session.set_lesson_dir(fs::path(lesson.host_path).parent_path().string());
    session.set_sandbox(sandboxed, hidden);
    session.set_build_limits(build.limits);
    const auto started = std::chrono::steady_clock::now();
    // --memory-limit bounds each run's resident memory (kernel lessons: the emulator's memory).
    if (options.memory_limit > 0) session.set_memory_limit(options.memory_limit);
    host->run(session);
    check_stream_order(session);
    check_output_provenance(session);
    report.run_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    report.checks = session.checks();
    // Work the kernels did not do earns nothing: when out.bin is not what came back from them,
    // no other check of the lesson is credited either (what they measured was a decoy).
    const auto provenance =
        std::find_if(report.checks.begin(), report.checks.end(), [](const auto& c) {
            return c.name == "out.bin is what the kernels computed, copied back from the device";
        });
    if (provenance != report.checks.end() && !provenance->passed &&
        provenance->message.rfind("out.bin was not copied", 0) == 0)
        for (auto& c : report.checks)
            if (&c != &*provenance && c.passed) {
                c.passed = false;
                c.value = c.kind == CheckKind::correctness ? 1.0 : c.value;
                c.message =
                    "not credited: out.bin was not computed by the kernels (" + c.message + ")";
                c.advice = "compute the result on the GPU and copy it back before writing out.bin";
            }
    for (auto& c : report.checks) {
        auto it = lesson.points.find(c.name);
        c.points = it == lesson.points.end() ? 1.0 : it->second;
    }
    report.log = session.log();
    if (!ignored_options.empty())
        report.log.insert(report.log.begin(),
                          "`// nvcc:` options other than -arch, -code and -gencode were ignored: " +
                              ignored_options.substr(0, 200));
    // The report shows the learner's program: its last output and timeline, never a lesson
    // helper's, and the timeline of an ordinary run where there is one (not the run with a fault
    // injected that lessons 02b and 16 end with, where the program stops early).
    const ProgramRun* shown = nullptr;
    const ProgramRun* ordinary = nullptr;
    for (const auto& r : session.runs()) {
        if (!r.learner) continue;
        report.printf_output = r.out;
        if (r.timeline_written) shown = &r;
        if (r.timeline_written && !r.contrived) ordinary = &r;
    }
    if (ordinary) shown = ordinary;
    if (shown) {
        report.program_timeline_run = "./program";
        for (const auto& a : shown->args) report.program_timeline_run += " " + a;
        // The app parses and draws it; a program with millions of calls is for Perfetto instead.
        constexpr std::size_t max_kept = 64u << 20;
        if (shown->timeline_text.size() <= max_kept) report.program_timeline = shown->timeline_text;
        else
            report.log.push_back("the timeline of `" + report.program_timeline_run + "` has " +
                                 std::to_string(shown->timeline_text.size() >> 20) +
                                 " MB, more than the app draws (64 MB); `cudalab run --timeline` "
                                 "writes it for ui.perfetto.dev");
        if (!shown->trace_path.empty()) {
            auto trace = std::make_shared<Trace>();
            std::string why;
            if (read_trace(shown->trace_path, trace.get(), &why))
                report.last_trace = std::move(trace);
            else
                report.log.push_back("launch " + std::to_string(options.program_trace_launch) +
                                     " of `" + report.program_timeline_run +
                                     "` was not traced: " + why);
        }
    }
    report.passed = !report.checks.empty() && !session.failed();
    if (report.checks.empty()) {
        CheckResult c;
        c.name = "lesson ran its checks";
        c.message = "the lesson's host side recorded no checks (a lesson bug)";
        report.checks.push_back(c);
    }
    (void)course;
    return report;
}

}  // namespace cudalab::lessons
