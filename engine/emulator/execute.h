// One warp instruction at a time: the interpreter's inner loop (execute.cpp) and the launch state
// it reads. The block scheduler (emulator.cpp) calls run_warp() until a warp blocks, exits or
// faults.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "base/hardware.h"
#include "emulator/state.h"

namespace cudalab::emu {

// The shared memory sm_80 and later reserve per block for the system, given to kernels that read
// %reserved_smem_offset_*.
inline constexpr std::uint32_t reserved_shared_bytes =
    std::uint32_t(hw::emulated.reserved_shared_per_block);

struct LaunchState {
    const Program& program;
    DeviceMemory& memory;
    std::int32_t kernel = 0;  // index into program.functions
    LaunchConfig config;
    std::vector<std::uint8_t> params;  // the kernel parameter buffer
    std::uint32_t static_shared = 0;
    std::uint32_t shared_bytes = 0;     // static + dynamic (+ the reserved 1 KB when used)
    std::uint32_t reserved_shared = 0;  // offset of the reserved shared memory (when used)
    std::uint64_t budget = 0;           // warp instructions (EmulatorOptions::instruction_budget)
    std::atomic<std::uint64_t> thread_instructions{0};
    std::atomic<std::uint64_t> warp_instructions{0};
    // A block's counts are added to the two above once they reach this (0: every round).
    std::uint64_t flush_every = 1u << 16;
    std::atomic<std::uint32_t> fault_block{~0u};  // lowest block that faulted so far
    bool detect_races = true;
    bool independent_scheduling = false;  // EmulatorOptions::independent_scheduling
    std::uint64_t scheduling_seed = 1;
    bool only_argument_buffers = false;  // EmulatorOptions::only_argument_buffers
    bool track_writers = true;           // record the thread that stored each global word
    bool record_footprint = false;       // EmulatorOptions::record_footprint
    std::uint32_t num_sms = 1;
    std::mutex mutex;  // guards warnings
    std::vector<std::string> warnings;
    std::uint32_t uninitialised_shared_reads = 0;  // guarded by mutex
    std::string first_uninitialised_shared_read;
    std::vector<std::uint32_t> warned_pcs;  // uninitialised-read warnings already given (guarded)
    std::string display_name;
    std::uint64_t grid_workspace = 0;  // cooperative launches: the grid barrier's memory
    // Thread block clusters (cluster.h): the blocks per cluster (1 x 1 x 1 without them) and
    // whether the launch gave cluster dimensions (%is_explicit_cluster).
    Dim3 cluster{};
    bool explicit_cluster = false;
    // Limits (docs/grading.md, "Limits"): local memory per thread (frames of every nested call),
    // device printf bytes per launch (printf_bytes counts finished blocks), a wall-clock deadline.
    std::uint64_t local_limit = ~0ull;
    std::string local_limit_reason;  // how local_limit was derived, for the message
    std::uint64_t printf_limit = ~0ull;
    std::atomic<std::uint64_t> printf_bytes{0};
    bool printf_drops = false;                         // EmulatorOptions::printf_overflow_drops
    std::atomic<std::uint64_t> printf_dropped{0};      // bytes dropped so (when printf_drops)
    std::chrono::steady_clock::time_point deadline{};  // epoch: none
    // Races between blocks in global memory (when detect_races): per buffer the launch touches,
    // one word per 4 bytes holding the last block that wrote it in this launch, (block + 1) << 1,
    // plus 1 when that write was atomic. Made on first use, under the mutex. Host threads running
    // different blocks touch the same shadow word only when the kernel's blocks touch the same
    // global word, which is the race being looked for; either order of their updates reports it
    // (as with Allocation::writer, plain words keep the common path a vector loop).
    std::mutex global_shadow_mutex;
    std::vector<std::pair<const Allocation*, std::unique_ptr<std::uint32_t[]>>> global_shadow;
    std::uint32_t global_races = 0;  // guarded by global_shadow_mutex
    std::string first_global_race;
    int kernel_fences = -1;  // -1: not looked yet; 1: the kernel has a memory fence (__threadfence)
    // Dynamic parallelism (docs/emulator.md, "Dynamic parallelism"): the grids this launch's
    // threads launch, run by Emulator::launch once this grid has finished (a parent never waits
    // for its children in CUDA 12 and later, so that order is one a GPU may take). Guarded by
    // device_mutex; blocks of a kernel that launches run on one worker, in order.
    struct DeviceLaunch {
        std::uint32_t block = 0, thread = 0;  // the launching thread (linear indices)
        std::int32_t function = -1;           // the kernel, an index into program.functions
        Dim3 grid, block_dim;
        std::uint32_t dynamic_shared = 0;
        std::uint64_t buffer = 0;  // the parameter buffer (device memory) the thread filled
        std::uint64_t buffer_bytes = 0;
        std::uint64_t stream = 0;  // the device-side stream handle it was launched into
        // function copy_operation / set_operation: cudaMemcpyAsync / cudaMemsetAsync in device
        // code, which run in order with the launches (buffer: the destination).
        std::uint64_t source = 0, bytes = 0;
        std::uint8_t value = 0;
        static constexpr std::int32_t copy_operation = -2, set_operation = -3;
    };
    std::mutex device_mutex;
    std::vector<DeviceLaunch> device_buffers;   // handed out, not launched yet
    std::vector<DeviceLaunch> device_launches;  // launched, in launch order
    std::uint32_t device_depth = 0;             // 0: launched by the host
    std::uint32_t device_launch_limit = 0;      // launches one grid may leave pending
    std::uint64_t device_streams = 0;           // device-side streams created so far
    // Device-side cudaGetErrorName/String: the text's address in device memory, for a code
    // (name: 1 in bit 32), made once per emulator (Emulator::error_texts_, guarded by
    // device_mutex) from EmulatorOptions::error_text.
    const std::function<std::string(int, bool)>* error_text = nullptr;
    std::vector<std::pair<std::uint64_t, std::uint64_t>>* error_texts = nullptr;
    // Parameter buffers free for the next device-side launch, (bytes, address): the emulator's
    // (Emulator::param_buffers_), guarded by device_mutex.
    std::vector<std::pair<std::uint64_t, std::uint64_t>>* param_buffers = nullptr;
    // Each thread's last device-runtime error (cudaGetLastError), by (block << 32 | thread).
    std::vector<std::pair<std::uint64_t, std::uint32_t>> device_errors;
    // tells this launch's cached shadows from another's
    const std::uint64_t serial = next_serial();

