// The analysis rules, pinned with figures worked out by hand: sectors and lines of one warp's
// global request, wavefronts of one shared request, how atomics count as traffic, divergent
// branches, and the sectors a coalesced kernel needs (lessons/NN/lesson.toml and lesson.cpp hold
// learners to it).
#include "analysis/memory_rules.h"
#include "analysis/metrics.h"
#include "lessons/lesson.h"

#include <doctest/doctest.h>

#include <array>
#include <cstdint>

using namespace cudalab;
using namespace cudalab::analysis;

namespace {

// Lane l at base + l * stride.
std::array<std::uint64_t, 32> strided(std::uint64_t base, std::uint64_t stride) {
    std::array<std::uint64_t, 32> a{};
    for (int l = 0; l < 32; ++l) a[std::size_t(l)] = base + std::uint64_t(l) * stride;
    return a;
}

constexpr std::uint32_t all = 0xffffffffu;
constexpr std::uint64_t base = 0x7000'0000'0000ull;  // 256-byte aligned, as buffers are

}  // namespace

TEST_CASE("global sectors: 32 consecutive floats on a sector boundary are 4 sectors in 1 line") {
    // Bytes 0-127: sectors 0, 1, 2, 3 (32 bytes each), one 128-byte line.
    const GlobalAccessCost c = global_access_cost(strided(base, 4), all, 4);
    CHECK(c.sectors == 4);
    CHECK(c.lines == 1);
    CHECK(c.requested_bytes == 128);
}

TEST_CASE("global sectors: the same warp shifted by one float spills into a fifth sector and a "
          "second line") {
    // Bytes 4-131: sectors 0-4; lines 0 (sectors 0-3) and 1 (sector 4).
    const GlobalAccessCost c = global_access_cost(strided(base + 4, 4), all, 4);
    CHECK(c.sectors == 5);
    CHECK(c.lines == 2);
}

TEST_CASE("global sectors: lanes two floats apart use half of 8 sectors, a float per 32 bytes 32 "
          "sectors") {
    CHECK(global_access_cost(strided(base, 8), all, 4).sectors == 8);    // bytes 0-255
    CHECK(global_access_cost(strided(base, 32), all, 4).sectors == 32);  // one float in each sector
    CHECK(global_access_cost(strided(base, 32), all, 4).lines == 8);
    // A column of a 200-float-wide image: every lane in its own line.
    const GlobalAccessCost column = global_access_cost(strided(base, 800), all, 4);
    CHECK(column.sectors == 32);
    CHECK(column.lines == 32);
}

TEST_CASE("global sectors: a broadcast is one sector, inactive lanes ask for nothing") {
    const GlobalAccessCost b = global_access_cost(strided(base + 64, 0), all, 4);
    CHECK(b.sectors == 1);
    CHECK(b.requested_bytes == 128);  // asked for by 32 lanes, though 4 bytes are distinct
    const GlobalAccessCost half = global_access_cost(strided(base, 4), 0x0000ffffu, 4);
    CHECK(half.sectors == 2);  // lanes 0-15: bytes 0-63
    CHECK(half.requested_bytes == 64);
    CHECK(global_access_cost(strided(base, 4), 0, 4).sectors == 0);
}

TEST_CASE("global sectors: a warp of float4 loads moves 512 neighbouring bytes, 16 sectors, all of "
          "them needed") {
    const GlobalAccessCost c = global_access_cost(strided(base, 16), all, 16);
    CHECK(c.sectors == 16);
    CHECK(c.lines == 4);
    CHECK(c.requested_bytes == 512);  // 16 sectors x 32 bytes: every byte moved is used
}

TEST_CASE("constant cache: one request per distinct address among the active lanes") {
    CHECK(constant_access_requests(strided(0x1000, 0), all) == 1);   // a broadcast
    CHECK(constant_access_requests(strided(0x1000, 4), all) == 32);  // every lane its own word
    // lane % 8: 8 addresses, as a warp whose lanes work for 8 filters
    std::array<std::uint64_t, 32> eight{};
    for (int l = 0; l < 32; ++l) eight[std::size_t(l)] = 0x1000 + 4u * std::uint64_t(l % 8);
    CHECK(constant_access_requests(eight, all) == 8);
    CHECK(constant_access_requests(eight, 0x000000ffu) == 8);  // lanes 0-7
    CHECK(constant_access_requests(eight, 0x01010101u) == 1);  // lanes 0, 8, 16, 24: one address
    CHECK(constant_access_requests(eight, 0) == 0);
}

TEST_CASE(
    "shared wavefronts: consecutive words, a padded column and a broadcast are conflict-free") {
    CHECK(shared_access_cost(strided(0, 4), all, 4).wavefronts == 1);
    // tile[32][33]: a column is 33 words apart, banks (33 l) mod 32 = l: all different.
    CHECK(shared_access_cost(strided(0, 132), all, 4).wavefronts == 1);
    CHECK(shared_access_cost(strided(40, 0), all, 4).wavefronts == 1);
}

