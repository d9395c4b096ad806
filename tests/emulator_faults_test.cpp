// Every emulator diagnostic, each from a small faulty kernel (tests/data/kernels/faults/faults.cu):
// the message names the file and source line, the kernel, the block and the thread (or warp), says
// what happened and what to try; none of them crashes or hangs the program.
#include "compiler/compiler.h"
#include "emulator/emu_backend.h"
#include "emulator/emulator.h"

#include <doctest/doctest.h>

#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

using namespace cudalab;

namespace {

const std::string faults_file = std::string(CUDALAB_TEST_DATA) + "/kernels/faults/faults.cu";

// The line of the FAULT(name) marker in a fault kernel file.
std::uint32_t line_of(const std::string& name, const std::string& file = faults_file) {
    std::ifstream f(file);
    std::string text;
    for (std::uint32_t line = 1; std::getline(f, text); ++line)
        if (text.find("// FAULT(" + name + ")") != std::string::npos) return line;
    FAIL("no FAULT(" << name << ") marker in " << file);
    return 0;
}

std::string at_line(const std::string& name) {
    return faults_file + ":" + std::to_string(line_of(name)) + ": ";
}

struct FaultRun {
    LaunchResult result;
    std::string message;
};

// Launches one fault kernel with 2 blocks of 64 threads on in = 64 words, out = 64 words.
// `before` may change the setup (free a buffer, ...) before the launch.
FaultRun
run_fault(const std::string& kernel, emu::EmulatorOptions options = {},
          const std::function<void(emu::EmuBackend&, DevicePtr in, DevicePtr out)>& before = {},
          const std::string& file = faults_file) {
    static compiler::Compiler compiler;
    const auto compiled = compiler.compile_file(file);
    INFO(compiled->error_text());
    REQUIRE(compiled->ok);
    emu::EmuBackend backend(options);
    REQUIRE(backend.load(compiled).ok());
    DevicePtr in = 0, out = 0;
    REQUIRE(backend.allocate(64 * 4, &in).ok());
    REQUIRE(backend.allocate(64 * 4, &out).ok());
    std::vector<std::uint32_t> words(64);
    for (std::uint32_t i = 0; i < 64; ++i) words[i] = i * 2654435761u;
    REQUIRE(backend.copy_to_device(in, words.data(), 64 * 4).ok());
    if (before) before(backend, in, out);
    TraceOptions trace;
    trace.enabled = false;
    FaultRun r;
    r.result = backend.launch(kernel, LaunchConfig{Dim3{2, 1, 1}, Dim3{64, 1, 1}, 0},
                              {KernelArg::of(in), KernelArg::of(out)}, trace);
    r.message = r.result.status.message;
    return r;
}

// The parts every fault message has.
void check_fault(const FaultRun& r, const std::string& kernel, const std::string& marker,
                 const std::string& kind, const std::string& who,
                 const std::string& file = faults_file) {
    INFO(r.message);
    CHECK(r.result.status.code == StatusCode::kernel_fault);
    // file:line: error: what
    CHECK(r.message.rfind(file + ":" + std::to_string(line_of(marker, file)) + ": error: " + kind,
                          0) == 0);
    CHECK(r.message.find("in kernel '" + kernel + "'") != std::string::npos);
    CHECK(r.message.find("  block (0,0,0), " + who) != std::string::npos);
    // the source line is shown
    CHECK(r.message.find("// FAULT(" + marker + ")") != std::string::npos);
    CHECK(r.message.find("\n  try: ") != std::string::npos);
}

}  // namespace

TEST_CASE("out-of-bounds global load: the buffer, how far past its end, the first thread") {
    const FaultRun r = run_fault("oob_global_load");
    check_fault(r, "oob_global_load", "oob_global_load", "out-of-bounds load in global memory",
                "thread (4,0,0) (warp 0, lane 4)");
    CHECK(r.message.find("0 bytes past the end of 256-byte buffer") != std::string::npos);
    CHECK(r.message.find("if (i < n)") != std::string::npos);
}

TEST_CASE("out-of-bounds global store") {
    const FaultRun r = run_fault("oob_global_store");
    check_fault(r, "oob_global_store", "oob_global_store", "out-of-bounds store in global memory",
                "thread (32,0,0) (warp 1, lane 0)");
    CHECK(r.message.find("past the end of 256-byte buffer") != std::string::npos);
}

TEST_CASE("a null pointer is called one") {
    const FaultRun r = run_fault("null_pointer");
    check_fault(r, "null_pointer", "null_pointer", "out-of-bounds store in global memory",
                "thread (0,0,0)");
    CHECK(r.message.find("a null pointer") != std::string::npos);
}

