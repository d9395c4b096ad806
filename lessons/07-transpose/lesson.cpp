// Lesson 07 — transpose: the host side.
//
// Launches `transpose` (exercises/07-transpose.cu) with 32 x 32 blocks over matrices whose sides
// are not multiples of 32, and checks every element of the result against the CPU. Then, on the
// first matrix, three performance checks from the trace: loads coalesced, stores coalesced (at
// most 4 sectors per request each), and no shared-memory bank conflicts. The naive kernel fails
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
// 32 consecutive floats, 128 bytes, 4 sectors; the measured matrix has sides that are multiples
// of 8 floats, so every row of `in` and of `out` starts on a sector boundary. The reference
// solution measures 3.57 (loads) and 3.00 (stores): the warps at the edges are shorter.
constexpr double kMaxSectorsPerRequest = 4.0;

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

Outcome transpose_and_check(Session& s, const Matrix& m) {
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
    const std::string name = "transpose of a " + std::to_string(m.height) + " x " +
                             std::to_string(m.width) + " matrix (rows x cols), grid " +
                             std::to_string(grid.x) + "x" + std::to_string(grid.y);
    outcome.correct = s.check_equal(name, dout, cpu_transpose(in, m.width, m.height), where);
    s.check_shared_initialised(
        name,
        "Read only the tile elements that were loaded: an element of `out` outside the matrix "
        "has no element of `in` behind it. Guard the store with out_row < width && out_col < "
        "height, and load with row < height && col < width.");
    return outcome;
}


std::string sectors_message(const char* what, std::uint64_t requests, std::uint64_t sectors) {
    std::ostringstream m;
    m << sectors << " sectors for " << requests << " warp " << what
      << " requests (72 x 200 matrix); 32 neighbouring floats of one row need 4";
    return m.str();
}

void run(Session& s) {
    const Matrix matrices[] = {
        {200, 72},  // measured: 7 x 3 tiles; the last tile column is 8 wide, the last row 8 high
        {97, 61},   // odd sides: rows start anywhere within a sector
        {45, 1},    // a single row: `out` is a single column
    };
    Outcome measured;
    int measured_launch = -1;
    for (std::size_t k = 0; k < std::size(matrices); ++k) {
        Outcome o = transpose_and_check(s, matrices[k]);
        if (!o.launched) return;
        if (k == 0) { measured = o; measured_launch = s.launch_index(); }
    }
    s.measure(measured_launch);  // the figures below are the first matrix's

    const LaunchResult* last = s.last_launch();
    if (!last || !last->trace) {
        s.log().push_back("coalescing and bank conflicts: not measured (the " +
                          s.runtime().backend().name() + " backend records no trace)");
        return;
    }
    const analysis::Figures& f = measured.figures;
    const Session::MeasuredOn measured_on{measured.correct, "the result", "Make the transpose right first (see the failed checks above)."};
    s.check_at_most("global loads: sectors per request", f.load_sectors_per_request(),
          kMaxSectorsPerRequest,
          sectors_message("load", f.global_load_requests, f.global_load_sectors),
          "Read `in` row by row: let threadIdx.x run along a row of `in` (its column index), so "
          "that a warp loads 32 neighbouring elements.", measured_on);
    s.check_at_most("global stores: sectors per request", f.store_sectors_per_request(),
          kMaxSectorsPerRequest,
          sectors_message("store", f.global_store_requests, f.global_store_sectors),
          "A warp that writes the elements it just read writes a column of `out`. Stage the tile "
          "in __shared__ memory, __syncthreads(), then write the mirrored tile of `out` with "
          "threadIdx.x running along a row of `out`, reading the tile down a column.", measured_on);
    std::ostringstream banks;
    banks << f.bank_conflicts() << " extra wavefronts: " << f.shared_wavefronts
          << " wavefronts for " << f.shared_requests << " shared-memory requests, at least "
          << f.shared_ideal_wavefronts << " needed";
    s.check_at_most("shared-memory bank conflicts", double(f.bank_conflicts()), 0.0,
          banks.str(),
          "Shared memory has 32 banks of 4-byte words; word w is in bank w % 32. In a "
          "[32][32] float tile a column is 32 words apart: all in one bank, so a warp reading "
          "it is served one lane at a time. Declare the tile [32][33]: one unused float per row "
          "moves each element of a column into its own bank.", measured_on);
}

}  // namespace

CUDALAB_LESSON("07-transpose", run);
