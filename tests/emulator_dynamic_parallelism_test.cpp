// Dynamic parallelism on the emulator (CUDA 12+ semantics): kernels compiled by NVRTC with
// -rdc=true launch kernels from device code. What a learner would notice: a child sees what its
// parent wrote and a later launch in the same stream what the earlier one wrote; a tail launch runs
// after the parent's other children; the nesting limit (24) and the pending-launch limit fail the
// launch with CUDA's error in the thread's cudaGetLastError; a fault in a child names the child's
// line and block and the parent thread that launched it. tests/programs/dynamic_parallelism.cu
// runs a whole program, on the emulated runtime and on a GPU.
#include "compiler/compiler.h"
#include "cudart/ptx_link.h"
#include "emulator/emu_backend.h"
#include "emulator/emulator.h"

#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

using namespace cudalab;

namespace {

const char* const source = R"(
__global__ void leaf(int* out, int slot, int value) { out[slot] = value; }  // LEAF

// Each level writes its depth and launches the next, until the launch fails.
__global__ void recurse(int* out, int depth) {
    out[depth] = depth + 1;
    recurse<<<1, 1>>>(out, depth + 1);
    out[100 + depth] = cudaGetLastError();
}

// Five launches into the NULL stream, each overwriting slot 0 and writing its own slot.
__global__ void many(int* out) {
    for (int i = 0; i < 5; ++i) {
        leaf<<<1, 1>>>(out, 0, i + 1);
        leaf<<<1, 1>>>(out, 20 + i, i + 1);
    }
    out[10] = cudaGetLastError();
    out[11] = cudaGetLastError();  // cleared by the first
}

// The tail launch is the last to write slot 0.
__global__ void tail(int* out) {
    leaf<<<1, 1, 0, cudaStreamTailLaunch>>>(out, 0, 7);
    leaf<<<1, 1, 0, cudaStreamFireAndForget>>>(out, 0, 5);
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    leaf<<<1, 1, 0, s>>>(out, 0, 6);
    cudaStreamDestroy(s);
}

// A copy and a fill in the NULL stream after a launch in it see what the child wrote.
__global__ void copies(int* out) {
    leaf<<<1, 1>>>(out, 0, 5);
    cudaMemcpyAsync(out + 1, out, sizeof(int), cudaMemcpyDeviceToDevice, 0);
    cudaMemsetAsync(out + 2, 1, 2, 0);
    cudaMemcpyAsync(out + 3, out + 1, 4000, cudaMemcpyDeviceToDevice, 0);  // past the buffer
}

__global__ void bad(int* out) {
    if (threadIdx.x == 1) leaf<<<2, 1>>>(nullptr, 3, 1);
}
)";

struct Run {
    LaunchResult result;
    std::vector<std::int32_t> out;
};

Run run(const std::string& kernel, std::uint32_t pending_limit = 2048) {
    static compiler::Compiler compiler;
    compiler::CompileOptions options;
    options.extra_options = {"-rdc=true"};
    const auto compiled = compiler.compile(source, "dp.cu", options);
    INFO(compiled->error_text());
    REQUIRE(compiled->ok);
    emu::EmulatorOptions emu_options;
    emu_options.device_pending_launch_limit = pending_limit;
    emu::EmuBackend backend(emu_options);
    REQUIRE(backend.load(compiled).ok());
    DevicePtr dout = 0;
    const std::size_t words = 256;
    REQUIRE(backend.allocate(words * 4, &dout).ok());
    Run r;
    r.out.assign(words, -1);
    REQUIRE(backend.copy_to_device(dout, r.out.data(), words * 4).ok());
    LaunchConfig config{Dim3{1, 1, 1}, Dim3{kernel == "bad" ? 2u : 1u, 1, 1}, 0};
    std::vector<KernelArg> args{KernelArg::of(dout)};
    if (kernel == "recurse") args.push_back(KernelArg::of(0));
    r.result = backend.launch(kernel, config, args, {});
    REQUIRE(backend.copy_to_host(r.out.data(), dout, words * 4).ok());
    return r;
}

}  // namespace

TEST_CASE("dynamic parallelism: launches nest 24 deep; the 25th fails with "
          "cudaErrorLaunchMaxDepthExceeded") {
    const Run r = run("recurse");
    INFO(r.result.status.message);
    REQUIRE(r.result.status.ok());
    // The host's grid is depth 0; grids of depth 1..24 run; the grid at depth 24 cannot launch.
    for (int depth = 0; depth <= 24; ++depth) {
        CHECK(r.out[std::size_t(depth)] == depth + 1);
        CHECK(r.out[std::size_t(100 + depth)] == (depth == 24 ? 65 : 0));
    }
    CHECK(r.out[25] == -1);
    // Every grid's instructions are the launch's.
    CHECK(r.result.stats.warp_instructions > 25 * 5);
}

