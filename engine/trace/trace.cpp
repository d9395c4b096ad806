#include "trace/trace.h"

namespace cudalab {

const char* mem_space_name(MemSpace space) {
    switch (space) {
    case MemSpace::global: return "global";
    case MemSpace::shared: return "shared";
    case MemSpace::local: return "local";
    case MemSpace::param: return "param";
    case MemSpace::constant: return "const";
    case MemSpace::generic: return "generic";
    case MemSpace::distributed_shared: return "distributed shared";
    }
    return "?";
}

const char* mem_op_name(MemOp op) {
    switch (op) {
    case MemOp::load: return "load";
    case MemOp::store: return "store";
    case MemOp::atomic: return "atomic";
    }
    return "?";
}

std::size_t Trace::memory_bytes() const {
    std::size_t bytes = sizeof(*this);
    bytes += pcs.capacity() * sizeof(PcInfo);
    for (const auto& p : pcs) bytes += p.text.capacity() + p.op_class.capacity();
    bytes += per_pc.capacity() * sizeof(PcCounters);
    bytes += events.capacity() * sizeof(WarpEvent);
    bytes += accesses.capacity() * sizeof(MemAccess);
    bytes += detail_blocks.capacity() * sizeof(std::uint32_t);
    bytes += block_sm.capacity() + block_wave.capacity() * sizeof(std::uint32_t);
    return bytes;
}

}  // namespace cudalab
