// Trace: what a launch did, per warp instruction, in a form one analyzer and one set of views can
// read whichever backend produced it.
//
// Two levels, so that a million-thread launch stays small:
//   - counters for every warp instruction of every block, aggregated per PTX instruction (pc);
//   - full events (active mask, per-lane addresses) for the blocks a learner looks at
//     (TraceOptions::detail_blocks), capped by TraceOptions::max_events.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace cudalab {

// distributed_shared: another block's shared memory in the cluster (sm_90, .shared::cluster or a
// generic address from mapa); the address recorded is the shared::cluster one (emulator/cluster.h).
enum class MemSpace : std::uint8_t {
    global,
    shared,
    local,
    param,
    constant,
    generic,
    distributed_shared
};
enum class MemOp : std::uint8_t { load, store, atomic };
const char* mem_space_name(MemSpace space);
const char* mem_op_name(MemOp op);

struct TraceOptions {
    bool enabled = true;
    // Linear block ids (x + y*gx + z*gx*gy) recorded in full. Empty: the first
    // `auto_detail_blocks`.
    std::vector<std::uint32_t> detail_blocks;
    std::uint32_t auto_detail_blocks = 4;
    std::uint64_t max_events = 2'000'000;  // detail events beyond this are counted, not stored
    // Record which thread stored each word (for "element 17 was written by ..."); a shadow as
    // large as the buffers. The CUDA runtime counts without it.
    bool writers = true;
};

// The per-lane addresses of one warp memory instruction (detail only).
struct MemAccess {
    MemSpace space = MemSpace::global;  // resolved space (generic addresses are resolved)
    MemOp op = MemOp::load;
    std::uint8_t bytes_per_lane = 4;         // access width per lane (v4.f32 -> 16)
    std::uint32_t mask = 0;                  // lanes that accessed
    std::uint64_t base = 0;                  // lowest address among the lanes
    std::array<std::uint32_t, 32> offset{};  // lane address = base + offset[lane]
    std::uint64_t address(int lane) const { return base + offset[lane]; }
};

enum class EventKind : std::uint8_t {
    instruction,      // an ordinary warp instruction
    branch,           // a branch; `taken` holds the lanes that took it
    barrier_arrive,   // the warp arrived at bar.sync and waits
    barrier_release,  // the block's barrier completed
    exit,             // lanes exited
};

// One warp instruction of a detail block, in the order the emulator executed it.
struct WarpEvent {
    std::uint64_t seq = 0;    // global order of execution within the launch
    std::uint32_t block = 0;  // linear block id
    std::uint16_t warp = 0;   // warp within the block
    EventKind kind = EventKind::instruction;
    std::uint8_t sm = 0;              // modelled SM the block ran on
    std::uint32_t pc = 0;             // index into the kernel's instructions
    std::uint32_t active = 0;         // lanes executing (after divergence)
    std::uint32_t predicated_on = 0;  // active lanes whose guard predicate held
    std::uint32_t taken = 0;          // branch: lanes that jumped
    std::int32_t mem = -1;            // index into Trace::accesses, or -1
};

// Counters for one PTX instruction (pc) over every warp of every block.
struct PcCounters {
    std::uint64_t warp_executions = 0;
    std::uint64_t active_lanes = 0;      // sum over executions of popc(active)
    std::uint64_t predicated_lanes = 0;  // ... of lanes that also passed the guard
    // Global memory (rule in docs/design.md): one request per warp instruction.
    std::uint64_t requests = 0;
    std::uint64_t sectors = 0;  // distinct 32-byte sectors touched
    std::uint64_t lines = 0;    // distinct 128-byte lines
    std::uint64_t requested_bytes = 0;
    // Shared memory: wavefronts actually needed vs the minimum for the access width.
    std::uint64_t shared_wavefronts = 0;
    std::uint64_t shared_ideal_wavefronts = 0;
    // Branches: executions whose lanes split both ways.
    std::uint64_t divergent_branches = 0;
    std::uint64_t atomics = 0;  // lane-level atomic operations
    // Constant memory: warp instructions that read it, and the constant-cache requests they
    // needed (one per distinct address among the lanes: 1 is a broadcast, more serialise).
    std::uint64_t constant_loads = 0;
    std::uint64_t constant_requests = 0;
};

struct KernelInfo {
    std::string name;   // source name
    std::string entry;  // PTX entry
    std::uint32_t grid[3] = {1, 1, 1};
    std::uint32_t block[3] = {1, 1, 1};
    std::uint32_t dynamic_shared_bytes = 0;
    std::uint32_t num_sms = 0;  // modelled SMs
    // Blocks per thread block cluster (sm_90; 1 x 1 x 1 without clusters): a cluster's blocks are
    // the ones whose ctaid / cluster is the same, and they may touch each other's shared memory
    // (MemSpace::distributed_shared).
    std::uint32_t cluster[3] = {1, 1, 1};
};

// Static facts about each pc (shared by views): source line, opcode text, class.
struct PcInfo {
    std::uint32_t line = 0;
    std::string text;      // the PTX instruction as written
    std::string op_class;  // "arith", "memory", "control", "barrier", ... (ptx/opcodes.def)
    std::string opcode;    // the mnemonic: "ld", "st", "atom", "bra", "bar", ...
    std::string function;  // the PTX function it belongs to
};

struct Trace {
    KernelInfo kernel;
    std::vector<PcInfo> pcs;
    std::vector<PcCounters> per_pc;
    std::vector<WarpEvent> events;
    std::vector<MemAccess> accesses;
    std::vector<std::uint32_t> detail_blocks;  // which blocks have events
    std::vector<std::uint8_t> block_sm;        // modelled SM of each block (every block)
    std::vector<std::uint32_t> block_wave;     // which wave of residency it ran in
    std::uint64_t dropped_events = 0;          // detail events over max_events
    std::uint64_t barriers = 0;                // block-level barrier completions

    std::size_t memory_bytes() const;  // what this trace holds in memory
};

}  // namespace cudalab
