// `cudalab autograder gradescope --lessons ID,... -o autograder.zip`: the bundle Gradescope's
// "zip file upload" autograder takes (docs/instructors.md, "The autograder bundle"): setup.sh and
// run_autograder at the top (scripts/autograder/gradescope/), lessons.txt (the lessons graded),
// cudalab/ (the sources setup.sh builds) and, for a course outside the sources, course/.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "lessons/course.h"

namespace cli {

struct AutograderArgs {
    std::string platform;  // "gradescope"
    std::string lessons;
    std::string output = "autograder.zip";
};

void add_autograder_options(CLI::App* cmd, AutograderArgs& a);
int run_autograder(const cudalab::lessons::Course& course, const AutograderArgs& a);

}  // namespace cli
