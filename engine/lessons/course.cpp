#include "lessons/course.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <mutex>
#include <random>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <toml++/toml.h>

#include "backends/factory.h"
#include "lessons/program_lesson.h"
#include "programs/build.h"
#include "runtime/runtime.h"

namespace fs = std::filesystem;

namespace cudalab::lessons {

const LessonInfo* Course::find(const std::string& id) const {
    for (const auto& l : lessons)
        if (l.id == id) return &l;
    return nullptr;
}

namespace {
// "05" -> {5, ""}, "2b" -> {2, "b"}: a lesson's number and letter (the part of its id before the
// first '-'), or {-1, ""} when the text is not one.
std::pair<int, std::string> lesson_number(const std::string& text) {
    std::size_t digits = 0;
    while (digits < text.size() && std::isdigit((unsigned char)text[digits])) ++digits;
    const std::string suffix = text.substr(digits);
    // Three digits at most: 99999999999999999999 is simply no lesson.
    if (digits == 0 || digits > 3 || suffix.size() > 1 ||
        (!suffix.empty() && !std::islower((unsigned char)suffix[0])))
        return {-1, ""};
    return {std::stoi(text.substr(0, digits)), suffix};
}
}  // namespace

const LessonInfo* Course::resolve(const std::string& id_or_number) const {
    if (const LessonInfo* l = find(id_or_number)) return l;
    const auto want = lesson_number(id_or_number);
    if (want.first < 0) return nullptr;
    for (const auto& l : lessons)
        if (lesson_number(l.id.substr(0, l.id.find('-'))) == want) return &l;
    return nullptr;
}

std::string Course::ids() const {
    std::string s;
    for (const auto& l : lessons) s += (s.empty() ? "" : ", ") + l.id;
    return s;
}

std::string find_course_root() {
    if (const char* env = std::getenv("CUDALAB_COURSE"); env && *env) return env;
    if (const char* env = std::getenv("CUDALAB_ROOT"); env && *env) return env;
    std::error_code ec;
    for (fs::path p = fs::current_path(ec); !p.empty(); p = p.parent_path()) {
        if (fs::exists(p / "lessons" / "manifest.toml", ec) || fs::exists(p / "manifest.toml", ec))
            return p.string();
        if (p == p.root_path()) break;
    }
    return CUDALAB_SOURCE_DIR;
}

std::string manifest_path(const std::string& root) {
    std::error_code ec;
    if (fs::is_regular_file(fs::path(root) / "manifest.toml", ec))
        return (fs::path(root) / "manifest.toml").string();
    return (fs::path(root) / "lessons" / "manifest.toml").string();
}

Status load_course(const std::string& root, Course* course) {
    course->root = root;
    course->lessons.clear();
    const fs::path manifest = manifest_path(root);
    course->manifest = manifest.string();
    if (std::error_code ec; !fs::exists(manifest, ec))
        return Status::error(StatusCode::io_error,
                             root +
                                 ": not a course: no manifest.toml (nor lessons/manifest.toml); "
                                 "`cudalab new-lesson 01-first --course " +
                                 root + "` starts one");
    toml::table table;
    try {
        table = toml::parse_file(manifest.string());
    } catch (const toml::parse_error& e) {
        return Status::error(StatusCode::io_error, manifest.string() + ":" +
                                                       std::to_string(e.source().begin.line) +
                                                       ": " + std::string(e.description()));
    }
    // Progress is kept per course: the built-in one under plain lesson ids, as it always was.
    {
        std::error_code ec;
        const fs::path here = fs::weakly_canonical(root, ec),
                       built_in = fs::weakly_canonical(CUDALAB_SOURCE_DIR, ec);
        course->key =
            here == built_in ? std::string() : table["course"]["name"].value_or(here.string());
    }
    const toml::array* lessons = table["lesson"].as_array();
    if (!lessons)
        return Status::error(StatusCode::io_error, manifest.string() + ": no [[lesson]] entries");
    std::set<std::string> seen;
    std::error_code ec;
    for (const toml::node& node : *lessons) {
        const toml::table* t = node.as_table();
        if (!t)
            return Status::error(StatusCode::io_error,
                                 manifest.string() + ": a [[lesson]] is not a table");
        LessonInfo l;
        l.id = (*t)["id"].value_or(std::string());
        l.title = (*t)["title"].value_or(std::string());
        l.part = (*t)["part"].value_or(std::string());
        l.kind = (*t)["kind"].value_or(std::string("kernel"));
        if (l.kind != "kernel" && l.kind != "program")
            return Status::error(StatusCode::io_error, manifest.string() + ": lesson '" + l.id +
                                                           "' has kind '" + l.kind +
                                                           "' (kernel or program)");
        if (l.id.empty())
            return Status::error(StatusCode::io_error, manifest.string() + ": a lesson has no id");
        if (!seen.insert(l.id).second)
            return Status::error(StatusCode::io_error,
                                 manifest.string() + ": duplicate lesson id '" + l.id + "'");
        if (const toml::array* v = (*t)["views"].as_array())
            for (const auto& x : *v) l.views.push_back(x.value_or(std::string()));
        if (const toml::array* h = (*t)["hints"].as_array())
            for (const auto& x : *h) l.hints.push_back(x.value_or(std::string()));
        if (const toml::array* n = (*t)["nvcc"].as_array())
            for (const auto& x : *n) l.nvcc.push_back(x.value_or(std::string()));
        l.nvcc_targets_from_source = (*t)["nvcc_targets_from_source"].value_or(false);
        if (const toml::table* p = (*t)["points"].as_table())
            for (const auto& [k, v] : *p) l.points[std::string(k.str())] = v.value_or(1.0);
        for (const auto& [key, value] : *t)  // hints_zh, ...: translations (lessons/translation.h)
            if (key.str().rfind("hints_", 0) == 0)
                if (const toml::array* h = value.as_array()) {
                    auto& list = l.translated_hints[std::string(key.str().substr(6))];
                    for (const auto& x : *h) list.push_back(x.value_or(std::string()));
                }
        l.text_path = (fs::path(root) / "lessons" / l.id / "lesson.md").string();
        l.host_path = (fs::path(root) / "lessons" / l.id / "lesson.cpp").string();
        if (const fs::path data = fs::path(root) / "lessons" / l.id / "lesson.toml";
            fs::exists(data, ec)) {
            if (l.kind == "kernel")
                l.host_path = data.string();  // a program lesson's host side stays lesson.cpp
            auto lesson = std::make_shared<DataLesson>();
            Status st = load_data_lesson(data.string(), lesson.get());
            if (!st.ok()) l.data_error = st.message;
            else if (lesson->kind != l.kind)
                l.data_error = data.string() + ":1: kind = \"" + lesson->kind +
                               "\" but the manifest says kind = \"" + l.kind + "\"";
            else {
                if (!lesson->views.empty()) l.views = lesson->views;
                l.data = std::move(lesson);
            }
        }
        l.exercise_path = (fs::path(root) / "exercises" / (l.id + ".cu")).string();
        l.solution_path = (fs::path(root) / "solutions" / (l.id + ".cu")).string();
        course->lessons.push_back(std::move(l));
    }
    return Status::success();
}

std::string display_path(const Course& course, const std::string& path) {
    std::error_code ec;
    fs::path rel = fs::relative(path, course.root, ec);
    // Shown on one line: a submission saved under a name with a newline stays one name in messages.
    if (ec || rel.empty() || rel.string().rfind("..", 0) == 0) return programs::one_line_name(path);
    return programs::one_line_name(rel.string());
}

double CheckReport::score() const {
    double s = 0;
    for (const auto& c : checks)
        if (c.passed) s += c.points;
    return s;
}

int CheckReport::focus_launch() const {
    const int count = int(launches.size());
    auto valid = [count](int i) { return i >= 0 && i < count; };
    for (const auto& c : checks)
        if (!c.passed && valid(c.launch)) return c.launch;
    for (const auto& c : checks)
        if (c.kind == CheckKind::performance && valid(c.launch)) return c.launch;
    return count - 1;
}

std::string CheckReport::launch_shape(int index) const {
    if (index < 0 || index >= int(launches.size())) return "no launch";
    const LaunchSummary& l = launches[std::size_t(index)];
    auto dims = [](const Dim3& d) {
        std::string s = std::to_string(d.x);
        if (d.y != 1 || d.z != 1) s += "x" + std::to_string(d.y);
        if (d.z != 1) s += "x" + std::to_string(d.z);
        return s;
    };
    bool one_kernel = true;
    for (const auto& other : launches) one_kernel = one_kernel && other.kernel == l.kernel;
    return std::to_string(index + 1) + " of " + std::to_string(launches.size()) + ": " +
           (one_kernel ? "" : l.kernel + ", ") + "grid " + dims(l.grid) + ", block " +
           dims(l.block);
}

std::string CheckReport::launch_label(int index) const {
    if (index < 0 || index >= int(launches.size())) return "no launch";
    const LaunchSummary& l = launches[std::size_t(index)];
    return "launch " + std::to_string(index + 1) + " of " + std::to_string(launches.size()) + ": " +
           l.kernel + ", grid " + l.grid.str() + " x block " + l.block.str();
}

double CheckReport::max_score() const {
    double s = 0;
    for (const auto& c : checks) s += c.points;
    return s;
}

namespace {

// Headers a lesson ships for its exercise: lessons/ID/include/NAME, included as "NAME". They are
// handed to NVRTC in memory, so the compile jail stays closed to every other file.
std::vector<std::pair<std::string, std::string>> lesson_headers(const LessonInfo& lesson) {
    std::vector<std::pair<std::string, std::string>> headers;
    std::error_code ec;
    const fs::path dir = fs::path(lesson.host_path).parent_path() / "include";
    if (!fs::is_directory(dir, ec)) return headers;
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
        if (!entry.is_regular_file(ec) || entry.file_size(ec) > (1u << 20)) continue;
        std::ifstream in(entry.path(), std::ios::binary);
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        headers.emplace_back(entry.path().filename().string(), std::move(text));
    }
    std::sort(headers.begin(), headers.end());
    return headers;
}

CheckReport check_once(const Course& course, const LessonInfo& lesson, const CheckOptions& options,
                       compiler::Compiler& compiler) {
    const auto check_started = std::chrono::steady_clock::now();
    CheckReport report;
    report.lesson = lesson.id;
    report.title = lesson.title;
    std::string path = options.source_path.empty()
                           ? (options.solution ? lesson.solution_path : lesson.exercise_path)
                           : options.source_path;
    report.source = display_path(course, path);

    if (lesson.is_program()) {
        if (options.source_path.empty() && !options.solution) {
            std::error_code ec;
            const fs::path real = fs::weakly_canonical(path, ec),
                           root = fs::weakly_canonical(course.root, ec);
            const std::string r = real.string(), c = root.string() + "/";
            if (!ec && r.compare(0, c.size(), c) != 0) {
                report.status =
                    Status::error(StatusCode::compile_error,
                                  report.source + ": error: the exercise is a link to " + r +
                                      ", outside the course; it must be the learner's own file");
                return report;
            }
        }
        return check_program_lesson(course, lesson, options, path, std::move(report));
    }

    if (!lesson.data_error.empty()) {
        report.status = Status::error(StatusCode::bad_usage, lesson.data_error);
        return report;
    }
    const HostSide* host = nullptr;
    for (const auto& h : registered_host_sides())
        if (h.id == lesson.id) host = &h;
    // A file that is not there is said first, whatever else the lesson lacks.
    if (std::error_code ec; !host && !lesson.data && fs::exists(path, ec)) {
        report.status = Status::error(
            StatusCode::bad_usage,
            "lesson " + lesson.id + " has no host side: no " +
                display_path(
                    course,
                    (fs::path(course.root) / "lessons" / lesson.id / "lesson.toml").string()) +
                " (docs/instructors.md) and no C++ host side compiled in" +
                (fs::exists(lesson.host_path, ec)
                     ? " (" + display_path(course, lesson.host_path) + ": rebuild cudalab)"
                     : ""));
        return report;
    }

    // The exercise is the learner's file: it must be a file of the course, not a link out of it
    // (to a system file whose lines a compile error would print, or anything else).
    if (options.source_path.empty() && !options.solution) {
        std::error_code ec;
        const fs::path real = fs::weakly_canonical(path, ec),
                       root = fs::weakly_canonical(course.root, ec);
        const std::string r = real.string(), c = root.string() + "/";
        if (!ec && r.compare(0, c.size(), c) != 0) {
            report.status =
                Status::error(StatusCode::compile_error,
                              report.source + ": error: the exercise is a link to " + r +
                                  ", outside the course; it must be the learner's own file");
            return report;
        }
    }

    // Compile. The learner's path is what messages show.
    compiler::CompileOptions copts;
    copts.limits = options.compile_limits;
    copts.headers = lesson_headers(lesson);
    auto module = compiler.compile_file(path, copts);
    if (!module->ok) {
        // Show the path as the learner knows it.
        report.diagnostics = module->diagnostics;
        for (auto& d : report.diagnostics) d.file = report.source;
        std::string text;
        for (const auto& d : report.diagnostics) {
            text += d.file + ":" + std::to_string(d.line) + ":" + std::to_string(d.column) + ": " +
                    to_string(d.severity) + ": " + d.message + "\n";
            if (!d.context.empty()) text += d.context + "\n";
        }
        if (text.empty()) text = module->error_text();
        report.status = Status::error(StatusCode::compile_error, text);
        report.module = module;
        return report;
    }
    report.module = module;
    report.compile_seconds = module->seconds;
    report.compile_cached = module->from_cache;
    report.compiled_seconds = module->compiled_seconds;

    // The check's limits, given to the backend as it is made (to the GPU backend's shadow
    // emulator as to the emulator backend).
    BackendOptions o;
    if (options.instruction_budget) o.instruction_budget = options.instruction_budget;
    if (options.memory_limit) o.memory_limit = options.memory_limit;
    if (options.printf_limit) o.printf_limit = options.printf_limit;
    const double seconds = options.time_limit_seconds > 0 ? options.time_limit_seconds
                                                          : emu::default_time_limit_seconds;
    o.deadline = check_started + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                     std::chrono::duration<double>(seconds));
    // A lesson's kernels get every buffer they use as a parameter: an index that lands in
    // another buffer (an earlier launch's, say) is a fault, not a silent read.
    o.only_argument_buffers = true;
    o.worker_threads = options.emulator_threads;
    // Lanes of a warp are scheduled independently, as on the sm_70+ GPUs the lessons teach for:
    // the paths of a divergent branch take turns, seeded with the check's seed so that `--seed N`
    // reproduces the turns too, and a kernel that relies on lockstep goes wrong here as it can on
    // the GPU.
    report.seed = options.seed ? *options.seed
                               : std::random_device{}() * 0x100000000ull + std::random_device{}();
    o.independent_scheduling = true;
    o.scheduling_seed = report.seed;
    Status st;
    std::string note;
    std::unique_ptr<Backend> backend = make_backend(options.backend, o, &st, &note);
    if (!backend) {
        report.status = st;
        return report;
    }
    report.backend = backend->name();
    report.backend_note = note;
    Status loaded = backend->load(module);
    if (loaded.code == StatusCode::kernel_fault) {
        // A limit reached while loading the module (its __device__ variables do not fit): the
        // submission's failure, reported as a failed check like any other limit.
        CheckResult c;
        c.name = "the module loads";
        c.fault = true;
        c.message = loaded.message;
        c.advice = "declare only the device memory the exercise needs";
        report.checks.push_back(c);
        report.passed = false;
        return report;
    }
    if (!loaded.ok()) {
        report.status = loaded;
        return report;
    }
    // A data lesson's oracle: the reference solution, on the emulator, with the same limits.
    Oracle oracle;
    if (lesson.data) {
        auto solution = compiler.compile_file(lesson.solution_path, copts);
        if (!solution->ok) {
            report.status = Status::error(StatusCode::compile_error,
                                          display_path(course, lesson.solution_path) +
                                              ": error: the reference solution (the oracle of this "
                                              "data lesson) does not compile:\n" +
                                              solution->error_text());
            return report;
        }
        Status ost;
        std::string onote;
        std::unique_ptr<Backend> obackend = make_backend("emu", o, &ost, &onote);
        if (!obackend) {
            report.status = ost;
            return report;
        }
        if (Status ol = obackend->load(solution); !ol.ok()) {
            report.status =
                Status::error(ol.code, display_path(course, lesson.solution_path) +
                                           ": the reference solution does not load: " + ol.message);
            return report;
        }
        oracle.runtime = std::make_unique<Runtime>(std::move(obackend));
        oracle.module = solution;
    }
    Runtime runtime(std::move(backend));
    Session session(runtime, module, report.seed);
    session.set_trace_options(options.trace);
    auto started = std::chrono::steady_clock::now();
    if (lesson.data) run_data_lesson(*lesson.data, session, oracle);
    else if (host) host->run(session);
    report.run_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    report.checks = session.checks();
    for (auto& c : report.checks) {
        auto it = lesson.points.find(c.name);
        c.points = it == lesson.points.end() ? 1.0 : it->second;
    }
    report.log = session.log();
    report.launches = session.launches();
    report.printf_output = session.printf_output();
    report.totals = session.totals();
    if (const LaunchResult* last = session.last_launch()) report.last_trace = last->trace;
    report.launch_traces = session.traces();
    report.shapes = session.shapes();
    report.passed = !report.checks.empty() && !session.failed();
    if (report.checks.empty()) {
        CheckResult c;
        c.name = "lesson ran its checks";
        c.message = "the lesson's host side recorded no checks (a lesson bug)";
        report.checks.push_back(c);
    }
    return report;
}

