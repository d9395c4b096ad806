// Lesson 03 — 2D grids: the host side.
//
// Launches `adjust` (exercises/03-matrix-2d.cu) over row-major images whose sides are not
// multiples of the block, with square 2D blocks and a 2D grid rounded up on both sides, and
// checks every pixel against the CPU, with a new gain and bias each launch. Then, over every
// launch, it checks that the warps' loads and stores were coalesced: the 32-byte sectors moved
// against those a kernel whose warps take neighbouring pixels of one row moves.
// Anatomy: CPU reference -> image shapes -> launch -> validate -> performance (sectors moved).
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

// Coalescing is judged by the sectors moved against those the data needs: a warp that takes 32
// neighbouring floats of one row moves each sector of the image once; one that walks down a
// column moves a sector for every pixel. Every launch counts, including an image whose size and
// block are chosen at run time, and the gain and bias change every launch.

// CPU reference. The compiler turns `in * gain + bias` into one fused multiply-add (fma), so the
// reference uses std::fma to get the same bits; the tolerance lets an unfused version pass too.
std::vector<float> cpu_adjust(const std::vector<float>& in, float gain, float bias) {
    std::vector<float> out(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) out[i] = std::fma(in[i], gain, bias);
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

// Summed over every launch.
struct Traffic {
    std::uint64_t read_moved = 0, write_moved = 0, needed = 0;
    bool correct = true;
    bool traced = false;
    Session::WorstLaunch worst_read, worst_write;  // the launches the app shows for each check
};

Outcome adjust_and_check(Session& s, const Image& im, Traffic& traffic, bool chosen_at_run_time = false) {
    const std::size_t pixels = std::size_t(im.width) * std::size_t(im.height);
    const std::vector<float> in = s.random_floats(pixels, 0.f, 1.f);
    // A new gain and bias every launch, negative ones included: a kernel must use its parameters.
    const float gain = s.random_floats(1, -3.f, 3.f)[0], bias = s.random_floats(1, -1.f, 1.f)[0];
    auto din = s.to_device(in);
    auto dout = s.alloc<float>(pixels);  // NaN until written: a pixel no thread wrote is a mismatch
    s.shape(din, unsigned(im.height), unsigned(im.width), ShapeKind::image, "in");
    s.shape(dout, unsigned(im.height), unsigned(im.width), ShapeKind::image, "out");

    // dim3 block(B, B); dim3 grid((width + B - 1) / B, (height + B - 1) / B);
    const Dim3 block{im.block, im.block};
    const Dim3 grid{(unsigned(im.width) + im.block - 1) / im.block,
                    (unsigned(im.height) + im.block - 1) / im.block};

    Outcome outcome;
    if (!s.launch("adjust", grid, block, 0, din, dout, im.width, im.height, gain, bias))
        return outcome;
    outcome.launched = true;
    if (const LaunchResult* launch = s.last_launch(); launch && launch->trace) {
        outcome.figures = analysis::analyze(*launch->trace).total;
        traffic.traced = true;
    }

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
    const std::string shape = std::to_string(im.width) + " x " + std::to_string(im.height) + " image, " +
                              std::to_string(b) + "x" + std::to_string(b) + " blocks, grid " +
                              std::to_string(grid.x) + "x" + std::to_string(grid.y);
    const std::string name = "out = in * gain + bias, " + (chosen_at_run_time ? "image chosen at run time" : shape);
    if (chosen_at_run_time) s.log().push_back("the image chosen at run time: " + shape);
    outcome.correct = s.check_close(name, dout, cpu_adjust(in, gain, bias), Tolerance{1e-6, 1e-6}, where);
    // Each warp takes b neighbouring pixels of a row (32 / b rows of them): the sectors those
    // segments span, once for `in` and once for `out`.
    const std::uint64_t needed = coalesced_sectors(std::uint64_t(im.height), std::uint64_t(im.width), b);
    traffic.read_moved += outcome.figures.read_sectors();
    traffic.write_moved += outcome.figures.write_sectors();
    traffic.needed += needed;
    traffic.worst_read.see(s.launch_index(), double(outcome.figures.read_sectors()) - double(needed));
    traffic.worst_write.see(s.launch_index(), double(outcome.figures.write_sectors()) - double(needed));
    traffic.correct = traffic.correct && outcome.correct;
    return outcome;
}

void run(Session& s) {
    std::vector<Image> images = {
        {200, 70, 32},  // 7 x 3 blocks; the right column of blocks holds 8 pixels of each row, the
                        // bottom row of blocks 6 rows of each column
        {99, 37, 16},   // an odd width: 7 x 3 blocks of 16 x 16; rows do not start on a sector
        {1000, 5, 32},  // wide and short: 32 x 1 blocks; 27 of each block's 32 rows are past
                        // the bottom of the image
        {1, 1, 16},     // a single pixel
    };
    // And one no kernel can expect: its sides and block chosen now.
    const std::vector<int> sides = s.random_ints(3, 33, 260);
    images.push_back({sides[0], sides[1] % 90 + 1, sides[2] % 2 ? 16u : 32u});

    Traffic traffic;
    for (std::size_t k = 0; k < images.size(); ++k)
        if (!adjust_and_check(s, images[k], traffic, k + 1 == images.size()).launched) return;

    // Performance: the 32-byte sectors every launch moved against those the images need.
    // Deterministic; needs a backend that traces.
    if (!traffic.traced) {
        s.log().push_back("sectors moved: not measured (the " + s.runtime().backend().name() +
                          " backend records no trace)");
        return;
    }
    const std::string advice =
        "A warp is 32 threads with consecutive threadIdx.x (then the next threadIdx.y). Let "
        "threadIdx.x pick the column and threadIdx.y the row, so that each warp touches "
        "neighbouring pixels of one row instead of pixels of a column, a row apart each.";
    const Session::MeasuredOn on{traffic.correct, "some image", "Make every pixel right first (see the failed checks above)."};
    s.measure(traffic.worst_read.launch);
    s.check_sectors_moved("global loads: sectors moved per sector needed", traffic.read_moved, traffic.needed,
                          "reading `in` over every launch", advice, on);
    s.measure(traffic.worst_write.launch);
    s.check_sectors_moved("global stores: sectors moved per sector needed", traffic.write_moved, traffic.needed,
                          "writing `out` over every launch", advice, on);
}

}  // namespace

CUDALAB_LESSON("03-matrix-2d", run);
