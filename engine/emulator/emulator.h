// The SIMT emulator: executes decoded PTX a warp at a time, in lockstep, with an active mask and
// reconvergence at immediate post-dominators. See docs/design.md, decision 2, and
// docs/emulator.md (what it runs, how far it agrees with a GPU, every diagnostic).
//
// Supports:
//   [x] warps of 32 in lockstep; SIMT stack; reconvergence at the immediate post-dominator
//   [x] 16 barriers per block counted per warp, named barriers with counts, bar.red; exit counts as
//       arrival; deadlock and divergent __syncthreads() reported
//   [x] global, shared (static + dynamic), local, param, const and generic memory, bounds-checked
//   [x] integer, carry-chain, f32/f64 (every rounding mode), f16/bf16 (and x2) arithmetic; cvt in
//       every direction; bit operations; NaNs and signed zeros as the GPU makes them
//   [x] calls to non-inlined .func with parameter frames, recursion, function pointers; device
//       printf (vprintf); assert(); device-side kernel launches (dynamic parallelism)
//   [x] atomics, warp shuffles, votes, match, redux, with per-lane member masks
//   [x] shared-memory race detector, uninitialised shared reads (warning), instruction budget
//   [x] blocks spread over the host's cores; deterministic (kernels with global atomics run their
//       blocks in order on one core; the lowest faulting block is the one reported)
//   [x] independent thread scheduling, optional: a divergent branch's paths run in seeded turns,
//       meeting at __syncwarp, *_sync collectives and barriers; warp-level hazards through shared
//       and global memory (lanes of one warp with no __syncwarp between) reported
//   [x] texture and surface objects (tex, tld4, txq, suld, sust, sured, suq: texture.h)
//   [ ] tensor-core (mma/wgmma), cluster and async-copy instructions, 16-bit atomics, brx.idx
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/hardware.h"
#include "emulator/memory.h"
#include "runtime/backend.h"

namespace cudalab::emu {

// A loaded module prepared for execution, with the SIMT state the interpreter keeps: the
// emulator's own (emulator/state.h, private to engine/emulator; engine/layers.cmake).
struct Program;
struct LaunchState;  // one launch's running state (emulator/execute.h)

struct EmulatorOptions {
    // Warp instructions per launch before it is stopped as an endless loop. Counted per warp
    // instruction, not per lane: the emulator's time follows warp instructions, so a loop in one
    // lane is stopped as quickly as one in a full warp (a few seconds at most). The largest
    // lesson needs under 1 M.
    std::uint64_t instruction_budget = 50'000'000ull;
    unsigned worker_threads = 0;                    // 0: one per core
    std::uint32_t num_sms = hw::emulated_sm_count;  // modelled SMs
    bool detect_races = true;
    // Independent thread scheduling (Volta and later): the two paths of a divergent branch run in
    // turns of 1-8 instructions in a seeded order, each waiting at a __syncwarp, *_sync collective
    // or barrier for the other, instead of one path to the end and then the other. Code that
    // counts on the lanes of a warp running in lockstep then goes wrong as it can on a GPU. The
    // same instructions run with the same masks, so every counter is unchanged; only the order of
    // the two paths' instructions (and what they see of each other's memory) differs. Lesson
    // checks turn it on with a fixed seed; `cudalab exec --its[=SEED]` on request.
    bool independent_scheduling = false;
    std::uint64_t scheduling_seed = 1;
    // true: a launch may touch only the buffers its parameters point into (and module variables),
    // so an index that runs past one array into another buffer faults. Lesson checks set it; whole
    // programs, whose kernels follow pointers stored in memory, do not.
    bool only_argument_buffers = false;
    // false: every instruction runs its opcode's general handler, none a specialised form (the
    // tests run the corpus both ways and compare).
    bool specialised_handlers = true;
    // Limits (docs/grading.md, "Limits"): each one reached stops the launch with a fault that
    // names it. Memory in total: global variables, buffers (and, once a traced launch records
    // which thread wrote each word, the shadow doing so: as many bytes again) and every thread's
    // local frames.
    std::uint64_t memory_limit = 2048ull << 20;
    std::uint64_t printf_limit = 1ull << 20;  // device printf bytes per launch, as a GPU's FIFO
    // What printing past printf_limit does. false: the launch stops with a fault naming the limit
    // (lessons: the learner is told at once). true: as on a GPU, whose full printf buffer loses
    // output while the kernel runs on, the printf records that do not fit are dropped and counted
    // (LaunchResult::printf_dropped_bytes); whole programs set it.
    bool printf_overflow_drops = false;
    // Record the global bytes each launch reads and writes (LaunchResult::footprint): the CUDA
    // runtime's race detector between streams needs them; lessons do not.
    bool record_footprint = false;
    // Device-side launches one grid may have pending (cudaLimitDevRuntimePendingLaunchCount,
    // 2048 by default); past it a launch fails with cudaErrorLaunchPendingCountExceeded.
    std::uint32_t device_pending_launch_limit = 2048;
    // What cudaGetErrorName (name true) and cudaGetErrorString answer for an error code, for the
    // same calls in device code; unset: the code's number.
    std::function<std::string(int code, bool name)> error_text;
    // No launch runs past this time (a check's wall-clock limit); epoch: none.
    std::chrono::steady_clock::time_point deadline{};
    // Where a __managed__ variable (.attribute(.managed)) lives: given its name and size, the
    // address of memory already reachable through this emulator's DeviceMemory that the host
    // reaches at the same address (the emulated runtime's managed memory), with *fresh set when
    // the memory is new and wants the variable's initialiser; 0 when there is none. Unset: it is
    // allocated in device memory like any __device__ variable.
    std::function<std::uint64_t(const std::string& name, std::uint64_t size, bool* fresh)>
        place_managed;
};

// The wall-clock limit per check (and per `cudalab exec`) when none is given.
inline constexpr double default_time_limit_seconds = 300;

// A module-scope variable as the host side of a program sees it (cudaMemcpyToSymbol and friends).
struct SymbolInfo {
    enum class Kind { global, constant } kind = Kind::global;
    std::uint64_t address = 0;  // global: device address; constant: offset in the constant bank
    // Where the host and kernels reach it in device memory (cudaGetSymbolAddress): the address of
    // a global; for a constant, its place in the module's constant bank, which lives in device
    // memory (kernels read it with ld.const by offset, or through this address).
    std::uint64_t device_address = 0;
    std::uint64_t size = 0;
};

class Emulator {
  public:
    explicit Emulator(EmulatorOptions options = {});
    // Several modules of one program share device memory (a CUDA context's address space).
    Emulator(EmulatorOptions options, std::shared_ptr<DeviceMemory> memory);
    ~Emulator();

