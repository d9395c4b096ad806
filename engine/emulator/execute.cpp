// The meaning of each PTX instruction, one handler per row of ptx/opcodes.def, dispatched through a
// table generated from it. Each handler names the PTX ISA section it implements.
//
// [SECTION] Values and lanes
// [SECTION] The execution context
// [SECTION] Memory: address resolution, bounds checks, trace counters
// [SECTION] Half precision: f16 and bf16
// [SECTION] SIMD integer and video instructions
// [SECTION] Integer and floating-point arithmetic
// [SECTION] Comparison, selection, logic
// [SECTION] Data movement and conversion
// [SECTION] Loads, stores, atomics
// [SECTION] Races between blocks in global memory
// [SECTION] What a launch touched, for the race detector between streams (cudart/ordering.h)
// [SECTION] Textures and surfaces: tex, tld4, txq, suld, sust, sured, suq
// [SECTION] Tensor cores: wmma, mma, ldmatrix, stmatrix, movmatrix
// [SECTION] Control flow and calls
// [SECTION] Barriers and warp collectives
// [SECTION] Asynchronous barriers and copies: mbarrier, cp.async, elect
// [SECTION] Specialised forms of the commonest instructions
// [SECTION] Dispatch

#include "emulator/execute.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <sstream>
#include <type_traits>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "analysis/memory_rules.h"
#include "emulator/cluster.h"
#include "emulator/float_lanes.h"
#include "emulator/texture.h"
#include "ptx/matrix.h"

namespace cudalab::emu {

using ptx::Cmp;
using ptx::Instruction;
using ptx::Opcode;
using ptx::Operand;
using ptx::OperandKind;
using ptx::Rounding;
using ptx::Space;
using ptx::SubOp;
using ptx::Type;

namespace {

// [SECTION] Values and lanes ----------------------------------------------------------------------

template <class T> inline T get(std::uint64_t v) {
    if constexpr (std::is_same_v<T, float>) return std::bit_cast<float>(std::uint32_t(v));
    else if constexpr (std::is_same_v<T, double>) return std::bit_cast<double>(v);
    else return T(v);
}

template <class T> inline std::uint64_t put(T v) {
    if constexpr (std::is_same_v<T, float>) return std::bit_cast<std::uint32_t>(v);
    else if constexpr (std::is_same_v<T, double>) return std::bit_cast<std::uint64_t>(v);
    else if constexpr (std::is_signed_v<T>) return std::uint64_t(std::make_unsigned_t<T>(v));
    else return std::uint64_t(v);
}

template <class T> inline bool is_negative(T v) {
    if constexpr (std::is_signed_v<T>) return v < T(0);
    else return false;
}

// Two's-complement wraparound for signed types without C++ signed overflow (undefined behaviour).
template <class T> inline T wrap_add(T a, T b) {
    if constexpr (std::is_integral_v<T>)
        return T(std::make_unsigned_t<T>(a) + std::make_unsigned_t<T>(b));
    else return a + b;
}
template <class T> inline T wrap_sub(T a, T b) {
    if constexpr (std::is_integral_v<T>)
        return T(std::make_unsigned_t<T>(a) - std::make_unsigned_t<T>(b));
    else return a - b;
}
template <class T> inline T wrap_mul(T a, T b) {
    if constexpr (std::is_integral_v<T>)
        return T(std::uint64_t(std::make_unsigned_t<T>(a)) * std::make_unsigned_t<T>(b));
    else return a * b;
}

// Runs the body for each lane l in the mask. A full warp (the common case) takes a plain counted
// loop the compiler can unroll and vectorise; a partial mask walks its set bits.
#define FOR_LANES(mask, ...)                                                                       \
    if (const std::uint32_t fm_ = (mask); fm_ == 0xffffffffu) {                                    \
        for (int l = 0; l < 32; ++l) {                                                             \
            __VA_ARGS__;                                                                           \
        }                                                                                          \
    } else                                                                                         \
        for (std::uint32_t m_ = fm_; m_; m_ &= m_ - 1) {                                           \
            const int l = __builtin_ctz(m_);                                                       \
            __VA_ARGS__;                                                                           \
        }

inline float flush(float f) {
    return std::fpclassify(f) == FP_SUBNORMAL ? std::copysign(0.f, f) : f;
}
inline double flush(double f) { return f; }  // .ftz applies to f32 only

// An f32 operation that yields NaN gives the canonical NaN 0x7fffffff on the GPU (seen on an H200),
// where the host would keep an input's payload or make 0xffc00000 (which printf shows as "-nan").
// f64 NaNs agree with the host's already (0xfff8000000000000).
inline float canonical(float r) { return r != r ? std::bit_cast<float>(0x7fffffffu) : r; }
inline double canonical(double r) { return r; }
// An f64 result that is NaN because an operand is: the first NaN operand, quieted (an H200 keeps
// the payload and prefers a over b over c; the host may pick either). f32 NaNs are canonical.
inline double quiet(double v) {
    return std::bit_cast<double>(std::bit_cast<std::uint64_t>(v) | (1ull << 51));
}
inline float nan_operand(float r, float, float, float = 0) { return r; }
inline double nan_operand(double r, double a, double b, double c = 0) {
    if (r == r) return r;
    if (a != a) return quiet(a);
    if (b != b) return quiet(b);
    if (c != c) return quiet(c);
    return r;
}
// An f64 NaN narrowed to a format of `exponent` and `fraction` bits: sign and the top of the
// payload kept, quiet bit set (an H200's cvt.f32.f64 and cvt.f16.f64; its f32 -> f16 instead gives
// the canonical NaN).
inline std::uint32_t narrowed_nan(std::uint64_t bits, int exponent, int fraction) {
    const std::uint32_t sign = std::uint32_t(bits >> 63) << (exponent + fraction);
    const std::uint32_t payload = std::uint32_t((bits & ((1ull << 52) - 1)) >> (52 - fraction));
    return sign | (((1u << exponent) - 1) << fraction) | (1u << (fraction - 1)) | payload;
}
// .sat: clamp to [+0, 1]; NaN and -0 become +0 (an H200's cvt.sat.f32.f32 of -0 is +0).
template <class T> T saturate01(T v) { return v != v || v <= T(0) ? T(0) : std::min(v, T(1)); }

// Directed rounding for the rare instructions that ask for it (expf's range reduction uses
// fma.rm). This file is compiled with -frounding-math so the compiler honours the mode.
struct RoundingScope {
    int saved = -1;
    explicit RoundingScope(Rounding r) {
        int mode = r == Rounding::rz || r == Rounding::rzi   ? FE_TOWARDZERO
                   : r == Rounding::rm || r == Rounding::rmi ? FE_DOWNWARD
                   : r == Rounding::rp || r == Rounding::rpi ? FE_UPWARD
                                                             : -1;
        if (mode >= 0) {
            saved = std::fegetround();
            std::fesetround(mode);
        }
    }
    ~RoundingScope() {
        if (saved >= 0) std::fesetround(saved);
    }
};

std::string hex(std::uint64_t v) {
    std::ostringstream s;
    s << "0x" << std::hex << v;
    return s.str();
}

}  // namespace

// [SECTION] The execution context -----------------------------------------------------------------

// Declared in state.h (handlers take it); everything else in this file is internal.
struct Exec {
    LaunchState& launch;
    Block& block;
    Warp& warp;
    BlockOutput& out;
    Frame* frame;
    const PreparedFunction* fn;
    const Instruction* in;
    std::uint32_t pc;
    std::uint32_t active;  // lanes at this pc (after divergence)
    std::uint32_t mask;    // active lanes whose guard holds
    std::uint32_t gpc;     // pc in the module-wide numbering the trace uses
    bool event;            // a detail event was recorded for this instruction
    // Operand staging for immediates-by-symbol and special registers. Deliberately left
    // uninitialised: zeroing 1 KB per instruction cost a third of the interpreter's time.
    struct Scratch {
        std::uint64_t lanes[4][32];
        Scratch() {}
        std::uint64_t* operator[](int i) { return lanes[i]; }
    } scratch;
    int scratch_used = 0;

    // A constructor, not aggregate initialisation: braces would zero the 1 KB scratch every step.
    Exec(LaunchState& l, Block& b, Warp& w, BlockOutput& o, Frame* f, const PreparedFunction* p,
         const Instruction* i, std::uint32_t at, std::uint32_t lanes, std::uint32_t global_pc,
         bool detail)
        : launch(l), block(b), warp(w), out(o), frame(f), fn(p), in(i), pc(at), active(lanes),
          mask(lanes), gpc(global_pc), event(detail) {}

    std::uint64_t* reg(std::int32_t r) { return frame->regs.data() + std::size_t(r) * 32; }

    std::uint64_t* dst(int i) {
        const Operand& o = in->operands[i];
        if (o.kind == OperandKind::reg) return reg(o.reg);
        if (o.kind == OperandKind::sink) return scratch[3];  // "_": written nowhere
        unsupported_operand(i);
    }

    const std::uint64_t* src(int i) {
        const Operand& o = in->operands[i];
        if (o.kind == OperandKind::reg && !o.negate) return reg(o.reg);
        std::uint64_t* s = scratch[scratch_used++ & 3];
        if (o.kind == OperandKind::reg) {  // !%p
            const std::uint64_t* r = reg(o.reg);
            for (int l = 0; l < 32; ++l) s[l] = !(r[l] & 1);
            return s;
        }
        std::uint64_t v = 0;
        if (o.kind == OperandKind::symbol) v = symbol_address(o) + std::uint64_t(o.value);
        else if (o.kind == OperandKind::special) {
            for (int l = 0; l < 32; ++l) s[l] = special(o.special, l);
            return s;
        } else if (o.kind == OperandKind::imm) v = std::uint64_t(o.value);
        else unsupported_operand(i);  // a vector or address where this handler wants one value
        for (int l = 0; l < 32; ++l) s[l] = v;
        if (o.negate)
            for (int l = 0; l < 32; ++l) s[l] = !s[l];
        return s;
    }

    // The address a symbol names in its own state space.
    std::uint64_t symbol_address(const Operand& o) {
        switch (o.scope) {
        case Operand::module_scope:
            if (launch.program.dynamic_shared[std::size_t(o.symbol)]) return launch.static_shared;
            return launch.program.global_addresses[std::size_t(o.symbol)];
        case Operand::function_scope: {
            const ptx::Symbol& s = fn->fn.locals[std::size_t(o.symbol)];
            std::uint64_t off = fn->local_offsets[std::size_t(o.symbol)];
            if (s.space == Space::shared) return s.is_extern ? launch.static_shared : off;
            return frame->local_base + off;  // .local and call-site .param live in the frame
        }
        case Operand::param_scope:
            if (fn->fn.is_entry)
                return kernel_param_base + fn->fn.params[std::size_t(o.symbol)].offset;
            return frame->local_base + fn->param_offsets[std::size_t(o.symbol)];
        case Operand::return_scope:
            return frame->local_base + fn->return_offsets[std::size_t(o.symbol)];
        case Operand::code_scope: return function_window + 16 * std::uint64_t(o.symbol);
        }
        return 0;
    }

    std::uint64_t special(ptx::Special s, int lane) {
        using ptx::Special;
        const auto& c = launch.config;
        switch (s) {
        case Special::smid: return block.sm;
        case Special::nsmid: return launch.num_sms;
        case Special::warpid: return warp.id;
        case Special::nwarpid: return 64;
        case Special::gridid: return 1;
        // A modelled clock: monotonic, advancing with the warp's instructions (not real time).
        case Special::clock: return std::uint32_t(block.linear * 100000ull + warp.instructions * 4);
        case Special::clock64: return block.linear * 100000ull + warp.instructions * 4;
        case Special::globaltimer: return (block.linear * 100000ull + warp.instructions * 4) * 1;
        case Special::globaltimer_lo:
            return std::uint32_t(block.linear * 100000ull + warp.instructions * 4);
        case Special::globaltimer_hi: return 0;
        case Special::dynamic_smem_size: return c.dynamic_shared_bytes;
        case Special::total_smem_size: return launch.shared_bytes;
        // The grid workspace cooperative_groups::this_grid() reads (cooperative launches only).
        case Special::envreg0: return 0;
        case Special::envreg1: return std::uint32_t(launch.grid_workspace >> 32);  // high half
        case Special::envreg2:
            return std::uint32_t(launch.grid_workspace);  // low half
        // The reserved shared memory, after the block's own (emulator.cpp): _0 at its start,
        // _1 (cooperative groups' scratch, at most 288 bytes) in its second half.
        case Special::reserved_smem_begin:
        case Special::reserved_smem_0: return launch.reserved_shared;
        case Special::reserved_smem_1: return launch.reserved_shared + reserved_shared_bytes / 2;
        case Special::reserved_smem_end: return launch.reserved_shared + reserved_shared_bytes;
        case Special::reserved_smem_cap: return reserved_shared_bytes;
        default: return lane_constant(launch, block, warp, s, lane);
        }
    }

    static std::uint64_t lane_constant(LaunchState& launch, Block& block, Warp& warp,
                                       ptx::Special s, int lane) {
        using ptx::Special;
        const auto& c = launch.config;
        std::uint32_t t = warp.id * 32 + std::uint32_t(lane);
        std::uint32_t tx = t % c.block.x, ty = (t / c.block.x) % c.block.y,
                      tz = t / (c.block.x * c.block.y);
        switch (s) {
        case Special::tid_x: return tx;
        case Special::tid_y: return ty;
        case Special::tid_z: return tz;
        case Special::ntid_x: return c.block.x;
        case Special::ntid_y: return c.block.y;
        case Special::ntid_z: return c.block.z;
        case Special::ctaid_x: return block.ctaid[0];
        case Special::ctaid_y: return block.ctaid[1];
        case Special::ctaid_z: return block.ctaid[2];
        case Special::nctaid_x: return c.grid.x;
        case Special::nctaid_y: return c.grid.y;
        case Special::nctaid_z: return c.grid.z;
        case Special::laneid: return std::uint64_t(lane);
        case Special::warpsz: return 32;
        case Special::lanemask_eq: return 1u << lane;
        case Special::lanemask_lt: return (1u << lane) - 1;
        case Special::lanemask_le: return lane == 31 ? 0xffffffffu : (2u << lane) - 1;
        case Special::lanemask_gt: return lane == 31 ? 0u : ~((2u << lane) - 1);
        case Special::lanemask_ge: return ~((1u << lane) - 1);
        // PTX ISA 10.x (%cluster_*, %clusterid): clusters tile the grid in launch.cluster's
        // shape; without cluster dimensions every block is a cluster of one (1 x 1 x 1).
        case Special::cluster_ctarank: return cluster_rank(block, launch.cluster);
        case Special::cluster_ctaid_x: return block.ctaid[0] % launch.cluster.x;
        case Special::cluster_ctaid_y: return block.ctaid[1] % launch.cluster.y;
        case Special::cluster_ctaid_z: return block.ctaid[2] % launch.cluster.z;
        case Special::cluster_nctarank: return launch.cluster.count();
        case Special::cluster_nctaid_x: return launch.cluster.x;
        case Special::cluster_nctaid_y: return launch.cluster.y;
        case Special::cluster_nctaid_z: return launch.cluster.z;
        case Special::clusterid_x: return block.ctaid[0] / launch.cluster.x;
        case Special::clusterid_y: return block.ctaid[1] / launch.cluster.y;
        case Special::clusterid_z: return block.ctaid[2] / launch.cluster.z;
        case Special::nclusterid_x: return c.grid.x / launch.cluster.x;
        case Special::nclusterid_y: return c.grid.y / launch.cluster.y;
        case Special::nclusterid_z: return c.grid.z / launch.cluster.z;
        case Special::is_explicit_cluster: return launch.explicit_cluster ? 1 : 0;
        default: return 0;
        }
    }

    [[noreturn]] void fault(std::string kind, std::string detail, std::string advice, int lane = -1,
                            std::uint32_t other_lanes = 0) {
        FaultInfo f;
        f.kind = std::move(kind);
        f.detail = std::move(detail);
        f.advice = std::move(advice);
        f.pc = pc;
        f.function = frame->function;
        f.block = block.linear;
        f.warp = warp.id;
        f.lane = lane;
        f.other_lanes = other_lanes;
        throw Fault(std::move(f));
    }

    // An operand of a form the instruction's handler does not read (say a {vector} where it
    // takes one value): an error, never a silently made-up value.
    [[noreturn]] void unsupported_operand(int i) {
        const OperandKind k = in->operands[i].kind;
        const char* form = k == OperandKind::vector    ? "a vector {...}"
                           : k == OperandKind::address ? "an address [...]"
                                                       : "this form";
        fault("unsupported instruction",
              "the emulator does not implement '" + in->text + "' with operand " +
                  std::to_string(i + 1) + " as " + form,
              "rewrite this line without it, or run on a GPU with --backend gpu; please report it");
    }

    [[noreturn]] void unsupported(const std::string& what) {
        fault("unsupported instruction",
              "the emulator does not implement '" + what + "' (PTX: " + in->text + ")",
              "rewrite this line without it, or run on a GPU with --backend gpu; please report it");
    }

