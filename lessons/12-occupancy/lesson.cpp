// Lesson 12 — occupancy: the host side.
//
// `layer` (exercises/12-occupancy.cu) is a small fully connected layer, one thread per sample: 48
// sums per thread in registers, the 256 x 48 weights staged in shared memory. The learner chooses
// the block size (`__device__ int block_size = ...;`, read from the compiled module), how much of
// the weights a block stages at a time, and __launch_bounds__.
//
// First the launch itself: block_size must be a whole number of warps, at most 1024 and at most
// the kernel's __launch_bounds__; and one block must fit on an SM (registers x threads, shared
// memory), or a GPU refuses the launch with cudaErrorLaunchOutOfResources. Then the outputs at
// that block size, against a CPU reference. Then two deterministic checks from ptxas's resource
// usage for sm_90 (the compile step reports it; no GPU needed): theoretical occupancy at least
// 50%, with the limiting resource and the arithmetic in the message; and no register spills (an
// occupancy bought by capping registers below what the kernel needs is paid for in local-memory
// traffic). On a GPU, the driver's own occupancy figure and a timed run are logged.
// Anatomy: resources -> launch configuration -> CPU reference -> launch -> validate -> occupancy.
#include "lessons/lesson.h"

#include "analysis/occupancy.h"
#include "compiler/compiler.h"

#include <cstddef>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace cudalab;
using namespace cudalab::lessons;

constexpr int kFeatures = 256;                         // IN in the kernel
constexpr int kOutputs = 48;                           // OUT in the kernel
constexpr std::string_view kArch = hw::emulated_arch;  // the architecture the emulator models
constexpr std::uint32_t kDynamicShared = 0;            // the host passes no dynamic shared memory

// Theoretical occupancy asked for: half of the SM's 64 warp slots. With 48 sums per thread the
// kernel cannot go much higher without spilling (75% would leave 40 registers per thread); 50% is
// where a kernel like this one usually has enough warps to cover the latency of its loads.
constexpr double kMinOccupancy = 0.50;

// Register spills (bytes stored to and loaded from local memory, from ptxas) allowed: none.
constexpr double kMaxSpillBytes = 0;

// CPU reference in double. Each output adds 256 float products in k order, rounding in float:
// errors of a few 1e-6; 1e-6 per term leaves a wide margin, and a row of w missed or counted
// twice is off by ~0.3.
std::vector<float> cpu_layer(const std::vector<float>& x, const std::vector<float>& w, int n) {
    std::vector<float> y(std::size_t(kOutputs) * std::size_t(n));
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < kOutputs; ++j) {
            double sum = 0;
            for (int k = 0; k < kFeatures; ++k)
                sum += double(x[std::size_t(k) * n + i]) * double(w[std::size_t(k) * kOutputs + j]);
            y[std::size_t(j) * n + i] = float(sum);
        }
    return y;
}

int round_up(int v, int unit) { return (v + unit - 1) / unit * unit; }

// block_size, read from the learner's compiled file, checked as cudaLaunchKernel would check it.
// Returns 0 (after a failed check) when it cannot be launched at all.
int checked_block_size(Session& s, const compiler::KernelResources* kernel) {
    CheckResult c;
    c.name = "block size";
    c.kind = CheckKind::correctness;
    const std::optional<long long> value = s.module_integer("block_size");
    if (!value) {
        c.message = "the file defines no `__device__ int block_size = ...;` for the host to read";
        c.advice = "Keep the line `__device__ int block_size = 256;` (any whole number of warps) "
                   "at file scope.";
    } else if (*value < 32 || *value > 1024 || *value % 32 != 0) {
        c.value = double(*value);
        c.message =
            "block_size = " + std::to_string(*value) +
            ": a block must have 1 to 1024 threads, and a block that is not a whole number of "
            "warps leaves lanes of its last warp idle";
        c.advice = "Choose a multiple of 32 from 32 to 1024.";
    } else if (kernel && kernel->max_threads_per_block > 0 &&
               *value > kernel->max_threads_per_block) {
        c.value = double(*value);
        c.message = "block_size = " + std::to_string(*value) +
                    " but the kernel's __launch_bounds__ allows at most " +
                    std::to_string(kernel->max_threads_per_block) +
                    " threads per block: a GPU refuses the launch (the registers were fitted to "
                    "the smaller block)";
        c.advice =
            "Make the first argument of __launch_bounds__ at least block_size (equal is usual).";
    } else {
        c.passed = true;
        c.message = "block_size = " + std::to_string(*value) + ": " + std::to_string(*value / 32) +
                    " warps";
    }
    const bool ok = c.passed;
    s.add_check(std::move(c));
    return ok ? int(*value) : 0;
}

