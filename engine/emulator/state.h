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
    ptx::Function fn;                  // operands rewritten: immediates -> registers
    std::vector<Handler> handlers;     // per instruction: a specialised form or the opcode's
    std::uint32_t register_count = 0;  // declared + materialised
    std::vector<std::pair<std::int32_t, std::uint64_t>> constants;     // register -> uniform value
    std::vector<std::pair<std::int32_t, ptx::Special>> lane_specials;  // filled per lane at start
    std::uint32_t frame_bytes = 0;              // per-thread local frame: .local and .param symbols
    std::vector<std::uint64_t> local_offsets;   // fn.locals[i]: frame offset, or shared offset
    std::vector<std::uint32_t> param_offsets;   // .func formal params: frame offset
    std::vector<std::uint32_t> return_offsets;  // .func return values: frame offset
    // A kernel's static shared memory: every shared symbol its calls reach, its own included.
    std::uint32_t static_shared_bytes = 0;
    std::uint32_t pc_base = 0;         // first pc of this function in the trace's numbering
    bool uses_global_atomics = false;  // decides whether blocks may run in parallel
    bool calls_functions = false;
    // Declared registers that some path may read before writing (an uninitialised variable, or a
    // shuffle's source, read from lanes that may never have written it). Only these are zeroed
    // when a warp's register file is reused for the next block; the rest are written before any
    // read on every path, so what the last block left in them is never seen.
    std::vector<std::int32_t> zero_registers;
    bool zero_all_registers = true;  // the analysis was not done (too large, brx.idx)
    // Materialised special registers that differ between blocks of one launch (%ctaid.*), and
    // those that differ between the warps of a block (%tid.*).
    std::vector<std::pair<std::int32_t, ptx::Special>> block_specials;
    std::vector<std::pair<std::int32_t, ptx::Special>> warp_specials;
    // Registers a kernel loads from its parameters once and never writes again (ld.param into a
    // register with one definition): filled with the launch's value when a warp's registers are
    // set up for the launch, and the ld.param itself does nothing (fold_uniform_moves).
    struct LaunchConstant {
        std::int32_t reg = -1;
        std::uint32_t offset = 0;  // in the kernel's parameter buffer
        std::uint8_t bytes = 0;
        bool sign = false;
    };
    std::vector<LaunchConstant> launch_constants;
};

struct Program {
    ptx::Module module;
    std::vector<PreparedFunction> functions;
    std::vector<std::uint64_t>
        global_addresses;                     // Module::globals[i] -> address (global/const/shared)
    std::vector<bool> dynamic_shared;         // Module::globals[i] is `extern .shared x[]`
    std::vector<std::uint8_t> constant_bank;  // .const data while the module loads
    // The constant bank once loaded: an allocation of device memory (so that the host can copy to
    // it and cudaGetSymbolAddress can name it), read by ld.const and through const_window.
    Allocation* constant_memory = nullptr;  // null: the module has no .const data
    std::uint64_t constant_address = 0;
    const std::uint8_t* constant_bytes() const {
        return constant_memory ? constant_memory->bytes() : nullptr;
    }
    std::uint64_t constant_size() const { return constant_memory ? constant_memory->size : 0; }
    std::string source_path;      // for messages
    std::uint32_t total_pcs = 0;  // instructions over all functions
    bool uses_global_atomics = false;
    bool uses_device_malloc = false;  // calls malloc/free: blocks run in order
    // Calls the device runtime (dynamic parallelism: launches, device-side copies): likewise, so
    // that the launches are recorded in the same order on every run.
    bool uses_device_launch = false;
    // Reads %reserved_smem_offset_*: each block gets the reserved shared memory (1 KB, as on sm_80
    // and later) after its own, so that cooperative groups' scratch does not overlap the program's.
    bool uses_reserved_shared = false;
    // Per function: the function (itself or one it may call) holding the first instruction the
    // emulator cannot run (ptx::Function::unsupported) that a call from it can reach; -1: none.
    std::vector<std::int32_t> unrunnable;
};

// An emulator fault, thrown from an instruction and caught by the block runner.
struct FaultInfo {
    std::string kind;    // "out-of-bounds load", "shared-memory race", ...
    std::string detail;  // the specifics (address, buffer, ...)
    std::string advice;  // what to try
    std::uint32_t pc = 0;
    std::int32_t function = -1;
    std::uint32_t block = 0;  // linear block id
    std::uint32_t warp = 0;
    std::int32_t lane = -1;         // first faulting lane (-1: warp-wide)
    std::uint32_t other_lanes = 0;  // other lanes of the warp with the same fault
    std::uint32_t other_line = 0;   // race: the other access's source line
    std::string other_where;        // race: the other access's warp/thread
};

struct Fault : std::runtime_error {
    FaultInfo info;
    explicit Fault(FaultInfo i) : std::runtime_error(i.kind), info(std::move(i)) {}
};

