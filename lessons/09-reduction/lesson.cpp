// Lesson 09 — reduction: the host side.
//
// Launches `block_sum` (exercises/09-reduction.cu), blocks of 256 threads that each add up a share
// of the input, reduce their partial sums and atomically add the block's sum to *total, and
// checks *total. Then, on every launch (two of them on a size and grid chosen at run time), three
// performance checks from the trace, each holding the worst launch to its bound:
//   - divergent branches per warp: a tree whose levels split warps (the `t % (2*s) == 0` test)
//     diverges in every warp at every level; sequential addressing and shuffles do not;
//   - barriers per block: the shared-memory tree needs one per level while more than a warp's
//     worth of values is left; the last 32 values go through warp shuffles, without barriers;
//   - global atomics per block: one, for the block's sum.
// Anatomy: CPU reference -> sizes -> launch -> validate -> performance.
#include "lessons/lesson.h"

#include "analysis/metrics.h"

#include <algorithm>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace cudalab;
using namespace cudalab::lessons;

constexpr unsigned kBlockSize = 256;  // BLOCK in the kernel
constexpr unsigned kWarpsPerBlock = kBlockSize / 32;

// Bounds, measured on the reference solution and on the usual wrong turns (n = 100003 on 24
// blocks):
//   interleaved tree (shipped)        6.0 divergent branches/warp, 9 barriers/block
//   sequential addressing to s = 1    0.8                       , 9
//   sequential + shuffles (solution)  0.13                      , 3
//   shuffles in every warp, then warp 0: 1.3                    , 1
// A warp may diverge once or twice to let one lane write a result; a tree that splits warps
// diverges at every level. The barrier bound is one per shared-memory level down to 64 values
// (log2(256 / 32) = 3) plus one after the per-thread sums.
constexpr double kMaxDivergentPerWarp = 2.0;
constexpr double kMaxBarriersPerBlock = 4.0;
constexpr double kMaxAtomicsPerBlock = 1.0;

// Whole numbers in [-100, 100] stored as floats: every partial sum of up to 100003 of them is a
// whole number below 2^24 in magnitude, which a float holds exactly. So every summation order
// gives the same, exact total, and the check needs no tolerance, even on a GPU where the blocks'
// atomic adds land in a different order each run.
std::vector<float> whole_number_inputs(Session& s, int n) {
    const std::vector<int> ints = s.random_ints(std::size_t(n), -100, 100);
    return std::vector<float>(ints.begin(), ints.end());
}

struct Outcome {
    bool launched = false;
    bool correct = false;
    unsigned blocks = 0;
    analysis::KernelFigures figures;
};

Outcome sum_and_check(Session& s, int n, unsigned blocks, const std::string& label, bool chosen_at_run_time = false) {
    Outcome outcome;
    outcome.blocks = blocks;
    const std::vector<float> in = whole_number_inputs(s, n);
    auto din = s.to_device(in);
    auto dtotal = s.to_device(std::vector<float>{0.0f});  // the host zeroes the accumulator

    if (!s.launch("block_sum", Dim3{blocks}, Dim3{kBlockSize}, 0, din, dtotal, n))
        return outcome;
    outcome.launched = true;
    if (const LaunchResult* launch = s.last_launch(); launch && launch->trace)
        outcome.figures = analysis::analyze(*launch->trace);

    std::int64_t exact = 0;  // CPU reference, in integers
    for (float v : in) exact += std::int64_t(v);
    const std::string shape = "n = " + std::to_string(n) + ", " + label + std::to_string(blocks) +
                              (blocks == 1 ? " block" : " blocks") + " of 256";
    const std::string name = chosen_at_run_time ? "sum of a size and grid chosen at run time, " + label.substr(0, label.size() - 2)
                                                : "sum of " + shape;
    if (chosen_at_run_time) s.log().push_back("the launch chosen at run time: " + shape);
    outcome.correct = s.check_equal(name, dtotal, std::vector<float>{float(exact)},
                                    [](std::size_t) { return std::string("*total"); });
    s.check_shared_initialised(
        name,
        "Every thread writes its partial sum (0 if it had no elements) before the first "
        "__syncthreads(); the tree only reads slots below 256.");
    return outcome;
}


// The worst launch for one figure: its value, and what the message says about it.
struct Worst {
    double value = -1;
    std::string text;
    void offer(double v, const std::string& t) {
        if (v > value) { value = v; text = t; }
    }
};

