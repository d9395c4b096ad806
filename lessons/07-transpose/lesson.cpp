// Lesson 07 — transpose: the host side.
//
// Launches `transpose` (exercises/07-transpose.cu) with 32 x 32 blocks over matrices whose sides
// are not multiples of 32, and checks every element of the result against the CPU. Then, over
// every launch (one of a shape chosen at run time), three performance checks from the trace:
// loads coalesced, stores coalesced (the 32-byte sectors moved against those a kernel whose warps
// take 32 neighbouring elements of a row moves; atomics count), and no shared-memory bank
// conflicts. The naive kernel fails
// the store check; written from the output's side it fails the load check
// (lessons/07-transpose/wrong/strided-loads.cu); a tiled kernel without padding fails the
// bank-conflict check (lessons/07-transpose/wrong/unpadded.cu); the padded tile passes all three.
// Anatomy: CPU reference -> shapes -> launch -> validate -> performance.
#include "lessons/lesson.h"

#include "analysis/metrics.h"

#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace cudalab;
using namespace cudalab::lessons;

constexpr unsigned kTile = 32;  // TILE in the kernel; blocks are kTile x kTile threads

// CPU reference: out is width x height, out[c][r] = in[r][c]. Pure copies: compared exactly.
std::vector<float> cpu_transpose(const std::vector<float>& in, int width, int height) {
    std::vector<float> out(in.size());
    for (int r = 0; r < height; ++r)
        for (int c = 0; c < width; ++c)
            out[std::size_t(c) * height + r] = in[std::size_t(r) * width + c];
    return out;
}

struct Matrix {
    int width, height;  // of `in`; `out` is height wide and width high
};

struct Outcome {
    bool launched = false;
    bool correct = false;
    analysis::Figures figures;
};

Outcome transpose_and_check(Session& s, const Matrix& m, bool chosen_at_run_time = false) {
    const std::size_t count = std::size_t(m.width) * std::size_t(m.height);
    const std::vector<float> in = s.random_floats(count);
    auto din = s.to_device(in);
    auto dout = s.alloc<float>(count);  // NaN until written
    s.shape(din, unsigned(m.height), unsigned(m.width), ShapeKind::matrix, "in");
    s.shape(dout, unsigned(m.width), unsigned(m.height), ShapeKind::matrix, "out");

    const Dim3 grid{(unsigned(m.width) + kTile - 1) / kTile,
                    (unsigned(m.height) + kTile - 1) / kTile};
    Outcome outcome;
    if (!s.launch("transpose", grid, Dim3{kTile, kTile}, 0, din, dout, m.width, m.height))
        return outcome;
    outcome.launched = true;
    if (const LaunchResult* launch = s.last_launch(); launch && launch->trace)
        outcome.figures = analysis::analyze(*launch->trace).total;

    // A mismatch at out[c][r] should have come from in[r][c], loaded by block (c/32, r/32).
    const int out_width = m.height;
    auto where = [out_width](std::size_t i) {
        const int r = int(i / std::size_t(out_width)), c = int(i % std::size_t(out_width));
        return "out row " + std::to_string(r) + ", col " + std::to_string(c) + " (= in row " +
               std::to_string(c) + ", col " + std::to_string(r) + ", tile of block (" +
               std::to_string(r / int(kTile)) + "," + std::to_string(c / int(kTile)) + "))";
    };
    const std::string shape = std::to_string(m.height) + " x " + std::to_string(m.width) +
                              " matrix (rows x cols), grid " + std::to_string(grid.x) + "x" + std::to_string(grid.y);
    const std::string name = "transpose of a " + (chosen_at_run_time ? std::string("matrix chosen at run time") : shape);
    if (chosen_at_run_time) s.log().push_back("the matrix chosen at run time: " + shape);
    outcome.correct = s.check_equal(name, dout, cpu_transpose(in, m.width, m.height), where);
    s.check_shared_initialised(
        name,
        "Read only the tile elements that were loaded: an element of `out` outside the matrix "
        "has no element of `in` behind it. Guard the store with out_row < width && out_col < "
        "height, and load with row < height && col < width.");
    return outcome;
}


