// Instructors' commands (docs/instructors.md). Contract (keep stable):
//   cudalab [--course DIR] new-lesson ID [--title TEXT]
//       scaffolds a data lesson in the course (creating the course when DIR has none): lessons/ID/
//       lesson.toml and lesson.md, exercises/ID.cu (fails as shipped), solutions/ID.cu (passes),
//       and a manifest entry with three hints marked TODO. Exit 0 written; 2 bad id, the lesson
//       exists, or a file could not be written.
//   cudalab [--course DIR] lint [--lesson ID] [--static] [--backend emu|gpu|auto]
//       lessons/lint.h's checks; one line per finding ("error:" or "warning:"). Exit 0 no errors
//       (warnings allowed); 1 errors; 2 the course cannot be read.
//   cudalab inputs ID [--seed N] [-o DIR] [--backend emu|gpu|auto]
//       writes the input files of a program lesson's first run of the program (in.bin ...) into DIR
//       (default: the current folder), exactly as `check ID --seed N` writes them, and prints how
//       to run the exercise on them. Exit 0 written; 2 not a program lesson, bad seed, or a file
//       could not be written.
//   --course DIR (anywhere before a `--`) or $CUDALAB_COURSE picks the course for every command.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace cli {

// Takes `--course DIR` / `--course=DIR` out of argv (up to a `--`), and sets $CUDALAB_COURSE to
// DIR's absolute path, so every command (and the app, and workers) reads that course. Returns
// false, with `error` set, when --course has no value.
bool take_course_option(int& argc, char** argv, std::string* error);

struct NewLessonArgs {
    std::string id;
    std::string title;
};
void add_new_lesson_options(CLI::App* cmd, NewLessonArgs& args);
int run_new_lesson(const NewLessonArgs& args);

struct LintArgs {
    std::string lesson;
    bool static_only = false;
    std::string backend = "emu";
};
void add_lint_options(CLI::App* cmd, LintArgs& args);
int run_lint(const LintArgs& args);

struct InputsArgs {
    std::string lesson;
    std::string seed;  // empty: a new one, printed
    std::string dir = ".";
    std::string backend = "auto";
};
void add_inputs_options(CLI::App* cmd, InputsArgs& args);
int run_inputs(const InputsArgs& args);

}  // namespace cli
