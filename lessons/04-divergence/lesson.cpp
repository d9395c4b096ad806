// Lesson 04 — divergence: the host side.
//
// Launches `stereo_curves` (exercises/04-divergence.cu) on interleaved stereo samples (even index:
// left channel, odd: right), one thread per sample, and checks every output against the CPU.
// Then, on the largest launch, it checks the branch efficiency: the fraction of lanes that were
// active, averaged over every warp instruction executed. A warp whose lanes split between the
// two channels' curves runs both with half its lanes idle; a kernel that gives each warp one
// channel keeps them all busy.
// Anatomy: CPU reference -> sizes -> launch -> validate -> performance (branch efficiency).
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

// Average active lanes / 32 over every warp instruction of the measured launch, in percent. The
// reference solution measures 99.96% (only the last, partly filled warps lose lanes); the shipped
// kernel, whose every warp splits, about 73%.
constexpr double kMinBranchEfficiencyPercent = 95.0;

// The CPU reference runs the same float operations in the same order as the kernel's two
// __device__ functions (fmaf is std::fma on floats), so the results are bit-identical.
float left_curve(float x) {
    float x2 = x * x;
    float p = std::fma(x2, -1.0f / 11.0f, 1.0f / 9.0f);
    p = std::fma(p, x2, -1.0f / 7.0f);
    p = std::fma(p, x2, 1.0f / 5.0f);
    p = std::fma(p, x2, -1.0f / 3.0f);
    p = std::fma(p, x2, 1.0f);
    return p * x;
}

float right_curve(float x) {
    float p = std::fma(x, 1.0f / 24.0f, 1.0f / 6.0f);
    p = std::fma(p, x, 0.5f);
    p = std::fma(p, x, 1.0f);
    p = std::fma(p, x, 1.0f);
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

Outcome curves_and_check(Session& s, int n) {
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
    const std::string name = "stereo curves, n = " + std::to_string(n) + " samples, " +
                             std::to_string(blocks) + (blocks == 1 ? " block" : " blocks") +
                             " of 256";
    outcome.correct = s.check_close(name, dout, cpu_stereo_curves(in), Tolerance{0, 0}, where);
    return outcome;
}

void run(Session& s) {
    // n = 3: one block, one frame and a half. n = 1000: 4 blocks, the last partly past n.
    // n = 50001: 196 blocks; an odd count, so the last frame has only its left sample. Measured.
    if (!curves_and_check(s, 3).launched) return;
    if (!curves_and_check(s, 1000).launched) return;
    const Outcome measured = curves_and_check(s, 50001);
    if (!measured.launched) return;

    const std::string name = "branch efficiency";
    const LaunchResult* last = s.last_launch();
    if (!last || !last->trace) {
        s.log().push_back(name + ": not measured (the " + s.runtime().backend().name() +
                          " backend records no trace)");
        return;
    }
    const analysis::Figures& f = measured.figures;
    const double efficiency = 100.0 * f.branch_efficiency();
    std::ostringstream msg;
    msg.precision(3);
    msg << std::fixed << efficiency << "% of lanes active over " << f.warp_instructions
        << " warp instructions (n = 50001); " << f.divergent_branches << " of " << f.branches
        << " branches split a warp";
    s.check_at_least(
        name, efficiency, kMinBranchEfficiencyPercent, msg.str(),
        "A warp runs one instruction for all its lanes; when its lanes disagree at a branch it "
        "runs both sides, masking lanes off. Choose the channel from the warp's number "
        "((global id / 32) % 2) rather than from the sample's parity, and let the lane pick the "
        "frame, so all 32 lanes of a warp take the same side.",
        Session::MeasuredOn{measured.correct, "the output", "Make every sample right first: each must go through its own channel's curve "
                   "exactly once."});
}

}  // namespace

CUDALAB_LESSON("04-divergence", run);
