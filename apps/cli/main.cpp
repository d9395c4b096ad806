// cudalab, the command-line client of the engine. Course scripts depend on its commands, options,
// output formats and exit codes (README "Command line"): keep them stable.
//
// Exit codes: 0 passed / ran, 1 failed / the kernel faulted, 2 could not run (bad usage, compile
// error, backend unavailable).

#include <CLI/CLI.hpp>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <thread>
#include <unistd.h>

#include "cli/autograder_command.h"
#include "cli/course_commands.h"
#include "cli/exec_command.h"
#include "cli/grade_command.h"
#include "cli/run_command.h"
#include "cli/strict_parse.h"
#include "compiler/compiler.h"
#include "lessons/course.h"
#include "lessons/progress.h"
#include "lessons/translation.h"
#include "report/report.h"

namespace fs = std::filesystem;
using namespace cudalab;

namespace {

bool use_color() { return ::isatty(1) && !std::getenv("NO_COLOR"); }

// A damaged or hand-edited progress store is said, never silently reset.
void warn_progress(const lessons::Progress& progress) {
    for (const auto& p : progress.problems()) std::cerr << "cudalab: warning: " << p << "\n";
}

int load(lessons::Course& course) {
    std::string root = lessons::find_course_root();
    Status s = lessons::load_course(root, &course);
    if (!s.ok()) {
        std::cerr << "cudalab: cannot read the course: " << s.message << "\n";
        return 2;
    }
    return 0;
}

const lessons::LessonInfo* find_or_explain(const lessons::Course& course, const std::string& id) {
    const lessons::LessonInfo* l = course.resolve(id);  // "2" and "02" name 02-vector-add
    if (!l) {
        std::cerr << "cudalab: no lesson '" << id << "'. The lessons are:\n";
        for (const auto& c : course.lessons) std::cerr << "  " << c.id << "  " << c.title << "\n";
        return nullptr;
    }
    return l;
}

// Inline Markdown for a terminal: **bold** and *emphasis* lose their markers (and are set in bold
// and italics at a colour terminal), `code` is kept (in cyan at a colour terminal, with its
// backticks elsewhere, where they still say "this is code").
std::string terminal_inline(const std::string& text, bool color) {
    std::string out;
    bool bold = false, italic = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '`') {
            const std::size_t end = text.find('`', i + 1);
            if (end != std::string::npos) {
                const std::string code = text.substr(i + 1, end - i - 1);
                out += color ? "\033[36m" + code + "\033[0m" + (bold ? "\033[1m" : "")
                             : "`" + code + "`";
                i = end;
                continue;
            }
        }
        if (c == '*' && i + 1 < text.size() && text[i + 1] == '*') {
            bold = !bold;
            if (color) out += bold ? "\033[1m" : "\033[22m";
            ++i;
            continue;
        }
        // A single * opens emphasis before a word and closes it after one ("2 * 3" stays).
        const bool opens = c == '*' && !italic && i + 1 < text.size() && text[i + 1] != ' ' &&
                           (i == 0 || text[i - 1] == ' ' || text[i - 1] == '(');
        const bool closes = c == '*' && italic && i > 0 && text[i - 1] != ' ';
        if (opens || closes) {
            italic = !italic;
            if (color) out += italic ? "\033[3m" : "\033[23m";
            continue;
        }
        out += c;
    }
    if (color && (bold || italic)) out += "\033[0m";
    return out;
}

