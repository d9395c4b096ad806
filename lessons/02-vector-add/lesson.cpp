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
};

// One launch of vector_add on fresh random inputs, then the check of c.
Outcome add_and_check(Session& s, int n, unsigned blocks, unsigned block_size,
                      const std::string& label) {
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
    if (const LaunchResult* launch = s.last_launch()) outcome.stats = launch->stats;

    std::vector<float> expected = cpu_vector_add(a, b);
    expected.resize(count + slack, kUntouched);

    auto where = [n](std::size_t i) {
        std::string w = "c[" + std::to_string(i) + "]";
        if (i >= std::size_t(n))
            w += ", past n = " + std::to_string(n) + " (no thread may write it)";
        return w;
    };
    const std::string name = "c = a + b, n = " + std::to_string(n) + ", " + label +
                             std::to_string(blocks) + (blocks == 1 ? " block of " : " blocks of ") +
                             std::to_string(block_size);
    outcome.correct = s.check_close(name, dc, expected, Tolerance{0, 0}, where);
    return outcome;
}

void run(Session& s) {
    // 1. Enough threads: the usual launch, one thread per element. n = 1 leaves 255 of the 256
    //    threads idle; the others leave the last block partly past n (1000: 24 threads past it,
    //    4099: 253, 20011: 213).
    constexpr unsigned kBlockSize = 256;
    for (int n : {1, 1000, 4099, 20011}) {
        const unsigned blocks = (unsigned(n) + kBlockSize - 1) / kBlockSize;
        if (!add_and_check(s, n, blocks, kBlockSize, "").launched) return;
    }

    // 2. A small grid: 4 blocks of 128 = 512 threads, whatever n is. For n = 1000, threads 0-487
    //    take two elements and 488-511 one; for n = 100003, threads 0-162 take 196 and the rest
    //    195. Only a kernel that loops over the grid gets every element.
    constexpr unsigned kSmallBlocks = 4, kSmallBlockSize = 128;
    if (!add_and_check(s, 1000, kSmallBlocks, kSmallBlockSize, "small grid: ").launched) return;
    const int n_large = 100003;
    const Outcome large = add_and_check(s, n_large, kSmallBlocks, kSmallBlockSize, "small grid: ");
    if (!large.launched) return;

    // 3. Performance: thread-instructions per element on the small grid, where each thread does
    //    about 195 elements. Deterministic on the emulator; a backend that counts no instructions
    //    (a real GPU) skips it.
    const double per_element = double(large.stats.thread_instructions) / n_large;
    const std::string name = "instructions per element";
    const std::string advice =
        "Keep the loop body to one load of a, one load of b, one add and one store, and step by "
        "blockDim.x * gridDim.x: each thread should touch only its own elements, never scan "
        "the whole array looking for them.";
    if (large.stats.thread_instructions == 0) {
        s.log().push_back(name + ": not measured (the " + s.runtime().backend().name() +
                          " backend counts no instructions)");
        return;
    }
    const std::string measured = std::to_string(large.stats.thread_instructions) +
                                 " thread-instructions for " + std::to_string(n_large) +
                                 " elements on 512 threads";
    // A kernel that skips elements does less work per element, so its count means nothing.
    s.check_at_most(name, per_element, kMaxInstructionsPerElement, measured, advice,
                    Session::MeasuredOn{large.correct, "c on this launch",
                                        "Make the small-grid launch correct first (a grid-stride loop)."});

    // 4. On a GPU, the real thing: 64 M elements (768 MB moved, far past every cache) timed with
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