    // Per-pc counters exist only when the launch is traced (they feed the analysis); an untraced
    // launch (cudalab exec without --trace, the benchmark) skips them.
    bool counting() const { return block.counters != nullptr; }
    PcCounters& counters() { return (*block.counters)[gpc]; }
};

namespace {

// A per-lane special register (%tid.x, %ctaid.y, %laneid, ...) for all 32 lanes, filled when a
// warp or call starts. Most are the same in every lane and are computed once.
void fill_lane_special(LaunchState& launch, Block& block, Warp& warp, ptx::Special s,
                       std::uint64_t* r) {
    using ptx::Special;
    const bool per_lane = s == Special::tid_x || s == Special::tid_y || s == Special::tid_z ||
                          s == Special::laneid || s == Special::lanemask_eq ||
                          s == Special::lanemask_lt || s == Special::lanemask_le ||
                          s == Special::lanemask_gt || s == Special::lanemask_ge;
    if (!per_lane) {
        const std::uint64_t v = Exec::lane_constant(launch, block, warp, s, 0);
        for (int l = 0; l < 32; ++l) r[l] = v;
    } else if (s == Special::tid_x && launch.config.block.x % 32 == 0) {  // a warp is one run of x
        const std::uint64_t first = (warp.id * 32) % launch.config.block.x;
        for (int l = 0; l < 32; ++l) r[l] = first + std::uint64_t(l);
    } else {
        for (int l = 0; l < 32; ++l) r[l] = Exec::lane_constant(launch, block, warp, s, l);
    }
}

// [SECTION] Memory: address resolution, bounds checks, trace counters -----------------------------

struct Access {
    std::uint8_t* ptr = nullptr;
    MemSpace space = MemSpace::global;
    Allocation* allocation = nullptr;
    std::uint32_t shared_offset = 0;
};

const char* space_word(Space s) {
    switch (s) {
    case Space::global: return "global";
    case Space::shared: return "shared";
    case Space::local: return "local";
    case Space::param: return "parameter";
    case Space::constant: return "constant";
    default: return "generic";
    }
}

// The per-lane address of a memory operand, in the instruction's own state space.
[[gnu::always_inline]] inline void lane_addresses(Exec& x, const Operand& o, std::uint64_t* addr) {
    if (o.reg >= 0) {
        const std::uint64_t* base = x.reg(o.reg);
        FOR_LANES(x.mask, addr[l] = base[l] + std::uint64_t(o.value));
    } else {
        std::uint64_t a = (o.symbol >= 0 ? x.symbol_address(o) : 0) + std::uint64_t(o.value);
        FOR_LANES(x.mask, addr[l] = a);
    }
}

// Whether this launch may touch buffer a (with only_argument_buffers; else any buffer): a module
// variable, or a buffer one of the kernel's parameters points into (or one past). Anything else is
// another launch's or another array's buffer that an out-of-range index happened to land in: on a
// GPU it reads or overwrites that data silently; here it is a fault. Called only when a buffer is
// looked up, not per access.
bool launch_may_touch(const Exec& x, const Allocation* a) {
    if (!x.launch.only_argument_buffers || a->label.rfind("global variable", 0) == 0 ||
        a->label.rfind("__managed__ variable", 0) == 0)
        return true;
    const auto& p = x.launch.params;
    for (std::size_t off = 0; off + 8 <= p.size(); off += 8) {
        std::uint64_t v;
        std::memcpy(&v, p.data() + off, 8);
        if (v >= a->base && v <= a->base + a->size) return true;
    }
    return false;
}

// Whether [offset, offset + size) lies inside [0, limit). Written so that no sum can wrap round:
// an offset just below 2^64 (a negative index) plus the size is a small number, which a plain
// `offset + size <= limit` would let through to memory before the buffer (issue 23).
inline bool fits(std::uint64_t offset, std::uint64_t size, std::uint64_t limit) {
    return size <= limit && offset <= limit - size;
}

// An offset into a space for messages: a negative one (an index below 0) as such.
std::string offset_text(std::uint64_t offset) {
    if (std::int64_t(offset) < 0)
        return std::to_string(std::int64_t(offset)) + " (" + std::to_string(0 - offset) +
               " bytes before its start)";
    return std::to_string(offset);
}

// The block whose shared memory a shared::cluster address at or above 1 << 24 names: another
// block of the cluster (or this one). A rank outside the cluster, or a block that has exited, is a
// fault: on a GPU the access is an unspecified launch failure that ends the whole program.
Block* cluster_target(Exec& x, std::uint64_t addr, std::uint32_t size, const char* verb, int lane) {
    const std::uint64_t rank = cluster_rank_of(addr, x.block.cluster_rank);
    const std::uint32_t n = std::uint32_t(x.launch.cluster.count());
    const std::string what = std::to_string(size) + "-byte " + verb +
                             " at shared::cluster address " + hex(addr) + " (offset " +
                             std::to_string(addr & cluster_offset_mask) +
                             " in the shared memory of cluster rank " + std::to_string(rank) + ")";
    if (rank >= n || !x.block.cluster || rank >= x.block.cluster->blocks.size())
        x.fault("distributed shared memory access outside the cluster",
                what + ", but the cluster has " + std::to_string(n) + " block" +
                    (n == 1 ? "" : "s") + " (ranks 0 to " + std::to_string(n - 1) +
                    "); this block is rank " + std::to_string(x.block.cluster_rank),
                n == 1 ? "launch with cluster dimensions (cudaLaunchKernelEx with "
                         "cudaLaunchAttributeClusterDimension, or __cluster_dims__) to share "
                         "shared memory between blocks"
                       : "map_shared_rank(ptr, rank) takes a rank below cluster.num_blocks()",
                lane);
    Block* target = x.block.cluster->blocks[std::size_t(rank)];
    if (target->exited)
        x.fault("distributed shared memory access to a block that has exited",
                what + ": block " + std::to_string(target->linear) + " (" +
                    std::to_string(target->ctaid[0]) + "," + std::to_string(target->ctaid[1]) +
                    "," + std::to_string(target->ctaid[2]) +
                    ") has finished, and its shared memory went with it",
                "a block must not exit while other blocks of its cluster may still use its shared "
                "memory: call cluster.sync() before returning",
                lane);
    return target;
}

Access resolve(Exec& x, Space space, std::uint64_t addr, std::uint32_t size, const char* verb,
               int lane, Allocation*& cache) {
    Access r;
    const Space space_given = space;
    auto oob = [&](const char* where, std::uint64_t limit) {
        x.fault(std::string("out-of-bounds ") + verb + " in " + where + " memory",
                std::to_string(size) + " bytes at offset " + offset_text(addr) + ", but the " +
                    where + " memory here is " + std::to_string(limit) + " bytes",
                std::string("check the index used for this ") + where + " array", lane);
    };
    if (space == Space::generic) {
        if (addr >= shared_window && addr < shared_window + window_size) {
            space = Space::shared;
            addr -= shared_window;
        } else if (addr >= local_window && addr < local_window + window_size) {
            space = Space::local;
            addr -= local_window;
        } else if (addr >= const_window && addr < const_window + window_size) {
            space = Space::constant;
            addr -= const_window;
        } else if (addr >= param_window && addr < param_window + window_size) {
            space = Space::param;
            addr -= param_window;
        } else space = Space::global;
    }
    if (size > 1 && (addr & (size - 1)) != 0)  // sizes are powers of two (1-16 bytes)
        x.fault(std::string("misaligned ") + verb + " in " + space_word(space) + " memory",
                std::to_string(size) + "-byte access at address " + hex(addr) +
                    ", which is not a multiple of " + std::to_string(size),
                "a value of N bytes must sit at an address divisible by N; check pointer casts and "
                "offsets",
                lane);
    switch (space) {
    case Space::global: {
        Allocation* a = cache;
        if (!a || addr < a->base || !fits(addr - a->base, size, a->size)) {
            a = x.launch.memory.find(addr, size);
            if (!a) {
                const Allocation* near = x.launch.memory.nearest(addr);
                std::string detail = std::to_string(size) + " bytes at " + hex(addr);
                // A generic address a little below a window is one of the window's spaces at a
                // negative offset (a pointer to shared memory indexed below 0, say).
                const char* below_window = nullptr;
                for (auto [base, name] :
                     {std::pair{shared_window, "shared"}, std::pair{local_window, "local"},
                      std::pair{const_window, "constant"}, std::pair{param_window, "parameter"}})
                    if (space_given == Space::generic && addr < base && base - addr <= (1u << 20))
                        below_window = name;
                const bool near_buffer =
                    near && !near->freed &&
                    (addr >= near->base ? addr - near->base : near->base - addr) < (1ull << 32);
                if (addr < 65536) {
                    detail += ", a null pointer (or a small offset from one)";
                } else if (below_window) {
                    detail += std::string(", just below the generic window of ") + below_window +
                              " memory: a " + below_window + "-memory pointer at a negative offset";
                } else if (near_buffer) {
                    if (addr >= near->base + near->size)
                        detail += ", " + std::to_string(addr - (near->base + near->size)) +
                                  " bytes past the end of " + std::to_string(near->size) +
                                  "-byte buffer (" + near->label + ")";
                    else if (addr < near->base)
                        detail += ", " + std::to_string(near->base - addr) +
                                  " bytes before the start of " + std::to_string(near->size) +
                                  "-byte buffer (" + near->label + ")";
                    else
                        detail += ", running past the end of " + std::to_string(near->size) +
                                  "-byte buffer (" + near->label + ")";
                } else {
                    detail += ", which is not inside any buffer";
                }
                x.fault(std::string("out-of-bounds ") + verb + " in global memory", detail,
                        addr < 65536 ? "the pointer is null: pass the kernel a buffer from "
                                       "cudaMalloc, and check where the "
                                       "pointer was set"
                                     : "guard the access so the index stays below the array's "
                                       "length, e.g. `if (i < n)`",
                        lane);
            }
            if (a->freed)
                x.fault(std::string("use after free: ") + verb + " of global memory",
                        std::to_string(size) + " bytes at " + hex(addr) + " in buffer " + a->label +
                            ", which was freed",
                        "do not use a buffer after cudaFree", lane);
            if (!launch_may_touch(x, a))
                x.fault(
                    std::string("out-of-bounds ") + verb + " in global memory",
                    std::to_string(size) + " bytes at " + hex(addr) + ", inside " +
                        std::to_string(a->size) + "-byte buffer " + a->label +
                        ", which no parameter of this launch points into: an index past the end of "
                        "one array "
                        "landed in another (on a GPU it silently reads or overwrites that data)",
                    "guard the access so the index stays inside the array it belongs to, e.g. `if "
                    "(i < n)`",
                    lane);
            cache = a;
        }
        r.ptr = a->bytes() + (addr - a->base);
        r.allocation = a;
        r.space = MemSpace::global;
        return r;
    }
    case Space::shared: {
        // A shared::cluster address (an explicit .shared::cluster, or any generic one) may name
        // another block of the cluster (cluster.h); a shared::cta one is always the block's own.
        Block* target = &x.block;
        if ((space_given == Space::generic || (x.in->flags & ptx::f_cluster)) &&
            (addr >> cluster_rank_shift) != 0) {
            target = cluster_target(x, addr, size, verb, lane);
            addr &= cluster_offset_mask;
        }
        if (!fits(addr, size, target->shared.size()))
            oob(target == &x.block ? "shared" : "distributed shared", target->shared.size());
        r.ptr = target->shared.data() + addr;
        r.shared_offset = std::uint32_t(addr);
        r.space = target == &x.block ? MemSpace::shared : MemSpace::distributed_shared;
        return r;
    }
    case Space::local: {
        auto& mem = x.warp.local[std::size_t(lane)];
        if (!fits(addr, size, mem.size())) oob("local", mem.size());
        r.ptr = mem.data() + addr;
        r.space = MemSpace::local;
        return r;
    }
    case Space::param: {
        // A kernel's own parameters are one read-only buffer at kernel_param_base; the
        // parameters of a .func and the call-site .param symbols live in the thread's frame.
        // (An address a little below the kernel's parameters, as a negative offset from one of
        // them makes, is named as that offset, not as a frame offset.)
        if (addr >= kernel_param_base || kernel_param_base - addr <= (1u << 20)) {
            const std::uint64_t off = addr - kernel_param_base;
            if (!fits(off, size, x.launch.params.size())) {
                addr = off;  // named as an offset into the parameter buffer
                oob("kernel parameter", x.launch.params.size());
            }
            if (std::strcmp(verb, "load") != 0)
                x.fault(std::string(verb) + " to a kernel parameter",
                        "kernel parameters are read-only",
                        "copy the value into a local variable first", lane);
            r.ptr = const_cast<std::uint8_t*>(x.launch.params.data()) + off;
            r.space = MemSpace::param;
            return r;
        }
        auto& mem = x.warp.local[std::size_t(lane)];
        if (!fits(addr, size, mem.size())) oob("parameter", mem.size());
        r.ptr = mem.data() + addr;
        r.space = MemSpace::param;
        return r;
    }
    case Space::constant: {
        const Program& p = x.launch.program;
        if (!fits(addr, size, p.constant_size())) oob("constant", p.constant_size());
        r.ptr = const_cast<std::uint8_t*>(p.constant_bytes()) + addr;
        r.space = MemSpace::constant;
        return r;
    }
    default: break;
    }
    x.fault("bad address space", "unknown state space", "report this as a cudalab bug");
}

// The source line of an instruction in the module-wide pc numbering (for messages only).
std::uint32_t line_at(const Program& program, std::uint32_t gpc) {
    for (const PreparedFunction& f : program.functions)
        if (gpc >= f.pc_base && gpc < f.pc_base + f.fn.code.size())
            return f.fn.code[gpc - f.pc_base].line;
    return 0;
}

std::string dims_text(std::uint32_t linear, std::uint32_t dx, std::uint32_t dy) {
    char text[48];
    std::snprintf(text, sizeof text, "(%u,%u,%u)", linear % dx, linear / dx % dy,
                  linear / (dx * dy));
    return text;
}

// A read of shared memory no thread has written: a warning (the GPU reads whatever is there), once
// per instruction and launch.
void warn_uninitialised(Exec& x, std::uint32_t offset, int lane) {
    auto& warned = x.block.warned_uninit_pcs;
    if (std::find(warned.begin(), warned.end(), x.gpc) != warned.end()) return;
    warned.push_back(x.gpc);
    std::lock_guard<std::mutex> lock(x.launch.mutex);
    auto& launch_warned = x.launch.warned_pcs;
    if (std::find(launch_warned.begin(), launch_warned.end(), x.gpc) != launch_warned.end()) return;
    launch_warned.push_back(x.gpc);
    const bool first = x.launch.uninitialised_shared_reads++ == 0;
    if (x.launch.warnings.size() >= 20 && !first) return;
    const auto& c = x.launch.config;
    std::ostringstream m;
    m << (x.launch.program.source_path.empty() ? "kernel" : x.launch.program.source_path);
    if (x.in->line) m << ":" << x.in->line;
    m << ": warning: read of uninitialised shared memory in kernel '" << x.launch.display_name
      << "': block " << dims_text(x.block.linear, c.grid.x, c.grid.y) << ", thread "
      << dims_text(x.warp.id * 32 + std::uint32_t(lane), c.block.x, c.block.y)
      << " reads shared offset " << offset
      << ", which no thread of the block has written (its value is undefined); write it before "
         "reading it, and put "
         "__syncthreads() between";
    if (first) x.launch.first_uninitialised_shared_read = m.str();
    if (x.launch.warnings.size() < 20) x.launch.warnings.push_back(m.str());
}

// Race detector and uninitialised-read warnings for one lane's shared access.
// How a lane touches a shared word, for the race detector.
enum class SharedUse { read, write, atomic };

// The race fault: out of line, so the checks around it stay small enough to inline.
[[noreturn, gnu::noinline, gnu::cold]] void shared_race(Exec& x, std::uint32_t word, int lane,
                                                        const char* first, std::uint32_t other_gpc,
                                                        std::uint16_t other_warp,
                                                        const char* second) {
    FaultInfo f;
    f.kind = "shared-memory race";
    const std::uint32_t other_line = line_at(x.launch.program, other_gpc);
    // A race carried over a loop iteration: the other warp reached this word on its next pass
    // round a loop while this warp is still on the previous one. In the code the other access
    // comes after this one (an unrolled loop: a later copy of an earlier line) or there is a
    // barrier between them (a loop that runs round: the barrier separates only accesses of the
    // same pass).
    const std::uint32_t this_line = line_at(x.launch.program, x.gpc);
    std::uint32_t barrier_line = 0;
    bool carried = other_gpc > x.gpc && other_line != 0 && other_line <= this_line;
    for (const PreparedFunction& fn : x.launch.program.functions) {
        if (x.gpc < fn.pc_base || x.gpc >= fn.pc_base + fn.fn.code.size()) continue;
        for (std::uint32_t i = 0; i < fn.fn.code.size(); ++i) {
            const ptx::Opcode op = fn.fn.code[i].op;
            if (op != ptx::Opcode::bar && op != ptx::Opcode::barrier) continue;
            const std::uint32_t pc = fn.pc_base + i;
            if (other_gpc < x.gpc && pc > other_gpc && pc < x.gpc) carried = true;
            const std::uint32_t line = fn.fn.code[i].line;
            if (!barrier_line && line > std::min(other_line, this_line) &&
                line < std::max(other_line, this_line))
                barrier_line = line;
        }
    }
    const std::string who =
        other_warp == 0xFFFF ? std::string("other warps") : "warp " + std::to_string(other_warp);
    f.detail = std::string("warp ") + std::to_string(x.warp.id) + " " + second + " shared offset " +
               std::to_string(word * 4) + ", which " + who + " " + first + " at line " +
               std::to_string(other_line);
    if (carried) {
        f.detail +=
            " on its next pass round the loop, before warp " + std::to_string(x.warp.id) +
            " had finished the previous one" +
            (barrier_line ? " (the __syncthreads() at line " + std::to_string(barrier_line) +
                                " only separates the accesses of one pass)"
                          : std::string());
        f.advice = "a race carried over a loop iteration: put a second __syncthreads() at the end "
                   "of the loop body, after the "
                   "last use of the shared data, so no warp starts the next pass while others "
                   "still work on this one";
    } else {
        f.detail += " with no barrier in between";
        f.advice = "put __syncthreads() between the write and the read so every warp sees the "
                   "finished data";
    }
    f.pc = x.pc;
    f.function = x.frame->function;
    f.block = x.block.linear;
    f.warp = x.warp.id;
    f.lane = lane;
    f.other_line = other_line;
    throw Fault(std::move(f));
}

// Lanes of one warp that exchange data through shared memory with no __syncwarp between: safe in
// the emulator's lockstep, a race on sm_70 and later, whose lanes are scheduled independently.
[[noreturn, gnu::noinline, gnu::cold]] void warp_hazard(Exec& x, std::uint32_t word, int lane,
                                                        const char* second, const char* first,
                                                        int other_lane, std::uint32_t other_gpc) {
    FaultInfo f;
    f.kind = "warp-level race in shared memory";
    const std::uint32_t other_line = line_at(x.launch.program, other_gpc);
    f.detail = "lane " + std::to_string(lane) + " of warp " + std::to_string(x.warp.id) + " " +
               second + " shared offset " + std::to_string(word * 4) + ", which lane " +
               std::to_string(other_lane) + " of the same warp " + first + " at line " +
               std::to_string(other_line) +
               " with no __syncwarp() between. The emulator runs a warp's lanes in lockstep, but "
               "since Volta "
               "(sm_70) they are scheduled independently: on an H100 or H200 the read can see the "
               "old value";
    f.advice = "put __syncwarp() between the write and the read (a `volatile` pointer is not "
               "enough), or exchange "
               "the values in registers with __shfl_down_sync(0xffffffff, v, offset)";
    f.pc = x.pc;
    f.function = x.frame->function;
    f.block = x.block.linear;
    f.warp = x.warp.id;
    f.lane = lane;
    f.other_line = other_line;
    throw Fault(std::move(f));
}

// Two accesses of one word by different warps race unless a barrier separates them; atomic
// updates do not race with each other, but do with plain reads and writes. Within a warp, two
// lanes' accesses race unless a __syncwarp (or another *_sync collective) separates them.
inline void shared_shadow(Exec& x, std::uint32_t offset, std::uint32_t size, SharedUse use,
                          int lane) {
    if (!x.launch.detect_races) return;
    auto& shadow = x.block.shadow;
    const std::uint16_t w = std::uint16_t(x.warp.id);
    const std::uint32_t epoch = x.block.epoch;
    const std::uint32_t sync = x.warp.sync_epoch;
    const std::uint32_t bit = 1u << lane;
    for (std::uint32_t word = offset / 4; word <= (offset + size - 1) / 4 && word < shadow.size();
         ++word) {
        SharedShadow& s = shadow[word];
        auto race = [&](const char* first, std::uint32_t other_gpc, std::uint16_t other_warp,
                        const char* second) {
            shared_race(x, word, lane, first, other_gpc, other_warp, second);
        };
        const char* previous = s.write_atomic ? "updated atomically" : "wrote";
        // The same warp, another lane, in the same sync interval: a hazard under independent
        // thread scheduling. Atomic updates do not race with each other; two lanes of one
        // instruction storing to one word do not count (one of them wins, as on the GPU).
        const bool same_interval_write = s.write_epoch == epoch && s.write_warp == w &&
                                         s.write_sync == sync && s.write_lane != lane;
        const bool same_interval_read = s.read_epoch == epoch && s.read_warp == w &&
                                        s.read_sync == sync && (s.read_lanes & ~bit) != 0;
        if (use == SharedUse::read && same_interval_write && !s.write_atomic)
            warp_hazard(x, word, lane, "reads", "wrote", s.write_lane, s.write_pc);
        if (use != SharedUse::read) {
            const bool both_atomic = use == SharedUse::atomic && s.write_atomic;
            if (same_interval_write && !both_atomic && s.write_pc != x.gpc)
                warp_hazard(x, word, lane, use == SharedUse::atomic ? "updates" : "writes",
                            s.write_atomic ? "updated atomically" : "wrote", s.write_lane,
                            s.write_pc);
            if (same_interval_read)
                warp_hazard(x, word, lane, use == SharedUse::atomic ? "updates" : "writes", "read",
                            __builtin_ctz(s.read_lanes & ~bit), s.read_pc);
            s.write_sync = sync;
            s.write_lane = std::uint8_t(lane);
        }
        if (use == SharedUse::write) {
            if (s.write_epoch == epoch && s.write_warp != w)
                race(previous, s.write_pc, s.write_warp, "writes");
            if (s.read_epoch == epoch && s.read_warp != w)
                race("read", s.read_pc, s.read_warp, "writes");
            s.write_epoch = epoch;
            s.write_warp = w;
            s.write_pc = x.gpc;
            s.write_atomic = false;
        } else if (use == SharedUse::atomic) {
            if (s.write_epoch == epoch && s.write_warp != w && !s.write_atomic)
                race("wrote", s.write_pc, s.write_warp, "updates atomically");
            if (s.read_epoch == epoch && s.read_warp != w)
                race("read", s.read_pc, s.read_warp, "updates atomically");
            if (s.write_epoch == 0) warn_uninitialised(x, word * 4, lane);
            if (s.write_epoch == epoch && s.write_atomic && s.write_warp != w)
                s.write_warp = 0xFFFF;
            else if (!(s.write_epoch == epoch && s.write_atomic)) s.write_warp = w;
            s.write_epoch = epoch;
            s.write_pc = x.gpc;
            s.write_atomic = true;
        } else {
            if (s.write_epoch == epoch && s.write_warp != w)
                race(previous, s.write_pc, s.write_warp, "reads");
            if (s.write_epoch == 0) warn_uninitialised(x, word * 4, lane);
            if (s.read_epoch != epoch) {
                s.read_epoch = epoch;
                s.read_warp = w;
                s.read_pc = x.gpc;
                s.read_sync = sync;
                s.read_lanes = bit;
            } else if (s.read_warp != w) {
                s.read_warp = 0xFFFF;
                s.read_pc = x.gpc;
                s.read_lanes = 0;
            } else if (s.read_sync != sync) {
                s.read_sync = sync;
                s.read_pc = x.gpc;
                s.read_lanes = bit;
            } else {
                s.read_lanes |= bit;
                s.read_pc = x.gpc;
            }
        }
    }
}

// Counters and detail events for one memory instruction.
void record_memory(Exec& x, MemSpace space, MemOp op, const std::uint64_t* addr,
                   std::uint32_t bytes_per_lane) {
    if (!x.counting()) return;  // untraced: no counters, no events
    std::array<std::uint64_t, 32> a{};
    FOR_LANES(x.mask, a[std::size_t(l)] = addr[l]);
    PcCounters& c = x.counters();
    if (space == MemSpace::global) {
        auto cost = analysis::global_access_cost(a, x.mask, bytes_per_lane);
        c.requests += 1;
        c.sectors += cost.sectors;
        c.lines += cost.lines;
        c.requested_bytes += cost.requested_bytes;
    } else if (space == MemSpace::shared) {
        auto cost = analysis::shared_access_cost(a, x.mask, bytes_per_lane);
        c.shared_wavefronts += cost.wavefronts;
        c.shared_ideal_wavefronts += cost.ideal;
    } else if (space == MemSpace::constant && x.mask) {
        c.constant_loads += 1;
        c.constant_requests += analysis::constant_access_requests(a, x.mask);
    }
    if (op == MemOp::atomic) c.atomics += std::uint64_t(std::popcount(x.mask));
    if (!x.event) return;
    MemAccess m;
    m.space = space;
    m.op = op;
    m.bytes_per_lane = std::uint8_t(std::min<std::uint32_t>(bytes_per_lane, 255));
    m.mask = x.mask;
    std::uint64_t lo = ~0ull;
    FOR_LANES(x.mask, lo = std::min(lo, a[std::size_t(l)]));
    if (x.mask == 0) lo = 0;
    m.base = lo;
    FOR_LANES(x.mask, m.offset[std::size_t(l)] = std::uint32_t(
                          std::min<std::uint64_t>(a[std::size_t(l)] - lo, 0xffffffffu)));
    x.block.events.back().mem = std::int32_t(x.block.accesses.size());
    x.block.accesses.push_back(m);
}

// record_memory for an access at base[l] + offset. Called before the data moves: a load may
// overwrite its own address register.
void record_lanes(Exec& x, MemSpace space, MemOp op, const std::uint64_t* base,
                  std::uint64_t offset, std::uint32_t bytes) {
    if (!x.counting()) return;
    std::uint64_t addr[32];
    FOR_LANES(x.mask, addr[l] = base[l] + offset);
    record_memory(x, space, op, addr, bytes);
}

// [SECTION] Half precision: f16 and bf16 ----------------------------------------------------------

// f16 (1-5-10) and bf16 (1-8-7) values, alone or packed in pairs (.f16x2, .bf16x2: element 0 in
// the low 16 bits). Arithmetic is done exactly (or rounded to odd) in double, then rounded once
// to the 16-bit format, so results are correctly rounded as on the GPU.
struct HalfFormat {
    int exponent_bits, fraction_bits;
    std::uint16_t canonical_nan;
};
constexpr HalfFormat f16_format{5, 10, 0x7fff};
constexpr HalfFormat bf16_format{8, 7, 0x7fff};

inline bool is_half(Type t) {
    return t == Type::f16 || t == Type::bf16 || t == Type::f16x2 || t == Type::bf16x2;
}
inline bool is_half_pair(Type t) { return t == Type::f16x2 || t == Type::bf16x2; }
inline const HalfFormat& half_format(Type t) {
    return t == Type::bf16 || t == Type::bf16x2 ? bf16_format : f16_format;
}

double half_to_double(std::uint16_t h, const HalfFormat& f) {
    const int bias = (1 << (f.exponent_bits - 1)) - 1;
    const std::uint32_t exponent = (h >> f.fraction_bits) & ((1u << f.exponent_bits) - 1);
    const std::uint32_t fraction = h & ((1u << f.fraction_bits) - 1);
    const double sign = (h >> 15) ? -1.0 : 1.0;
    if (exponent == (1u << f.exponent_bits) - 1)
        return fraction ? std::numeric_limits<double>::quiet_NaN()
                        : sign * std::numeric_limits<double>::infinity();
    if (exponent == 0) return sign * std::ldexp(double(fraction), 1 - bias - f.fraction_bits);
    return sign * std::ldexp(double(fraction | (1u << f.fraction_bits)),
                             int(exponent) - bias - f.fraction_bits);
}

// Rounds a double to the format with rn (ties to even), rz, rm or rp. `v` must be exact or rounded
// to odd (see round_to_odd) so that this second rounding is correct.
std::uint16_t double_to_half(double v, const HalfFormat& f, Rounding r, bool satfinite = false) {
    if (std::isnan(v)) return f.canonical_nan;
    const std::uint16_t sign = std::signbit(v) ? 0x8000 : 0;
    const int bias = (1 << (f.exponent_bits - 1)) - 1;
    const int emax = bias, emin = 1 - bias;
    const std::uint16_t inf = std::uint16_t(((1u << f.exponent_bits) - 1) << f.fraction_bits);
    const std::uint16_t max_finite = std::uint16_t(inf - 1);
    const bool up_away =
        (r == Rounding::rp && !sign) || (r == Rounding::rm && sign);  // rounds |v| up
    auto overflow = [&]() -> std::uint16_t {
        const bool to_inf = !satfinite && (r == Rounding::rn || r == Rounding::none ||
                                           r == Rounding::rna || up_away);
        return std::uint16_t(sign | (to_inf ? inf : max_finite));
    };
    const double a = std::fabs(v);
    if (std::isinf(a))
        return satfinite ? std::uint16_t(sign | max_finite) : std::uint16_t(sign | inf);
    if (a == 0) return sign;
    int e;
    std::frexp(a, &e);
    int exponent = std::max(e - 1, emin);
    const double quantum = std::ldexp(1.0, exponent - f.fraction_bits);
    const double q = a / quantum;  // exact: a power-of-two scaling
    double n = std::floor(q);
    const double rest = q - n;
    if (rest > 0) {
        if (r == Rounding::rn || r == Rounding::none) {
            if (rest > 0.5 || (rest == 0.5 && std::fmod(n, 2.0) != 0)) n += 1;
        } else if (r == Rounding::rna) {
            if (rest >= 0.5) n += 1;
        } else if (up_away) {
            n += 1;
        }
    }
    std::uint32_t m = std::uint32_t(n);
    if (m >= (2u << f.fraction_bits)) {
        m >>= 1;
        ++exponent;
    }
    if (m < (1u << f.fraction_bits)) return std::uint16_t(sign | m);  // subnormal (or zero)
    if (exponent > emax) return overflow();
    return std::uint16_t(sign | std::uint32_t(exponent + bias) << f.fraction_bits |
                         (m - (1u << f.fraction_bits)));
}

// Evaluates f() in double rounded toward zero, and sets the last bit if the result was inexact:
// "round to odd", after which one more rounding to a format at least two bits narrower is
// correctly rounded.
template <class F> double round_to_odd(F f) {
    const int saved = std::fegetround();
    std::fesetround(FE_TOWARDZERO);
    std::feclearexcept(FE_INEXACT);
    volatile double r = f();
    const bool inexact = std::fetestexcept(FE_INEXACT);
    std::fesetround(saved);
    double v = r;
    if (inexact && std::isfinite(v)) v = std::bit_cast<double>(std::bit_cast<std::uint64_t>(v) | 1);
    return v;
}

inline std::uint16_t half_element(std::uint64_t v, int e) { return std::uint16_t(v >> (16 * e)); }

float half_to_float(std::uint16_t h) { return float(half_to_double(h, f16_format)); }
float bf16_to_float(std::uint16_t h) { return std::bit_cast<float>(std::uint32_t(h) << 16); }

enum class HalfOp { add, sub, mul, fma, min, max, neg, abs };

// 9.7.4 half-precision add, sub, mul, fma, neg, abs, min, max on f16, bf16, f16x2, bf16x2.
void half_arith(Exec& x, HalfOp op) {
    const Type t = x.in->type;
    const HalfFormat& f = half_format(t);
    const int elements = is_half_pair(t) ? 2 : 1;
    const std::uint32_t flags = x.in->flags;
    const bool ftz = flags & ptx::f_ftz, sat = flags & ptx::f_sat, relu = flags & ptx::f_relu;
    const Rounding r = x.in->rounding == Rounding::none ? Rounding::rn : x.in->rounding;
    std::uint64_t* d = x.dst(0);
    const std::uint64_t* a = x.src(1);
    const std::uint64_t* b = (op == HalfOp::neg || op == HalfOp::abs) ? nullptr : x.src(2);
    const std::uint64_t* c = op == HalfOp::fma ? x.src(3) : nullptr;
    auto input = [&](std::uint64_t v, int e) {
        std::uint16_t h = half_element(v, e);
        if (ftz && (h & 0x7fff) < (1u << f.fraction_bits)) h &= 0x8000;  // subnormal -> zero
        return half_to_double(h, f);
    };
    FOR_LANES(x.mask, {
        std::uint64_t result = 0;
        for (int e = 0; e < elements; ++e) {
            std::uint16_t h;
            if (op == HalfOp::neg) h = std::uint16_t(half_element(a[l], e) ^ 0x8000);
            else if (op == HalfOp::abs) h = std::uint16_t(half_element(a[l], e) & 0x7fff);
            else {
                const double va = input(a[l], e), vb = input(b[l], e);
                double v;
                switch (op) {
                case HalfOp::add: v = round_to_odd([&] { return va + vb; }); break;
                case HalfOp::sub: v = round_to_odd([&] { return va - vb; }); break;
                case HalfOp::mul: v = va * vb; break;  // exact: 22 or 16 significant bits
                case HalfOp::fma: {
                    const double vc = input(c[l], e);
                    v = round_to_odd([&] { return std::fma(va, vb, vc); });
                    break;
                }
                case HalfOp::min:
                case HalfOp::max: {
                    const bool na = std::isnan(va), nb = std::isnan(vb);
                    if ((na && nb) || ((flags & ptx::f_nan) && (na || nb)))
                        v = std::numeric_limits<double>::quiet_NaN();
                    else if (na) v = vb;
                    else if (nb) v = va;
                    else if (va == vb)
                        v = (op == HalfOp::min) == bool(std::signbit(va)) ? va : vb;  // -0 < +0
                    else v = (op == HalfOp::min) == (va < vb) ? va : vb;
                    break;
                }
                default: v = 0; break;
                }
                if (sat) v = saturate01(v);
                if (relu && !std::isnan(v) && (v < 0 || std::signbit(v))) v = 0.0;
                h = double_to_half(v, f, r);
                if (ftz && (h & 0x7fff) < (1u << f.fraction_bits)) h &= 0x8000;
            }
            result |= std::uint64_t(h) << (16 * e);
        }
        d[l] = result;
    });
}

// [SECTION] SIMD integer and video instructions ---------------------------------------------------
//
// Several small integers packed in one 32-bit register, each operated on alone: add, sub, min and
// max on .u16x2/.s16x2 (PTX ISA 8.0), the SIMD video instructions vop2/vop4 that the __v*2 and
// __v*4 intrinsics emit, and dp2a.

enum class SimdOp : std::uint8_t { add, sub, avrg, absdiff, min, max };

inline std::int64_t simd_apply(SimdOp op, std::int64_t a, std::int64_t b) {
    switch (op) {
    case SimdOp::add: return a + b;
    case SimdOp::sub: return a - b;
    case SimdOp::avrg: return a + b >= 0 ? (a + b + 1) >> 1 : (a + b) >> 1;  // rounds up at .5
    case SimdOp::absdiff: return a > b ? a - b : b - a;
    case SimdOp::min: return std::min(a, b);
    case SimdOp::max: return std::max(a, b);
    }
    return 0;
}

inline bool is_simd16(Type t) { return t == Type::u16x2 || t == Type::s16x2; }

// 9.7.1.1 add, 9.7.1.2 sub, 9.7.1.12 min, 9.7.1.13 max on .u16x2/.s16x2: each half-word on its
// own, wrapping (add, sub); min/max.relu.s16x2 clamps a negative result to 0.
void simd16(Exec& x, SimdOp op) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t *a = x.src(1), *b = x.src(2);
    const bool is_signed = x.in->type == Type::s16x2;
    const bool relu = (x.in->flags & ptx::f_relu) && is_signed;
    FOR_LANES(x.mask, {
        std::uint32_t r = 0;
        for (int h = 0; h < 2; ++h) {
            const std::uint32_t ua = std::uint16_t(a[l] >> (16 * h)),
                                ub = std::uint16_t(b[l] >> (16 * h));
            std::int64_t v = is_signed ? simd_apply(op, std::int16_t(ua), std::int16_t(ub))
                                       : simd_apply(op, ua, ub);
            if (relu && v < 0) v = 0;
            r |= std::uint32_t(std::uint16_t(v)) << (16 * h);
        }
        d[l] = r;
    });
}

// The SIMD video instructions: vop2 (PTX ISA 9.7.18.2.1: vadd2, vsub2, vavrg2, vabsdiff2, vmin2,
// vmax2 on half-words) and vop4 (9.7.18.2.3: the same on bytes). Each element of a and b is sign-
// or zero-extended by its operand's type (.atype, .btype) and the operation is exact; .sat clamps
// the result to the element range of .dtype. Then either the secondary accumulate (.add: d = c plus
// the sum of the elements, 32-bit) or the SIMD merge (d takes the results' elements, and c's
// elements where the destination mask leaves them out). Only the default element selections are
// read (a: .b3210/.h10, b: .b7654/.h32, d: every element); the parser refuses others, which are
// written as operand suffixes (a.b0123) it does not accept.
template <int Bits> void video_simd(Exec& x, SimdOp op) {
    constexpr int elements = 32 / Bits;
    constexpr std::uint32_t element_mask = (1u << Bits) - 1;
    std::uint64_t* d = x.dst(0);
    const std::uint64_t *a = x.src(1), *b = x.src(2), *c = x.src(3);
    const bool d_signed = x.in->type == Type::s32, a_signed = x.in->type2 == Type::s32,
               b_signed = x.in->type3 == Type::s32;
    const bool sat = x.in->flags & ptx::f_sat, accumulate = x.in->sub == SubOp::add;
    const std::int64_t lo = d_signed ? -(std::int64_t(1) << (Bits - 1)) : 0,
                       hi = d_signed ? (std::int64_t(1) << (Bits - 1)) - 1 : element_mask;
    auto element = [](std::uint64_t v, int i, bool is_signed) {
        const std::uint32_t e = std::uint32_t(v >> (Bits * i)) & element_mask;
        return is_signed ? std::int64_t(e) - ((e >> (Bits - 1)) ? std::int64_t(1) << Bits : 0)
                         : std::int64_t(e);
    };
    FOR_LANES(x.mask, {
        std::uint32_t merged = 0, sum = std::uint32_t(c[l]);
        for (int i = 0; i < elements; ++i) {
            std::int64_t t = simd_apply(op, element(a[l], i, a_signed), element(b[l], i, b_signed));
            if (sat && !accumulate) t = std::clamp(t, lo, hi);
            merged |= (std::uint32_t(t) & element_mask) << (Bits * i);
            sum += std::uint32_t(t);
        }
        d[l] = accumulate ? sum : merged;
    });
}
void exec_vadd2(Exec& x) { video_simd<16>(x, SimdOp::add); }
void exec_vsub2(Exec& x) { video_simd<16>(x, SimdOp::sub); }
void exec_vavrg2(Exec& x) { video_simd<16>(x, SimdOp::avrg); }
void exec_vabsdiff2(Exec& x) { video_simd<16>(x, SimdOp::absdiff); }
void exec_vmin2(Exec& x) { video_simd<16>(x, SimdOp::min); }
void exec_vmax2(Exec& x) { video_simd<16>(x, SimdOp::max); }
void exec_vadd4(Exec& x) { video_simd<8>(x, SimdOp::add); }
void exec_vsub4(Exec& x) { video_simd<8>(x, SimdOp::sub); }
void exec_vavrg4(Exec& x) { video_simd<8>(x, SimdOp::avrg); }
void exec_vabsdiff4(Exec& x) { video_simd<8>(x, SimdOp::absdiff); }
void exec_vmin4(Exec& x) { video_simd<8>(x, SimdOp::min); }
void exec_vmax4(Exec& x) { video_simd<8>(x, SimdOp::max); }

// 9.7.1.24 dp2a.lo/.hi: c plus the two-way dot product of a's two half-words with two bytes of b
// (bytes 0-1 for .lo, 2-3 for .hi), each sign- or zero-extended by its type, in 32 bits.
void exec_dp2a(Exec& x) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t *a = x.src(1), *b = x.src(2), *c = x.src(3);
    const bool sa = x.in->type == Type::s32, sb = x.in->type2 == Type::s32;
    const int first_byte = (x.in->flags & ptx::f_hi) ? 2 : 0;
    FOR_LANES(x.mask, {
        std::uint32_t acc = std::uint32_t(c[l]);
        for (int i = 0; i < 2; ++i) {
            const std::uint32_t ha = std::uint16_t(a[l] >> (16 * i));
            const std::uint32_t bb = std::uint8_t(b[l] >> (8 * (first_byte + i)));
            const std::int64_t va = sa ? std::int64_t(std::int16_t(ha)) : std::int64_t(ha);
            const std::int64_t vb = sb ? std::int64_t(std::int8_t(bb)) : std::int64_t(bb);
            acc += std::uint32_t(va * vb);
        }
        d[l] = acc;
    });
}

// [SECTION] Integer and floating-point arithmetic -------------------------------------------------

#define DISPATCH_INT(t, MACRO)                                                                     \
    switch (t) {                                                                                   \
    case Type::s8: MACRO(std::int8_t); break;                                                      \
    case Type::u8:                                                                                 \
    case Type::b8: MACRO(std::uint8_t); break;                                                     \
    case Type::s16: MACRO(std::int16_t); break;                                                    \
    case Type::u16:                                                                                \
    case Type::b16: MACRO(std::uint16_t); break;                                                   \
    case Type::s32: MACRO(std::int32_t); break;                                                    \
    case Type::u32:                                                                                \
    case Type::b32: MACRO(std::uint32_t); break;                                                   \
    case Type::s64: MACRO(std::int64_t); break;                                                    \
    case Type::u64:                                                                                \
    case Type::b64: MACRO(std::uint64_t); break;                                                   \
    default: x.unsupported(x.in->text);                                                            \
    }

#define DISPATCH_NUM(t, MACRO)                                                                     \
    switch (t) {                                                                                   \
    case Type::f32: MACRO(float); break;                                                           \
    case Type::f64: MACRO(double); break;                                                          \
    default: DISPATCH_INT(t, MACRO);                                                               \
    }

template <class T>
using Wide = std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>;

template <class T> T saturate_add(T a, T b, bool sub) {
    std::int64_t r = sub ? std::int64_t(a) - std::int64_t(b) : std::int64_t(a) + std::int64_t(b);
    return T(
        std::clamp<std::int64_t>(r, std::numeric_limits<T>::min(), std::numeric_limits<T>::max()));
}

// The operation is a type (a lambda), not a function pointer, so each lane's arithmetic is inlined;
// the common form (no .ftz, no .sat) has a loop of its own.
template <class T, class F> void float_binary(Exec& x, F f) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t *a = x.src(1), *b = x.src(2);
    const bool ftz = x.in->flags & ptx::f_ftz;
    const bool sat = x.in->flags & ptx::f_sat;
    RoundingScope rs(x.in->rounding);
    if (!ftz && !sat) {
        FOR_LANES(x.mask, {
            const T va = get<T>(a[l]), vb = get<T>(b[l]);
            d[l] = put<T>(canonical(nan_operand(f(va, vb), va, vb)));
        });
        return;
    }
    FOR_LANES(x.mask, {
        T va = get<T>(a[l]), vb = get<T>(b[l]);
        if (ftz) {
            va = flush(va);
            vb = flush(vb);
        }
        T r = canonical(nan_operand(f(va, vb), va, vb));
        if (ftz) r = flush(r);
        if (sat) r = saturate01(r);
        d[l] = put<T>(r);
    });
}

// 9.7.2.1-4 add.cc, addc, sub.cc, subc: 32- or 64-bit add/subtract with the lane's carry flag
// (CC.CF) as carry-in (addc, subc: borrow-in) and, with .cc, carry-out (sub: borrow-out).
template <bool Sub, bool CarryIn> void add_carry(Exec& x) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t *a = x.src(1), *b = x.src(2);
    const bool carry_out = x.in->flags & ptx::f_cc;
    const bool wide = ptx::type_bits(x.in->type) == 64;
    const std::uint32_t carry = x.warp.carry;
    std::uint32_t next = carry;
    FOR_LANES(x.mask, {
        const std::uint64_t cin = CarryIn ? (carry >> l) & 1 : 0;
        std::uint64_t r, cout;
        if (wide) {
            const unsigned __int128 t =
                Sub ? (unsigned __int128)a[l] - b[l] - cin : (unsigned __int128)a[l] + b[l] + cin;
            r = std::uint64_t(t);
            cout = std::uint64_t(t >> 64) & 1;
        } else {
            const std::uint64_t t =
                Sub ? std::uint64_t(std::uint32_t(a[l])) - std::uint32_t(b[l]) - cin
                    : std::uint64_t(std::uint32_t(a[l])) + std::uint32_t(b[l]) + cin;
            r = std::uint32_t(t);
            cout = (t >> 32) & 1;
        }
        d[l] = r;
        next = (next & ~(1u << l)) | std::uint32_t(cout << l);
    });
    if (carry_out) x.warp.carry = next;
}

// 9.7.2.5-6 mad.cc, madc: (a * b).lo or .hi plus c plus carry-in, with optional carry-out
void mad_carry(Exec& x, bool carry_in) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t *a = x.src(1), *b = x.src(2), *c = x.src(3);
    const bool carry_out = x.in->flags & ptx::f_cc, hi = x.in->flags & ptx::f_hi;
    const bool wide = ptx::type_bits(x.in->type) == 64, is_signed = ptx::type_is_signed(x.in->type);
    const std::uint32_t carry = x.warp.carry;
    std::uint32_t next = carry;
    FOR_LANES(x.mask, {
        const std::uint64_t cin = carry_in ? (carry >> l) & 1 : 0;
        std::uint64_t r, cout;
        if (wide) {
            const unsigned __int128 p =
                is_signed ? (unsigned __int128)((__int128)std::int64_t(a[l]) * std::int64_t(b[l]))
                          : (unsigned __int128)a[l] * b[l];
            const std::uint64_t part = hi ? std::uint64_t(p >> 64) : std::uint64_t(p);
            const unsigned __int128 t = (unsigned __int128)part + c[l] + cin;
            r = std::uint64_t(t);
            cout = std::uint64_t(t >> 64) & 1;
        } else {
            const std::uint64_t p =
                is_signed ? std::uint64_t(std::int64_t(std::int32_t(a[l])) * std::int32_t(b[l]))
                          : std::uint64_t(std::uint32_t(a[l])) * std::uint32_t(b[l]);
            const std::uint64_t part = hi ? p >> 32 : p & 0xffffffffu;
            const std::uint64_t t = part + std::uint32_t(c[l]) + cin;
            r = std::uint32_t(t);
            cout = (t >> 32) & 1;
        }
        d[l] = r;
        next = (next & ~(1u << l)) | std::uint32_t(cout << l);
    });
    if (carry_out) x.warp.carry = next;
}
void exec_addc(Exec& x) { add_carry<false, true>(x); }
void exec_subc(Exec& x) { add_carry<true, true>(x); }
void exec_madc(Exec& x) { mad_carry(x, true); }

// 9.7.1.1 / 9.7.3.1 add, 9.7.1.2 / 9.7.3.2 sub
template <bool Sub> void add_sub(Exec& x) {
    const Type t = x.in->type;
    if (t == Type::f32)
        return float_binary<float>(x, [](float a, float b) { return Sub ? a - b : a + b; });
    if (t == Type::f64)
        return float_binary<double>(x, [](double a, double b) { return Sub ? a - b : a + b; });
    if (is_half(t)) return half_arith(x, Sub ? HalfOp::sub : HalfOp::add);
    if (is_simd16(t)) return simd16(x, Sub ? SimdOp::sub : SimdOp::add);
    std::uint64_t* d = x.dst(0);
    const std::uint64_t *a = x.src(1), *b = x.src(2);
    if ((x.in->flags & ptx::f_sat) && t == Type::s32) {
        FOR_LANES(x.mask, d[l] = put(saturate_add<std::int32_t>(get<std::int32_t>(a[l]),
                                                                get<std::int32_t>(b[l]), Sub)));
        return;
    }
    if (x.in->flags & ptx::f_cc) return add_carry<Sub, false>(x);
#define ADD(T)                                                                                     \
    FOR_LANES(x.mask, d[l] = put<T>(Sub ? wrap_sub(get<T>(a[l]), get<T>(b[l]))                     \
                                        : wrap_add(get<T>(a[l]), get<T>(b[l]))))
    DISPATCH_INT(t, ADD)
#undef ADD
}
void exec_add(Exec& x) { add_sub<false>(x); }
void exec_sub(Exec& x) { add_sub<true>(x); }

template <class T> std::uint64_t mul_int(T a, T b, std::uint32_t flags) {
    using W = Wide<T>;
    if (flags & ptx::f_wide) {  // 2n-bit result
        if constexpr (sizeof(T) <= 4) return put<W>(W(a) * W(b));
        else return put<T>(wrap_mul(a, b));  // .wide is not defined for 64-bit
    }
    if (flags & ptx::f_hi) {
        if constexpr (sizeof(T) == 8) {
            using H = std::conditional_t<std::is_signed_v<T>, __int128, unsigned __int128>;
            return put<T>(T((H(a) * H(b)) >> 64));
        } else {
            return put<T>(T((W(a) * W(b)) >> (8 * sizeof(T))));
        }
    }
    return put<T>(wrap_mul(a, b));
}

// 9.7.1.3 / 9.7.3.3 mul
void exec_mul(Exec& x) {
    const Type t = x.in->type;
    if (t == Type::f32) return float_binary<float>(x, [](float a, float b) { return a * b; });
    if (t == Type::f64) return float_binary<double>(x, [](double a, double b) { return a * b; });
    if (is_half(t)) return half_arith(x, HalfOp::mul);
    std::uint64_t* d = x.dst(0);
    const std::uint64_t *a = x.src(1), *b = x.src(2);
    const std::uint32_t flags = x.in->flags;
#define MUL(T)                                                                                     \
    if (flags & ptx::f_wide)                                                                       \
        FOR_LANES(x.mask, d[l] = mul_int<T>(get<T>(a[l]), get<T>(b[l]), ptx::f_wide))              \
    else if (flags & ptx::f_hi)                                                                    \
        FOR_LANES(x.mask, d[l] = mul_int<T>(get<T>(a[l]), get<T>(b[l]), ptx::f_hi))                \
    else FOR_LANES(x.mask, d[l] = mul_int<T>(get<T>(a[l]), get<T>(b[l]), 0))
    DISPATCH_INT(t, MUL)
#undef MUL
}

template <class T> void float_fma(Exec& x) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t *a = x.src(1), *b = x.src(2), *c = x.src(3);
    const bool ftz = x.in->flags & ptx::f_ftz;
    const bool sat = x.in->flags & ptx::f_sat;
    RoundingScope rs(x.in->rounding);
    if (!ftz && !sat) {  // the common form, vectorised (float_lanes.cpp), in the mode set above
        if constexpr (std::is_same_v<T, float>) return lanes::fma_f32(d, a, b, c, x.mask);
        else {
            lanes::fma_f64(d, a, b, c, x.mask);
            FOR_LANES(x.mask, {  // a NaN operand's payload, as the general form gives it
                if (std::isnan(get<double>(d[l])))
                    d[l] = put(nan_operand(get<double>(d[l]), get<double>(a[l]), get<double>(b[l]),
                                           get<double>(c[l])));
            });
            return;
        }
    }
    FOR_LANES(x.mask, {
        T va = get<T>(a[l]), vb = get<T>(b[l]), vc = get<T>(c[l]);
        if (ftz) {
            va = flush(va);
            vb = flush(vb);
            vc = flush(vc);
        }
        T r = canonical(nan_operand(std::fma(va, vb, vc), va, vb, vc));
        if (ftz) r = flush(r);
        if (sat) r = saturate01(r);
        d[l] = put<T>(r);
    });
}

// 9.7.1.4 mad (integer), 9.7.3.5 mad (float: fused, like fma)
void exec_mad(Exec& x) {
    const Type t = x.in->type;
    if (t == Type::f32) return float_fma<float>(x);
    if (t == Type::f64) return float_fma<double>(x);
    if (is_half(t)) return half_arith(x, HalfOp::fma);
    std::uint64_t* d = x.dst(0);
    const std::uint64_t *a = x.src(1), *b = x.src(2), *c = x.src(3);
    const std::uint32_t flags = x.in->flags;
    if (flags & ptx::f_cc) return mad_carry(x, false);
    if (flags & ptx::f_sat) {  // mad.hi.sat.s32: saturate the 64-bit sum of the high half and c
        if (t != Type::s32 || !(flags & ptx::f_hi)) x.unsupported(x.in->text);
        FOR_LANES(x.mask, {
            const std::int64_t p = (std::int64_t(std::int32_t(a[l])) * std::int32_t(b[l])) >> 32;
            d[l] = put<std::int32_t>(std::int32_t(
                std::clamp<std::int64_t>(p + std::int32_t(c[l]), INT32_MIN, INT32_MAX)));
        });
        return;
    }
#define MAD(T)                                                                                     \
    if (flags & ptx::f_wide)                                                                       \
        FOR_LANES(x.mask, d[l] = mul_int<T>(get<T>(a[l]), get<T>(b[l]), ptx::f_wide) + c[l])       \
    else if (flags & ptx::f_hi)                                                                    \
        FOR_LANES(x.mask,                                                                          \
                  d[l] = put<T>(wrap_add(                                                          \
                      get<T>(mul_int<T>(get<T>(a[l]), get<T>(b[l]), ptx::f_hi)), get<T>(c[l]))))   \
    else                                                                                           \
        FOR_LANES(x.mask,                                                                          \
                  d[l] = put<T>(wrap_add(wrap_mul(get<T>(a[l]), get<T>(b[l])), get<T>(c[l]))))
    DISPATCH_INT(t, MAD)
#undef MAD
}

// 9.7.3.4 fma
void exec_fma(Exec& x) {
    if (x.in->type == Type::f32) return float_fma<float>(x);
    if (x.in->type == Type::f64) return float_fma<double>(x);
    if (is_half(x.in->type)) return half_arith(x, HalfOp::fma);
    x.unsupported(x.in->text);
}

// 9.7.1.5 mul24, 9.7.1.6 mad24: 24-bit operands, low or high 32 bits of the 48-bit product
void mul24(Exec& x, bool add) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t *a = x.src(1), *b = x.src(2), *c = add ? x.src(3) : nullptr;
    const bool is_signed = x.in->type == Type::s32, hi = x.in->flags & ptx::f_hi;
    FOR_LANES(x.mask, {
        std::int64_t va = is_signed ? std::int64_t(std::int32_t(std::uint32_t(a[l]) << 8) >> 8)
                                    : std::int64_t(a[l] & 0xffffff);
        std::int64_t vb = is_signed ? std::int64_t(std::int32_t(std::uint32_t(b[l]) << 8) >> 8)
                                    : std::int64_t(b[l] & 0xffffff);
        std::int64_t p = va * vb;
        std::uint32_t r = hi ? std::uint32_t(p >> 16) : std::uint32_t(p);
        if (add) r += std::uint32_t(c[l]);
        d[l] = r;
    });
}
void exec_mul24(Exec& x) { mul24(x, false); }
void exec_mad24(Exec& x) { mul24(x, true); }

// 9.7.1.7 sad: |a - b| + c
void exec_sad(Exec& x) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t *a = x.src(1), *b = x.src(2), *c = x.src(3);
#define SAD(T)                                                                                     \
    FOR_LANES(x.mask, {                                                                            \
        T va = get<T>(a[l]), vb = get<T>(b[l]);                                                    \
        d[l] = put<T>(wrap_add(va < vb ? wrap_sub(vb, va) : wrap_sub(va, vb), get<T>(c[l])));      \
    })
    DISPATCH_INT(x.in->type, SAD)
#undef SAD
}

// 9.7.1.8 div (integer: division by zero gives all ones, as the hardware does), 9.7.3.6 div (float)
void exec_div(Exec& x) {
    const Type t = x.in->type;
    // div.approx.f32 is a * (1 / b) on the GPU, and 9.7.3.6 gives it 0 for |b| in [2^126, 2^128]
    // (1/b would be subnormal): an H200 returns a signed zero there for every finite a.
    if (t == Type::f32 && (x.in->flags & ptx::f_approx))
        return float_binary<float>(
            x, +[](float a, float b) {
                if (std::isfinite(a) && std::isfinite(b) && std::fabs(b) >= 0x1p126f)
                    return std::signbit(a) != std::signbit(b) ? -0.0f : 0.0f;
                return a / b;
            });
    if (t == Type::f32)
        return float_binary<float>(
            x, +[](float a, float b) { return a / b; });
    if (t == Type::f64)
        return float_binary<double>(
            x, +[](double a, double b) { return a / b; });
    std::uint64_t* d = x.dst(0);
    const std::uint64_t *a = x.src(1), *b = x.src(2);
#define DIV(T)                                                                                     \
    FOR_LANES(x.mask, {                                                                            \
        T va = get<T>(a[l]), vb = get<T>(b[l]);                                                    \
        if (vb == 0) d[l] = put<T>(T(~T(0)));                                                      \
        else if (std::is_signed_v<T> && va == std::numeric_limits<T>::min() && vb == T(-1))        \
            d[l] = put<T>(va);                                                                     \
        else d[l] = put<T>(T(va / vb));                                                            \
    })
    DISPATCH_INT(t, DIV)
#undef DIV
}