// Visible width of a terminal string: UTF-8 code points, escape sequences left out; Chinese
// characters and full-width punctuation take two columns, so tables of a Chinese text line up.
std::size_t visible_width(const std::string& s) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\033') {
            while (i < s.size() && s[i] != 'm') ++i;
            continue;
        }
        const unsigned char c = static_cast<unsigned char>(s[i]);
        if ((c & 0xC0) == 0x80) continue;
        if ((c & 0xF0) == 0xE0 && i + 2 < s.size()) {
            const unsigned cp = (c & 0x0Fu) << 12 |
                                (static_cast<unsigned char>(s[i + 1]) & 0x3Fu) << 6 |
                                (static_cast<unsigned char>(s[i + 2]) & 0x3Fu);
            const bool wide = (cp >= 0x1100 && cp <= 0x115F) ||
                              (cp >= 0x2E80 && cp <= 0xA4CF && cp != 0x303F) ||
                              (cp >= 0xAC00 && cp <= 0xD7A3) || (cp >= 0xF900 && cp <= 0xFAFF) ||
                              (cp >= 0xFE30 && cp <= 0xFE4F) || (cp >= 0xFF00 && cp <= 0xFF60) ||
                              (cp >= 0xFFE0 && cp <= 0xFFE6);
            n += wide ? 2 : 1;
            continue;
        }
        ++n;
    }
    return n;
}

// `--lang en|zh`, for every command (the app included), before or after it: taken out of argv
// here and passed on as $CUDALAB_LANG, which lessons::choose_language() reads before the locale.
// Arguments after `--` (a program's) are left alone.
bool take_lang_option(int& argc, char** argv, std::string* error) {
    int out = 1;
    bool passthrough = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        passthrough = passthrough || a == "--";
        if (passthrough || (a != "--lang" && a.rfind("--lang=", 0) != 0)) {
            argv[out++] = argv[i];
            continue;
        }
        const std::string value = a == "--lang" ? (i + 1 < argc ? argv[++i] : "") : a.substr(7);
        bool known = false;
        for (const auto& l : lessons::known_languages()) known = known || l == value;
        if (!known) {
            *error = value.empty()
                         ? "--lang needs a language: --lang en|zh"
                         : "--lang " + value + ": lesson texts are in en or zh (--lang en|zh)";
            return false;
        }
        ::setenv("CUDALAB_LANG", value.c_str(), 1);
    }
    argc = out;
    argv[out] = nullptr;
    return true;
}

// The language of lesson texts and hints: --lang (as $CUDALAB_LANG), else the locale.
std::string text_language() {
    const lessons::LanguageChoice c = lessons::choose_language("");
    if (!c.warning.empty()) std::cerr << "cudalab: warning: " << c.warning << "\n";
    return c.lang;
}

// Markdown for a terminal: headings emphasised, code blocks indented, inline styles rendered,
// tables as aligned columns. Escape codes only when `color` (a terminal).
std::string terminal_markdown(const std::string& md, bool color) {
    std::istringstream in(md);
    std::ostringstream out;
    std::string line;
    bool code = false;
    std::vector<std::vector<std::string>> table;
    auto flush_table = [&] {
        if (table.empty()) return;
        std::vector<std::size_t> widths;
        for (const auto& row : table)
            for (std::size_t c = 0; c < row.size(); ++c) {
                if (widths.size() <= c) widths.push_back(0);
                widths[c] = std::max(widths[c], visible_width(row[c]));
            }
        for (std::size_t r = 0; r < table.size(); ++r) {
            out << "  ";
            for (std::size_t c = 0; c < table[r].size(); ++c)
                out << table[r][c]
                    << (c + 1 < table[r].size()
                            ? std::string(widths[c] - visible_width(table[r][c]) + 2, ' ')
                            : "");
            out << "\n";
            if (r == 0) {  // a rule under the header
                out << "  ";
                for (std::size_t c = 0; c < widths.size(); ++c)
                    out << std::string(widths[c], '-') << (c + 1 < widths.size() ? "  " : "");
                out << "\n";
            }
        }
        table.clear();
    };
    while (std::getline(in, line)) {
        if (line.rfind("```", 0) == 0) {
            flush_table();
            code = !code;
            continue;
        }
        if (code) {
            out << (color ? "\033[36m" : "") << "    " << line << (color ? "\033[0m" : "") << "\n";
            continue;
        }
        if (line.rfind("|", 0) == 0) {
            if (line.find_first_not_of("|-: ") == std::string::npos)
                continue;  // the |---| separator
            std::vector<std::string> cells;
            std::size_t at = 1;
            while (at < line.size()) {
                std::size_t end = line.find('|', at);
                if (end == std::string::npos) end = line.size();
                std::string cell = line.substr(at, end - at);
                const std::size_t first = cell.find_first_not_of(' '),
                                  last = cell.find_last_not_of(' ');
                cell = first == std::string::npos ? "" : cell.substr(first, last - first + 1);
                cells.push_back(terminal_inline(cell, color));
                at = end + 1;
            }
            table.push_back(std::move(cells));
            continue;
        }
        flush_table();
        if (line.rfind("#", 0) == 0) {
            std::size_t level = line.find_first_not_of('#');
            std::string title =
                terminal_inline(line.substr(std::min(line.size(), level + 1)), false);
            out << "\n" << (color ? "\033[1m" : "") << title << (color ? "\033[0m" : "") << "\n";
            if (level == 1) out << std::string(visible_width(title), '=') << "\n";
            continue;
        }
        out << terminal_inline(line, color) << "\n";
    }
    flush_table();
    return out.str();
}

