// Lesson 05 — coalescing: the host side.
//
// Launches `saxpy` (exercises/05-coalescing.cu), y = a * x + y with 8 elements per thread, in
// blocks of 128 threads that each cover 1024 elements, and checks y against the CPU. Then, on the
// largest launch, it checks that the warps' loads and stores were coalesced: at most 4 sectors of
// 32 bytes per request, what 32 consecutive floats need. A kernel whose threads each take a run
// of 8 consecutive elements puts a warp's 32 lanes 32 bytes apart: 32 sectors per request.
// Anatomy: CPU reference -> sizes -> launch -> validate -> performance (sectors/request).
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

// 32 lanes x 4 bytes = 128 bytes = 4 sectors of 32 bytes, when the 32 floats are consecutive and
// start on a sector boundary (each block's 1024 elements start on a 4096-byte boundary). The
// requests of the last, partly filled warp need fewer. The reference solution measures 4.00 for
// loads and stores; the shipped "blocked" kernel 32.
constexpr double kMaxSectorsPerRequest = 4.0;

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

Outcome saxpy_and_check(Session& s, int n) {
    const unsigned per_block = kBlockSize * kItemsPerThread;
    const unsigned blocks = (unsigned(n) + per_block - 1) / per_block;
    const std::vector<float> x = s.random_floats(std::size_t(n));
    const std::vector<float> y = s.random_floats(std::size_t(n));
    auto dx = s.to_device(x);
    auto dy = s.to_device(y);

    Outcome outcome;
    if (!s.launch("saxpy", Dim3{blocks}, Dim3{kBlockSize}, 0, dx, dy, kA, n)) return outcome;
    outcome.launched = true;
    if (const LaunchResult* launch = s.last_launch(); launch && launch->trace)
        outcome.figures = analysis::analyze(*launch->trace).total;

    // Name each mismatch by the block that owns it and its place in that block's 1024 elements.
    auto where = [per_block](std::size_t i) {
        return "y[" + std::to_string(i) + "] (block " + std::to_string(i / per_block) +
               ", element " + std::to_string(i % per_block) + " of its " +
               std::to_string(per_block) + ")";
    };
    const std::string name = "y = a * x + y, n = " + std::to_string(n) + ", " +
                             std::to_string(blocks) + (blocks == 1 ? " block" : " blocks") +
                             " of 128 threads x 8 elements";
    // y is updated in place: an element that no thread touched keeps its old value, which differs
    // from a * x + y unless x is 0 there.
    outcome.correct = s.check_close(name, dy, cpu_saxpy(x, y), Tolerance{1e-6, 1e-6}, where);
    return outcome;
}

void check_sectors(Session& s, const Outcome& measured, const std::string& what,
                   std::uint64_t requests, std::uint64_t sectors, std::uint64_t bytes) {
    const std::string name = "global " + what + "s: sectors per request";
    const double per_request = requests ? double(sectors) / double(requests) : 0.0;
    std::ostringstream msg;
    msg << sectors << " sectors for " << requests << " warp " << what << " requests (n = 50021); "
        << bytes << " bytes asked for, " << sectors * 32 << " moved ("
        << (sectors ? int(std::lround(100.0 * double(bytes) / double(32 * sectors))) : 0)
        << "% used)";
    s.check_at_most(
        name, per_request, kMaxSectorsPerRequest, msg.str(),
        "Look at one pass of the loop: lane l of a warp should touch the element right after "
        "lane l - 1's. Index with k * blockDim.x + threadIdx.x inside the block's 1024 elements "
        "(plus blockIdx.x * 1024), not with thread * 8 + k.",
        Session::MeasuredOn{measured.correct, "y",
                            "Make every element right first: each of the block's 1024 elements must be "
                   "handled exactly once."});
}

void run(Session& s) {
    // n = 1: one block, one busy thread. n = 1000: one block, most of it past n.
    // n = 50021: 49 blocks; the last holds 869 elements. Measured.
    if (!saxpy_and_check(s, 1).launched) return;
    if (!saxpy_and_check(s, 1000).launched) return;
    const Outcome measured = saxpy_and_check(s, 50021);
    if (!measured.launched) return;

    const LaunchResult* last = s.last_launch();
    if (!last || !last->trace) {
        s.log().push_back("sectors per request: not measured (the " +
                          s.runtime().backend().name() + " backend records no trace)");
        return;
    }
    const analysis::Figures& f = measured.figures;
    check_sectors(s, measured, "load", f.global_load_requests, f.global_load_sectors,
                  f.global_load_bytes);
    check_sectors(s, measured, "store", f.global_store_requests, f.global_store_sectors,
                  f.global_store_bytes);
}

}  // namespace

CUDALAB_LESSON("05-coalescing", run);
