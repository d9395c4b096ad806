// The emulator's detectors for what its lockstep warps and ordered blocks would otherwise hide:
// lanes of one warp exchanging data through shared memory with no __syncwarp (a race under
// independent thread scheduling, sm_70 and later), blocks writing or read-modify-writing the same
// global words, and reads that land in a buffer the launch was not given. Kernels:
// tests/data/kernels/races/races.cu.
#include "compiler/compiler.h"
#include "emulator/emu_backend.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace cudalab;

namespace {

const std::string races_file = std::string(CUDALAB_TEST_DATA) + "/kernels/races/races.cu";

std::uint32_t line_of(const std::string& name) {
    std::ifstream f(races_file);
    std::string text;
    for (std::uint32_t line = 1; std::getline(f, text); ++line)
        if (text.find("// RACE(" + name + ")") != std::string::npos) return line;
    FAIL("no RACE(" << name << ") marker in " << races_file);
    return 0;
}

// ":LINE: error: WHAT", the start of a diagnostic at a RACE marker (built with a stream: GCC 12
// warns falsely about chained string additions here).
std::string at(const std::string& name, const std::string& what) {
    std::ostringstream o;
    o << ":" << line_of(name) << ": error: " << what;
    return o.str();
}

// 2 blocks of 64 threads; in = 64 words (i * 3 + 1), out = 64 zero words. With `stale`, a 256-byte
// buffer is allocated first and left out of the launch, whose third argument is how many words
// below `in` it starts.
LaunchResult run(const std::string& kernel, bool stale = false,
                 std::vector<std::uint32_t>* out_words = nullptr, bool traced = true,
                 bool only_argument_buffers = true) {
    static compiler::Compiler compiler;
    const auto compiled = compiler.compile_file(races_file);
    INFO(compiled->error_text());
    REQUIRE(compiled->ok);
    emu::EmulatorOptions options;
    options.only_argument_buffers = only_argument_buffers;  // as lesson checks run
    emu::EmuBackend backend(options);
    REQUIRE(backend.load(compiled).ok());
    DevicePtr old = 0, in = 0, out = 0;
    if (stale) REQUIRE(backend.allocate(64 * 4, &old).ok());
    REQUIRE(backend.allocate(64 * 4, &in).ok());
    REQUIRE(backend.allocate(64 * 4, &out).ok());
    std::vector<std::uint32_t> words(64), zeros(64, 0);
    for (std::uint32_t i = 0; i < 64; ++i) words[i] = i * 3 + 1;
    REQUIRE(backend.copy_to_device(in, words.data(), 64 * 4).ok());
    REQUIRE(backend.copy_to_device(out, zeros.data(), 64 * 4).ok());
    if (stale) REQUIRE(backend.copy_to_device(old, zeros.data(), 64 * 4).ok());
    TraceOptions trace;  // counters only, as lesson checks run (races between blocks need a trace)
    trace.enabled = traced;
    trace.auto_detail_blocks = 0;
    std::vector<KernelArg> args = {KernelArg::of(in), KernelArg::of(out)};
    if (stale)
        args.push_back(KernelArg::of(int((in - old) / 4)));  // stale_read's `back`: old[0] onwards
    LaunchResult r =
        backend.launch(kernel, LaunchConfig{Dim3{2, 1, 1}, Dim3{64, 1, 1}, 0}, args, trace);
    if (out_words) {
        out_words->resize(64);
        REQUIRE(backend.copy_to_host(out_words->data(), out, 64 * 4).ok());
    }
    return r;
}

}  // namespace

TEST_CASE("warp-level race: a volatile warp-synchronous reduction without __syncwarp faults, "
          "naming both lanes") {
    const LaunchResult r = run("warp_volatile");
    INFO(r.status.message);
    CHECK(r.status.code == StatusCode::kernel_fault);
    CHECK(r.status.message.find(at("warp_volatile", "warp-level race in shared memory")) !=
          std::string::npos);
    // Lane 0 reads slot 16, which lane 16 wrote in the step before (`v[t] += v[t + 32]`).
    CHECK(r.status.message.find(
              "lane 0 of warp 0 reads shared offset 64, which lane 16 of the same warp wrote") !=
          std::string::npos);
    CHECK(r.status.message.find("since Volta (sm_70)") != std::string::npos);
    CHECK(r.status.message.find("__syncwarp()") != std::string::npos);
    CHECK(r.status.message.find("__shfl_down_sync") != std::string::npos);
}

