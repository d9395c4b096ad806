// On a machine with an NVIDIA GPU: the driver backend, agreement with the emulator, occupancy
// agreement with the driver, faults survived, timed checks. (Skipped elsewhere, see main.cpp.)
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "analysis/occupancy.h"
#include "backends/factory.h"
#include "compiler/compiler.h"
#include "gpu/gpu_backend.h"
#include "lessons/course.h"
#include "lessons/data_lesson.h"
#include "runtime/runtime.h"

using namespace cudalab;

namespace {

std::unique_ptr<gpu::GpuBackend> open_gpu() {
    std::string why;
    auto g = gpu::GpuBackend::open(&why);
    REQUIRE_MESSAGE(g, why);
    return g;
}

}  // namespace

TEST_CASE("every lesson solution passes on the GPU and agrees with the emulator bit for bit") {
    lessons::Course course;
    REQUIRE(lessons::load_course(lessons::find_course_root(), &course).ok());
    compiler::Compiler compiler;
    // Kernel lessons only: a program lesson's solution is a whole program, which `cudalab check ID
    // --solution --backend gpu` runs with NVIDIA's runtime (scripts/device/part4-check.sh).
    // Every solution compiled before the driver starts (see the occupancy test).
    for (const auto& l : course.lessons)
        if (!l.is_program()) REQUIRE_MESSAGE(compiler.compile_file(l.solution_path)->ok, l.id);
    for (const auto& l : course.lessons) {
        if (l.is_program()) continue;
        CAPTURE(l.id);
        auto module = compiler.compile_file(l.solution_path);
        REQUIRE_MESSAGE(module->ok, module->error_text());
        auto backend = open_gpu();
        gpu::GpuBackend* g = backend.get();
        REQUIRE(g->load(module).ok());
        Runtime rt(std::move(backend));
        lessons::Session session(rt, module, 20261130);
        if (l.data) {
            // A data lesson: the solution on the GPU, the same solution on the emulator as the
            // oracle.
            lessons::Oracle oracle;
            Status st;
            std::string note;
            auto emu_backend = make_backend("emu", BackendOptions{}, &st, &note);
            REQUIRE_MESSAGE(emu_backend, st.message);
            REQUIRE(emu_backend->load(module).ok());
            oracle.runtime = std::make_unique<Runtime>(std::move(emu_backend));
            oracle.module = module;
            lessons::run_data_lesson(*l.data, session, oracle);
        } else {
            const lessons::HostSide* host = nullptr;
            for (const auto& h : lessons::registered_host_sides())
                if (h.id == l.id) host = &h;
            REQUIRE(host);
            host->run(session);
        }
        for (const auto& c : session.checks()) {
            CHECK_MESSAGE(c.passed, l.id << ": '" << c.name << "' fails on the GPU: " << c.message);
            if (c.timed) MESSAGE(l.id << ": " << c.name << ": " << c.message);
        }
        std::vector<std::string> differences = g->compare_with_shadow();
        for (const auto& d : differences) MESSAGE(l.id << ": GPU and emulator differ: " << d);
        // Integer lessons must agree exactly; float lessons whose solutions use only IEEE-exact
        // operations (add, mul, fma) too. Differences are listed above for docs/gpu.md.
        CHECK_MESSAGE(differences.empty(),
                      l.id << ": the GPU's outputs differ from the emulator's");
    }
}