TEST_CASE("out-of-bounds shared and local memory") {
    const FaultRun shared = run_fault("oob_shared");
    check_fault(shared, "oob_shared", "oob_shared", "out-of-bounds store in shared memory",
                "thread (32,0,0) (warp 1, lane 0)");
    CHECK(shared.message.find("the shared memory here is 256 bytes") != std::string::npos);
    const FaultRun local = run_fault("oob_local");
    check_fault(local, "oob_local", "oob_local", "out-of-bounds store in local memory",
                "thread (0,0,0)");
}

TEST_CASE("misaligned accesses in global and shared memory") {
    const FaultRun global = run_fault("misaligned_global");
    check_fault(global, "misaligned_global", "misaligned_global",
                "misaligned load in global memory", "thread (0,0,0)");
    CHECK(global.message.find("not a multiple of 4") != std::string::npos);
    const FaultRun shared = run_fault("misaligned_shared");
    check_fault(shared, "misaligned_shared", "misaligned_shared",
                "misaligned load in shared memory", "thread (0,0,0)");
}

TEST_CASE("use after free") {
    const FaultRun r =
        run_fault("use_after_free", {}, [](emu::EmuBackend& backend, DevicePtr in, DevicePtr) {
            REQUIRE(backend.release(in).ok());
        });
    check_fault(r, "use_after_free", "use_after_free", "use after free: load of global memory",
                "thread (0,0,0)");
    CHECK(r.message.find("which was freed") != std::string::npos);
}

TEST_CASE(
    "an endless loop hits the instruction budget, and the message says where the warps were") {
    emu::EmulatorOptions options;
    options.instruction_budget = 20000;
    const FaultRun r = run_fault("endless_loop", options);
    INFO(r.message);
    CHECK(r.result.status.code == StatusCode::kernel_fault);
    CHECK(r.message.find("error: instruction budget exhausted in kernel 'endless_loop'") !=
          std::string::npos);
    CHECK(r.message.find("more than 20000 warp instructions") != std::string::npos);
    CHECK(r.message.find("warp 0 at line " + std::to_string(line_of("endless_loop"))) !=
          std::string::npos);
    CHECK(r.message.find("warp 1 at line " + std::to_string(line_of("endless_loop"))) !=
          std::string::npos);
    CHECK(r.message.find("(threads (0,0,0) to (31,0,0))") != std::string::npos);
    CHECK(r.message.find("--budget") != std::string::npos);
}

TEST_CASE("a barrier that can never complete is a deadlock, not a hang") {
    const FaultRun r = run_fault("barrier_deadlock");
    INFO(r.message);
    CHECK(r.result.status.code == StatusCode::kernel_fault);
    CHECK(r.message.find("error: barrier deadlock in kernel 'barrier_deadlock'") !=
          std::string::npos);
    CHECK(r.message.find("warp 0 at line " + std::to_string(line_of("barrier_deadlock")) +
                         " (barrier 1)") != std::string::npos);
    CHECK(r.message.find("warp 1 at line") != std::string::npos);
    CHECK(r.message.find("  block (0,0,0), warp ") != std::string::npos);
}

TEST_CASE("warps meeting at different __syncthreads() calls") {
    const FaultRun r = run_fault("divergent_barrier");
    check_fault(r, "divergent_barrier", "divergent_barrier", "divergent __syncthreads()",
                "warp 1 (threads (32,0,0) to (63,0,0))");
    CHECK(r.message.find("line " + std::to_string(line_of("divergent_barrier_other"))) !=
          std::string::npos);
    // both source lines shown
    CHECK(r.message.find("// FAULT(divergent_barrier_other)") != std::string::npos);
}

TEST_CASE("a __syncthreads() inside a branch half of each warp takes: the threads that did not "
          "arrive are named") {
    const FaultRun r = run_fault("barrier_in_branch");
    // The barrier in the branch is the line reported; the threads named are those that went past
    // it.
    check_fault(r, "barrier_in_branch", "barrier_in_branch", "divergent __syncthreads()",
                "thread (16,0,0) (warp 0, lane 16) and 15 more threads of its warp");
    CHECK(r.message.find("a __syncthreads() inside a branch not taken by the whole block") !=
          std::string::npos);
    CHECK(r.message.find(
              "threads (0,0,0) to (15,0,0) of warp 0 reached the __syncthreads() of line " +
              std::to_string(line_of("barrier_in_branch"))) != std::string::npos);
    CHECK(r.message.find("threads (16,0,0) to (31,0,0) did not arrive there; they went on and "
                         "reached the __syncthreads() of line " +
                         std::to_string(line_of("barrier_in_branch_other"))) != std::string::npos);
    // both source lines shown
    CHECK(r.message.find("// FAULT(barrier_in_branch_other)") != std::string::npos);
    CHECK(r.message.find("move it out of the if") != std::string::npos);
}

