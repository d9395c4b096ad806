// Lesson 01 — threads, blocks and warps: the host side.
//
// Launches `whoami` (exercises/01-threads.cu) with several 1D shapes and checks that every thread
// reported its global id, block, warp and lane, and that the threads past n wrote nothing.
// Anatomy: CPU reference -> launch shapes -> launch -> validate. No performance check: the
// lesson is about naming threads, not speed.
#include "lessons/lesson.h"

#include <cstddef>
#include <string>
#include <vector>

namespace {

using namespace cudalab;
using namespace cudalab::lessons;

constexpr int kWarpSize = 32;
// Session::alloc fills new buffers with 0xFF bytes, which reads as -1 in an int: an element that
// no thread wrote keeps this value.
constexpr int kUnwritten = -1;

struct Identities {
    std::vector<int> global_id, block_id, warp_id, lane;
};

// CPU reference: what each thread of a grid of `threads_in_grid` threads, `block_size` per block,
// writes at its global id. Threads at or past n must write nothing, so their elements stay -1.
Identities cpu_whoami(int n, std::size_t threads_in_grid, int block_size) {
    Identities r;
    for (std::vector<int>* v : {&r.global_id, &r.block_id, &r.warp_id, &r.lane})
        v->assign(threads_in_grid, kUnwritten);
    for (int g = 0; g < n; ++g) {
        int thread_in_block = g % block_size;
        r.global_id[g] = g;
        r.block_id[g] = g / block_size;
        r.warp_id[g] = thread_in_block / kWarpSize;  // warps are cut per block ...
        r.lane[g] = thread_in_block % kWarpSize;     // ... so both come from threadIdx.x
    }
    return r;
}

struct Shape {
    int n;
    unsigned block_size;
};

void run(Session& s) {
    // Each shape is chosen to show one thing:
    const Shape shapes[] = {
        {24, 8},       // the worked picture: 3 blocks of 8, each a single, partly filled warp
        {1000, 256},   // 4 blocks; the last has 232 threads inside n and 24 past it
        {777, 48},     // 48 is not a multiple of 32: warp 1 of each block has 16 lanes, and
                       // lane != global id % 32 from block 1 on
        {10007, 128},  // 79 blocks; the last has 23 threads inside n: its warp 0 partly,
                       // warps 1-3 not at all
    };

    for (const Shape& shape : shapes) {
        const int n = shape.n;
        const unsigned block_size = shape.block_size;
        const unsigned blocks = (unsigned(n) + block_size - 1) / block_size;
        // One element per thread of the grid, not per element of n: the elements from n on
        // belong to the guarded-out threads and must stay untouched. (On a GPU a write a little
        // past the end of a buffer often goes unnoticed; here it shows up as a mismatch.)
        const std::size_t threads_in_grid = std::size_t(blocks) * block_size;

        auto global_id = s.alloc<int>(threads_in_grid);
        auto block_id = s.alloc<int>(threads_in_grid);
        auto warp_id = s.alloc<int>(threads_in_grid);
        auto lane = s.alloc<int>(threads_in_grid);

        if (!s.launch("whoami", Dim3{blocks}, Dim3{block_size}, 0, global_id, block_id, warp_id,
                      lane, n))
            return;

        const std::string shape_name = std::to_string(blocks) + " blocks of " +
                                       std::to_string(block_size) + " (n = " + std::to_string(n) +
                                       ")";
        s.log().push_back(shape_name + ": " + std::to_string(threads_in_grid) + " threads, " +
                          std::to_string(threads_in_grid - std::size_t(n)) + " past n");

        // Mismatches are reported in the learner's terms: which thread owns the element.
        auto where = [n, block_size](std::size_t g) {
            std::string w = "block " + std::to_string(g / block_size) + ", thread " +
                            std::to_string(g % block_size);
            if (g >= std::size_t(n))
                w += " (global id " + std::to_string(g) + " >= n = " + std::to_string(n) +
                     ": must write nothing)";
            return w;
        };

        const Identities expected = cpu_whoami(n, threads_in_grid, int(block_size));
        s.check_equal("global id, " + shape_name, global_id, expected.global_id, where);
        s.check_equal("block id, " + shape_name, block_id, expected.block_id, where);
        s.check_equal("warp id, " + shape_name, warp_id, expected.warp_id, where);
        s.check_equal("lane, " + shape_name, lane, expected.lane, where);
    }
}

}  // namespace

CUDALAB_LESSON("01-threads", run);