// 9.7.1.9 rem
void exec_rem(Exec& x) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t *a = x.src(1), *b = x.src(2);
#define REM(T)                                                                                     \
    FOR_LANES(x.mask, {                                                                            \
        T va = get<T>(a[l]), vb = get<T>(b[l]);                                                    \
        if (vb == 0 || (std::is_signed_v<T> && vb == T(-1))) d[l] = put<T>(vb == 0 ? va : T(0));   \
        else d[l] = put<T>(T(va % vb));                                                            \
    })
    DISPATCH_INT(x.in->type, REM)
#undef REM
}

// 9.7.1.10 / 9.7.3.7 abs, 9.7.1.11 / 9.7.3.8 neg
template <bool Neg> void abs_neg(Exec& x) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t* a = x.src(1);
    const bool ftz = x.in->flags & ptx::f_ftz;
    switch (x.in->type) {
    case Type::f32:
        FOR_LANES(x.mask, {
            float v = get<float>(a[l]);
            if (ftz) v = flush(v);
            d[l] =
                put(canonical(Neg ? -v : std::fabs(v)));  // an H200: abs/neg of NaN is 0x7fffffff
        });
        return;
    case Type::f64:
        FOR_LANES(x.mask, {
            double v = get<double>(a[l]);
            d[l] = put(Neg ? -v : std::fabs(v));
        });
        return;
    case Type::f16:
    case Type::bf16:
    case Type::f16x2:
    case Type::bf16x2: return half_arith(x, Neg ? HalfOp::neg : HalfOp::abs);
    default: break;
    }
#define ABSNEG(T)                                                                                  \
    FOR_LANES(x.mask, {                                                                            \
        T v = get<T>(a[l]);                                                                        \
        d[l] = put<T>(Neg || is_negative(v) ? wrap_sub(T(0), v) : v);                              \
    })
    DISPATCH_INT(x.in->type, ABSNEG)
#undef ABSNEG
}
void exec_abs(Exec& x) { abs_neg<false>(x); }
void exec_neg(Exec& x) { abs_neg<true>(x); }

// 9.7.1.12 / 9.7.3.9 min, 9.7.1.13 / 9.7.3.10 max. Float: a NaN operand yields the other operand
// (.NaN: yields NaN), and -0.0 is below +0.0 (seen on an H200: fminf(-0, +0) is -0).
template <class T> T float_min(T a, T b) {
    if (a != a) return b != b ? nan_operand(a, a, b) : b;
    if (b != b) return a;
    if (a == b) return std::signbit(a) ? a : b;
    return a < b ? a : b;
}
template <class T> T float_max(T a, T b) {
    if (a != a) return b != b ? nan_operand(a, a, b) : b;
    if (b != b) return a;
    if (a == b) return std::signbit(a) ? b : a;
    return a > b ? a : b;
}
template <class T, bool Max> T float_min_max_nan(T a, T b) {
    if (a != a || b != b) return std::numeric_limits<T>::quiet_NaN();
    return Max ? float_max(a, b) : float_min(a, b);
}
template <bool Max> void min_max(Exec& x) {
    const Type t = x.in->type;
    const bool nan = x.in->flags & ptx::f_nan;
    if (t == Type::f32)
        return float_binary<float>(x, nan   ? &float_min_max_nan<float, Max>
                                      : Max ? &float_max<float>
                                            : &float_min<float>);
    if (t == Type::f64)
        return float_binary<double>(x, nan   ? &float_min_max_nan<double, Max>
                                       : Max ? &float_max<double>
                                             : &float_min<double>);
    if (is_half(t)) return half_arith(x, Max ? HalfOp::max : HalfOp::min);
    if (is_simd16(t)) return simd16(x, Max ? SimdOp::max : SimdOp::min);
    std::uint64_t* d = x.dst(0);
    const std::uint64_t *a = x.src(1), *b = x.src(2);
#define MINMAX(T)                                                                                  \
    FOR_LANES(x.mask, {                                                                            \
        T va = get<T>(a[l]), vb = get<T>(b[l]);                                                    \
        d[l] = put<T>(Max ? std::max(va, vb) : std::min(va, vb));                                  \
    })
    DISPATCH_INT(t, MINMAX)
#undef MINMAX
}
void exec_min(Exec& x) { min_max<false>(x); }
void exec_max(Exec& x) { min_max<true>(x); }

// 9.7.1.14 popc, 9.7.1.15 clz, 9.7.1.16 bfind, 9.7.1.18 brev
void exec_popc(Exec& x) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t* a = x.src(1);
    const bool wide = ptx::type_bits(x.in->type) == 64;
    FOR_LANES(x.mask, d[l] = std::uint32_t(wide ? std::popcount(a[l])
                                                : std::popcount(std::uint32_t(a[l]))));
}
void exec_clz(Exec& x) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t* a = x.src(1);
    const bool wide = ptx::type_bits(x.in->type) == 64;
    FOR_LANES(x.mask, d[l] = std::uint32_t(wide ? std::countl_zero(a[l])
                                                : std::countl_zero(std::uint32_t(a[l]))));
}
void exec_bfind(Exec& x) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t* a = x.src(1);
    const int bits = ptx::type_bits(x.in->type);
    const bool is_signed = ptx::type_is_signed(x.in->type);
    const bool shiftamt = x.in->flags & ptx::f_shiftamt;
    FOR_LANES(x.mask, {
        std::uint64_t v = bits == 64 ? a[l] : std::uint32_t(a[l]);
        if (is_signed && (v >> (bits - 1) & 1)) v = bits == 64 ? ~v : std::uint32_t(~v);
        std::uint32_t r = v == 0 ? 0xffffffffu : std::uint32_t(63 - std::countl_zero(v));
        if (shiftamt && r != 0xffffffffu) r = std::uint32_t(bits - 1) - r;
        d[l] = r;
    });
}
// 9.7.1.17 fns (__fns): the position of the n-th set bit of mask counted from base, upward for a
// positive offset, downward for a negative one; offset 0 asks whether bit base is set.
void exec_fns(Exec& x) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t *mask = x.src(1), *base = x.src(2), *offset = x.src(3);
    FOR_LANES(x.mask, {
        const std::uint32_t m = std::uint32_t(mask[l]);
        const std::int32_t b = std::int32_t(std::uint32_t(base[l])),
                           o = std::int32_t(std::uint32_t(offset[l]));
        std::uint32_t r = 0xffffffffu;
        if (o == 0) {
            if (b >= 0 && b < 32 && (m >> b & 1)) r = std::uint32_t(b);
        } else {
            std::int64_t count = std::int64_t(o > 0 ? o : -std::int64_t(o)) - 1;
            for (std::int32_t pos = b; pos >= 0 && pos<32; pos += o> 0 ? 1 : -1) {
                if (!(m >> pos & 1)) continue;
                if (count-- == 0) {
                    r = std::uint32_t(pos);
                    break;
                }
            }
        }
        d[l] = r;
    });
}
void exec_brev(Exec& x) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t* a = x.src(1);
    const bool wide = ptx::type_bits(x.in->type) == 64;
    FOR_LANES(x.mask, {
        std::uint64_t v = a[l], r = 0;
        int n = wide ? 64 : 32;
        for (int i = 0; i < n; ++i) r |= ((v >> i) & 1) << (n - 1 - i);
        d[l] = r;
    });
}

// 9.7.1.19 bfe: extract len bits from pos, sign-extended for signed types
void exec_bfe(Exec& x) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t *a = x.src(1), *b = x.src(2), *c = x.src(3);
    const int bits = ptx::type_bits(x.in->type);
    const bool is_signed = ptx::type_is_signed(x.in->type);
    FOR_LANES(x.mask, {
        std::uint32_t pos = std::uint32_t(b[l]) & 0xff, len = std::uint32_t(c[l]) & 0xff;
        std::uint64_t v = bits == 64 ? a[l] : std::uint32_t(a[l]);
        std::uint64_t r = 0;
        bool sbit = false;
        if (is_signed) {
            std::uint32_t top = std::min<std::uint32_t>(pos + len - 1, std::uint32_t(bits - 1));
            sbit = len == 0 ? false : ((v >> top) & 1);
        }
        for (std::uint32_t i = 0; i < std::uint32_t(bits); ++i) {
            std::uint64_t bit = (i < len && pos + i < std::uint32_t(bits)) ? (v >> (pos + i)) & 1
                                                                           : std::uint64_t(sbit);
            r |= bit << i;
        }
        d[l] = bits == 64 ? r : std::uint32_t(r);
    });
}

// 9.7.1.20 bfi: insert len bits of a into b at pos
void exec_bfi(Exec& x) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t *a = x.src(1), *b = x.src(2), *c = x.src(3), *e = x.src(4);
    const int bits = ptx::type_bits(x.in->type);
    FOR_LANES(x.mask, {
        std::uint32_t pos = std::uint32_t(c[l]) & 0xff, len = std::uint32_t(e[l]) & 0xff;
        std::uint64_t r = bits == 64 ? b[l] : std::uint32_t(b[l]);
        for (std::uint32_t i = 0; i < len && pos + i < std::uint32_t(bits); ++i) {
            r &= ~(1ull << (pos + i));
            r |= ((a[l] >> i) & 1) << (pos + i);
        }
        d[l] = r;
    });
}

// 9.7.1.23 dp4a: four-way byte dot product plus accumulator
void exec_dp4a(Exec& x) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t *a = x.src(1), *b = x.src(2), *c = x.src(3);
    const bool sa = x.in->type == Type::s32, sb = x.in->type2 == Type::s32;
    FOR_LANES(x.mask, {
        std::int32_t acc = std::int32_t(c[l]);
        for (int i = 0; i < 4; ++i) {
            std::int32_t va =
                sa ? std::int8_t(a[l] >> (8 * i)) : std::int32_t(std::uint8_t(a[l] >> (8 * i)));
            std::int32_t vb =
                sb ? std::int8_t(b[l] >> (8 * i)) : std::int32_t(std::uint8_t(b[l] >> (8 * i)));
            acc = wrap_add(acc, va * vb);
        }
        d[l] = std::uint32_t(acc);
    });
}

// 9.7.3.11-18: rcp, sqrt, rsqrt, sin, cos, lg2, ex2, tanh. The .approx forms use the host's
// correctly rounded functions: the GPU's approximations are within 2 ulp of these (documented in
// docs/emulator.md); .rn forms are exact on both.
template <class F> void float_unary(Exec& x, F f) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t* a = x.src(1);
    const bool ftz = x.in->flags & ptx::f_ftz;
    RoundingScope rs(x.in->rounding);
    if (x.in->type == Type::f32) {
        FOR_LANES(x.mask, {
            float v = get<float>(a[l]);
            if (ftz) v = flush(v);
            float r = canonical(float(f(double(v), true)));
            if (ftz) r = flush(r);
            d[l] = put(r);
        });
    } else if (x.in->type == Type::f64) {
        FOR_LANES(x.mask, d[l] = put(f(get<double>(a[l]), false)));
    } else if (is_half(x.in->type)) {  // ex2/tanh.approx.f16(x2)/bf16(x2): computed in f32, rounded
        const HalfFormat& hf = half_format(x.in->type);
        const int elements = is_half_pair(x.in->type) ? 2 : 1;
        FOR_LANES(x.mask, {
            std::uint64_t r = 0;
            for (int e = 0; e < elements; ++e)
                r |= std::uint64_t(double_to_half(
                         f(half_to_double(half_element(a[l], e), hf), true), hf, Rounding::rn))
                     << (16 * e);
            d[l] = r;
        });
    } else {
        x.unsupported(x.in->text);
    }
}
void exec_rcp(Exec& x) {
    float_unary(x, [](double v, bool f32) { return f32 ? double(1.0f / float(v)) : 1.0 / v; });
}
void exec_sqrt(Exec& x) {
    float_unary(
        x, [](double v, bool f32) { return f32 ? double(std::sqrt(float(v))) : std::sqrt(v); });
}
void exec_rsqrt(Exec& x) {
    float_unary(x, [](double v, bool) { return 1.0 / std::sqrt(v); });  // rounded once
}
// sin.approx, cos.approx (f32 only): the GPU first scales the argument by 1/(2 pi) in f32 (rounded
// toward zero; a subnormal product is flushed) and takes the sine of that many turns, so a large
// argument loses its fraction as the f32 product does: sin(1e9) is 0 there, sin(pi) exactly 0.
// Modelled so, in double; what remains is the hardware's absolute error near zeros
// (docs/emulator.md).
double turns_of(double v) {
    // The product is rounded toward zero (an H200's large arguments agree only so: sin(65504) is
    // the sine of 10425 + 291/1024 turns, not of the nearest f32, 10425 + 292/1024).
    const double exact = v * double(float(0.15915494309189535));  // 24 x 24 bits: exact in double
    float t = float(exact);
    if (std::fabs(double(t)) > std::fabs(exact)) t = std::nextafter(t, 0.0f);
    if (std::fabs(t) < std::numeric_limits<float>::min()) t = std::copysign(0.0f, t);
    return double(t) - std::trunc(double(t));
}
// sin(2 pi t) for t in (-1, 1), reduced by quarter turns so that a whole quarter gives exactly
// 0 or 1 (an H200: sin(pi) is +0, not the 1.2e-16 of sin(double(pi))).
double sin_of_turns(double t) {
    const double quarter = std::nearbyint(t * 4);
    const double rest = 6.283185307179586 * (t - quarter / 4);
    double r = 0;
    switch (int(quarter) & 3) {
    case 0: r = std::sin(rest); break;
    case 1: r = std::cos(rest); break;
    case 2: r = -std::sin(rest); break;
    default: r = -std::cos(rest); break;
    }
    return r == 0 ? 0.0 : r;
}
void exec_sin(Exec& x) {
    float_unary(x, [](double v, bool f32) {
        if (!f32) return std::sin(v);
        if (!std::isfinite(v)) return std::numeric_limits<double>::quiet_NaN();
        const double turns = turns_of(v);
        return turns == 0 ? std::copysign(0.0, v) : sin_of_turns(turns);
    });
}
void exec_cos(Exec& x) {
    float_unary(x, [](double v, bool f32) {
        if (!f32) return std::cos(v);
        if (!std::isfinite(v)) return std::numeric_limits<double>::quiet_NaN();
        return sin_of_turns(turns_of(v) + 0.25);
    });
}
void exec_lg2(Exec& x) {
    float_unary(x, [](double v, bool) { return std::log2(v); });
}
void exec_ex2(Exec& x) {
    float_unary(x, [](double v, bool) { return std::exp2(v); });
}
void exec_tanh(Exec& x) {
    float_unary(x, [](double v, bool) { return std::tanh(v); });
}

// 9.7.3.19 copysign: magnitude of b, sign of a
void exec_copysign(Exec& x) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t *a = x.src(1), *b = x.src(2);
    if (x.in->type == Type::f32)
        FOR_LANES(x.mask, d[l] = put(std::copysign(get<float>(b[l]), get<float>(a[l]))))
    else FOR_LANES(x.mask, d[l] = put(std::copysign(get<double>(b[l]), get<double>(a[l]))))
}

// 9.7.3.20 testp: a property of the value in its own type (an f32 subnormal is normal as f64)
template <class T> bool test_property(SubOp property, T v) {
    switch (property) {
    case SubOp::testp_finite: return std::isfinite(v);
    case SubOp::testp_infinite: return std::isinf(v);
    case SubOp::testp_number: return !std::isnan(v);
    case SubOp::testp_notanumber: return std::isnan(v);
    case SubOp::testp_normal: return std::isnormal(v);
    case SubOp::testp_subnormal: return std::fpclassify(v) == FP_SUBNORMAL;
    default: return false;
    }
}
void exec_testp(Exec& x) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t* a = x.src(1);
    const SubOp property = x.in->sub;
    if (property == SubOp::none) x.unsupported(x.in->text);
    if (x.in->type == Type::f32) FOR_LANES(x.mask, d[l] = test_property(property, get<float>(a[l])))
    else FOR_LANES(x.mask, d[l] = test_property(property, get<double>(a[l])))
}

// [SECTION] Comparison, selection, logic ----------------------------------------------------------

template <class T> bool compare(Cmp c, T a, T b) {
    if constexpr (std::is_floating_point_v<T>) {
        bool unordered = std::isnan(a) || std::isnan(b);
        switch (c) {
        case Cmp::eq: return !unordered && a == b;
        case Cmp::ne: return !unordered && a != b;
        case Cmp::lt: return !unordered && a < b;
        case Cmp::le: return !unordered && a <= b;
        case Cmp::gt: return !unordered && a > b;
        case Cmp::ge: return !unordered && a >= b;
        case Cmp::equ: return unordered || a == b;
        case Cmp::neu: return unordered || a != b;
        case Cmp::ltu: return unordered || a < b;
        case Cmp::leu: return unordered || a <= b;
        case Cmp::gtu: return unordered || a > b;
        case Cmp::geu: return unordered || a >= b;
        case Cmp::num: return !unordered;
        case Cmp::nan: return unordered;
        default: return false;
        }
    } else {
        switch (c) {
        case Cmp::eq: return a == b;
        case Cmp::ne: return a != b;
        case Cmp::lt:
        case Cmp::lo: return a < b;
        case Cmp::le:
        case Cmp::ls: return a <= b;
        case Cmp::gt:
        case Cmp::hi: return a > b;
        case Cmp::ge:
        case Cmp::hs: return a >= b;
        default: return false;
        }
    }
}

bool combine(SubOp op, bool r, bool c) {
    switch (op) {
    case SubOp::and_: return r && c;
    case SubOp::or_: return r || c;
    case SubOp::xor_: return r != c;
    default: return r;
    }
}

// setp's common form, p = a cmp b, with the comparison chosen once per instruction rather than
// per lane. Returns false for forms it does not cover.
template <class T, Cmp C>
void setp_lanes(std::uint32_t mask, std::uint64_t* p, const std::uint64_t* a,
                const std::uint64_t* b) {
    FOR_LANES(mask, p[l] = compare<T>(C, get<T>(a[l]), get<T>(b[l])));
}
// setp's common forms (p = a cmp b on 32/64-bit integers, f32 or f64, an ordered comparison):
// calls f(T{}, std::integral_constant<Cmp, C>{}) with the value type and the comparison (lo, ls,
// hi, hs are lt, le, gt, ge on an unsigned T); false for every other form. The general handler and
// select_handlers() both use it, so the two agree on what the fixed-form loops cover.
template <class F> bool with_setp_form(Type type, Cmp cmp, F&& f) {
    auto by_cmp = [&](auto value) {
        switch (cmp) {
        case Cmp::eq: f(value, std::integral_constant<Cmp, Cmp::eq>{}); return true;
        case Cmp::ne: f(value, std::integral_constant<Cmp, Cmp::ne>{}); return true;
        case Cmp::lt:
        case Cmp::lo: f(value, std::integral_constant<Cmp, Cmp::lt>{}); return true;
        case Cmp::le:
        case Cmp::ls: f(value, std::integral_constant<Cmp, Cmp::le>{}); return true;
        case Cmp::gt:
        case Cmp::hi: f(value, std::integral_constant<Cmp, Cmp::gt>{}); return true;
        case Cmp::ge:
        case Cmp::hs: f(value, std::integral_constant<Cmp, Cmp::ge>{}); return true;
        default: return false;
        }
    };
    switch (type) {
    case Type::s32: return by_cmp(std::int32_t{});
    case Type::u32:
    case Type::b32: return by_cmp(std::uint32_t{});
    case Type::s64: return by_cmp(std::int64_t{});
    case Type::u64:
    case Type::b64: return by_cmp(std::uint64_t{});
    case Type::f32: return by_cmp(float{});
    case Type::f64: return by_cmp(double{});
    default: return false;
    }
}

// 9.7.5.2 setp: p = a cmp b [bool-op c]; with p|q, q gets the complement
void exec_setp(Exec& x) {
    const Operand& d0 = x.in->operands[0];
    std::uint64_t *p, *q = nullptr;
    if (d0.kind == OperandKind::vector) {
        p = x.reg(d0.vec[0]);
        if (d0.vec[1] >= 0) q = x.reg(d0.vec[1]);
    } else {
        p = x.dst(0);
    }
    const std::uint64_t *a = x.src(1), *b = x.src(2);
    const std::uint64_t* c = x.in->operand_count > 3 ? x.src(3) : nullptr;
    const Cmp cmp = x.in->cmp;
    const SubOp bop = x.in->bool_op;
    const bool ftz = x.in->flags & ptx::f_ftz;
    if (!q && !c && !ftz && with_setp_form(x.in->type, cmp, [&](auto value, auto form) {
            setp_lanes<decltype(value), decltype(form)::value>(x.mask, p, a, b);
        }))
        return;
    auto finish = [&](int l, bool r) {
        bool cv = c ? (c[l] & 1) : false;
        p[l] = combine(bop, r, cv);
        if (q) q[l] = combine(bop, !r, cv);
    };
    switch (x.in->type) {
    case Type::f32:
        FOR_LANES(x.mask, {
            float va = get<float>(a[l]), vb = get<float>(b[l]);
            if (ftz) {
                va = flush(va);
                vb = flush(vb);
            }
            finish(l, compare(cmp, va, vb));
        });
        return;
    case Type::f64:
        FOR_LANES(x.mask, finish(l, compare(cmp, get<double>(a[l]), get<double>(b[l]))));
        return;
    case Type::f16:
    case Type::bf16:
    case Type::f16x2:
    case Type::bf16x2: {
        // .f16x2: p takes the comparison of the low halves, q of the high halves (9.7.4.5)
        const HalfFormat& f = half_format(x.in->type);
        auto value = [&](std::uint64_t v, int e) {
            std::uint16_t h = half_element(v, e);
            if (ftz && (h & 0x7fff) < (1u << f.fraction_bits)) h &= 0x8000;
            return half_to_double(h, f);
        };
        const bool pair = is_half_pair(x.in->type);
        FOR_LANES(x.mask, {
            const bool cv = c ? (c[l] & 1) : false;
            const bool r0 = compare(cmp, value(a[l], 0), value(b[l], 0));
            if (!pair) {
                finish(l, r0);
                continue;
            }
            p[l] = combine(bop, r0, cv);
            if (q) q[l] = combine(bop, compare(cmp, value(a[l], 1), value(b[l], 1)), cv);
        });
        return;
    }
    default: break;
    }
#define SETP(T) FOR_LANES(x.mask, finish(l, compare<T>(cmp, get<T>(a[l]), get<T>(b[l]))))
    DISPATCH_INT(x.in->type, SETP)
#undef SETP
}

// 9.7.5.1 set: like setp, but the result is 0xffffffff / 1.0f in an ordinary register
void exec_set(Exec& x) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t *a = x.src(1), *b = x.src(2);
    const std::uint64_t* c = x.in->operand_count > 3 ? x.src(3) : nullptr;
    const Type dt = x.in->type;
    auto finish = [&](int l, bool r) {
        r = combine(x.in->bool_op, r, c ? bool(c[l] & 1) : false);
        d[l] = dt == Type::f32 ? put(r ? 1.0f : 0.0f) : (r ? 0xffffffffu : 0u);
    };
    switch (x.in->type2) {
    case Type::f32:
        FOR_LANES(x.mask, finish(l, compare(x.in->cmp, get<float>(a[l]), get<float>(b[l]))));
        return;
    case Type::f64:
        FOR_LANES(x.mask, finish(l, compare(x.in->cmp, get<double>(a[l]), get<double>(b[l]))));
        return;
    case Type::f16:
    case Type::bf16:
    case Type::f16x2:
    case Type::bf16x2: {
        // 9.7.4.4: per element, 1.0 in the destination's format (f16/bf16), or all ones (integer)
        const HalfFormat& f = half_format(x.in->type2);
        const int elements = is_half_pair(x.in->type2) ? 2 : 1;
        const std::uint16_t one = dt == Type::f16 || dt == Type::f16x2     ? 0x3c00
                                  : dt == Type::bf16 || dt == Type::bf16x2 ? 0x3f80
                                                                           : 0;
        FOR_LANES(x.mask, {
            std::uint64_t r = 0;
            for (int e = 0; e < elements; ++e) {
                bool v = compare(x.in->cmp, half_to_double(half_element(a[l], e), f),
                                 half_to_double(half_element(b[l], e), f));
                v = combine(x.in->bool_op, v, c ? bool(c[l] & 1) : false);
                const std::uint64_t bits = one ? one : elements == 2 ? 0xffff : 0xffffffffu;
                if (v) r |= bits << (16 * e);
            }
            d[l] = r;
        });
        return;
    }
    default: break;
    }
#define SET(T) FOR_LANES(x.mask, finish(l, compare<T>(x.in->cmp, get<T>(a[l]), get<T>(b[l]))))
    DISPATCH_INT(x.in->type2, SET)
#undef SET
}

// 9.7.5.3 selp: d = c ? a : b
void exec_selp(Exec& x) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t *a = x.src(1), *b = x.src(2), *c = x.src(3);
    FOR_LANES(x.mask, d[l] = (c[l] & 1) ? a[l] : b[l]);
}

// 9.7.5.4 slct: d = c >= 0 ? a : b
void exec_slct(Exec& x) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t *a = x.src(1), *b = x.src(2), *c = x.src(3);
    if (x.in->type2 == Type::f32) FOR_LANES(x.mask, d[l] = get<float>(c[l]) >= 0.f ? a[l] : b[l])
    else FOR_LANES(x.mask, d[l] = get<std::int32_t>(c[l]) >= 0 ? a[l] : b[l])
}

std::uint64_t width_mask(Type t) {
    int bits = ptx::type_bits(t);
    return t == Type::pred ? 1 : bits >= 64 ? ~0ull : (1ull << bits) - 1;
}

// 9.7.8.1-5 and, or, xor, not, cnot
template <int Op> void logic(Exec& x) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t *a = x.src(1), *b = x.src(2);
    const std::uint64_t wm = width_mask(x.in->type);
    FOR_LANES(x.mask, d[l] = (Op == 0 ? a[l] & b[l] : Op == 1 ? a[l] | b[l] : a[l] ^ b[l]) & wm);
}
void exec_and_(Exec& x) { logic<0>(x); }
void exec_or_(Exec& x) { logic<1>(x); }
void exec_xor_(Exec& x) { logic<2>(x); }
void exec_not_(Exec& x) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t* a = x.src(1);
    const std::uint64_t wm = width_mask(x.in->type);
    FOR_LANES(x.mask, d[l] = ~a[l] & wm);
}
void exec_cnot(Exec& x) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t* a = x.src(1);
    const std::uint64_t wm = width_mask(x.in->type);
    FOR_LANES(x.mask, d[l] = (a[l] & wm) == 0 ? 1 : 0);
}

// 9.7.8.6 lop3: any function of three inputs, given as its truth table
void exec_lop3(Exec& x) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t *a = x.src(1), *b = x.src(2), *c = x.src(3), *lut = x.src(4);
    FOR_LANES(x.mask, {
        std::uint32_t r = 0, va = std::uint32_t(a[l]), vb = std::uint32_t(b[l]),
                      vc = std::uint32_t(c[l]);
        std::uint32_t t = std::uint32_t(lut[l]) & 0xff;
        for (int i = 0; i < 32; ++i) {
            int idx = ((va >> i & 1) << 2) | ((vb >> i & 1) << 1) | (vc >> i & 1);
            r |= ((t >> idx) & 1u) << i;
        }
        d[l] = r;
    });
}

// 9.7.8.7 shf: funnel shift of the 64-bit {b:a}
void exec_shf(Exec& x) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t *a = x.src(1), *b = x.src(2), *c = x.src(3);
    const bool left = x.in->flags & ptx::f_shift_left, clamp = x.in->flags & ptx::f_shift_clamp;
    FOR_LANES(x.mask, {
        std::uint32_t n = std::uint32_t(c[l]);
        n = clamp ? std::min<std::uint32_t>(n, 32) : (n & 31);
        std::uint64_t v = (std::uint64_t(std::uint32_t(b[l])) << 32) | std::uint32_t(a[l]);
        d[l] = left ? std::uint32_t((v << n) >> 32) : std::uint32_t(v >> n);
    });
}

// 9.7.8.8 shl, 9.7.8.9 shr: shift amounts beyond the width give 0 (or the sign for shr.s)
void exec_shl(Exec& x) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t *a = x.src(1), *b = x.src(2);
    const int bits = ptx::type_bits(x.in->type);
    const std::uint64_t wm = width_mask(x.in->type);
    FOR_LANES(x.mask, {
        std::uint32_t n = std::uint32_t(b[l]);
        d[l] = n >= std::uint32_t(bits) ? 0 : (a[l] << n) & wm;
    });
}
void exec_shr(Exec& x) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t *a = x.src(1), *b = x.src(2);
#define SHR(T)                                                                                     \
    FOR_LANES(x.mask, {                                                                            \
        std::uint32_t n = std::uint32_t(b[l]);                                                     \
        T v = get<T>(a[l]);                                                                        \
        if (n >= 8 * sizeof(T)) d[l] = put<T>(is_negative(v) ? T(-1) : T(0));                      \
        else d[l] = put<T>(T(v >> n));                                                             \
    })
    DISPATCH_INT(x.in->type, SHR)
#undef SHR
}

// 9.7.8.7 prmt: pick four bytes of {b, a}. Default mode: each selector nibble names a byte (bit 3:
// replicate its sign); the other modes take their byte choice from a table indexed by c[1:0].
void exec_prmt(Exec& x) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t *a = x.src(1), *b = x.src(2), *c = x.src(3);
    static constexpr std::uint8_t modes[6][4][4] = {
        // [mode][c & 3][result byte] = source byte
        {{0, 1, 2, 3}, {1, 2, 3, 4}, {2, 3, 4, 5}, {3, 4, 5, 6}},  // f4e
        {{0, 7, 6, 5}, {1, 0, 7, 6}, {2, 1, 0, 7}, {3, 2, 1, 0}},  // b4e
        {{0, 0, 0, 0}, {1, 1, 1, 1}, {2, 2, 2, 2}, {3, 3, 3, 3}},  // rc8
        {{0, 1, 2, 3}, {1, 1, 2, 3}, {2, 2, 2, 3}, {3, 3, 3, 3}},  // ecl
        {{0, 0, 0, 0}, {0, 1, 1, 1}, {0, 1, 2, 2}, {0, 1, 2, 3}},  // ecr
        {{0, 1, 0, 1}, {2, 3, 2, 3}, {0, 1, 0, 1}, {2, 3, 2, 3}},  // rc16
    };
    const int mode = x.in->sub == SubOp::none ? -1 : int(x.in->sub) - int(SubOp::prmt_f4e);
    FOR_LANES(x.mask, {
        const std::uint64_t src = (std::uint64_t(std::uint32_t(b[l])) << 32) | std::uint32_t(a[l]);
        const std::uint32_t sel = std::uint32_t(c[l]);
        std::uint32_t r = 0;
        for (int i = 0; i < 4; ++i) {
            std::uint8_t byte;
            if (mode < 0) {
                const std::uint32_t s = (sel >> (4 * i)) & 0xf;
                byte = std::uint8_t(src >> (8 * (s & 7)));
                if (s & 8) byte = (byte & 0x80) ? 0xff : 0x00;
            } else {
                byte = std::uint8_t(src >> (8 * modes[mode][sel & 3][i]));
            }
            r |= std::uint32_t(byte) << (8 * i);
        }
        d[l] = r;
    });
}

// [SECTION] Data movement and conversion ----------------------------------------------------------

// 9.7.9.1 mov, including packing {a, b} into a wider register and unpacking it
void exec_mov(Exec& x) {
    const Operand& d0 = x.in->operands[0];
    const Operand& s0 = x.in->operands[1];
    const int bits = ptx::type_bits(x.in->type);
    if (d0.kind == OperandKind::vector) {  // unpack
        const std::uint64_t* a = x.src(1);
        int parts = d0.vec_count, w = bits / parts;
        for (int p = 0; p < parts; ++p) {
            if (d0.vec[p] < 0) continue;
            std::uint64_t* d = x.reg(d0.vec[p]);
            std::uint64_t m = w >= 64 ? ~0ull : (1ull << w) - 1;
            FOR_LANES(x.mask, d[l] = (a[l] >> (w * p)) & m);
        }
        return;
    }
    std::uint64_t* d = x.dst(0);
    if (s0.kind == OperandKind::vector) {  // pack
        int parts = s0.vec_count, w = bits / parts;
        std::uint64_t m = w >= 64 ? ~0ull : (1ull << w) - 1;
        std::uint64_t tmp[32] = {};
        for (int p = 0; p < parts; ++p) {
            const std::uint64_t* a = x.reg(s0.vec[p]);
            FOR_LANES(x.mask, tmp[l] |= (a[l] & m) << (w * p));
        }
        FOR_LANES(x.mask, d[l] = tmp[l]);
        return;
    }
    const std::uint64_t* a = x.src(1);
    const std::uint64_t wm = width_mask(x.in->type);
    FOR_LANES(x.mask, d[l] = a[l] & wm);
}

double round_int(double v, Rounding r) {
    switch (r) {
    case Rounding::rni: return std::nearbyint(v);  // ties to even in the default mode
    case Rounding::rzi: return std::trunc(v);
    case Rounding::rmi: return std::floor(v);
    case Rounding::rpi: return std::ceil(v);
    default: return std::trunc(v);  // float -> int defaults to truncation in C++ code's PTX (.rzi)
    }
}

// Reads a source value of type `t` from a register as a double (exact for every integer type up to
// 53 bits; 64-bit integers go through the integer path).
double as_double(Type t, std::uint64_t v) {
    switch (t) {
    case Type::f32: return get<float>(v);
    case Type::f64: return get<double>(v);
    case Type::f16: return half_to_float(std::uint16_t(v));
    case Type::bf16: return bf16_to_float(std::uint16_t(v));
    case Type::s8: return std::int8_t(v);
    case Type::s16: return std::int16_t(v);
    case Type::s32: return std::int32_t(v);
    case Type::s64: return double(std::int64_t(v));
    case Type::u8: return std::uint8_t(v);
    case Type::u16: return std::uint16_t(v);
    case Type::u32: return std::uint32_t(v);
    default: return double(v);
    }
}

template <class T> std::uint64_t saturating_to_int(double v, bool nan_is_zero = true) {
    // NaN: 0 from f32 (and f16, bf16) into 32 bits or fewer; otherwise the destination's sign bit
    // alone (an H200: f32 -> s64/u64 and f64 -> s32/s64 give 0x80...0).
    if (std::isnan(v)) return nan_is_zero ? 0 : put<T>(T(std::uint64_t(1) << (8 * sizeof(T) - 1)));
    if (v <= double(std::numeric_limits<T>::min())) return put<T>(std::numeric_limits<T>::min());
    if (v >= double(std::numeric_limits<T>::max())) return put<T>(std::numeric_limits<T>::max());
    return put<T>(T(v));
}

// 9.7.9.21 cvt to .s8/.s16 in a wider register: the result is sign-extended to the register's
// width (an H200: cvt.sat.s8.s32 of -1000 into a 32-bit register is 0xffffff80, not 0x80).
void sign_extend_to_register(Exec& x, std::uint64_t* d) {
    const int bits = ptx::type_bits(x.in->type);
    if (!ptx::type_is_signed(x.in->type) || bits >= 32) return;
    const Operand& o = x.in->operands[0];
    if (o.kind != OperandKind::reg || std::size_t(o.reg) >= x.fn->fn.register_types.size()) return;
    const int width = ptx::type_bits(x.fn->fn.register_types[std::size_t(o.reg)]);
    if (width <= bits) return;
    const std::uint64_t keep = width >= 64 ? ~0ull : (1ull << width) - 1;
    FOR_LANES(x.mask, {
        const std::uint64_t v = d[l] & ((1ull << bits) - 1);
        d[l] = (v >> (bits - 1) & 1 ? v | ~((1ull << bits) - 1) : v) & keep;
    });
}

// 9.7.9.21 cvt.{rna,rn,rz}{.satfinite}.tf32.f32: the f32 rounded to 10 mantissa bits, kept in
// the upper 19 bits of a 32-bit register (the low 13 bits zero). Subnormals are rounded, not
// flushed. A NaN keeps its upper bits (an H200 turns 0x7f800001 into 0x7f800000 and 0x7fffffff
// into 0x7fffe000: the mantissa is cut, not rounded); .satfinite makes it the canonical NaN and an
// infinite result the largest finite tf32 of its sign.
void cvt_tf32(Exec& x) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t* a = x.src(1);
    if (x.in->type2 != Type::f32) x.unsupported(x.in->text);
    const Rounding r = x.in->rounding;
    const bool satfinite = x.in->flags & ptx::f_satfinite;
    FOR_LANES(x.mask, {
        const std::uint32_t bits = std::uint32_t(a[l]), sign = bits & 0x80000000u,
                            magnitude = bits & 0x7fffffffu;
        std::uint32_t m;
        if (magnitude > 0x7f800000u) {
            m = satfinite ? 0x7fffffffu : magnitude & 0xffffe000u;
        } else {
            const std::uint32_t dropped = magnitude & 0x1fffu;
            m = magnitude & 0xffffe000u;
            if (magnitude != 0x7f800000u &&
                ((r == Rounding::rna && dropped >= 0x1000u) ||
                 (r == Rounding::rn &&
                  (dropped > 0x1000u || (dropped == 0x1000u && (m & 0x2000u))))))
                m += 0x2000u;  // may carry into the exponent, up to infinity
            if (satfinite && m == 0x7f800000u) m = 0x7f7fe000u;
        }
        d[l] = satfinite && magnitude > 0x7f800000u ? m : sign | m;
    });
}