TEST_CASE("warp-level race: the same reduction with __syncwarp between reads and writes is clean") {
    std::vector<std::uint32_t> out;
    const LaunchResult r = run("warp_syncwarp", false, &out);
    INFO(r.status.message);
    CHECK(r.status.ok());
    std::uint32_t sum = 0;
    for (std::uint32_t i = 0; i < 64; ++i) sum += i * 3 + 1;
    CHECK(out[0] == sum);
    CHECK(out[1] == sum);
}

TEST_CASE("warp-level race: a lane overwriting a slot another lane of its warp read, with no "
          "__syncwarp") {
    const LaunchResult r = run("warp_write_after_read");
    INFO(r.status.message);
    CHECK(r.status.code == StatusCode::kernel_fault);
    CHECK(r.status.message.find(at("warp_write_after_read", "warp-level race")) !=
          std::string::npos);
    // Lane 0 writes slot 0, which lane 31 read ((31 + 1) % 32 = 0).
    CHECK(r.status.message.find(
              "lane 0 of warp 0 writes shared offset 0, which lane 31 of the same warp read") !=
          std::string::npos);
}

TEST_CASE("race between blocks: a plain read-modify-write of the same global words is reported, "
          "not a fault") {
    const LaunchResult r = run("blocks_plain_merge");
    INFO(r.first_global_race);
    CHECK(r.status.ok());  // the launch finishes; the lesson fails the launch's check
    CHECK(r.global_races > 0);
    CHECK(r.first_global_race.find(at(
              "blocks_plain_merge", "race between blocks in global memory")) != std::string::npos);
    CHECK(
        r.first_global_race.find("block (1,0,0), thread (0,0,0) reads byte 0 of 256-byte buffer") !=
        std::string::npos);
    CHECK(r.first_global_race.find("which block (0,0,0) wrote") != std::string::npos);
    CHECK(r.first_global_race.find("atomicAdd") != std::string::npos);
    // Untraced launches (the fast path of `cudalab exec`) do not look.
    CHECK(run("blocks_plain_merge", false, nullptr, false).global_races == 0);
}

TEST_CASE("race between blocks: an exchange that replaces another block's atomic update loses it") {
    const LaunchResult r = run("blocks_exchange_merge");
    INFO(r.first_global_race);
    CHECK(r.global_races > 0);
    CHECK(r.first_global_race.find(
              at("blocks_exchange_merge", "race between blocks in global memory")) !=
          std::string::npos);
    CHECK(r.first_global_race.find("exchanges (atomicExch)") != std::string::npos);
    CHECK(r.first_global_race.find("the other block's update is lost") != std::string::npos);
}

TEST_CASE("race between blocks: atomics, a compare-and-swap loop, a lock and disjoint writes are "
          "not races") {
    for (const char* kernel :
         {"blocks_atomic_merge", "blocks_cas_max", "blocks_lock", "blocks_own_halves"}) {
        const LaunchResult r = run(kernel);
        INFO(kernel << ": " << r.status.message << r.first_global_race);
        CHECK(r.status.ok());
        CHECK(r.global_races == 0);
    }
}

TEST_CASE("stale buffers: a read that lands in a buffer the launch was not given faults") {
    const LaunchResult r = run("stale_read", true);
    INFO(r.status.message);
    CHECK(r.status.code == StatusCode::kernel_fault);
    CHECK(r.status.message.find(at("stale_read", "out-of-bounds load in global memory")) !=
          std::string::npos);
    CHECK(r.status.message.find("which no parameter of this launch points into") !=
          std::string::npos);
    // Whole programs follow pointers stored in memory, so outside lesson checks any buffer may be
    // read.
    CHECK(run("stale_read", true, nullptr, true, false).status.ok());
}

