#include "lessons/lint.h"

#include "lessons/program_lesson.h"
#include "lessons/translation.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <regex>
#include <set>

namespace fs = std::filesystem;

namespace cudalab::lessons {

const std::vector<std::string>& known_views() {
    static const std::vector<std::string> views = {"grid",   "warps",    "memory",
                                                   "shared", "timeline", "hierarchy"};
    return views;
}

namespace {

std::string read(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

std::set<std::string> performance_checks(const CheckReport& r, bool failed_only) {
    std::set<std::string> names;
    for (const auto& c : r.checks)
        if (c.kind == CheckKind::performance && (!failed_only || !c.passed)) names.insert(c.name);
    return names;
}

bool compiled_in(const std::string& id) {
    for (const auto& h : registered_host_sides())
        if (h.id == id) return true;
    for (const auto& h : registered_program_host_sides())
        if (h.id == id) return true;
    return false;
}

}  // namespace

std::vector<LintFinding> lint_course(const Course& course, compiler::Compiler& compiler,
                                     const LintOptions& options) {
    std::vector<LintFinding> out;
    bool translated = false;  // some lesson of the course has a Chinese text
    for (const auto& l : course.lessons) {
        std::error_code ec;
        translated =
            translated || fs::exists(fs::path(l.text_path).parent_path() / "lesson.zh.md", ec);
    }
    for (const auto& l : course.lessons) {
        if (!options.only.empty() && l.id != options.only) continue;
        const std::size_t before = out.size();
        auto error = [&](const std::string& m) { out.push_back({l.id, true, m}); };
        auto warn = [&](const std::string& m) { out.push_back({l.id, false, m}); };
        const std::string manifest = display_path(course, course.manifest);

        // [SECTION] Static: files, texts, hints, views
        if (!std::regex_match(l.id, std::regex(R"(\d\d[a-z]?-[a-z0-9-]+)")))
            error(manifest + ": lesson id '" + l.id +
                  "' is not NN-slug (NNb-slug for a companion of lesson NN)");
        if (l.title.empty()) error(manifest + ": lesson " + l.id + " has no title");
        std::error_code ec;
        for (const auto& path : {l.text_path, l.exercise_path, l.solution_path})
            if (!fs::exists(path, ec))
                error("missing " + display_path(course, path) +
                      " (cudalab new-lesson scaffolds one)");
        if (!l.data_error.empty()) error(l.data_error);
        const bool toml = fs::exists(fs::path(course.root) / "lessons" / l.id / "lesson.toml", ec);
        if (toml && l.data && l.data->kind == "kernel" && compiled_in(l.id))
            error("lessons/" + l.id +
                  "/lesson.toml and a C++ host side compiled into cudalab both claim the lesson: "
                  "keep one");
        if (!toml && !compiled_in(l.id))
            error("lesson " + l.id + " has no host side: write lessons/" + l.id +
                  "/lesson.toml (docs/instructors.md)" +
                  (fs::exists(l.host_path, ec)
                       ? ", or rebuild cudalab to compile in " + display_path(course, l.host_path)
                       : ""));
        if (l.hints.empty())
            error(manifest + ": lesson " + l.id +
                  " has no hints (three, from a nudge to nearly the answer)");
        for (std::size_t i = 0; i < l.hints.size(); ++i) {
            if (l.hints[i].find_first_not_of(" \t\n") == std::string::npos)
                error(manifest + ": hint " + std::to_string(i + 1) + " of " + l.id + " is empty");
            else if (l.hints[i].rfind("TODO", 0) == 0)
                warn(manifest + ": hint " + std::to_string(i + 1) + " of " + l.id +
                     " is still a TODO placeholder");
        }
        for (const auto& v : l.views)
            if (std::find(known_views().begin(), known_views().end(), v) == known_views().end()) {
                std::string list;
                for (const auto& k : known_views()) list += (list.empty() ? "" : ", ") + k;
                error(l.id + ": no view called '" + v + "' (the app has " + list + ")");
            }
        if (fs::exists(l.exercise_path, ec) &&
            read(l.exercise_path).find("TODO") == std::string::npos)
            error(display_path(course, l.exercise_path) + " has no TODO for the learner");
        if (fs::exists(l.text_path, ec)) {
            const std::string text = read(l.text_path);
            if (text.find("## Your task") == std::string::npos)
                error(display_path(course, l.text_path) + " has no '## Your task'");
            // Pictures: a local image must be a file (relative to the text, or to the course).
            const std::regex image(R"(!\[[^\]]*\]\(([^)\s]+)[^)]*\))");
            for (auto it = std::sregex_iterator(text.begin(), text.end(), image);
                 it != std::sregex_iterator(); ++it) {
                const std::string target = (*it)[1];
                if (target.find("://") != std::string::npos) continue;
                const fs::path near = fs::path(l.text_path).parent_path() / target,
                               top = fs::path(course.root) / target;
                if (!fs::exists(near, ec) && !fs::exists(top, ec))
                    error(display_path(course, l.text_path) + ": the picture " + target +
                          " is not a file (put it under assets/)");
            }
            // A text must not send the learner to lessons the course does not have (ids keep their
            // numbers: a lesson still to be written leaves a gap).
            const std::regex mention(R"(lessons? (\d\d))");
            for (auto it = std::sregex_iterator(text.begin(), text.end(), mention);
                 it != std::sregex_iterator(); ++it) {
                const int n = std::stoi((*it)[1]);
                bool exists = false;
                for (const auto& other : course.lessons)
                    exists = exists ||
                             (other.id.size() >= 2 && std::isdigit((unsigned char)other.id[0]) &&
                              std::isdigit((unsigned char)other.id[1]) &&
                              std::stoi(other.id.substr(0, 2)) == n);
                if (!exists)
                    error(display_path(course, l.text_path) + " mentions lesson " +
                          std::to_string(n) + ", which the course does not have");
            }
        }

        // The Chinese translation keeps the English text's sections and hints
        // (docs/translating.md): half a translation or a different structure is an error; a lesson
        // with none is a warning in a course that has translations (a course written in one
        // language gets none).
        for (const auto& f : check_translation(course, l, "zh"))
            if (f.error || translated) out.push_back({l.id, f.error, f.text()});

        // [SECTION] Running: the solution passes, the exercise fails, every performance check can
        // fail
        const bool runnable = options.run && l.data_error.empty() &&
                              fs::exists(l.solution_path, ec) && fs::exists(l.exercise_path, ec) &&
                              (toml || compiled_in(l.id));
        if (runnable) {
            CheckOptions o;
            o.backend = options.backend;
            o.solution = true;
            o.seed = 1;
            o.trace.auto_detail_blocks = 0;
            // The course's own files, checked by its author: sandboxed where it can be.
            o.sandbox = CheckOptions::Sandbox::optional;
            const CheckReport solution = check_lesson(course, l, o, compiler);
            if (!solution.status.ok())
                error(display_path(course, l.solution_path) +
                      " could not run: " + solution.status.message);
            else
                for (const auto& c : solution.checks)
                    if (!c.passed)
                        error(display_path(course, l.solution_path) + " fails '" + c.name +
                              "': " + c.message);
            if (solution.status.ok() && l.data && l.data->kind == "program" &&
                !l.data->program_checks.empty()) {
                std::vector<std::string> got;
                for (const auto& c : solution.checks) got.push_back(c.name);
                if (got != l.data->program_checks) {
                    std::string list;
                    for (const auto& n : got) list += "\n    \"" + n + "\"";
                    error(display_path(course, l.data->path) +
                          ": checks does not list the checks the C++ host side makes, which are:" +
                          list);
                }
            }
            o.solution = false;
            const CheckReport exercise = check_lesson(course, l, o, compiler);
            if (!exercise.status.ok())
                error(display_path(course, l.exercise_path) +
                      " does not compile or run as shipped: " + exercise.status.message);
            else if (exercise.passed)
                error(display_path(course, l.exercise_path) +
                      " passes every check as shipped: the learner has nothing to do");
            for (const auto& c : exercise.checks)
                if (c.fault)
                    error(display_path(course, l.exercise_path) +
                          " faults as shipped: " + c.message);

            std::set<std::string> can_fail = performance_checks(exercise, true);
            const fs::path wrong = fs::path(course.root) / "lessons" / l.id / "wrong";
            if (fs::is_directory(wrong, ec)) {
                std::vector<fs::path> variants;
                for (const auto& e : fs::directory_iterator(wrong, ec))
                    if (e.path().extension() == ".cu") variants.push_back(e.path());
                std::sort(variants.begin(), variants.end());
                for (const auto& v : variants) {
                    CheckOptions w = o;
                    w.source_path = v.string();
                    const CheckReport variant = check_lesson(course, l, w, compiler);
                    if (!variant.status.ok())
                        error(display_path(course, v.string()) + ": " + variant.status.message);
                    for (const auto& name : performance_checks(variant, true))
                        can_fail.insert(name);
                }
            }
            if (solution.status.ok())
                for (const auto& name : performance_checks(solution, false))
                    if (!can_fail.count(name))
                        error("performance check '" + name +
                              "' never fails (not on the exercise, not on lessons/" + l.id +
                              "/wrong/*.cu): a check that cannot fail is a defect; tighten its "
                              "bound or add a known-slow variant there");
        }
        if (options.on_lesson) {
            int errors = 0;
            for (std::size_t i = before; i < out.size(); ++i) errors += out[i].error;
            options.on_lesson(l.id, errors);
        }
    }
    return out;
}

}  // namespace cudalab::lessons