TEST_CASE("shared wavefronts: a column of a [32][32] tile is 32, lanes two words apart 2") {
    // 32 words apart: every lane in bank 0, each a different word.
    const SharedAccessCost column = shared_access_cost(strided(0, 128), all, 4);
    CHECK(column.wavefronts == 32);
    CHECK(column.ideal == 1);
    CHECK(column.conflicts() == 31);
    // Words 0, 2, ..., 62: lane l and lane l + 16 share bank 2l mod 32 with different words.
    CHECK(shared_access_cost(strided(0, 8), all, 4).wavefronts == 2);
}

TEST_CASE("shared wavefronts: 8- and 16-byte accesses run in 2 and 4 phases, each conflict-free "
          "when consecutive") {
    const SharedAccessCost d = shared_access_cost(strided(0, 8), all, 8);
    CHECK(d.wavefronts == 2);
    CHECK(d.ideal == 2);
    const SharedAccessCost q = shared_access_cost(strided(0, 16), all, 16);
    CHECK(q.wavefronts == 4);
    CHECK(q.ideal == 4);
}

namespace {

// A trace of one instruction per pc, with the counters given.
Trace trace_of(const std::vector<std::pair<std::string, PcCounters>>& pcs) {
    Trace t;
    for (const auto& [opcode, counters] : pcs) {
        PcInfo info;
        info.opcode = opcode;
        info.line = 1;
        t.pcs.push_back(info);
        t.per_pc.push_back(counters);
    }
    return t;
}

PcCounters request(std::uint64_t warp_executions, std::uint64_t sectors, std::uint64_t bytes) {
    PcCounters c;
    c.warp_executions = warp_executions;
    c.active_lanes = 32 * warp_executions;
    c.requests = warp_executions;
    c.sectors = sectors;
    c.requested_bytes = bytes;
    return c;
}

}  // namespace

TEST_CASE(
    "traffic: atom reads and writes, red writes, so atomicAdd(p, 0) and atomicExch are counted") {
    // ld 10 requests / 40 sectors; atom (atomicAdd(p, 0) used as a load) 10 / 40; red 5 / 20; st 10
    // / 40.
    PcCounters atom = request(10, 40, 1280), red = request(5, 20, 640);
    atom.atomics = 320;
    red.atomics = 160;
    const Figures f = analyze(trace_of({{"ld", request(10, 40, 1280)},
                                        {"atom", atom},
                                        {"red", red},
                                        {"st", request(10, 40, 1280)}}))
                          .total;
    CHECK(f.global_load_sectors == 40);  // ld alone
    CHECK(f.global_atomic_sectors == 60);
    CHECK(f.read_requests() == 20);  // ld + atom
    CHECK(f.read_sectors() == 80);
    CHECK(f.read_bytes() == 2560);
    CHECK(f.write_requests() == 25);  // st + atom + red
    CHECK(f.write_sectors() == 100);
    CHECK(f.write_bytes() == 3200);
    CHECK(f.global_atomics == 480);
}

TEST_CASE("divergence: divergent branches are counted, not averaged, lanes active is an average") {
    PcCounters branch;
    branch.warp_executions = 100;
    branch.active_lanes = 3200;
    branch.divergent_branches = 7;
    PcCounters half;  // a side of a split branch: 16 lanes each time
    half.warp_executions = 14;
    half.active_lanes = 14 * 16;
    const Figures f = analyze(trace_of({{"bra", branch}, {"add", half}})).total;
    CHECK(f.branches == 100);
    CHECK(f.divergent_branches == 7);
    CHECK(f.warp_instructions == 114);
    // (3200 + 224) / (32 x 114) = 3424 / 3648
    CHECK(f.branch_efficiency() == doctest::Approx(3424.0 / 3648.0));
}

TEST_CASE(
    "coalesced sectors: what a kernel whose warps take neighbouring elements of a row moves") {
    using cudalab::lessons::coalesced_sectors;
    // 100 floats in one row, 32 at a time: 128 + 128 + 128 + 16 bytes = 4 + 4 + 4 + 1 sectors.
    CHECK(coalesced_sectors(1, 100, 32) == 13);
    // Two rows of 16 floats, 16 at a time: each row 64 bytes on a sector boundary, 2 sectors.
    CHECK(coalesced_sectors(2, 16, 16) == 4);
    // Two rows of 12 floats (48 bytes), 16 at a time: row 0 is bytes 0-47 (sectors 0-1), row 1
    // bytes 48-95 (sectors 1-2): 2 + 2. A row that starts mid-sector costs every kernel that
    // sector.
    CHECK(coalesced_sectors(2, 12, 16) == 4);
    // 200 x 70 image, 32-wide warps: 6 segments of 4 sectors and one of 8 floats (1 sector) per
    // row.
    CHECK(coalesced_sectors(70, 200, 32) == 70 * 25);
    CHECK(coalesced_sectors(0, 100, 32) == 0);
}