struct SimtEntry {
    std::int32_t pc = 0;
    std::int32_t reconverge = 0;  // pop when pc reaches this
    std::uint32_t mask = 0;
    std::uint16_t frame = 0;  // call depth the entry belongs to
    // Independent thread scheduling (EmulatorOptions::independent_scheduling): the entry is one
    // path of a divergent branch (its parent's two paths, with what each pushed since, lie
    // above the parent one after the other). wait: 1 (parked) while the path waits at a
    // synchronising instruction for the others to get to one too, 2 (released) once they all
    // have, until it runs that instruction.
    bool path = false;
    std::uint8_t wait = 0;
    std::int32_t parent = -1;  // the stack index of the entry this one was pushed above
};

struct Frame {
    std::int32_t function = 0;
    std::vector<std::uint64_t> regs;  // register_count * 32
    // Frame 0's registers were set up for this launch (LaunchState::serial) and warp index: their
    // constants and per-lane specials still hold, so the next block's warp refills only the rest.
    std::uint64_t prepared_launch = 0;
    std::uint32_t prepared_warp = 0;
    std::uint32_t local_base = 0;   // frame start within each lane's local memory
    std::int32_t call_pc = -1;      // caller's call instruction (-1: kernel entry)
    std::uint32_t caller_mask = 0;  // lanes that made the call
};

// A plain global store of the current sync interval, remembered for the line a warp-level race
// names (the shadow keeps only the writing lane).
struct StoreNote {
    std::uint32_t stamp = 0;
    std::uint32_t lanes = 0;
    std::uint32_t gpc = 0;
    std::uint64_t lo = 0, hi = 0;  // the bytes the lanes stored, [lo, hi)
};

struct Warp {
    std::uint32_t id = 0;
    std::uint32_t live = 0;   // lanes that exist and have not exited
    std::uint32_t lanes = 0;  // lanes that exist (the last warp of a block may be partial)
    std::vector<SimtEntry> stack;
    std::vector<Frame> frames;
    std::array<std::vector<std::uint8_t>, 32> local;  // per-lane local memory (stack of frames)
    // Every lane's local memory is empty (a kernel with no local frame that made no call since):
    // start_warp then has nothing to clear. Describes the storage, so reset() keeps it.
    bool local_empty = false;
    // Frame 0's registers hold this block's values: start_warp leaves them to the warp's first
    // run (prepare_registers), so they are written just before they are used.
    bool registers_ready = false;
    std::uint32_t carry = 0;  // CC.CF of each lane (add.cc / addc chains, 9.7.2)
    bool waiting = false;     // at a barrier
    std::uint32_t barrier_id = 0;
    std::uint32_t barrier_pc = 0;
    std::int32_t red_dst = -1;  // bar.red: the register that receives the block's result
    ptx::SubOp red_op = ptx::SubOp::none;
    std::uint32_t red_mask = 0;  // bar.red: the lanes that take the result
    std::uint64_t instructions = 0;
    std::uint32_t sync_epoch = 0;  // increments at __syncwarp and every *_sync collective
    // The warp's sync interval for the global-memory hazard check: a number no other warp or
    // interval of the block has, renewed at __syncwarp, *_sync collectives and barriers.
    std::uint32_t stamp = 0;
    std::array<StoreNote, 8> stores{};  // the last plain global stores (traced launches)
    std::uint32_t next_store = 0;
    // Independent thread scheduling: the warp's random stream (seeded per launch, block and warp,
    // so any worker order gives the same run) and what is left of the running path's turn.
    std::uint64_t rng = 0;
    int turn = 0;
    // A __syncthreads() that only some of the warp's live lanes reached (the others took another
    // branch): those lanes, and where the barrier is. Reaching a different __syncthreads() before
    // this one is the bug reported; exiting is fine (an exited thread counts as arrived, sm_70+).
    std::uint32_t partial_bar_lanes = 0;
    std::uint32_t partial_bar_pc = 0;
    std::int32_t partial_bar_function = -1;
    // mbarrier.try_wait that found its phase incomplete (barrier_id Block::mbarrier_barrier): the
    // barrier's shared offset and the word it held; the warp sleeps until the word changes.
    std::uint32_t mbarrier_offset = 0;
    std::uint64_t mbarrier_word = 0;
    // The cluster barrier (barrier.cluster, cluster.h): the lanes that arrived in the current
    // phase, and the phase count whose completion the warp's next barrier.cluster.wait waits for.
    std::uint32_t cluster_arrived = 0;
    std::uint64_t cluster_target = 0;
    bool done() const { return stack.empty(); }
    // Every field back to its initial value except the storage kept for the next block (stack,
    // frames and local memory, which start_warp refills). A new field must be reset here too.
    void reset() {
        id = live = lanes = carry = 0;
        waiting = false;
        barrier_id = barrier_pc = 0;
        red_dst = -1;
        red_op = ptx::SubOp::none;
        red_mask = 0;
        instructions = 0;
        sync_epoch = 0;
        stamp = 0;  // (stores need no clearing: a note counts only with the warp's current stamp)
        rng = 0;
        turn = 0;
        registers_ready = false;
        partial_bar_lanes = partial_bar_pc = 0;
        partial_bar_function = -1;
        mbarrier_offset = 0;
        mbarrier_word = 0;
        cluster_arrived = 0;
        cluster_target = 0;
    }
};

