// Lesson 05 — coalescing: the host side.
//
// Launches `saxpy` (exercises/05-coalescing.cu), y = a * x + y with 8 elements per thread, in
// blocks of 128 threads that each cover 1024 elements, and checks y against the CPU. Then, on the
// launches together (one of a size chosen at run time), it checks that the warps' loads and
// stores were coalesced: the 32-byte sectors moved against those the data needs, x and y read
// once and y written once. A kernel whose threads each take a run of 8 consecutive elements puts
// a warp's 32 lanes 32 bytes apart: every request touches 32 sectors, each fetched again on each
// of the 8 passes. A float4-vectorised kernel moves exactly the sectors the data needs.
// Anatomy: CPU reference -> sizes -> launch -> validate -> performance (sectors moved).
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

constexpr unsigned kBlockSize = 128;
constexpr unsigned kItemsPerThread = 8;  // ITEMS in the kernel
constexpr float kA = 1.75f;

// CPU reference: the compiler fuses a * x + y into one fma, and so does the reference.
std::vector<float> cpu_saxpy(const std::vector<float>& x, const std::vector<float>& y) {
    std::vector<float> out(y.size());
    for (std::size_t i = 0; i < y.size(); ++i) out[i] = std::fma(kA, x[i], y[i]);
    return out;
}

struct Outcome {
    bool launched = false;
    bool correct = false;
    analysis::Figures figures;
};

// Summed over every launch.
struct Traffic {
    std::uint64_t read_moved = 0, read_needed = 0, write_moved = 0, write_needed = 0;
    bool correct = true;
    bool traced = false;
};

Outcome saxpy_and_check(Session& s, int n, Traffic& traffic, bool chosen_at_run_time = false) {
    const unsigned per_block = kBlockSize * kItemsPerThread;
    const unsigned blocks = (unsigned(n) + per_block - 1) / per_block;
    const std::vector<float> x = s.random_floats(std::size_t(n));
    const std::vector<float> y = s.random_floats(std::size_t(n));
    auto dx = s.to_device(x);
    auto dy = s.to_device(y);

    Outcome outcome;
    if (!s.launch("saxpy", Dim3{blocks}, Dim3{kBlockSize}, 0, dx, dy, kA, n)) return outcome;
    outcome.launched = true;
    if (const LaunchResult* launch = s.last_launch(); launch && launch->trace) {
        outcome.figures = analysis::analyze(*launch->trace).total;
        traffic.traced = true;
    }

    // Name each mismatch by the block that owns it and its place in that block's 1024 elements.
    auto where = [per_block](std::size_t i) {
        return "y[" + std::to_string(i) + "] (block " + std::to_string(i / per_block) +
               ", element " + std::to_string(i % per_block) + " of its " +
               std::to_string(per_block) + ")";
    };
    const std::string name = "y = a * x + y, " +
                             (chosen_at_run_time ? std::string("n chosen at run time")
                                                 : "n = " + std::to_string(n) + ", " + std::to_string(blocks) +
                                                       (blocks == 1 ? " block" : " blocks") + " of 128 threads x 8 elements");
    if (chosen_at_run_time) s.log().push_back("the launch of a size chosen at run time had n = " + std::to_string(n));
    // y is updated in place: an element that no thread touched keeps its old value, which differs
    // from a * x + y unless x is 0 there.
    outcome.correct = s.check_close(name, dy, cpu_saxpy(x, y), Tolerance{1e-6, 1e-6}, where);
    traffic.read_moved += outcome.figures.read_sectors();
    traffic.write_moved += outcome.figures.write_sectors();
    traffic.read_needed += 2 * coalesced_sectors(1, std::uint64_t(n), 32);  // x and y
    traffic.write_needed += coalesced_sectors(1, std::uint64_t(n), 32);     // y
    traffic.correct = traffic.correct && outcome.correct;
    return outcome;
}

void run(Session& s) {
    // n = 1: one block, one busy thread. n = 1000: one block, most of it past n. n = 50021: 49
    // blocks; the last holds 869 elements. Then a size chosen at run time.
    Traffic traffic;
    for (int n : {1, 1000, 50021})
        if (!saxpy_and_check(s, n, traffic).launched) return;
    if (!saxpy_and_check(s, s.random_ints(1, 20000, 70000)[0], traffic, true).launched) return;

    if (!traffic.traced) {
        s.log().push_back("sectors moved: not measured (the " + s.runtime().backend().name() +
                          " backend records no trace)");
        return;
    }
    const std::string advice =
        "Look at one pass of the loop: lane l of a warp should touch the element right after "
        "lane l - 1's. Index with k * blockDim.x + threadIdx.x inside the block's 1024 elements "
        "(plus blockIdx.x * 1024), not with thread * 8 + k.";
    const Session::MeasuredOn on{traffic.correct, "y on some launch",
                                 "Make every element right first: each of the block's 1024 elements must be "
                                 "handled exactly once."};
    s.check_sectors_moved("global loads: sectors moved per sector needed", traffic.read_moved, traffic.read_needed,
                          "reading x and y over every launch", advice, on);
    s.check_sectors_moved("global stores: sectors moved per sector needed", traffic.write_moved,
                          traffic.write_needed, "writing y over every launch", advice, on);
}

}  // namespace

CUDALAB_LESSON("05-coalescing", run);
