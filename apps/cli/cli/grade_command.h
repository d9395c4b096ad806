// `cudalab grade`: grading a whole class (docs/instructors.md, "Grading a class"). Contract (keep
// stable; course scripts read what it writes):
//   cudalab grade SUBMISSIONS/ --out RESULTS/ [--lessons ID,...] [--jobs N] [--seed S]
//       [--shard K/N] [--backend emu|gpu|auto] [--pair-time-limit S] [limits as `cudalab check`]
//   cudalab grade --merge RESULTS1 RESULTS2 ... --out RESULTS/
// SUBMISSIONS/ holds one folder per student with files named as exercises/ (ID.cu). Every
// (student, lesson) pair is checked by check_lesson() in a worker process; RESULTS/ gets the store
// (grades.db), results.csv (one row per pair), students.csv (one row per student), summary.json,
// and per student STUDENT/report.txt, report.json, junit.xml, results.json (Gradescope) and the
// lessons' own reports in STUDENT/lessons/. Exit 0 every pair graded (whatever the grades), 2 bad
// usage, 130 interrupted (run it again to resume: finished pairs whose file is unchanged are kept).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

#include "cli/strict_parse.h"
#include "lessons/course.h"

namespace cli {

struct GradeArgs {
    std::string submissions;
    std::string out;
    std::string lessons;  // "ID,ID,..." (empty: every lesson of the course)
    std::string jobs;     // worker processes (empty: one per core)
    std::string seed;     // empty: the seed recorded in RESULTS/, else a new one
    std::string shard;    // "K/N", 1 <= K <= N
    std::string backend = "auto";
    std::vector<std::string> merge;
    std::string pair_time_limit;  // seconds (empty: compile limit + time limit + 60)
    LimitFlags limits;
};

void add_grade_options(CLI::App* cmd, GradeArgs& a);
// `course` is the course the command line loaded (whatever --course or the environment named).
int run_grade(const cudalab::lessons::Course& course, const GradeArgs& a);

// The shard (0-based) a pair belongs to when the work is split `shards` ways: a hash of the
// student's folder name and the lesson id, so it depends on nothing else in the class.
unsigned shard_of(const std::string& student, const std::string& lesson, unsigned shards);

}  // namespace cli