struct CheckArgs {
    std::string id;
    bool solution = false;
    std::string source;
    std::string backend = "auto";
    std::string format = "text";
    std::string seed;  // empty: a new seed every run, printed in the report
    cli::LimitFlags limits;
    bool verbose = false;
    int launch = 0;         // > 0: also print launch N's figures per line (text format)
    bool own_code = false;  // `learn`: the learner's exercise on their machine (sandbox optional)
};

int run_check(const CheckArgs& a) {
    std::string error;
    cli::Limits limits;
    std::optional<std::uint64_t> seed;
    if (!a.seed.empty()) {
        seed = cli::parse_unsigned(a.seed, 0, UINT64_MAX, "--seed", &error);
        if (!seed) {
            std::cerr << "cudalab: " << error << "\n";
            return 2;
        }
    }
    if (!cli::parse_limits(a.limits, &limits, &error)) {
        std::cerr << "cudalab: " << error << "\n";
        return 2;
    }
    lessons::Course course;
    if (int rc = load(course)) return rc;
    if (a.format != "text" && a.format != "json" && a.format != "junit" &&
        a.format != "gradescope") {
        std::cerr << "cudalab: unknown --format '" << a.format
                  << "' (text, json, junit, gradescope)\n";
        return 2;
    }
    std::vector<const lessons::LessonInfo*> targets;
    if (a.id == "all") {
        if (!a.source.empty()) {
            std::cerr << "cudalab: --source names one file; use it with one lesson id\n";
            return 2;
        }
        for (const auto& l : course.lessons) targets.push_back(&l);
    } else {
        const lessons::LessonInfo* l = find_or_explain(course, a.id);
        if (!l) return 2;
        targets.push_back(l);
    }
    if (!a.source.empty() && !fs::exists(a.source)) {
        std::cerr << "cudalab: --source " << a.source << ": no such file\n";
        return 2;
    }
    compiler::Compiler compiler;
    // Compile every file before any backend starts: once the CUDA driver is initialised in this
    // process, NVRTC's log no longer carries ptxas's resource report (seen with CUDA 13.0), and the
    // checks need the register and shared-memory counts. The compiler caches the results.
    // Under the check's compile limits, as every compile of a submission.
    if (a.backend != "emu") {
        compiler::CompileOptions precompile;
        if (limits.compile_time_limit_s) precompile.limits.seconds = limits.compile_time_limit_s;
        if (limits.compile_memory_mb) precompile.limits.memory_mb = limits.compile_memory_mb;
        for (const auto* l : targets)
            if (!l->is_program())  // a program lesson's file is built by nvcc, in check_lesson()
                compiler.compile_file(!a.source.empty() ? a.source
                                      : a.solution      ? l->solution_path
                                                        : l->exercise_path,
                                      precompile);
    }
    lessons::Progress progress;
    progress.set_course(course.key);
    warn_progress(progress);
    std::vector<lessons::CheckReport> reports;
    report::TextStyle style{use_color(), a.verbose};
    int exit_code = 0;
    for (const auto* l : targets) {
        lessons::CheckOptions o;
        o.solution = a.solution;
        o.source_path = a.source;
        o.backend = a.backend;
        o.seed = seed;
        o.instruction_budget = limits.budget;
        o.memory_limit = limits.memory_mb << 20;
        o.printf_limit = limits.printf_kb << 10;
        o.time_limit_seconds = limits.time_limit_s;
        if (limits.compile_time_limit_s) o.compile_limits.seconds = limits.compile_time_limit_s;
        if (limits.compile_memory_mb) o.compile_limits.memory_mb = limits.compile_memory_mb;
        if (a.own_code) o.sandbox = lessons::CheckOptions::Sandbox::optional;
        if (limits.no_sandbox) o.sandbox = lessons::CheckOptions::Sandbox::off;
        // The checks read per-instruction counters only; per-step events are for the app's views,
        // and recording them doubled the time and memory of the larger lessons.
        o.trace.auto_detail_blocks = 0;
        if (a.format == "text" && targets.size() > 1) std::cerr << "checking " << l->id << "...\n";
        lessons::CheckReport r = lessons::check_lesson(course, *l, o, compiler);
        if (!r.status.ok()) exit_code = 2;
        else if (!r.passed && exit_code == 0) exit_code = 1;
        if (!a.solution && a.source.empty() && r.status.code != StatusCode::backend_unavailable &&
            r.status.code != StatusCode::bad_usage)
            progress.record_check(l->id, r.passed);
        if (a.format == "text" && targets.size() == 1) std::cout << report::text(r, style);
        if (a.format == "text" && targets.size() == 1 && a.launch > 0 && r.status.ok()) {
            std::ifstream in(!a.source.empty() ? a.source
                             : a.solution      ? l->solution_path
                                               : l->exercise_path);
            std::stringstream text;
            text << in.rdbuf();
            std::cout << "\n" << report::launch_text(r, a.launch - 1, text.str(), style);
        }
        if (a.format == "json" && targets.size() == 1)
            std::cout << report::json(r).dump(2, ' ', false,
                                              nlohmann::json::error_handler_t::replace)
                      << "\n";
        reports.push_back(std::move(r));
    }
    if (!a.solution && a.source.empty()) {
        std::string err;
        if (!progress.save(&err))
            std::cerr << "cudalab: warning: progress not saved: " << err << "\n";
    }
    if (a.format == "text" && targets.size() > 1) std::cout << report::text_summary(reports, style);
    if (a.format == "json" && targets.size() > 1) {
        nlohmann::json j = nlohmann::json::array();
        for (const auto& r : reports) j.push_back(report::json(r));
        std::cout << j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    }
    if (a.format == "junit") std::cout << report::junit(reports);
    if (a.format == "gradescope")
        std::cout << report::gradescope(reports).dump(2, ' ', false,
                                                      nlohmann::json::error_handler_t::replace)
                  << "\n";
    return exit_code;
}

