// The runtime and trace as a lesson's host side uses them: allocate / copy / launch on the emulator
// backend, compact traces, deterministic results.
#include <doctest/doctest.h>

#include "compiler/compiler.h"
#include "emulator/emu_backend.h"
#include "runtime/runtime.h"

using namespace cudalab;

namespace {

std::shared_ptr<const compiler::CompileResult> compile(const std::string& src) {
    static compiler::Compiler c;
    auto r = c.compile(src, "runtime_test.cu");
    REQUIRE_MESSAGE(r->ok, r->error_text());
    return r;
}

const char* saxpy = R"(
__global__ void saxpy(float a, const float* x, float* y, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}
)";

}  // namespace

TEST_CASE("allocate, copy, launch and copy back through the Runtime") {
    Runtime rt(std::make_unique<emu::EmuBackend>());
    REQUIRE(rt.backend().load(compile(saxpy)).ok());
    const int n = 1000;
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; ++i) {
        x[i] = float(i);
        y[i] = 1.0f;
    }
    DeviceBuffer<float> dx, dy;
    REQUIRE(rt.allocate(n, &dx).ok());
    REQUIRE(rt.allocate(n, &dy).ok());
    REQUIRE(rt.upload(dx, x).ok());
    REQUIRE(rt.upload(dy, y).ok());
    LaunchResult r =
        rt.launch("saxpy", LaunchConfig{Dim3{3}, Dim3{128}, 0}, TraceOptions{}, 2.0f, dx, dy, n);
    REQUIRE_MESSAGE(r.status.ok(), r.status.message);
    std::vector<float> out;
    REQUIRE(rt.download(&out, dy).ok());
    for (int i = 0; i < n; ++i) CHECK(out[size_t(i)] == 2.0f * float(i) + 1.0f);
    CHECK(r.stats.thread_instructions > 0);
    REQUIRE(r.trace);
    CHECK(r.trace->detail_blocks.size() == 3);
}

TEST_CASE("a launch with the wrong arguments is refused with a clear message") {
    Runtime rt(std::make_unique<emu::EmuBackend>());
    REQUIRE(rt.backend().load(compile(saxpy)).ok());
    DeviceBuffer<float> dx;
    REQUIRE(rt.allocate(10, &dx).ok());
    LaunchResult r =
        rt.launch("saxpy", LaunchConfig{Dim3{1}, Dim3{32}, 0}, TraceOptions{}, 2.0f, dx);
    CHECK(r.status.code == StatusCode::bad_usage);
    CHECK(r.status.message.find("takes 4 parameters") != std::string::npos);
    r = rt.launch("no_such_kernel", LaunchConfig{Dim3{1}, Dim3{32}, 0}, TraceOptions{});
    CHECK(r.status.message.find("(it has: saxpy)") != std::string::npos);
    r = rt.launch("saxpy", LaunchConfig{Dim3{1}, Dim3{2048}, 0}, TraceOptions{}, 2.0f, dx, dx, 10);
    CHECK(r.status.message.find("limit is 1024") != std::string::npos);
}

TEST_CASE("a million-thread launch traces in well under 256 MB") {
    Runtime rt(std::make_unique<emu::EmuBackend>());
    REQUIRE(rt.backend().load(compile(saxpy)).ok());
    const int n = 1 << 20;
    DeviceBuffer<float> dx, dy;
    REQUIRE(rt.allocate(n, &dx).ok());
    REQUIRE(rt.allocate(n, &dy).ok());
    LaunchResult r = rt.launch("saxpy", LaunchConfig{Dim3{n / 256}, Dim3{256}, 0}, TraceOptions{},
                               2.0f, dx, dy, n);
    REQUIRE_MESSAGE(r.status.ok(), r.status.message);
    REQUIRE(r.trace);
    MESSAGE("trace of " << n << " threads: " << r.trace->memory_bytes() / 1024 << " KiB, "
                        << r.trace->events.size() << " detail events");
    CHECK(r.trace->memory_bytes() < 64u * 1024 * 1024);
    // Counters cover every block, details only the first few.
    std::uint64_t warp_instructions = 0;
    for (const auto& c : r.trace->per_pc) warp_instructions += c.warp_executions;
    CHECK(warp_instructions == r.stats.warp_instructions);
    CHECK(r.trace->detail_blocks.size() == 4);
}

TEST_CASE("results and counters are identical run to run") {
    auto run = [] {
        Runtime rt(std::make_unique<emu::EmuBackend>());
        REQUIRE(rt.backend().load(compile(saxpy)).ok());
        const int n = 50000;
        std::vector<float> x(n, 1.5f), y(n, 0.25f);
        DeviceBuffer<float> dx, dy;
        REQUIRE(rt.allocate(n, &dx).ok());
        REQUIRE(rt.allocate(n, &dy).ok());
        REQUIRE(rt.upload(dx, x).ok());
        REQUIRE(rt.upload(dy, y).ok());
        LaunchResult r = rt.launch("saxpy", LaunchConfig{Dim3{40}, Dim3{96}, 0}, TraceOptions{},
                                   3.0f, dx, dy, n);
        std::vector<float> out;
        REQUIRE(rt.download(&out, dy).ok());
        std::vector<std::uint64_t> sectors;
        for (const auto& c : r.trace->per_pc) sectors.push_back(c.sectors);
        return std::make_pair(out, sectors);
    };
    auto a = run(), b = run();
    CHECK(a.first == b.first);
    CHECK(a.second == b.second);
}