void run(Session& s) {
    // n = 0: nothing to add. n = 1: one block, one element. n = 1000: one thread per element, 4 blocks, the last with
    // 232 threads inside n. n = 7777 on 2 blocks: 15-16 elements per thread. n = 100003 on 24
    // blocks: 16-17 elements per thread. Then a size and a grid chosen at run time, twice: one
    // thread per element, and a small grid. Every launch is measured.
    const std::vector<int> r = s.random_ints(3, 1, 1 << 20);
    const int n_one = 2000 + r[0] % 8000, n_small = 40000 + r[1] % 80000;
    const unsigned small_blocks = 8 + unsigned(r[2]) % 40;
    struct Launch { int n; unsigned blocks; const char* label; bool random; };
    const Launch launches[] = {
        {0, 1, "", false},  // nothing to add: the total stays 0
        {1, 1, "", false},
        {1000, 4, "", false},
        {7777, 2, "small grid: ", false},
        {100003, 24, "small grid: ", false},
        {n_one, (unsigned(n_one) + kBlockSize - 1) / kBlockSize, "one thread per element: ", true},
        {n_small, small_blocks, "small grid: ", true},
    };
    std::vector<Outcome> outcomes;
    bool correct = true;
    for (const Launch& l : launches) {
        Outcome o = sum_and_check(s, l.n, l.blocks, l.label, l.random);
        if (!o.launched) return;
        correct = correct && o.correct;
        outcomes.push_back(std::move(o));
    }

    const LaunchResult* last = s.last_launch();
    if (!last || !last->trace) {
        s.log().push_back("divergence, barriers and atomics: not measured (the " +
                          s.runtime().backend().name() + " backend records no trace)");
        return;
    }
    Worst divergent, barriers, atomics;
    for (std::size_t k = 0; k < outcomes.size(); ++k) {
        const Outcome& m = outcomes[k];
        const analysis::Figures& f = m.figures.total;
        const std::string which = launches[k].random ? "the launch chosen at run time (" + std::to_string(launches[k].n) + " elements, " + std::to_string(m.blocks) + " blocks)"
                                                     : "n = " + std::to_string(launches[k].n) + " on " + std::to_string(m.blocks) + (m.blocks == 1 ? " block" : " blocks");
        const double warps = double(m.blocks * kWarpsPerBlock);
        // Point at the source line whose branches split warps most often.
        std::ostringstream d;
        d << "worst launch " << which << ": " << f.divergent_branches << " of " << f.branches
          << " branches split a warp, over " << m.blocks * kWarpsPerBlock << " warps";
        const auto worst = std::max_element(
            m.figures.lines.begin(), m.figures.lines.end(), [](const auto& a, const auto& b) {
                return a.figures.divergent_branches < b.figures.divergent_branches;
            });
        if (worst != m.figures.lines.end() && worst->figures.divergent_branches > 0)
            d << "; most of them at line " << worst->line << " (" << worst->figures.divergent_branches << ")";
        divergent.offer(double(f.divergent_branches) / warps, d.str());
        barriers.offer(double(m.figures.block_barriers) / m.blocks,
                       "worst launch " + which + ": " + std::to_string(m.figures.block_barriers) + " block-wide barriers");
        atomics.offer(double(f.global_atomics) / m.blocks,
                      "worst launch " + which + ": " + std::to_string(f.global_atomics) + " atomic operations on global memory");
    }
    const Session::MeasuredOn measured_on{correct, "the total of some launch", "Make the total right first."};
    s.check_at_most("divergent branches per warp", divergent.value, kMaxDivergentPerWarp, divergent.text,
          "With `t % (2*s) == 0` the working threads are scattered through every warp, so each "
          "level of the tree splits every warp. Use sequential addressing: `if (t < s)` with s "
          "halving from 128; the working threads are then whole warps.", measured_on);
    s.check_at_most("barriers per block", barriers.value, kMaxBarriersPerBlock, barriers.text,
          "Once 64 values are left, one warp can finish without the block: stop the "
          "shared-memory loop at s > 32, then in warp 0 add partial[t] + partial[t + 32] and "
          "reduce the 32 values with __shfl_down_sync(0xffffffff, v, offset) for offset = 16, "
          "8, 4, 2, 1. A warp needs no __syncthreads.", measured_on);
    s.check_at_most("global atomics per block", atomics.value, kMaxAtomicsPerBlock, atomics.text,
          "Every atomic on the same address is serialised. Reduce inside the block first, and "
          "let one thread add the block's sum to *total.", measured_on);
}

}  // namespace

CUDALAB_LESSON("09-reduction", run);