int run_hint(const std::string& id, int which) {
    lessons::Course course;
    if (int rc = load(course)) return rc;
    const lessons::LessonInfo* l = find_or_explain(course, id);
    if (!l) return 2;
    if (l->hints.empty()) {
        std::cout << l->id << " has no hints.\n";
        return 0;
    }
    const std::string lang = text_language();
    const lessons::LessonText text = lessons::lesson_text(*l, lang);
    lessons::Progress progress;
    progress.set_course(course.key);
    warn_progress(progress);
    int index;
    if (which < 0 || which > int(l->hints.size())) {
        std::cerr << "cudalab: " << l->id << " has " << l->hints.size() << " hint"
                  << (l->hints.size() == 1 ? "" : "s") << ": ask for 1 to " << l->hints.size()
                  << " (or none for the next)\n";
        return 2;
    }
    if (which > 0) index = which - 1;
    else {
        index = progress.reveal_hint(l->id, int(l->hints.size()));
        std::string err;
        if (!progress.save(&err))
            std::cerr << "cudalab: warning: progress not saved: " << err << "\n";
    }
    if (!text.note.empty()) std::cerr << text.note << "\n";
    if (lang == "zh" && text.hints != l->hints) {  // the hints are translated (the text may not be)
        std::cout << "提示 " << index + 1 << " / " << l->hints.size() << "（" << l->id << "）：\n  "
                  << text.hints[std::size_t(index)] << "\n";
        if (index + 1 < int(l->hints.size())) std::cout << "（再运行一次，看下一条）\n";
        return 0;
    }
    std::cout << "Hint " << index + 1 << " of " << l->hints.size() << " for " << l->id << ":\n  "
              << text.hints[std::size_t(index)] << "\n";
    if (index + 1 < int(l->hints.size())) std::cout << "(run it again for the next one)\n";
    return 0;
}