// 9.7.9.21 cvt: every direction between integer, f16, bf16, f32 and f64
void exec_cvt(Exec& x) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t* a = x.src(1);
    const Type dt = x.in->type, st = x.in->type2;
    const Rounding r = x.in->rounding;
    const bool ftz = x.in->flags & ptx::f_ftz, sat = x.in->flags & ptx::f_sat;
    const bool dst_float = ptx::type_is_float(dt), src_float = ptx::type_is_float(st);
    if (st == Type::f16x2 || st == Type::bf16x2) x.unsupported(x.in->text);
    if (dt == Type::tf32) return cvt_tf32(x);
    const bool satfinite = x.in->flags & ptx::f_satfinite, relu = x.in->flags & ptx::f_relu;
    if (is_half(dt)) {
        // To f16 / bf16 with the instruction's rounding; .f16x2 / .bf16x2 pack two f32 sources,
        // the first into the high half (9.7.9.21).
        const HalfFormat& f = half_format(dt);
        const Rounding hr = r == Rounding::none ? Rounding::rn : r;
        const bool integer_rounding =
            r == Rounding::rni || r == Rounding::rzi || r == Rounding::rmi || r == Rounding::rpi;
        auto convert = [&](std::uint64_t bits) -> std::uint64_t {
            double v;
            if (st == Type::u64) v = round_to_odd([&] { return double(bits); });
            else if (st == Type::s64) v = round_to_odd([&] { return double(std::int64_t(bits)); });
            else v = as_double(st, bits);
            if (ftz && st == Type::f32) v = flush(float(v));
            if (st == Type::f64 && v != v)
                return narrowed_nan(bits, f.exponent_bits, f.fraction_bits);
            if (integer_rounding) v = round_int(v, r);
            if (sat) v = saturate01(v);
            if (relu && !std::isnan(v) && (v < 0 || std::signbit(v))) v = 0.0;
            return double_to_half(v, f, integer_rounding ? Rounding::rn : hr, satfinite);
        };
        if (is_half_pair(dt)) {
            const std::uint64_t* b = x.src(2);
            FOR_LANES(x.mask, d[l] = convert(a[l]) << 16 | convert(b[l]));
        } else {
            FOR_LANES(x.mask, d[l] = convert(a[l]));
        }
        return;
    }
    if (!dst_float && !src_float) {  // integer <-> integer: truncate or extend by the source's sign
        const int sbits = ptx::type_bits(st), dbits = ptx::type_bits(dt);
        FOR_LANES(x.mask, {
            std::uint64_t v = sbits >= 64 ? a[l] : a[l] & ((1ull << sbits) - 1);
            if (ptx::type_is_signed(st) && sbits < 64 && (v >> (sbits - 1) & 1))
                v |= ~((1ull << sbits) - 1);
            if (sat) {
                std::int64_t sv =
                    ptx::type_is_signed(st)
                        ? std::int64_t(v)
                        : std::int64_t(std::min<std::uint64_t>(v, 0x7fffffffffffffffull));
                bool dsigned = ptx::type_is_signed(dt);
                std::int64_t lo = dsigned ? (dbits >= 64 ? INT64_MIN : -(1ll << (dbits - 1))) : 0;
                std::int64_t hi =
                    dsigned ? (dbits >= 64 ? INT64_MAX : (1ll << (dbits - 1)) - 1)
                            : (dbits >= 64 ? INT64_MAX : std::int64_t((1ull << dbits) - 1));
                if (!ptx::type_is_signed(st) && v > 0x7fffffffffffffffull) sv = INT64_MAX;
                v = std::uint64_t(std::clamp(sv, lo, hi));
            }
            d[l] = dbits >= 64 ? v : v & ((1ull << dbits) - 1);
        });
        sign_extend_to_register(x, d);
        return;
    }
    if (dst_float && st == Type::bf16 && dt == Type::f32 && !ftz) {
        // bf16 is the upper half of an f32: a shift, NaN payloads included (as an H200 does it).
        FOR_LANES(x.mask, d[l] = (a[l] & 0xffffu) << 16);
        return;
    }
    if (dst_float) {
        RoundingScope rs(r);
        FOR_LANES(x.mask, {
            double v;
            if (st == Type::u64) v = double(a[l]);
            else if (st == Type::s64) v = double(std::int64_t(a[l]));
            else v = as_double(st, a[l]);
            if (src_float && ftz && st == Type::f32) v = flush(float(v));
            if (r == Rounding::rni || r == Rounding::rzi || r == Rounding::rmi ||
                r == Rounding::rpi)
                v = round_int(v, r);
            if (sat) v = saturate01(v);
            switch (dt) {
            case Type::f32: {
                float f = (st == Type::u64)   ? float(a[l])
                          : (st == Type::s64) ? float(std::int64_t(a[l]))
                          : (st == Type::f64 && v != v)
                              ? std::bit_cast<float>(narrowed_nan(a[l], 8, 23))
                              : canonical(float(v));
                if (ftz) f = flush(f);
                d[l] = put(f);
                break;
            }
            case Type::f64: d[l] = put(v); break;
            default: break;
            }
        });
        return;
    }
    // float -> integer (saturating, as the hardware does)
    const bool nan_is_zero = st != Type::f64 && ptx::type_bits(dt) <= 32;
    FOR_LANES(x.mask, {
        double v = as_double(st, a[l]);
        if (ftz && st == Type::f32) v = flush(float(v));
        v = round_int(v, r);
        switch (dt) {
        case Type::s8: d[l] = saturating_to_int<std::int8_t>(v, nan_is_zero); break;
        case Type::s16: d[l] = saturating_to_int<std::int16_t>(v, nan_is_zero); break;
        case Type::s32: d[l] = saturating_to_int<std::int32_t>(v, nan_is_zero); break;
        case Type::s64: d[l] = saturating_to_int<std::int64_t>(v, nan_is_zero); break;
        case Type::u8: d[l] = saturating_to_int<std::uint8_t>(v, nan_is_zero); break;
        case Type::u16: d[l] = saturating_to_int<std::uint16_t>(v, nan_is_zero); break;
        case Type::u32: d[l] = saturating_to_int<std::uint32_t>(v, nan_is_zero); break;
        case Type::u64: d[l] = saturating_to_int<std::uint64_t>(v, nan_is_zero); break;
        default: x.unsupported(x.in->text);
        }
    });
    sign_extend_to_register(x, d);
}

// 9.7.9.22 cvt.pack.sat: two s32 values saturated to a narrow type (s16 u16 s8 u8 s4 u4 s2 u2) and
// packed, a above b; for the types under 16 bits, the rest of d comes from c's low bits.
void exec_cvt_pack(Exec& x) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t *a = x.src(1), *b = x.src(2);
    const Type t = x.in->type;
    const int bits = ptx::type_bits(t);
    if (bits < 2 || bits > 16 || ptx::type_is_float(t)) x.unsupported(x.in->text);
    const std::uint64_t* c = bits < 16 && x.in->operand_count > 3 ? x.src(3) : nullptr;
    const bool is_signed = ptx::type_is_signed(t);
    const std::int64_t lo = is_signed ? -(std::int64_t(1) << (bits - 1)) : 0;
    const std::int64_t hi =
        is_signed ? (std::int64_t(1) << (bits - 1)) - 1 : (std::int64_t(1) << bits) - 1;
    const std::uint32_t m = (1u << bits) - 1;
    FOR_LANES(x.mask, {
        const std::uint32_t ta =
            std::uint32_t(std::clamp<std::int64_t>(std::int32_t(a[l]), lo, hi)) & m;
        const std::uint32_t tb =
            std::uint32_t(std::clamp<std::int64_t>(std::int32_t(b[l]), lo, hi)) & m;
        std::uint32_t r = ta << bits | tb;
        if (c && bits < 16) r |= std::uint32_t(c[l]) << (2 * bits);
        d[l] = r;
    });
}

// 9.7.9.18 cvta: between a state space's own addresses and generic ones
void exec_cvta(Exec& x) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t* a = x.src(1);
    std::uint64_t window = 0;
    switch (x.in->space) {
    case Space::shared: window = shared_window; break;
    case Space::local: window = local_window; break;
    case Space::constant: window = const_window; break;
    case Space::param: window = param_window; break;
    default: window = 0; break;  // global addresses are generic addresses
    }
    const bool to = x.in->flags & ptx::f_to;
    if (window == 0) {  // global: generic and global addresses are the same
        FOR_LANES(x.mask, d[l] = a[l]);
        return;
    }
    FOR_LANES(x.mask,
              d[l] = to ? (window && a[l] >= window ? a[l] - window : a[l]) : a[l] + window);
}

// 9.7.9.22 mapa: the address of the same location in the shared memory of block `rank` of the
// cluster, as a shared::cluster address (.shared::cluster) or a generic one (cluster.h).
void exec_mapa(Exec& x) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t* a = x.src(1);
    const std::uint64_t* rank = x.src(2);
    const bool generic = !(x.in->flags & ptx::f_cluster);
    FOR_LANES(x.mask, {
        std::uint64_t v = a[l];
        if (generic) {
            if (v < shared_window || v >= shared_window + window_size)
                x.fault("mapa of an address that is not in shared memory",
                        "the generic address " + hex(v) +
                            " does not point into shared memory, so it has no counterpart in "
                            "another block",
                        "map_shared_rank() takes a pointer to a __shared__ variable", l);
            v -= shared_window;
        }
        // A rank outside the cluster gives an address no block has, as on a GPU: the access
        // through it is the fault (cluster_target), on the learner's line rather than inside
        // cooperative_groups' map_shared_rank().
        const std::uint32_t r = std::uint32_t(rank[l]);
        const std::uint64_t m = cluster_address(r, x.block.cluster_rank, v & cluster_offset_mask);
        d[l] = generic ? m + shared_window : m;
    });
}

// 9.7.9.23 getctarank: the rank of the block whose shared memory an address names.
void exec_getctarank(Exec& x) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t* a = x.src(1);
    const bool generic = !(x.in->flags & ptx::f_cluster);
    FOR_LANES(x.mask, {
        std::uint64_t v = a[l];
        if (generic) {
            if (v < shared_window || v >= shared_window + window_size)
                x.fault("getctarank of an address that is not in shared memory",
                        "the generic address " + hex(v) + " does not point into shared memory",
                        "query_shared_rank() takes a pointer into (distributed) shared memory", l);
            v -= shared_window;
        }
        d[l] = cluster_rank_of(v, x.block.cluster_rank);
    });
}

// 9.7.9.17 isspacep
void exec_isspacep(Exec& x) {
    std::uint64_t* d = x.dst(0);
    const std::uint64_t* a = x.src(1);
    auto in_window = [](std::uint64_t v, std::uint64_t w) { return v >= w && v < w + window_size; };
    FOR_LANES(x.mask, {
        std::uint64_t v = a[l];
        bool r;
        switch (x.in->space) {
        // shared::cta: this block's own shared memory; shared::cluster: any block's of the cluster
        case Space::shared:
            r = in_window(v, shared_window) &&
                ((x.in->flags & ptx::f_cluster) ||
                 cluster_rank_of(v - shared_window, x.block.cluster_rank) == x.block.cluster_rank);
            break;
        case Space::local: r = in_window(v, local_window); break;
        case Space::constant: r = in_window(v, const_window); break;
        case Space::param: r = in_window(v, param_window); break;
        default:
            r = !in_window(v, shared_window) && !in_window(v, local_window) &&
                !in_window(v, const_window) && !in_window(v, param_window);
        }
        d[l] = r;
    });
}

// [SECTION] Loads, stores, atomics ----------------------------------------------------------------

// The buffer holding [lo, end), or null. Kernels touch a few buffers in turn (SAXPY: x, y, y), so
// the block remembers the last four it found before asking DeviceMemory's ordered map.
Allocation* find_buffer(Exec& x, std::uint64_t lo, std::uint64_t end) {
    if (end < lo) return nullptr;  // wrapped round the address space: no buffer holds it
    auto& recent = x.block.recent_buffers;
    for (Allocation* a : recent)
        if (a && lo >= a->base && end <= a->base + a->size) return a;
    Allocation* a = x.launch.memory.find(lo, end - lo);
    if (a && !launch_may_touch(x, a)) return nullptr;  // the per-lane path names the fault
    if (a) {
        std::copy_backward(recent.begin(), recent.end() - 1, recent.end());
        recent[0] = a;
    }
    return a;
}

// Whether every lane's access [base[l] + shift, + size) lies inside [0, extent), aligned to size
// (a power of two). With d = base[l] + shift, d >= 2^63 (below the start) or (extent - size) - d
// >= 2^63 (past the end) sets the top bit: adds and ors only, so the loop vectorises.
inline bool lanes_inside(std::uint32_t mask, const std::uint64_t* base, std::uint64_t shift,
                         std::uint64_t extent, std::uint32_t size) {
    if (extent < size) return false;
    const std::uint64_t limit = extent - size;
    std::uint64_t outside = 0, misaligned = 0;
    FOR_LANES(mask, {
        const std::uint64_t d = base[l] + shift;
        outside |= d | (limit - d);
        misaligned |= d;
    });
    return (outside >> 63) == 0 && (misaligned & (size - 1)) == 0;
}

// The live global buffer that every lane's access [base[l] + offset, + size) lies inside, aligned;
// null if there is none (the per-lane path then names the fault). The buffer is the first lane's;
// buffers start 256-byte aligned, so offsets into them are aligned as the addresses are.
Allocation* warp_buffer(Exec& x, std::uint32_t mask, const std::uint64_t* base,
                        std::uint64_t offset, std::uint32_t size) {
    if (mask == 0) return nullptr;
    const std::uint64_t first = base[__builtin_ctz(mask)] + offset;
    Allocation* a = first >= global_base ? find_buffer(x, first, first + size) : nullptr;
    if (!a || a->freed || !lanes_inside(mask, base, offset - a->base, a->size, size))
        return nullptr;
    return a;
}

// [SECTION] Races between blocks in global memory -------------------------------------------------

// Blocks of a launch run in no fixed order, and on a GPU at the same time: a word that one block
// writes with a plain store and another block writes or reads in the same launch holds whichever
// came last (a histogram merged with `bins[t] += local[t]` loses counts). Atomics do not race with
// each other. A kernel with a memory fence may hand data between blocks on purpose (the last
// block reads what the others wrote after __threadfence and an atomic ticket), so its reads are
// not checked; its writes are.

// How a lane touches a global word. The shadow keeps (block + 1) << 2 | kind of the last write:
// kind 0 a plain store, 1 a combining atomic (add, min, max, and, or, xor, inc, dec), 2 a
// compare-and-swap, 3 an exchange.
enum class GlobalUse { read, write, atomic, cas, exchange };

constexpr std::uint32_t shadow_kind(GlobalUse use) {
    return use == GlobalUse::atomic     ? 1
           : use == GlobalUse::cas      ? 2
           : use == GlobalUse::exchange ? 3
                                        : 0;
}

// Whether `use` by one block after another block's write of kind `kind` is ordered. Atomics are
// ordered after atomics, and a plain read after an atomic is what a compare-and-swap loop starts
// with. An exchange replaces the value: after another block's exchange or combining atomic, one
// block's contribution is lost (atomicExch(&bins[t], bins[t] + local[t])); after a
// compare-and-swap it is a lock being released.
constexpr bool ordered_after(std::uint32_t kind, GlobalUse use) {
    if (kind == 0 || use == GlobalUse::write) return false;
    if (use == GlobalUse::exchange) return kind == 2;
    return true;
}

std::uint32_t* global_shadow_of(Exec& x, const Allocation* a) {
    Block& b = x.block;
    if (b.shadows_serial != x.launch.serial) {
        b.recent_shadows = {};
        b.shadows_serial = x.launch.serial;
    }
    for (auto& [alloc, shadow] : b.recent_shadows)
        if (alloc == a) return shadow;
    std::uint32_t* found = nullptr;
    {
        std::lock_guard<std::mutex> lock(x.launch.global_shadow_mutex);
        if (x.launch.kernel_fences < 0) {
            x.launch.kernel_fences = 0;
            for (const auto& f : x.launch.program.functions)
                for (const auto& in : f.fn.code)
                    if (in.op == ptx::Opcode::membar || in.op == ptx::Opcode::fence)
                        x.launch.kernel_fences = 1;
        }
        for (auto& [alloc, shadow] : x.launch.global_shadow)
            if (alloc == a) found = shadow.get();
        if (!found) {
            const std::size_t words = (a->size + 3) / 4;
            // Two words per word of the buffer: the block shadow, then for the warp-level check
            // the sync interval (Warp::stamp) and lane of the last plain write, stamp << 5 | lane.
            // zeroed
            x.launch.global_shadow.emplace_back(a, std::make_unique<std::uint32_t[]>(words * 2));
            found = x.launch.global_shadow.back().second.get();
        }
    }
    std::copy_backward(b.recent_shadows.begin(), b.recent_shadows.end() - 1,
                       b.recent_shadows.end());
    b.recent_shadows[0] = {a, found};
    return found;
}

// Records a race (not a fault: the launch finishes, so its result can still be compared and the
// lesson fails that launch's check with this message; the first race is kept).
[[gnu::noinline, gnu::cold]] void global_race(Exec& x, const Allocation* a, std::uint64_t word,
                                              int lane, GlobalUse use, std::uint32_t other) {
    std::lock_guard<std::mutex> lock(x.launch.global_shadow_mutex);
    if (x.launch.global_races++ > 0) return;
    const std::uint32_t other_block = (other >> 2) - 1;
    const std::uint32_t kind = other & 3;
    const auto& c = x.launch.config;
    const char* verb = use == GlobalUse::read       ? "reads"
                       : use == GlobalUse::write    ? "writes"
                       : use == GlobalUse::exchange ? "exchanges (atomicExch)"
                                                    : "updates atomically";
    std::ostringstream m;
    m << (x.launch.program.source_path.empty() ? "kernel" : x.launch.program.source_path);
    if (x.in->line) m << ":" << x.in->line;
    m << ": error: race between blocks in global memory in kernel '" << x.launch.display_name
      << "': block " << dims_text(x.block.linear, c.grid.x, c.grid.y) << ", thread "
      << dims_text(x.warp.id * 32 + std::uint32_t(lane), c.block.x, c.block.y) << " " << verb
      << " byte " << word * 4 << " of " << a->size << "-byte buffer " << a->label
      << ", which block " << dims_text(other_block, c.grid.x, c.grid.y)
      << (kind == 3   ? " exchanged"
          : kind != 0 ? " updated atomically"
                      : " wrote")
      << " in this launch. Blocks run in no fixed order (on a GPU, at the same time), so the "
         "result depends on which "
         "comes first";
    if (use == GlobalUse::exchange)
        m << "; an exchange replaces the value, so the other block's update is lost";
    m << "; try: ";
    if (use == GlobalUse::write && kind == 0)
        m << "give each block its own elements to write (index with blockIdx as well as "
             "threadIdx); to combine "
             "blocks' results in one place use atomicAdd or a second kernel";
    else
        m << "combine what several blocks contribute with an atomic that adds (atomicAdd(&bins[t], "
             "local[t]), "
             "not bins[t] += local[t] or atomicExch(&bins[t], bins[t] + local[t])), or in a second "
             "kernel "
             "launched after this one";
    x.launch.first_global_race = m.str();
}

// Lanes of one warp that hand data over through global memory with no __syncwarp or *_sync
// collective between: safe in the emulator's lockstep, a race on sm_70 and later. A fault, as the
// same hazard in shared memory is. The writer's line comes from the warp's notes of its stores in
// the current interval (Warp::stores), when the store is still among them.
[[noreturn, gnu::noinline, gnu::cold]] void
global_warp_hazard(Exec& x, const Allocation* a, std::uint64_t word, int lane, int other_lane) {
    const std::uint64_t address = a->base + word * 4;
    std::uint32_t other_line = 0;
    const Warp& w = x.warp;
    for (std::size_t k = w.stores.size(); k-- > 0 && !other_line;) {
        const StoreNote& n = w.stores[(w.next_store + k) % w.stores.size()];
        if (n.stamp == w.stamp && (n.lanes >> other_lane & 1) && address >= n.lo && address < n.hi)
            other_line = line_at(x.launch.program, n.gpc);
    }
    FaultInfo f;
    f.kind = "warp-level race in global memory";
    f.detail =
        "lane " + std::to_string(lane) + " of warp " + std::to_string(w.id) + " reads byte " +
        std::to_string(word * 4) + " of " + std::to_string(a->size) + "-byte buffer " + a->label +
        ", which lane " + std::to_string(other_lane) + " of the same warp wrote" +
        (other_line ? " at line " + std::to_string(other_line) : std::string()) +
        " with no __syncwarp() between. The emulator runs a warp's lanes in lockstep, but since "
        "Volta (sm_70) "
        "they are scheduled independently: on an H100 or H200 the read can see the old value";
    f.advice = "put __syncwarp() between the write and the read (a `volatile` pointer is not "
               "enough), or exchange "
               "the values in registers with __shfl_down_sync(0xffffffff, v, offset)";
    f.pc = x.pc;
    f.function = x.frame->function;
    f.block = x.block.linear;
    f.warp = w.id;
    f.lane = lane;
    f.other_line = other_line;
    throw Fault(std::move(f));
}

// The race check of one warp access [base[l] + offset, + size) inside buffer a (ordered_after
// says which accesses after another block's write are not races). Within the block, a read of a
// word that another lane of the same warp wrote in the same sync interval (no __syncwarp, *_sync
// collective or barrier since) is the warp-level hazard.
// [SECTION] What a launch touched, for the race detector between streams (cudart/ordering.h) ------

// Adds [lo, hi) to the block's footprint, extending one of the last few spans when it continues
// or overlaps it. A few, not one: a loop that reads a scalar, reads an array and writes it
// interleaves three streams of spans, each of which continues itself (simpleStreams' kernel kept
// fifteen spans a warp with the last span alone, and sorting them took a third of its time).
inline void add_span(Block& b, std::uint64_t lo, std::uint64_t hi, bool write) {
    std::vector<MemorySpan>& f = b.footprint;
    constexpr std::size_t look_back = 6;
    for (std::size_t i = f.size(), seen = 0; i > 0 && seen < look_back; --i, ++seen) {
        MemorySpan& t = f[i - 1];
        if (t.write == write && lo <= t.hi && hi >= t.lo) {
            t.lo = std::min(t.lo, lo);
            t.hi = std::max(t.hi, hi);
            return;
        }
    }
    // A scattered kernel (a histogram's atomics) adds a span per lane: fold them now and then.
    if (f.size() >= (1u << 16) && (f.size() & (f.size() - 1)) == 0) compact_footprint(f);
    f.push_back({lo, hi, write});
}

// One warp access: a single span when the lanes cover their range without gaps (every coalesced
// access), else a span per lane.
[[gnu::noinline]] void note_footprint(Block& b, std::uint32_t mask, const std::uint64_t* base,
                                      std::uint64_t offset, std::uint32_t size, bool write) {
    if (!mask) return;
    std::uint64_t lo = ~0ull, hi = 0;
    FOR_LANES(mask, {
        lo = std::min(lo, base[l] + offset);
        hi = std::max(hi, base[l] + offset + size);
    });
    if (hi - lo <= std::uint64_t(__builtin_popcount(mask)) * size) {
        add_span(b, lo, hi, write);
        return;
    }
    FOR_LANES(mask, add_span(b, base[l] + offset, base[l] + offset + size, write));
}

inline void global_races(Exec& x, const Allocation* a, std::uint32_t mask,
                         const std::uint64_t* base, std::uint64_t offset, std::uint32_t size,
                         GlobalUse use) {
    if (x.launch.record_footprint)
        note_footprint(x.block, mask, base, offset, size, use != GlobalUse::read);
    // Traced launches only (every lesson check, `cudalab exec --trace`): the shadow doubles the
    // memory a launch touches (and the lanes' words as much again), and untraced runs are the
    // ones kept fast.
    if (!x.counting() || !x.launch.detect_races) return;
    std::uint32_t* shadow = global_shadow_of(x, a);
    if (use == GlobalUse::read && x.launch.kernel_fences == 1) return;
    std::uint32_t* const lanes = shadow + (a->size + 3) / 4;
    const std::uint32_t me = (x.block.linear + 1) << 2;
    const std::uint32_t stamp = x.warp.stamp << 5;
    if (use == GlobalUse::write) {
        // A note of the store, for the line a hazard names.
        std::uint64_t lo = ~0ull, hi = 0;
        FOR_LANES(mask, {
            lo = std::min(lo, base[l] + offset);
            hi = std::max(hi, base[l] + offset + size);
        });
        Warp& w = x.warp;
        w.stores[w.next_store] = StoreNote{w.stamp, mask, x.gpc, lo, hi};
        w.next_store = (w.next_store + 1) % w.stores.size();
    }
    // The common case first: a full warp over 32 consecutive words that this block wrote last or
    // no block wrote (a read: and no other lane of this warp wrote in this interval), or that this
    // block wrote last (a write: only the lanes to record).
    if (mask == 0xffffffffu && size == 4 && (use == GlobalUse::read || use == GlobalUse::write)) {
        std::uint64_t diff = 0;
        for (int l = 0; l < 32; ++l) diff |= base[l] ^ (base[0] + std::uint64_t(l) * 4);
        if (diff == 0) {
            const std::uint64_t first = (base[0] + offset - a->base) / 4;
            const std::uint32_t* s = shadow + first;
            std::uint32_t* const lw = lanes + first;
            std::uint32_t other = 0;
            if (use == GlobalUse::read) {
                for (int l = 0; l < 32; ++l)
                    other |= ((s[l] != 0) & (s[l] != me)) |
                             (((lw[l] & ~31u) == stamp) & ((lw[l] & 31) != std::uint32_t(l)));
            } else {
                for (int l = 0; l < 32; ++l) other |= s[l] != me;
                if (!other)
                    for (int l = 0; l < 32; ++l) lw[l] = stamp | std::uint32_t(l);
            }
            if (!other) return;
        }
    }
    const bool other_blocks = x.launch.config.grid.count() > 1;
    FOR_LANES(mask, {
        const std::uint64_t at = base[l] + offset - a->base;
        for (std::uint64_t w = at / 4; w <= (at + size - 1) / 4; ++w) {
            const std::uint32_t prev = shadow[w];
            // Another block wrote this word in this launch.
            if (other_blocks && prev != 0 && (prev >> 2) != (me >> 2) &&
                !ordered_after(prev & 3, use))
                global_race(x, a, w, l, use, prev);
            // Another lane of this warp wrote it with a plain store in this interval.
            if (use == GlobalUse::read && prev == me && (lanes[w] & ~31u) == stamp &&
                int(lanes[w] & 31) != l)
                global_warp_hazard(x, a, w, l, int(lanes[w] & 31));
            if (use != GlobalUse::read) {
                shadow[w] = me | shadow_kind(use);
                lanes[w] = use == GlobalUse::write ? stamp | std::uint32_t(l) : 0;
            }
        }
    });
}

// The writer shadow of a store that lies inside buffer a: each word records the thread (+1).
void record_writers(Exec& x, Allocation* a, std::uint32_t mask, const std::uint64_t* base,
                    std::uint64_t offset, std::uint32_t size) {
    if (!x.launch.track_writers || a->writer.empty()) return;  // host memory keeps no shadow
    std::uint32_t* writer = a->writer.data();
    const std::uint32_t tid_base =
        x.block.linear * std::uint32_t(x.launch.config.block.count()) + x.warp.id * 32;
    FOR_LANES(mask, {
        const std::uint64_t at = base[l] + offset - a->base;
        for (std::uint64_t w = at / 4; w <= (at + size - 1) / 4; ++w)
            writer[w] = tid_base + std::uint32_t(l) + 1;
    });
}

// Each lane's Word between its register and data + (base[l] + shift). The sum is taken in
// unsigned 64-bit arithmetic first: for global memory shift is offset - the buffer's device
// address, and forming data - address as a pointer would leave the host allocation (undefined
// behaviour, found by UBSan). A full warp over consecutive elements (lane l at lane 0's address + l
// * Bytes, the coalesced pattern the lessons teach) moves as one block of memory. Each lane reads
// its address before its destination is written, so the address register may be the destination.
// Whether a full warp's addresses are consecutive Bytes-sized elements (lane l at lane 0's + l *
// Bytes).
template <int Bytes> inline bool consecutive_lanes(std::uint32_t mask, const std::uint64_t* base) {
    if (mask != 0xffffffffu) return false;
    std::uint64_t diff = 0;
    for (int l = 0; l < 32; ++l) diff |= base[l] ^ (base[0] + std::uint64_t(l) * Bytes);
    return diff == 0;
}

// A full warp's 32 consecutive elements at p, to or from the lanes' registers.
template <bool Store, int Bytes> inline void move_block(std::uint8_t* p, std::uint64_t* v) {
    using Word = std::conditional_t<Bytes == 4, std::uint32_t, std::uint64_t>;
    if (Store) {
        for (int l = 0; l < 32; ++l) {
            const Word w = Word(v[l]);
            std::memcpy(p + l * Bytes, &w, Bytes);
        }
    } else {
        Word w[32];
        std::memcpy(w, p, sizeof w);
        for (int l = 0; l < 32; ++l) v[l] = w[l];
    }
}

template <bool Store, int Bytes>
void move_lanes(std::uint32_t mask, std::uint8_t* data, std::uint64_t shift,
                const std::uint64_t* base, std::uint64_t* v) {
    using Word = std::conditional_t<Bytes == 4, std::uint32_t, std::uint64_t>;
    if (consecutive_lanes<Bytes>(mask, base)) {
        move_block<Store, Bytes>(data + (base[0] + shift), v);
    } else if (Store) {
        FOR_LANES(mask, {
            const Word w = Word(v[l]);
            std::memcpy(data + (base[l] + shift), &w, Bytes);
        });
    } else {
        FOR_LANES(mask, {
            Word w;
            std::memcpy(&w, data + (base[l] + shift), Bytes);
            v[l] = w;
        });
    }
}

std::uint64_t read_value(const std::uint8_t* p, int bytes, bool sign) {
    std::uint64_t v = 0;
    // Fixed sizes for the usual cases: a memcpy of a variable size is a library call.
    if (bytes == 4) {
        std::uint32_t w;
        std::memcpy(&w, p, 4);
        return sign ? std::uint64_t(std::int64_t(std::int32_t(w))) : w;
    }
    if (bytes == 8) {
        std::memcpy(&v, p, 8);
        return v;
    }
    std::memcpy(&v, p, std::size_t(bytes));
    if (sign && bytes < 8 && (v >> (8 * bytes - 1) & 1)) v |= ~((1ull << (8 * bytes)) - 1);
    return v;
}

MemSpace trace_space(Space s) {
    switch (s) {
    case Space::shared: return MemSpace::shared;
    case Space::local: return MemSpace::local;
    case Space::param: return MemSpace::param;
    case Space::constant: return MemSpace::constant;
    default: return MemSpace::global;
    }
}

// 9.7.9.8 ld, 9.7.9.10 ldu, 9.7.9.11 st
template <bool Store> void load_store(Exec& x) {
    const Instruction& in = *x.in;
    const int addr_operand = Store ? 0 : 1, value_operand = Store ? 1 : 0;
    const Operand& ao = in.operands[addr_operand];
    const Operand& vo = in.operands[value_operand];
    const int elem = std::max(1, ptx::type_bits(in.type) / 8);
    // A register holds 64 bits: a .b128 value has nowhere to go (and would overrun the 8-byte
    // value each lane's bytes pass through below).
    if (elem > 8) x.unsupported("128-bit loads and stores");
    const int count = in.vector;
    const std::uint32_t size = std::uint32_t(elem * count);
    const bool sign = ptx::type_is_signed(in.type);
    if (!Store && in.space == Space::param && ao.reg < 0 && ao.symbol >= 0 && x.mask) {
        // The usual form, ld.param [name] of a kernel parameter: one address for the whole warp,
        // read once (and no per-lane address array to fill first).
        const std::uint64_t a = x.symbol_address(ao) + std::uint64_t(ao.value);
        const std::uint64_t off = a - kernel_param_base;
        if (a >= kernel_param_base && fits(off, size, x.launch.params.size())) {
            for (int k = 0; k < count; ++k) {
                const std::int32_t r = vo.kind == OperandKind::vector ? vo.vec[k] : vo.reg;
                if (r < 0) continue;
                const std::uint64_t v =
                    read_value(x.launch.params.data() + off + std::uint64_t(k * elem), elem, sign);
                std::uint64_t* d = x.reg(r);
                FOR_LANES(x.mask, d[l] = v);
            }
            return;
        }
    }
    std::uint64_t addr[32];
    lane_addresses(x, ao, addr);
    Space space = in.space;
    if (space == Space::param && x.mask && addr[__builtin_ctz(x.mask)] >= kernel_param_base) {
        // Kernel parameters: one buffer for every thread.
        if (Store)
            x.fault("store to a kernel parameter", "kernel parameters are read-only",
                    "copy the value into a local variable first");
        const std::uint64_t off = addr[__builtin_ctz(x.mask)] - kernel_param_base;
        if (ao.reg < 0 && fits(off, size, x.launch.params.size())) {
            // The usual form, ld.param [name]: one address for the whole warp, read once.
            for (int k = 0; k < count; ++k) {
                const std::uint64_t v =
                    read_value(x.launch.params.data() + off + std::uint64_t(k * elem), elem, sign);
                const std::int32_t r = vo.kind == OperandKind::vector ? vo.vec[k] : vo.reg;
                if (r < 0) continue;
                std::uint64_t* d = x.reg(r);
                FOR_LANES(x.mask, d[l] = v);
            }
            return;
        }
        FOR_LANES(x.mask, {
            const std::uint64_t off = addr[l] - kernel_param_base;
            if (addr[l] < kernel_param_base || !fits(off, size, x.launch.params.size()))
                x.fault("out-of-bounds parameter load",
                        std::to_string(size) + " bytes at offset " + offset_text(off) +
                            ", outside the " + std::to_string(x.launch.params.size()) +
                            "-byte parameter buffer",
                        "check the kernel's parameter list", l);
            for (int k = 0; k < count; ++k) {
                std::uint64_t v =
                    read_value(x.launch.params.data() + off + std::uint64_t(k * elem), elem, sign);
                std::int32_t r = vo.kind == OperandKind::vector ? vo.vec[k] : vo.reg;
                if (r >= 0) x.reg(r)[l] = v;
            }
        });
        return;
    }
    Allocation* cache = nullptr;
    MemSpace resolved = trace_space(space);
    const bool global_writer = Store && x.launch.track_writers;
    const std::uint32_t tid_base =
        (x.block.linear * std::uint32_t(x.launch.config.block.count())) + x.warp.id * 32;
    // Fast path: the whole warp's access lies inside one live global allocation, every lane
    // aligned. (Global addresses sit above every generic window, so a generic access there is
    // global too.) Anything else takes the per-lane path below, which names the fault.
    if (space == Space::global || space == Space::generic) {
        if (Allocation* a = warp_buffer(x, x.mask, addr, 0, size)) {
            // Host address of lane l's element: data + (addr[l] + offset - start), summed as
            // integers first (a pointer to data - start would be undefined behaviour).
            std::uint8_t* const data = a->bytes();
            const std::uint64_t start = a->base;
            for (int k = 0; k < count; ++k) {
                std::int32_t r = vo.kind == OperandKind::vector ? vo.vec[k] : vo.reg;
                const std::uint64_t offset = std::uint64_t(k * elem);
                if (Store) {
                    if (r < 0 && vo.kind != OperandKind::imm) continue;
                    const std::uint64_t* v = r >= 0 ? x.reg(r) : nullptr;
                    const std::uint64_t imm = std::uint64_t(vo.value);
                    if (elem == 4)
                        FOR_LANES(x.mask, {
                            std::uint32_t w = std::uint32_t(v ? v[l] : imm);
                            std::memcpy(data + (addr[l] + offset - start), &w, 4);
                        })
                    else
                        FOR_LANES(x.mask, {
                            std::uint64_t w = v ? v[l] : imm;
                            std::memcpy(data + (addr[l] + offset - start), &w, std::size_t(elem));
                        })
                } else if (r >= 0) {
                    std::uint64_t* d = x.reg(r);
                    if (elem == 4 && !sign)
                        FOR_LANES(x.mask, {
                            std::uint32_t w;
                            std::memcpy(&w, data + (addr[l] + offset - start), 4);
                            d[l] = w;
                        })
                    else
                        FOR_LANES(x.mask,
                                  d[l] = read_value(data + (addr[l] + offset - start), elem, sign));
                }
            }
            if (Store) record_writers(x, a, x.mask, addr, 0, size);
            global_races(x, a, x.mask, addr, 0, size, Store ? GlobalUse::write : GlobalUse::read);
            record_memory(x, MemSpace::global, Store ? MemOp::store : MemOp::load, addr, size);
            return;
        }
    }
    FOR_LANES(x.mask, {
        Access acc = resolve(x, space, addr[l], size, Store ? "store" : "load", l, cache);
        resolved = acc.space;
        if (acc.space == MemSpace::shared)
            shared_shadow(x, acc.shared_offset, size, Store ? SharedUse::write : SharedUse::read,
                          l);
        for (int k = 0; k < count; ++k) {
            std::int32_t r = vo.kind == OperandKind::vector ? vo.vec[k] : vo.reg;
            std::uint8_t* p = acc.ptr + k * elem;
            if (Store) {
                std::uint64_t v = 0;
                if (vo.kind == OperandKind::imm) v = std::uint64_t(vo.value);
                else if (r >= 0) v = x.reg(r)[l];
                std::memcpy(p, &v, std::size_t(elem));
            } else if (r >= 0) {
                x.reg(r)[l] = read_value(p, elem, sign);
            }
        }
        if (acc.allocation)
            global_races(x, acc.allocation, 1u << l, addr, 0, size,
                         Store ? GlobalUse::write : GlobalUse::read);
        if (global_writer && acc.allocation) {
            std::uint64_t off = addr[l] - acc.allocation->base;
            for (std::uint64_t w = off / 4;
                 w <= (off + size - 1) / 4 && w < acc.allocation->writer.size(); ++w)
                acc.allocation->writer[w] = tid_base + std::uint32_t(l) + 1;
        }
    });
    if (space == Space::generic || space == Space::global || space == Space::shared) {
        // Generic addresses resolved per lane; the trace uses the space's own address for shared.
        if ((resolved == MemSpace::shared || resolved == MemSpace::distributed_shared) &&
            space == Space::generic) {
            std::uint64_t shared_addr[32];
            FOR_LANES(x.mask, shared_addr[l] = addr[l] - shared_window);
            record_memory(x, resolved, Store ? MemOp::store : MemOp::load, shared_addr, size);
        } else {
            record_memory(x, resolved, Store ? MemOp::store : MemOp::load, addr, size);
        }
    } else {
        record_memory(x, resolved, Store ? MemOp::store : MemOp::load, addr, size);
    }
}
void exec_ld(Exec& x) { load_store<false>(x); }
void exec_ldu(Exec& x) { load_store<false>(x); }
void exec_st(Exec& x) { load_store<true>(x); }
void exec_prefetch(Exec&) {}  // a cache hint: no architectural effect
void exec_prefetchu(Exec&) {}

