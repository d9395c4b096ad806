// The emulator against a real GPU: every kernel of tests/data/kernels/manifest.txt, run from the
// committed PTX corpus (tests/data/ptx) on the inputs the manifest defines, compared with what an
// NVIDIA H200 (driver 580.159.04, CUDA 13.0) computed from the same PTX (tests/data/kernels/h200,
// written by run_on_gpu.cpp there). Kernels marked gpu=exact must agree bit for bit; gpu=approx
// within the error of the .approx instructions; gpu=order in everything but the order in which
// atomics handed out their results; gpu=printf in the printed text.
#include "emulator/emulator.h"

#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "data/kernels/kernel_manifest.h"

using namespace cudalab;

namespace {

const std::string test_data = CUDALAB_TEST_DATA;

std::string read_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream s;
    s << f.rdbuf();
    return s.str();
}

struct EmulatorRun {
    LaunchResult result;
    std::vector<std::uint32_t> out;
};

EmulatorRun run_on_emulator(const kernels::ManifestEntry& e) {
    emu::Emulator emulator;
    const Status loaded = emulator.load(read_file(test_data + "/ptx/" + e.stem() + ".ptx"),
                                        "tests/data/kernels/" + e.file);
    INFO(loaded.message);
    REQUIRE(loaded.ok());
    const auto input = kernels::input_words(e.in_words);
    const std::uint64_t in = emulator.memory().allocate(e.in_words * 4, "in");
    const std::uint64_t out = emulator.memory().allocate(e.out_words * 4, "out");
    REQUIRE(emulator.memory().copy_in(in, input.data(), e.in_words * 4));
    const std::vector<KernelArg> args{KernelArg::of(in), KernelArg::of(out)};
    TraceOptions trace;
    trace.enabled = false;
    if (!e.first.empty())
        REQUIRE(emulator
                    .launch(e.first, e.first, LaunchConfig{Dim3{1, 1, 1}, Dim3{32, 1, 1}, 0}, args,
                            trace)
                    .status.ok());
    EmulatorRun r;
    r.result = emulator.launch(e.kernel, e.kernel,
                               LaunchConfig{Dim3{e.grid.x, e.grid.y, e.grid.z},
                                            Dim3{e.block.x, e.block.y, e.block.z}, e.shared_bytes},
                               args, trace);
    INFO(r.result.status.message);
    REQUIRE(r.result.status.ok());
    r.out.resize(e.out_words);
    REQUIRE(emulator.memory().copy_out(r.out.data(), out, e.out_words * 4));
    return r;
}

// .approx results: the emulator computes them (nearly) exactly, the GPU within its documented error
// (docs/emulator.md): a few ulps, or an absolute error for sin/cos/lg2 near zero.
bool close_enough(std::uint32_t a, std::uint32_t b) {
    const float x = std::bit_cast<float>(a), y = std::bit_cast<float>(b);
    if (std::isnan(x) || std::isnan(y)) return std::isnan(x) && std::isnan(y);
    const std::uint32_t ulps = (a >> 31) == (b >> 31) ? (a > b ? a - b : b - a) : ~0u;
    return ulps <= 4 || std::fabs(double(x) - double(y)) <= 0x1p-19;
}

}  // namespace

TEST_CASE("the emulator computes what an H200 computes, kernel by kernel") {
    int compared = 0;
    for (const auto& e : kernels::read_manifest(test_data + "/kernels/manifest.txt")) {
        CAPTURE(e.kernel);
        const std::string golden_path =
            test_data + "/kernels/h200/" + e.kernel + (e.gpu == "printf" ? ".txt" : ".bin");
        const std::string golden = read_file(golden_path);
        REQUIRE_MESSAGE(!golden.empty(), "no GPU result "
                                             << golden_path
                                             << "; run tests/data/kernels/run_on_gpu.cpp on a GPU");
        const EmulatorRun r = run_on_emulator(e);
        ++compared;
        if (e.gpu == "printf") {
            CHECK(r.result.printf_output == golden);
            continue;
        }
        REQUIRE(golden.size() == e.out_words * 4);
        std::vector<std::uint32_t> gpu(e.out_words);
        std::memcpy(gpu.data(), golden.data(), golden.size());
        std::vector<std::uint32_t> emu = r.out;
        if (e.gpu == "order") {  // atomics hand out results in an order of their own
            std::sort(gpu.begin(), gpu.end());
            std::sort(emu.begin(), emu.end());
        }
        int mismatches = 0;
        std::ostringstream first;
        for (std::size_t i = 0; i < gpu.size(); ++i) {
            const bool same = e.gpu == "approx" ? close_enough(emu[i], gpu[i]) : emu[i] == gpu[i];
            if (same) continue;
            if (mismatches++ < 6)
                first << "  word " << i << ": emulator 0x" << std::hex << emu[i] << ", GPU 0x"
                      << gpu[i] << std::dec << "\n";
        }
        INFO(e.kernel << " (gpu=" << e.gpu << "): " << mismatches << " words differ\n"
                      << first.str());
        CHECK(mismatches == 0);
    }
    CHECK(compared >= 25);
}
