// Lesson 09 — reduction: the host side.
//
// Launches `block_sum` (exercises/09-reduction.cu), blocks of 256 threads that each add up a share
// of the input, reduce their partial sums and atomically add the block's sum to *total, and
// checks *total. Then, on the largest launch (a small grid, so each thread sums ~16 elements
// first), three performance checks from the trace:
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

Outcome sum_and_check(Session& s, int n, unsigned blocks, const std::string& label) {
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
    const std::string name = "sum of n = " + std::to_string(n) + ", " + label +
                             std::to_string(blocks) + (blocks == 1 ? " block" : " blocks") +
                             " of 256";
    outcome.correct = s.check_equal(name, dtotal, std::vector<float>{float(exact)},
                                    [](std::size_t) { return std::string("*total"); });
    s.check_shared_initialised(
        name,
        "Every thread writes its partial sum (0 if it had no elements) before the first "
        "__syncthreads(); the tree only reads slots below 256.");
    return outcome;
}


void run(Session& s) {
    // n = 1: one block, one element. n = 1000: one thread per element, 4 blocks, the last with
    // 232 threads inside n. n = 7777 on 2 blocks: 15-16 elements per thread. n = 100003 on 24
    // blocks: 16-17 elements per thread. Measured.
    if (!sum_and_check(s, 1, 1, "").launched) return;
    if (!sum_and_check(s, 1000, 4, "").launched) return;
    if (!sum_and_check(s, 7777, 2, "small grid: ").launched) return;
    const Outcome m = sum_and_check(s, 100003, 24, "small grid: ");
    if (!m.launched) return;

    const LaunchResult* last = s.last_launch();
    if (!last || !last->trace) {
        s.log().push_back("divergence, barriers and atomics: not measured (the " +
                          s.runtime().backend().name() + " backend records no trace)");
        return;
    }
    const analysis::Figures& f = m.figures.total;
    const double warps = double(m.blocks * kWarpsPerBlock);

    // Point at the source line whose branches split warps most often.
    std::ostringstream divergence;
    divergence << f.divergent_branches << " of " << f.branches << " branches split a warp, over "
               << m.blocks * kWarpsPerBlock << " warps (24 blocks of 8)";
    const auto worst = std::max_element(
        m.figures.lines.begin(), m.figures.lines.end(), [](const auto& a, const auto& b) {
            return a.figures.divergent_branches < b.figures.divergent_branches;
        });
    if (worst != m.figures.lines.end() && worst->figures.divergent_branches > 0)
        divergence << "; most of them at line " << worst->line << " ("
                   << worst->figures.divergent_branches << ")";
    const Session::MeasuredOn measured_on{m.correct, "the total", "Make the total right first."};
    s.check_at_most("divergent branches per warp", double(f.divergent_branches) / warps,
          kMaxDivergentPerWarp, divergence.str(),
          "With `t % (2*s) == 0` the working threads are scattered through every warp, so each "
          "level of the tree splits every warp. Use sequential addressing: `if (t < s)` with s "
          "halving from 128; the working threads are then whole warps.", measured_on);

    std::ostringstream barriers;
    barriers << m.figures.block_barriers << " block-wide barriers for " << m.blocks
             << " blocks";
    s.check_at_most("barriers per block", double(m.figures.block_barriers) / m.blocks,
          kMaxBarriersPerBlock, barriers.str(),
          "Once 64 values are left, one warp can finish without the block: stop the "
          "shared-memory loop at s > 32, then in warp 0 add partial[t] + partial[t + 32] and "
          "reduce the 32 values with __shfl_down_sync(0xffffffff, v, offset) for offset = 16, "
          "8, 4, 2, 1. A warp needs no __syncthreads.", measured_on);

    std::ostringstream atomics;
    atomics << f.global_atomics << " atomic operations on global memory for " << m.blocks
            << " blocks";
    s.check_at_most("global atomics per block", double(f.global_atomics) / m.blocks,
          kMaxAtomicsPerBlock, atomics.str(),
          "Every atomic on the same address is serialised. Reduce inside the block first, and "
          "let one thread add the block's sum to *total.", measured_on);
}

}  // namespace

CUDALAB_LESSON("09-reduction", run);