// The arithmetic of the four limits, in words.
std::string occupancy_arithmetic(const hw::ArchLimits& a, const analysis::Occupancy& o, int threads,
                                 int registers, int shared) {
    const int warps = (threads + 31) / 32;
    std::ostringstream m;
    m << "blocks of " << threads << " threads (" << warps << (warps == 1 ? " warp" : " warps")
      << "), " << registers << " registers per thread, " << shared
      << " bytes of shared memory per block on " << a.name << ": warps allow " << o.limit_by_warps
      << " blocks per SM (" << a.max_warps_per_sm << " / " << warps << "), the block limit "
      << o.limit_by_blocks << ", registers " << o.limit_by_registers;
    if (registers > 0) {
        // As analysis/occupancy.cpp counts them: per warp in units of 256, and a warp's registers
        // must fit in one of the register file's 4 sub-partitions.
        const int per_warp = round_up(registers * 32, a.register_unit);
        const int per_quarter = (a.registers_per_sm / 4) / per_warp;
        m << " (" << registers << " x 32 = " << per_warp << " registers per warp, " << per_quarter
          << " warps in each of the 4 sub-partitions of " << a.registers_per_sm / 4 << ", "
          << per_quarter * 4 << " warps)";
    }
    m << ", shared memory " << o.limit_by_shared;
    if (shared > 0) {
        const int rounded = round_up(shared, a.shared_granularity);
        m << " (" << rounded << " + " << a.reserved_shared_per_block
          << " reserved = " << rounded + a.reserved_shared_per_block << " bytes per block, "
          << a.shared_per_sm << " per SM)";
    }
    m << " -> " << o.explain();
    return m.str();
}

std::string occupancy_advice(const hw::ArchLimits& a, const analysis::Occupancy& o) {
    if (o.limiter == analysis::Limiter::shared_memory)
        return "Each block's shared buffer is paid for once per block, however many threads "
               "share it: bigger blocks bring more warps per kilobyte (raise block_size), or a "
               "smaller buffer (stage w in chunks: a smaller CHUNK) lets more blocks fit.";
    const std::string regs = std::to_string(a.registers_per_sm);
    const std::string warps = std::to_string(a.max_warps_per_sm);
    if (o.limiter == analysis::Limiter::registers)
        return "Registers are allocated per warp (registers per thread x 32, in units of " +
               std::to_string(a.register_unit) + ") out of " + regs +
               " per SM. __launch_bounds__(THREADS, MIN_BLOCKS) makes ptxas fit MIN_BLOCKS "
               "blocks of THREADS threads: at most " +
               regs +
               " / (THREADS x MIN_BLOCKS) registers per thread. Ask for no more than the kernel "
               "can do without spilling.";
    if (o.limiter == analysis::Limiter::blocks)
        return "An SM holds at most " + std::to_string(a.max_blocks_per_sm) +
               " blocks: blocks this small cannot fill its " + warps +
               " warp slots. Use bigger blocks.";
    return "Raise block_size so that whole blocks fill more of the SM's " + warps + " warp slots.";
}

using Outcome = LaunchOutcome;