TEST_CASE(
    "a __syncthreads() after some threads returned is fine: an exited thread counts as arrived") {
    const FaultRun r = run_fault("barrier_after_return");
    INFO(r.message);
    CHECK(r.result.status.ok());
}

TEST_CASE("a shared-memory race between warps names both source lines") {
    const FaultRun r = run_fault("shared_race");
    check_fault(r, "shared_race", "shared_race", "shared-memory race",
                "thread (32,0,0) (warp 1, lane 0)");
    CHECK(r.message.find("which warp 0 wrote at line " +
                         std::to_string(line_of("shared_race_other"))) != std::string::npos);
    CHECK(r.message.find("// FAULT(shared_race_other)") != std::string::npos);
    CHECK(r.message.find("__syncthreads()") != std::string::npos);
}

TEST_CASE("a race carried over a loop iteration says so, naming the barrier that only separates "
          "one pass") {
    const FaultRun r = run_fault("loop_carried_race");
    check_fault(r, "loop_carried_race", "loop_carried_race", "shared-memory race",
                "thread (32,0,0) (warp 1, lane 0)");
    CHECK(r.message.find("which warp 0 wrote at line " +
                         std::to_string(line_of("loop_carried_other")) +
                         " on its next pass round the loop") != std::string::npos);
    CHECK(r.message.find("the __syncthreads() at line " +
                         std::to_string(line_of("loop_carried_other") + 1)) != std::string::npos);
    CHECK(r.message.find("a race carried over a loop iteration") != std::string::npos);
    // The plain race (no loop) keeps its wording.
    CHECK(run_fault("shared_race").message.find("with no barrier in between") != std::string::npos);
}

TEST_CASE("an atomic update and a plain access by another warp with no barrier between is a race") {
    // Warp 1's atomicAdd comes after warp 0 read the counter (warp 0 runs first in the emulator).
    FaultRun r = run_fault("atomic_then_read");
    check_fault(r, "atomic_then_read", "atomic_then_read", "shared-memory race",
                "thread (32,0,0) (warp 1, lane 0)");
    CHECK(r.message.find("updates atomically") != std::string::npos);
    CHECK(r.message.find("which warp 0 read at line " +
                         std::to_string(line_of("atomic_then_read_other"))) != std::string::npos);
    // Warp 1 zeroes slots that warp 0 already updated atomically: both lines named.
    r = run_fault("write_then_atomic");
    check_fault(r, "write_then_atomic", "write_then_atomic", "shared-memory race",
                "thread (32,0,0) (warp 1, lane 0)");
    CHECK(r.message.find("which warp 0 updated atomically at line " +
                         std::to_string(line_of("write_then_atomic_other"))) != std::string::npos);
}

TEST_CASE("a read of uninitialised shared memory is a warning, once per line") {
    const FaultRun r = run_fault("uninitialised_shared");
    INFO(r.message);
    CHECK(r.result.status.ok());
    REQUIRE(r.result.warnings.size() == 1);
    const std::string& w = r.result.warnings[0];
    INFO(w);
    CHECK(
        w.rfind(at_line("uninitialised_shared") +
                    "warning: read of uninitialised shared memory in kernel 'uninitialised_shared'",
                0) == 0);
    CHECK(w.find("block (0,0,0), thread (32,0,0)") != std::string::npos);
}

TEST_CASE("a warp collective whose mask names lanes that returned") {
    const FaultRun r = run_fault("shuffle_after_return");
    check_fault(r, "shuffle_after_return", "shuffle_after_return", "shfl with absent lanes",
                "thread (1,0,0)");
    CHECK(r.message.find("__activemask()") != std::string::npos);
}

TEST_CASE("a failed assert() names the condition") {
    const FaultRun r = run_fault("failed_assert");
    INFO(r.message);
    check_fault(r, "failed_assert", "failed_assert", "assertion failed", "thread (");
    CHECK(r.message.find("assert(v % 7u != 3u) failed") != std::string::npos);
}