    // Parses and prepares PTX. `source_path` names the learner's file in messages.
    Status load(const std::string& ptx, const std::string& source_path);
    bool has_kernel(const std::string& entry) const;
    // The kernel's parameter sizes in bytes, in order (to check a launch's arguments).
    std::vector<std::uint32_t> parameter_sizes(const std::string& entry) const;

    // What launch() would refuse before running anything (bad_usage: the configuration or the
    // arguments; compile_error: an instruction the emulator cannot run), with its message. The
    // runtime asks first when it queues a launch to run after the call that issued it returns.
    Status check_launch(const std::string& entry, const std::string& display_name,
                        const LaunchConfig& config, const std::vector<KernelArg>& args) const;
    LaunchResult launch(const std::string& entry, const std::string& display_name,
                        const LaunchConfig& config, const std::vector<KernelArg>& args,
                        const TraceOptions& trace);

    DeviceMemory& memory() { return *memory_; }
    const DeviceMemory& memory() const { return *memory_; }
    // __device__ and __constant__ variables by their PTX name (mangled as in the PTX).
    std::optional<SymbolInfo> symbol(const std::string& name) const;
    bool write_constant(std::uint64_t offset, const void* src, std::uint64_t bytes);
    bool read_constant(void* dst, std::uint64_t offset, std::uint64_t bytes) const;
    // What cudaFuncGetAttributes reports that PTX knows: static shared memory (module-scope and
    // the kernel's own), local memory per thread, parameter bytes. False for an unknown kernel.
    struct KernelResources {
        std::uint32_t static_shared = 0, local_bytes = 0, param_bytes = 0, max_threads = 0;
        // __cluster_dims__ (.reqnctapercluster; 0: none) and .explicitcluster
        std::uint32_t cluster[3] = {0, 0, 0};
        bool explicit_cluster = false;
    };
    bool kernel_resources(const std::string& entry, KernelResources* out) const;
    // Names of the module's kernels (PTX entry names).
    std::vector<std::string> kernel_names() const;
    const Program* program() const { return program_.get(); }
    EmulatorOptions& options() { return options_; }

    // Who stored the word holding `address` last, from the launch dimensions of the last launch.
    // Only traced launches record writers (lesson checks trace; `cudalab exec` without --trace and
    // the benchmark do not need them); after an untraced launch this answers nothing.
    std::optional<Writer> last_writer(std::uint64_t address) const;
    bool tracks_writers() const { return writers_tracked_; }

  private:
    void run_device_launches(LaunchState& state, const std::string& parent_name,
                             LaunchResult& result);
    EmulatorOptions options_;
    std::shared_ptr<DeviceMemory> memory_;
    std::unique_ptr<Program> program_;
    Dim3 last_grid_, last_block_;
    bool writers_tracked_ = true;
    // Dynamic parallelism: the nesting depth of the grid launch() runs now (0: the host's), and
    // the warp instructions the host's launch and all its descendants have left between them.
    std::uint32_t device_depth_ = 0;
    std::uint64_t device_budget_left_ = 0;
    // Device-side cudaGetErrorName/String: each text once in device memory, by (code, name).
    std::vector<std::pair<std::uint64_t, std::uint64_t>> error_texts_;
    // Parameter buffers of finished device-side launches, (bytes, address), for the next ones.
    std::vector<std::pair<std::uint64_t, std::uint64_t>> param_buffers_;
};

}  // namespace cudalab::emu