namespace {

// As run(), with the emulator's options given (independent thread scheduling, budget).
LaunchResult run_with(const std::string& kernel, emu::EmulatorOptions options, bool traced,
                      std::vector<std::uint32_t>* out_words) {
    static compiler::Compiler compiler;
    const auto compiled = compiler.compile_file(races_file);
    INFO(compiled->error_text());
    REQUIRE(compiled->ok);
    emu::EmuBackend backend(options);
    REQUIRE(backend.load(compiled).ok());
    DevicePtr in = 0, out = 0;
    REQUIRE(backend.allocate(64 * 4, &in).ok());
    REQUIRE(backend.allocate(64 * 4, &out).ok());
    std::vector<std::uint32_t> words(64), zeros(64, 0);
    for (std::uint32_t i = 0; i < 64; ++i) words[i] = i * 3 + 1;
    REQUIRE(backend.copy_to_device(in, words.data(), 64 * 4).ok());
    REQUIRE(backend.copy_to_device(out, zeros.data(), 64 * 4).ok());
    TraceOptions trace;
    trace.enabled = traced;
    trace.auto_detail_blocks = 0;
    LaunchResult r = backend.launch(kernel, LaunchConfig{Dim3{2, 1, 1}, Dim3{64, 1, 1}, 0},
                                    {KernelArg::of(in), KernelArg::of(out)}, trace);
    if (out_words) {
        out_words->resize(64);
        REQUIRE(backend.copy_to_host(out_words->data(), out, 64 * 4).ok());
    }
    return r;
}

emu::EmulatorOptions scheduling(bool its, std::uint64_t seed = 1) {
    emu::EmulatorOptions o;
    o.independent_scheduling = its;
    o.scheduling_seed = seed;
    o.instruction_budget = 200000;
    return o;
}

}  // namespace

TEST_CASE("warp-level race in global memory: a lane reading what another lane of its warp stored, "
          "with no __syncwarp") {
    const LaunchResult r = run("warp_global_volatile");
    INFO(r.status.message);
    CHECK(r.status.code == StatusCode::kernel_fault);
    CHECK(r.status.message.find(at("warp_global_volatile", "warp-level race in global memory")) !=
          std::string::npos);
    // Lane 0 reads word 16 of block 0's part, which lane 16 stored in the statement before.
    CHECK(r.status.message.find("lane 0 of warp 0 reads byte 64 of 256-byte buffer") !=
          std::string::npos);
    CHECK(r.status.message.find("which lane 16 of the same warp wrote at line " +
                                std::to_string(line_of("warp_global_volatile") - 1)) !=
          std::string::npos);
    CHECK(r.status.message.find("__syncwarp()") != std::string::npos);
    // Untraced launches (`cudalab exec` without --trace, whole programs after their first
    // launches) do not look, and run it in lockstep.
    CHECK(run("warp_global_volatile", false, nullptr, false).status.ok());
}

TEST_CASE("warp-level race in global memory: with __syncwarp between the stores and the loads it "
          "is clean") {
    std::vector<std::uint32_t> out;
    const LaunchResult r = run("warp_global_syncwarp", false, &out);
    INFO(r.status.message);
    CHECK(r.status.ok());
    for (std::uint32_t t = 0; t < 16; ++t) {
        const std::uint32_t own = (t * 3 + 1) + ((t + 32) * 3 + 1),
                            other = ((t + 16) * 3 + 1) + ((t + 48) * 3 + 1);
        CHECK(out[t] == own + other);
        CHECK(out[32 + t] == own + other);
    }
}

TEST_CASE(
    "independent thread scheduling: lanes of one warp handing a flag back and forth both finish") {
    // In lockstep the path that runs first spins until the budget stops it.
    const LaunchResult lockstep = run_with("its_handoff", scheduling(false), false, nullptr);
    CHECK(lockstep.status.code == StatusCode::kernel_fault);
    CHECK(lockstep.status.message.find("instruction budget exhausted") != std::string::npos);
    for (std::uint64_t seed : {1u, 2u, 3u, 4u}) {
        std::vector<std::uint32_t> out;
        const LaunchResult r = run_with("its_handoff", scheduling(true, seed), false, &out);
        INFO("seed " << seed << ": " << r.status.message);
        CHECK(r.status.ok());
        CHECK(out[0] == 43u);
        CHECK(out[1] == 7u);
    }
}

