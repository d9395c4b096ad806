// The backend factory (engine/backends): every backend is made with its options, so a check's
// limits reach it whichever backend runs the check; the GPU backend passes them to its shadow
// emulator, which runs every launch first.
#include <doctest/doctest.h>

#include <filesystem>

#include "backends/factory.h"
#include "compiler/compiler.h"
#include "runtime/runtime.h"
#include "support.h"

using namespace cudalab;

namespace {

const std::string faults_file = std::string(CUDALAB_TEST_DATA) + "/kernels/faults/faults.cu";

// endless_loop (tests/data/kernels/faults/faults.cu) on `backend`: the launch's result.
LaunchResult run_endless_loop(Backend& backend) {
    static compiler::Compiler compiler;
    const auto compiled = compiler.compile_file(faults_file);
    INFO(compiled->error_text());
    REQUIRE(compiled->ok);
    REQUIRE(backend.load(compiled).ok());
    DevicePtr in = 0, out = 0;
    REQUIRE(backend.allocate(4, &in).ok());
    REQUIRE(backend.allocate(4 * 64, &out).ok());
    const unsigned zero = 0;
    REQUIRE(backend.copy_to_device(in, &zero, 4).ok());
    return backend.launch("endless_loop", LaunchConfig{Dim3{1}, Dim3{64}, 0},
                          {KernelArg::of(in), KernelArg::of(out)}, TraceOptions{});
}

}  // namespace

TEST_CASE(
    "make_backend builds every backend with the options given: the budget stops an endless loop") {
    BackendOptions options;
    options.instruction_budget = 20000;  // the default is 50 M: the message tells them apart
    // "gpu" without a GPU is refused; with one, its shadow emulator runs the launch first and
    // stops it at the same budget.
    for (const std::string name : {"emu", "auto", "gpu"}) {
        CAPTURE(name);
        Status status;
        std::string note;
        std::unique_ptr<Backend> backend = make_backend(name, options, &status, &note);
        if (!backend) {
            CHECK(name == "gpu");
            CHECK(status.code == StatusCode::backend_unavailable);
            continue;
        }
        const LaunchResult r = run_endless_loop(*backend);
        INFO(r.status.message);
        CHECK(r.status.code == StatusCode::kernel_fault);
        CHECK(r.status.message.find("more than 20000 warp instructions") != std::string::npos);
    }
}

TEST_CASE("make_backend: an unknown name is a usage error naming the choices") {
    Status status;
    CHECK(make_backend("tpu", BackendOptions{}, &status, nullptr) == nullptr);
    CHECK(status.code == StatusCode::bad_usage);
    CHECK(status.message.find("use emu, gpu or auto") != std::string::npos);
}

TEST_CASE(
    "the cuBLAS reference (lesson 08's peer) is the GPU backend's alone: elsewhere it says so") {
    Status status;
    std::unique_ptr<Backend> emu = make_backend("emu", BackendOptions{}, &status, nullptr);
    REQUIRE(emu);
    const TimedResult t = time_reference_sgemm(*emu, 64);
    CHECK(t.status.code == StatusCode::backend_unavailable);
    CHECK(t.status.message.find("needs a GPU") != std::string::npos);
}

TEST_CASE("--backend gpu on cudalab's emulated driver: the budget reaches the GPU backend's shadow "
          "emulator") {
    // The GPU backend loads libcuda.so.1 at run time; cudalab's emulated runtime is one
    // (build/cudart-emu), so the GPU backend's whole path runs here with no GPU. Its shadow
    // emulator runs the launch first: with the budget it was built with, the endless loop stops
    // after 20000 warp instructions (before, the shadow kept the default 50 M).
    const std::string driver_dir = CUDALAB_EMULATED_DRIVER_DIR;
    REQUIRE_MESSAGE(std::filesystem::exists(driver_dir + "/libcuda.so.1"),
                    driver_dir << " has no libcuda.so.1: build cudalab_cudart");
    const test_support::CommandResult r = test_support::run_command(
        "LD_LIBRARY_PATH='" + driver_dir + "' " + std::string(CUDALAB_CLI) + " exec " +
        faults_file +
        " --kernel endless_loop --grid 1 --block 64 --arg u32[1]:zeros --arg u32[64]:zeros"
        " --budget 20000 --backend gpu");
    INFO(r.output);
    CHECK(r.exit_code == 1);
    CHECK(r.output.find("running on NVIDIA H200 (cudalab emulated)") != std::string::npos);
    CHECK(r.output.find("more than 20000 warp instructions") != std::string::npos);
    CHECK(r.output.find("found by cudalab's emulator before running on the GPU") !=
          std::string::npos);
}
