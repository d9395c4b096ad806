// Lesson 06 — shared-memory stencil: the host side.
//
// Launches `smooth` (exercises/06-shared-stencil.cu), a 7-point smoothing filter (radius 3), one
// thread per output in blocks of 256, and checks every output against the CPU. Then, over every
// launch (one of a size chosen at run time), it counts the floats the kernel read from global
// memory per output, atomics included: a block that stages its inputs and their halo in shared memory reads 256 + 2 * 3 floats for 256
// outputs; a kernel that reads all 7 neighbours from global memory reads about 7 per output.
// Races on the shared tile (a missing __syncthreads) are caught by the emulator: the launch fails
// with both source lines named.
// Anatomy: CPU reference -> sizes -> launch -> validate -> performance (global loads per output).
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

constexpr int kRadius = 3;           // R in the kernel
constexpr unsigned kBlockSize = 256; // BLOCK in the kernel: the tile holds 256 outputs' inputs
constexpr float kWeights[2 * kRadius + 1] = {1 / 64.f,  6 / 64.f, 15 / 64.f, 20 / 64.f,
                                             15 / 64.f, 6 / 64.f, 1 / 64.f};

// CPU reference, summing in the kernel's order (k = -R .. R). The weights are multiples of 1/64,
// exact in float; the kernel fuses each multiply-add, the reference rounds twice, so a small
// tolerance covers the difference.
std::vector<float> cpu_smooth(const std::vector<float>& in) {
    const int n = int(in.size());
    std::vector<float> out(in.size());
    for (int i = 0; i < n; ++i) {
        float sum = 0.0f;
        for (int k = -kRadius; k <= kRadius; ++k) {
            const int j = i + k;
            sum += kWeights[k + kRadius] * (j >= 0 && j < n ? in[std::size_t(j)] : 0.0f);
        }
        out[std::size_t(i)] = sum;
    }
    return out;
}

struct Outcome {
    bool launched = false;
    bool correct = false;
    unsigned blocks = 0;
    analysis::Figures figures;
};

Outcome smooth_and_check(Session& s, int n, bool chosen_at_run_time = false) {
    Outcome outcome;
    outcome.blocks = (unsigned(n) + kBlockSize - 1) / kBlockSize;
    const std::vector<float> in = s.random_floats(std::size_t(n));
    auto din = s.to_device(in);
    auto dout = s.alloc<float>(std::size_t(n));  // NaN until written

    if (!s.launch("smooth", Dim3{outcome.blocks}, Dim3{kBlockSize}, 0, din, dout, n))
        return outcome;
    outcome.launched = true;
    if (const LaunchResult* launch = s.last_launch(); launch && launch->trace)
        outcome.figures = analysis::analyze(*launch->trace).total;

    // The positions a tiled kernel gets wrong are at the edges of a block's tile: say so.
    auto where = [n](std::size_t i) {
        const std::size_t t = i % kBlockSize;
        std::string w = "out[" + std::to_string(i) + "] (block " + std::to_string(i / kBlockSize) +
                        ", thread " + std::to_string(t);
        if (t < std::size_t(kRadius)) w += ": needs the left halo";
        else if (t + kRadius >= kBlockSize) w += ": needs the right halo";
        if (i + kRadius >= std::size_t(n)) w += ", near the end of the array";
        return w + ")";
    };
    const std::string name =
        chosen_at_run_time ? std::string("smooth, n chosen at run time")
                           : "smooth, n = " + std::to_string(n) + ", " + std::to_string(outcome.blocks) +
                                 (outcome.blocks == 1 ? " block" : " blocks") + " of 256";
    if (chosen_at_run_time) s.log().push_back("the launch of a size chosen at run time had n = " + std::to_string(n));
    outcome.correct = s.check_close(name, dout, cpu_smooth(in), Tolerance{1e-6, 1e-6}, where);
    s.check_shared_initialised(
        name,
        "Every thread of the block must write its slot of the tile (0 past n) and reach the "
        "__syncthreads() before any thread reads the tile: do not return before the barrier.");
    return outcome;
}

void run(Session& s) {
    // n = 5: one block, every output near an edge. n = 1000: 4 blocks, the halo between blocks
    // matters. n = 30011: 118 blocks; the last holds 59 outputs. Then a size chosen at run time.
    // Every launch is measured.
    std::uint64_t read_bytes = 0, read_requests = 0, outputs = 0, blocks = 0;
    double allowed = 0;
    bool correct = true, traced = false;
    const int random_n = s.random_ints(1, 9000, 40000)[0];
    for (int n : {5, 1000, 30011, random_n}) {
        const Outcome o = smooth_and_check(s, n, n == random_n);
        if (!o.launched) return;
        correct = correct && o.correct;
        traced = traced || s.last_launch()->trace != nullptr;
        // Every instruction that reads global memory counts, atomics included (atomicAdd(p, 0)
        // is a load).
        read_bytes += o.figures.read_bytes();
        read_requests += o.figures.read_requests();
        outputs += std::uint64_t(n);
        blocks += o.blocks;
        allowed += double(n + 2 * kRadius * int(o.blocks));
    }

    const std::string name = "global loads per output";
    if (!traced) {
        s.log().push_back(name + ": not measured (the " + s.runtime().backend().name() +
                          " backend records no trace)");
        return;
    }
    // Floats read from global memory (requested bytes / 4) per output. Each block may read its
    // 256 inputs and 2R halo inputs: (BLOCK + 2R) / BLOCK = 1.023 per output for a full block,
    // and for a launch (n + 2R * blocks) / n, since the last block has fewer outputs but the same
    // halo. The reference solution reads a little less (no halo outside [0, n)).
    const double loads = double(read_bytes) / sizeof(float);
    const double per_output = loads / double(outputs);
    const double bound = allowed / double(outputs);
    std::ostringstream msg;
    msg << read_bytes / sizeof(float) << " floats read from global memory for " << outputs
        << " outputs in " << blocks << " blocks over every launch (" << read_requests
        << " warp requests, atomics included), " << std::fixed << std::setprecision(3) << per_output
        << " per output; a shared tile needs at most 256 + 2*3 per block, " << std::setprecision(4)
        << bound << " per output";
    s.check_at_most(
        name, per_output, bound, msg.str(),
        "Each input is needed by 7 outputs, and the threads of a block share most of them. Copy "
        "the block's 256 inputs plus 3 on each side into a __shared__ tile once (one load per "
        "thread, and the first 3 threads fetch the halo), __syncthreads(), then read the 7 "
        "neighbours from the tile.",
        Session::MeasuredOn{correct, "the output of some launch", "Make every output right first; the failed checks name the block and thread."});
}

}  // namespace

CUDALAB_LESSON("06-shared-stencil", run);