template <class T> T atomic_apply(SubOp op, T old, T b, T c, bool* ok) {
    switch (op) {
    case SubOp::add: return wrap_add(old, b);
    case SubOp::min: return std::min(old, b);
    case SubOp::max: return std::max(old, b);
    case SubOp::exch: return b;
    case SubOp::cas: return old == b ? c : old;
    default: break;
    }
    if constexpr (std::is_integral_v<T>) {
        switch (op) {
        case SubOp::and_: return T(old & b);
        case SubOp::or_: return T(old | b);
        case SubOp::xor_: return T(old ^ b);
        case SubOp::inc: return old >= b ? T(0) : T(old + 1);
        case SubOp::dec: return (old == 0 || old > b) ? b : T(old - 1);
        default: break;
        }
    }
    *ok = false;
    return old;
}

// 9.7.13.5 atom, 9.7.13.6 red: lanes apply their operation one after another in lane order
template <bool Reduce> void atomic(Exec& x) {
    const Instruction& in = *x.in;
    const int addr_operand = Reduce ? 0 : 1;
    const Operand& ao = in.operands[addr_operand];
    const int first_value = addr_operand + 1;
    const std::uint64_t* b = x.src(first_value);
    const std::uint64_t* c = in.sub == SubOp::cas ? x.src(first_value + 1) : nullptr;
    std::uint64_t* d = Reduce ? nullptr : x.dst(0);
    const int bytes = std::max(1, ptx::type_bits(in.type) / 8);
    // 128-bit atomics (atom.b128, sm_90) and vector atomics (atom.v2/.v4, sm_90) would move more
    // than the one 64-bit value per lane handled here.
    if (bytes > 8) x.unsupported("128-bit atomics");
    if (in.vector > 1) x.unsupported("vector atomics");
    std::uint64_t addr[32];
    lane_addresses(x, ao, addr);
    Allocation* cache = nullptr;
    MemSpace resolved = trace_space(in.space);
    const std::uint32_t tid_base =
        (x.block.linear * std::uint32_t(x.launch.config.block.count())) + x.warp.id * 32;
    FOR_LANES(x.mask, {
        Access acc = resolve(x, in.space, addr[l], std::uint32_t(bytes), "atomic", l, cache);
        resolved = acc.space;
        bool ok = true;
        std::uint64_t old = read_value(acc.ptr, bytes, false), nv = 0;
        switch (in.type) {
        case Type::f32:
            nv = put(atomic_apply<float>(in.sub, get<float>(old), get<float>(b[l]),
                                         c ? get<float>(c[l]) : 0.f, &ok));
            break;
        case Type::f64:
            nv = put(atomic_apply<double>(in.sub, get<double>(old), get<double>(b[l]),
                                          c ? get<double>(c[l]) : 0.0, &ok));
            break;
        case Type::s32:
            nv = put(atomic_apply<std::int32_t>(in.sub, std::int32_t(old), std::int32_t(b[l]),
                                                c ? std::int32_t(c[l]) : 0, &ok));
            break;
        case Type::s64:
            nv = put(atomic_apply<std::int64_t>(in.sub, std::int64_t(old), std::int64_t(b[l]),
                                                c ? std::int64_t(c[l]) : 0, &ok));
            break;
        case Type::u64:
        case Type::b64:
            nv = put(atomic_apply<std::uint64_t>(in.sub, old, b[l], c ? c[l] : 0, &ok));
            break;
        case Type::u32:
        case Type::b32:
            nv = put(atomic_apply<std::uint32_t>(in.sub, std::uint32_t(old), std::uint32_t(b[l]),
                                                 c ? std::uint32_t(c[l]) : 0, &ok));
            break;
        case Type::u16:
        case Type::b16:  // atom.cas.b16 (atomicCAS on unsigned short, sm_70+)
            nv = put(atomic_apply<std::uint16_t>(in.sub, std::uint16_t(old), std::uint16_t(b[l]),
                                                 c ? std::uint16_t(c[l]) : 0, &ok));
            break;
        case Type::s16:
            nv = put(atomic_apply<std::int16_t>(in.sub, std::int16_t(old), std::int16_t(b[l]),
                                                c ? std::int16_t(c[l]) : 0, &ok));
            break;
        case Type::f16:
        case Type::bf16:
        case Type::f16x2:
        case Type::bf16x2: {  // atom.add.noftz.f16 ...
            if (in.sub != SubOp::add) {
                ok = false;
                break;
            }
            const HalfFormat& hf = half_format(in.type);
            for (int e = 0; e < (is_half_pair(in.type) ? 2 : 1); ++e) {
                const double va = half_to_double(half_element(old, e), hf),
                             vb = half_to_double(half_element(b[l], e), hf);
                nv |= std::uint64_t(
                          double_to_half(round_to_odd([&] { return va + vb; }), hf, Rounding::rn))
                      << (16 * e);
            }
            break;
        }
        default: ok = false;
        }
        if (!ok) x.unsupported(in.text);
        std::memcpy(acc.ptr, &nv, std::size_t(bytes));
        if (d) d[l] = old;
        if (acc.allocation) {
            global_races(x, acc.allocation, 1u << l, addr, 0, std::uint32_t(bytes),
                         in.sub == SubOp::exch  ? GlobalUse::exchange
                         : in.sub == SubOp::cas ? GlobalUse::cas
                                                : GlobalUse::atomic);
            std::uint64_t off = addr[l] - acc.allocation->base;
            if (x.launch.track_writers && off / 4 < acc.allocation->writer.size())
                acc.allocation->writer[off / 4] = tid_base + std::uint32_t(l) + 1;
        }
        if (acc.space == MemSpace::shared)
            shared_shadow(x, acc.shared_offset, std::uint32_t(bytes), SharedUse::atomic, l);
    });
    if ((resolved == MemSpace::shared || resolved == MemSpace::distributed_shared) &&
        in.space == Space::generic) {
        FOR_LANES(x.mask, addr[l] -= shared_window);
    }
    record_memory(x, resolved, MemOp::atomic, addr, std::uint32_t(bytes));
}
void exec_atom(Exec& x) { atomic<false>(x); }
void exec_red(Exec& x) { atomic<true>(x); }

// [SECTION] Textures and surfaces: tex, tld4, txq, suld, sust, sured, suq -------------------------
// The objects and the sampling rules are in texture.h; here each lane's handle is looked up, the
// memory its levels name is checked once per instruction, and the registers are read and written.

// The object a handle names, with its texels resolved against live device memory. Consecutive
// lanes almost always hold the same handle, so the last one is kept.
template <class Object> struct ObjectCache {
    std::uint64_t handle = 0;
    std::shared_ptr<const Object> object;
    TexelMemory memory;
};

template <class Object>
const Object& lookup_object(Exec& x, ObjectCache<Object>& cache, std::uint64_t handle, int lane) {
    if (cache.object && cache.handle == handle) return *cache.object;
    constexpr bool surface = std::is_same_v<Object, SurfaceObject>;
    std::shared_ptr<const Object> o;
    if constexpr (surface) o = x.launch.memory.textures().surface(handle);
    else o = x.launch.memory.textures().texture(handle);
    const char* kind = surface ? "surface" : "texture";
    if (!o) {
        const bool other = surface ? x.launch.memory.textures().texture(handle) != nullptr
                                   : x.launch.memory.textures().surface(handle) != nullptr;
        x.fault(std::string("invalid ") + kind + " object",
                std::string("handle ") + std::to_string(handle) + " is " +
                    (other ? std::string("a ") + (surface ? "texture" : "surface") +
                                 " object, not a " + kind + " object"
                           : std::string("not a live ") + kind +
                                 " object (never created, or "
                                 "destroyed)"),
                std::string("pass the cuda") + (surface ? "Surface" : "Texture") +
                    "Object_t that cudaCreate" + (surface ? "Surface" : "Texture") +
                    "Object gave, and destroy it only after the kernels that use it",
                lane);
    }
    TexelMemory m;
    const auto& levels = o->resource.levels;
    for (std::size_t l = 0; l < levels.size() && l < 16; ++l) {
        const Allocation* a = x.launch.memory.find(levels[l].address, levels[l].bytes());
        if (!a || a->freed)
            x.fault(std::string(kind) + " memory freed",
                    std::string("the ") + kind + " object's " +
                        (o->resource.linear_memory ? "memory" : "CUDA array") + " (" +
                        hex(levels[l].address) + ") was freed while the object still names it",
                    std::string("free the array or buffer only after destroying the ") + kind +
                        " object and after the kernels that use it",
                    lane);
        m.level[l] = a->bytes() + (levels[l].address - a->base);
    }
    // What the launch reads through the object, for the race check between streams.
    if (x.launch.record_footprint)
        for (const TextureLevel& lv : levels)
            add_span(x.block, lv.address, lv.address + lv.bytes(), false);
    cache.handle = handle;
    cache.object = std::move(o);
    cache.memory = m;
    return *cache.object;
}

TexGeometry geometry_of(ptx::TexGeometry g) {
    switch (g) {
    case ptx::TexGeometry::d1: return TexGeometry::d1;
    case ptx::TexGeometry::d2: return TexGeometry::d2;
    case ptx::TexGeometry::d3: return TexGeometry::d3;
    case ptx::TexGeometry::a1d: return TexGeometry::a1d;
    case ptx::TexGeometry::a2d: return TexGeometry::a2d;
    case ptx::TexGeometry::cube: return TexGeometry::cube;
    case ptx::TexGeometry::acube: return TexGeometry::acube;
    default: return TexGeometry::none;
    }
}

bool is_layered(ptx::TexGeometry g) {
    return g == ptx::TexGeometry::a1d || g == ptx::TexGeometry::a2d || g == ptx::TexGeometry::acube;
}

// The coordinate registers a geometry needs ({layer, x, ...} for the layered ones).
int coordinate_count(ptx::TexGeometry g) {
    switch (g) {
    case ptx::TexGeometry::d1: return 1;
    case ptx::TexGeometry::d2:
    case ptx::TexGeometry::a1d: return 2;
    case ptx::TexGeometry::a2d: return 3;
    default: return 3;  // 3d, cube: x, y, z (written as four); acube: layer, x, y, z (four)
    }
}

float as_float(std::uint64_t bits) { return std::bit_cast<float>(std::uint32_t(bits)); }

// tex and tld4 (9.7.10.3-4): d, [handle, {coordinates}] (, lod | , dPdx, dPdy).
void texture_fetch(Exec& x, bool gather) {
    const Instruction& in = *x.in;
    const ptx::TextureForm& form = in.texture;
    const Operand& d = in.operands[0];
    const Operand& a = in.operands[1];
    if (form.geometry == ptx::TexGeometry::none) x.unsupported(in.text + " without a geometry");
    if (d.kind != OperandKind::vector || d.vec_count > 4) x.unsupported_operand(0);
    if (a.kind != OperandKind::address || a.reg < 0 || a.vec_count == 0)
        x.unsupported("a texture named by a .texref variable (only texture objects are supported)");
    const int lod_operands = form.lod == ptx::TextureForm::Lod::level  ? 1
                             : form.lod == ptx::TextureForm::Lod::grad ? 2
                                                                       : 0;
    if (in.operand_count != 2 + lod_operands)
        x.unsupported("a texture fetch with an offset or a depth comparison");
    TexResultType result;
    switch (in.type) {
    case Type::f32: result = TexResultType::f32; break;
    case Type::s32: result = TexResultType::s32; break;
    case Type::u32: result = TexResultType::u32; break;
    default: x.unsupported("texture results of type ." + std::string(ptx::type_name(in.type)));
    }
    if (in.type2 != Type::f32 && in.type2 != Type::s32)
        x.unsupported("texture coordinates of type ." + std::string(ptx::type_name(in.type2)));
    const bool integer = in.type2 == Type::s32;
    if (gather && (form.geometry != ptx::TexGeometry::d2 || integer))
        x.unsupported("tld4 other than .2d with .f32 coordinates");
    const bool layered = is_layered(form.geometry);
    const int coords = coordinate_count(form.geometry) + (form.geometry == ptx::TexGeometry::acube);
    if (a.vec_count < coords) x.unsupported_operand(1);
    const std::uint64_t* handle = x.reg(a.reg);
    const std::uint64_t* c[4] = {};
    for (int k = 0; k < coords; ++k) {
        if (a.vec[k] < 0) x.unsupported_operand(1);
        c[k] = x.reg(a.vec[k]);
    }
    const std::uint64_t* lod = nullptr;
    const std::uint64_t* grad[2][3] = {};
    if (form.lod == ptx::TextureForm::Lod::level) lod = x.src(2);
    if (form.lod == ptx::TextureForm::Lod::grad)
        for (int g = 0; g < 2; ++g) {
            const Operand& o = in.operands[2 + g];
            if (o.kind != OperandKind::vector) x.unsupported_operand(2 + g);
            for (int k = 0; k < o.vec_count && k < 3; ++k)
                if (o.vec[k] >= 0) grad[g][k] = x.reg(o.vec[k]);
        }
    std::uint64_t* dst[4] = {};
    for (int k = 0; k < d.vec_count; ++k)
        if (d.vec[k] >= 0) dst[k] = x.reg(d.vec[k]);
    ObjectCache<TextureObject> cache;
    FOR_LANES(x.mask, {
        const TextureObject& t = lookup_object(x, cache, handle[l], l);
        TexRequest r;
        r.geometry = geometry_of(form.geometry);
        r.result = result;
        r.integer_coords = integer;
        const int first = layered ? 1 : 0;
        if (layered) r.layer = std::uint32_t(c[0][l]);
        for (int k = first; k < coords; ++k) {
            r.coord[k - first] = as_float(c[k][l]);
            r.icoord[k - first] = std::int32_t(std::uint32_t(c[k][l]));
        }
        if (lod) {
            r.lod_mode = TexRequest::Lod::level;
            r.lod = as_float(lod[l]);
        } else if (form.lod == ptx::TextureForm::Lod::grad) {
            r.lod_mode = TexRequest::Lod::grad;
            for (int k = 0; k < 3; ++k) {
                r.grad_x[k] = grad[0][k] ? as_float(grad[0][k][l]) : 0.0f;
                r.grad_y[k] = grad[1][k] ? as_float(grad[1][k][l]) : 0.0f;
            }
        }
        std::uint32_t v[4];
        if (gather) texture_gather(t, cache.memory, r, form.component, v);
        else texture_sample(t, cache.memory, r, v);
        for (int k = 0; k < 4; ++k)
            if (dst[k]) dst[k][l] = v[k];
    });
}

void exec_tex(Exec& x) { texture_fetch(x, false); }
void exec_tld4(Exec& x) {
    if (x.in->texture.component < 0) x.unsupported(x.in->text + " without a component");
    texture_fetch(x, true);
}

// txq and suq (9.7.10.5, 9.7.11.4): d, [handle] (txq.level: , lod).
template <class Object> void object_query(Exec& x) {
    const Instruction& in = *x.in;
    const Operand& a = in.operands[1];
    if (a.kind != OperandKind::address || a.reg < 0)
        x.unsupported("a query of a .texref or .surfref variable (only objects are supported)");
    const std::uint64_t* handle = x.reg(a.reg);
    const std::uint64_t* level = in.texture.query_level ? x.src(2) : nullptr;
    std::uint64_t* d = x.dst(0);
    ObjectCache<Object> cache;
    FOR_LANES(x.mask, {
        const Object& o = lookup_object(x, cache, handle[l], l);
        std::uint32_t v = 0;
        bool known;
        if constexpr (std::is_same_v<Object, SurfaceObject>)
            known = surface_query(o, in.texture.query, &v);
        else
            known = texture_query(o, in.texture.query, level ? int(std::int32_t(level[l])) : 0, &v);
        if (!known)
            x.unsupported(in.text + ": this attribute's value is the GPU's own encoding, which "
                                    "CUDA does not document");
        d[l] = v;
    });
}
void exec_txq(Exec& x) { object_query<TextureObject>(x); }
void exec_suq(Exec& x) { object_query<SurfaceObject>(x); }

// The byte address of one lane's surface access; false when it falls outside under .zero (the
// access then reads zeros or stores nothing). Outside under .trap faults, as the GPU traps.
bool surface_address(Exec& x, const SurfaceObject& s, const TexelMemory& m, const Operand& a,
                     std::uint32_t bytes, int lane, std::uint8_t** p, std::uint64_t* address) {
    const ptx::TextureForm& form = x.in->texture;
    const bool layered = is_layered(form.geometry);
    std::int64_t v[4] = {0, 0, 0, 0};
    const int coords = coordinate_count(form.geometry);
    for (int k = 0; k < coords && k < a.vec_count; ++k)
        v[k] = a.vec[k] >= 0 ? std::int64_t(std::int32_t(std::uint32_t(x.reg(a.vec[k])[lane]))) : 0;
    std::int64_t sx, sy = 0, sz = 0;
    if (layered) {
        sz = v[0];
        sx = v[1];
        sy = form.geometry == ptx::TexGeometry::a2d ? v[2] : 0;
    } else {
        sx = v[0];
        sy = coords > 1 ? v[1] : 0;
        sz = coords > 2 ? v[2] : 0;
    }
    const TextureLevel& level = s.resource.levels[0];
    const SurfaceClamp mode = form.clamp == ptx::TextureForm::Clamp::clamp  ? SurfaceClamp::clamp
                              : form.clamp == ptx::TextureForm::Clamp::zero ? SurfaceClamp::zero
                                                                            : SurfaceClamp::trap;
    const std::int64_t off = surface_offset(level, s.resource.format, sx, sy, sz, bytes, mode);
    if (off < 0) {
        if (mode == SurfaceClamp::zero) return false;
        x.fault("out-of-bounds surface access",
                std::to_string(bytes) + " bytes at x = " + std::to_string(sx) +
                    " (bytes), y = " + std::to_string(sy) + ", " + (layered ? "layer " : "z = ") +
                    std::to_string(sz) + ", outside the " + std::to_string(level.width) + " x " +
                    std::to_string(level.height) + " x " + std::to_string(level.depth) +
                    " surface of " + std::to_string(s.resource.format.bytes()) + "-byte elements",
                "a surface's x coordinate is in bytes (x * sizeof(element)); check the indices, or "
                "pass cudaBoundaryModeZero / cudaBoundaryModeClamp to read or drop what is outside",
                lane);
    }
    if (sx % std::int64_t(std::min<std::uint32_t>(bytes, 8)) != 0 && mode != SurfaceClamp::clamp)
        x.fault("misaligned surface access",
                std::to_string(bytes) + "-byte access at x = " + std::to_string(sx) +
                    " bytes, which is not a multiple of " + std::to_string(std::min(bytes, 8u)),
                "a surface's x coordinate is in bytes: x * sizeof(element)", lane);
    *p = const_cast<std::uint8_t*>(m.level[0]) + off;
    *address = level.address + std::uint64_t(off);
    return true;
}

// suld.b and sust.b (9.7.11.1-2): raw bytes, .b8 to .b64, scalar or vector.
template <bool Store> void surface_load_store(Exec& x) {
    const Instruction& in = *x.in;
    const Operand& a = in.operands[Store ? 0 : 1];
    const Operand& data = in.operands[Store ? 1 : 0];
    if (in.texture.geometry == ptx::TexGeometry::none ||
        in.texture.geometry == ptx::TexGeometry::cube ||
        in.texture.geometry == ptx::TexGeometry::acube)
        x.unsupported(in.text + ": surface geometry");
    if (a.kind != OperandKind::address || a.reg < 0 || a.vec_count == 0)
        x.unsupported(
            "a surface named by a .surfref variable (only surface objects are supported)");
    const int elem = ptx::type_bits(in.type) / 8;
    if (elem < 1 || elem > 8)
        x.unsupported("surface elements of ." + std::string(ptx::type_name(in.type)));
    const int count = data.kind == OperandKind::vector ? data.vec_count : 1;
    if (count < 1 || count > 4) x.unsupported_operand(Store ? 1 : 0);
    const std::uint32_t bytes = std::uint32_t(elem * count);
    const std::uint64_t* handle = x.reg(a.reg);
    ObjectCache<SurfaceObject> cache;
    FOR_LANES(x.mask, {
        const SurfaceObject& s = lookup_object(x, cache, handle[l], l);
        std::uint8_t* p = nullptr;
        std::uint64_t address = 0;
        const bool inside = surface_address(x, s, cache.memory, a, bytes, l, &p, &address);
        for (int k = 0; k < count; ++k) {
            const std::int32_t r = data.kind == OperandKind::vector ? data.vec[k] : data.reg;
            if (Store) {
                if (!inside || r < 0) continue;
                const std::uint64_t v = x.reg(r)[l];
                std::memcpy(p + k * elem, &v, std::size_t(elem));
            } else if (r >= 0) {
                std::uint64_t v = 0;
                if (inside) std::memcpy(&v, p + k * elem, std::size_t(elem));
                x.reg(r)[l] = v;
            }
        }
        if (Store && inside && x.launch.record_footprint)
            add_span(x.block, address, address + bytes, true);
    });
}
void exec_suld(Exec& x) { surface_load_store<false>(x); }
void exec_sust(Exec& x) { surface_load_store<true>(x); }

// sured.b (9.7.11.3): an atomic add, min, max, and or or on one 32- or 64-bit element.
template <class T> void surface_reduce(SubOp op, std::uint8_t* p, std::uint64_t v) {
    std::atomic_ref<T> cell(*reinterpret_cast<T*>(p));
    const T operand = T(v);
    T old = cell.load(std::memory_order_relaxed), next;
    do {
        switch (op) {
        case SubOp::add: next = T(old + operand); break;
        case SubOp::min: next = std::min(old, operand); break;
        case SubOp::max: next = std::max(old, operand); break;
        case SubOp::and_: next = T(old & operand); break;
        default: next = T(old | operand); break;
        }
    } while (!cell.compare_exchange_weak(old, next, std::memory_order_relaxed));
}

void exec_sured(Exec& x) {
    const Instruction& in = *x.in;
    const Operand& a = in.operands[0];
    if (a.kind != OperandKind::address || a.reg < 0 || a.vec_count == 0)
        x.unsupported(
            "a surface named by a .surfref variable (only surface objects are supported)");
    if (in.sub == SubOp::none) x.unsupported(in.text + " without an operation");
    const int bits = ptx::type_bits(in.type);
    if (bits != 32 && bits != 64) x.unsupported(in.text + ": reductions of this type");
    const bool is_signed = ptx::type_is_signed(in.type);
    const std::uint64_t* handle = x.reg(a.reg);
    const std::uint64_t* value = x.src(1);
    ObjectCache<SurfaceObject> cache;
    FOR_LANES(x.mask, {
        const SurfaceObject& s = lookup_object(x, cache, handle[l], l);
        std::uint8_t* p = nullptr;
        std::uint64_t address = 0;
        if (!surface_address(x, s, cache.memory, a, std::uint32_t(bits / 8), l, &p, &address))
            continue;
        if (bits == 32) {
            if (is_signed) surface_reduce<std::int32_t>(in.sub, p, value[l]);
            else surface_reduce<std::uint32_t>(in.sub, p, value[l]);
        } else {
            if (is_signed) surface_reduce<std::int64_t>(in.sub, p, value[l]);
            else surface_reduce<std::uint64_t>(in.sub, p, value[l]);
        }
        if (x.launch.record_footprint)
            add_span(x.block, address, address + std::uint64_t(bits / 8), true);
    });
}

// [SECTION] Tensor cores: wmma, mma, ldmatrix, stmatrix, movmatrix --------------------------------
//
// Warp-level instructions: one execution moves or multiplies whole matrices spread over the 32
// lanes' registers. Which lane holds which element: ptx/matrix.h (the PTX ISA's layouts for mma,
// an H200's for wmma). The arithmetic of the floating-point products is an H200's, read from its
// results (tests/agreement/tensor_ops.cu; docs/emulator.md, "Tensor cores"):
// - each product a*b is exact; the products and C are aligned to the largest exponent among them,
//   taken as ea + eb + 1 for a product and ec + 1 for C, and each is truncated (towards zero) to
//   26 bits below it (23 + 3); their sum, exact, is truncated to f32. An f16 D is that f32
//   rounded to nearest. All K products of one instruction are summed at once, except wmma's
//   m16n16k8 (tf32), which an H200 runs as two steps of k = 4.
// - tf32 inputs: the low 13 bits of each f32 are ignored (truncation, not rounding).
// - integer products: exact, summed with C in s32, wrapping (.satfinite: clamped).

// Every lane takes part: the .sync.aligned instructions are undefined with some lanes missing.
// Like the other *_sync collectives, they order the warp's shared-memory accesses (the race
// detector's warp interval).
void matrix_collective(Exec& x, const char* what) {
    if (x.mask != 0xffffffffu)
        x.fault(
            "incomplete warp in a matrix instruction",
            std::string(what) + " runs with lanes 0x" +
                [&] {
                    char h[16];
                    std::snprintf(h, sizeof h, "%08x", x.mask);
                    return std::string(h);
                }() +
                " of the warp; every lane of the warp must execute it together",
            "execute it with the whole warp (no divergence around it, a block of a multiple "
            "of 32 threads)");
    ++x.warp.sync_epoch;
    x.warp.stamp = next_stamp(x.block);
}

// The registers of a fragment operand: a {vector} of exactly `count` registers (or one register).
void fragment_registers(Exec& x, int operand, int count, std::uint64_t** regs) {
    const Operand& o = x.in->operands[operand];
    if (o.kind == OperandKind::reg && count == 1) {
        regs[0] = x.reg(o.reg);
        return;
    }
    if (o.kind != OperandKind::vector || o.vec_count != count)
        x.fault("bad matrix fragment",
                "operand " + std::to_string(operand + 1) + " of '" + x.in->text + "' must be " +
                    std::to_string(count) + " registers",
                "give the fragment as the PTX ISA lays it out for this shape and type");
    for (int i = 0; i < count; ++i) {
        if (o.vec[i] < 0) x.unsupported_operand(operand);
        regs[i] = x.reg(o.vec[i]);
    }
}

// Element e of a lane's fragment (an f64 element is a whole 64-bit register).
inline std::uint64_t fragment_bits(std::uint64_t* const* regs, int element_bits, int lane, int e) {
    if (element_bits == 64) return regs[e][lane];
    const int pack = 32 / element_bits;
    const std::uint64_t word = regs[e / pack][lane];
    if (element_bits == 32) return std::uint32_t(word);
    return std::uint32_t(word >> ((e % pack) * element_bits)) & ((1u << element_bits) - 1);
}

// Writes element e of a lane's fragment (the registers must be cleared first when packed).
inline void set_fragment_bits(std::uint64_t* const* regs, int element_bits, int lane, int e,
                              std::uint64_t v) {
    if (element_bits == 64) {
        regs[e][lane] = v;
        return;
    }
    const int pack = 32 / element_bits;
    std::uint64_t& word = regs[e / pack][lane];
    if (element_bits == 32) {
        word = std::uint32_t(v);
        return;
    }
    const int shift = (e % pack) * element_bits;
    const std::uint64_t mask = ((1ull << element_bits) - 1) << shift;
    word = (word & ~mask) | ((v << shift) & mask);
}

double matrix_float(std::uint32_t bits, Type t) {
    switch (t) {
    case Type::f16: return half_to_double(std::uint16_t(bits), f16_format);
    case Type::bf16: return half_to_double(std::uint16_t(bits), bf16_format);
    case Type::tf32: return double(std::bit_cast<float>(bits & 0xffffe000u));  // low 13 ignored
    default: return double(std::bit_cast<float>(bits));
    }
}

std::int64_t matrix_integer(std::uint32_t bits, Type t) {
    switch (t) {
    case Type::s8: return std::int8_t(std::uint8_t(bits));
    case Type::u8: return std::uint8_t(bits);
    default: return std::int32_t(bits);
    }
}

// A double rounded towards zero to f32, but infinite from 2^128 on: an H200's products past f32's
// range give an infinity (seen with bf16 inputs), not the largest float.
float to_float_rz(double v) {
    if (std::fabs(v) >= 0x1p128)
        return std::copysign(std::numeric_limits<float>::infinity(), float(v));
    float f = float(v);
    if (std::isfinite(v) && std::fabs(double(f)) > std::fabs(v)) f = std::nextafter(f, 0.f);
    return f;
}

// One element of D: the K products of a row of A and a column of B, and C, summed as an H200's
// tensor cores do (the section's header).
float tensor_dot(const double* a, const double* b, int k, double c) {
    bool special = !std::isfinite(c);
    for (int i = 0; i < k; ++i) special |= !std::isfinite(a[i]) || !std::isfinite(b[i]);
    if (special) {  // infinities and NaNs: IEEE arithmetic; any NaN is the canonical one
        double s = c;
        for (int i = 0; i < k; ++i) s += a[i] * b[i];
        return canonical(float(s));
    }
    int top = std::numeric_limits<int>::min();
    for (int i = 0; i < k; ++i)
        if (a[i] != 0 && b[i] != 0) top = std::max(top, std::ilogb(a[i]) + std::ilogb(b[i]) + 1);
    if (c != 0) top = std::max(top, std::ilogb(c) + 1);
    if (top == std::numeric_limits<int>::min()) {  // zeros only: their IEEE sum (its sign)
        double s = c;
        for (int i = 0; i < k; ++i) s += a[i] * b[i];
        return float(s);
    }
    const int shift = 26 - top;  // each term in units of 2^(top - 26), truncated
    std::int64_t sum = std::int64_t(std::trunc(std::ldexp(c, shift)));
    for (int i = 0; i < k; ++i) sum += std::int64_t(std::trunc(std::ldexp(a[i] * b[i], shift)));
    if (sum == 0) return 0.f;
    return to_float_rz(std::ldexp(double(sum), -shift));
}

// m8n8k4 of f64 (mma, and wmma with the same fragments): each element of D is a chain of IEEE
// fused multiply-adds from C, k = 0 to 3, each rounded to nearest (an H200's mma results, all 64
// of tensor_ops.cu's, agree; wmma's were not compared).
void mma_f64(Exec& x) {
    std::uint64_t *ra[1], *rb[1], *rc[2], *rd[2];
    fragment_registers(x, 1, 1, ra);
    fragment_registers(x, 2, 1, rb);
    fragment_registers(x, 3, 2, rc);
    fragment_registers(x, 0, 2, rd);
    double A[8][4], B[4][8], C[8][8];
    for (int l = 0; l < 32; ++l) {
        const int g = l / 4, t = l % 4;
        A[g][t] = std::bit_cast<double>(ra[0][l]);
        B[t][g] = std::bit_cast<double>(rb[0][l]);
        for (int e = 0; e < 2; ++e) C[g][2 * t + e] = std::bit_cast<double>(rc[e][l]);
    }
    for (int l = 0; l < 32; ++l) {
        const int g = l / 4, t = l % 4;
        for (int e = 0; e < 2; ++e) {
            double d = C[g][2 * t + e];
            for (int k = 0; k < 4; ++k) d = std::fma(A[g][k], B[k][2 * t + e], d);
            rd[e][l] = std::bit_cast<std::uint64_t>(d);
        }
    }
}

// 9.7.14.4 wmma.mma, 9.7.14.5 mma: D = A * B + C over the warp's fragments.
void matrix_multiply(Exec& x) {
    matrix_collective(x, x.in->op == Opcode::mma ? "mma.sync" : "wmma.mma");
    const Instruction& in = *x.in;
    const ptx::MatrixForm& f = in.matrix;
    if (f.d == Type::f64) return mma_f64(x);
    using ptx::MatrixRole;
    const int M = f.m, N = f.n, K = f.k;
    const ptx::FragmentShape sa = ptx::fragment_shape(in, MatrixRole::a),
                             sb = ptx::fragment_shape(in, MatrixRole::b),
                             sc = ptx::fragment_shape(in, MatrixRole::c);
    const int d_bits = ptx::type_bits(f.d), d_registers = sc.elements * d_bits / 32;
    std::uint64_t *ra[8], *rb[8], *rc[8], *rd[8];
    fragment_registers(x, 1, sa.registers, ra);
    fragment_registers(x, 2, sb.registers, rb);
    fragment_registers(x, 3, sc.registers, rc);
    fragment_registers(x, 0, d_registers, rd);
    // The matrices, from the first lane and element that holds each (wmma's f16 fragments hold
    // theirs more than once).
    std::uint32_t A[32 * 16], B[16 * 32], C[32 * 32];
    std::uint8_t seen_a[32 * 16] = {}, seen_b[16 * 32] = {};
    for (int l = 0; l < 32; ++l) {
        for (int e = 0; e < sa.elements; ++e) {
            const ptx::ElementPlace p = ptx::fragment_element(in, MatrixRole::a, l, e);
            if (!seen_a[p.row * K + p.col]++)
                A[p.row * K + p.col] = std::uint32_t(fragment_bits(ra, sa.element_bits, l, e));
        }
        for (int e = 0; e < sb.elements; ++e) {
            const ptx::ElementPlace p = ptx::fragment_element(in, MatrixRole::b, l, e);
            if (!seen_b[p.row * N + p.col]++)
                B[p.row * N + p.col] = std::uint32_t(fragment_bits(rb, sb.element_bits, l, e));
        }
        for (int e = 0; e < sc.elements; ++e) {
            const ptx::ElementPlace p = ptx::fragment_element(in, MatrixRole::c, l, e);
            C[p.row * N + p.col] = std::uint32_t(fragment_bits(rc, sc.element_bits, l, e));
        }
    }
    std::uint32_t D[32 * 32];
    const bool integer = f.d == Type::s32;
    for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) {
            if (integer) {
                std::int64_t s = matrix_integer(C[i * N + j], f.c);
                for (int k = 0; k < K; ++k)
                    s += matrix_integer(A[i * K + k], f.a) * matrix_integer(B[k * N + j], f.b);
                if (in.flags & ptx::f_satfinite)
                    s = std::clamp<std::int64_t>(s, std::numeric_limits<std::int32_t>::min(),
                                                 std::numeric_limits<std::int32_t>::max());
                D[i * N + j] = std::uint32_t(s);
                continue;
            }
            double a[32], b[32];
            for (int k = 0; k < K; ++k) {
                a[k] = matrix_float(A[i * K + k], f.a);
                b[k] = matrix_float(B[k * N + j], f.b);
            }
            // wmma of tf32 (m16n16k8) runs on an H200 as two steps of k = 4, each truncated to
            // f32 before the next; the other forms sum their K products at once.
            const int step = in.op == Opcode::wmma_mma && f.a == Type::tf32 ? 4 : K;
            float r = float(matrix_float(C[i * N + j], f.c));
            for (int k0 = 0; k0 < K; k0 += step) r = tensor_dot(a + k0, b + k0, step, double(r));
            D[i * N + j] = f.d == Type::f16 ? double_to_half(double(r), f16_format, Rounding::rn)
                                            : std::bit_cast<std::uint32_t>(r);
        }
    for (int l = 0; l < 32; ++l)
        for (int e = 0; e < sc.elements; ++e) {
            const ptx::ElementPlace p = ptx::fragment_element(in, MatrixRole::c, l, e);
            set_fragment_bits(rd, d_bits, l, e, D[p.row * N + p.col]);
        }
}
void exec_wmma_mma(Exec& x) { matrix_multiply(x); }
void exec_mma(Exec& x) { matrix_multiply(x); }

