// Lesson 03 — 2D grids: the host side.
//
// Launches `adjust` (exercises/03-matrix-2d.cu) over row-major images whose sides are not
// multiples of the block, with square 2D blocks and a 2D grid rounded up on both sides, and
// checks every pixel against the CPU. Then, on the first image, it checks that every warp's loads
// and stores were coalesced: at most 4 sectors of 32 bytes per request, what 32 neighbouring
// floats of one row need.
// Anatomy: CPU reference -> image shapes -> launch -> validate -> performance (sectors/request).
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

// A warp of 32 threads reading 32 consecutive 4-byte floats asks for 128 bytes: 4 sectors of 32
// bytes when the row starts on a sector boundary. That is the bound for loads and for stores.
// (The measured image's width, 200, is a multiple of 8 floats, so every row starts on a sector
// boundary; the warps at the right edge, with 8 pixels, need one sector, which pulls the average
// a little below 4. A kernel whose warps walk down columns needs up to 32.)
constexpr double kMaxSectorsPerRequest = 4.0;

constexpr float kGain = 1.5f, kBias = -0.25f;

// CPU reference. The compiler turns `in * gain + bias` into one fused multiply-add (fma), so the
// reference uses std::fma to get the same bits; the tolerance lets an unfused version pass too.
std::vector<float> cpu_adjust(const std::vector<float>& in) {
    std::vector<float> out(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) out[i] = std::fma(in[i], kGain, kBias);
    return out;
}

struct Image {
    int width, height;
    unsigned block;  // square blocks: block x block threads
};

struct Outcome {
    bool launched = false;
    bool correct = false;
    analysis::Figures figures;  // whole-kernel figures of this launch
};

Outcome adjust_and_check(Session& s, const Image& im) {
    const std::size_t pixels = std::size_t(im.width) * std::size_t(im.height);
    const std::vector<float> in = s.random_floats(pixels, 0.f, 1.f);
    auto din = s.to_device(in);
    auto dout = s.alloc<float>(pixels);  // NaN until written: a pixel no thread wrote is a mismatch
    s.shape(din, unsigned(im.height), unsigned(im.width), ShapeKind::image, "in");
    s.shape(dout, unsigned(im.height), unsigned(im.width), ShapeKind::image, "out");

    // dim3 block(B, B); dim3 grid((width + B - 1) / B, (height + B - 1) / B);
    const Dim3 block{im.block, im.block};
    const Dim3 grid{(unsigned(im.width) + im.block - 1) / im.block,
                    (unsigned(im.height) + im.block - 1) / im.block};

    Outcome outcome;
    if (!s.launch("adjust", grid, block, 0, din, dout, im.width, im.height, kGain, kBias))
        return outcome;
    outcome.launched = true;
    if (const LaunchResult* launch = s.last_launch(); launch && launch->trace)
        outcome.figures = analysis::analyze(*launch->trace).total;

    // Mismatches in the learner's coordinates: the pixel and the block and thread that own it.
    const int width = im.width;
    const unsigned b = im.block;
    auto where = [width, b](std::size_t i) {
        const int row = int(i / std::size_t(width)), col = int(i % std::size_t(width));
        return "row " + std::to_string(row) + ", col " + std::to_string(col) + " (block (" +
               std::to_string(col / int(b)) + "," + std::to_string(row / int(b)) +
               "), thread (" + std::to_string(col % int(b)) + "," + std::to_string(row % int(b)) +
               "))";
    };
    const std::string name = "out = in * gain + bias, " + std::to_string(im.width) + " x " +
                             std::to_string(im.height) + " image, " + std::to_string(b) + "x" +
                             std::to_string(b) + " blocks, grid " + std::to_string(grid.x) +
                             "x" + std::to_string(grid.y);
    outcome.correct = s.check_close(name, dout, cpu_adjust(in), Tolerance{1e-6, 1e-6}, where);
    return outcome;
}

// One coalescing check (loads or stores) on the measured launch.
void check_sectors(Session& s, const Outcome& measured, const std::string& what,
                   std::uint64_t requests, std::uint64_t sectors) {
    const std::string name = "global " + what + "s: sectors per request";
    const double per_request = requests ? double(sectors) / double(requests) : 0.0;
    std::ostringstream msg;
    msg << sectors << " sectors of 32 bytes for " << requests << " warp " << what
        << " requests on the 200 x 70 image; 32 neighbouring floats of one row need 4";
    const std::string advice =
        "A warp is 32 threads with consecutive threadIdx.x (then the next threadIdx.y). Let "
        "threadIdx.x pick the column and threadIdx.y the row, so that each warp touches 32 "
        "neighbouring pixels of one row instead of 32 pixels of a column, a row apart each.";
    s.check_at_most(name, per_request, kMaxSectorsPerRequest, msg.str(), advice,
        Session::MeasuredOn{measured.correct, "the image", "Make every pixel right first (see the failed checks above)."});
}

void run(Session& s) {
    const Image images[] = {
        {200, 70, 32},  // measured: 7 x 3 blocks; the right column of blocks holds 8 pixels of
                        // each row, the bottom row of blocks 6 rows of each column
        {99, 37, 16},   // an odd width: 7 x 3 blocks of 16 x 16; rows do not start on a sector
        {1000, 5, 32},  // wide and short: 32 x 1 blocks; 27 of each block's 32 rows are past
                        // the bottom of the image
    };

    Outcome measured;
    int measured_launch = -1;
    for (std::size_t k = 0; k < std::size(images); ++k) {
        Outcome o = adjust_and_check(s, images[k]);
        if (!o.launched) return;
        if (k == 0) { measured = o; measured_launch = s.launch_index(); }
    }
    s.measure(measured_launch);  // the figures below are the first image's

    // Performance: how many 32-byte sectors each warp-wide load and store touched, on the
    // 200 x 70 image with 32 x 32 blocks. Deterministic; needs a backend that traces.
    const LaunchResult* last = s.last_launch();
    if (!last || !last->trace) {
        s.log().push_back("sectors per request: not measured (the " +
                          s.runtime().backend().name() + " backend records no trace)");
        return;
    }
    const analysis::Figures& f = measured.figures;
    check_sectors(s, measured, "load", f.global_load_requests, f.global_load_sectors);
    check_sectors(s, measured, "store", f.global_store_requests, f.global_store_sectors);
}

}  // namespace

CUDALAB_LESSON("03-matrix-2d", run);