// Barrier epochs of the race detector start at 2: write_epoch 1 marks a word that only atomics have
// written (initialised, but with no plain writer to race with), 0 one nobody has written.
inline constexpr std::uint32_t first_epoch = 2;  // 0: never; epochs count barrier intervals

// Per-word shadow for the shared-memory race detector.
struct SharedShadow {
    std::uint32_t write_epoch = 0;  // 0: never written
    std::uint32_t write_pc = 0;
    std::uint16_t write_warp = 0;  // 0xFFFF: several warps updated it atomically in this epoch
    std::uint16_t read_warp = 0;   // 0xFFFF: several warps read in this epoch
    bool write_atomic = false;     // the last write was an atomic update
    std::uint32_t read_epoch = 0;
    std::uint32_t read_pc = 0;
    // Lanes of one warp, for hazards under independent thread scheduling (sm_70 and later): the
    // writing lane and the lanes that read, with the warp's sync interval (Warp::sync_epoch) of
    // each. Lanes of one warp that exchange data through memory with no __syncwarp or *_sync
    // collective between race on a GPU even though the emulator runs them in lockstep.
    std::uint32_t write_sync = 0;
    std::uint32_t read_sync = 0;
    std::uint32_t read_lanes = 0;  // lanes of read_warp that read in (read_epoch, read_sync)
    std::uint8_t write_lane = 0;
};

struct LaunchState;
struct ClusterState;

// One of the block's 16 hardware barriers (bar.sync a{, b}).
struct BarrierState {
    std::uint32_t arrived = 0;      // warps that arrived (bar.sync and bar.arrive)
    std::uint32_t expected = 0;     // warps the barrier waits for; 0: every live warp of the block
    std::uint32_t red_true = 0;     // bar.red: threads whose predicate held
    std::uint32_t red_threads = 0;  // bar.red: threads that took part
};

struct Block {
    static constexpr std::uint32_t barrier_count = 16;
    // Waits that are no hardware barrier (Warp::barrier_id): a warp pausing for one round
    // (mbarrier.test_wait found its phase incomplete), and one asleep in mbarrier.try_wait.
    static constexpr std::uint32_t yield_barrier = barrier_count;
    static constexpr std::uint32_t mbarrier_barrier = barrier_count + 1;
    // A warp in barrier.cluster.wait (cluster.h), released when the cluster's phase completes.
    static constexpr std::uint32_t cluster_barrier = barrier_count + 2;
    std::uint32_t linear = 0;
    std::uint32_t ctaid[3] = {0, 0, 0};
    std::vector<Warp> warps;
    std::vector<std::uint8_t> shared;
    std::vector<SharedShadow> shadow;
    std::array<BarrierState, barrier_count> barriers{};
    std::uint32_t epoch = first_epoch;  // increments at each barrier release
    std::uint8_t sm = 0;
    bool detail = false;  // record full events
    // Its cluster (every block has one: a launch without cluster dimensions gives each block a
    // cluster of its own), its rank there, and whether it has exited (its shared memory is gone:
    // another block's access to it is a fault). stalled: in the last round every live warp waited
    // and a cluster barrier was among the waits, which only another block can release.
    ClusterState* cluster = nullptr;
    std::uint32_t cluster_rank = 0;
    bool exited = false;
    bool stalled = false;
    std::uint64_t seq = 0;
    std::array<Allocation*, 4>
        recent_buffers{};  // the global buffers accesses hit last, newest first
    // The global race detector's shadows of recent buffers, and the launch they belong to.
    std::array<std::pair<const Allocation*, std::uint32_t*>, 4> recent_shadows{};
    std::uint64_t shadows_serial = 0;
    std::uint64_t warp_instructions = 0;  // not yet added to the launch's totals
    std::uint64_t thread_instructions = 0;
    std::vector<WarpEvent> events;
    std::vector<MemAccess> accesses;
    // The global bytes this worker's blocks touched (LaunchState::record_footprint), in access
    // order; an access that continues the last span extends it (the coalesced common case).
    std::vector<MemorySpan> footprint;
    std::vector<PcCounters>* counters = nullptr;  // the worker's per-pc counters
    std::vector<std::uint32_t> warned_uninit_pcs;
    std::uint32_t stamps = 0;  // the last Warp::stamp handed out
    // The warp that set up its registers last: its register storage is the one in the host's
    // cache, handed to the next warp that starts if this one no longer uses it (-1: none).
    std::int32_t hot_warp = -1;
};

// The next number of a warp's random stream (splitmix64: small, and the same on every host).
inline std::uint64_t next_random(Warp& w) {
    std::uint64_t z = (w.rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// A fresh Warp::stamp: 27 bits (the shadow keeps stamp << 5 | lane), never 0, which marks a word
// no lane wrote plainly. (It comes round again only after 2^27 synchronisations in one block.)
inline std::uint32_t next_stamp(Block& block) {
    block.stamps = (block.stamps + 1) & 0x7ffffffu;
    if (block.stamps == 0) block.stamps = 1;
    return block.stamps;
}

}  // namespace cudalab::emu
