// The emulator's detectors for what its lockstep warps and ordered blocks would otherwise hide:
// lanes of one warp exchanging data through shared memory with no __syncwarp (a race under
// independent thread scheduling, sm_70 and later), blocks writing or read-modify-writing the same
// global words, and reads that land in a buffer the launch was not given. Kernels:
// tests/data/kernels/races/races.cu.
#include "compiler/compiler.h"
#include "emulator/emu_backend.h"

#include <doctest/doctest.h>

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
LaunchResult run(const std::string& kernel, bool stale = false, std::vector<std::uint32_t>* out_words = nullptr,
                 bool traced = true, bool only_argument_buffers = true) {
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
    if (stale) args.push_back(KernelArg::of(int((in - old) / 4)));  // stale_read's `back`: old[0] onwards
    LaunchResult r = backend.launch(kernel, LaunchConfig{Dim3{2, 1, 1}, Dim3{64, 1, 1}, 0}, args, trace);
    if (out_words) {
        out_words->resize(64);
        REQUIRE(backend.copy_to_host(out_words->data(), out, 64 * 4).ok());
    }
    return r;
}

}  // namespace

TEST_CASE("warp-level race: a volatile warp-synchronous reduction without __syncwarp faults, naming both lanes") {
    const LaunchResult r = run("warp_volatile");
    INFO(r.status.message);
    CHECK(r.status.code == StatusCode::kernel_fault);
    CHECK(r.status.message.find(at("warp_volatile", "warp-level race in shared memory")) !=
          std::string::npos);
    // Lane 0 reads slot 16, which lane 16 wrote in the step before (`v[t] += v[t + 32]`).
    CHECK(r.status.message.find("lane 0 of warp 0 reads shared offset 64, which lane 16 of the same warp wrote") !=
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

TEST_CASE("warp-level race: a lane overwriting a slot another lane of its warp read, with no __syncwarp") {
    const LaunchResult r = run("warp_write_after_read");
    INFO(r.status.message);
    CHECK(r.status.code == StatusCode::kernel_fault);
    CHECK(r.status.message.find(at("warp_write_after_read", "warp-level race")) !=
          std::string::npos);
    // Lane 0 writes slot 0, which lane 31 read ((31 + 1) % 32 = 0).
    CHECK(r.status.message.find("lane 0 of warp 0 writes shared offset 0, which lane 31 of the same warp read") !=
          std::string::npos);
}

TEST_CASE("race between blocks: a plain read-modify-write of the same global words is reported, not a fault") {
    const LaunchResult r = run("blocks_plain_merge");
    INFO(r.first_global_race);
    CHECK(r.status.ok());  // the launch finishes; the lesson fails the launch's check
    CHECK(r.global_races > 0);
    CHECK(r.first_global_race.find(at("blocks_plain_merge", "race between blocks in global memory")) != std::string::npos);
    CHECK(r.first_global_race.find("block (1,0,0), thread (0,0,0) reads byte 0 of 256-byte buffer") != std::string::npos);
    CHECK(r.first_global_race.find("which block (0,0,0) wrote") != std::string::npos);
    CHECK(r.first_global_race.find("atomicAdd") != std::string::npos);
    // Untraced launches (the fast path of `cudalab exec`) do not look.
    CHECK(run("blocks_plain_merge", false, nullptr, false).global_races == 0);
}

TEST_CASE("race between blocks: an exchange that replaces another block's atomic update loses it") {
    const LaunchResult r = run("blocks_exchange_merge");
    INFO(r.first_global_race);
    CHECK(r.global_races > 0);
    CHECK(r.first_global_race.find(at("blocks_exchange_merge", "race between blocks in global memory")) != std::string::npos);
    CHECK(r.first_global_race.find("exchanges (atomicExch)") != std::string::npos);
    CHECK(r.first_global_race.find("the other block's update is lost") != std::string::npos);
}

TEST_CASE("race between blocks: atomics, a compare-and-swap loop, a lock and disjoint writes are not races") {
    for (const char* kernel : {"blocks_atomic_merge", "blocks_cas_max", "blocks_lock", "blocks_own_halves"}) {
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
    CHECK(r.status.message.find("which no parameter of this launch points into") != std::string::npos);
    // Whole programs follow pointers stored in memory, so outside lesson checks any buffer may be
    // read.
    CHECK(run("stale_read", true, nullptr, true, false).status.ok());
}
