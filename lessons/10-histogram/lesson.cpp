// Lesson 10 — histogram: the host side.
//
// Launches `histogram` (exercises/10-histogram.cu) on 8-bit grey images, blocks of 256 threads, a
// small grid with a grid-stride loop, and checks the 256 counts against the CPU: photo-like images
// whose light and shade reach both ends of the 0-255 range, an image of uniform noise, one of no
// pixels at all and one of a size chosen at run time. Then, on every launch, it counts the atomic
// operations on global memory per block (the worst launch against the bound): a kernel that adds
// every pixel straight into the global histogram makes one per pixel; a block that counts into a
// private shared-memory histogram and merges it makes at most one per bin.
// Anatomy: CPU reference -> images -> launch -> validate -> performance (global atomics/block).
#include "lessons/lesson.h"

#include "analysis/metrics.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <iomanip>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace cudalab;
using namespace cudalab::lessons;

constexpr int kBins = 256;            // BINS in the kernel: one per grey level
constexpr unsigned kBlockSize = 256;  // one thread per bin for zeroing and merging
// One global atomic per bin per block, at most (a block may skip its empty bins).
constexpr double kMaxGlobalAtomicsPerBlock = kBins;

// A photo-like grey image: smooth light and shade plus a little noise, so that neighbouring
// pixels, which a warp reads together, mostly share a handful of grey levels (the contention a
// real histogram meets), while the whole image covers the 256 levels: the shade overshoots both
// ends, so the darkest parts are 0 and the brightest 255 (a kernel that drops bin 0 or 255, or
// indexes with a signed char, fails). `noise` instead draws every pixel uniformly from 0-255.
std::vector<unsigned char> grey_image(Session& s, int width, int height, bool noise_only = false) {
    std::uniform_int_distribution<int> noise(-2, 2), any(0, 255);
    std::vector<unsigned char> image(std::size_t(width) * std::size_t(height));
    const double phase = std::uniform_real_distribution<double>(0.0, 6.0)(s.rng());
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            if (noise_only) {
                image[std::size_t(y) * width + x] = (unsigned char)any(s.rng());
                continue;
            }
            const double shade = 127.5 + 200.0 * std::sin(x / 150.0 + phase) * std::cos(y / 60.0);
            const int v = int(std::lround(shade)) + noise(s.rng());
            image[std::size_t(y) * width + x] = (unsigned char)std::clamp(v, 0, 255);
        }
    return image;
}

std::vector<unsigned> cpu_histogram(const std::vector<unsigned char>& pixels) {
    std::vector<unsigned> bins(kBins, 0);
    for (unsigned char p : pixels) ++bins[p];
    return bins;
}

// How many different grey levels the 32 consecutive pixels of a warp's load hit, on average.
double levels_per_warp(const std::vector<unsigned char>& pixels) {
    double total = 0;
    std::size_t warps = 0;
    for (std::size_t start = 0; start < pixels.size(); start += 32, ++warps) {
        std::set<unsigned char> levels;
        for (std::size_t i = start; i < std::min(pixels.size(), start + 32); ++i)
            levels.insert(pixels[i]);
        total += double(levels.size());
    }
    return warps ? total / double(warps) : 0.0;
}

struct Outcome {
    bool launched = false;
    bool correct = false;
    unsigned blocks = 0;
    int pixels = 0;
    double levels_per_warp = 0;
    analysis::Figures figures;
    int launch = -1;  // its index among the session's launches (the app shows the worst)
};

