// Lesson 13 — constant memory. A program lesson (lessons/program_lesson.h): the learner's file is a
// whole program, run as `./program in.bin out.bin`. The lesson writes a random bank of filters and
// a random signal, runs it twice (a small awkward size, then a larger one), compares out.bin with a
// CPU reference, and reads the larger run's per-kernel figures from the emulated runtime's result
// (CUDALAB_RESULT "kernels": docs/runtime.md): the weights must come from constant memory, and a
// warp's lanes must read one weight at a time (constant-cache requests per constant load).
#include <cmath>
#include <cstdio>
#include <cstring>

#include "lessons/program_lesson.h"

namespace {

using cudalab::lessons::ProgramRun;
using cudalab::lessons::ProgramSession;

const char* kFixFirst = "make out.bin right first (the correctness checks above say what is wrong)";
const char* kRunYourself = "run it yourself with `cudalab run exercises/13-constant-memory.cu -- "
                           "in.bin out.bin` (the lesson's input format is at "
                           "the top of the file) and look at what it prints";

struct Problem {
    int n = 0, filters = 0, taps = 0;
};

// What the lesson needs from a run: whether out.bin was right, and the kernels' figures.
struct Outcome {
    bool correct = false;
    bool figures = false;  // the runtime's result had per-kernel figures
    double constant_loads = 0, constant_requests = 0, global_load_requests = 0;
};

// Sums the runtime's per-kernel figures (traced launches) over every kernel of the run.
bool kernel_figures(const ProgramRun& run, Outcome* o) {
    if (!run.runtime.is_object() || !run.runtime.contains("kernels") ||
        !run.runtime["kernels"].is_array())
        return false;
    bool any = false;
    for (const auto& k : run.runtime["kernels"]) {
        auto number = [&k](const char* key) {
            return k.is_object() && k.contains(key) && k[key].is_number() ? k[key].get<double>()
                                                                          : 0.0;
        };
        if (number("traced_launches") <= 0) continue;
        any = true;
        o->constant_loads += number("constant_loads");
        o->constant_requests += number("constant_requests");
        o->global_load_requests += number("global_load_requests");
    }
    return any;
}

// Writes the input, runs the program (on `backend`, "" for the session's), compares out.bin.
// `quiet`: a second run for figures only; it records no check.
Outcome run_and_compare(ProgramSession& s, const std::string& name, const Problem& p,
                        const std::string& backend = "", bool quiet = false) {
    Outcome outcome;
    std::vector<float> w(std::size_t(p.filters) * std::size_t(p.taps)), x(std::size_t(p.n));
    std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
    for (auto& v : w) v = dist(s.rng());
    for (auto& v : x) v = dist(s.rng());
    std::vector<unsigned char> in(12 + 4 * (w.size() + x.size()));
    const int header[3] = {p.n, p.filters, p.taps};
    std::memcpy(in.data(), header, 12);
    std::memcpy(in.data() + 12, w.data(), 4 * w.size());
    std::memcpy(in.data() + 12 + 4 * w.size(), x.data(), 4 * x.size());
    std::remove((s.work_dir() + "/out.bin").c_str());
    auto fail = [&](double bad, const std::string& message, const std::string& advice) {
        if (!quiet) s.check(name, false, bad, message, advice);
        return outcome;
    };
    if (!s.write_file("in.bin", in.data(), in.size()))
        return fail(1, "the lesson could not write in.bin in " + s.work_dir(),
                    "free some space in the temporary folder");
    cudalab::lessons::RunSettings settings;
    settings.backend = backend;
    const ProgramRun& run = s.run({"in.bin", "out.bin"}, settings);
    const std::string what = "n = " + std::to_string(p.n) + ", " + std::to_string(p.filters) +
                             " filters of " + std::to_string(p.taps) + " taps: ";
    if (!run.completed)
        return fail(1, what + run.failure + cudalab::lessons::run_details(run), kRunYourself);
    const std::string faults = run.faults();
    if (run.exit_code != 0 || !faults.empty())
        return fail(1,
                    what + "the program exited with status " + std::to_string(run.exit_code) +
                        cudalab::lessons::run_details(run),
                    "every CUDA call must succeed: read the message above, and check each call's "
                    "cudaError_t");
    outcome.figures = kernel_figures(run, &outcome);
    std::vector<unsigned char> bytes;
    const std::size_t outputs = std::size_t(p.filters) * std::size_t(p.n);
    if (!s.read_file("out.bin", &bytes))
        return fail(1, what + "the program wrote no out.bin",
                    "write the F*n results to the file named by argv[2]");
    if (bytes.size() != outputs * 4)
        return fail(1,
                    what + "out.bin has " + std::to_string(bytes.size()) + " bytes, not " +
                        std::to_string(outputs * 4),
                    "write exactly F*n floats, filter 0's n outputs first, nothing before them");
    std::vector<float> out(outputs);
    std::memcpy(out.data(), bytes.data(), bytes.size());
    std::size_t bad = 0, first_bad = 0;
    double expected_first = 0;
    const int half = p.taps / 2;
    for (int f = 0; f < p.filters; ++f)
        for (int i = 0; i < p.n; ++i) {
            double acc = 0, scale = 0;
            for (int k = 0; k < p.taps; ++k) {
                const int j = i + k - half;
                if (j < 0 || j >= p.n) continue;
                const double term =
                    double(w[std::size_t(f * p.taps + k)]) * double(x[std::size_t(j)]);
                acc += term;
                scale += std::fabs(term);
            }
            const std::size_t at = std::size_t(f) * std::size_t(p.n) + std::size_t(i);
            // float sums in any order (and fused multiply-adds) stay within this of the exact sum
            if (!(std::fabs(double(out[at]) - acc) <= 1e-5 * scale + 1e-6) && bad++ == 0) {
                first_bad = at;
                expected_first = acc;
            }
        }
    if (bad) {
        char detail[200];
        std::snprintf(detail, sizeof detail,
                      "; the first is filter %zu, position %zu: expected %.7g, got %.7g",
                      first_bad / std::size_t(p.n), first_bad % std::size_t(p.n), expected_first,
                      double(out[first_bad]));
        return fail(double(bad),
                    what + std::to_string(bad) + " of " + std::to_string(outputs) +
                        " outputs differ" + detail,
                    "check which filter each thread works for and where it writes (filter f's "
                    "outputs start at f*n), and that "
                    "the taps outside the signal count as 0");
    }
    outcome.correct = true;
    if (!quiet)
        s.check(name, true, 0, what + "all " + std::to_string(outputs) + " outputs match", "");
    return outcome;
}

void run(ProgramSession& s) {
    std::uniform_int_distribution<int> small_n(900, 1100), large_n(16000, 20000);
    run_and_compare(s, "out.bin is right for a small input", {small_n(s.rng()), 5, 9});
    const Problem large{large_n(s.rng()), 8, 15};
    Outcome big = run_and_compare(s, "out.bin is right for a larger input", large);
    // The figures are the emulator's (a GPU's counters do not say which constant loads
    // serialised): on a GPU the program runs once more on the emulated runtime for them.
    if (big.correct && s.backend() == "gpu") {
        const Outcome emulated = run_and_compare(s, "", large, "emu", true);
        big.figures = emulated.correct && emulated.figures;
        big.constant_loads = emulated.constant_loads;
        big.constant_requests = emulated.constant_requests;
        big.global_load_requests = emulated.global_load_requests;
    }
    // A run that launched no kernel has no figures: its counts are zero (it read no constant
    // memory).
    if (big.correct && !big.figures)
        s.log().push_back("the larger run launched no kernel the runtime counted");
    const bool measured = big.correct;
    const double warps = double(large.filters) * double(large.n) / 32.0;
    char text[300];

    const double constant_per_warp = big.constant_loads / warps;
    std::snprintf(text, sizeof text,
                  "%.2f warp-level loads from constant memory per 32 outputs (%d taps each)",
                  constant_per_warp, large.taps);
    s.check_at_least("the kernel reads the weights from constant memory", constant_per_warp, 1.0,
                     text,
                     "declare the weights as a __constant__ array (__constant__ float c_weights[8 "
                     "* 31];), fill it once with "
                     "cudaMemcpyToSymbol(c_weights, w.data(), bytes) and read c_weights[f * K + k] "
                     "in the kernel instead of a "
                     "pointer argument",
                     measured, kFixFirst);

    const double global_per_warp = big.global_load_requests / warps;
    const double global_bound = 1.5 * large.taps;
    std::snprintf(text, sizeof text,
                  "%.2f global load instructions per 32 outputs; each output needs %d signal "
                  "values, and the weights should "
                  "not be among the global loads",
                  global_per_warp, large.taps);
    s.check_at_most("global loads per 32 outputs", global_per_warp, global_bound, text,
                    "the weights still come from global memory: read them from the __constant__ "
                    "array, and drop the pointer "
                    "argument and its cudaMalloc",
                    measured, kFixFirst);

    const double per_load = big.constant_loads > 0 ? big.constant_requests / big.constant_loads : 0;
    std::snprintf(text, sizeof text,
                  "%.0f warp-level constant loads needed %.0f constant-cache requests: %.2f per "
                  "load (1 is a broadcast; lanes "
                  "reading d different addresses need d, one after another)",
                  big.constant_loads, big.constant_requests, per_load);
    const char* serialised = "the lanes of a warp read different weights at the same time, so the "
                             "constant cache serves them one address after "
                             "another: give every warp a single filter (a 2D grid, the filter in "
                             "blockIdx.y, the position in blockIdx.x * "
                             "blockDim.x + threadIdx.x)";
    if (measured && big.constant_loads == 0)
        s.not_measured("constant-cache requests per constant load", 1.25, false,
                       "the kernels made no constant loads to count",
                       "read the weights from constant memory first (the check above)");
    else
        s.check_at_most("constant-cache requests per constant load", per_load, 1.25, text,
                        serialised, measured, kFixFirst);
}

}  // namespace

CUDALAB_PROGRAM_LESSON("13-constant-memory", run);