// [SECTION] A fixed set of checks
//
// A course compares scores across submissions, so every submission of a lesson gets the same
// checks, in the same order: those the reference solution gets. A submission that faults (or fails
// a check the lesson cannot go on from) stops its lesson early, and one that does not compile runs
// nothing; their reports are filled out from
// the solution's list (learned once per lesson and backend): the fault takes the place of the
// first correctness check it kept from running, and every other check it kept from running fails
// as "not run" (performance: "not measured").

struct PlannedCheck {
    std::string name;
    CheckKind kind;
};

std::vector<PlannedCheck> planned_checks(const Course& course, const LessonInfo& lesson,
                                         const CheckOptions& options,
                                         compiler::Compiler& compiler) {
    static std::mutex mutex;
    static std::map<std::string, std::vector<PlannedCheck>> plans;
    const std::string key = course.root + "|" + lesson.id + "|" + options.backend;
    {
        std::lock_guard<std::mutex> lock(mutex);
        if (auto it = plans.find(key); it != plans.end()) return it->second;
    }
    CheckOptions o = options;
    o.solution = true;
    o.source_path.clear();
    o.trace.auto_detail_blocks = 0;
    CheckReport solution = check_once(course, lesson, o, compiler);
    std::vector<PlannedCheck> plan;
    if (solution.status.ok())
        for (const auto& c : solution.checks) plan.push_back({c.name, c.kind});
    std::lock_guard<std::mutex> lock(mutex);
    plans[key] = plan;
    return plan;
}

