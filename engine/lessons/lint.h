// The course linter (`cudalab lint`, tests/course_linter_test.cpp): the invariants every lesson of
// a course keeps, for the built-in course and for any course pack.
//   - the manifest parses; ids are NN-slug, unique; each lesson has a title, a text with
//     "## Your task", an exercise with a TODO, a solution, and a host side: lessons/ID/lesson.toml
//     (which parses: errors name file:line) or a C++ host side compiled into cudalab, not both;
//   - every hint is written (a hint still marked TODO is a warning), every view is one the app has,
//     every picture a text shows is a file, every lesson a text mentions exists;
//   - every solution passes every check; every exercise fails as shipped, without faulting;
//   - every performance check can fail: on the shipped exercise, or on one of the lesson's
//     known-wrong variants (lessons/ID/wrong/*.cu);
//   - a kind = "program" lesson.toml names the checks its C++ host side makes, and they are the
//     solution's.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "lessons/course.h"

namespace cudalab::lessons {

struct LintFinding {
    std::string lesson;   // "" : the course
    bool error = true;    // false: a warning (the course still lints)
    std::string message;  // names the file (and line when there is one) and what to do
};

struct LintOptions {
    bool run = true;   // false: only the static checks (no compile, no run)
    std::string only;  // one lesson id, or "" for all
    std::string backend = "emu";
    // Called after each lesson (for a progress line); may be null.
    std::function<void(const std::string& lesson, int errors)> on_lesson;
};

std::vector<LintFinding> lint_course(const Course& course, compiler::Compiler& compiler,
                                     const LintOptions& options = {});

// The views the app has (docs/gui.md).
const std::vector<std::string>& known_views();

}  // namespace cudalab::lessons
