// Lesson 11 — scan: the host side.
//
// Launches `block_scan` (exercises/11-scan.cu), one thread per element in blocks of 256, and checks
// that each block's part of `out` is the inclusive prefix sum of its part of `in` (small counts,
// and on some launches negative numbers too). Then, over every launch (one of a size chosen at
// run time), two performance checks from the trace:
//   - thread-instructions per element: a thread that adds up everything before it on its own
//     does ~128 additions per element; a parallel scan does O(log) work per element;
//   - barriers per block: warp shuffles scan 32 elements with no barrier; a block needs only two,
//     around the scan of the 8 warp totals. Shared-memory scans need more: Hillis-Steele in one
//     buffer two per step (17), double-buffered Kogge-Stone one per step (9), Brent-Kung two per
//     level (about 16). They are correct, and Brent-Kung is work-efficient, but this lesson is
//     about scanning without making the block wait, so they fail this check with a message that
//     says so.
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

Outcome scan_and_check(Session& s, int n, bool negatives, bool chosen_at_run_time = false) {
    Outcome outcome;
    outcome.blocks = (unsigned(n) + kBlockSize - 1) / kBlockSize;
    // Small counts, as when a scan turns per-element counts into output offsets; or numbers of
    // either sign (a kernel that clamps or uses unsigned arithmetic shows up there).
    const std::vector<int> in = s.random_ints(std::size_t(n), negatives ? -50 : 0, negatives ? 50 : 20);
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
    const std::string shape = "n = " + std::to_string(n) + ", " + std::to_string(outcome.blocks) +
                              (outcome.blocks == 1 ? " block" : " blocks") + " of 256";
    const std::string name = "block scan, " + (chosen_at_run_time ? std::string("n chosen at run time") : shape) +
                             (negatives ? ", negative numbers too" : "");
    if (chosen_at_run_time) s.log().push_back("the launch of a size chosen at run time: " + shape);
    outcome.correct = s.check_equal(name, dout, cpu_block_scan(in), where);
    s.check_shared_initialised(
        name,
        "Lane 31 of every warp writes its warp's total before the first __syncthreads(), and "
        "warp 0 reads only the BLOCK / 32 totals that exist (the other lanes use 0).");
    return outcome;
}

void run(Session& s) {
    // n = 1: one block, one element. n = 1000: 4 blocks, the last with 232 elements (7 full
    // warps and 8 lanes of the eighth), numbers of either sign. n = 20011: 79 blocks, the last
    // with 43. Then a size chosen at run time, either sign. (n = 0 would need a grid of no blocks,
    // which CUDA rejects, so it is not launched.) Every launch is measured.
    std::uint64_t thread_instructions = 0, elements = 0, loads = 0, load_requests = 0;
    double worst_barriers = -1;
    std::string worst_barriers_text;
    bool correct = true, traced = true;
    const int random_n = s.random_ints(1, 3000, 30000)[0];
    const std::pair<int, bool> launches[] = {{1, false}, {1000, true}, {20011, false}, {random_n, true}};
    for (const auto& [n, negatives] : launches) {
        const Outcome m = scan_and_check(s, n, negatives, n == random_n);
        if (!m.launched) return;
        correct = correct && m.correct;
        traced = traced && m.stats.thread_instructions > 0 && s.last_launch()->trace;
        thread_instructions += m.stats.thread_instructions;
        elements += std::uint64_t(n);
        loads += m.figures.total.read_bytes() / sizeof(int);
        load_requests += m.figures.total.read_requests();
        const double per_block = double(m.figures.block_barriers) / m.blocks;
        if (per_block > worst_barriers) {
            worst_barriers = per_block;
            worst_barriers_text = "worst launch n = " + std::to_string(n) + ": " + std::to_string(m.figures.block_barriers) +
                                  " block-wide barriers for " + std::to_string(m.blocks) + " blocks";
        }
    }
    if (!traced) {
        s.log().push_back("instructions and barriers: not measured (the " +
                          s.runtime().backend().name() + " backend counts none)");
        return;
    }
    const double per_element = double(thread_instructions) / double(elements);
    std::ostringstream work;
    work << thread_instructions << " thread-instructions for " << elements << " elements over every launch ("
         << load_requests << " warp load requests, " << loads << " elements loaded)";
    const Session::MeasuredOn measured_on{correct, "the scan of some launch", "Make the scan right first; the failed checks name the warp and lane."};
    s.check_at_most("instructions per element", per_element, kMaxInstructionsPerElement,
          work.str(),
          "A thread that adds up all the elements before it repeats its neighbours' work: 128 "
          "additions per element on average. Let each element be added once per level: a warp "
          "scan with __shfl_up_sync (offsets 1, 2, 4, 8, 16) gives every lane the sum of the "
          "lanes up to it in 5 steps; then combine the 8 warp totals.", measured_on);

    std::string barrier_text = worst_barriers_text;
    if (worst_barriers > kMaxBarriersPerBlock && correct && per_element <= kMaxInstructionsPerElement)
        barrier_text += ". Your scan is right and does little work per element (a Kogge-Stone or Brent-Kung scan "
                        "in shared memory, as PMPP teaches, is a good scan); this check asks for what this lesson "
                        "teaches: a scan in which only the 8 warp totals go through shared memory, because every "
                        "__syncthreads() makes all 8 warps of the block wait for the slowest";
    s.check_at_most("barriers per block", worst_barriers, kMaxBarriersPerBlock, barrier_text,
          "A scan step in shared memory needs the whole block to wait (Hillis-Steele in one buffer twice a step, "
          "double-buffered Kogge-Stone once, Brent-Kung twice a level). Scan inside each "
          "warp with __shfl_up_sync instead (no barrier), and use shared memory only for the 8 "
          "warp totals: write them, __syncthreads(), scan them in warp 0, __syncthreads(), read.", measured_on);
}

}  // namespace

CUDALAB_LESSON("11-scan", run);