void fill_from_plan(CheckReport& report, const std::vector<PlannedCheck>& plan,
                    const std::string& why) {
    if (plan.empty()) return;
    std::vector<CheckResult> produced = std::move(report.checks);
    std::vector<CheckResult> out;
    std::vector<bool> used(produced.size(), false);
    for (const auto& p : plan) {
        bool found = false;
        for (std::size_t i = 0; i < produced.size(); ++i)
            if (!used[i] && produced[i].name == p.name) {
                out.push_back(produced[i]);
                used[i] = true;
                found = true;
                break;
            }
        if (found) continue;
        CheckResult c;
        c.name = p.name;
        c.kind = p.kind;
        c.passed = false;
        c.value = p.kind == CheckKind::performance ? std::nan("") : 1.0;
        c.measured = p.kind != CheckKind::performance;
        c.message = (p.kind == CheckKind::performance ? "not measured: " : "not run: ") + why;
        out.push_back(std::move(c));
    }
    // What the plan does not name (a fault, an infrastructure failure) takes the place of the first
    // correctness check that did not run, so its message is not lost and no check is added.
    for (std::size_t i = 0; i < produced.size(); ++i) {
        if (used[i]) continue;
        CheckResult& extra = produced[i];
        bool placed = false;
        for (auto& c : out)
            if (!c.passed && c.kind == CheckKind::correctness &&
                c.message.rfind("not run: ", 0) == 0) {
                c.message = extra.name + ": " + extra.message;
                c.fault = extra.fault;
                c.advice = extra.advice;
                placed = true;
                break;
            }
        if (!placed)
            for (auto& c : out)
                if (!c.passed) {
                    c.message += "\n" + extra.name + ": " + extra.message;
                    placed = true;
                    break;
                }
        if (!placed) out.push_back(std::move(extra));  // nothing failed to hold it: keep it visible
    }
    report.checks = std::move(out);
}

}  // namespace

