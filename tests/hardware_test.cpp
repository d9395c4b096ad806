// The hardware limits and enumerated values, each written once (engine/base): pinned here with the
// published figures, so that a changed constant fails a test that names it rather than moving
// every grade a little. The grading rules' own figures are pinned in analysis_rules_test.cpp.
#include <doctest/doctest.h>

#include "analysis/occupancy.h"
#include "base/hardware.h"
#include "base/severity.h"
#include "compiler/compiler.h"
#include "emulator/emu_backend.h"

using namespace cudalab;

TEST_CASE("hardware: the memory geometry the grades count in (32-byte sectors, 128-byte lines, 32 "
          "banks of 4 bytes)") {
    // CUDA C++ Best Practices Guide: global memory is served in 32-byte sectors of 128-byte lines;
    // shared memory has 32 banks of 4-byte words. Every coalescing and bank-conflict figure a
    // lesson grades scales with these.
    CHECK(hw::sector_bytes == 32);
    CHECK(hw::line_bytes == 128);
    CHECK(hw::shared_banks == 32);
    CHECK(hw::bank_bytes == 4);
    CHECK(hw::warp_size == 32);
}

TEST_CASE("hardware: the launch limits of every architecture cudalab models") {
    CHECK(hw::max_threads_per_block == 1024);
    CHECK(hw::max_block_z == 64);
    CHECK(hw::max_grid_x == 2147483647u);
    CHECK(hw::max_grid_yz == 65535);
    CHECK(hw::constant_memory_bytes == 65536);
    CHECK(hw::max_local_bytes_per_thread == 512 * 1024);
    CHECK(hw::default_shared_per_block == 49152);
}

TEST_CASE("hardware: the sm_90 row (the emulated device) and the table's architectures") {
    const hw::ArchLimits* a = hw::arch_limits("sm_90");
    REQUIRE(a);
    CHECK(a == &hw::emulated);
    CHECK(a->max_blocks_per_sm == 32);
    CHECK(a->max_warps_per_sm == 64);
    CHECK(a->shared_per_sm == 233472);         // 228 KB
    CHECK(a->max_shared_per_block == 232448);  // 227 KB
    CHECK(a->registers_per_sm == 65536);
    CHECK(hw::arch_limits("sm_91") == nullptr);
    CHECK(hw::known_archs() == std::vector<std::string>{"sm_75", "sm_80", "sm_86", "sm_89", "sm_90",
                                                        "sm_100", "sm_120"});
}

TEST_CASE("hardware: the emulator holds a launch to the emulated architecture's shared memory, to "
          "the byte") {
    static compiler::Compiler compiler;
    const auto compiled = compiler.compile("extern \"C\" __global__ void k(float* p) {\n"
                                           "    extern __shared__ float s[];\n"
                                           "    s[threadIdx.x] = 1.0f;\n"
                                           "    p[threadIdx.x] = s[threadIdx.x];\n"
                                           "}\n",
                                           "hardware_test.cu");
    REQUIRE_MESSAGE(compiled->ok, compiled->error_text());
    emu::EmuBackend backend;
    REQUIRE(backend.load(compiled).ok());
    DevicePtr p = 0;
    REQUIRE(backend.allocate(4 * 32, &p).ok());
    const std::uint32_t limit = std::uint32_t(hw::emulated.max_shared_per_block);
    LaunchResult fits = backend.launch("k", LaunchConfig{Dim3{1}, Dim3{32}, limit},
                                       {KernelArg::of(p)}, TraceOptions{});
    CHECK_MESSAGE(fits.status.ok(), fits.status.message);
    LaunchResult over = backend.launch("k", LaunchConfig{Dim3{1}, Dim3{32}, limit + 1},
                                       {KernelArg::of(p)}, TraceOptions{});
    CHECK(over.status.code == StatusCode::bad_usage);
    CHECK(over.status.message.find("at most 232448 (227 KB)") != std::string::npos);
    LaunchResult wide = backend.launch("k", LaunchConfig{Dim3{1}, Dim3{1025}, 0},
                                       {KernelArg::of(p)}, TraceOptions{});
    CHECK(wide.status.message.find("the limit is 1024") != std::string::npos);
}

TEST_CASE("occupancy: the limiter is an enum with one spelling each") {
    using analysis::Limiter;
    CHECK(std::string(analysis::to_string(Limiter::warps)) == "warps per SM");
    CHECK(std::string(analysis::to_string(Limiter::blocks)) == "blocks per SM");
    CHECK(std::string(analysis::to_string(Limiter::registers)) == "registers");
    CHECK(std::string(analysis::to_string(Limiter::shared_memory)) == "shared memory");
    const hw::ArchLimits& a = hw::emulated;
    // 32-thread blocks: 64 warps would allow 64 blocks, the block limit is 32.
    CHECK(analysis::theoretical_occupancy(a, 32, 32, 0).limiter == Limiter::blocks);
    // 255 registers: 8160 per warp -> 2 warps per sub-partition, 8 warps, 1 block of 256 threads.
    CHECK(analysis::theoretical_occupancy(a, 256, 255, 0).limiter == Limiter::registers);
    // 100 KB of shared memory per block: 2 blocks per SM.
    const analysis::Occupancy shared = analysis::theoretical_occupancy(a, 256, 32, 100 * 1024);
    CHECK(shared.limiter == Limiter::shared_memory);
    CHECK(shared.blocks_per_sm == 2);
    CHECK(analysis::theoretical_occupancy(a, 1024, 32, 0).limiter == Limiter::warps);
    CHECK(shared.explain().find("limited by shared memory") != std::string::npos);
}

TEST_CASE("severity: one enum, one spelling, read back exactly") {
    for (Severity s : {Severity::error, Severity::warning, Severity::remark})
        CHECK(severity_from_string(to_string(s)) == s);
    CHECK(std::string(to_string(Severity::warning)) == "warning");
    CHECK_FALSE(severity_from_string("fatal"));
    CHECK_FALSE(severity_from_string("Error"));
}