// One lane's access of a matrix instruction, checked (bounds, alignment, races, the writer
// shadow) as ld and st check theirs; returns where its bytes are.
std::uint8_t* matrix_access(Exec& x, Space space, std::uint64_t address, std::uint32_t size,
                            bool store, int lane, Allocation*& cache, MemSpace& resolved) {
    Access acc = resolve(x, space, address, size, store ? "store" : "load", lane, cache);
    resolved = acc.space;
    if (acc.space == MemSpace::shared)
        shared_shadow(x, acc.shared_offset, size, store ? SharedUse::write : SharedUse::read, lane);
    if (acc.allocation) {
        std::uint64_t at[32];
        at[lane] = address;
        global_races(x, acc.allocation, 1u << lane, at, 0, size,
                     store ? GlobalUse::write : GlobalUse::read);
        if (store) record_writers(x, acc.allocation, 1u << lane, at, 0, size);
    }
    return acc.ptr;
}

// The trace's record of one access of a matrix instruction by the lanes in `lanes` (a shared
// address as an offset in shared memory, as ld's).
void record_matrix_access(Exec& x, Space space, MemSpace resolved, bool store,
                          const std::uint64_t* address, std::uint32_t lanes, std::uint32_t size) {
    if (!x.counting() || !lanes) return;
    std::uint64_t at[32];
    for (int l = 0; l < 32; ++l)
        at[l] = (resolved == MemSpace::shared || resolved == MemSpace::distributed_shared) &&
                        space == Space::generic && (lanes >> l & 1)
                    ? address[l] - shared_window
                    : address[l];
    const std::uint32_t saved = x.mask;
    x.mask = lanes;
    record_memory(x, resolved, store ? MemOp::store : MemOp::load, at, size);
    x.mask = saved;
}

// The trace links an instruction to one access: a matrix instruction that makes several links
// its first (the others still count in the per-instruction counters).
struct FirstAccess {
    Exec& x;
    const std::size_t first;
    explicit FirstAccess(Exec& e) : x(e), first(e.block.accesses.size()) {}
    ~FirstAccess() {
        if (x.event && x.block.accesses.size() > first)
            x.block.events.back().mem = std::int32_t(first);
    }
};

// A pointer or leading dimension that wmma's contract forbids (the CUDA C++ Programming Guide:
// a 256-bit aligned pointer, a leading dimension of a multiple of 16 bytes): a warning, once per
// instruction and launch, since the emulator loads the elements regardless, where a GPU may fault
// or read others.
void warn_wmma_contract(Exec& x, std::uint64_t address, std::uint64_t stride_bytes) {
    const bool misaligned = address % 32 != 0, bad_stride = stride_bytes % 16 != 0;
    if (!misaligned && !bad_stride) return;
    std::lock_guard<std::mutex> lock(x.launch.mutex);
    auto& warned = x.launch.warned_pcs;
    if (std::find(warned.begin(), warned.end(), x.gpc) != warned.end()) return;
    warned.push_back(x.gpc);
    if (x.launch.warnings.size() >= 20) return;
    std::ostringstream m;
    m << (x.launch.program.source_path.empty() ? "kernel" : x.launch.program.source_path);
    if (x.in->line) m << ":" << x.in->line;
    m << ": warning: " << (x.in->op == Opcode::wmma_store ? "wmma.store" : "wmma.load")
      << " in kernel '" << x.launch.display_name << "': ";
    if (misaligned)
        m << "the matrix's address 0x" << std::hex << address << std::dec
          << " is not 32-byte aligned (load_matrix_sync and store_matrix_sync need a 256-bit "
             "aligned pointer)";
    if (misaligned && bad_stride) m << "; ";
    if (bad_stride)
        m << "its leading dimension, " << stride_bytes
          << " bytes, is not a multiple of 16 bytes (8 halves, 4 floats, 16 bytes)";
    m << ". The emulator moves the elements anyway; a GPU may fault or move others";
    x.launch.warnings.push_back(m.str());
}

// 9.7.14.4 wmma.load, wmma.store: each lane moves its fragment's elements between its registers
// and the matrix at the address (the same in every lane) with the leading dimension `stride`
// (elements; by default the matrix's row or column length).
template <bool Store> void wmma_move(Exec& x) {
    matrix_collective(x, Store ? "wmma.store" : "wmma.load");
    const Instruction& in = *x.in;
    const ptx::MatrixForm& f = in.matrix;
    using ptx::MatrixRole;
    const MatrixRole role = f.matrix == 'a'   ? MatrixRole::a
                            : f.matrix == 'b' ? MatrixRole::b
                                              : MatrixRole::c;
    const ptx::FragmentShape s = ptx::fragment_shape(in, role);
    const int address_operand = Store ? 0 : 1, fragment_operand = Store ? 1 : 0;
    std::uint64_t* regs[8];
    fragment_registers(x, fragment_operand, s.registers, regs);
    std::uint64_t base[32];
    lane_addresses(x, in.operands[address_operand], base);
    const bool col_major = f.a_col;
    std::uint64_t stride = std::uint64_t(col_major ? s.rows : s.cols);
    if (in.operand_count > 2) stride = x.src(2)[0] & 0xffffffffu;
    const std::uint32_t bytes = std::uint32_t(s.element_bits / 8);
    warn_wmma_contract(x, base[0], stride * bytes);
    // Loads gather every value first: the address register may be one of the fragment's.
    std::uint64_t values[32][16];
    if (Store)
        for (int l = 0; l < 32; ++l)
            for (int e = 0; e < s.elements; ++e)
                values[l][e] = fragment_bits(regs, s.element_bits, l, e);
    FirstAccess link(x);
    Allocation* cache = nullptr;
    for (int e = 0; e < s.elements; ++e) {
        std::uint64_t at[32];
        MemSpace resolved = trace_space(in.space);
        for (int l = 0; l < 32; ++l) {
            const ptx::ElementPlace p = ptx::fragment_element(in, role, l, e);
            const std::uint64_t offset = col_major
                                             ? std::uint64_t(p.col) * stride + std::uint64_t(p.row)
                                             : std::uint64_t(p.row) * stride + std::uint64_t(p.col);
            at[l] = base[l] + offset * bytes;
            std::uint8_t* ptr = matrix_access(x, in.space, at[l], bytes, Store, l, cache, resolved);
            if (Store) {
                std::memcpy(ptr, &values[l][e], bytes);
            } else {
                std::uint64_t v = 0;
                std::memcpy(&v, ptr, bytes);
                values[l][e] = v;
            }
        }
        record_matrix_access(x, in.space, resolved, Store, at, 0xffffffffu, bytes);
    }
    if (!Store) {
        for (int r = 0; r < s.registers; ++r)
            for (int l = 0; l < 32; ++l) regs[r][l] = 0;
        for (int l = 0; l < 32; ++l)
            for (int e = 0; e < s.elements; ++e)
                set_fragment_bits(regs, s.element_bits, l, e, values[l][e]);
    }
}
void exec_wmma_load(Exec& x) { wmma_move<false>(x); }
void exec_wmma_store(Exec& x) { wmma_move<true>(x); }

// 9.7.14.5 ldmatrix, stmatrix: up to four 8x8 matrices of 16-bit elements, each row's address
// given by one lane (matrix i's rows by lanes 8i..8i+7). Register i of lane l holds matrix i's
// row l/4, columns 2(l%4) and 2(l%4)+1; with .trans, rows 2(l%4) and 2(l%4)+1 of column l/4.
template <bool Store> void matrix_rows(Exec& x) {
    matrix_collective(x, Store ? "stmatrix" : "ldmatrix");
    const Instruction& in = *x.in;
    const int count = in.matrix.count;
    const bool trans = in.matrix.trans;
    const int address_operand = Store ? 0 : 1, fragment_operand = Store ? 1 : 0;
    std::uint64_t* regs[4];
    fragment_registers(x, fragment_operand, count, regs);
    std::uint64_t rows[32];
    lane_addresses(x, in.operands[address_operand], rows);
    const std::uint32_t row_lanes = count == 4 ? 0xffffffffu : (1u << (8 * count)) - 1;
    // The rows, 8 elements each, as the matrices hold them.
    std::uint16_t m[4][8][8];
    if (Store)
        for (int i = 0; i < count; ++i)
            for (int l = 0; l < 32; ++l)
                for (int j = 0; j < 2; ++j) {
                    const std::uint16_t v = std::uint16_t(regs[i][l] >> (16 * j));
                    if (trans) m[i][2 * (l % 4) + j][l / 4] = v;
                    else m[i][l / 4][2 * (l % 4) + j] = v;
                }
    FirstAccess link(x);
    Allocation* cache = nullptr;
    MemSpace resolved = trace_space(in.space);
    for (int l = 0; l < 8 * count; ++l) {
        std::uint8_t* ptr = matrix_access(x, in.space, rows[l], 16, Store, l, cache, resolved);
        if (Store) std::memcpy(ptr, m[l / 8][l % 8], 16);
        else std::memcpy(m[l / 8][l % 8], ptr, 16);
    }
    record_matrix_access(x, in.space, resolved, Store, rows, row_lanes, 16);
    if (!Store)
        for (int i = 0; i < count; ++i)
            for (int l = 0; l < 32; ++l) {
                std::uint32_t v = 0;
                for (int j = 0; j < 2; ++j)
                    v |= std::uint32_t(trans ? m[i][2 * (l % 4) + j][l / 4]
                                             : m[i][l / 4][2 * (l % 4) + j])
                         << (16 * j);
                regs[i][l] = v;
            }
}
void exec_ldmatrix(Exec& x) { matrix_rows<false>(x); }
void exec_stmatrix(Exec& x) { matrix_rows<true>(x); }

// 9.7.14.5 movmatrix.trans: the 8x8 matrix of 16-bit elements held as ldmatrix lays it out
// (lane l: row l/4, columns 2(l%4), 2(l%4)+1), transposed.
void exec_movmatrix(Exec& x) {
    matrix_collective(x, "movmatrix");
    const std::uint64_t* a = x.src(1);
    std::uint16_t m[8][8];
    for (int l = 0; l < 32; ++l)
        for (int j = 0; j < 2; ++j) m[l / 4][2 * (l % 4) + j] = std::uint16_t(a[l] >> (16 * j));
    std::uint64_t* d = x.dst(0);
    for (int l = 0; l < 32; ++l)
        d[l] =
            std::uint32_t(m[2 * (l % 4)][l / 4]) | (std::uint32_t(m[2 * (l % 4) + 1][l / 4]) << 16);
}

// [SECTION] Control flow and calls ----------------------------------------------------------------

// Control-flow handlers manage the SIMT stack themselves; they return true when they did.
void remove_lanes(Warp& w, std::uint32_t lanes, int from_frame) {
    for (SimtEntry& e : w.stack)
        if (e.frame >= from_frame) e.mask &= ~lanes;
}

void pop_finished(Warp& w) {
    while (!w.stack.empty()) {
        SimtEntry& top = w.stack.back();
        if (top.mask == 0 || top.pc == top.reconverge) {
            w.stack.pop_back();
            continue;
        }
        break;
    }
    // A frame ends when no entry of it remains (every calling lane returned or exited). The
    // kernel's frame stays when the warp finishes: prepare_registers reuses its registers for
    // the next warp that starts, in this block or the worker's next (freeing and allocating them
    // per block cost a tenth of a short kernel's time).
    while (w.frames.size() > (w.stack.empty() ? 1u : w.stack.back().frame + 1u))
        w.frames.pop_back();
}

// 9.7.10.2 bra: uniform jump, or a split of the warp that rejoins at the reconvergence point
void exec_bra(Exec& x) {
    SimtEntry& top = x.warp.stack.back();
    const std::uint32_t taken = x.mask, not_taken = x.active & ~taken;
    if (x.event) {
        x.block.events.back().kind = EventKind::branch;
        x.block.events.back().taken = taken;
    }
    if (not_taken == 0) {
        top.pc = x.in->target;
        return;
    }
    if (taken == 0) {
        top.pc = std::int32_t(x.pc) + 1;
        return;
    }
    if (x.counting()) x.counters().divergent_branches += 1;
    const std::int32_t rpc = x.in->reconverge;
    const std::uint16_t frame = top.frame;
    top.pc = rpc;  // the remaining entry waits at the reconvergence point with every lane
    if (x.launch.independent_scheduling) {
        // Either path may start; they take turns (run_warp) until both reach rpc.
        const bool taken_first = next_random(x.warp) & 1;
        const std::int32_t parent = std::int32_t(x.warp.stack.size()) - 1;
        SimtEntry a{x.in->target, rpc, taken, frame, true, 0, parent},
            b{std::int32_t(x.pc) + 1, rpc, not_taken, frame, true, 0, parent};
        x.warp.stack.push_back(taken_first ? b : a);
        x.warp.stack.push_back(taken_first ? a : b);
        // (The running turn goes on: were it renewed at every split, a path looping round an
        // `if` would never hand over to a path outside its branch.)
        return;
    }
    // The fall-through path (the `if` body in C++) runs first: it is pushed last.
    const std::int32_t parent = std::int32_t(x.warp.stack.size()) - 1;
    x.warp.stack.push_back({x.in->target, rpc, taken, frame, false, 0, parent});
    x.warp.stack.push_back({std::int32_t(x.pc) + 1, rpc, not_taken, frame, false, 0, parent});
}
void exec_brx(Exec& x) { x.unsupported("brx.idx (indirect branch)"); }

void exec_exit(Exec& x) {
    x.warp.live &= ~x.mask;
    remove_lanes(x.warp, x.mask, 0);
    if (x.mask != x.active) x.warp.stack.back().pc = std::int32_t(x.pc) + 1;
    if (x.event) x.block.events.back().kind = EventKind::exit;
}

// A lane's bytes [offset, offset + bytes) of its local memory, where a call moves its arguments
// and results. NVRTC's PTX always fits them in the frames; hand-written PTX (inline asm) may name a
// call-site symbol smaller than the parameter it passes, or one of another space: a fault, never
// a copy past the lane's memory.
std::uint8_t* frame_bytes_at(Exec& x, int lane, std::uint64_t offset, std::uint64_t bytes) {
    auto& local = x.warp.local[std::size_t(lane)];
    if (!fits(offset, bytes, local.size()))
        x.fault("out-of-bounds parameter access in a call",
                std::to_string(bytes) + " bytes at frame offset " + offset_text(offset) +
                    ", but the thread's local memory here is " + std::to_string(local.size()) +
                    " bytes ('" + x.in->text + "')",
                "pass each argument in a .param symbol as large as the parameter it fills", lane);
    return local.data() + offset;
}

// 9.7.10.4 call: a new frame (registers, parameters, locals) for the calling lanes
void call_vprintf(Exec& x);
[[noreturn]] void call_assertfail(Exec& x);
void call_device_heap(Exec& x, bool allocate);
bool call_device_runtime(Exec& x, const std::string& name);
void exec_call(Exec& x) {
    SimtEntry& top = x.warp.stack.back();
    top.pc = std::int32_t(x.pc) + 1;  // where the caller resumes, with all its lanes
    if (x.mask == 0) return;
    std::int32_t target = x.in->target;
    if (x.in->operands[1].kind == OperandKind::reg) {
        // Through a function pointer. Lanes may hold different functions: the lanes of the first
        // one call now; the others wait in a stack entry that runs this call again afterwards.
        const std::uint64_t* address = x.reg(x.in->operands[1].reg);
        const int lane = __builtin_ctz(x.mask);
        const std::uint64_t a = address[lane];
        const auto& functions = x.launch.program.functions;
        if (a < function_window || (a - function_window) % 16 != 0 ||
            (a - function_window) / 16 >= functions.size() ||
            functions[(a - function_window) / 16].fn.is_entry)
            x.fault("call through a bad function pointer",
                    "lane " + std::to_string(lane) + " calls address " + hex(a) +
                        ", which is not a device function",
                    "check that the pointer was set to a __device__ function", lane);
        target = std::int32_t((a - function_window) / 16);
        std::uint32_t same = 0;
        FOR_LANES(x.mask, if (address[l] == a) same |= 1u << l);
        if (same != x.mask) {
            x.warp.stack.push_back({std::int32_t(x.pc), std::int32_t(x.pc) + 1, x.mask & ~same,
                                    top.frame, false, 0, std::int32_t(x.warp.stack.size()) - 1});
            x.mask = same;
        }
    }
    const PreparedFunction& callee = x.launch.program.functions[std::size_t(target)];
    if (callee.fn.is_extern) {
        if (callee.fn.name == "vprintf") return call_vprintf(x);
        if (callee.fn.name == "__assertfail") call_assertfail(x);
        if (callee.fn.name == "malloc" || callee.fn.name == "free")
            return call_device_heap(x, callee.fn.name == "malloc");
        if (call_device_runtime(x, callee.fn.name)) return;
        x.unsupported("call to external function " + callee.fn.name);
    }
    if (x.warp.frames.size() >= 1024)
        x.fault("call stack overflow", "more than 1024 nested calls (runaway recursion?)",
                "check the recursion's base case");
    Frame f;
    f.function = target;
    f.call_pc = std::int32_t(x.pc);
    f.caller_mask = x.mask;
    Frame& caller = x.warp.frames.back();
    f.local_base =
        caller.local_base + x.launch.program.functions[std::size_t(caller.function)].frame_bytes;
    f.local_base = (f.local_base + 15) / 16 * 16;
    const std::uint32_t top_bytes = f.local_base + callee.frame_bytes;
    // The call stack of one thread: local frames plus the registers of every nested call.
    const std::uint64_t stack_bytes =
        std::uint64_t(top_bytes) +
        std::uint64_t(x.warp.frames.size() + 1) * callee.register_count * 8;
    if (stack_bytes > x.launch.local_limit)
        x.fault("local memory limit reached",
                "this call would make the thread's stack " + std::to_string(stack_bytes) +
                    " bytes (local variables and registers of " +
                    std::to_string(x.warp.frames.size() + 1) + " nested calls); " +
                    x.launch.local_limit_reason,
                "check the recursion's base case, and keep large arrays out of recursive functions",
                __builtin_ctz(x.mask | 0x80000000u));
    for (int l = 0; l < 32; ++l)
        if ((x.warp.lanes >> l & 1) && x.warp.local[std::size_t(l)].size() < top_bytes)
            x.warp.local[std::size_t(l)].resize(top_bytes, 0);
    x.warp.local_empty = false;
    f.regs.assign(std::size_t(callee.register_count) * 32, 0);
    for (auto& [r, v] : callee.constants)
        for (int l = 0; l < 32; ++l) f.regs[std::size_t(r) * 32 + std::size_t(l)] = v;
    for (auto& [r, s] : callee.lane_specials)
        fill_lane_special(x.launch, x.block, x.warp, s, f.regs.data() + std::size_t(r) * 32);
    // Arguments: the caller's call-site .param symbols -> the callee's formal parameters.
    const auto& args = x.in->call_args;
    for (std::size_t i = 0; i < args.size() && i < callee.param_offsets.size(); ++i) {
        std::uint64_t from = caller.local_base + x.fn->local_offsets[std::size_t(args[i])];
        std::uint64_t to = f.local_base + callee.param_offsets[std::size_t(i)];
        std::size_t bytes = callee.fn.params[std::size_t(i)].size;
        FOR_LANES(x.mask, std::memmove(frame_bytes_at(x, l, to, bytes),
                                       frame_bytes_at(x, l, from, bytes), bytes));
    }
    const std::uint16_t depth = std::uint16_t(x.warp.frames.size());
    x.warp.frames.push_back(std::move(f));
    x.warp.stack.push_back({0, std::int32_t(callee.fn.code.size()) + 1, x.mask, depth, false, 0,
                            std::int32_t(x.warp.stack.size()) - 1});
}

// 9.7.10.5 ret: the returning lanes leave the function; the frame is popped when all have
void exec_ret(Exec& x) {
    Warp& w = x.warp;
    const int depth = int(w.frames.size()) - 1;
    if (depth == 0) return exec_exit(x);  // ret from the kernel ends the thread
    Frame& callee = w.frames.back();
    Frame& caller = w.frames[std::size_t(depth) - 1];
    const PreparedFunction& cf = *x.fn;
    const PreparedFunction& caller_fn = x.launch.program.functions[std::size_t(caller.function)];
    const Instruction& call = caller_fn.fn.code[std::size_t(callee.call_pc)];
    const auto& rets = call.call_results;
    for (std::size_t i = 0; i < rets.size() && i < cf.return_offsets.size(); ++i) {
        std::uint64_t from = callee.local_base + cf.return_offsets[std::size_t(i)];
        std::uint64_t to = caller.local_base + caller_fn.local_offsets[std::size_t(rets[i])];
        std::size_t bytes = cf.fn.returns[std::size_t(i)].size;
        FOR_LANES(x.mask, std::memmove(frame_bytes_at(x, l, to, bytes),
                                       frame_bytes_at(x, l, from, bytes), bytes));
    }
    remove_lanes(w, x.mask, depth);
    if (x.mask != x.active) w.stack.back().pc = std::int32_t(x.pc) + 1;
    // pop_finished() drops the frame once none of its entries remain.
}

void exec_trap(Exec& x) {
    x.fault("trap",
            "the kernel executed a trap instruction (an assert failed, or __trap() was called)",
            "look at the condition that led here", __builtin_ctz(x.mask | 0x80000000u));
}
void exec_brkpt(Exec&) {}
void exec_nanosleep(Exec&) {}

// assert() in device code: __assertfail(message, file, line, function, char size) stops the kernel
// with the failed condition, as the GPU does (it prints the same and traps).
void call_assertfail(Exec& x) {
    const auto& args = x.in->call_args;
    const int lane = __builtin_ctz(x.mask);
    const Frame& frame = x.warp.frames.back();
    auto param = [&](std::size_t i) -> std::uint64_t {
        if (i >= args.size()) return 0;
        std::uint64_t v = 0;
        const std::uint64_t slot = frame.local_base + x.fn->local_offsets[std::size_t(args[i])];
        const auto& local = x.warp.local[std::size_t(lane)];
        if (fits(slot, 8, local.size())) std::memcpy(&v, local.data() + slot, 8);
        return v;
    };
    auto text = [&](std::uint64_t address) {
        std::string t;
        Allocation* cache = nullptr;
        for (std::uint64_t a = address; a && t.size() < 512; ++a) {
            const Access c = resolve(x, Space::generic, a, 1, "assert message read", lane, cache);
            if (*c.ptr == 0) break;
            t += char(*c.ptr);
        }
        return t;
    };
    const std::string condition = text(param(0)), function = text(param(3));
    x.fault("assertion failed",
            "assert(" + condition + ") failed" + (function.empty() ? "" : " in " + function),
            "the condition was false for this thread: check the values it depends on", lane,
            std::uint32_t(std::popcount(x.mask) - 1));
}

// Device-side malloc(size) / free(pointer) (CUDA C++ Programming Guide, "Dynamic Global Memory
// Allocation"): blocks of the per-context heap (cudaLimitMallocHeapSize). A full heap returns
// NULL, as on a GPU; freeing a pointer malloc did not return is a fault, as it would corrupt the
// GPU's heap.
void call_device_heap(Exec& x, bool allocate) {
    const auto& args = x.in->call_args;
    const Frame& frame = x.warp.frames.back();
    if (args.empty())
        x.fault("bad malloc call", "malloc/free needs one argument",
                "report this as a cudalab bug");
    const std::uint64_t arg_slot = frame.local_base + x.fn->local_offsets[std::size_t(args[0])];
    const auto& rets = x.in->call_results;
    const std::uint64_t ret_slot =
        rets.empty() ? 0 : frame.local_base + x.fn->local_offsets[std::size_t(rets[0])];
    DeviceMemory& memory = x.launch.memory;
    FOR_LANES(x.mask, {
        std::uint64_t value = 0;
        auto& local = x.warp.local[std::size_t(l)];
        if (fits(arg_slot, 8, local.size())) std::memcpy(&value, local.data() + arg_slot, 8);
        if (allocate) {
            const std::uint64_t p = memory.device_malloc(value);
            if (!rets.empty() && fits(ret_slot, 8, local.size()))
                std::memcpy(local.data() + ret_slot, &p, 8);
        } else if (value != 0 && !memory.device_free(value)) {
            x.fault("bad free",
                    "free(" + hex(value) +
                        ") of memory that device malloc did not return, or freed twice",
                    "free only pointers malloc returned in device code, once", l);
        }
    });
}

// Dynamic parallelism: the device runtime's launch functions (cudadevrt), which nvcc calls for a
// kernel launch in device code. CUDA 12 and later name them __cudaCDP2*; the names without the
// prefix are the same functions as older toolkits and hand-written PTX call them. A launch is
// recorded (LaunchState::device_launches) and runs after this grid has finished
// (Emulator::launch); each calling lane launches its own grid, as on a GPU.
namespace {
constexpr std::uint32_t cuda_error_invalid_value = 1;
constexpr std::uint32_t cuda_error_invalid_configuration = 9;
constexpr std::uint32_t cuda_error_max_depth = 65;        // cudaErrorLaunchMaxDepthExceeded
constexpr std::uint32_t cuda_error_pending_count = 69;    // cudaErrorLaunchPendingCountExceeded
constexpr std::uint32_t cuda_error_device_function = 98;  // cudaErrorInvalidDeviceFunction
// The hardware's nesting limit (CUDA C++ Programming Guide, "Nesting and Synchronization Depth").
constexpr std::uint32_t max_device_depth = 24;
}  // namespace

bool call_device_runtime(Exec& x, const std::string& full_name) {
    std::string name = full_name;
    if (name.rfind("__cudaCDP2", 0) == 0) name = "cuda" + name.substr(10);
    static const char* const known[] = {"cudaGetParameterBufferV2",
                                        "cudaGetParameterBuffer",
                                        "cudaLaunchDeviceV2",
                                        "cudaLaunchDevice",
                                        "cudaStreamCreateWithFlags",
                                        "cudaStreamDestroy",
                                        "cudaGetLastError",
                                        "cudaPeekAtLastError",
                                        "cudaGetDevice",
                                        "cudaMalloc",
                                        "cudaFree",
                                        "cudaMemcpyAsync",
                                        "cudaMemsetAsync",
                                        "cudaGetErrorName",
                                        "cudaGetErrorString"};
    if (std::find(std::begin(known), std::end(known), name) == std::end(known)) return false;
    const auto& args = x.in->call_args;
    const auto& rets = x.in->call_results;
    const Frame& frame = x.warp.frames.back();
    LaunchState& st = x.launch;
    const auto& functions = st.program.functions;
    auto slot = [&](std::size_t i) {
        return frame.local_base + x.fn->local_offsets[std::size_t(args[i])];
    };
    // Argument i's bytes [at, at + bytes) for lane l, zero-extended into a 64-bit value.
    auto arg = [&](int l, std::size_t i, std::uint64_t at, std::uint32_t bytes) {
        std::uint64_t v = 0;
        if (i < args.size()) std::memcpy(&v, frame_bytes_at(x, l, slot(i) + at, bytes), bytes);
        return v;
    };
    auto give = [&](int l, std::uint64_t value, std::uint32_t bytes) {
        if (rets.empty()) return;
        const std::uint64_t at = frame.local_base + x.fn->local_offsets[std::size_t(rets[0])];
        std::memcpy(frame_bytes_at(x, l, at, bytes), &value, bytes);
    };
    auto key = [&](int l) {
        return std::uint64_t(x.block.linear) << 32 |
               (std::uint64_t(x.warp.id) * 32 + std::uint64_t(l));
    };
    std::lock_guard<std::mutex> lock(st.device_mutex);
    auto set_error = [&](int l, std::uint32_t code) {
        for (auto& [k, e] : st.device_errors)
            if (k == key(l)) {
                e = code;
                return;
            }
        st.device_errors.push_back({key(l), code});
    };
    // The arguments each takes (cuda_device_runtime_api.h).
    static const std::pair<const char*, std::size_t> arity[] = {{"cudaGetParameterBufferV2", 4},
                                                                {"cudaGetParameterBuffer", 2},
                                                                {"cudaLaunchDeviceV2", 2},
                                                                {"cudaLaunchDevice", 6},
                                                                {"cudaStreamCreateWithFlags", 2},
                                                                {"cudaStreamDestroy", 1},
                                                                {"cudaGetDevice", 1},
                                                                {"cudaMalloc", 2},
                                                                {"cudaFree", 1},
                                                                {"cudaMemcpyAsync", 5},
                                                                {"cudaMemsetAsync", 4}};
    std::size_t wanted_args = 0;
    for (const auto& [n, count] : arity)
        if (name == n) wanted_args = count;
    if (args.size() < wanted_args)
        x.fault("bad device runtime call",
                full_name + " takes " + std::to_string(wanted_args) +
                    " arguments, the call passes " + std::to_string(args.size()),
                "declare it as cuda_device_runtime_api.h does");
    // A kernel's address (function_window + 16 * index, as the launching thread took it with
    // mov) to its index; -1 for anything that is not a kernel of this module.
    auto kernel_at = [&](std::uint64_t a) -> std::int32_t {
        if (a < function_window || (a - function_window) % 16 != 0 ||
            (a - function_window) / 16 >= functions.size() ||
            !functions[(a - function_window) / 16].fn.is_entry)
            return -1;
        return std::int32_t((a - function_window) / 16);
    };
    // Hands out a parameter buffer for a launch of `function` (-1: not known yet, the older
    // cudaGetParameterBuffer), or NULL with the thread's error set, as cudadevrt does.
    auto buffer_for = [&](int l, std::int32_t function, std::uint64_t bytes, Dim3 grid, Dim3 block,
                          std::uint32_t shared) -> std::uint64_t {
        std::uint32_t error = 0;
        if (st.device_depth + 1 > max_device_depth) error = cuda_error_max_depth;
        else if (st.device_buffers.size() + st.device_launches.size() >= st.device_launch_limit)
            error = cuda_error_pending_count;
        if (error) {
            set_error(l, error);
            return 0;
        }
        LaunchState::DeviceLaunch d;
        d.block = x.block.linear;
        d.thread = x.warp.id * 32 + std::uint32_t(l);
        d.function = function;
        d.grid = grid;
        d.block_dim = block;
        d.dynamic_shared = shared;
        // A buffer the launches before left free, else a new one: a freed allocation keeps its
        // range (for messages), so one per launch would make every launch slower than the last.
        d.buffer_bytes = std::max<std::uint64_t>(256, (bytes + 255) / 256 * 256);
        auto& pool = *st.param_buffers;
        auto free = std::find_if(pool.begin(), pool.end(),
                                 [&](const auto& b) { return b.first >= d.buffer_bytes; });
        if (free != pool.end()) {
            d.buffer_bytes = free->first;
            d.buffer = free->second;
            pool.erase(free);
        } else {
            d.buffer =
                st.memory.allocate(d.buffer_bytes, "parameter buffer of a device-side launch");
        }
        st.device_buffers.push_back(d);
        return d.buffer;
    };
    auto dim_arg = [&](int l, std::size_t i) {
        return Dim3{std::uint32_t(arg(l, i, 0, 4)), std::uint32_t(arg(l, i, 4, 4)),
                    std::uint32_t(arg(l, i, 8, 4))};
    };
    // A launch configuration CUDA refuses (cudaErrorInvalidConfiguration); the rest of
    // check_launch's checks are made when the grid runs.
    auto bad_config = [&](const LaunchState::DeviceLaunch& d) {
        const Dim3& g = d.grid;
        const Dim3& b = d.block_dim;
        return g.x == 0 || g.y == 0 || g.z == 0 || b.x == 0 || b.y == 0 || b.z == 0 ||
               b.count() > hw::max_threads_per_block || b.z > hw::max_block_z ||
               g.x > hw::max_grid_x || g.y > hw::max_grid_yz || g.z > hw::max_grid_yz;
    };
    auto launch_buffer = [&](int l, std::uint64_t buffer, std::uint64_t stream,
                             const LaunchState::DeviceLaunch* given) -> std::uint32_t {
        auto it = std::find_if(st.device_buffers.begin(), st.device_buffers.end(),
                               [&](const auto& d) { return d.buffer == buffer; });
        if (it == st.device_buffers.end()) return cuda_error_invalid_value;
        LaunchState::DeviceLaunch d = *it;
        st.device_buffers.erase(it);
        if (given) {
            d.function = given->function;
            d.grid = given->grid;
            d.block_dim = given->block_dim;
            d.dynamic_shared = given->dynamic_shared;
        }
        d.stream = stream;
        std::uint32_t error = 0;
        if (d.function < 0) error = cuda_error_device_function;
        else if (bad_config(d)) error = cuda_error_invalid_configuration;
        if (error) {
            st.param_buffers->push_back({d.buffer_bytes, d.buffer});
            return error;
        }
        (void)l;
        st.device_launches.push_back(d);
        return 0;
    };
    Allocation* cache = nullptr;
    FOR_LANES(x.mask, {
        if (name == "cudaGetParameterBufferV2") {
            const std::int32_t f = kernel_at(arg(l, 0, 0, 8));
            if (f < 0) {
                set_error(l, cuda_error_device_function);
                give(l, 0, 8);
            } else {
                give(l,
                     buffer_for(l, f, functions[std::size_t(f)].fn.param_bytes, dim_arg(l, 1),
                                dim_arg(l, 2), std::uint32_t(arg(l, 3, 0, 4))),
                     8);
            }
        } else if (name == "cudaGetParameterBuffer") {
            give(l, buffer_for(l, -1, arg(l, 1, 0, 8), {}, {}, 0), 8);
        } else if (name == "cudaLaunchDeviceV2") {
            const std::uint32_t e = launch_buffer(l, arg(l, 0, 0, 8), arg(l, 1, 0, 8), nullptr);
            if (e) set_error(l, e);
            give(l, e, 4);
        } else if (name == "cudaLaunchDevice") {
            LaunchState::DeviceLaunch given;
            given.function = kernel_at(arg(l, 0, 0, 8));
            given.grid = dim_arg(l, 2);
            given.block_dim = dim_arg(l, 3);
            given.dynamic_shared = std::uint32_t(arg(l, 4, 0, 4));
            const std::uint32_t e = launch_buffer(l, arg(l, 1, 0, 8), arg(l, 5, 0, 8), &given);
            if (e) set_error(l, e);
            give(l, e, 4);
        } else if (name == "cudaStreamCreateWithFlags" || name == "cudaGetDevice") {
            // A device-side stream is a handle only: every launch runs in the order recorded,
            // which keeps each stream's order. Handles start past the special ones (0-4).
            const std::uint64_t value = name == "cudaGetDevice" ? 0 : 0x100 + ++st.device_streams;
            const std::uint32_t bytes = name == "cudaGetDevice" ? 4 : 8;
            const Access a = resolve(x, Space::generic, arg(l, 0, 0, 8), bytes,
                                     "store of a device runtime result", l, cache);
            std::memcpy(a.ptr, &value, bytes);
            give(l, 0, 4);
        } else if (name == "cudaMalloc") {
            // Device-side cudaMalloc/cudaFree: the device heap of malloc/free
            // (cudaLimitMallocHeapSize), which a device-side cudaMalloc shares on a GPU.
            const std::uint64_t p = st.memory.device_malloc(arg(l, 1, 0, 8));
            const Access a = resolve(x, Space::generic, arg(l, 0, 0, 8), 8,
                                     "store of a device runtime result", l, cache);
            std::memcpy(a.ptr, &p, 8);
            const std::uint32_t e = p ? 0 : 2;  // cudaErrorMemoryAllocation
            if (e) set_error(l, e);
            give(l, e, 4);
        } else if (name == "cudaFree") {
            const std::uint64_t p = arg(l, 0, 0, 8);
            const std::uint32_t e =
                p == 0 || st.memory.device_free(p) ? 0 : cuda_error_invalid_value;
            if (e) set_error(l, e);
            give(l, e, 4);
        } else if (name == "cudaMemcpyAsync" || name == "cudaMemsetAsync") {
            // Ordered with the thread's launches: run where the launches run (Emulator::launch).
            const bool copy = name == "cudaMemcpyAsync";
            LaunchState::DeviceLaunch d;
            d.block = x.block.linear;
            d.thread = x.warp.id * 32 + std::uint32_t(l);
            d.function = copy ? LaunchState::DeviceLaunch::copy_operation
                              : LaunchState::DeviceLaunch::set_operation;
            d.buffer = arg(l, 0, 0, 8);
            d.source = copy ? arg(l, 1, 0, 8) : 0;
            d.value = copy ? 0 : std::uint8_t(arg(l, 1, 0, 4));
            d.bytes = arg(l, 2, 0, 8);
            d.stream = arg(l, copy ? 4 : 3, 0, 8);
            std::uint32_t e = 0;
            if (st.device_buffers.size() + st.device_launches.size() >= st.device_launch_limit)
                e = cuda_error_pending_count;
            else if (d.bytes) st.device_launches.push_back(d);
            if (e) set_error(l, e);
            give(l, e, 4);
        } else if (name == "cudaGetErrorName" || name == "cudaGetErrorString") {
            // A string in device memory, as the device runtime's own table is, made once.
            const bool is_name = name == "cudaGetErrorName";
            const int code = int(std::uint32_t(arg(l, 0, 0, 4)));
            const std::uint64_t k = std::uint64_t(std::uint32_t(code)) | std::uint64_t(is_name)
                                                                             << 32;
            std::uint64_t address = 0;
            for (const auto& [key2, a] : *st.error_texts)
                if (key2 == k) address = a;
            if (!address) {
                const std::string text = st.error_text ? (*st.error_text)(code, is_name)
                                                       : "cuda error " + std::to_string(code);
                address = st.memory.allocate(text.size() + 1, "text of a device-side " + name);
                st.memory.copy_in(address, text.c_str(), text.size() + 1);
                st.error_texts->push_back({k, address});
            }
            give(l, address, 8);
        } else if (name == "cudaStreamDestroy") {
            give(l, 0, 4);
        } else {  // cudaGetLastError, cudaPeekAtLastError
            std::uint32_t e = 0;
            for (auto& [k, v] : st.device_errors)
                if (k == key(l)) {
                    e = v;
                    if (name == "cudaGetLastError") v = 0;
                }
            give(l, e, 4);
        }
    });
    return true;
}

