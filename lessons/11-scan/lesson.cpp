// Lesson 11 — scan: the host side.
//
// Launches `block_scan` (exercises/11-scan.cu), one thread per element in blocks of 256, and checks
// that each block's part of `out` is the inclusive prefix sum of its part of `in`. Then, on the
// largest launch, two performance checks from the trace:
//   - thread-instructions per element: a thread that adds up everything before it on its own
//     does ~128 additions per element; a parallel scan does O(log) work per element;
//   - barriers per block: warp shuffles scan 32 elements with no barrier; a block needs only two,
//     around the scan of the 8 warp totals (a shared-memory tree scan needs two per step).
// Anatomy: CPU reference -> sizes -> launch -> validate -> performance.
#include "lessons/lesson.h"

#include "analysis/metrics.h"

#include <cstddef>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace cudalab;
using namespace cudalab::lessons;

constexpr unsigned kBlockSize = 256;  // BLOCK in the kernel

// Measured on n = 20011 (79 blocks):
//   serial per thread (shipped)              448 thread-instructions/element, 0 barriers/block
//   Hillis-Steele in shared memory          89                               17
//   warp shuffles, two levels (solution)     67                               2
// 100 leaves room for a less tidy shuffle scan and fails any scheme in which a thread re-adds
// what its neighbours have added. Two barriers: one before the warp totals are scanned, one
// before they are read.
constexpr double kMaxInstructionsPerElement = 100.0;
constexpr double kMaxBarriersPerBlock = 2.0;

// CPU reference: the inclusive scan of each 256-element block, restarting at every block.
std::vector<int> cpu_block_scan(const std::vector<int>& in) {
    std::vector<int> out(in.size());
    int sum = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
        if (i % kBlockSize == 0) sum = 0;
        sum += in[i];
        out[i] = sum;
    }
    return out;
}

struct Outcome {
    bool launched = false;
    bool correct = false;
    unsigned blocks = 0;
    LaunchStats stats;
    analysis::KernelFigures figures;
};

Outcome scan_and_check(Session& s, int n) {
    Outcome outcome;
    outcome.blocks = (unsigned(n) + kBlockSize - 1) / kBlockSize;
    // Small counts, as when a scan turns per-element counts into output offsets.
    const std::vector<int> in = s.random_ints(std::size_t(n), 0, 20);
    auto din = s.to_device(in);
    auto dout = s.alloc<int>(std::size_t(n));  // -1 until written

    if (!s.launch("block_scan", Dim3{outcome.blocks}, Dim3{kBlockSize}, 0, din, dout, n))
        return outcome;
    outcome.launched = true;
    if (const LaunchResult* launch = s.last_launch()) {
        outcome.stats = launch->stats;
        if (launch->trace) outcome.figures = analysis::analyze(*launch->trace);
    }

    auto where = [](std::size_t i) {
        const std::size_t t = i % kBlockSize;
        return "out[" + std::to_string(i) + "] (block " + std::to_string(i / kBlockSize) +
               ", thread " + std::to_string(t) + ": warp " + std::to_string(t / 32) + ", lane " +
               std::to_string(t % 32) + ")";
    };
    const std::string name = "block scan, n = " + std::to_string(n) + ", " +
                             std::to_string(outcome.blocks) +
                             (outcome.blocks == 1 ? " block" : " blocks") + " of 256";
    outcome.correct = s.check_equal(name, dout, cpu_block_scan(in), where);
    s.check_shared_initialised(
        name,
        "Lane 31 of every warp writes its warp's total before the first __syncthreads(), and "
        "warp 0 reads only the BLOCK / 32 totals that exist (the other lanes use 0).");
    return outcome;
}

void run(Session& s) {
    // n = 1: one block, one element. n = 1000: 4 blocks, the last with 232 elements (7 full
    // warps and 8 lanes of the eighth). n = 20011: 79 blocks, the last with 43. Measured.
    if (!scan_and_check(s, 1).launched) return;
    if (!scan_and_check(s, 1000).launched) return;
    const int n = 20011;
    const Outcome m = scan_and_check(s, n);
    if (!m.launched) return;

    if (m.stats.thread_instructions == 0 || !s.last_launch()->trace) {
        s.log().push_back("instructions and barriers: not measured (the " +
                          s.runtime().backend().name() + " backend counts none)");
        return;
    }
    const double per_element = double(m.stats.thread_instructions) / n;
    std::ostringstream work;
    work << m.stats.thread_instructions << " thread-instructions for " << n << " elements ("
         << m.figures.total.global_load_requests << " warp load requests, "
         << m.figures.total.global_load_bytes / sizeof(int) << " elements loaded)";
    const Session::MeasuredOn measured_on{m.correct, "the scan", "Make the scan right first; the failed checks name the warp and lane."};
    s.check_at_most("instructions per element", per_element, kMaxInstructionsPerElement,
          work.str(),
          "A thread that adds up all the elements before it repeats its neighbours' work: 128 "
          "additions per element on average. Let each element be added once per level: a warp "
          "scan with __shfl_up_sync (offsets 1, 2, 4, 8, 16) gives every lane the sum of the "
          "lanes up to it in 5 steps; then combine the 8 warp totals.", measured_on);

    std::ostringstream barriers;
    barriers << m.figures.block_barriers << " block-wide barriers for " << m.blocks << " blocks";
    s.check_at_most("barriers per block", double(m.figures.block_barriers) / m.blocks,
          kMaxBarriersPerBlock, barriers.str(),
          "A scan step in shared memory needs the whole block to wait, twice. Scan inside each "
          "warp with __shfl_up_sync instead (no barrier), and use shared memory only for the 8 "
          "warp totals: write them, __syncthreads(), scan them in warp 0, __syncthreads(), read.", measured_on);
}

}  // namespace

CUDALAB_LESSON("11-scan", run);