TEST_CASE("runaway recursion overflows the call stack") {
    emu::EmulatorOptions options;
    options.instruction_budget = 5'000'000;  // the overflow comes long before
    const FaultRun r = run_fault("stack_overflow", options);
    INFO(r.message);
    CHECK(r.result.status.code == StatusCode::kernel_fault);
    CHECK(r.message.find(
              at_line("runaway") +
              "error: call stack overflow in kernel 'stack_overflow' (in function runaway)") == 0);
}

TEST_CASE("an instruction the emulator does not implement is named, with its source line") {
    const FaultRun r = run_fault("unsupported_instruction");
    check_fault(r, "unsupported_instruction", "unsupported_instruction", "unsupported instruction",
                "warp 0");
    CHECK(r.message.find("atom.global.v2.f32.add") != std::string::npos);
}

TEST_CASE(
    "an instruction the emulator cannot read fails the kernels that reach it, not the module") {
    const std::string file = std::string(CUDALAB_TEST_DATA) + "/kernels/faults/unreadable.cu";
    compiler::Compiler compiler;
    const auto compiled = compiler.compile_file(file);
    REQUIRE(compiled->ok);
    emu::EmuBackend backend;
    const Status loaded = backend.load(compiled);
    INFO(loaded.message);
    REQUIRE(loaded.ok());
    DevicePtr in = 0, out = 0;
    REQUIRE(backend.allocate(64 * 8, &in).ok());
    REQUIRE(backend.allocate(64 * 4, &out).ok());
    std::vector<std::uint64_t> words(64);
    for (std::uint32_t i = 0; i < 64; ++i) words[i] = 300 + i;
    REQUIRE(backend.copy_to_device(in, words.data(), 64 * 8).ok());
    TraceOptions trace;
    trace.enabled = false;
    auto launch = [&](const std::string& kernel) {
        return backend.launch(kernel, LaunchConfig{Dim3{1, 1, 1}, Dim3{64, 1, 1}, 0},
                              {KernelArg::of(in), KernelArg::of(out)}, trace);
    };
    SUBCASE("the kernel that holds it: its source line, the PTX line, what, and what to try") {
        const LaunchResult r = launch("texture_fetch");
        INFO(r.status.message);
        CHECK(r.status.code == StatusCode::compile_error);
        CHECK(r.status.message.rfind(
                  file + ":" + std::to_string(line_of("texture_fetch", file)) +
                      ": error: the emulator cannot run this code in kernel 'texture_fetch': ptx:",
                  0) == 0);
        CHECK(r.status.message.find("multisample textures (.2dms) are not supported by the "
                                    "emulator (CUDA makes none): 'tex.2dms.v4.f32.s32'") !=
              std::string::npos);
        CHECK(r.status.message.find("--backend gpu") != std::string::npos);
        // The PTX line named is the instruction's.
        const std::size_t at = r.status.message.find("ptx:") + 4;
        const std::uint32_t ptx_line = std::uint32_t(std::stoul(r.status.message.substr(at)));
        std::istringstream ptx(compiled->ptx);
        std::string text;
        for (std::uint32_t i = 1; i <= ptx_line; ++i) std::getline(ptx, text);
        CHECK(text.find("tex.2dms.v4.f32.s32") != std::string::npos);
    }
    SUBCASE("a kernel that calls a function holding it names the kernel and the function") {
        const LaunchResult r = launch("calls_texture_fetch");
        INFO(r.status.message);
        CHECK(r.status.code == StatusCode::compile_error);
        CHECK(r.status.message.rfind(file + ":" + std::to_string(line_of("fetch_through", file)) +
                                         ": error: the emulator cannot run this code in kernel "
                                         "'calls_texture_fetch' (in function fetch_through): ptx:",
                                     0) == 0);
    }
    SUBCASE("the module's other kernels run") {
        const LaunchResult r = launch("plain_copy");
        INFO(r.status.message);
        REQUIRE(r.status.ok());
        std::vector<float> got(64);
        REQUIRE(backend.copy_to_host(got.data(), out, 64 * 4).ok());
        for (std::uint32_t i = 0; i < 64; ++i) CHECK(got[i] == float((300 + i) & 0xffu));
    }
}

TEST_CASE("a faulting launch reports the same fault every time, whatever the host threads do") {
    emu::EmulatorOptions options;
    options.worker_threads = 4;
    const std::string first = run_fault("oob_global_store", options).message;
    for (int i = 0; i < 5; ++i) CHECK(run_fault("oob_global_store", options).message == first);
}

// [SECTION] Accesses outside every buffer (issue 23) ---------------------------------------------

namespace {
const std::string bounds_file = std::string(CUDALAB_TEST_DATA) + "/kernels/faults/bounds.cu";
}