// Device printf: vprintf(format, packed arguments). Formatted per lane in lane order, as the GPU
// does; the argument buffer follows the C ABI alignment of each argument.
void call_vprintf(Exec& x) {
    const auto& args = x.in->call_args;
    Frame& frame = x.warp.frames.back();
    if (args.size() < 2)
        x.fault("bad printf call", "vprintf needs two arguments", "report this as a cudalab bug");
    const std::uint64_t fmt_slot = frame.local_base + x.fn->local_offsets[std::size_t(args[0])];
    const std::uint64_t arg_slot = frame.local_base + x.fn->local_offsets[std::size_t(args[1])];
    Allocation* cache = nullptr;
    FOR_LANES(x.mask, {
        std::uint64_t fmt_addr, buf_addr;
        std::memcpy(&fmt_addr, frame_bytes_at(x, l, fmt_slot, 8), 8);
        std::memcpy(&buf_addr, frame_bytes_at(x, l, arg_slot, 8), 8);
        std::string fmt;
        for (std::uint64_t a = fmt_addr;; ++a) {
            Access c = resolve(x, Space::generic, a, 1, "printf format read", l, cache);
            if (*c.ptr == 0) break;
            fmt += char(*c.ptr);
            if (fmt.size() > 4096) break;
        }
        std::string out;
        std::uint64_t cursor = buf_addr;
        auto next = [&](int bytes) {
            cursor =
                (cursor + std::uint64_t(bytes) - 1) / std::uint64_t(bytes) * std::uint64_t(bytes);
            Access c = resolve(x, Space::generic, cursor, std::uint32_t(bytes),
                               "printf argument read", l, cache);
            std::uint64_t v = read_value(c.ptr, bytes, false);
            cursor += std::uint64_t(bytes);
            return v;
        };
        for (std::size_t i = 0; i < fmt.size(); ++i) {
            if (out.size() > x.launch.printf_limit) break;  // one call's output is bounded too
            if (fmt[i] != '%') {
                out += fmt[i];
                continue;
            }
            std::size_t j = i + 1;
            if (j < fmt.size() && fmt[j] == '%') {
                out += '%';
                i = j;
                continue;
            }
            while (j < fmt.size() && std::strchr("-+ #0123456789.*", fmt[j])) ++j;
            int longs = 0;
            while (j < fmt.size() && std::strchr("hlLzjt", fmt[j])) {
                if (fmt[j] == 'l' || fmt[j] == 'z' || fmt[j] == 'j' || fmt[j] == 't') ++longs;
                ++j;
            }
            if (j >= fmt.size()) break;
            char conv = fmt[j];
            std::string spec = fmt.substr(i, j - i);
            // Drop length modifiers (we pass a value of the matching host type); a '*' width or
            // precision takes an int argument, written into the spec.
            std::string clean;
            for (char ch : spec) {
                if (std::strchr("hlLzjt", ch)) continue;
                if (ch == '*')
                    clean += std::to_string(std::clamp(std::int32_t(next(4)), -4096, 4096));
                else clean += ch;
            }
            auto format = [&](const std::string& f, auto value) {  // widths of any size, capped
                const int n = std::snprintf(nullptr, 0, f.c_str(), value);
                if (n <= 0) return;
                std::string text(std::size_t(std::min(n, 1 << 16)) + 1, '\0');
                std::snprintf(text.data(), text.size(), f.c_str(), value);
                text.pop_back();
                out += text;
            };
            if (std::strchr("diouxXc", conv)) {
                std::uint64_t v = next(longs ? 8 : 4);
                if (conv == 'c') format(clean + conv, int(v));
                else if (conv == 'd' || conv == 'i')
                    format(clean + "ll" + conv, longs ? (long long)v : (long long)std::int32_t(v));
                else
                    format(clean + "ll" + conv,
                           longs ? (unsigned long long)v : (unsigned long long)std::uint32_t(v));
            } else if (std::strchr("fFeEgGaA", conv)) {
                format(clean + conv, get<double>(next(8)));  // floats are promoted to double
            } else if (conv == 'p') {  // as the GPU prints it: "(nil)" for a null pointer
                std::uint64_t v = next(8);
                if (v == 0) out += "(nil)";
                else format(std::string("0x%llx"), (unsigned long long)v);
            } else if (conv == 's') {
                std::uint64_t p = next(8);
                std::string s;
                for (std::uint64_t a = p; s.size() < 4096;
                     ++a) {  // a null %s faults, as on an H200
                    Access c = resolve(x, Space::generic, a, 1, "printf string read", l, cache);
                    if (*c.ptr == 0) break;
                    s += char(*c.ptr);
                }
                format(clean + 's', s.c_str());
            } else {
                out += spec;  // an unknown conversion is printed as written (%n writes nothing)
                out += conv;
            }
            i = j;
        }
        const bool fits = x.out.printf_text.size() + out.size() +
                              x.launch.printf_bytes.load(std::memory_order_relaxed) <=
                          x.launch.printf_limit;
        if (x.launch.printf_drops && !fits) {
            // A full buffer on a GPU loses the record; the kernel runs on.
            x.launch.printf_dropped.fetch_add(out.size(), std::memory_order_relaxed);
            continue;
        }
        x.out.printf_text += out;
        if (!fits)
            x.fault("printf output limit reached",
                    "the launch printed more than " + std::to_string(x.launch.printf_limit) +
                        " bytes with printf (the limit per launch; a GPU's printf buffer holds 1 "
                        "MB by default)",
                    "print less: a few threads, or a summary, not every element (raise the limit "
                    "with --printf-limit)",
                    l);
    });
    // vprintf returns the number of arguments; the result slot is written if the caller reads it.
    const auto& rets = x.in->call_results;
    if (!rets.empty()) {
        std::uint64_t slot = frame.local_base + x.fn->local_offsets[std::size_t(rets[0])];
        FOR_LANES(x.mask, {
            std::uint32_t v = 1;
            std::memcpy(frame_bytes_at(x, l, slot, 4), &v, 4);
        });
    }
}

// [SECTION] Barriers and warp collectives ---------------------------------------------------------

// A __syncthreads() inside a branch that only some lanes of a warp take: the lanes that went the
// other way and are still running must reach the same __syncthreads() (or exit, which counts as
// arriving on sm_70 and later). Reaching a different one first is the bug: a GPU's barrier has an
// id, not a place, so the two groups meet at the wrong places and run on with the data unready.
[[gnu::noinline]] void check_partial_barrier(Exec& x) {
    Warp& w = x.warp;
    const std::uint32_t late = x.mask & w.partial_bar_lanes & w.live;
    if (late) {
        const PreparedFunction& pf =
            x.launch.program.functions[std::size_t(w.partial_bar_function)];
        const std::uint32_t first_line = pf.fn.code[w.partial_bar_pc].line;
        if (w.partial_bar_function == x.frame->function &&
            (w.partial_bar_pc == x.pc || first_line == x.in->line)) {
            w.partial_bar_lanes &= ~x.mask;  // the other lanes arrive at the same __syncthreads()
            return;
        }
        const auto& c = x.launch.config;
        auto thread = [&](int lane) {
            return dims_text(w.id * 32 + std::uint32_t(lane), c.block.x, c.block.y);
        };
        auto lanes_text = [&](std::uint32_t m) {
            const int lo = __builtin_ctz(m), hi = 31 - __builtin_clz(m);
            return std::popcount(m) == 1
                       ? "thread " + thread(lo)
                       : "threads " + thread(lo) + " to " + thread(hi) +
                             (std::popcount(m) == hi - lo + 1 ? std::string() : " (some of them)");
        };
        const std::uint32_t waiting = w.live & ~w.partial_bar_lanes;
        FaultInfo f;
        f.kind = "divergent __syncthreads()";
        f.detail = "a __syncthreads() inside a branch not taken by the whole block: " +
                   lanes_text(waiting) + " of warp " + std::to_string(w.id) +
                   " reached the __syncthreads() of line " + std::to_string(first_line) + ", but " +
                   lanes_text(late) +
                   " did not arrive there; they went on and reached the __syncthreads() of line " +
                   std::to_string(x.in->line) +
                   " instead. A GPU counts both as one barrier (it has an id, not a place), so the "
                   "threads do not meet "
                   "where the code says and read data that is not ready";
        f.advice =
            "call __syncthreads() where every thread of the block reaches it: move it out of the "
            "if (and out of "
            "loops whose trip count differs between threads), and guard only the work inside";
        f.pc = w.partial_bar_pc;
        f.function = w.partial_bar_function;
        f.block = x.block.linear;
        f.warp = w.id;
        f.lane = __builtin_ctz(late);
        f.other_lanes = std::uint32_t(std::popcount(late)) - 1;
        f.other_line = x.in->line;
        throw Fault(std::move(f));
    }
    // Lanes still running that did not come here: they must come to this barrier, or exit.
    w.partial_bar_lanes = w.live & ~x.mask;
    w.partial_bar_pc = x.pc;
    w.partial_bar_function = x.frame->function;
}

// 9.7.13.1 bar.sync / barrier.sync / bar.arrive / bar.red: the warp waits until the block's warps
// have arrived at barrier `a` (all live warps, or b threads when a count is given; exit counts as
// arrival). bar.red also reduces a predicate over the arriving threads; the block runner
// (emulator.cpp) writes the result when it releases the barrier.
void exec_bar(Exec& x) {
    if (x.mask == 0) return;
    const Instruction& in = *x.in;
    const bool red = in.flags & ptx::f_red;
    const int first = red ? 1 : 0;  // bar.red d, a{, b}, {!}c
    const int lane = __builtin_ctz(x.mask);
    const std::uint32_t id = std::uint32_t(x.src(first)[lane]);
    if (id >= Block::barrier_count)
        x.fault("bad barrier",
                "barrier " + std::to_string(id) + " does not exist (there are 16, 0 to 15)",
                "use barrier ids 0 to 15", lane);
    const int count_operand =
        red ? (in.operand_count == 4 ? 2 : -1) : (in.operand_count >= 2 ? 1 : -1);
    std::uint32_t expected = 0;
    if (count_operand >= 0) {
        const std::uint32_t threads = std::uint32_t(x.src(count_operand)[lane]);
        if (threads == 0 || threads % 32 != 0)
            x.fault("bad barrier",
                    "the thread count of a named barrier must be a non-zero multiple of 32, not " +
                        std::to_string(threads),
                    "pass a multiple of the warp size", lane);
        expected = threads / 32;
    }
    if (count_operand < 0 && !(in.flags & ptx::f_arrive)) check_partial_barrier(x);
    BarrierState& b = x.block.barriers[id];
    if (b.arrived > 0 && b.expected != expected)
        x.fault("bad barrier",
                "warps arrive at barrier " + std::to_string(id) + " with different thread counts",
                "give every bar.sync / bar.arrive of one barrier the same count", lane);
    b.expected = expected;
    b.arrived += 1;
    if (red) {
        const Operand& po = in.operands[in.operand_count - 1];
        const std::uint64_t* p = x.src(in.operand_count - 1);
        std::uint32_t votes = 0;
        FOR_LANES(x.mask, if ((p[l] & 1) != std::uint64_t(po.negate)) votes |= 1u << l);
        b.red_true += std::uint32_t(std::popcount(votes));
        b.red_threads += std::uint32_t(std::popcount(x.mask));
        x.warp.red_dst = in.operands[0].reg;
        x.warp.red_op = in.sub;
        x.warp.red_mask = x.mask;
    } else {
        x.warp.red_dst = -1;
    }
    if (in.flags & ptx::f_arrive) return;  // arrive without waiting
    x.warp.waiting = true;
    x.warp.barrier_id = id;
    x.warp.barrier_pc = x.pc;
    if (x.event) x.block.events.back().kind = EventKind::barrier_arrive;
}
void exec_barrier(Exec& x) { exec_bar(x); }

// 9.7.13.3 barrier.cluster.arrive / barrier.cluster.wait (cluster.sync() is the two in a row):
// each thread arrives once per phase; wait returns once every thread of the cluster that has not
// exited has arrived. .relaxed, .release, .acquire and .aligned change nothing here: the emulator
// makes one access at a time, so every access before the arrive is seen after the wait.
void exec_barrier_cluster(Exec& x) {
    if (x.mask == 0) return;
    Warp& w = x.warp;
    ClusterState* cluster = x.block.cluster;
    const int lane = __builtin_ctz(x.mask);
    if (!cluster)
        x.fault("bad cluster barrier", "the block has no cluster", "report this as a cudalab bug");
    if (x.in->flags & ptx::f_arrive) {
        if (const std::uint32_t twice = w.cluster_arrived & x.mask)
            x.fault("cluster barrier arrived at twice",
                    "barrier.cluster.arrive by threads that already arrived in this phase and have "
                    "not waited (barrier.cluster.wait) since",
                    "pair every barrier_arrive() with a barrier_wait() before the next arrive",
                    __builtin_ctz(twice), twice & (twice - 1));
        w.cluster_arrived |= x.mask;
        w.cluster_target = cluster->phase + 1;
        release_cluster_barrier(*cluster);
        return;
    }
    if (w.cluster_target == 0)  // never arrived: on a GPU it would wait for a phase of its own
        x.fault("cluster barrier wait without arrive",
                "barrier.cluster.wait by threads that never performed barrier.cluster.arrive",
                "call cluster.barrier_arrive() (or cluster.sync()) before waiting", lane);
    if (w.cluster_target <= cluster->phase) return;  // the phase has completed already
    w.waiting = true;
    w.barrier_id = Block::cluster_barrier;
    w.barrier_pc = x.pc;
    if (x.event) x.block.events.back().kind = EventKind::barrier_arrive;
}

// A warp collective names the lanes that take part; every one of them must be executing it.
void check_members(Exec& x, std::uint32_t members, std::uint32_t callers, const char* what) {
    const std::uint32_t missing = members & x.warp.lanes & ~x.mask;
    if (missing) {
        std::ostringstream d;
        d << what << " names lanes 0x" << std::hex << members << " but lanes 0x" << missing
          << std::dec
          << " are not executing it (they exited or took another branch); on a GPU this is "
             "undefined and can hang";
        x.fault(std::string(what) + " with absent lanes", d.str(),
                "make every lane in the mask reach this instruction (no early return before it), "
                "or pass "
                "__activemask() / a mask of the lanes that really arrive",
                __builtin_ctz(missing));
    }
    const std::uint32_t outside = callers & ~members;
    if (outside) {
        std::ostringstream d;
        d << "lane " << __builtin_ctz(outside) << " passes the mask 0x" << std::hex << members
          << std::dec << ", which does not include the lane itself; on a GPU this is undefined";
        x.fault(
            std::string(what) + " with a mask that leaves out its caller", d.str(),
            "every lane must be in the mask it passes: use __activemask() or the group's own mask",
            __builtin_ctz(outside));
    }
}

// The member masks of a warp collective, one per lane: usually the same for every active lane, but
// disjoint groups may run the instruction together with their own masks (cooperative-groups tiles:
// lanes 0-15 pass 0x0000ffff while lanes 16-31 pass 0xffff0000). Calls f(members, lanes) for each
// group, where `lanes` are the active lanes that passed `members`.
template <class F> void for_each_group(Exec& x, int mask_operand, const char* what, F f) {
    // Every *_sync collective orders the memory accesses of the lanes it synchronises (the race
    // detector's warp interval).
    ++x.warp.sync_epoch;
    x.warp.stamp = next_stamp(x.block);
    const std::uint64_t* m = x.src(mask_operand);
    std::uint32_t todo = x.mask;
    while (todo) {
        const std::uint32_t members = std::uint32_t(m[__builtin_ctz(todo)]);
        std::uint32_t lanes = 0;
        FOR_LANES(todo, if (std::uint32_t(m[l]) == members) lanes |= 1u << l);
        todo &= ~lanes;
        check_members(x, members, lanes, what);
        f(members, lanes);
    }
}

// 9.7.13.2 bar.warp.sync (__syncwarp): lockstep warps are always in sync; check the member mask
void exec_bar_warp(Exec& x) {
    ++x.warp.sync_epoch;
    x.warp.stamp = next_stamp(x.block);
    if (x.in->operand_count > 0)
        for_each_group(x, 0, "__syncwarp", [](std::uint32_t, std::uint32_t) {});
}
void exec_membar(Exec&) {}  // one access at a time: memory is always ordered in the emulator
void exec_fence(Exec&) {}

// 9.7.13.8 vote.sync
void exec_vote(Exec& x) {
    const Operand& po = x.in->operands[1];
    const std::uint64_t* p = x.src(1);
    std::uint64_t* d = x.dst(0);
    for_each_group(
        x, x.in->operand_count - 1, "vote", [&](std::uint32_t members, std::uint32_t lanes) {
            const std::uint32_t group = x.mask & members;
            std::uint32_t ballot = 0;
            FOR_LANES(group, if ((p[l] & 1) != std::uint64_t(po.negate)) ballot |= 1u << l);
            switch (x.in->sub) {
            case SubOp::ballot: FOR_LANES(lanes, d[l] = ballot); break;
            case SubOp::all: FOR_LANES(lanes, d[l] = ballot == group); break;
            case SubOp::any: FOR_LANES(lanes, d[l] = ballot != 0); break;
            case SubOp::uni: FOR_LANES(lanes, d[l] = ballot == 0 || ballot == group); break;
            default: x.unsupported(x.in->text);
            }
        });
}

// 9.7.13.9 match.sync
void exec_match(Exec& x) {
    const Operand& d0 = x.in->operands[0];
    std::uint64_t* d = d0.kind == OperandKind::vector ? x.reg(d0.vec[0]) : x.dst(0);
    std::uint64_t* p =
        d0.kind == OperandKind::vector && d0.vec[1] >= 0 ? x.reg(d0.vec[1]) : nullptr;
    const std::uint64_t* a = x.src(1);
    const std::uint64_t wm = width_mask(x.in->type);
    for_each_group(x, x.in->operand_count - 1, "match",
                   [&](std::uint32_t members, std::uint32_t lanes) {
                       const std::uint32_t group = x.mask & members;
                       if (x.in->sub == SubOp::match_any) {
                           FOR_LANES(lanes, {
                               std::uint32_t same = 0;
                               for (std::uint32_t k = group; k; k &= k - 1)
                                   if ((a[__builtin_ctz(k)] & wm) == (a[l] & wm))
                                       same |= 1u << __builtin_ctz(k);
                               d[l] = same;
                           });
                       } else {
                           bool all = true;
                           const int first = __builtin_ctz(group | 0x80000000u);
                           FOR_LANES(group, if ((a[l] & wm) != (a[first] & wm)) all = false);
                           FOR_LANES(lanes, {
                               d[l] = all ? group : 0;
                               if (p) p[l] = all;
                           });
                       }
                   });
}

// 9.7.13.10 activemask
void exec_activemask(Exec& x) {
    std::uint64_t* d = x.dst(0);
    FOR_LANES(x.mask, d[l] = x.active);
}

// 9.7.13.11 redux.sync
void exec_redux(Exec& x) {
    const std::uint64_t* a = x.src(1);
    std::uint64_t* d = x.dst(0);
    const bool is_signed = x.in->type == Type::s32;
    for_each_group(x, 2, "redux", [&](std::uint32_t members, std::uint32_t lanes) {
        std::int64_t acc = 0;
        bool first = true;
        FOR_LANES(x.mask & members, {
            const std::int64_t v =
                is_signed ? std::int64_t(std::int32_t(a[l])) : std::int64_t(std::uint32_t(a[l]));
            if (first) {
                acc = v;
                first = false;
                continue;
            }
            switch (x.in->sub) {
            case SubOp::add: acc += v; break;
            case SubOp::min: acc = std::min(acc, v); break;
            case SubOp::max: acc = std::max(acc, v); break;
            case SubOp::and_: acc &= v; break;
            case SubOp::or_: acc |= v; break;
            case SubOp::xor_: acc ^= v; break;
            default: x.unsupported(x.in->text);
            }
        });
        FOR_LANES(lanes, d[l] = std::uint32_t(acc));
    });
}

// 9.7.9.6 shfl.sync: read a register of another lane of the warp
void exec_shfl(Exec& x) {
    const Operand& d0 = x.in->operands[0];
    std::uint64_t* d = d0.kind == OperandKind::vector ? x.reg(d0.vec[0]) : x.dst(0);
    std::uint64_t* p =
        d0.kind == OperandKind::vector && d0.vec[1] >= 0 ? x.reg(d0.vec[1]) : nullptr;
    const std::uint64_t *a = x.src(1), *b = x.src(2), *c = x.src(3);
    for_each_group(x, 4, "shfl", [](std::uint32_t, std::uint32_t) {});
    std::uint64_t result[32];
    std::uint32_t valid = 0;
    FOR_LANES(x.mask, {
        std::uint32_t lane = std::uint32_t(l), bval = std::uint32_t(b[l]) & 31,
                      cval = std::uint32_t(c[l]) & 31;
        std::uint32_t segmask = (std::uint32_t(c[l]) >> 8) & 31;
        std::uint32_t max_lane = (lane & segmask) | (cval & ~segmask), min_lane = lane & segmask;
        std::int32_t j = 0;
        bool pval = false;
        switch (x.in->sub) {
        case SubOp::up:
            j = std::int32_t(lane) - std::int32_t(bval);
            pval = j >= std::int32_t(max_lane);
            break;
        case SubOp::down:
            j = std::int32_t(lane + bval);
            pval = j <= std::int32_t(max_lane);
            break;
        case SubOp::bfly:
            j = std::int32_t(lane ^ bval);
            pval = j <= std::int32_t(max_lane);
            break;
        case SubOp::idx:
            j = std::int32_t(min_lane | (bval & ~segmask));
            pval = j <= std::int32_t(max_lane);
            break;
        default: x.unsupported(x.in->text);
        }
        if (!pval || j < 0 || j > 31) j = std::int32_t(lane);
        result[l] = a[j];
        if (pval) valid |= 1u << l;
    });
    FOR_LANES(x.mask, {
        d[l] = result[l];
        if (p) p[l] = (valid >> l) & 1;
    });
}

// [SECTION] Asynchronous barriers and copies: mbarrier, cp.async, elect ---------------------------

// An mbarrier (cuda::barrier<thread_scope_block>, cuda::pipeline) is a 64-bit object in shared
// memory whose layout PTX leaves opaque; cudalab keeps the state PTX describes in it: the phase's
// parity, the arrivals still pending in this phase, the arrivals each phase expects
// (mbarrier.init's count, lowered by arrive_drop) and the transaction count (expect_tx /
// complete_tx). A state token (what arrive returns) has the same layout: the phase of the arrival
// and the count left after it. Bit 62 marks an initialised object, so that use before mbarrier.init
// is caught.
namespace mbarrier {
constexpr std::uint64_t count_bits = 20;  // counts are 1 to 2^20 - 1 (mbarrier.init)
constexpr std::uint64_t count_mask = (1ull << count_bits) - 1;
constexpr std::uint64_t valid_bit = 1ull << 62, phase_bit = 1ull << 63;
struct State {
    std::uint32_t pending = 0, expected = 0;
    std::int32_t tx = 0;  // 21 bits in the word, signed
    bool phase = false, valid = false;
};
inline State decode(std::uint64_t w) {
    State s;
    s.pending = std::uint32_t(w & count_mask);
    s.expected = std::uint32_t(w >> count_bits & count_mask);
    const std::uint32_t tx = std::uint32_t(w >> (2 * count_bits) & 0x1fffff);
    s.tx = tx & 0x100000 ? std::int32_t(tx) - 0x200000 : std::int32_t(tx);
    s.phase = w & phase_bit;
    s.valid = w & valid_bit;
    return s;
}
inline std::uint64_t encode(const State& s) {
    return std::uint64_t(s.pending & count_mask) |
           std::uint64_t(s.expected & count_mask) << count_bits |
           std::uint64_t(std::uint32_t(s.tx) & 0x1fffff) << (2 * count_bits) |
           (s.valid ? valid_bit : 0) | (s.phase ? phase_bit : 0);
}
}  // namespace mbarrier

// The mbarrier object of each active lane, in lane order (lanes that arrive at one barrier do so
// one after another, as atomics do): f(state, lane) may change the state, which is written back.
template <class F> void for_each_mbarrier(Exec& x, int addr_operand, bool init, F f) {
    std::uint64_t addr[32];
    lane_addresses(x, x.in->operands[addr_operand], addr);
    Allocation* cache = nullptr;
    // cp.async's barrier operand: a shared address for .bulk (its state spaces name the copy's
    // ends) and for cp.async.mbarrier.arrive.shared, else a generic one.
    Space space = x.in->space;
    if (x.in->op == Opcode::cp_async)
        space =
            x.in->sub == SubOp::cp_bulk || space == Space::shared ? Space::shared : Space::generic;
    FOR_LANES(x.mask, {
        Access acc = resolve(x, space, addr[l], 8, "mbarrier access", l, cache);
        // Another block's barrier in the cluster (mbarrier.arrive.shared::cluster, a producer
        // signalling a consumer block) is shared memory too; its block's race shadow is its own.
        const bool remote = acc.space == MemSpace::distributed_shared;
        if (acc.space != MemSpace::shared && !remote)
            x.fault("mbarrier outside shared memory",
                    "the mbarrier at " + hex(addr[l]) + " is in " +
                        (acc.space == MemSpace::global ? "global" : "local") +
                        " memory; an mbarrier object lives in shared memory",
                    "declare the barrier __shared__ (cuda::barrier<cuda::thread_scope_block> in "
                    "shared memory)",
                    l);
        if (!remote)
            shared_shadow(x, acc.shared_offset, 8, init ? SharedUse::write : SharedUse::atomic, l);
        std::uint64_t w;
        std::memcpy(&w, acc.ptr, 8);
        mbarrier::State s = mbarrier::decode(w);
        if (!init && !s.valid)
            x.fault("mbarrier used before mbarrier.init",
                    "shared offset " + std::to_string(acc.shared_offset) +
                        " does not hold an initialised mbarrier ('" + x.in->text + "')",
                    "initialise the barrier once (init(&bar, count) / mbarrier.init) from one "
                    "thread, then __syncthreads() before any thread uses it",
                    l);
        f(s, l);
        w = mbarrier::encode(s);
        std::memcpy(acc.ptr, &w, 8);
    });
}

// A phase completes when every expected arrival has come and the transaction count is back to 0:
// the parity flips and the next phase expects the same arrivals again.
void mbarrier_complete_if_done(mbarrier::State& s) {
    if (s.pending != 0 || s.tx != 0) return;
    s.phase = !s.phase;
    s.pending = s.expected;
}

// 9.7.13 mbarrier.init [addr], count
void exec_mbarrier_init(Exec& x) {
    const std::uint64_t* count = x.src(1);
    for_each_mbarrier(x, 0, true, [&](mbarrier::State& s, int l) {
        if (count[l] == 0 || count[l] > mbarrier::count_mask)
            x.fault("bad mbarrier count",
                    "mbarrier.init with a count of " + std::to_string(count[l]) +
                        "; the count must be 1 to " + std::to_string(mbarrier::count_mask),
                    "initialise the barrier with the number of threads that arrive at it", l);
        s = mbarrier::State{};
        s.pending = s.expected = std::uint32_t(count[l]);
        s.valid = true;
    });
}

// 9.7.13 mbarrier.inval [addr]: the object is ordinary memory again
void exec_mbarrier_inval(Exec& x) {
    for_each_mbarrier(x, 0, false, [](mbarrier::State& s, int) { s = mbarrier::State{}; });
}

[[noreturn]] void mbarrier_overflow(Exec& x, const mbarrier::State& s, std::uint64_t count,
                                    int lane) {
    x.fault("too many arrivals at an mbarrier",
            "an arrival of " + std::to_string(count) + " at a barrier phase with " +
                std::to_string(s.pending) + " arrival(s) pending (it expects " +
                std::to_string(s.expected) +
                " per phase): more threads arrive than the count it was initialised with; on a "
                "GPU the result is undefined",
            "initialise the barrier with the number of threads that arrive at it each phase, and "
            "have each arrive once per phase",
            lane);
}

// 9.7.13 mbarrier.arrive{.noComplete}{.expect_tx} state, [addr]{, count | txCount} and
// mbarrier.arrive_drop (which also lowers the arrivals later phases expect). The state token is
// the phase of the arrival, for test_wait / try_wait.
template <bool Drop> void mbarrier_arrive(Exec& x) {
    const Instruction& in = *x.in;
    const bool expect_tx = in.flags & ptx::f_expect_tx;
    const std::uint64_t* operand = in.operand_count > 2 ? x.src(2) : nullptr;
    std::uint64_t* token = x.dst(0);
    for_each_mbarrier(x, 1, false, [&](mbarrier::State& s, int l) {
        const std::uint64_t count = operand && !expect_tx ? operand[l] : 1;
        if (count > s.pending || count == 0) mbarrier_overflow(x, s, count, l);
        if (expect_tx) s.tx += std::int32_t(std::uint32_t(operand[l]));
        s.pending -= std::uint32_t(count);
        if (Drop) s.expected -= std::min<std::uint32_t>(s.expected, std::uint32_t(count));
        mbarrier::State t = s;
        if (in.flags & ptx::f_no_complete) {
            if (s.pending == 0 && s.tx == 0)
                x.fault("mbarrier.arrive.noComplete completed the phase",
                        "the arrival made the phase complete, which .noComplete forbids "
                        "(undefined on a GPU)",
                        "arrive without .noComplete when this arrival may be the last", l);
        } else {
            mbarrier_complete_if_done(s);
        }
        token[l] = mbarrier::encode(t);  // the phase before any completion, the count left
    });
}
void exec_mbarrier_arrive(Exec& x) { mbarrier_arrive<false>(x); }
void exec_mbarrier_arrive_drop(Exec& x) { mbarrier_arrive<true>(x); }

// 9.7.13 mbarrier.expect_tx [addr], txCount and mbarrier.complete_tx [addr], txCount
void exec_mbarrier_expect_tx(Exec& x) {
    const std::uint64_t* tx = x.src(1);
    for_each_mbarrier(x, 0, false, [&](mbarrier::State& s, int l) { s.tx += std::int32_t(tx[l]); });
}
void exec_mbarrier_complete_tx(Exec& x) {
    const std::uint64_t* tx = x.src(1);
    for_each_mbarrier(x, 0, false, [&](mbarrier::State& s, int l) {
        s.tx -= std::int32_t(tx[l]);
        mbarrier_complete_if_done(s);
    });
}

// 9.7.13 mbarrier.test_wait{.parity} / mbarrier.try_wait{.parity} waitComplete, [addr], state |
// phaseParity {, suspendTimeHint}: whether the phase of the token (or of that parity) has
// completed, that is whether the barrier has moved to the next phase since. A lane that finds it
// incomplete is looping to wait: try_wait suspends the warp until another warp changes the barrier
// (the block runner wakes it, emulator.cpp), so a waiting warp costs no instructions, and a block
// whose warps all wait on barriers that cannot complete is reported as a deadlock. test_wait never
// blocks; the warp only ends its turn.
void mbarrier_wait(Exec& x, bool may_suspend) {
    const Instruction& in = *x.in;
    const std::uint64_t* operand = x.src(2);
    std::uint64_t* done = x.dst(0);
    std::uint32_t incomplete = 0;
    std::uint32_t watch_offset = 0;
    std::uint64_t watch_word = 0;
    std::uint64_t addr[32];
    lane_addresses(x, in.operands[1], addr);
    for_each_mbarrier(x, 1, false, [&](mbarrier::State& s, int l) {
        const bool parity =
            in.flags & ptx::f_parity ? (operand[l] & 1) != 0 : mbarrier::decode(operand[l]).phase;
        done[l] = s.phase != parity;
        if (!done[l] && !incomplete) {
            watch_word = mbarrier::encode(s);
            watch_offset =
                std::uint32_t(in.space == Space::generic ? addr[l] - shared_window : addr[l]);
        }
        if (!done[l]) incomplete |= 1u << l;
    });
    if (!incomplete) return;
    Warp& w = x.warp;
    if (!w.stack.empty() && w.stack.back().path) {
        w.turn = 1;  // a divergent path under independent scheduling: let the other path run
        return;
    }
    if (!may_suspend) {
        w.waiting = true;  // one round's pause (emulator.cpp wakes it at the next round)
        w.barrier_id = Block::yield_barrier;
        w.barrier_pc = x.pc;
        return;
    }
    w.waiting = true;
    w.barrier_id = Block::mbarrier_barrier;
    w.barrier_pc = x.pc;
    w.mbarrier_offset = watch_offset;
    w.mbarrier_word = watch_word;
}
void exec_mbarrier_test_wait(Exec& x) { mbarrier_wait(x, false); }
void exec_mbarrier_try_wait(Exec& x) { mbarrier_wait(x, true); }

// 9.7.13 mbarrier.pending_count count, state: the arrivals still pending after the token's
void exec_mbarrier_pending_count(Exec& x) {
    const std::uint64_t* token = x.src(1);
    std::uint64_t* d = x.dst(0);
    FOR_LANES(x.mask, d[l] = mbarrier::decode(token[l]).pending);
}

// 9.7.9 cp.async.bulk (sm_90's bulk copies, which libcu++'s cuda::memcpy_async emits for large
// aligned chunks): [dst], [src], size, [mbar] from global (or another CTA's shared) memory into
// shared memory, completing `size` bytes of the mbarrier's transaction count; or
// .global.shared::cta.bulk_group [dst], [src], size from shared to global memory. As with cp.async
// the bytes move at once; the barrier counts them complete (as mbarrier.complete_tx) right after,
// so a thread that waits on its phase finds them there. Addresses are 16-byte aligned and the size
// a multiple of 16. A cluster is one CTA here: .multicast::cluster copies into this CTA only.
void cp_async_bulk(Exec& x) {
    const Instruction& in = *x.in;
    if (in.operand_count < 3) x.unsupported(in.text);
    const bool to_global = in.flags & ptx::f_bulk_to_global;
    const Space dst_space = to_global ? Space::global : Space::shared;
    const Space src_space =
        to_global || (in.flags & ptx::f_bulk_from_shared) ? Space::shared : Space::global;
    const std::uint64_t* size = x.src(2);
    std::uint64_t dst[32], src[32];
    lane_addresses(x, in.operands[0], dst);
    lane_addresses(x, in.operands[1], src);
    Allocation* src_cache = nullptr;
    Allocation* dst_cache = nullptr;
    FOR_LANES(x.mask, {
        const std::uint64_t n = size[l];
        if (n % 16 != 0 || dst[l] % 16 != 0 || src[l] % 16 != 0)
            x.fault("misaligned cp.async.bulk",
                    "a bulk copy of " + std::to_string(n) + " bytes from " + hex(src[l]) + " to " +
                        hex(dst[l]) +
                        ": both addresses must be 16-byte aligned and the size a multiple of 16",
                    "align the buffers to 16 bytes (cuda::aligned_size_t<16>) and copy whole "
                    "16-byte units",
                    l);
        for (std::uint64_t off = 0; off < n; off += 16) {
            Access s = resolve(x, src_space, src[l] + off, 16, "cp.async.bulk load", l, src_cache);
            Access d = resolve(x, dst_space, dst[l] + off, 16, "cp.async.bulk store", l, dst_cache);
            if (d.space == MemSpace::shared)
                shared_shadow(x, d.shared_offset, 16, SharedUse::write, l);
            std::memcpy(d.ptr, s.ptr, 16);
        }
    });
    if (to_global || in.operand_count < 4) return;
    for_each_mbarrier(x, 3, false, [&](mbarrier::State& s, int l) {
        s.tx -= std::int32_t(size[l]);
        mbarrier_complete_if_done(s);
    });
}