Outcome layer_and_check(Session& s, int n, int block_size) {
    const std::vector<float> x = s.random_floats(std::size_t(kFeatures) * std::size_t(n));
    const std::vector<float> w = s.random_floats(std::size_t(kFeatures) * kOutputs);
    auto dx = s.to_device(x);
    auto dw = s.to_device(w);
    auto dy = s.alloc<float>(std::size_t(kOutputs) * std::size_t(n));  // NaN until written

    const unsigned blocks = unsigned((n + block_size - 1) / block_size);
    Outcome outcome = s.launch_outcome("layer", Dim3{blocks}, Dim3{unsigned(block_size)},
                                       kDynamicShared, dx, dw, dy, n);
    if (!outcome.launched) return outcome;

    auto where = [n, block_size](std::size_t index) {
        const std::size_t j = index / std::size_t(n), i = index % std::size_t(n);
        return "y[" + std::to_string(j) + "][" + std::to_string(i) + "] (output " +
               std::to_string(j) + " of sample " + std::to_string(i) + ": block " +
               std::to_string(i / std::size_t(block_size)) + ", thread " +
               std::to_string(i % std::size_t(block_size)) + ")";
    };
    // The name leaves the block size out: it is the learner's choice, and every submission gets
    // checks of the same names.
    const std::string name = "layer, n = " + std::to_string(n) + " samples";
    s.log().push_back(name + ": " + std::to_string(blocks) +
                      (blocks == 1 ? " block of " : " blocks of ") + std::to_string(block_size));
    outcome.correct =
        s.check_close(name, dy, cpu_layer(x, w, n), Tolerance{1e-6 * kFeatures, 1e-6}, where);
    s.check_shared_initialised(
        name,
        "Every row of the chunk must be staged before any thread reads it: the staging loop has to "
        "cover all CHUNK x OUT floats for any block size (step by blockDim.x), and every thread, "
        "even one past n, must reach both __syncthreads().");
    return outcome;
}

// On a GPU: the driver's occupancy figure for the same kernel and block, and a timed run to compare
// block sizes by (a log line, not a check: the time depends on much more than occupancy).
void log_gpu_figures(Session& s, int block_size, const analysis::Occupancy& o) {
    if (auto driver = s.runtime().backend().max_active_blocks(
            "layer", LaunchConfig{Dim3{1}, Dim3{unsigned(block_size)}, kDynamicShared})) {
        s.log().push_back(
            "the driver (cuOccupancyMaxActiveBlocksPerMultiprocessor): " + std::to_string(*driver) +
            " blocks per SM; the model: " + std::to_string(o.blocks_per_sm) +
            (*driver == o.blocks_per_sm ? " (they agree)" : " (they DISAGREE: please report)"));
    }
    if (!s.has_timing()) return;
    constexpr int kBig = 1 << 18;  // 262144 samples: 1024 blocks of 256, several per SM on any GPU
    auto x = s.to_device(std::vector<float>(std::size_t(kFeatures) * kBig, 1.0f / kFeatures));
    auto w = s.to_device(s.random_floats(std::size_t(kFeatures) * kOutputs));
    auto y = s.alloc<float>(std::size_t(kOutputs) * kBig);
    const unsigned blocks = unsigned((kBig + block_size - 1) / block_size);
    auto t = s.time_kernel("layer", Dim3{blocks}, Dim3{unsigned(block_size)}, kDynamicShared, x, w,
                           y, kBig);
    if (!t || t->median_seconds <= 0) return;
    const double flops = 2.0 * kFeatures * kOutputs * double(kBig);
    char line[256];
    std::snprintf(line, sizeof line,
                  "on the GPU, n = %d samples in blocks of %d (%.0f%% theoretical occupancy): "
                  "%.3f ms, %.2f TFLOP/s (median of %d runs); try other block sizes and compare",
                  kBig, block_size, o.occupancy * 100, t->median_seconds * 1e3,
                  flops / t->median_seconds / 1e12, t->repeats);
    s.log().push_back(line);
}

