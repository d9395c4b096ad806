// The emulator's internal state: the prepared program (decoded PTX with immediates materialised
// into registers and every symbol given an address), and warps, blocks and launches as they run.
// Registers are kept per warp as structure-of-arrays: reg r of lane l is regs[r * 32 + l].
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "emulator/memory.h"
#include "ptx/module.h"
#include "runtime/backend.h"
#include "trace/trace.h"

namespace cudalab::emu {

inline constexpr std::uint64_t param_window = 0x4000'0000'0000ull;
// Parameter-space addresses at or above this are the kernel's parameter buffer; below it, the
// thread's frame (.func parameters and call-site .param symbols). Inside the param window.
inline constexpr std::uint64_t kernel_param_base = 0x0080'0000'0000ull;
// Function pointers: the address of function i of the module is function_window + 16 * i.
inline constexpr std::uint64_t function_window = 0x5000'0000'0000ull;

struct Exec;  // one instruction's execution context (execute.cpp)
using Handler = void (*)(Exec&);

// One function of the module, ready to execute.
struct PreparedFunction {
    ptx::Function fn;                       // operands rewritten: immediates -> registers
    std::vector<Handler> handlers;          // per instruction: a specialised form or the opcode's
    std::uint32_t register_count = 0;       // declared + materialised
    std::vector<std::pair<std::int32_t, std::uint64_t>> constants;  // register -> uniform value
    std::vector<std::pair<std::int32_t, ptx::Special>> lane_specials;  // filled per lane at start
    std::uint32_t frame_bytes = 0;          // per-thread local frame: .local and .param symbols
    std::vector<std::uint64_t> local_offsets;   // fn.locals[i]: frame offset, or shared offset
    std::vector<std::uint32_t> param_offsets;   // .func formal params: frame offset
    std::vector<std::uint32_t> return_offsets;  // .func return values: frame offset
    std::uint32_t own_shared_bytes = 0;     // shared declared inside this function
    std::uint32_t pc_base = 0;              // first pc of this function in the trace's numbering
    bool uses_global_atomics = false;       // decides whether blocks may run in parallel
    bool calls_functions = false;
};

struct Program {
    ptx::Module module;
    std::vector<PreparedFunction> functions;
    std::vector<std::uint64_t> global_addresses;  // Module::globals[i] -> address (global/const/shared)
    std::vector<bool> dynamic_shared;             // Module::globals[i] is `extern .shared x[]`
    std::uint32_t common_shared_bytes = 0;        // module-scope and .func shared symbols
    std::vector<std::uint8_t> constant_bank;      // .const data (read through const_window)
    std::string source_path;                      // for messages
    std::uint32_t total_pcs = 0;                  // instructions over all functions
    bool uses_global_atomics = false;
    bool uses_device_malloc = false;              // calls malloc/free: blocks run in order
};

// An emulator fault, thrown from an instruction and caught by the block runner.
struct FaultInfo {
    std::string kind;     // "out-of-bounds load", "shared-memory race", ...
    std::string detail;   // the specifics (address, buffer, ...)
    std::string advice;   // what to try
    std::uint32_t pc = 0;
    std::int32_t function = -1;
    std::uint32_t block = 0;          // linear block id
    std::uint32_t warp = 0;
    std::int32_t lane = -1;           // first faulting lane (-1: warp-wide)
    std::uint32_t other_lanes = 0;    // other lanes of the warp with the same fault
    std::uint32_t other_line = 0;     // race: the other access's source line
    std::string other_where;          // race: the other access's warp/thread
};

struct Fault : std::runtime_error {
    FaultInfo info;
    explicit Fault(FaultInfo i) : std::runtime_error(i.kind), info(std::move(i)) {}
};

struct SimtEntry {
    std::int32_t pc = 0;
    std::int32_t reconverge = 0;  // pop when pc reaches this
    std::uint32_t mask = 0;
    std::uint16_t frame = 0;      // call depth the entry belongs to
};

struct Frame {
    std::int32_t function = 0;
    std::vector<std::uint64_t> regs;  // register_count * 32
    std::uint32_t local_base = 0;     // frame start within each lane's local memory
    std::int32_t call_pc = -1;        // caller's call instruction (-1: kernel entry)
    std::uint32_t caller_mask = 0;    // lanes that made the call
};

struct Warp {
    std::uint32_t id = 0;
    std::uint32_t live = 0;           // lanes that exist and have not exited
    std::uint32_t lanes = 0;          // lanes that exist (the last warp of a block may be partial)
    std::vector<SimtEntry> stack;
    std::vector<Frame> frames;
    std::array<std::vector<std::uint8_t>, 32> local;  // per-lane local memory (stack of frames)
    std::uint32_t carry = 0;          // CC.CF of each lane (add.cc / addc chains, 9.7.2)
    bool waiting = false;             // at a barrier
    std::uint32_t barrier_id = 0;
    std::uint32_t barrier_pc = 0;
    std::int32_t red_dst = -1;        // bar.red: the register that receives the block's result
    ptx::SubOp red_op = ptx::SubOp::none;
    std::uint32_t red_mask = 0;       // bar.red: the lanes that take the result
    std::uint64_t instructions = 0;
    std::uint32_t sync_epoch = 0;     // increments at __syncwarp and every *_sync collective
    bool done() const { return stack.empty(); }
};

// Barrier epochs of the race detector start at 2: write_epoch 1 marks a word that only atomics have
// written (initialised, but with no plain writer to race with), 0 one nobody has written.
inline constexpr std::uint32_t first_epoch = 2;  // 0: never; epochs count barrier intervals

// Per-word shadow for the shared-memory race detector.
struct SharedShadow {
    std::uint32_t write_epoch = 0;   // 0: never written
    std::uint32_t write_pc = 0;
    std::uint16_t write_warp = 0;    // 0xFFFF: several warps updated it atomically in this epoch
    std::uint16_t read_warp = 0;     // 0xFFFF: several warps read in this epoch
    bool write_atomic = false;       // the last write was an atomic update
    std::uint32_t read_epoch = 0;
    std::uint32_t read_pc = 0;
    // Lanes of one warp, for hazards under independent thread scheduling (sm_70 and later): the
    // writing lane and the lanes that read, with the warp's sync interval (Warp::sync_epoch) of
    // each. Lanes of one warp that exchange data through memory with no __syncwarp or *_sync
    // collective between race on a GPU even though the emulator runs them in lockstep.
    std::uint32_t write_sync = 0;
    std::uint32_t read_sync = 0;
    std::uint32_t read_lanes = 0;    // lanes of read_warp that read in (read_epoch, read_sync)
    std::uint8_t write_lane = 0;
};

struct LaunchState;

// One of the block's 16 hardware barriers (bar.sync a{, b}).
struct BarrierState {
    std::uint32_t arrived = 0;      // warps that arrived (bar.sync and bar.arrive)
    std::uint32_t expected = 0;     // warps the barrier waits for; 0: every live warp of the block
    std::uint32_t red_true = 0;     // bar.red: threads whose predicate held
    std::uint32_t red_threads = 0;  // bar.red: threads that took part
};

struct Block {
    static constexpr std::uint32_t barrier_count = 16;
    std::uint32_t linear = 0;
    std::uint32_t ctaid[3] = {0, 0, 0};
    std::vector<Warp> warps;
    std::vector<std::uint8_t> shared;
    std::vector<SharedShadow> shadow;
    std::array<BarrierState, barrier_count> barriers{};
    std::uint32_t epoch = first_epoch;  // increments at each barrier release
    std::uint8_t sm = 0;
    bool detail = false;              // record full events
    std::uint64_t seq = 0;
    std::array<Allocation*, 4> recent_buffers{};  // the global buffers accesses hit last, newest first
    // The global race detector's shadows of recent buffers, and the launch they belong to.
    std::array<std::pair<const Allocation*, std::uint32_t*>, 4> recent_shadows{};
    std::uint64_t shadows_serial = 0;
    std::uint64_t warp_instructions = 0;    // not yet added to the launch's totals
    std::uint64_t thread_instructions = 0;
    std::vector<WarpEvent> events;
    std::vector<MemAccess> accesses;
    std::vector<PcCounters>* counters = nullptr;  // the worker's per-pc counters
    std::vector<std::uint32_t> warned_uninit_pcs;
};

}  // namespace cudalab::emu