    LaunchState(const Program& p, DeviceMemory& m) : program(p), memory(m) {}
    static std::uint64_t next_serial() {
        static std::atomic<std::uint64_t> n{0};
        return ++n;
    }
};

// Per-block printf output, merged in block order at the end so output is deterministic.
struct BlockOutput {
    std::string printf_text;
};

enum class StepResult { ok, blocked, done };

// Executes up to `quantum` instructions of the warp, from the top of its SIMT stack; stops early
// when the warp waits at a barrier (blocked) or exits (done). Throws Fault on a kernel error.
StepResult run_warp(LaunchState& launch, Block& block, Warp& warp, BlockOutput& out, int quantum);

// Chooses each instruction's handler once: a specialised form where one fits (unless
// `specialise` is false), else its opcode's general handler.
void select_handlers(PreparedFunction& pf, bool specialise = true);

// The handler of an instruction whose effect was folded away when the module was prepared (a
// copy of a value that never changes, read from its source instead): it is counted and traced
// like any instruction, and does nothing.
void exec_folded(Exec& x);

// Sorts a launch's footprint (LaunchState::record_footprint) and merges the spans of one kind
// that touch or overlap.
void compact_footprint(std::vector<MemorySpan>& f);

// Sets up a warp's first frame at the kernel entry; its registers (per-lane constants, special
// registers, parameters) are filled when the warp first runs (run_warp).
void start_warp(LaunchState& launch, Block& block, Warp& warp);

}  // namespace cudalab::emu