TEST_CASE(
    "a tensor-core kernel runs on the GPU backend and its shadow emulator agrees bit for bit") {
    // `cudalab exec --backend gpu` runs every launch on the emulator first: a kernel of wmma,
    // ldmatrix and mma.sync is no longer refused there, and the two results are the same bits
    // (docs/emulator.md, "Tensor cores").
    auto g = open_gpu();
    compiler::Compiler compiler;
    auto module = compiler.compile(R"(
#include <mma.h>
using namespace nvcuda;
__global__ void tensor(const half* a, float* c) {
    __shared__ half s[256];
    for (int i = threadIdx.x; i < 256; i += 32) s[i] = a[i];
    __syncwarp();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.25f);
    wmma::load_matrix_sync(fa, s, 16);
    wmma::load_matrix_sync(fb, a + 256, 16);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::store_matrix_sync(c, acc, 16, wmma::mem_row_major);
    unsigned r[4];
    const unsigned p = unsigned(__cvta_generic_to_shared(s + (threadIdx.x % 16) * 16 + (threadIdx.x / 16) * 8));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]) : "r"(p));
    float d[4] = {1, 2, 3, 4};
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(r[0]), "r"(r[1]), "r"(r[2]), "r"(r[3]), "r"(r[2]), "r"(r[3]));
    for (int i = 0; i < 4; ++i) c[256 + threadIdx.x * 4 + i] = d[i];
}
)",
                                   "tensor.cu");
    REQUIRE_MESSAGE(module->ok, module->error_text());
    REQUIRE(g->load(module).ok());
    std::vector<std::uint16_t> a(512);
    std::uint32_t state = 1;
    for (auto& h : a) {
        state = state * 1664525u + 1013904223u;
        h = std::uint16_t((state >> 16 & 0x8000) | ((11 + (state >> 8) % 8) << 10) |
                          (state & 1023));
    }
    DevicePtr da, dc;
    REQUIRE(g->allocate(a.size() * 2, &da).ok());
    REQUIRE(g->allocate(384 * 4, &dc).ok());
    REQUIRE(g->copy_to_device(da, a.data(), a.size() * 2).ok());
    const LaunchResult r = g->launch("tensor", LaunchConfig{Dim3{1}, Dim3{32}, 0},
                                     {KernelArg::of(da), KernelArg::of(dc)}, TraceOptions{});
    REQUIRE_MESSAGE(r.status.ok(), r.status.message);
    const std::vector<std::string> differences = g->compare_with_shadow();
    for (const auto& d : differences) MESSAGE("GPU and emulator differ: " << d);
    CHECK(differences.empty());
}

TEST_CASE("theoretical occupancy agrees with cuOccupancyMaxActiveBlocksPerMultiprocessor") {
    lessons::Course course;
    REQUIRE(lessons::load_course(lessons::find_course_root(), &course).ok());
    // Compile every solution before the driver starts in this process: after cuInit, NVRTC's log
    // comes back without ptxas's -v report (seen with CUDA 13.0), so no register counts. The
    // architecture is sm_90 (H100/H200); another device is compared only if it is sm_90 too.
    const std::string arch = "sm_90";
    compiler::Compiler compiler;
    compiler::CompileOptions o;
    o.arch = arch;
    std::vector<std::pair<std::string, std::shared_ptr<const compiler::CompileResult>>> modules;
    for (const auto& l : course.lessons) {
        if (l.is_program()) continue;  // whole programs: nvcc's, not NVRTC's
        auto module = compiler.compile_file(l.solution_path, o);
        REQUIRE(module->ok);
        for (const auto& k : module->kernels)
            CHECK_MESSAGE(k.registers > 0, k.source_name << ": no register count from ptxas");
        modules.push_back({l.id, module});
    }
    auto g = open_gpu();
    if (g->device().arch() != arch) {
        MESSAGE("occupancy comparison skipped: the device is "
                << g->device().arch() << ", the kernels were built for " << arch);
        return;
    }
    const auto* limits = hw::arch_limits(arch);
    REQUIRE_MESSAGE(limits, "no occupancy limits for " << arch);
    int compared = 0;
    for (const auto& [id, module] : modules) {
        REQUIRE(g->load(module).ok());
        for (const auto& k : module->kernels) {
            for (unsigned threads : {64u, 128u, 256u, 512u, 1024u}) {
                if (k.max_threads_per_block && threads > unsigned(k.max_threads_per_block))
                    continue;
                LaunchConfig c{Dim3{1}, Dim3{threads}, 0};
                auto driver = g->max_active_blocks(k.source_name, c);
                REQUIRE(driver);
                auto model = analysis::theoretical_occupancy(*limits, int(threads), k.registers,
                                                             k.static_shared_bytes);
                CHECK_MESSAGE(model.blocks_per_sm == *driver,
                              id << " " << k.source_name << " at " << threads << " threads ("
                                 << k.registers << " registers, " << k.static_shared_bytes
                                 << " B shared): model " << model.blocks_per_sm << ", driver "
                                 << *driver);
                if (threads == 256)
                    MESSAGE(id << " " << k.source_name << ": " << k.registers << " registers, "
                               << k.static_shared_bytes << " B shared, 256 threads: model "
                               << model.blocks_per_sm << " blocks/SM ("
                               << std::string(analysis::to_string(model.limiter)) << "), driver "
                               << *driver);
                ++compared;
            }
        }
    }
    MESSAGE("compared " << compared << " kernel/block-size pairs on " << g->device().name);
}

