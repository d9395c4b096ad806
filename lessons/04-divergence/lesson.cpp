// Lesson 04 — divergence: the host side.
//
// Launches `stereo_curves` (exercises/04-divergence.cu) on interleaved stereo samples (even index:
// left channel, odd: right), one thread per sample, and checks every output against the CPU.
// Then, over every launch (one of a size chosen at run time), two performance checks that bound
// the costly events themselves rather than an average that cheap work could dilute: the branches
// that split a warp, and the warp instructions issued per sample. A warp whose lanes split between
// the two channels' curves issues both (32 and more instructions each) with half its lanes idle; a
// kernel that computes both curves for every sample and selects one issues both too; a kernel that
// gives each warp one channel issues one.
// Anatomy: CPU reference -> sizes -> launch -> validate -> performance (divergent branches,
// warp instructions per sample).
#include "lessons/lesson.h"

#include "analysis/metrics.h"

#include <cmath>
#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace cudalab;
using namespace cudalab::lessons;

// Branches that split a warp, per launch: only the bounds guard in the warp (or pair of warps)
// that straddles n may split. The shipped kernel splits every warp: 1563 of them at n = 50001.
constexpr double kMaxDivergentBranchesPerLaunch = 2.0;

// Warp instructions issued per sample over every launch. The reference solution, one curve per
// warp, measures 2.68 (PTX instructions: the left curve's 32 steps are 66, with the constants'
// moves, the right curve's 16 are 33, the index arithmetic, loads, stores and guards about 36 per
// warp); the shipped kernel, whose every warp runs both curves, 3.94; computing both curves and
// selecting without a branch about 4.2; a thread per frame doing both of its samples about 1.7.
// 3.1 leaves room for 13 more instructions per warp than the solution's.
constexpr double kMaxWarpInstructionsPerSample = 3.1;

// The CPU reference runs the same float operations in the same order as the kernel's two
// __device__ functions (fmaf is std::fma on floats), so the results are bit-identical.
float left_curve(float x) {
    float x2 = x * x;
    float p = 0.0f;
    for (int k = 31; k >= 0; --k) p = std::fma(p, x2, (k % 2 ? -1.0f : 1.0f) / float(2 * k + 1));
    return p * x;
}

float right_curve(float x) {
    float p = 1.0f;
    for (int k = 16; k >= 1; --k) p = std::fma(p, x * (1.0f / float(k)), 1.0f);
    return p - 1.0f;
}

std::vector<float> cpu_stereo_curves(const std::vector<float>& in) {
    std::vector<float> out(in.size());
    for (std::size_t i = 0; i < in.size(); ++i)
        out[i] = i % 2 == 0 ? left_curve(in[i]) : right_curve(in[i]);
    return out;
}

struct Outcome {
    bool launched = false;
    bool correct = false;
    analysis::Figures figures;
};

Outcome curves_and_check(Session& s, int n, bool chosen_at_run_time = false) {
    constexpr unsigned kBlockSize = 256;
    const unsigned blocks = (unsigned(n) + kBlockSize - 1) / kBlockSize;
    const std::vector<float> in = s.random_floats(std::size_t(n));
    auto din = s.to_device(in);
    auto dout = s.alloc<float>(std::size_t(n));  // NaN until written

    Outcome outcome;
    if (!s.launch("stereo_curves", Dim3{blocks}, Dim3{kBlockSize}, 0, din, dout, n))
        return outcome;
    outcome.launched = true;
    if (const LaunchResult* launch = s.last_launch(); launch && launch->trace)
        outcome.figures = analysis::analyze(*launch->trace).total;

    auto where = [](std::size_t i) {
        return "sample " + std::to_string(i) + " (frame " + std::to_string(i / 2) + ", " +
               (i % 2 == 0 ? "left" : "right") + " channel)";
    };
    const std::string name =
        chosen_at_run_time ? std::string("stereo curves, n chosen at run time")
                           : "stereo curves, n = " + std::to_string(n) + " samples, " + std::to_string(blocks) +
                                 (blocks == 1 ? " block" : " blocks") + " of 256";
    if (chosen_at_run_time) s.log().push_back("the launch of a size chosen at run time had n = " + std::to_string(n));
    outcome.correct = s.check_close(name, dout, cpu_stereo_curves(in), Tolerance{0, 0}, where);
    return outcome;
}

void run(Session& s) {
    // n = 3: one block, one frame and a half. n = 1000: 4 blocks, the last partly past n.
    // n = 50001: 196 blocks; an odd count, so the last frame has only its left sample. Then a
    // size chosen at run time. Every launch is measured.
    std::uint64_t divergent = 0, branches = 0, warp_instructions = 0, samples = 0, active_lanes = 0;
    int launches = 0;
    bool correct = true, traced = false;
    for (int n : {3, 1000, 50001, s.random_ints(1, 20000, 60000)[0] | 1}) {
        const Outcome o = curves_and_check(s, n, launches == 3);
        if (!o.launched) return;
        ++launches;
        correct = correct && o.correct;
        traced = traced || s.last_launch()->trace != nullptr;
        divergent += o.figures.divergent_branches;
        branches += o.figures.branches;
        warp_instructions += o.figures.warp_instructions;
        active_lanes += o.figures.active_lanes;
        samples += std::uint64_t(n);
    }
    if (!traced) {
        s.log().push_back("divergence: not measured (the " + s.runtime().backend().name() +
                          " backend records no trace)");
        return;
    }
    const Session::MeasuredOn on{correct, "the output of some launch",
                                 "Make every sample right first: each must go through its own channel's curve "
                                 "exactly once."};
    std::ostringstream split;
    split << divergent << " of " << branches << " branches split a warp over " << launches
          << " launches; only the bounds guard of the warp that straddles n may (at most "
          << kMaxDivergentBranchesPerLaunch << " per launch)";
    s.check_at_most(
        "branches that split a warp", double(divergent), kMaxDivergentBranchesPerLaunch * launches, split.str(),
        "A warp runs one instruction for all its lanes; when its lanes disagree at a branch it "
        "runs both sides, masking lanes off. Choose the channel from the warp's number "
        "((global id / 32) % 2) rather than from the sample's parity, and let the lane pick the "
        "frame, so all 32 lanes of a warp take the same side.",
        on);
    std::ostringstream issued;
    issued.precision(3);
    issued << std::fixed << warp_instructions << " warp instructions for " << samples << " samples over every launch, "
           << double(warp_instructions) / double(samples) << " per sample (lanes active: "
           << 100.0 * double(active_lanes) / (32.0 * double(warp_instructions))
           << "%, Nsight's warp execution efficiency, for information)";
    s.check_at_most(
        "warp instructions per sample", double(warp_instructions) / double(samples), kMaxWarpInstructionsPerSample,
        issued.str(),
        "Each warp should issue one curve, with all its lanes. Running both curves for every sample "
        "(diverged, or computed both and selected) issues both; extra loops add instructions too.",
        on);
}

}  // namespace

CUDALAB_LESSON("04-divergence", run);