int run_list() {
    lessons::Course course;
    if (int rc = load(course)) return rc;
    lessons::Progress progress;
    progress.set_course(course.key);
    warn_progress(progress);
    // The state column as wide as its longest entry ("passed before, fails now" only when one is).
    int width = 10;
    for (const auto& l : course.lessons)
        width = std::max(width, int(lessons::progress_label(progress.get(l.id)).size()));
    for (const auto& l : course.lessons) {
        auto p = progress.get(l.id);
        std::printf("%-20s %-*s %s\n", l.id.c_str(), width, lessons::progress_label(p).c_str(),
                    l.title.c_str());
    }
    return 0;
}

// The terminal lesson: the text, then the check of the learner's exercise; with --watch, checked
// again each time the file is saved.
int run_learn(const std::string& id, bool watch, const std::string& backend) {
    lessons::Course course;
    if (int rc = load(course)) return rc;
    const lessons::LessonInfo* l = nullptr;
    if (id.empty()) {
        // No id: the first lesson not passed yet (the last one when all are).
        lessons::Progress progress;
        progress.set_course(course.key);
        for (const auto& lesson : course.lessons)
            if (progress.get(lesson.id).state != lessons::LessonState::passed) {
                l = &lesson;
                break;
            }
        if (!l && !course.lessons.empty()) l = &course.lessons.back();
    } else {
        l = find_or_explain(course, id);
    }
    if (!l) return 2;
    bool color = use_color();
    const lessons::LessonText text = lessons::lesson_text(*l, text_language());
    if (!text.note.empty()) std::cout << text.note << "\n";
    std::cout << terminal_markdown(text.markdown, color) << "\n";
    if (text.lang == "zh")
        std::cout << (color ? "\033[1m" : "") << "你的练习："
                  << lessons::display_path(course, l->exercise_path) << (color ? "\033[0m" : "")
                  << " —— 在你的编辑器里修改它；`cudalab hint " << l->id << "` 给出提示。\n\n";
    else
        std::cout << (color ? "\033[1m" : "")
                  << "Your exercise: " << lessons::display_path(course, l->exercise_path)
                  << (color ? "\033[0m" : "") << " — edit it in your editor; `cudalab hint "
                  << l->id << "` for a hint.\n\n";
    CheckArgs a;
    a.id = l->id;
    a.backend = backend;
    a.own_code = true;
    int rc = run_check(a);
    std::cout.flush();  // a pipe or a file sees each result as it comes
    if (!watch) return rc;
    std::cout << "\nWatching " << lessons::display_path(course, l->exercise_path)
              << " — save it to check again (Ctrl-C to stop).\n"
              << std::flush;
    std::error_code ec;
    auto stamp = fs::last_write_time(l->exercise_path, ec);
    for (;;) {
        std::this_thread::sleep_for(std::chrono::milliseconds(150));
        auto now = fs::last_write_time(l->exercise_path, ec);
        if (ec || now == stamp) continue;
        stamp = now;
        std::cout << "\n--- " << lessons::display_path(course, l->exercise_path)
                  << " changed ---\n";
        run_check(a);
        std::cout.flush();
    }
}