// 9.7.9 cp.async.{ca,cg}.shared.global [dst], [src], cp-size{, src-size | ignore-src}: the copy is
// done at once (a GPU finishes it by the cp.async.wait_group / wait_all or the mbarrier arrival
// that follows; reading the destination before those is a race in the program either way), with
// the bytes past src-size set to zero. commit_group and wait_group/wait_all have nothing left to
// wait for. cp.async.mbarrier.arrive makes the barrier see one arrival when the thread's copies
// are done, which is now; without .noinc it first raises the pending count by one, so the net
// effect on the barrier is none (the arrival the copies owe is already counted by the thread's
// own arrive).
void exec_cp_async(Exec& x) {
    const Instruction& in = *x.in;
    switch (in.sub) {
    case SubOp::cp_commit_group:
    case SubOp::cp_wait_group:
    case SubOp::cp_wait_all: return;
    case SubOp::cp_mbarrier_arrive:
        if (!(in.flags & ptx::f_noinc)) return;
        for_each_mbarrier(x, 0, false, [&](mbarrier::State& s, int l) {
            if (s.pending == 0) mbarrier_overflow(x, s, 1, l);
            s.pending -= 1;
            mbarrier_complete_if_done(s);
        });
        return;
    case SubOp::cp_bulk: cp_async_bulk(x); return;
    case SubOp::cp_bulk_prefetch: return;  // a cache hint
    default: break;
    }
    if (in.operand_count < 3) x.unsupported(in.text);
    const std::uint64_t* size = x.src(2);
    const std::uint64_t* src_size = nullptr;
    const std::uint64_t* ignore = nullptr;
    if (in.operand_count >= 4) {
        const Operand& o = in.operands[3];
        // A predicate (ignore-src) or a byte count; a register's type tells them apart.
        const bool predicate = o.kind == OperandKind::reg &&
                               x.fn->fn.register_types.size() > std::size_t(o.reg) &&
                               x.fn->fn.register_types[std::size_t(o.reg)] == Type::pred;
        (predicate ? ignore : src_size) = x.src(3);
    }
    std::uint64_t dst[32], src[32];
    lane_addresses(x, in.operands[0], dst);
    lane_addresses(x, in.operands[1], src);
    Allocation* cache = nullptr;
    FOR_LANES(x.mask, {
        const std::uint32_t n = std::uint32_t(size[l]);
        if (n != 4 && n != 8 && n != 16)
            x.fault("bad cp.async size",
                    "cp.async copies 4, 8 or 16 bytes, not " + std::to_string(n),
                    "copy 4, 8 or 16 bytes per thread", l);
        std::uint32_t from_source = n;
        if (src_size) from_source = std::uint32_t(std::min<std::uint64_t>(src_size[l], n));
        if (ignore && (ignore[l] & 1) != std::uint64_t(in.operands[3].negate)) from_source = 0;
        std::uint8_t bytes[16] = {};
        if (from_source > 0) {
            Access s = resolve(x, Space::global, src[l], n, "cp.async load", l, cache);
            std::memcpy(bytes, s.ptr, from_source);
            global_races(x, s.allocation, 1u << l, src, 0, n, GlobalUse::read);
        }
        Access d = resolve(x, Space::shared, dst[l], n, "cp.async store", l, cache);
        shared_shadow(x, d.shared_offset, n, SharedUse::write, l);
        std::memcpy(d.ptr, bytes, n);
    });
}

// 9.7.13 elect.sync d|p, membermask: one lane of the members, the lowest active one, is elected
void exec_elect(Exec& x) {
    const Operand& o = x.in->operands[0];
    std::uint64_t* d = o.kind == OperandKind::vector && o.vec[0] >= 0 ? x.reg(o.vec[0])
                       : o.kind == OperandKind::vector                ? nullptr
                                                                      : x.dst(0);
    std::uint64_t* p = o.kind == OperandKind::vector && o.vec[1] >= 0 ? x.reg(o.vec[1]) : nullptr;
    for_each_group(x, 1, "elect.sync", [&](std::uint32_t members, std::uint32_t lanes) {
        const std::uint32_t leader = std::uint32_t(__builtin_ctz(members & x.mask));
        FOR_LANES(lanes, {
            if (d) d[l] = leader;
            if (p) p[l] = std::uint32_t(l) == leader;
        });
    });
}

// 9.7.8 bmsk.{clamp,wrap}.b32 d, a, b: a mask of b bits starting at bit a. Both take the low five
// bits of a and b; .clamp makes a >= 32 an empty mask and b >= 32 a mask up to bit 31, and a mask
// running past bit 31 ends there.
void exec_bmsk(Exec& x) {
    const std::uint64_t *a = x.src(1), *b = x.src(2);
    std::uint64_t* d = x.dst(0);
    const bool clamp = x.in->flags & ptx::f_shift_clamp;
    FOR_LANES(x.mask, {
        const std::uint32_t av = std::uint32_t(a[l]), bv = std::uint32_t(b[l]);
        const std::uint32_t a1 = av & 31, b1 = bv & 31, sum = a1 + b1;
        std::uint32_t low = ~0u << a1;                   // bits from a up
        std::uint32_t high = sum < 32 ? ~0u << sum : 0;  // bits from a + b up
        bool past = sum >= 32;
        if (clamp && av >= 32) {
            low = 0;
            past = true;
        }
        if (clamp && bv >= 32) past = true;
        if (past) high = 0;
        else if (b1 == 0) high = ~0u;
        d[l] = low & ~high;
    });
}

// 9.7.13 griddepcontrol.wait / launch_dependents (programmatic dependent launch): kernels run one
// after another here, so a grid's prerequisites have always finished when it starts
void exec_griddepcontrol(Exec&) {}

// [SECTION] Specialised forms of the commonest instructions ---------------------------------------

// Most instructions a kernel executes are a few plain forms: integer add and multiply on
// registers, 32-bit setp, f32 arithmetic in the default rounding. select_handlers() gives each
// such instruction, once when the module is prepared, a handler with its type and operation fixed,
// so executing it is one loop over the lanes with no decoding. Each computes exactly what the
// general handler above computes for that form (the semantics suite runs through both).

namespace fast {
// Raw 64-bit register values in, raw value out, as the general handlers store them (32-bit results
// zero-extended).
struct Add32 {
    static std::uint64_t f(std::uint64_t a, std::uint64_t b) { return std::uint32_t(a + b); }
};
struct Add64 {
    static std::uint64_t f(std::uint64_t a, std::uint64_t b) { return a + b; }
};
struct Sub32 {
    static std::uint64_t f(std::uint64_t a, std::uint64_t b) { return std::uint32_t(a - b); }
};
struct Sub64 {
    static std::uint64_t f(std::uint64_t a, std::uint64_t b) { return a - b; }
};
struct Mul32 {
    static std::uint64_t f(std::uint64_t a, std::uint64_t b) {
        return std::uint32_t(std::uint32_t(a) * std::uint32_t(b));
    }
};
struct Mul64 {
    static std::uint64_t f(std::uint64_t a, std::uint64_t b) { return a * b; }
};
struct MulWideS32 {
    static std::uint64_t f(std::uint64_t a, std::uint64_t b) {
        return std::uint64_t(std::int64_t(std::int32_t(a)) * std::int32_t(b));
    }
};
struct MulWideU32 {
    static std::uint64_t f(std::uint64_t a, std::uint64_t b) {
        return std::uint64_t(std::uint32_t(a)) * std::uint32_t(b);
    }
};
struct And {
    static std::uint64_t f(std::uint64_t a, std::uint64_t b) { return a & b; }
};
struct Or {
    static std::uint64_t f(std::uint64_t a, std::uint64_t b) { return a | b; }
};
struct Xor {
    static std::uint64_t f(std::uint64_t a, std::uint64_t b) { return a ^ b; }
};
struct Shl32 {
    static std::uint64_t f(std::uint64_t a, std::uint64_t b) {
        return std::uint32_t(b) >= 32 ? 0 : std::uint32_t(a << std::uint32_t(b));
    }
};
struct Shl64 {
    static std::uint64_t f(std::uint64_t a, std::uint64_t b) {
        return std::uint32_t(b) >= 64 ? 0 : a << std::uint32_t(b);
    }
};
struct Mad32 {
    static std::uint64_t f(std::uint64_t a, std::uint64_t b, std::uint64_t c) {
        return std::uint32_t(std::uint32_t(a) * std::uint32_t(b) + std::uint32_t(c));
    }
};
struct Mad64 {
    static std::uint64_t f(std::uint64_t a, std::uint64_t b, std::uint64_t c) { return a * b + c; }
};
struct MadWideS32 {
    static std::uint64_t f(std::uint64_t a, std::uint64_t b, std::uint64_t c) {
        return MulWideS32::f(a, b) + c;
    }
};
struct MadWideU32 {
    static std::uint64_t f(std::uint64_t a, std::uint64_t b, std::uint64_t c) {
        return MulWideU32::f(a, b) + c;
    }
};

template <class Op> void binary(Exec& x) {
    const Operand* o = x.in->operands;
    std::uint64_t* d = x.reg(o[0].reg);
    const std::uint64_t *a = x.reg(o[1].reg), *b = x.reg(o[2].reg);
    FOR_LANES(x.mask, d[l] = Op::f(a[l], b[l]));
}
template <class Op> void ternary(Exec& x) {
    const Operand* o = x.in->operands;
    std::uint64_t* d = x.reg(o[0].reg);
    const std::uint64_t *a = x.reg(o[1].reg), *b = x.reg(o[2].reg), *c = x.reg(o[3].reg);
    FOR_LANES(x.mask, d[l] = Op::f(a[l], b[l], c[l]));
}
template <std::uint64_t Mask> void mov(Exec& x) {
    std::uint64_t* d = x.reg(x.in->operands[0].reg);
    const std::uint64_t* a = x.reg(x.in->operands[1].reg);
    FOR_LANES(x.mask, d[l] = a[l] & Mask);
}
template <class T, Cmp C> void setp(Exec& x) {
    const Operand* o = x.in->operands;
    setp_lanes<T, C>(x.mask, x.reg(o[0].reg), x.reg(o[1].reg), x.reg(o[2].reg));
}
// ld/st of one unsigned 32- or 64-bit value (f32, u32, b32, f64, ...) at [register + offset] in
// global or generic space: the load_store fast path with the decoding done. When the warp's
// access is not wholly inside one live buffer and aligned, the general handler takes over and
// names the fault.
template <bool Store, int Bytes> void global_access(Exec& x) {
    const Operand& ao = x.in->operands[Store ? 0 : 1];
    const Operand& vo = x.in->operands[Store ? 1 : 0];
    const std::uint64_t* base = x.reg(ao.reg);
    const std::uint64_t offset = std::uint64_t(ao.value);
    // The coalesced pattern first (a full warp over consecutive elements): one pass over the
    // addresses, then the first and last element's place in one buffer decide it.
    constexpr std::uint64_t span = 32 * Bytes;
    if (consecutive_lanes<Bytes>(x.mask, base)) {
        const std::uint64_t first = base[0] + offset;
        Allocation* a = first >= global_base && first <= ~0ull - span
                            ? find_buffer(x, first, first + span)
                            : nullptr;
        if (a && !a->freed && a->size >= span && first >= a->base &&
            first - a->base <= a->size - span && ((first - a->base) & (Bytes - 1)) == 0) {
            record_lanes(x, MemSpace::global, Store ? MemOp::store : MemOp::load, base, offset,
                         Bytes);
            if (Store) record_writers(x, a, x.mask, base, offset, Bytes);
            global_races(x, a, x.mask, base, offset, Bytes,
                         Store ? GlobalUse::write : GlobalUse::read);
            move_block<Store, Bytes>(a->bytes() + (first - a->base), x.reg(vo.reg));
            return;
        }
    }
    Allocation* a = warp_buffer(x, x.mask, base, offset, Bytes);
    if (!a) return load_store<Store>(x);
    record_lanes(x, MemSpace::global, Store ? MemOp::store : MemOp::load, base, offset, Bytes);
    if (Store) record_writers(x, a, x.mask, base, offset, Bytes);
    global_races(x, a, x.mask, base, offset, Bytes, Store ? GlobalUse::write : GlobalUse::read);
    move_lanes<Store, Bytes>(x.mask, a->bytes(), offset - a->base, base, x.reg(vo.reg));
}

// The same in shared memory, with the race detector's per-lane bookkeeping.
template <bool Store, int Bytes> void shared_access(Exec& x) {
    const Operand& ao = x.in->operands[Store ? 0 : 1];
    const Operand& vo = x.in->operands[Store ? 1 : 0];
    const std::uint64_t* base = x.reg(ao.reg);
    const std::uint64_t offset = std::uint64_t(ao.value);
    if (x.mask == 0xffffffffu) {
        // The two patterns of tiled kernels, found in one pass over the addresses: a full warp
        // over consecutive elements (a tile's row), or every lane at one element (a broadcast
        // load, As[ty][k]). Each lies inside shared memory when its first and last element do.
        std::uint64_t consecutive = 0, same = 0;
        for (int l = 0; l < 32; ++l) {
            consecutive |= base[l] ^ (base[0] + std::uint64_t(l) * Bytes);
            same |= base[l] ^ base[0];
        }
        const std::uint64_t first = base[0] + offset, extent = x.block.shared.size();
        const std::uint64_t span = consecutive == 0 ? 32 * Bytes : Bytes;
        if ((consecutive == 0 || (!Store && same == 0)) && (first & (Bytes - 1)) == 0 &&
            first <= extent && span <= extent - first) {
            record_lanes(x, MemSpace::shared, Store ? MemOp::store : MemOp::load, base, offset,
                         Bytes);
            if (x.launch.detect_races) {
                FOR_LANES(x.mask, shared_shadow(x, std::uint32_t(base[l] + offset), Bytes,
                                                Store ? SharedUse::write : SharedUse::read, l));
            }
            std::uint8_t* p = x.block.shared.data() + first;
            std::uint64_t* v = x.reg(vo.reg);
            if (consecutive == 0) {
                move_block<Store, Bytes>(p, v);
            } else {  // (a load: a broadcast store is left to the general loop, lane 31 last)
                std::conditional_t<Bytes == 4, std::uint32_t, std::uint64_t> w;
                std::memcpy(&w, p, Bytes);
                for (int l = 0; l < 32; ++l) v[l] = w;
            }
            return;
        }
    }
    if (x.mask == 0 || !lanes_inside(x.mask, base, offset, x.block.shared.size(), Bytes))
        return load_store<Store>(x);
    record_lanes(x, MemSpace::shared, Store ? MemOp::store : MemOp::load, base, offset, Bytes);
    if (x.launch.detect_races) {
        FOR_LANES(x.mask, shared_shadow(x, std::uint32_t(base[l] + offset), Bytes,
                                        Store ? SharedUse::write : SharedUse::read, l));
    }
    move_lanes<Store, Bytes>(x.mask, x.block.shared.data(), offset, base, x.reg(vo.reg));
}

// ld.param of a kernel parameter into one register: the usual first instructions of a kernel.
// Every lane gets the same value, read once from the launch's parameter buffer; anything else
// (no active lane, an offset outside the buffer) is the general handler's.
template <int Bytes, bool Sign> void param_load(Exec& x) {
    const Operand& ao = x.in->operands[1];
    const std::uint64_t off =
        std::uint64_t(x.fn->fn.params[std::size_t(ao.symbol)].offset) + std::uint64_t(ao.value);
    const std::size_t size = x.launch.params.size();
    if (x.mask == 0 || off > size || Bytes > size - off) return load_store<false>(x);
    const std::uint64_t v = read_value(x.launch.params.data() + off, Bytes, Sign);
    std::uint64_t* d = x.reg(x.in->operands[0].reg);
    FOR_LANES(x.mask, d[l] = v);
}

// fma.rn.f32 / mad.rn.f32 on registers.
void fma32(Exec& x) {
    const Operand* o = x.in->operands;
    std::uint64_t* d = x.reg(o[0].reg);
    const std::uint64_t *a = x.reg(o[1].reg), *b = x.reg(o[2].reg), *c = x.reg(o[3].reg);
    lanes::fma_f32(d, a, b, c, x.mask);
}

// f32 add, sub, mul on registers, default rounding: the vectorised loops of float_lanes.cpp.
template <void (*Lanes)(std::uint64_t*, const std::uint64_t*, const std::uint64_t*, std::uint32_t)>
void f32_binary(Exec& x) {
    const Operand* o = x.in->operands;
    Lanes(x.reg(o[0].reg), x.reg(o[1].reg), x.reg(o[2].reg), x.mask);
}

}  // namespace fast

// The specialised handler for an instruction, or null for the general one.
Handler specialised_handler(const Instruction& in, bool in_kernel) {
    auto plain = [&](int i) {
        return in.operands[i].kind == OperandKind::reg && !in.operands[i].negate &&
               in.operands[i].reg >= 0;
    };
    const int n = in.operand_count;
    if (in.op == Opcode::ld && in.space == Space::param && in_kernel && n == 2 && in.vector == 1 &&
        plain(0) && in.operands[1].kind == OperandKind::address && in.operands[1].reg < 0 &&
        in.operands[1].symbol >= 0 && in.operands[1].scope == Operand::param_scope) {
        const bool sign = ptx::type_is_signed(in.type);
        switch (std::max(1, ptx::type_bits(in.type) / 8)) {
        case 1: return sign ? &fast::param_load<1, true> : &fast::param_load<1, false>;
        case 2: return sign ? &fast::param_load<2, true> : &fast::param_load<2, false>;
        case 4: return sign ? &fast::param_load<4, true> : &fast::param_load<4, false>;
        case 8: return &fast::param_load<8, false>;  // (read_value does not extend 8 bytes)
        default: return nullptr;
        }
    }
    // cvta between global and generic addresses, which are the same (exec_cvta).
    if (in.op == Opcode::cvta && in.space == Space::global && n == 2 &&
        ptx::type_bits(in.type) == 64 && plain(0) && plain(1))
        return &fast::mov<~0ull>;
    if ((in.op == Opcode::ld || in.op == Opcode::st) && n == 2 && in.vector == 1 &&
        (in.space == Space::global || in.space == Space::generic || in.space == Space::shared) &&
        !(in.flags & ptx::f_cluster) &&  // another block's shared memory: load_store resolves it
        !ptx::type_is_signed(in.type) &&
        (ptx::type_bits(in.type) == 32 || ptx::type_bits(in.type) == 64)) {
        const bool store = in.op == Opcode::st, wide = ptx::type_bits(in.type) == 64;
        const Operand& address = in.operands[store ? 0 : 1];
        if (address.kind != OperandKind::address || address.reg < 0 || address.symbol >= 0 ||
            !plain(store ? 1 : 0))
            return nullptr;
        if (in.space == Space::shared)
            return store ? (wide ? &fast::shared_access<true, 8> : &fast::shared_access<true, 4>)
                         : (wide ? &fast::shared_access<false, 8> : &fast::shared_access<false, 4>);
        return store ? (wide ? &fast::global_access<true, 8> : &fast::global_access<true, 4>)
                     : (wide ? &fast::global_access<false, 8> : &fast::global_access<false, 4>);
    }
    for (int i = 0; i < n; ++i)
        if (!plain(i)) return nullptr;
    const int bits = ptx::type_bits(in.type);
    const bool integer = !ptx::type_is_float(in.type) && in.type != Type::pred &&
                         !is_simd16(in.type) && (bits == 32 || bits == 64);
    const bool wide = in.flags & ptx::f_wide, lo_or_plain = !(in.flags & (ptx::f_hi | ptx::f_wide));
    const std::uint32_t other_flags = in.flags & ~(ptx::f_wide | ptx::f_lo);
    const bool f32_plain = in.type == Type::f32 && in.flags == 0 &&
                           (in.rounding == Rounding::none || in.rounding == Rounding::rn);
    switch (in.op) {
    case Opcode::add:
    case Opcode::sub:
        if (n != 3) return nullptr;
        if (integer && in.flags == 0)
            return in.op == Opcode::add
                       ? (bits == 32 ? &fast::binary<fast::Add32> : &fast::binary<fast::Add64>)
                       : (bits == 32 ? &fast::binary<fast::Sub32> : &fast::binary<fast::Sub64>);
        if (f32_plain)
            return in.op == Opcode::add ? &fast::f32_binary<lanes::add_f32>
                                        : &fast::f32_binary<lanes::sub_f32>;
        return nullptr;
    case Opcode::mul:
        if (n != 3) return nullptr;
        if (integer && other_flags == 0 && lo_or_plain)
            return bits == 32 ? &fast::binary<fast::Mul32> : &fast::binary<fast::Mul64>;
        if (integer && other_flags == 0 && wide && bits == 32)
            return ptx::type_is_signed(in.type) ? &fast::binary<fast::MulWideS32>
                                                : &fast::binary<fast::MulWideU32>;
        if (f32_plain) return &fast::f32_binary<lanes::mul_f32>;
        return nullptr;
    case Opcode::fma: return n == 4 && f32_plain ? &fast::fma32 : nullptr;
    case Opcode::mad:
        if (n == 4 && f32_plain) return &fast::fma32;  // mad.f32 is fused (9.7.3.5)
        if (n != 4 || !integer || other_flags != 0) return nullptr;
        if (lo_or_plain)
            return bits == 32 ? &fast::ternary<fast::Mad32> : &fast::ternary<fast::Mad64>;
        if (wide && bits == 32)
            return ptx::type_is_signed(in.type) ? &fast::ternary<fast::MadWideS32>
                                                : &fast::ternary<fast::MadWideU32>;
        return nullptr;
    case Opcode::and_:
    case Opcode::or_:
    case Opcode::xor_:
        // b32 values are stored zero-extended, so the general handler's width mask changes nothing.
        if (n != 3 || !integer || in.flags != 0) return nullptr;
        return in.op == Opcode::and_  ? &fast::binary<fast::And>
               : in.op == Opcode::or_ ? &fast::binary<fast::Or>
                                      : &fast::binary<fast::Xor>;
    case Opcode::shl:
        if (n != 3 || !integer || in.flags != 0) return nullptr;
        return bits == 32 ? &fast::binary<fast::Shl32> : &fast::binary<fast::Shl64>;
    case Opcode::mov:
        if (n != 2 || in.type == Type::pred || (bits != 32 && bits != 64)) return nullptr;
        return bits == 32 ? &fast::mov<0xffffffffull> : &fast::mov<~0ull>;
    case Opcode::setp:
        if (n != 3 || in.bool_op != SubOp::none || in.flags != 0) return nullptr;
        {
            Handler h = nullptr;
            with_setp_form(in.type, in.cmp, [&](auto value, auto form) {
                h = &fast::setp<decltype(value), decltype(form)::value>;
            });
            return h;
        }
    default: return nullptr;
    }
}

// [SECTION] Dispatch ------------------------------------------------------------------------------

constexpr Handler handlers[] = {
#define PTX_OP(id, mnemonic, cls, section) &exec_##id,
#include "ptx/opcodes.def"
#undef PTX_OP
};
static_assert(sizeof(handlers) / sizeof(handlers[0]) == ptx::opcode_count,
              "one handler per opcode");

}  // namespace

void start_warp(LaunchState& launch, Block& block, Warp& warp) {
    (void)block;
    const PreparedFunction& kernel = launch.program.functions[std::size_t(launch.kernel)];
    warp.frames.resize(1);  // frame 0 keeps its register storage from the warp's last use
    Frame& f = warp.frames[0];
    f.function = launch.kernel;
    f.call_pc = -1;
    f.caller_mask = 0;
    f.local_base = 0;
    if (!(warp.local_empty && kernel.frame_bytes == 0)) {
        for (int l = 0; l < 32; ++l) {
            auto& local = warp.local[std::size_t(l)];
            if (!(warp.lanes >> l & 1)) local.clear();
            else if (local.size() != kernel.frame_bytes) local.assign(kernel.frame_bytes, 0);
            else if (!local.empty())
                std::memset(local.data(), 0, local.size());  // (no call for an empty frame)
        }
        warp.local_empty = kernel.frame_bytes == 0;
    }
    warp.registers_ready = false;  // filled by prepare_registers when the warp first runs
    warp.stack.clear();
    warp.stack.push_back({0, std::int32_t(kernel.fn.code.size()) + 1, warp.lanes, 0});
    warp.live = warp.lanes;
}

namespace {

// Fills frame 0's registers for the warp's first instruction in this block. Done when the warp
// first runs rather than when the block starts: a block's warps' registers together outgrow the
// host's first-level cache (8 warps of SAXPY: 55 KB), so filling them all up front left each
// warp to fetch its registers back from the next level. For the same reason a warp takes over the
// register storage of the warp that set up last when that one no longer uses it (it finished, or
// has not started): in a block whose warps run one after another, one register file stays in
// the cache.
void prepare_registers(LaunchState& launch, Block& block, Warp& warp) {
    const PreparedFunction& kernel = launch.program.functions[std::size_t(launch.kernel)];
    Frame& f = warp.frames[0];
    const std::int32_t hot = block.hot_warp;
    if (hot >= 0 && std::uint32_t(hot) != warp.id && std::size_t(hot) < block.warps.size()) {
        Warp& other = block.warps[std::size_t(hot)];
        if ((other.done() || !other.registers_ready) && !other.frames.empty()) {
            Frame& o = other.frames[0];
            std::swap(f.regs, o.regs);
            std::swap(f.prepared_launch, o.prepared_launch);
            std::swap(f.prepared_warp, o.prepared_warp);
        }
    }
    block.hot_warp = std::int32_t(warp.id);
    warp.registers_ready = true;
    const std::size_t reg_words = std::size_t(kernel.register_count) * 32;
    // (A partial warp is set up afresh: its missing lanes never write their registers, and a
    // shuffle that reads them should see what it saw before, not another block's leftovers.)
    if (f.prepared_launch == launch.serial && f.regs.size() == reg_words &&
        !kernel.zero_all_registers && warp.lanes == 0xffffffffu) {
        // Registers of this launch's kernel, set up for a warp of an earlier block or another
        // warp of this one: constants and the specials that depend on neither still hold (nothing
        // writes them). Clear only the registers a path may read before writing, and refill
        // %ctaid (and %tid when the storage was another warp's).
        for (std::int32_t r : kernel.zero_registers)
            std::fill_n(f.regs.data() + std::size_t(r) * 32, 32, 0);
        for (auto& [r, s] : kernel.block_specials)
            fill_lane_special(launch, block, warp, s, f.regs.data() + std::size_t(r) * 32);
        if (f.prepared_warp != warp.id) {
            for (auto& [r, s] : kernel.warp_specials)
                fill_lane_special(launch, block, warp, s, f.regs.data() + std::size_t(r) * 32);
            f.prepared_warp = warp.id;
        }
    } else {
        f.regs.assign(reg_words, 0);
        for (auto& [r, v] : kernel.constants)
            for (int l = 0; l < 32; ++l) f.regs[std::size_t(r) * 32 + std::size_t(l)] = v;
        for (auto& [r, s] : kernel.lane_specials)
            fill_lane_special(launch, block, warp, s, f.regs.data() + std::size_t(r) * 32);
        for (const auto& c : kernel.launch_constants) {
            const std::uint64_t v = read_value(launch.params.data() + c.offset, c.bytes, c.sign);
            std::fill_n(f.regs.data() + std::size_t(c.reg) * 32, 32, v);
        }
        f.prepared_launch = launch.serial;
        f.prepared_warp = warp.id;
    }
}

}  // namespace

// Bit l set when lane l's predicate register holds 1.
inline std::uint32_t predicate_bits(const std::uint64_t* p) {
    std::uint32_t bits = 0;
#if defined(__SSE2__)
    for (int l = 0; l < 32; l += 2) {  // bit 0 of two lanes into the sign bits, then movemask
        const __m128i v =
            _mm_slli_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + l)), 63);
        bits |= std::uint32_t(_mm_movemask_pd(_mm_castsi128_pd(v))) << l;
    }
#else
    for (int l = 0; l < 32; ++l) bits |= std::uint32_t(p[l] & 1) << l;
#endif
    return bits;
}

// Instructions that set the pc themselves (and may change the SIMT stack and the frames).
constexpr auto is_control = [] {
    std::array<bool, ptx::opcode_count> c{};
    c[int(Opcode::bra)] = c[int(Opcode::exit)] = c[int(Opcode::ret)] = c[int(Opcode::call)] = true;
    return c;
}();

// A traced instruction: its per-pc counters, and for detail blocks its event.
void record_instruction(Exec& x) {
    Block& block = x.block;
    if (block.counters) {
        PcCounters& c = (*block.counters)[x.gpc];
        c.warp_executions += 1;
        c.active_lanes += std::uint64_t(std::popcount(x.active));
        c.predicated_lanes += std::uint64_t(std::popcount(x.mask));
    }
    if (block.detail) {
        WarpEvent e;
        e.seq = block.seq++;
        e.block = block.linear;
        e.warp = std::uint16_t(x.warp.id);
        e.sm = block.sm;
        e.pc = x.gpc;
        e.active = x.active;
        e.predicated_on = x.mask;
        block.events.push_back(e);
    }
}

void exec_folded(Exec&) {}

void select_handlers(PreparedFunction& pf, bool specialise) {
    pf.handlers.resize(pf.fn.code.size());
    for (std::size_t i = 0; i < pf.fn.code.size(); ++i) {
        const Instruction& in = pf.fn.code[i];
        Handler h = specialise ? specialised_handler(in, pf.fn.is_entry) : nullptr;
        pf.handlers[i] = h ? h : handlers[int(in.op)];
    }
}

// Instructions where the lanes of a warp synchronise: a path running under independent thread
// scheduling waits at these for the other path of its branch.
constexpr auto is_sync = [] {
    std::array<bool, ptx::opcode_count> c{};
    for (Opcode op : {Opcode::bar, Opcode::barrier, Opcode::bar_warp, Opcode::vote, Opcode::match,
                      Opcode::redux, Opcode::shfl})
        c[int(op)] = true;
    return c;
}();

// Independent thread scheduling: whether the running path hands over to another path before its
// next instruction (its turn is over, or it reached a synchronising instruction while another
// path has not), and the hand-over. The paths form a tree: a branch's two paths, each with what
// it pushed since, lie above the entry that split, one range after the other, the running one on
// top. Handing over swaps the running path's range with its sibling's at the innermost split
// where the sibling can still run, so a path nested in one branch can wait for a lane of the
// enclosing branch's other path. (Ranges that hold a call's entries are not moved: frames are
// the warp's, one per call depth.) Returns true after a hand-over.
bool switch_path(LaunchState& launch, Warp& warp) {
    auto& stack = warp.stack;
    const std::int32_t size = std::int32_t(stack.size());
    SimtEntry& top = stack.back();
    const PreparedFunction& fn =
        launch.program.functions[std::size_t(warp.frames[top.frame].function)];
    const bool at_sync = top.pc < std::int32_t(fn.fn.code.size()) &&
                         is_sync[int(fn.fn.code[std::size_t(top.pc)].op)];
    if (at_sync && top.wait == 2) {  // released: every path got to a synchronising instruction
        top.wait = 0;
        return false;
    }
    if (!at_sync && warp.turn > 0) return false;
    // The innermost split with a sibling range that can run: [first, second) is the sibling's,
    // [second, size) the running path's.
    std::int32_t first = -1, second = -1;
    bool any_waiting_elsewhere = false;
    for (std::int32_t child = size - 1; child >= 0 && stack[std::size_t(child)].path;) {
        const std::int32_t parent = stack[std::size_t(child)].parent;
        // The running path's range starts at `child`; its sibling's root is the other entry
        // whose parent is `parent` (pushed first, so lower).
        std::int32_t sibling = -1;
        for (std::int32_t j = parent + 1; j < child; ++j)
            if (stack[std::size_t(j)].parent == parent) {
                sibling = j;
                break;
            }
        bool same_frame = true;
        for (std::int32_t j = parent + 1; j < size && same_frame; ++j)
            same_frame = stack[std::size_t(j)].frame == top.frame;
        if (!same_frame) break;
        if (sibling >= 0) {
            // the top of the sibling's range
            const SimtEntry& runs = stack[std::size_t(child - 1)];
            if (runs.mask != 0 && runs.pc != runs.reconverge) {
                if (runs.wait != 1) {
                    first = sibling;
                    second = child;
                    break;
                }
                any_waiting_elsewhere = true;
            }
        }
        if (parent < 0) break;
        child = parent;
    }
    if (at_sync) {
        if (first < 0) {
            // Every other path waits at a synchronising instruction too (or none is left): this
            // one goes first, and each of the others runs its own when its turn comes.
            if (any_waiting_elsewhere)
                for (SimtEntry& e : stack)
                    if (e.wait == 1) e.wait = 2;
            top.wait = 0;
            return false;
        }
        top.wait = 1;
    } else if (first < 0) {
        warp.turn = 1 + int(next_random(warp) % 8);  // nothing else can run: another turn
        return false;
    }
    // Swap the ranges [first, second) and [second, size), keeping every parent index right.
    const std::int32_t moved_up = second - first, moved_down = size - second;
    for (std::int32_t j = first; j < second; ++j)
        if (stack[std::size_t(j)].parent >= first) stack[std::size_t(j)].parent += moved_down;
    for (std::int32_t j = second; j < size; ++j)
        if (stack[std::size_t(j)].parent >= second) stack[std::size_t(j)].parent -= moved_up;
    std::rotate(stack.begin() + first, stack.begin() + second, stack.end());
    warp.turn = 1 + int(next_random(warp) % 8);
    return true;
}

StepResult run_warp(LaunchState& launch, Block& block, Warp& warp, BlockOutput& out, int quantum) {
    int executed = 0;
    if (!warp.registers_ready) prepare_registers(launch, block, warp);
    while (executed < quantum) {
        pop_finished(warp);
        if (warp.stack.empty()) return StepResult::done;
        if (launch.independent_scheduling && warp.stack.back().path && switch_path(launch, warp))
            continue;
        SimtEntry* top = &warp.stack.back();
        // Under independent thread scheduling a path of a divergent branch runs its turn, then the
        // other path may run (switch_path); a synchronising instruction is looked at there first.
        const bool taking_turns = launch.independent_scheduling && top->path;
        Frame& frame = warp.frames[top->frame];
        const PreparedFunction& fn = launch.program.functions[std::size_t(frame.function)];
        const Instruction* code = fn.fn.code.data();
        const std::int32_t code_size = std::int32_t(fn.fn.code.size());
        if (top->pc >= code_size) {
            // Fell off the end of a function: treat as ret (NVRTC always emits ret; hand-written
            // PTX may not).
            top->mask = 0;
            continue;
        }
        const std::size_t depth = warp.stack.size();
        Exec x(launch, block, warp, out, &frame, &fn, nullptr, 0, top->mask, 0, block.detail);
        // Counted per block and added to the launch's totals by the block runner, not per
        // instruction: shared atomic counters bounced a cache line between the worker threads.
        // (The tally is added on every way out, a fault's exception included.)
        struct Tally {
            Block& block;
            std::uint64_t warps = 0, threads = 0;
            ~Tally() {
                block.warp_instructions += warps;
                block.thread_instructions += threads;
            }
        } tally{block};
        const bool recording = block.counters || block.detail;
        const std::int32_t reconverge = top->reconverge;
        std::int32_t pc = top->pc;
        // Straight-line code under one SIMT entry runs without re-reading the warp's stack and
        // frame: until a control instruction, a barrier, the entry's reconvergence point or the
        // end of the quantum.
        while (pc != reconverge && pc < code_size) {
            const Instruction& in = code[pc];
            const std::uint32_t gpc = fn.pc_base + std::uint32_t(pc);
            x.in = &in;
            x.pc = std::uint32_t(pc);
            x.gpc = gpc;
            x.active = x.mask = top->mask;
            if (in.guard >= 0) {
                // Every lane's predicate bit, then the active ones: no per-lane branch. (Inactive
                // lanes' registers hold stale but harmless values.)
                const std::uint32_t bits = predicate_bits(x.reg(in.guard));
                x.mask = (in.guard_negated ? ~bits : bits) & top->mask;
            }
            warp.instructions += 1;  // before the handler: %clock reads it
            tally.warps += 1;
            tally.threads += std::uint64_t(std::popcount(x.mask));
            if (recording) record_instruction(x);
            const Opcode op = in.op;
            fn.handlers[std::size_t(pc)](x);
            ++executed;
            // Control instructions set the pc themselves and may change the stack and frames; a
            // branch the whole entry takes (or none of it) only moves the pc, and the run goes on.
            if (is_control[int(op)]) {
                if (op != Opcode::bra || warp.stack.size() != depth || executed >= quantum) break;
                pc = top->pc;
                if (taking_turns &&
                    (--warp.turn <= 0 || (pc < code_size && is_sync[int(code[pc].op)])))
                    break;
                continue;
            }
            if (warp.stack.size() != depth) {
                warp.stack.back().pc = std::int32_t(x.pc) + 1;
                break;
            }
            pc = std::int32_t(x.pc) + 1;
            top->pc = pc;
            if (warp.waiting || executed >= quantum) break;
            if (taking_turns && (--warp.turn <= 0 || (pc < code_size && is_sync[int(code[pc].op)])))
                break;
        }
        if (warp.waiting) {
            pop_finished(warp);
            return StepResult::blocked;
        }
    }
    pop_finished(warp);
    if (warp.waiting) return StepResult::blocked;
    return warp.stack.empty() ? StepResult::done : StepResult::ok;
}

// Sorts a footprint and merges the spans of one kind that touch or overlap.
void compact_footprint(std::vector<MemorySpan>& f) {
    std::sort(f.begin(), f.end(), [](const MemorySpan& a, const MemorySpan& b) {
        return a.write != b.write ? a.write < b.write : a.lo < b.lo;
    });
    std::size_t out = 0;
    for (std::size_t i = 0; i < f.size(); ++i) {
        if (out && f[out - 1].write == f[i].write && f[i].lo <= f[out - 1].hi)
            f[out - 1].hi = std::max(f[out - 1].hi, f[i].hi);
        else f[out++] = f[i];
    }
    f.resize(out);
}

}  // namespace cudalab::emu