TEST_CASE("dynamic parallelism: launches in one stream run in order, each after its parent") {
    const Run r = run("many");
    REQUIRE(r.result.status.ok());
    CHECK(r.out[0] == 5);
    for (int i = 0; i < 5; ++i) CHECK(r.out[std::size_t(20 + i)] == i + 1);
    CHECK(r.out[10] == 0);
}

TEST_CASE("dynamic parallelism: past the pending-launch limit a launch fails with "
          "cudaErrorLaunchPendingCountExceeded") {
    const Run r = run("many", 3);
    REQUIRE(r.result.status.ok());
    // Three launches fit: slot 0 twice (values 1, 2) and slot 20.
    CHECK(r.out[0] == 2);
    CHECK(r.out[20] == 1);
    CHECK(r.out[21] == -1);
    CHECK(r.out[10] == 69);
    CHECK(r.out[11] == 0);
}

TEST_CASE("dynamic parallelism: a tail launch runs after the grid's other children") {
    const Run r = run("tail");
    REQUIRE(r.result.status.ok());
    CHECK(r.out[0] == 7);
}

TEST_CASE("dynamic parallelism: cudaMemcpyAsync and cudaMemsetAsync in device code run in stream "
          "order; one past its buffer is an error naming the thread") {
    const Run r = run("copies");
    INFO(r.result.status.message);
    CHECK(r.out[0] == 5);
    CHECK(r.out[1] == 5);
    CHECK(std::uint32_t(r.out[2]) == 0xffff0101u);
    CHECK(r.out[3] == -1);
    REQUIRE_FALSE(r.result.status.ok());
    CHECK(r.result.status.message.find("cudaMemcpyAsync in device code of 4000 bytes") !=
          std::string::npos);
    CHECK(r.result.status.message.find("by thread (0,0,0) of block (0,0,0) of kernel 'copies'") !=
          std::string::npos);
}

TEST_CASE("dynamic parallelism: a fault in a child grid names its line, its block and the "
          "launching thread") {
    const Run r = run("bad");
    REQUIRE_FALSE(r.result.status.ok());
    const std::string& m = r.result.status.message;
    INFO(m);
    CHECK(m.find("dp.cu:2: error:") != std::string::npos);
    CHECK(m.find("in kernel 'leaf'") != std::string::npos);
    CHECK(m.find("block (0,0,0)") != std::string::npos);
    CHECK(m.find("launched from the device: by thread (1,0,0) of block (0,0,0) of kernel "
                 "'bad', nesting depth 1") != std::string::npos);
}

TEST_CASE("dynamic parallelism: a kernel launches a kernel of another translation unit (-rdc)") {
    // The first unit declares the kernel the second defines: the linked module keeps the
    // declaration ahead of the use of its address, as nvlink resolves it.
    static compiler::Compiler compiler;
    compiler::CompileOptions options;
    options.extra_options = {"-rdc=true"};
    const auto first = compiler.compile(R"(
extern __global__ void other(int* out, int value);
__global__ void parent(int* out) { other<<<1, 4>>>(out, 9); }
)",
                                        "first.cu", options);
    const auto second = compiler.compile(
        "__global__ void other(int* out, int value) { out[threadIdx.x] = value + threadIdx.x; }\n",
        "second.cu", options);
    INFO(first->error_text() << second->error_text());
    REQUIRE(first->ok);
    REQUIRE(second->ok);
    std::string error;
    const std::string linked = cudart::link_ptx({first->ptx, second->ptx}, &error);
    INFO(error);
    REQUIRE_FALSE(linked.empty());
    emu::Emulator e;
    REQUIRE(e.load(linked, "first.cu").ok());
    const std::uint64_t out = e.memory().allocate(16);
    const std::string parent = first->mangled_name("parent");
    const LaunchResult r = e.launch(parent, "parent", LaunchConfig{Dim3{1, 1, 1}, Dim3{1, 1, 1}, 0},
                                    {KernelArg::of(out)}, {});
    INFO(r.status.message);
    REQUIRE(r.status.ok());
    std::int32_t values[4] = {};
    REQUIRE(e.memory().copy_out(values, out, sizeof values));
    for (int i = 0; i < 4; ++i) CHECK(values[i] == 9 + i);
}