// `cudalab gui ...`: the app is its own program (build/cudalab-gui), so this one links no GUI
// library; it runs with the same arguments.
int run_gui(int argc, char** argv) {
    std::error_code ec;
    fs::path self = fs::read_symlink("/proc/self/exe", ec);
    const std::string gui =
        ((ec ? fs::path(argv[0]).parent_path() : self.parent_path()) / "cudalab-gui").string();
    std::vector<char*> args{const_cast<char*>(gui.c_str())};
    for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
    args.push_back(nullptr);
    ::execv(gui.c_str(), args.data());
    std::cerr
        << "cudalab: cannot start " << gui << " (" << std::strerror(errno)
        << "); build it with -DCUDALAB_BUILD_GUI=ON, or use `cudalab learn` in the terminal\n";
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    // `--course DIR`, for every command (the app included): taken out here, passed on as
    // $CUDALAB_COURSE.
    if (std::string error; !cli::take_course_option(argc, argv, &error)) {
        std::cerr << "cudalab: " << error << "\n";
        return 2;
    }
    if (std::string error; !take_lang_option(argc, argv, &error)) {
        std::cerr << "cudalab: " << error << "\n";
        return 2;
    }
    if (argc >= 2 && std::string(argv[1]) == "gui") return run_gui(argc, argv);
    // Whole programs: their arguments mix cudalab's options with nvcc's, parsed by run_command.
    if (argc >= 2 && (std::string(argv[1]) == "run" || std::string(argv[1]) == "build"))
        return cli::run_program_command(argc, argv);
    CLI::App app{
        "cudalab: learn CUDA by running your own kernels (on a GPU or the built-in emulator)"};
    app.require_subcommand(1);
    app.set_version_flag("--version", std::string("cudalab 0.1.0"));
    // Listed for --help; take_lang_option() has taken it out of argv before CLI11 parses.
    app.add_option(
        "--lang",
        "language of lesson texts and hints, before or after any command: en or zh (default: "
        "$CUDALAB_LANG, else the locale); check reports stay English");

    auto* list = app.add_subcommand("list", "list the lessons, one per line, starting with the id");

    CheckArgs check;
    auto* check_cmd =
        app.add_subcommand("check", "check a lesson's exercise (or --solution, or --source FILE)");
    check_cmd->add_option("lesson", check.id, "lesson id (e.g. 02-vector-add), or 'all'")
        ->required();
    auto* sol = check_cmd->add_flag("--solution", check.solution, "check the reference solution");
    auto* src = check_cmd->add_option("--source", check.source,
                                      "check this file instead of exercises/ID.cu");
    sol->excludes(src);
    check_cmd
        ->add_option("--backend", check.backend,
                     "emu, gpu or auto (GPU if present, else the emulator)")
        ->check(CLI::IsMember({"emu", "gpu", "auto"}));
    check_cmd->add_option("--format", check.format, "text, json, junit or gradescope");
    check_cmd->add_option(
        "--seed", check.seed,
        "seed of the random inputs (default: a new one every run; the report prints it)");
    cli::add_limit_options(check_cmd, check.limits, true);
    check_cmd->add_flag("-v,--verbose", check.verbose, "show every check's details");
    check_cmd
        ->add_option("--launch", check.launch,
                     "also show launch N (1-based): its shape, its checks, its figures per line")
        ->check(CLI::PositiveNumber);

    std::string learn_id, learn_backend = "auto";
    bool watch = false;
    auto* learn =
        app.add_subcommand("learn", "read a lesson in the terminal and check your exercise");
    learn->add_option("lesson", learn_id, "lesson id (default: the first lesson not passed yet)");
    learn->add_flag("-w,--watch", watch, "check again whenever the exercise is saved");
    learn->add_option("--backend", learn_backend, "emu, gpu or auto")
        ->check(CLI::IsMember({"emu", "gpu", "auto"}));

    std::string hint_id, hint_number_text;
    auto* hint = app.add_subcommand("hint", "show the next hint for a lesson");
    hint->add_option("lesson", hint_id, "lesson id")->required();
    hint->add_option("number", hint_number_text, "show this hint (1-based) instead of the next");

    std::string show_id;
    auto* show = app.add_subcommand("show", "print a lesson's text");
    show->add_option("lesson", show_id, "lesson id")->required();

    app.add_subcommand("gui", "open a lesson in the app: its text, your code and views of the run "
                              "(cudalab gui --help)")
        ->allow_extras();

    // Listed for --help; parsed by cli::run_program_command before CLI11 sees them.
    app.add_subcommand("run", "build and run a whole CUDA program (host code and kernels): cudalab "
                              "run PROG.cu (cudalab run --help)")
        ->allow_extras();
    app.add_subcommand("build",
                       "build a whole CUDA program into an executable (cudalab build --help)")
        ->allow_extras();

    cli::NewLessonArgs new_lesson_args;
    auto* new_lesson = app.add_subcommand(
        "new-lesson",
        "scaffold a data lesson that fails as shipped (--course DIR: in that course)");
    cli::add_new_lesson_options(new_lesson, new_lesson_args);
    cli::LintArgs lint_args;
    auto* lint = app.add_subcommand("lint", "check a course: solutions pass, exercises fail, every "
                                            "check can fail, hints and views resolve");
    cli::add_lint_options(lint, lint_args);
    cli::InputsArgs inputs_args;
    auto* inputs = app.add_subcommand(
        "inputs", "write a program lesson's input files (in.bin ...) as check would for --seed N, "
                  "to run your program by hand");
    cli::add_inputs_options(inputs, inputs_args);
    app.add_option_function<std::string>(
        "--course", [](const std::string&) {},
        "the course folder (manifest.toml, lessons/, exercises/, solutions/); also "
        "$CUDALAB_COURSE");

    cli::ExecArgs exec_args;
    auto* exec =
        app.add_subcommand("exec", "run any kernel file without host code (the playground)");
    cli::add_exec_options(exec, exec_args);

    cli::GradeArgs grade_args;
    auto* grade = app.add_subcommand("grade", "grade a class: every student's folder of ID.cu "
                                              "files, in worker processes (docs/instructors.md)");
    cli::add_grade_options(grade, grade_args);

    cli::AutograderArgs autograder_args;
    auto* autograder = app.add_subcommand(
        "autograder",
        "make an autograder bundle: autograder gradescope --lessons ID,... -o autograder.zip");
    cli::add_autograder_options(autograder, autograder_args);

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        int rc = app.exit(e);
        return rc == 0 ? 0 : 2;
    }
    if (list->parsed()) return run_list();
    if (check_cmd->parsed()) return run_check(check);
    if (learn->parsed()) return run_learn(learn_id, watch, learn_backend);
    if (hint->parsed()) {
        std::string error;
        auto n = hint_number_text.empty()
                     ? std::optional<std::uint64_t>(0)
                     : cli::parse_unsigned(hint_number_text, 1, 1000, "hint number", &error);
        if (!n) {
            std::cerr << "cudalab: " << error << "\n";
            return 2;
        }
        return run_hint(hint_id, int(*n));
    }
    if (show->parsed()) {
        lessons::Course course;
        if (int rc = load(course)) return rc;
        const lessons::LessonInfo* l = find_or_explain(course, show_id);
        if (!l) return 2;
        const lessons::LessonText text = lessons::lesson_text(*l, text_language());
        if (!text.note.empty()) std::cout << text.note << "\n";
        std::cout << terminal_markdown(text.markdown, use_color());
        return 0;
    }
    if (exec->parsed()) return cli::run_exec(exec_args);
    if (new_lesson->parsed()) return cli::run_new_lesson(new_lesson_args);
    if (lint->parsed()) return cli::run_lint(lint_args);
    if (inputs->parsed()) return cli::run_inputs(inputs_args);
    if (grade->parsed()) {
        lessons::Course course;
        if (grade_args.merge.empty())
            if (int rc = load(course)) return rc;
        return cli::run_grade(course, grade_args);
    }
    if (autograder->parsed()) {
        lessons::Course course;
        if (int rc = load(course)) return rc;
        return cli::run_autograder(course, autograder_args);
    }
    return 2;
}