TEST_CASE(
    "independent thread scheduling: paths spinning round a branch of their own still hand over") {
    for (std::uint64_t seed : {1u, 2u, 3u, 4u, 5u}) {
        std::vector<std::uint32_t> out;
        const LaunchResult r =
            run_with("its_spin_with_branch", scheduling(true, seed), false, &out);
        INFO("seed " << seed << ": " << r.status.message);
        CHECK(r.status.ok());
        std::uint32_t sum = 0;
        for (std::uint32_t k = 0; k < 50; ++k) sum += k * 3 + 1;
        CHECK(out[40] == sum);
    }
}

TEST_CASE("independent thread scheduling: the paths of a branch take turns, the same for a seed "
          "every time") {
    auto tickets = [](bool its, std::uint64_t seed) {
        std::vector<std::uint32_t> out;
        const LaunchResult r = run_with("its_tickets", scheduling(its, seed), true, &out);
        INFO(r.status.message);
        CHECK(r.status.ok());
        out.resize(16);
        return out;
    };
    // Lockstep: one path takes tickets 0-7 in order, the other 8-15.
    const std::vector<std::uint32_t> lockstep = tickets(false, 1);
    const bool first_path_first = lockstep[0] == 0;
    for (std::uint32_t k = 0; k < 8; ++k) {
        CHECK(lockstep[k] == (first_path_first ? k : 8 + k));
        CHECK(lockstep[8 + k] == (first_path_first ? 8 + k : k));
    }
    int interleaved = 0;
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        const std::vector<std::uint32_t> a = tickets(true, seed);
        CHECK(a == tickets(true, seed));  // deterministic for a seed
        // Every ticket taken once, each path's in increasing order.
        std::vector<std::uint32_t> sorted = a;
        std::sort(sorted.begin(), sorted.end());
        for (std::uint32_t k = 0; k < 16; ++k) CHECK(sorted[k] == k);
        for (std::uint32_t k = 1; k < 8; ++k) {
            CHECK(a[k] > a[k - 1]);
            CHECK(a[8 + k] > a[8 + k - 1]);
        }
        // Interleaved: neither path holds a run of 8 consecutive tickets.
        if (a[7] - a[0] != 7 || a[15] - a[8] != 7) ++interleaved;
    }
    CHECK(interleaved >= 3);
    // Counters do not change: the same instructions run with the same lanes.
    const LaunchResult plain = run_with("its_tickets", scheduling(false), true, nullptr);
    const LaunchResult turns = run_with("its_tickets", scheduling(true, 5), true, nullptr);
    CHECK(plain.stats.warp_instructions == turns.stats.warp_instructions);
    CHECK(plain.stats.thread_instructions == turns.stats.thread_instructions);
}

TEST_CASE("independent thread scheduling: the lockstep reductions still fault, the safe forms "
          "still pass") {
    CHECK(run_with("warp_volatile", scheduling(true, 7), true, nullptr)
              .status.message.find("warp-level race in shared memory") != std::string::npos);
    CHECK(run_with("warp_global_volatile", scheduling(true, 7), true, nullptr)
              .status.message.find("warp-level race in global memory") != std::string::npos);
    for (const char* kernel : {"warp_syncwarp", "warp_global_syncwarp", "blocks_atomic_merge",
                               "blocks_cas_max", "blocks_lock"}) {
        std::vector<std::uint32_t> lockstep, turns;
        const LaunchResult a = run_with(kernel, scheduling(false), true, &lockstep);
        const LaunchResult b = run_with(kernel, scheduling(true, 3), true, &turns);
        INFO(kernel << ": " << a.status.message << b.status.message);
        CHECK(a.status.ok());
        CHECK(b.status.ok());
        CHECK(lockstep == turns);
    }
}