CheckReport check_lesson(const Course& course, const LessonInfo& lesson,
                         const CheckOptions& options, compiler::Compiler& compiler) {
    CheckReport report = check_once(course, lesson, options, compiler);
    const bool compile_error = report.status.code == StatusCode::compile_error;
    // A lesson may stop at a fault or at a failed correctness check (lesson 12 launches nothing
    // with a block size it cannot use): then, and only then, the solution's list is needed.
    bool stopped = false;
    for (const auto& c : report.checks)
        stopped |= c.fault || (!c.passed && c.kind == CheckKind::correctness);
    if (options.solution || !(compile_error || stopped)) return report;
    const auto plan = planned_checks(course, lesson, options, compiler);
    if (compile_error) {
        report.checks.clear();
        fill_from_plan(report, plan, report.source + " does not compile");
    } else {
        fill_from_plan(
            report, plan,
            "an earlier check failed in a way that stops the lesson (see the first failed check)");
    }
    for (auto& c : report.checks) {
        auto it = lesson.points.find(c.name);
        c.points = it == lesson.points.end() ? 1.0 : it->second;
    }
    return report;
}

CheckReport unchecked_report(const Course& course, const LessonInfo& lesson,
                             const CheckOptions& options, compiler::Compiler& compiler,
                             const std::string& why) {
    CheckReport report;
    report.lesson = lesson.id;
    report.title = lesson.title;
    report.program = lesson.is_program();
    report.status = Status::error(StatusCode::io_error, why);
    fill_from_plan(report, planned_checks(course, lesson, options, compiler), why);
    for (auto& c : report.checks) {
        auto it = lesson.points.find(c.name);
        c.points = it == lesson.points.end() ? 1.0 : it->second;
    }
    return report;
}

}  // namespace cudalab::lessons
