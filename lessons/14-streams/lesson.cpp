// Lesson 14 — streams. A program lesson (lessons/program_lesson.h): the learner's file is a whole
// program, run as `./program in.bin out.bin`. The lesson writes random inputs, runs it twice (a
// small awkward size, then a large one), compares out.bin with a CPU reference, and reads the
// large run's timeline: copies in both directions must run while kernels run, and none may use
// pageable host memory.
#include <algorithm>
#include <cstring>
#include <map>

#include "lessons/program_lesson.h"

namespace {

using cudalab::lessons::Interval;
using cudalab::lessons::ProgramRun;
using cudalab::lessons::ProgramSession;

// The exercise's kernel, on the CPU (32-bit unsigned arithmetic wraps the same way on both).
unsigned mix_reference(unsigned v) {
    for (unsigned r = 0; r < 256; ++r) v = (v ^ (v >> 15)) * 2246822519u + r;
    return v;
}

const char* kFixFirst = "make out.bin right first (the correctness checks above say what is wrong)";

// Writes n random values, runs the program, compares. Returns true when out.bin is right.
bool run_and_compare(ProgramSession& s, const std::string& name, unsigned n,
                     const ProgramRun** run_out) {
    std::vector<unsigned> in(std::size_t(n) + 1);
    in[0] = n;
    std::uniform_int_distribution<unsigned> dist;
    for (unsigned i = 1; i <= n; ++i) in[i] = dist(s.rng());
    std::remove((s.work_dir() + "/out.bin").c_str());
    if (!s.write_file("in.bin", in.data(), in.size() * sizeof(unsigned))) {
        s.check(name, false, 1, "the lesson could not write in.bin in " + s.work_dir(),
                "free some space in the temporary folder");
        return false;
    }
    const ProgramRun& run = s.run({"in.bin", "out.bin"});
    *run_out = &run;
    const std::string what = "n = " + std::to_string(n) + ": ";
    if (!run.completed) {
        s.check(name, false, 1, what + run.failure + cudalab::lessons::run_details(run),
                "run it yourself with `cudalab run exercises/14-streams.cu -- in.bin out.bin` and "
                "look at what it prints");
        return false;
    }
    const std::string faults = run.faults();
    if (run.exit_code != 0 || !faults.empty()) {
        s.check(name, false, 1,
                what + "the program exited with status " + std::to_string(run.exit_code) +
                    cudalab::lessons::run_details(run),
                "every CUDA call must succeed: read the message above, and check each call's "
                "cudaError_t");
        return false;
    }
    std::vector<unsigned char> bytes;
    if (!s.read_file("out.bin", &bytes)) {
        s.check(name, false, 1, what + "the program wrote no out.bin",
                "write the n results to the file named by argv[2]");
        return false;
    }
    if (bytes.size() != std::size_t(n) * sizeof(unsigned)) {
        s.check(name, false, 1,
                what + "out.bin has " + std::to_string(bytes.size()) + " bytes, not " +
                    std::to_string(std::size_t(n) * 4),
                "write exactly n 32-bit values, nothing before them");
        return false;
    }
    std::vector<unsigned> out(n);
    if (n) std::memcpy(out.data(), bytes.data(), bytes.size());
    std::size_t bad = 0, first_bad = 0;
    for (unsigned i = 0; i < n; ++i)
        if (out[i] != mix_reference(in[std::size_t(i) + 1]) && bad++ == 0) first_bad = i;
    if (bad) {
        s.check(
            name, false, double(bad),
            what + std::to_string(bad) + " of " + std::to_string(n) +
                " values differ; the first at index " + std::to_string(first_bad),
            "a chunk that was never copied in, computed or copied out leaves its values wrong: "
            "check each chunk's offset "
            "and count (the last one is shorter), and synchronise before the host writes out.bin");
        return false;
    }
    s.check(name, true, 0, what + "all " + std::to_string(n) + " values match", "");
    return true;
}

// The share of one direction's copy time during which some kernel runs; `kernel_us` gets the time
// some kernel was running.
double hidden_fraction(const ProgramRun& run, const std::string& direction, double* copy_us,
                       double* kernel_us) {
    std::vector<Interval> kernels;
    for (const auto& e : run.timeline)
        if (e.pid >= 1 && e.category == "kernel")
            kernels.push_back({e.start_ns / 1e3, e.end_ns / 1e3});
    const auto merged = cudalab::lessons::merge_intervals(kernels);
    *kernel_us = 0;
    for (const auto& k : merged) *kernel_us += k.end - k.start;
    double total = 0, hidden = 0;
    for (const auto& e : run.timeline) {
        if (e.pid < 1 || e.category != "memcpy" || e.name.find(direction) == std::string::npos)
            continue;
        const Interval c{e.start_ns / 1e3, e.end_ns / 1e3};
        total += c.end - c.start;
        hidden += cudalab::lessons::covered(c, merged);
    }
    *copy_us = total;
    return total > 0 ? hidden / total : 0;
}

// The advice of the overlap checks, from what the timeline shows: the first cause that explains
// too little overlap (pageable copies hold the host; one stream runs in order; too few chunks or
// streams leave an engine idle), rather than one fixed remedy.
std::string overlap_advice(const ProgramRun* run, std::size_t pageable) {
    if (pageable > 0)
        return std::to_string(pageable) +
               " copies used pageable memory: each cudaMemcpyAsync from it held the host until "
               "the copy was staged, so the host issued nothing else meanwhile and the pipeline "
               "ran dry. Pin the copied host buffers first (cudaMallocHost); more streams do not "
               "help while the host is held";
    std::map<std::pair<std::int64_t, std::int64_t>, int> kernels_per_stream, copies_per_stream;
    std::size_t kernels = 0;
    if (run)
        for (const auto& e : run->timeline) {
            if (e.pid < 1) continue;
            const std::pair<std::int64_t, std::int64_t> stream{e.pid, e.tid};
            if (e.category == "kernel") ++kernels_per_stream[stream], ++kernels;
            if (e.category == "memcpy") ++copies_per_stream[stream];
        }
    if (kernels_per_stream.size() <= 1 && kernels <= 1)
        return "one kernel did all the work: a copy can only run beside a kernel that works on "
               "another part of the data. Cut the values into chunks (8 or more), each with its "
               "own copy in, kernel and copy out";
    if (kernels_per_stream.size() <= 1)
        return "every kernel ran in one stream: a stream runs its work in the order it was "
               "issued, so its copies never run while its own kernels do. Give the chunks "
               "several streams created with cudaStreamNonBlocking (the legacy default stream "
               "waits for the others)";
    for (const auto& [stream, n] : kernels_per_stream)
        if (!copies_per_stream.count(stream))
            return "the kernels and the copies ran in different streams, so each waited for "
                   "the other through events or the default stream: give each chunk its copy "
                   "in, kernel and copy out in one stream, and the chunks several streams";
    return std::to_string(kernels_per_stream.size()) +
           " streams ran kernels: three engines (copy in, compute, copy out) need three chunks "
           "in flight, each chunk's copy in, kernel and copy out issued together in its stream. "
           "Use 3 or more streams, or issue each chunk's three steps before the next chunk's";
}

void run(ProgramSession& s) {
    const ProgramRun* small = nullptr;
    const ProgramRun* large = nullptr;
    std::uniform_int_distribution<unsigned> small_n(1000, 1100), large_n(1200000, 1300000);
    run_and_compare(s, "out.bin is right for a small input", small_n(s.rng()), &small);
    const bool correct =
        run_and_compare(s, "out.bin is right for a large input", large_n(s.rng()), &large);

    // The performance checks read the large run's timeline.
    const bool timeline = large && large->timeline_written;
    if (large && !timeline && correct) s.log().push_back("the large run wrote no timeline");
    const bool measured = correct && timeline;
    std::size_t pageable = 0, copies = 0;
    if (large)
        for (const auto& e : large->timeline)
            if (e.pid >= 1 && e.category == "memcpy") {
                ++copies;
                if (!e.args.is_object() || !e.args.contains("pinned")) continue;
                // a boolean (or "false" from older runtimes)
                const auto& pinned = e.args["pinned"];
                if ((pinned.is_boolean() && !pinned.get<bool>()) ||
                    (pinned.is_string() && pinned.get<std::string>() == "false"))
                    ++pageable;
            }
    s.check_at_most("no copies from or to pageable memory", double(pageable), 0,
                    std::to_string(pageable) + " of " + std::to_string(copies) +
                        " copies used pageable host memory",
                    "allocate the host buffers that are copied with cudaMallocHost: "
                    "cudaMemcpyAsync from malloc'd memory holds the host until the driver has "
                    "staged the copy, so the host cannot issue the next chunk's work meanwhile",
                    measured, kFixFirst);
    const std::string advice = overlap_advice(large, pageable);
    // Kernels can hide at most their own time's worth of copies: where the copies take longer than
    // the kernels (on an H200 the kernels are fast and PCIe is the bottleneck), at most kernel time
    // / copy time of the copies can run under a kernel. The check asks for 40 % of what can be
    // hidden (the solution hides 55-65 % of it on an H200, 82 % on the emulated runtime).
    for (const auto& [direction, label] :
         {std::pair<std::string, std::string>{"HtoD", "host-to-device"},
          {"DtoH", "device-to-host"}}) {
        double copy_us = 0, kernel_us = 0;
        const double f = large ? hidden_fraction(*large, direction, &copy_us, &kernel_us) : 0;
        const double can_hide = copy_us > 0 ? std::min(1.0, kernel_us / copy_us) : 1.0;
        const double bound = 0.4 * can_hide;
        char text[300];
        std::snprintf(text, sizeof text,
                      "%.0f %% of %.1f us of %s copies ran while a kernel ran (kernels ran for "
                      "%.1f us: at most %.0f %% can be hidden)",
                      100 * f, copy_us, label.c_str(), kernel_us, 100 * can_hide);
        s.check_at_least(label + " copies overlap kernels", f, bound,
                         copy_us > 0 ? text : "no " + label + " copies on the timeline", advice,
                         measured, kFixFirst);
    }
}

}  // namespace

CUDALAB_PROGRAM_LESSON("14-streams", run);