void run(Session& s) {
    std::vector<Matrix> matrices = {
        {200, 72},  // 7 x 3 tiles; the last tile column is 8 wide, the last row 8 high
        {97, 61},   // odd sides: rows start anywhere within a sector
        {45, 1},    // a single row: `out` is a single column
    };
    const std::vector<int> sides = s.random_ints(2, 20, 150);
    matrices.push_back({sides[0], sides[1]});  // a shape no kernel can expect

    // Every launch is measured.
    std::uint64_t read_moved = 0, read_needed = 0, write_moved = 0, write_needed = 0;
    std::uint64_t wavefronts = 0, ideal_wavefronts = 0, shared_requests = 0;
    bool correct = true, traced = false;
    Session::WorstLaunch worst_read, worst_write, worst_banks;  // the launches the app shows for each check
    for (std::size_t k = 0; k < matrices.size(); ++k) {
        const Matrix& m = matrices[k];
        const Outcome o = transpose_and_check(s, m, k + 1 == matrices.size());
        if (!o.launched) return;
        correct = correct && o.correct;
        traced = traced || s.last_launch()->trace != nullptr;
        const analysis::Figures& f = o.figures;
        read_moved += f.read_sectors();
        write_moved += f.write_sectors();
        // `in` is read a tile row (32 elements of a row) at a time, `out` written likewise.
        const std::uint64_t read_here = coalesced_sectors(std::uint64_t(m.height), std::uint64_t(m.width), kTile);
        const std::uint64_t write_here = coalesced_sectors(std::uint64_t(m.width), std::uint64_t(m.height), kTile);
        read_needed += read_here;
        write_needed += write_here;
        worst_read.see(s.launch_index(), double(f.read_sectors()) - double(read_here));
        worst_write.see(s.launch_index(), double(f.write_sectors()) - double(write_here));
        worst_banks.see(s.launch_index(), double(f.shared_wavefronts) - double(f.shared_ideal_wavefronts));
        wavefronts += f.shared_wavefronts;
        ideal_wavefronts += f.shared_ideal_wavefronts;
        shared_requests += f.shared_requests;
    }

    if (!traced) {
        s.log().push_back("coalescing and bank conflicts: not measured (the " +
                          s.runtime().backend().name() + " backend records no trace)");
        return;
    }
    const Session::MeasuredOn measured_on{correct, "the result of some launch", "Make the transpose right first (see the failed checks above)."};
    s.measure(worst_read.launch);
    s.check_sectors_moved("global loads: sectors moved per sector needed", read_moved, read_needed,
          "reading `in` over every launch",
          "Read `in` row by row: let threadIdx.x run along a row of `in` (its column index), so "
          "that a warp loads 32 neighbouring elements.", measured_on);
    s.measure(worst_write.launch);
    s.check_sectors_moved("global stores: sectors moved per sector needed", write_moved, write_needed,
          "writing `out` over every launch",
          "A warp that writes the elements it just read writes a column of `out`. Stage the tile "
          "in __shared__ memory, __syncthreads(), then write the mirrored tile of `out` with "
          "threadIdx.x running along a row of `out`, reading the tile down a column.", measured_on);
    std::ostringstream banks;
    banks << wavefronts - ideal_wavefronts << " extra wavefronts: " << wavefronts
          << " wavefronts for " << shared_requests << " shared-memory requests over every launch, at least "
          << ideal_wavefronts << " needed";
    s.measure(worst_banks.launch);
    s.check_at_most("shared-memory bank conflicts", double(wavefronts - ideal_wavefronts), 0.0,
          banks.str(),
          "Shared memory has 32 banks of 4-byte words; word w is in bank w % 32. In a "
          "[32][32] float tile a column is 32 words apart: all in one bank, so a warp reading "
          "it is served one lane at a time. Declare the tile [32][33]: one unused float per row "
          "moves each element of a column into its own bank.", measured_on);
}

}  // namespace

CUDALAB_LESSON("07-transpose", run);