TEST_CASE("a negative index in every state space and operation is a fault, never host memory") {
    struct Case {
        const char* kernel;
        const char* kind;
        const char* detail;  // a part of the message that says where the access went
    };
    const Case cases[] = {
        // Lesson 10's crash: a shared atomicAdd one element before the array, whose offset (-4)
        // plus its size (4) wrapped round to 0 and passed the bounds check.
        {"shared_atomic_negative", "out-of-bounds atomic in shared memory",
         "4 bytes at offset -4 (4 bytes before its start)"},
        {"shared_red_negative", "out-of-bounds atomic in shared memory",
         "8 bytes at offset -8 (8 bytes before its start)"},
        {"shared_cas_negative", "out-of-bounds atomic in shared memory", "offset -4"},
        {"shared_store_negative", "out-of-bounds store in shared memory", "offset -4"},
        {"shared_vector_negative", "out-of-bounds load in shared memory", "16 bytes at offset -16"},
        {"generic_shared_negative", "out-of-bounds atomic in global memory",
         "just below the generic window of shared memory"},
        {"global_wrapping", "out-of-bounds atomic in global memory", "0xfffffffffffffffc"},
        {"global_store_wrapping", "out-of-bounds store in global memory", "0xfffffffffffffff8"},
        {"local_negative", "out-of-bounds store in local memory", "offset -4"},
        {"constant_negative", "out-of-bounds load in constant memory", "offset -4"},
        {"param_negative", "out-of-bounds load in kernel parameter memory",
         "4 bytes at offset -4 (4 bytes before its start)"},
        {"cp_async_negative", "out-of-bounds cp.async store in shared memory",
         "16 bytes at offset -16"},
        {"mbarrier_negative", "out-of-bounds mbarrier access in shared memory", "8 bytes"},
    };
    for (const Case& c : cases) {
        CAPTURE(std::string(c.kernel));
        const FaultRun r = run_fault(c.kernel, {}, {}, bounds_file);
        check_fault(r, c.kernel, c.kernel, c.kind, "thread (0,0,0)", bounds_file);
        INFO(r.message);
        CHECK(r.message.find(c.detail) != std::string::npos);
    }
}

TEST_CASE("a 128-bit load is refused as unsupported, not moved through a 64-bit value") {
    const FaultRun r = run_fault("wide_load", {}, {}, bounds_file);
    check_fault(r, "wide_load", "wide_load", "unsupported instruction", "warp 0", bounds_file);
    CHECK(r.message.find("128-bit loads and stores") != std::string::npos);
}

TEST_CASE("a call whose argument symbol lies outside the frame faults, never copies past it") {
    // Hand-written PTX (ptxas would refuse it; the emulator reads PTX as given): the call-site
    // argument is a .shared symbol 4 KB into shared memory, which as a frame offset lies far past
    // the thread's 32 bytes of local memory.
    const std::string ptx = R"(.version 8.0
.target sm_90
.address_size 64
.func (.param .b32 r) helper(.param .b64 v)
{
    .reg .b64 %rd<2>;
    .reg .b32 %r<2>;
    ld.param.b64 %rd1, [v];
    cvt.u32.u64 %r1, %rd1;
    st.param.b32 [r], %r1;
    ret;
}
.entry k(.param .u64 out)
{
    .reg .b64 %rd<3>;
    .reg .b32 %r<3>;
    .shared .align 8 .b8 pad[4096];
    .shared .align 8 .b64 sarg;
    .param .b32 ret;
    call.uni (ret), helper, (sarg);
    ld.param.b32 %r2, [ret];
    ld.param.u64 %rd1, [out];
    st.global.u32 [%rd1], %r2;
    ret;
}
)";
    emu::Emulator emulator;
    const Status loaded = emulator.load(ptx, "frame.ptx");
    INFO(loaded.message);
    REQUIRE(loaded.ok());
    const std::uint64_t out = emulator.memory().allocate(64, "out");
    TraceOptions trace;
    trace.enabled = false;
    const LaunchResult r = emulator.launch("k", "k", LaunchConfig{Dim3{1, 1, 1}, Dim3{32, 1, 1}, 0},
                                           {KernelArg::of(out)}, trace);
    INFO(r.status.message);
    CHECK(r.status.code == StatusCode::kernel_fault);
    CHECK(r.status.message.find("error: out-of-bounds parameter access in a call") !=
          std::string::npos);
    CHECK(r.status.message.find("8 bytes at frame offset 4096") != std::string::npos);
}
