// Lesson 02 — vector add: the host side.
//
// The same flow as any CUDA program: allocate on the device and copy the inputs there
// (s.to_device ~ cudaMalloc + cudaMemcpy host-to-device), allocate the output (s.alloc ~
// cudaMalloc), launch (s.launch ~ kernel<<<grid, block>>>), copy the result back and compare it
// with the CPU (s.check_close downloads ~ cudaMemcpy device-to-host).
//
// `vector_add` (exercises/02-vector-add.cu) must be right for any n and any grid, so every size is
// launched with enough threads (one per element, the last block partly past n), and two sizes are
// launched on a small grid of 4 blocks of 128 threads, where only a grid-stride loop covers all of
// c. Then a performance check bounds the instructions spent per element.
#include "lessons/lesson.h"

#include "analysis/metrics.h"

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

namespace {

using namespace cudalab;
using namespace cudalab::lessons;

// Written into c past its n real elements. Inputs lie in [-1, 1], so no correct sum is near it.
constexpr float kUntouched = -777.0f;

// The bound of the performance check, in thread-instructions per element, measured on the
// small-grid launch (n = 100003 on 512 threads, about 195 elements per thread, so the per-thread
// prologue hardly counts). The reference grid-stride loop compiles to PTX that nvcc/NVRTC unroll
// by 4: 34 instructions per 4 elements plus a remainder loop of 11 per element, about 8.7 per
// element in all (11-12 when not unrolled). 20 leaves room for a less tidy but sensible loop
// (64-bit indices, the stride recomputed each pass, a redundant `if`) and fails kernels whose
// threads walk over elements that are not theirs. To be tuned once the emulator runs.
constexpr double kMaxInstructionsPerElement = 20.0;

// On a GPU: achieved bandwidth (3 x 4 bytes per element over the median time) as a fraction of the
// device's measured copy bandwidth (docs/curriculum.md: >= 80%).
constexpr double kMinFractionOfCopyBandwidth = 0.80;

// CPU reference. Float addition is correctly rounded in IEEE 754 on both sides, so the GPU's
// result must be bit-identical: the checks use no tolerance.
std::vector<float> cpu_vector_add(const std::vector<float>& a, const std::vector<float>& b) {
    std::vector<float> c(a.size());
    for (std::size_t i = 0; i < a.size(); ++i) c[i] = a[i] + b[i];
    return c;
}

struct Outcome {
    bool launched = false;  // false: the launch faulted and the session recorded why
    bool correct = false;
    LaunchStats stats;
    analysis::Figures figures;
};

// What every launch moved and what its data needs, summed: coalescing is judged over all of them.
struct Traffic {
    std::uint64_t read_moved = 0, read_needed = 0, write_moved = 0, write_needed = 0;
    bool correct = true;
    bool traced = false;
};

// One launch of vector_add on fresh random inputs, then the check of c.
Outcome add_and_check(Session& s, int n, unsigned blocks, unsigned block_size,
                      const std::string& label, Traffic& traffic, bool name_n = true) {
    const std::size_t count = std::size_t(n);
    const std::vector<float> a = s.random_floats(count);
    const std::vector<float> b = s.random_floats(count);

    // c holds n elements for the kernel plus one block's worth past the end, preset to
    // kUntouched: a kernel without a bounds guard writes there. (a and b are exactly n long, so
    // on the emulator such a kernel already faults reading a[n]; on a GPU, reads and writes a
    // little past a buffer often go unnoticed, and this slack catches the writes.) The n real
    // elements start as NaN, so one that no thread writes is a mismatch.
    const std::size_t slack = block_size;
    std::vector<float> c_initial(count, std::numeric_limits<float>::quiet_NaN());
    c_initial.resize(count + slack, kUntouched);

    auto da = s.to_device(a);
    auto db = s.to_device(b);
    auto dc = s.to_device(c_initial);

    Outcome outcome;
    if (!s.launch("vector_add", Dim3{blocks}, Dim3{block_size}, 0, da, db, dc, n)) return outcome;
    outcome.launched = true;
    if (const LaunchResult* launch = s.last_launch()) {
        outcome.stats = launch->stats;
        if (launch->trace) {
            outcome.figures = analysis::analyze(*launch->trace).total;
            traffic.traced = true;
        }
    }

    std::vector<float> expected = cpu_vector_add(a, b);
    expected.resize(count + slack, kUntouched);

    auto where = [n](std::size_t i) {
        std::string w = "c[" + std::to_string(i) + "]";
        if (i >= std::size_t(n))
            w += ", past n = " + std::to_string(n) + " (no thread may write it)";
        return w;
    };
    const std::string name = "c = a + b, " + (name_n ? "n = " + std::to_string(n) : "n chosen at run time") + ", " + label +
                             std::to_string(blocks) + (blocks == 1 ? " block of " : " blocks of ") +
                             std::to_string(block_size);
    outcome.correct = s.check_close(name, dc, expected, Tolerance{0, 0}, where);
    if (!name_n) s.log().push_back("the launch of a size chosen at run time had n = " + std::to_string(n));
    // a and b read once, c written once, 32 consecutive floats per warp request.
    traffic.read_moved += outcome.figures.read_sectors();
    traffic.write_moved += outcome.figures.write_sectors();
    traffic.read_needed += 2 * coalesced_sectors(1, count, 32);
    traffic.write_needed += coalesced_sectors(1, count, 32);
    traffic.correct = traffic.correct && outcome.correct;
    return outcome;
}

void run(Session& s) {
    // 1. Enough threads: the usual launch, one thread per element. n = 1 leaves 255 of the 256
    //    threads idle; the others leave the last block partly past n (1000: 24 threads past it,
    //    4099: 253, 20011: 213).
    constexpr unsigned kBlockSize = 256;
    Traffic traffic;
    for (int n : {1, 1000, 4099, 20011}) {
        const unsigned blocks = (unsigned(n) + kBlockSize - 1) / kBlockSize;
        if (!add_and_check(s, n, blocks, kBlockSize, "", traffic).launched) return;
    }

    // 2. A small grid: 4 blocks of 128 = 512 threads, whatever n is. For n = 1000, threads 0-487
    //    take two elements and 488-511 one; for n = 100003, threads 0-162 take 196 and the rest
    //    195. Only a kernel that loops over the grid gets every element.
    constexpr unsigned kSmallBlocks = 4, kSmallBlockSize = 128;
    if (!add_and_check(s, 0, kSmallBlocks, kSmallBlockSize, "small grid: ", traffic).launched) return;  // nothing to do
    if (!add_and_check(s, 1000, kSmallBlocks, kSmallBlockSize, "small grid: ", traffic).launched) return;
    const int n_large = 100003;
    const Outcome large = add_and_check(s, n_large, kSmallBlocks, kSmallBlockSize, "small grid: ", traffic);
    if (!large.launched) return;
    // A size no kernel can expect, on the small grid: whatever is measured is measured here too.
    const int n_random = s.random_ints(1, 30000, 90000)[0];
    const Outcome chosen = add_and_check(s, n_random, kSmallBlocks, kSmallBlockSize, "small grid: ", traffic, false);
    if (!chosen.launched) return;

    // 3. Coalescing over every launch: the sectors moved against those the data needs. A thread
    //    that takes a chunk of consecutive elements puts its warp's lanes a chunk apart: every
    //    request touches 32 sectors, and each sector is fetched again on every pass.
    if (traffic.traced) {
        const std::string advice =
            "Let neighbouring threads take neighbouring elements on every pass: start at the global "
            "thread id and step by blockDim.x * gridDim.x. A thread that walks its own chunk of "
            "consecutive elements makes each warp request touch 32 sectors.";
        const Session::MeasuredOn on{traffic.correct, "c on some launch", "Make every launch correct first."};
        s.check_sectors_moved("global loads: sectors moved per sector needed", traffic.read_moved, traffic.read_needed,
                              "a and b over every launch", advice, on);
        s.check_sectors_moved("global stores: sectors moved per sector needed", traffic.write_moved,
                              traffic.write_needed, "c over every launch", advice, on);
    }

    // 4. Performance: thread-instructions per element on the two large small-grid launches (n =
    //    100003 and the size chosen at run time), where each thread does 60 to 195 elements and
    //    its prologue hardly counts. Deterministic on the emulator; a backend that counts no
    //    instructions (a real GPU) skips it.
    const std::uint64_t instructions = large.stats.thread_instructions + chosen.stats.thread_instructions;
    const double per_element = double(instructions) / double(n_large + n_random);
    const std::string name = "instructions per element";
    const std::string advice =
        "Keep the loop body to one load of a, one load of b, one add and one store, and step by "
        "blockDim.x * gridDim.x: each thread should touch only its own elements, never scan "
        "the whole array looking for them.";
    if (instructions == 0) {
        s.log().push_back(name + ": not measured (the " + s.runtime().backend().name() +
                          " backend counts no instructions)");
        return;
    }
    const std::string measured = std::to_string(instructions) + " thread-instructions for " +
                                 std::to_string(n_large + n_random) +
                                 " elements on 512 threads (n = 100003 and the size chosen at run time)";
    // A kernel that skips elements does less work per element, so its count means nothing.
    s.check_at_most(name, per_element, kMaxInstructionsPerElement, measured, advice,
                    Session::MeasuredOn{large.correct && chosen.correct, "c on the large small-grid launches",
                                        "Make the small-grid launches correct first (a grid-stride loop)."});

    // 5. On a GPU, the real thing: 64 M elements (768 MB moved, far past every cache) timed with
    //    events, against the device's own measured copy bandwidth. Vector add is memory-bound: a
    //    good kernel moves its bytes nearly as fast as a plain copy does.
    if (!s.has_timing()) {
        s.log().push_back("bandwidth on the GPU: not measured (timed checks need --backend gpu and a GPU)");
        return;
    }
    constexpr int kBig = 1 << 26;
    if (!large.correct) {
        s.log().push_back("bandwidth on the GPU: not measured until the small-grid launches are correct");
        return;
    }
    auto peak = s.device_peak();
    if (!peak) return;
    auto big_a = s.alloc<float>(kBig);
    auto big_b = s.alloc<float>(kBig);
    auto big_c = s.alloc<float>(kBig);
    // A grid-stride kernel is launched as grid-stride kernels are in practice: enough blocks to fill
    // every SM (8 blocks of 256 = 2048 threads, an SM's maximum), each thread looping.
    const unsigned big_blocks = unsigned(peak->sm_count) * 8;
    auto timed = s.time_kernel("vector_add", Dim3{big_blocks}, Dim3{kBlockSize}, 0, big_a, big_b, big_c, kBig);
    if (!timed) return;
    s.check_bandwidth("bandwidth on the GPU, n = 2^26", 3.0 * 4.0 * kBig, *timed, kMinFractionOfCopyBandwidth,
                      "Each element should be loaded once and stored once, by neighbouring threads at neighbouring "
                      "addresses; no extra passes over memory.");
}

}  // namespace

CUDALAB_LESSON("02-vector-add", run);
