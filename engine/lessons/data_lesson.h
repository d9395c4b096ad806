// Data lessons: a lesson's host side written as data (lessons/ID/lesson.toml) instead of C++.
// docs/instructors.md is the reference of every key; this is the model the loader builds and the
// runner that turns it into the same Session calls a C++ lesson makes, so a data lesson's report
// has the same shape (check names, points, "not measured" on wrong results, launch naming).
//
// The oracle is the reference solution (solutions/ID.cu), run on the emulator beside the
// learner's kernel with the same inputs: what it leaves in a compared buffer is the expected
// value. There is no CPU reference in data.
#pragma once

#include <array>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "lessons/lesson.h"

namespace cudalab::lessons {

// "name = expression", in order (random draws happen in this order).
struct Binding {
    std::string name, expr;
    int line = 0;
};

enum class ElementType { f32, f64, i32, u32, u8, i64, u64 };

struct DataArg {
    std::string name;
    std::string type;  // as the kernel declares it: "float*", "int", ...
    bool buffer = false;
    ElementType element = ElementType::f32;
    std::string count;               // buffers: element count (expression)
    std::string fill = "unwritten";  // unwritten | zero | value | uniform | normal | expr
    std::string lo = "0", hi = "1", value = "0", mean = "0", stddev = "1";
    struct Edge {
        std::string from, to, value;  // elements [from, to) get value (an expression of i)
    };
    std::vector<Edge> edges;
    std::string scalar;  // scalars: the value (expression)
    // The shape the app draws it in (BufferShape): rows and cols expressions, kind.
    std::string rows, cols;
    ShapeKind shape_kind = ShapeKind::matrix;
    bool shaped = false;
    int line = 0;
};

struct DataLaunch {
    std::vector<Binding> let;  // evaluated first, in order
    std::string each_name;     // each = { n = [1, 2, 3] }: one launch per value
    std::vector<std::string> each_values;
    std::string kernel;                      // "" : the lesson's
    std::array<std::string, 3> grid, block;  // "" : the lesson's
    std::string shared;                      // dynamic shared bytes; "" : the lesson's
    // Thread block cluster dimensions (sm_90; cluster = [2, 1, 1]); "" : no clusters
    std::array<std::string, 3> cluster;
    std::vector<std::string> tags;
    std::map<std::string, std::string> words;  // text variables (templates) for names and logs
    std::string log;                           // a line for the report's log (template)
    int line = 0;
};

struct DataCompare {
    std::string buffer;
    std::string name;   // the check's name (template)
    std::string where;  // a mismatch's place (template of i), "" : "buffer[i]"
    Tolerance tolerance;
    std::string launches = "all";         // a tag, or "all"
    std::string shared_unwritten_advice;  // set: fail this check when the launch read unwritten
                                          // shared memory
    std::string advice;                   // what to try when it fails (template)
    int line = 0;
};

struct DataMetric {
    std::string name;
    std::string kind = "ratio";     // ratio | sectors
    std::string direction;          // sectors: loads | stores
    std::string value;              // per launch, summed (ratio)
    std::string per;                // per launch, summed; "" : no division
    std::string needed;             // sectors: per launch, summed
    std::string allowed;            // per launch, summed: the bound is sum(allowed) / sum(per)
    std::string at_most, at_least;  // the bound as one expression (launches, reference)
    std::map<std::string, std::string> sums;  // extra per-launch sums for the message
    std::string message;                      // template (total, per, value, bound, launches, sums)
    std::string over;  // sectors: what was moved, e.g. "a and b over every launch"
    std::string advice;
    std::string launches = "all";
    // sum: sum(value) / sum(per) over the launches; worst: the largest value / per of one launch
    // (the message then reads that launch's own figures).
    std::string aggregate = "sum";
    std::string focus = "last";  // last | worst (the launch with the most excess)
    std::string wrong_result = "the result of some launch";
    std::string wrong_advice = "Make every launch correct first (see the failed checks above).";
    int line = 0;
};

// A timed check on a GPU (skipped, with a log line, on the emulator).
struct DataTimed {
    std::string name;
    std::string kind = "bandwidth";  // bandwidth | flops
    std::vector<Binding> let;
    std::string kernel;
    std::array<std::string, 3> grid, block;
    std::string amount;            // bytes moved (bandwidth) or FLOPs
    double at_least = 0.8;         // fraction of the device's measured peak
    std::string launches = "all";  // these launches must have been correct
    std::string advice;
    int line = 0;
};

struct DataLesson {
    std::string path;             // lessons/ID/lesson.toml
    std::string kind = "kernel";  // kernel | program
    std::vector<std::string>
        program_checks;              // kind = "program": the checks its C++ host side makes
    std::vector<std::string> views;  // empty: the manifest's
    std::string kernel;
    std::array<std::string, 3> grid = {"1", "1", "1"}, block = {"1", "1", "1"};
    std::string shared = "0";
    std::map<std::string, std::string> words;  // defaults for every [[launch]]
    std::string log;                           // default for every [[launch]]
    std::vector<Binding> let;
    std::vector<DataArg> args;
    std::vector<DataLaunch> launches;
    std::vector<DataCompare> compares;
    std::vector<DataMetric> metrics;
    std::vector<DataTimed> timed;
    bool uses_reference = false;  // a bound names `reference`: the oracle is traced too
};

// Parses lessons/ID/lesson.toml. Errors name the file and line: "path:12: [[arg]] 'c': ...".
Status load_data_lesson(const std::string& path, DataLesson* lesson);

// The reference solution's side of a data lesson: a runtime over the emulator with the solution
// loaded. Made by check_lesson (course.cpp).
struct Oracle {
    std::unique_ptr<Runtime> runtime;
    std::shared_ptr<const compiler::CompileResult> module;
};

// Runs a data lesson: the learner's kernels on `session`, the solution's on `oracle`.
void run_data_lesson(const DataLesson& lesson, Session& session, Oracle& oracle);

}  // namespace cudalab::lessons