Outcome histogram_and_check(Session& s, int width, int height, unsigned blocks, const std::string& label = {}) {
    Outcome outcome;
    outcome.blocks = blocks;
    const std::vector<unsigned char> image = grey_image(s, width, height, label == "uniform noise");
    const int n = int(image.size());
    outcome.pixels = n;
    outcome.levels_per_warp = levels_per_warp(image);
    auto dpixels = s.to_device(image);
    auto dbins = s.to_device(std::vector<unsigned>(kBins, 0u));  // the host zeroes the histogram
    s.shape(dpixels, unsigned(height), unsigned(width), ShapeKind::image, "pixels");
    s.shape(dbins, 1, kBins, ShapeKind::bins, "bins");

    if (!s.launch("histogram", Dim3{blocks}, Dim3{kBlockSize}, 0, dpixels, dbins, n))
        return outcome;
    outcome.launched = true;
    outcome.launch = s.launch_index();
    if (const LaunchResult* launch = s.last_launch(); launch && launch->trace)
        outcome.figures = analysis::analyze(*launch->trace).total;

    const std::string shape = std::to_string(width) + " x " + std::to_string(height) + " image (" +
                              std::to_string(n) + (n == 1 ? " pixel), " : " pixels), ") + std::to_string(blocks) +
                              (blocks == 1 ? " block" : " blocks") + " of 256";
    const std::string name = label.empty() ? "histogram of a " + shape : "histogram of " + label;
    if (!label.empty()) s.log().push_back(label + ": " + shape);
    outcome.correct = s.check_equal(name, dbins, cpu_histogram(image), [](std::size_t v) {
        return "bins[" + std::to_string(v) + "] (grey level " + std::to_string(v) + ")";
    });
    s.check_shared_initialised(
        name,
        "Zero the shared histogram first: local[threadIdx.x] = 0; then __syncthreads() before "
        "any thread counts into it.");
    return outcome;
}

void run(Session& s) {
    // 1 pixel; 40 x 25 = 1000 pixels on 4 blocks (about one pixel per thread); 401 x 250 =
    // 100250 pixels on 16 blocks of 256 (24-25 pixels per thread); an empty image (n = 0: the
    // histogram stays zero); uniform noise; and a size and grid chosen at run time. Every launch
    // is measured.
    const std::vector<int> r = s.random_ints(3, 1, 1 << 20);
    std::vector<Outcome> outcomes;
    auto add = [&](Outcome o) {
        if (!o.launched) return false;
        outcomes.push_back(std::move(o));
        return true;
    };
    if (!add(histogram_and_check(s, 1, 1, 1))) return;
    if (!add(histogram_and_check(s, 40, 25, 4))) return;
    if (!add(histogram_and_check(s, 401, 250, 16))) return;
    if (!add(histogram_and_check(s, 0, 0, 1, "an empty image"))) return;
    if (!add(histogram_and_check(s, 300, 20, 6, "uniform noise"))) return;
    if (!add(histogram_and_check(s, 50 + r[0] % 300, 20 + r[1] % 200, 4 + unsigned(r[2]) % 20, "an image chosen at run time"))) return;

    const std::string name = "global atomics per block";
    const LaunchResult* last = s.last_launch();
    if (!last || !last->trace) {
        s.log().push_back(name + ": not measured (the " + s.runtime().backend().name() +
                          " backend records no trace)");
        return;
    }
    bool correct = true;
    const Outcome* worst = nullptr;
    double worst_per_block = -1;
    for (const Outcome& o : outcomes) {
        correct = correct && o.correct;
        const double per_block = double(o.figures.global_atomics) / o.blocks;
        if (per_block > worst_per_block) { worst_per_block = per_block; worst = &o; }
    }
    const Outcome& m = *worst;
    s.measure(m.launch);
    const analysis::Figures& f = m.figures;
    std::ostringstream msg;
    msg << "worst launch: " << f.global_atomics << " atomic operations on global memory (" << f.global_atomic_requests
        << " warp requests) for " << m.pixels << " pixels in " << m.blocks << " blocks; "
        << f.shared_atomics << " on shared memory. The 32 pixels a warp reads together hit "
        << std::fixed << std::setprecision(1) << m.levels_per_warp
        << " different grey levels on average: the lanes of one atomic instruction queue up "
           "behind each other on the same few bins";
    s.check_at_most(
        name, worst_per_block, kMaxGlobalAtomicsPerBlock, msg.str(),
        "Count into a __shared__ unsigned int local[256] (zeroed, then __syncthreads()) with "
        "atomicAdd(&local[pixel], 1u), then __syncthreads() and let thread t add local[t] to "
        "bins[t] with one global atomicAdd: 256 per block, whatever the number of pixels.",
        Session::MeasuredOn{correct, "the histogram of some launch",
                            "Make the counts right first: zero the shared bins and __syncthreads() "
                            "before counting, __syncthreads() again before merging."});
}

}  // namespace

CUDALAB_LESSON("10-histogram", run);