// Runs in a process of its own (scripts/device/gpu-check.sh): an illegal address can leave the
// driver refusing all further work in the process that caused it.
TEST_CASE("an illegal address on the GPU is reported by name and the backend survives it" *
          doctest::skip(std::getenv("CUDALAB_GPU_FAULT_TEST") == nullptr)) {
    auto g = open_gpu();
    g->shadow_enabled = false;  // let the bad access reach the GPU
    compiler::Compiler compiler;
    auto module = compiler.compile(R"(
__global__ void poke(int* p, long long offset) { p[offset + threadIdx.x] = 1; }
__global__ void fill(int* p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] = 7; }
)",
                                   "gpu_fault.cu");
    REQUIRE(module->ok);
    REQUIRE(g->load(module).ok());
    DevicePtr p;
    REQUIRE(g->allocate(1024, &p).ok());
    LaunchResult bad =
        g->launch("poke", LaunchConfig{Dim3{1}, Dim3{32}, 0},
                  {KernelArg::of(p), KernelArg::of((long long)1 << 36)}, TraceOptions{});
    CHECK(bad.status.code == StatusCode::kernel_fault);
    CHECK(bad.status.message.find("CUDA_ERROR_ILLEGAL_ADDRESS") != std::string::npos);
    CHECK(bad.status.message.find("--backend emu") != std::string::npos);
    // Either the context was rebuilt and new work runs, or the backend says cleanly that the GPU is
    // unusable in this process. Never a crash or a hang.
    DevicePtr q;
    Status again = g->allocate(400, &q);
    if (!again.ok()) {
        CHECK(bad.status.message.find("a new run of cudalab can use the GPU again") !=
              std::string::npos);
        CHECK(again.code == StatusCode::backend_unavailable);
        MESSAGE("the driver refuses work in this process after the fault: " << again.message);
        return;
    }
    LaunchResult good = g->launch("fill", LaunchConfig{Dim3{1}, Dim3{128}, 0},
                                  {KernelArg::of(q), KernelArg::of(100)}, TraceOptions{});
    REQUIRE_MESSAGE(good.status.ok(), good.status.message);
    std::vector<int> out(100);
    REQUIRE(g->copy_to_host(out.data(), q, 400).ok());
    CHECK(out[99] == 7);
}

TEST_CASE("the device's peaks are measured and cached") {
    auto g = open_gpu();
    auto p = g->device_peak();
    REQUIRE(p);
    MESSAGE(g->description() << ": copy " << p->copy_bytes_per_second / 1e9 << " GB/s, FMA "
                             << p->fma_flops / 1e12 << " TFLOP/s"
                             << std::string(p->cached ? " (cached)" : ""));
    CHECK(p->copy_bytes_per_second > 1e11);
    CHECK(p->fma_flops > 1e12);
    auto again = g->device_peak();
    REQUIRE(again);
    CHECK(again->cached);
}