void run(Session& s) {
    const hw::ArchLimits* arch = hw::arch_limits(kArch);
    const compiler::KernelResources* kernel = s.module().kernel("layer");
    const int block_size = checked_block_size(s, kernel);
    if (block_size == 0) return;
    if (!kernel || !arch) {
        CheckResult c;
        c.name = "kernel `layer`";
        c.value = 1;
        c.message =
            "the compiled file has no kernel named `layer`, so there is nothing to launch and no "
            "resource usage to read";
        c.advice = "Keep the exercise's kernel: __global__ void layer(const float* x, const float* "
                   "w, float* y, int n).";
        s.add_check(std::move(c));
        return;
    }
    const int registers = kernel->registers;
    const int shared = kernel->static_shared_bytes + int(kDynamicShared);
    const analysis::Occupancy o =
        analysis::theoretical_occupancy(*arch, block_size, registers, shared);
    const std::string arithmetic = occupancy_arithmetic(*arch, o, block_size, registers, shared);

    // 1. One block must fit on an SM, or the GPU refuses the launch.
    {
        CheckResult c;
        c.name = "one block fits on an SM";
        c.kind = CheckKind::correctness;
        const long long block_registers =
            (long long)block_size / 32 * round_up(registers * 32, arch->register_unit);
        std::ostringstream m;
        m << "a block of " << block_size << " threads uses " << block_registers << " of the SM's "
          << arch->registers_per_sm << " registers and " << shared
          << " bytes of shared memory (at most " << arch->max_shared_per_block << " per block)";
        c.passed = o.blocks_per_sm >= 1;
        if (!c.passed) {
            c.value = 1;
            m << ": it does not fit, and on a GPU the launch fails with "
                 "cudaErrorLaunchOutOfResources (\"too many resources requested for "
                 "launch\")";
            c.advice =
                o.limit_by_registers == 0
                    ? "Fewer threads per block, or fewer registers per thread: __launch_bounds__(" +
                          std::to_string(block_size) + ") lets ptxas fit " +
                          std::to_string(block_size) + " threads' registers (at most " +
                          std::to_string(arch->registers_per_sm / block_size) + " each)."
                    : "Less shared memory per block.";
        }
        c.message = m.str();
        const bool fits = c.passed;
        s.add_check(std::move(c));
        if (!fits) {
            s.check_at_least("theoretical occupancy (" + std::string(kArch) + ")", o.occupancy,
                             kMinOccupancy, arithmetic, occupancy_advice(*arch, o));
            s.log().push_back("not launched: the block does not fit on an SM");
            return;
        }
    }

    // 2. The outputs at the learner's block size: a few blocks with a partial last one, and fewer
    //    samples than one block (most threads idle, yet they must reach the barriers).
    Outcome measured;
    for (int n : {330, 45}) {
        Outcome o_n = layer_and_check(s, n, block_size);
        if (!o_n.launched) return;
        if (n == 330) {
            measured = o_n;
            s.measure(s.launch_index());
        }
    }

    // 3. Theoretical occupancy, from ptxas's registers and shared memory for sm_90.
    s.check_at_least("theoretical occupancy (" + std::string(kArch) + ")", o.occupancy,
                     kMinOccupancy, arithmetic, occupancy_advice(*arch, o));

    // 4. No spills: occupancy bought with local-memory traffic is no bargain.
    {
        std::ostringstream m;
        double spilled = double(kernel->spill_store_bytes + kernel->spill_load_bytes);
        if (kernel->resources_from_cubin) {
            // No ptxas report this time (compiler/cubin_resources.h): the cubin has the stack
            // frame, which this kernel (no local arrays) only needs for spilled registers.
            spilled = double(kernel->stack_frame_bytes);
            m << registers << " registers per thread, a " << kernel->stack_frame_bytes
              << "-byte stack frame per thread (from the cubin, " << kArch << ")";
        } else {
            m << registers << " registers per thread, " << kernel->spill_store_bytes
              << " bytes of spill stores and " << kernel->spill_load_bytes
              << " bytes of spill loads per thread (ptxas, " << kArch << ")";
        }
        s.check_at_most(
            "register spills (bytes)", spilled, kMaxSpillBytes, m.str(),
            "ptxas was asked to fit fewer registers than the kernel's 48 sums and their "
            "operands need, so it keeps some of them in local memory (global memory, through "
            "the L1 cache). Ask __launch_bounds__ for fewer blocks per SM, or free shared "
            "memory or warps instead.");
    }

    if (measured.correct) log_gpu_figures(s, block_size, o);
}

}  // namespace

CUDALAB_LESSON("12-occupancy", run);
