// The emulator's outer layers: preparing a parsed module for execution, scheduling blocks over
// worker threads and warps within a block, barriers, the instruction budget, and turning faults
// into messages a learner can act on.
//
// [SECTION] Preparing a module
// [SECTION] Running a block
// [SECTION] Launch
// [SECTION] Fault messages

#include "emulator/emulator.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <unordered_map>

#include "base/hardware.h"
#include "compiler/compiler.h"
#include "emulator/cluster.h"
#include "emulator/execute.h"
#include "emulator/worker_pool.h"
#include "ptx/cfg.h"
#include "ptx/parser.h"

namespace cudalab::emu {

using ptx::Instruction;
using ptx::Opcode;
using ptx::Operand;
using ptx::OperandKind;
using ptx::Space;

namespace {

// [SECTION] Preparing a module --------------------------------------------------------------------

std::uint64_t align_up(std::uint64_t v, std::uint64_t a) { return a ? (v + a - 1) / a * a : v; }
std::uint32_t add_saturating(std::uint32_t a, std::uint64_t b) {
    return std::uint32_t(std::min<std::uint64_t>(a + b, 0xffffffffu));
}

bool is_lane_constant(ptx::Special s) {
    using ptx::Special;
    switch (s) {
    case Special::smid:
    case Special::nsmid:
    case Special::warpid:
    case Special::nwarpid:
    case Special::gridid:
    case Special::clock:
    case Special::clock64:
    case Special::globaltimer:
    case Special::globaltimer_lo:
    case Special::globaltimer_hi:
    case Special::dynamic_smem_size:
    case Special::total_smem_size:
    case Special::envreg0:
    case Special::envreg1:
    case Special::envreg2:
    case Special::reserved_smem_begin:
    case Special::reserved_smem_end:
    case Special::reserved_smem_cap:
    case Special::reserved_smem_0:
    case Special::reserved_smem_1: return false;
    default: return true;
    }
}

// Lays out a function's frame and shared symbols and turns immediates, constant symbol addresses
// and per-lane special registers into registers filled once per warp, so that the execute loop
// reads every operand the same way.
// `place_shared` gives each of the function's own (non-extern) shared symbols its offset.
void prepare_function(Program& program, PreparedFunction& pf,
                      const std::function<std::uint32_t(const ptx::Symbol&)>& place_shared) {
    ptx::Function& fn = pf.fn;
    pf.register_count = std::uint32_t(fn.register_names.size());
    std::uint64_t frame = 0;
    pf.local_offsets.resize(fn.locals.size());
    for (std::size_t i = 0; i < fn.locals.size(); ++i) {
        const ptx::Symbol& s = fn.locals[i];
        if (s.space == Space::shared) {
            if (s.is_extern) {
                pf.local_offsets[i] = 0;
                continue;
            }
            pf.local_offsets[i] = place_shared(s);
        } else if (s.space == Space::global || s.space == Space::constant) {
            pf.local_offsets[i] = 0;  // function-scope .global/.const: not emitted by NVRTC
        } else {
            frame = align_up(frame, std::max<std::uint32_t>(s.align, 1));
            pf.local_offsets[i] = frame;
            frame += std::max<std::uint64_t>(s.size, 1);
        }
    }
    for (const ptx::Param& p : fn.params) {
        // A kernel's parameters live in the launch's parameter buffer (kernel_param_base), not in
        // the frame: giving them frame space too only cost clearing it in every thread.
        if (fn.is_entry) {
            pf.param_offsets.push_back(0);
            continue;
        }
        frame = align_up(frame, std::max<std::uint32_t>(p.align, 1));
        pf.param_offsets.push_back(std::uint32_t(frame));
        frame += p.size;
    }
    for (const ptx::Param& p : fn.returns) {
        frame = align_up(frame, std::max<std::uint32_t>(p.align, 1));
        pf.return_offsets.push_back(std::uint32_t(frame));
        frame += p.size;
    }
    pf.frame_bytes = std::uint32_t(std::min<std::uint64_t>(align_up(frame, 16), 0xffffffffu));

    std::map<std::uint64_t, std::int32_t> constant_regs;
    std::map<ptx::Special, std::int32_t> special_regs;
    auto constant = [&](std::uint64_t v) {
        auto it = constant_regs.find(v);
        if (it != constant_regs.end()) return it->second;
        std::int32_t r = std::int32_t(pf.register_count++);
        constant_regs[v] = r;
        pf.constants.push_back({r, v});
        return r;
    };
    for (Instruction& in : fn.code) {
        if (in.op == Opcode::call || in.op == Opcode::bra) continue;
        if (in.op == Opcode::atom || in.op == Opcode::red)
            if (in.space == Space::global || in.space == Space::generic)
                program.uses_global_atomics = true;
        if (in.op == Opcode::sured) program.uses_global_atomics = true;  // atomics on a surface
        for (int i = 0; i < in.operand_count; ++i) {
            Operand& o = in.operands[i];
            if (o.kind == OperandKind::imm) {
                std::uint64_t v = std::uint64_t(o.value);
                if (o.negate) v = !v;
                o = Operand{};
                o.kind = OperandKind::reg;
                o.reg = constant(v);
            } else if (o.kind == OperandKind::symbol && o.scope == Operand::module_scope &&
                       !program.dynamic_shared[std::size_t(o.symbol)]) {
                std::uint64_t v =
                    program.global_addresses[std::size_t(o.symbol)] + std::uint64_t(o.value);
                o = Operand{};
                o.kind = OperandKind::reg;
                o.reg = constant(v);
            } else if (o.kind == OperandKind::symbol && o.scope == Operand::code_scope) {
                std::uint64_t v = function_window + 16 * std::uint64_t(o.symbol);
                o = Operand{};
                o.kind = OperandKind::reg;
                o.reg = constant(v);
            } else if (o.kind == OperandKind::symbol && o.scope == Operand::function_scope &&
                       fn.locals[std::size_t(o.symbol)].space == Space::shared &&
                       !fn.locals[std::size_t(o.symbol)].is_extern) {
                std::uint64_t v = pf.local_offsets[std::size_t(o.symbol)] + std::uint64_t(o.value);
                o = Operand{};
                o.kind = OperandKind::reg;
                o.reg = constant(v);
            } else if (o.kind == OperandKind::special &&
                       o.special >= ptx::Special::reserved_smem_begin &&
                       o.special <= ptx::Special::reserved_smem_1) {
                program.uses_reserved_shared = true;
            } else if (o.kind == OperandKind::special && is_lane_constant(o.special)) {
                auto it = special_regs.find(o.special);
                std::int32_t r;
                if (it != special_regs.end()) r = it->second;
                else {
                    r = std::int32_t(pf.register_count++);
                    special_regs[o.special] = r;
                    pf.lane_specials.push_back({r, o.special});
                }
                o = Operand{};
                o.kind = OperandKind::reg;
                o.reg = r;
            }
        }
    }
}

// Whether an instruction's operand 0 is a destination its handler writes in full for every lane
// that executes it. Only these count as writes for the analysis below: treating an unknown
// instruction's destination as a read keeps a register zeroed, which is always safe.
bool writes_operand0(Opcode op) {
    switch (op) {
    case Opcode::mov:
    case Opcode::ld:
    case Opcode::ldu:
    case Opcode::cvta:
    case Opcode::cvt:
    case Opcode::add:
    case Opcode::sub:
    case Opcode::mul:
    case Opcode::mad:
    case Opcode::fma:
    case Opcode::div:
    case Opcode::rem:
    case Opcode::and_:
    case Opcode::or_:
    case Opcode::xor_:
    case Opcode::not_:
    case Opcode::shl:
    case Opcode::shr:
    case Opcode::setp:
    case Opcode::selp:
    case Opcode::min:
    case Opcode::max:
    case Opcode::neg:
    case Opcode::abs:
    case Opcode::rcp:
    case Opcode::sqrt:
    case Opcode::mul24:
    case Opcode::mad24:
    case Opcode::popc:
    case Opcode::clz:
    case Opcode::brev:
    case Opcode::bfe: return true;
    default: return false;
    }
}

// Which declared registers of a function some path may read before writing: a must-be-written
// dataflow over the instructions (a register is written on entry to pc when it is written on every
// path from the function's start). Those, and every shuffle source (a lane may read a lane that
// never wrote it), are zeroed when a warp's register file is reused; the others need not be, which
// saves clearing a few KB per warp of every block.
void find_zero_registers(PreparedFunction& pf) {
    const auto& code = pf.fn.code;
    const std::size_t n = code.size();
    const std::size_t declared = pf.fn.register_names.size();
    const std::size_t words = (declared + 63) / 64;
    pf.zero_registers.clear();
    pf.zero_all_registers = true;
    if (n == 0 || words == 0) {
        pf.zero_all_registers = false;
        return;
    }
    if (n * words > (std::size_t(1) << 22)) return;  // a huge function: clear everything, as before
    for (const Instruction& in : code)
        if (in.op == Opcode::brx) return;
    std::vector<std::vector<std::uint32_t>> preds(n);
    auto edge = [&](std::size_t from, std::int64_t to) {
        if (to >= 0 && std::size_t(to) < n) preds[std::size_t(to)].push_back(std::uint32_t(from));
    };
    for (std::size_t pc = 0; pc < n; ++pc) {
        const Instruction& in = code[pc];
        const bool guarded = in.guard >= 0;
        if (in.op == Opcode::bra) {
            edge(pc, in.target);
            if (guarded) edge(pc, std::int64_t(pc) + 1);
        } else if (in.op == Opcode::exit || in.op == Opcode::ret || in.op == Opcode::trap) {
            if (guarded) edge(pc, std::int64_t(pc) + 1);
        } else {
            edge(pc, std::int64_t(pc) + 1);
        }
    }
    auto is_declared = [&](std::int32_t r) { return r >= 0 && std::size_t(r) < declared; };
    std::vector<std::uint64_t> defs(n * words, 0);
    for (std::size_t pc = 0; pc < n; ++pc) {
        const Instruction& in = code[pc];
        if (in.guard >= 0 || in.operand_count == 0 || !writes_operand0(in.op)) continue;
        const Operand& d = in.operands[0];
        auto set = [&](std::int32_t r) {
            if (is_declared(r)) defs[pc * words + std::size_t(r) / 64] |= 1ull << (r % 64);
        };
        if (d.kind == OperandKind::reg) set(d.reg);
        else if (d.kind == OperandKind::vector &&
                 (in.op == Opcode::mov || in.op == Opcode::ld || in.op == Opcode::ldu))
            for (int k = 0; k < d.vec_count && k < ptx::max_vector_registers; ++k) set(d.vec[k]);
    }
    // in[pc]: written on every path to pc. Start from "everything" (pc 0 from nothing) and narrow.
    std::vector<std::uint64_t> in_sets(n * words, ~0ull);
    std::fill(in_sets.begin(), in_sets.begin() + std::ptrdiff_t(words), 0ull);
    std::vector<std::uint64_t> meet(words);
    for (bool changed = true; changed;) {
        changed = false;
        for (std::size_t pc = 1; pc < n; ++pc) {
            if (preds[pc].empty()) continue;  // unreachable: never runs
            std::fill(meet.begin(), meet.end(), ~0ull);
            for (std::uint32_t p : preds[pc])
                for (std::size_t w = 0; w < words; ++w)
                    meet[w] &= in_sets[p * words + w] | defs[p * words + w];
            for (std::size_t w = 0; w < words; ++w) {
                if (in_sets[pc * words + w] == meet[w]) continue;
                in_sets[pc * words + w] = meet[w];
                changed = true;
            }
        }
    }
    std::vector<bool> zero(declared, false);
    for (std::size_t pc = 0; pc < n; ++pc) {
        if (pc > 0 && preds[pc].empty()) continue;
        const Instruction& in = code[pc];
        const bool def0 = in.guard < 0 && writes_operand0(in.op);
        auto use = [&](std::int32_t r) {
            if (is_declared(r) && !(in_sets[pc * words + std::size_t(r) / 64] >> (r % 64) & 1))
                zero[std::size_t(r)] = true;
        };
        if (in.guard >= 0) use(in.guard);
        for (int i = 0; i < in.operand_count; ++i) {
            const Operand& o = in.operands[i];
            const bool pure_def =
                i == 0 && def0 &&
                (o.kind == OperandKind::reg ||
                 (o.kind == OperandKind::vector &&
                  (in.op == Opcode::mov || in.op == Opcode::ld || in.op == Opcode::ldu)));
            if (pure_def) continue;
            use(o.reg);
            // A {vector}, or a texture or surface operand's coordinates ([handle, {x, y}]).
            if (o.kind == OperandKind::vector || o.vec_count > 0)
                for (int k = 0; k < o.vec_count && k < ptx::max_vector_registers; ++k)
                    use(o.vec[k]);
            // A shuffle reads its source in lanes other than its own, which may not have written
            // it.
            if (in.op == Opcode::shfl && i == 1 && is_declared(o.reg))
                zero[std::size_t(o.reg)] = true;
        }
    }
    for (std::size_t r = 0; r < declared; ++r)
        if (zero[r]) pf.zero_registers.push_back(std::int32_t(r));
    pf.zero_all_registers = false;
}

// Which function each function's calls can reach that holds an instruction the emulator cannot
// run (Program::unrunnable). A call through a pointer may reach any function whose address is
// taken (an operand or an initialiser names it).
struct CallGraph {
    std::vector<std::vector<std::int32_t>> callees;  // direct calls, per function
    std::vector<bool> calls_pointer;                 // calls through a register
    std::vector<std::int32_t> address_taken;         // what such a call may reach
};

CallGraph call_graph(const ptx::Module& m) {
    const std::size_t n = m.functions.size();
    CallGraph g;
    g.callees.resize(n);
    g.calls_pointer.assign(n, false);
    auto take = [&](std::int32_t f) {
        if (f >= 0 && std::size_t(f) < n &&
            std::find(g.address_taken.begin(), g.address_taken.end(), f) == g.address_taken.end())
            g.address_taken.push_back(f);
    };
    for (const ptx::Symbol& s : m.globals)
        for (const ptx::Relocation& r : s.relocations)
            if (auto it = m.function_index.find(r.target); it != m.function_index.end())
                take(it->second);
    for (std::size_t i = 0; i < n; ++i)
        for (const Instruction& in : m.functions[i].code) {
            for (int k = 0; k < in.operand_count; ++k)
                if (in.operands[k].kind == OperandKind::symbol &&
                    in.operands[k].scope == Operand::code_scope)
                    take(in.operands[k].symbol);
            if (in.op != Opcode::call) continue;
            if (in.operands[1].kind == OperandKind::reg) g.calls_pointer[i] = true;
            else if (in.target >= 0) g.callees[i].push_back(in.target);
        }
    return g;
}

// For each function, the kernels whose calls can reach it (a kernel reaches itself).
std::vector<std::vector<std::int32_t>> kernels_reaching(const ptx::Module& m, const CallGraph& g) {
    const std::size_t n = m.functions.size();
    std::vector<std::vector<std::int32_t>> reach(n);
    for (std::size_t k = 0; k < n; ++k) {
        if (!m.functions[k].is_entry) continue;
        std::vector<bool> seen(n, false);
        std::vector<std::int32_t> stack{std::int32_t(k)};
        while (!stack.empty()) {
            const std::int32_t f = stack.back();
            stack.pop_back();
            if (seen[std::size_t(f)]) continue;
            seen[std::size_t(f)] = true;
            reach[std::size_t(f)].push_back(std::int32_t(k));
            for (std::int32_t c : g.callees[std::size_t(f)]) stack.push_back(c);
            if (g.calls_pointer[std::size_t(f)])
                for (std::int32_t c : g.address_taken) stack.push_back(c);
        }
    }
    return reach;
}

std::vector<std::int32_t> find_unrunnable(const ptx::Module& m) {
    const std::size_t n = m.functions.size();
    const CallGraph g = call_graph(m);
    const auto& callees = g.callees;
    const auto& calls_pointer = g.calls_pointer;
    const auto& address_taken = g.address_taken;
    std::vector<std::int32_t> result(n, -1);
    for (std::size_t start = 0; start < n; ++start) {
        if (m.functions[start].unsupported.empty() && callees[start].empty() &&
            !calls_pointer[start])
            continue;
        // Depth first from `start`, itself first: the message names the nearest culprit.
        std::vector<bool> seen(n, false);
        std::vector<std::int32_t> stack{std::int32_t(start)};
        while (!stack.empty() && result[start] < 0) {
            const std::int32_t f = stack.back();
            stack.pop_back();
            if (seen[std::size_t(f)]) continue;
            seen[std::size_t(f)] = true;
            if (!m.functions[std::size_t(f)].unsupported.empty()) {
                result[start] = f;
                break;
            }
            const auto& next = callees[std::size_t(f)];
            for (auto it = next.rbegin(); it != next.rend(); ++it) stack.push_back(*it);
            if (calls_pointer[std::size_t(f)])
                for (std::int32_t g : address_taken) stack.push_back(g);
        }
    }
    return result;
}

// A kernel's first instructions mostly copy values that never change while a warp runs into
// registers: its parameters (ld.param), %tid/%ctaid/%ntid (mov), global addresses (cvta, which
// leaves them as they are). Where such a copy is the only definition of its register, runs
// unguarded, and every read of the register comes after it on every path (find_zero_registers
// did not list it), the register always holds the copied value wherever it is read: the reads
// are pointed at the source instead (a parameter becomes a register filled once per launch) and
// the copy does nothing (exec_folded). Counters, events and results stay as they were; a register
// that a shuffle reads, or that appears anywhere the pass cannot tell a read from a write, is
// left alone. Only with the specialised handlers: the tests compare both ways on every kernel.
void fold_uniform_moves(PreparedFunction& pf) {
    if (!pf.fn.is_entry || pf.zero_all_registers) return;
    auto& code = pf.fn.code;
    const std::size_t declared = pf.fn.register_names.size();
    const std::size_t total = pf.register_count;
    // Registers whose value is the same at every read while a warp runs: materialised constants
    // and special registers, then the folded ones. fixed_mask: the bits a value may have (a
    // 32-bit mov keeps only the low half, so it folds only values that fit in it).
    std::vector<char> fixed(total, 0), zero(total, 0), ambiguous(total, 0);
    std::vector<std::uint64_t> max_value(total, ~0ull);
    std::vector<int> defs(total, 0);
    for (const auto& [r, v] : pf.constants) {
        fixed[std::size_t(r)] = 1;
        max_value[std::size_t(r)] = v;
    }
    for (const auto& [r, special] : pf.lane_specials) {
        fixed[std::size_t(r)] = 1;
        max_value[std::size_t(r)] = 0xffffffffull;  // every one is a 32-bit value
    }
    for (std::int32_t r : pf.zero_registers) zero[std::size_t(r)] = 1;
    auto in_range = [&](std::int32_t r) { return r >= 0 && std::size_t(r) < total; };
    for (const Instruction& in : code) {
        for (int i = 0; i < in.operand_count; ++i) {
            const Operand& o = in.operands[i];
            if (o.kind == OperandKind::vector || o.vec_count > 0) {  // also [handle, {x, y}]
                for (int k = 0; k < o.vec_count && k < ptx::max_vector_registers; ++k)
                    if (in_range(o.vec[k])) ambiguous[std::size_t(o.vec[k])] = 1;
            } else if (i == 0 && o.kind == OperandKind::reg && in_range(o.reg)) {
                if (writes_operand0(in.op)) ++defs[std::size_t(o.reg)];
                else ambiguous[std::size_t(o.reg)] = 1;  // bar.red's result, or a read
            }
        }
    }
    std::vector<std::int32_t> alias(total);
    for (std::size_t r = 0; r < total; ++r) alias[r] = std::int32_t(r);
    std::vector<char> folded_at(code.size(), 0);
    bool folded = false;
    for (std::size_t pc = 0; pc < code.size(); ++pc) {
        Instruction& in = code[pc];
        if (in.guard >= 0 || in.operand_count != 2) continue;
        const Operand& d = in.operands[0];
        const Operand& a = in.operands[1];
        if (d.kind != OperandKind::reg || d.negate || d.reg < 0 || std::size_t(d.reg) >= declared)
            continue;
        const std::size_t r = std::size_t(d.reg);
        if (defs[r] != 1 || ambiguous[r] || zero[r] || fixed[r]) continue;
        const int bits = ptx::type_bits(in.type);
        if (in.op == Opcode::ld && in.space == Space::param && in.vector == 1 &&
            a.kind == OperandKind::address && a.reg < 0 && a.symbol >= 0 &&
            a.scope == Operand::param_scope && std::size_t(a.symbol) < pf.fn.params.size()) {
            const std::uint64_t offset =
                std::uint64_t(pf.fn.params[std::size_t(a.symbol)].offset) + std::uint64_t(a.value);
            const int bytes = std::max(1, bits / 8);
            if (bytes > 8 || offset > pf.fn.param_bytes ||
                std::uint64_t(bytes) > pf.fn.param_bytes - offset)
                continue;
            const bool sign = ptx::type_is_signed(in.type) && bytes < 8;
            pf.launch_constants.push_back(
                {std::int32_t(r), std::uint32_t(offset), std::uint8_t(bytes), sign});
            fixed[r] = 1;
            max_value[r] = sign ? ~0ull : bytes == 8 ? ~0ull : (1ull << (8 * bytes)) - 1;
        } else if ((in.op == Opcode::mov ||
                    (in.op == Opcode::cvta && in.space == Space::global && bits == 64)) &&
                   in.type != ptx::Type::pred && (bits == 32 || bits == 64) &&
                   a.kind == OperandKind::reg && !a.negate && in_range(a.reg) &&
                   fixed[std::size_t(a.reg)]) {
            const std::size_t from = std::size_t(a.reg);
            // mov.b32 keeps the low 32 bits: the source must have none above them.
            if (bits == 32 && (max_value[from] >> 32) != 0) continue;
            alias[r] = alias[from];
            fixed[r] = 1;
            max_value[r] = max_value[from];
        } else {
            continue;
        }
        pf.handlers[pc] = &exec_folded;
        folded_at[pc] = 1;
        folded = true;
    }
    if (!folded) return;
    for (std::size_t pc = 0; pc < code.size(); ++pc) {
        if (folded_at[pc]) continue;
        Instruction& in = code[pc];
        if (in_range(in.guard)) in.guard = alias[std::size_t(in.guard)];
        for (int i = 0; i < in.operand_count; ++i) {
            Operand& o = in.operands[i];
            if ((o.kind == OperandKind::reg || o.kind == OperandKind::address) && in_range(o.reg))
                o.reg = alias[std::size_t(o.reg)];
        }
    }
}

std::string dim_text(std::uint32_t x, std::uint32_t y, std::uint32_t z) {
    return "(" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) + ")";
}

// The clusters a launch forms (sm_90): its own dimensions, or the kernel's __cluster_dims__
// (.reqnctapercluster), which a launch without dimensions takes and one with must match. Returns
// what is wrong ("" if nothing); the shape's own limits are checked by check_launch.
std::string launch_cluster(const ptx::Function& fn, const LaunchConfig& config, Dim3* cluster,
                           bool* explicit_cluster) {
    *cluster = config.explicit_cluster ? config.cluster : Dim3{};
    *explicit_cluster = config.explicit_cluster;
    if (fn.reqnctapercluster[0]) {
        const Dim3 required{fn.reqnctapercluster[0], fn.reqnctapercluster[1],
                            fn.reqnctapercluster[2]};
        std::string bad;
        if (config.explicit_cluster &&
            (cluster->x != required.x || cluster->y != required.y || cluster->z != required.z))
            bad = "the kernel was compiled with __cluster_dims__" +
                  dim_text(required.x, required.y, required.z) +
                  " but the launch asks for clusters of " +
                  dim_text(cluster->x, cluster->y, cluster->z);
        *cluster = required;
        *explicit_cluster = true;
        return bad;
    }
    if (fn.explicit_cluster && !config.explicit_cluster)
        return "the kernel must be launched with cluster dimensions (.explicitcluster)";
    return {};
}

// [SECTION] Running a block -----------------------------------------------------------------------

struct WorkerResult {
    std::vector<PcCounters> counters;
    std::vector<std::pair<std::uint32_t, std::string>> printf_blocks;
    std::vector<Block> detail_blocks;
    bool faulted = false;
    FaultInfo fault;
    std::uint64_t barriers = 0;
    std::uint64_t dropped_events = 0;
    std::vector<MemorySpan> footprint;  // of every block this worker ran
};

void take_footprint(WorkerResult& r, Block& b) {
    r.footprint.insert(r.footprint.end(), b.footprint.begin(), b.footprint.end());
    b.footprint.clear();
}

void linear_to_dims(std::uint32_t linear, const Dim3& d, std::uint32_t out[3]) {
    out[0] = linear % d.x;
    out[1] = (linear / d.x) % d.y;
    out[2] = linear / (d.x * d.y);
}

// Warps that meet at one hardware barrier from different __syncthreads() calls: the GPU counts them
// together (the barrier has an id, not a place), so the program runs on with some threads past a
// different barrier than the learner meant. The CUDA Programming Guide makes it undefined.
void check_same_barrier(const LaunchState& launch, const Block& block, std::uint32_t id) {
    const Warp* first = nullptr;
    std::uint32_t first_line = 0;
    for (const Warp& w : block.warps) {
        if (!w.waiting || w.barrier_id != id || w.done()) continue;
        const auto& fn = launch.program.functions[std::size_t(w.frames.back().function)].fn;
        const std::uint32_t line = w.barrier_pc < fn.code.size() ? fn.code[w.barrier_pc].line : 0;
        if (!first) {
            first = &w;
            first_line = line;
            continue;
        }
        if (line == first_line) continue;
        FaultInfo f;
        f.kind = "divergent __syncthreads()";
        f.detail =
            "warp " + std::to_string(w.id) + " waits at the __syncthreads() of line " +
            std::to_string(line) + " while warp " + std::to_string(first->id) +
            " waits at the one of line " + std::to_string(first_line) +
            "; a GPU counts them as one barrier, so the threads do not meet where the code says";
        f.advice = "call __syncthreads() where every thread of the block reaches it: outside "
                   "if/else branches and loops "
                   "whose condition differs between threads";
        f.block = block.linear;
        f.warp = w.id;
        f.pc = w.barrier_pc;
        f.function = w.frames.back().function;
        f.other_line = first_line;
        throw Fault(std::move(f));
    }
}

// Makes a block's warps ready to run (its storage reused from the worker's previous block).
void begin_block(LaunchState& launch, Block& block) {
    const auto& cfg = launch.config;
    const std::uint32_t threads = std::uint32_t(cfg.block.count());
    const std::uint32_t nwarps = (threads + 31) / 32;
    block.warps.resize(nwarps);
    block.shared.assign(launch.shared_bytes, 0);
    if (launch.detect_races) block.shadow.assign((launch.shared_bytes + 3) / 4, SharedShadow{});
    block.epoch = first_epoch;
    block.barriers = {};
    block.seq = 0;
    block.events.clear();
    block.accesses.clear();
    block.warned_uninit_pcs.clear();
    for (std::uint32_t w = 0; w < nwarps; ++w) {
        Warp& warp = block.warps[w];
        // A fresh warp, but keeping the storage of the worker's previous block (stack, frames,
        // local memory): allocating every warp's registers anew cost more than running a short
        // kernel, and so did building a whole Warp to move those into.
        warp.reset();
        warp.id = w;
        warp.stamp = next_stamp(block);
        if (launch.independent_scheduling)
            warp.rng = launch.scheduling_seed * 0x9e3779b97f4a7c15ull ^
                       (std::uint64_t(block.linear) << 16) ^ w;
        std::uint32_t n = std::min<std::uint32_t>(32, threads - w * 32);
        warp.lanes = n == 32 ? 0xffffffffu : (1u << n) - 1;
        start_warp(launch, block, warp);
    }
}

// Adds what the worker's blocks ran to the launch's totals. Done every few tens of thousands of
// instructions, not per block: two workers adding to one counter after every short block bounced
// its cache line between them. (The budget checks add the block's own part.)
void flush_counts(LaunchState& launch, Block& block) {
    launch.warp_instructions.fetch_add(block.warp_instructions, std::memory_order_relaxed);
    launch.thread_instructions.fetch_add(block.thread_instructions, std::memory_order_relaxed);
    block.warp_instructions = block.thread_instructions = 0;
}

// A warp waiting on an mbarrier (execute.cpp, mbarrier_wait) runs again once another warp changed
// the barrier (its try_wait then looks again), or after one round when it only paused.
void wake_mbarrier_waiter(Block& block, Warp& warp) {
    if (warp.barrier_id == Block::cluster_barrier) return;  // release_cluster_barrier wakes it
    if (warp.barrier_id == Block::mbarrier_barrier) {
        std::uint64_t word = 0;
        if (std::size_t(warp.mbarrier_offset) + 8 <= block.shared.size())
            std::memcpy(&word, block.shared.data() + warp.mbarrier_offset, 8);
        if (word == warp.mbarrier_word) return;
    }
    warp.waiting = false;
}

// One round of a block: every runnable warp runs up to `quantum` warp instructions, then the
// barriers every live warp has reached are released. Returns true once the block has finished.
bool step_block(LaunchState& launch, Block& block, WorkerResult& result, BlockOutput& out,
                std::uint64_t max_events, int quantum) {
    bool progressed = false;
    for (Warp& warp : block.warps) {
        if (warp.waiting && warp.barrier_id >= Block::barrier_count)
            wake_mbarrier_waiter(block, warp);
        if (warp.done() || warp.waiting) continue;
        // A warp runs at most what is left of the budget (at least 1000 instructions, at most the
        // round's quantum) before the budget is looked at again.
        const std::uint64_t used =
            launch.warp_instructions.load(std::memory_order_relaxed) + block.warp_instructions;
        const int q =
            block.detail ? 1
                         : int(std::min<std::uint64_t>(
                               std::uint64_t(quantum),
                               std::clamp<std::uint64_t>(
                                   launch.budget > used ? launch.budget - used : 0, 1000, 100000)));
        run_warp(launch, block, warp, out, q);
        progressed = true;
    }
    if (block.warp_instructions >= launch.flush_every) flush_counts(launch, block);
    if (block.detail && block.events.size() > max_events / 4 + 1) {
        // Keep the trace bounded: the rest of this block is counted, not recorded.
        result.dropped_events += 1;
        block.detail = false;
    }
    // Barriers: a barrier is released when every live warp has arrived at it (exited warps no
    // longer count), or as many warps as its thread count names.
    std::uint32_t live = 0, waiting = 0, cluster_waiting = 0;
    for (Warp& w : block.warps) {
        if (w.done()) continue;
        ++live;
        if (w.waiting) ++waiting;
        if (w.waiting && w.barrier_id == Block::cluster_barrier) ++cluster_waiting;
    }
    // The cluster barrier: the last thread to arrive (or to exit) may have been this block's.
    if (block.cluster && release_cluster_barrier(*block.cluster)) progressed = true;
    block.stalled = false;
    // A block that finished is still held to the budget: a grid of short blocks must stop at the
    // budget too.
    if (live == 0 &&
        launch.warp_instructions.load(std::memory_order_relaxed) + block.warp_instructions <=
            launch.budget)
        return true;
    bool released = false;
    for (std::uint32_t id = 0; id < Block::barrier_count; ++id) {
        BarrierState& b = block.barriers[id];
        if (b.arrived == 0 || b.arrived < (b.expected ? b.expected : live)) continue;
        check_same_barrier(launch, block, id);
        for (Warp& w : block.warps) {
            if (!w.waiting || w.barrier_id != id) continue;
            w.waiting = false;
            w.stamp = next_stamp(block);
            if (w.red_dst >= 0 && !w.done()) {  // bar.red: the block's result
                std::uint64_t value = w.red_op == ptx::SubOp::popc ? b.red_true
                                      : w.red_op == ptx::SubOp::and_
                                          ? std::uint64_t(b.red_true == b.red_threads)
                                          : std::uint64_t(b.red_true > 0);
                std::uint64_t* reg = w.frames.back().regs.data() + std::size_t(w.red_dst) * 32;
                for (std::uint32_t m = w.red_mask; m; m &= m - 1) reg[__builtin_ctz(m)] = value;
                w.red_dst = -1;
            }
        }
        b = BarrierState{};
        ++block.epoch;
        ++result.barriers;
        released = true;
        if (block.detail) {
            WarpEvent e;
            e.seq = block.seq++;
            e.block = block.linear;
            e.kind = EventKind::barrier_release;
            e.sm = block.sm;
            block.events.push_back(e);
        }
    }
    if (!progressed && !released && waiting == live && cluster_waiting > 0 && block.cluster &&
        block.cluster->blocks.size() > 1) {
        // Only another block of the cluster can release it: run_cluster sees whether any does.
        block.stalled = true;
        return false;
    }
    if (!progressed && !released && waiting == live) {
        FaultInfo f;
        f.kind = "barrier deadlock";
        std::ostringstream d;
        d << "every live warp of the block waits at a barrier that cannot complete:";
        bool on_mbarrier = false;
        const char* separator = " ";
        for (Warp& w : block.warps) {
            if (w.done() || !w.waiting) continue;
            const auto& fn = launch.program.functions[std::size_t(w.frames.back().function)].fn;
            d << separator << "warp " << w.id << " at line " << fn.code[w.barrier_pc].line;
            if (w.barrier_id == Block::mbarrier_barrier) {
                d << " (waiting for the phase of the mbarrier at shared offset "
                  << w.mbarrier_offset << " to complete)";
                on_mbarrier = true;
            } else if (w.barrier_id == Block::cluster_barrier) {
                d << " (barrier.cluster.wait)";
            } else {
                d << " (barrier " << w.barrier_id << ")";
            }
            separator = ", ";
        }
        d << ".";
        f.detail = d.str();
        f.advice = on_mbarrier
                       ? "a phase of an mbarrier (cuda::barrier) completes when as many arrivals "
                         "as its count have come: check the count given to init() against the "
                         "threads that arrive, and that no thread waits without arriving first"
                       : "every thread of a block must reach the same __syncthreads(); do not put "
                         "it inside a branch that only some threads take";
        f.block = block.linear;
        f.function = launch.kernel;
        for (Warp& w : block.warps)
            if (!w.done()) {
                f.warp = w.id;
                f.pc = w.barrier_pc;
                f.function = w.frames.back().function;
                break;
            }
        throw Fault(std::move(f));
    }
    if (block.linear > launch.fault_block.load(std::memory_order_relaxed)) return true;
    if (launch.deadline != std::chrono::steady_clock::time_point{} &&
        std::chrono::steady_clock::now() > launch.deadline) {
        FaultInfo f;
        f.kind = "time limit reached";
        f.detail = "the check ran past its wall-clock limit, so this launch was stopped";
        f.advice = "look for loops that run far longer than the work needs (raise the limit with "
                   "--time-limit)";
        f.block = block.linear;
        for (Warp& w : block.warps)
            if (!w.done()) {
                f.warp = w.id;
                f.pc = std::uint32_t(w.stack.back().pc);
                f.function = w.frames[w.stack.back().frame].function;
                break;
            }
        throw Fault(std::move(f));
    }
    if (!launch.printf_drops &&
        out.printf_text.size() + launch.printf_bytes.load(std::memory_order_relaxed) >
            launch.printf_limit) {
        FaultInfo f;
        f.kind = "printf output limit reached";
        f.detail = "the launch printed more than " + std::to_string(launch.printf_limit) +
                   " bytes with printf (the limit per launch)";
        f.advice = "print less: a few threads, or a summary, not every element (raise the limit "
                   "with --printf-limit)";
        f.block = block.linear;
        throw Fault(std::move(f));
    }
    if (launch.warp_instructions.load(std::memory_order_relaxed) + block.warp_instructions >
        launch.budget) {
        FaultInfo f;
        f.kind = "instruction budget exhausted";
        std::ostringstream d;
        d << "the launch ran more than " << launch.budget
          << " warp instructions, so it was stopped (an endless loop?). "
          << "Where the warps of block " << block.linear << " were:";
        int shown = 0, more = 0;
        for (Warp& w : block.warps) {
            if (w.done()) continue;
            if (shown >= 4) {
                ++more;
                continue;
            }
            const auto& fn =
                launch.program.functions[std::size_t(w.frames[w.stack.back().frame].function)].fn;
            std::int32_t pc = w.stack.back().pc;
            std::uint32_t line =
                pc < std::int32_t(fn.code.size()) ? fn.code[std::size_t(pc)].line : 0;
            d << (shown++ ? ", " : " ") << "warp " << w.id << " at line " << line;
            if (shown == 1) {
                f.pc = std::uint32_t(pc);
                f.function = w.frames[w.stack.back().frame].function;
                f.warp = w.id;
            }
        }
        if (shown == 0) d << " all of them had finished (the blocks before used the rest)";
        if (more) d << " and " << more << " more warps";
        d << ".";
        f.detail = d.str();
        f.advice = "check that every loop's condition eventually becomes false (a grid-stride loop "
                   "must add "
                   "blockDim.x * gridDim.x); raise the budget with --budget if the work is really "
                   "this large";
        f.block = block.linear;
        throw Fault(std::move(f));
    }
    return false;
}

// Runs one block to completion. Detail blocks step their warps one instruction at a time in turn,
// so the trace shows them interleaved; others run each warp until it blocks, which is faster.
void run_block(LaunchState& launch, Block& block, WorkerResult& result, std::uint64_t max_events,
               std::atomic<std::uint64_t>& events_total) {
    begin_block(launch, block);
    BlockOutput out;
    const int quantum = block.detail ? 1 : 100000;
    while (!step_block(launch, block, result, out, max_events, quantum)) {
    }
    launch.printf_bytes.fetch_add(out.printf_text.size(), std::memory_order_relaxed);
    if (!out.printf_text.empty())
        result.printf_blocks.push_back({block.linear, std::move(out.printf_text)});
    (void)events_total;
}

// Runs the blocks of one thread block cluster to completion, all at once: they take turns in
// short rounds (one instruction at a time for blocks traced in detail), so a block waiting at the
// cluster barrier, or for data another block writes into its shared memory, lets the others get
// there. A block that finishes is marked exited: its shared memory is gone for the others.
void run_cluster(LaunchState& launch, std::vector<Block>& blocks, ClusterState& cluster,
                 WorkerResult& result, std::uint64_t max_events) {
    std::vector<BlockOutput> outputs(blocks.size());
    std::vector<char> finished(blocks.size(), 0);
    cluster.phase = 0;
    cluster.blocks.clear();
    for (Block& b : blocks) {
        cluster.blocks.push_back(&b);
        b.cluster = &cluster;
        b.exited = false;
        b.stalled = false;
        begin_block(launch, b);
    }
    // Faults leave the outputs of the blocks that printed: a GPU's printf buffer keeps them too.
    auto keep_output = [&](std::size_t i) {
        launch.printf_bytes.fetch_add(outputs[i].printf_text.size(), std::memory_order_relaxed);
        if (!outputs[i].printf_text.empty())
            result.printf_blocks.push_back({blocks[i].linear, std::move(outputs[i].printf_text)});
        outputs[i].printf_text.clear();
    };
    try {
        for (std::size_t left = blocks.size(); left;) {
            bool all_stalled = true;
            for (std::size_t i = 0; i < blocks.size(); ++i) {
                if (finished[i]) continue;
                const bool done = step_block(launch, blocks[i], result, outputs[i], max_events,
                                             blocks[i].detail ? 1 : 256);
                if (done) {
                    finished[i] = 1;
                    blocks[i].exited = true;
                    --left;
                    keep_output(i);
                    // Its exit may complete a cluster barrier the others wait at.
                    release_cluster_barrier(cluster);
                    all_stalled = false;
                } else if (!blocks[i].stalled) {
                    all_stalled = false;
                }
            }
            if (left && all_stalled) {
                FaultInfo f;
                f.kind = "barrier deadlock";
                f.detail = "every live warp of the cluster waits at a barrier that cannot "
                           "complete:" +
                           cluster_wait_text(launch, cluster) + ".";
                f.advice = "every thread of every block of the cluster must reach cluster.sync() "
                           "(barrier.cluster.arrive and wait) the same number of times; do not "
                           "put it inside a branch that only some threads or blocks take";
                f.function = launch.kernel;
                for (Block& b : blocks) {
                    for (Warp& w : b.warps)
                        if (!w.done() && w.waiting) {
                            f.block = b.linear;
                            f.warp = w.id;
                            f.pc = w.barrier_pc;
                            f.function = w.frames.back().function;
                            break;
                        }
                    if (f.pc) break;
                }
                throw Fault(std::move(f));
            }
        }
    } catch (...) {
        for (std::size_t i = 0; i < blocks.size(); ++i)
            if (!finished[i]) keep_output(i);
        throw;
    }
}

}  // namespace

// [SECTION] Launch --------------------------------------------------------------------------------

Emulator::Emulator(EmulatorOptions options)
    : options_(options), memory_(std::make_shared<DeviceMemory>()) {}
Emulator::Emulator(EmulatorOptions options, std::shared_ptr<DeviceMemory> memory)
    : options_(options), memory_(memory ? std::move(memory) : std::make_shared<DeviceMemory>()) {}
Emulator::~Emulator() = default;

Status Emulator::load(const std::string& ptx_text, const std::string& source_path) {
    ptx::ParseResult parsed = ptx::parse(ptx_text);
    if (!parsed.ok) {
        std::string where = source_path.empty() ? std::string("kernel") : source_path;
        // The line is the learner's only when the PTX places it in the learner's file; code inlined
        // from a header (a texture fetch, cooperative groups) names the header instead.
        const std::string file = std::filesystem::path(parsed.source_file).filename().string();
        std::string inlined;
        if (parsed.source_line &&
            (file.empty() || file == compiler::nvrtc_program_name(source_path)))
            where += ":" + std::to_string(parsed.source_line);
        else if (parsed.source_line)
            inlined = " (in " + file + ":" + std::to_string(parsed.source_line) +
                      ", a header your code uses)";
        // Malformed PTX: the whole module is unreadable. (An instruction the emulator does not
        // know is no syntax error: it fails only the kernels that reach it, at their launch.)
        return Status::error(
            StatusCode::compile_error,
            where + ": error: the emulator cannot run this code: " + parsed.error + inlined +
                "\n  try: rewrite the construct it names, or run on a GPU with --backend gpu");
    }
    auto program = std::make_unique<Program>();
    program->module = std::move(parsed.module);
    program->source_path = source_path;
    ptx::Module& m = program->module;
    // Module-scope variables: .global in device memory, .const in the constant bank, .shared in the
    // shared memory of the kernels that reach them (below).
    std::uint64_t global_cost = 0;
    for (const ptx::Symbol& s : m.globals)
        if (s.space == Space::global) global_cost += std::min<std::uint64_t>(s.size, 1ull << 40);
    if (memory_->bytes_allocated() + memory_->shadow_bytes() + global_cost > options_.memory_limit)
        return Status::error(
            StatusCode::kernel_fault,
            source_path + ": error: memory limit reached: the module's __device__ variables need " +
                std::to_string(global_cost >> 20) + " MB of emulator memory; the limit is " +
                std::to_string(options_.memory_limit >> 20) +
                " MB in total (raise it with --memory-limit)");
    program->global_addresses.resize(m.globals.size());
    program->dynamic_shared.resize(m.globals.size());
    for (std::size_t i = 0; i < m.globals.size(); ++i) {
        ptx::Symbol& s = m.globals[i];
        // What a GPU cannot hold either is refused here, before it is allocated.
        std::string too_large;
        if (s.space == Space::global && s.size > (1ull << 30))
            too_large = "1 GB (the emulator's limit for one variable)";
        if (s.space == Space::constant &&
            program->constant_bank.size() + s.size > hw::constant_memory_bytes)
            too_large = "64 KB of __constant__ memory";
        if (s.space == Space::shared && s.size > std::uint64_t(hw::emulated.max_shared_per_block))
            too_large = "227 KB of shared memory per block";
        if (!too_large.empty())
            return Status::error(StatusCode::compile_error, source_path + ": error: '" + s.name +
                                                                "' (" + std::to_string(s.size) +
                                                                " bytes) does not fit in " +
                                                                too_large);
        if (s.space == Space::global && s.is_managed && options_.place_managed) {
            bool fresh = false;
            const std::uint64_t a = options_.place_managed(s.name, s.size, &fresh);
            if (!a || !memory_->find(a, std::max<std::uint64_t>(s.size, 1)))
                return Status::error(StatusCode::compile_error,
                                     source_path +
                                         ": error: no memory for the __managed__ "
                                         "variable '" +
                                         s.name + "' (" + std::to_string(s.size) + " bytes)");
            if (fresh && !s.init.empty())
                memory_->copy_in(a, s.init.data(), std::min<std::uint64_t>(s.init.size(), s.size));
            program->global_addresses[i] = a;
        } else if (s.space == Space::global) {
            std::uint64_t a = memory_->allocate(std::max<std::uint64_t>(s.size, 1),
                                                "global variable '" + s.name + "'");
            if (!s.init.empty())
                memory_->copy_in(a, s.init.data(), std::min<std::uint64_t>(s.init.size(), s.size));
            program->global_addresses[i] = a;
        } else if (s.space == Space::constant) {
            std::uint64_t off =
                align_up(program->constant_bank.size(), std::max<std::uint32_t>(s.align, 1));
            program->constant_bank.resize(off + s.size, 0);
            if (!s.init.empty() && s.size)
                std::memcpy(program->constant_bank.data() + off, s.init.data(),
                            std::min<std::size_t>(s.init.size(), s.size));
            program->global_addresses[i] = off;
        } else if (s.space == Space::shared) {
            if (s.is_extern) program->dynamic_shared[i] = true;
            // Placed below, once the kernels that reach it are known.
        }
    }
    // Shared memory: each kernel's block holds the shared symbols its calls can reach, no others.
    // A symbol has one offset in every kernel that reaches it (a function shared by two kernels
    // reads it at one address), above whatever those kernels hold already. With -rdc=true every
    // kernel's __shared__ variables are module-scope symbols: a library of many kernels (CUB's)
    // would not fit if all of them were laid out together.
    const CallGraph calls = call_graph(m);
    const auto reaching = kernels_reaching(m, calls);
    std::vector<std::int32_t> all_kernels;
    for (std::size_t f = 0; f < m.functions.size(); ++f)
        if (m.functions[f].is_entry) all_kernels.push_back(std::int32_t(f));
    std::vector<std::uint32_t> shared_end(m.functions.size(), 0);  // per kernel
    const auto place_shared = [&](std::uint64_t size, std::uint32_t align,
                                  const std::vector<std::int32_t>& kernels) {
        std::uint32_t at = 0;
        for (std::int32_t k : kernels) at = std::max(at, shared_end[std::size_t(k)]);
        at = add_saturating(0, align_up(at, std::max<std::uint32_t>(align, 1)));
        const std::uint32_t end = add_saturating(at, size);
        for (std::int32_t k : kernels) shared_end[std::size_t(k)] = end;
        return at;
    };
    {
        std::vector<std::vector<std::int32_t>> users(m.globals.size());
        const auto use = [&](std::size_t symbol, const std::vector<std::int32_t>& kernels) {
            auto& u = users[symbol];
            for (std::int32_t k : kernels)
                if (std::find(u.begin(), u.end(), k) == u.end()) u.push_back(k);
        };
        for (std::size_t f = 0; f < m.functions.size(); ++f)
            for (const Instruction& in : m.functions[f].code)
                for (int k = 0; k < in.operand_count; ++k) {
                    const Operand& o = in.operands[k];
                    if (o.kind == OperandKind::symbol && o.scope == Operand::module_scope &&
                        std::size_t(o.symbol) < m.globals.size() &&
                        m.globals[std::size_t(o.symbol)].space == Space::shared)
                        use(std::size_t(o.symbol), reaching[f]);
                }
        // A variable initialised with a shared symbol's address: any kernel may follow it.
        for (const ptx::Symbol& g : m.globals)
            for (const ptx::Relocation& r : g.relocations)
                for (std::size_t i = 0; i < m.globals.size(); ++i)
                    if (m.globals[i].space == Space::shared && m.globals[i].name == r.target)
                        use(i, all_kernels);
        for (std::size_t i = 0; i < m.globals.size(); ++i) {
            const ptx::Symbol& g = m.globals[i];
            if (g.space != Space::shared || g.is_extern) continue;
            std::sort(users[i].begin(), users[i].end());
            program->global_addresses[i] = place_shared(g.size, g.align, users[i]);
        }
    }
    // Address initialisers (function tables, pointers to other variables), now that every
    // variable has its address.
    for (std::size_t i = 0; i < m.globals.size(); ++i) {
        const ptx::Symbol& s = m.globals[i];
        for (const ptx::Relocation& r : s.relocations) {
            std::uint64_t value = 0;
            if (auto f = m.function_index.find(r.target); f != m.function_index.end()) {
                value = function_window + 16 * std::uint64_t(f->second);
            } else {
                auto g = std::find_if(m.globals.begin(), m.globals.end(),
                                      [&](const ptx::Symbol& x) { return x.name == r.target; });
                if (g == m.globals.end())
                    return Status::error(StatusCode::compile_error,
                                         "cannot read the compiled PTX: the initialiser of '" +
                                             s.name + "' names an unknown symbol '" + r.target +
                                             "'");
                const std::size_t k = std::size_t(g - m.globals.begin());
                value = program->global_addresses[k];
                if (r.generic && g->space == Space::constant) value += const_window;
                if (r.generic && g->space == Space::shared) value += shared_window;
            }
            value += std::uint64_t(r.addend);
            if (r.offset + 8 > s.size) continue;
            if (s.space == Space::global)
                memory_->copy_in(program->global_addresses[i] + r.offset, &value, 8);
            else if (s.space == Space::constant)
                std::memcpy(program->constant_bank.data() + program->global_addresses[i] + r.offset,
                            &value, 8);
        }
    }
    // The constant bank moves into device memory, where the host can reach it by address.
    if (!program->constant_bank.empty()) {
        program->constant_address = memory_->allocate(program->constant_bank.size(),
                                                      "constant memory (__constant__ variables)");
        memory_->copy_in(program->constant_address, program->constant_bank.data(),
                         program->constant_bank.size());
        program->constant_memory = memory_->find(program->constant_address);
        program->constant_bank.clear();
        program->constant_bank.shrink_to_fit();
    }
    program->functions.resize(m.functions.size());
    std::uint32_t pc_base = 0;
    for (std::size_t i = 0; i < m.functions.size(); ++i) {
        program->functions[i].fn = m.functions[i];
        ptx::compute_reconvergence(program->functions[i].fn);
        program->functions[i].pc_base = pc_base;
        pc_base += std::uint32_t(m.functions[i].code.size());
    }
    program->total_pcs = pc_base;
    program->unrunnable = find_unrunnable(m);
    for (const auto& f : m.functions)
        if (f.is_extern &&
            (f.name == "malloc" || f.name == "free" || f.name == "__cudaCDP2Malloc" ||
             f.name == "__cudaCDP2Free" || f.name == "cudaMalloc" || f.name == "cudaFree"))
            program->uses_device_malloc = true;
        else if (f.is_extern &&
                 (f.name.rfind("__cudaCDP2", 0) == 0 || f.name.rfind("cudaLaunchDevice", 0) == 0 ||
                  f.name.rfind("cudaGetParameterBuffer", 0) == 0 || f.name == "cudaMemcpyAsync" ||
                  f.name == "cudaMemsetAsync"))
            program->uses_device_launch = true;
    // Shared symbols of .funcs, in every kernel that reaches them; then each kernel's own.
    for (std::size_t f = 0; f < program->functions.size(); ++f) {
        PreparedFunction& pf = program->functions[f];
        if (pf.fn.is_entry) continue;
        prepare_function(*program, pf, [&](const ptx::Symbol& s) {
            return place_shared(s.size, s.align, reaching[f]);
        });
    }
    for (std::size_t f = 0; f < program->functions.size(); ++f) {
        PreparedFunction& pf = program->functions[f];
        if (!pf.fn.is_entry) continue;
        const std::vector<std::int32_t> self{std::int32_t(f)};
        prepare_function(*program, pf,
                         [&](const ptx::Symbol& s) { return place_shared(s.size, s.align, self); });
        pf.static_shared_bytes = shared_end[f];
    }
    for (auto& pf : program->functions) {
        select_handlers(pf, options_.specialised_handlers);
        find_zero_registers(pf);
        if (options_.specialised_handlers) fold_uniform_moves(pf);
        for (const auto& [r, special] : pf.lane_specials)
            // A block's own: its index, its cluster's and its place in the cluster.
            if (special == ptx::Special::ctaid_x || special == ptx::Special::ctaid_y ||
                special == ptx::Special::ctaid_z || special == ptx::Special::clusterid_x ||
                special == ptx::Special::clusterid_y || special == ptx::Special::clusterid_z ||
                special == ptx::Special::cluster_ctaid_x ||
                special == ptx::Special::cluster_ctaid_y ||
                special == ptx::Special::cluster_ctaid_z ||
                special == ptx::Special::cluster_ctarank)
                pf.block_specials.push_back({r, special});
            else if (special == ptx::Special::tid_x || special == ptx::Special::tid_y ||
                     special == ptx::Special::tid_z)
                pf.warp_specials.push_back({r, special});
    }
    for (const auto& pf : program->functions) {
        // The GPU's limits: 512 KB of local memory per thread, 227 KB of shared memory per block.
        std::string problem;
        if (pf.frame_bytes > hw::max_local_bytes_per_thread)
            problem = "needs " + std::to_string(pf.frame_bytes) +
                      " bytes of local memory per thread; a GPU allows 512 KB";
        else if (pf.fn.is_entry && std::uint64_t(pf.static_shared_bytes) >
                                       std::uint64_t(hw::emulated.max_shared_per_block))
            problem = "declares more than 227 KB of shared memory";
        if (!problem.empty())
            return Status::error(StatusCode::compile_error,
                                 source_path + ": error: function '" +
                                     compiler::source_name_of(pf.fn.name) + "' " + problem);
    }
    program_ = std::move(program);
    return Status::success();
}

std::optional<SymbolInfo> Emulator::symbol(const std::string& name) const {
    if (!program_) return std::nullopt;
    const auto& globals = program_->module.globals;
    for (std::size_t i = 0; i < globals.size(); ++i) {
        if (globals[i].name != name) continue;
        SymbolInfo info;
        info.size = globals[i].size;
        info.address = program_->global_addresses[i];
        if (globals[i].space == Space::global) {
            info.kind = SymbolInfo::Kind::global;
            info.device_address = info.address;
        } else if (globals[i].space == Space::constant) {
            info.kind = SymbolInfo::Kind::constant;
            info.device_address = program_->constant_address + info.address;
        } else {
            return std::nullopt;  // shared variables have no host-visible storage
        }
        return info;
    }
    return std::nullopt;
}

bool Emulator::write_constant(std::uint64_t offset, const void* src, std::uint64_t bytes) {
    if (!program_ || offset > program_->constant_size() ||
        bytes > program_->constant_size() - offset)
        return false;
    if (bytes) std::memcpy(program_->constant_memory->bytes() + offset, src, bytes);
    return true;
}

bool Emulator::read_constant(void* dst, std::uint64_t offset, std::uint64_t bytes) const {
    if (!program_ || offset > program_->constant_size() ||
        bytes > program_->constant_size() - offset)
        return false;
    if (bytes) std::memcpy(dst, program_->constant_bytes() + offset, bytes);
    return true;
}

bool Emulator::kernel_resources(const std::string& entry, KernelResources* out) const {
    if (!program_) return false;
    auto it = program_->module.function_index.find(entry);
    if (it == program_->module.function_index.end()) return false;
    const PreparedFunction& pf = program_->functions[std::size_t(it->second)];
    if (!pf.fn.is_entry) return false;
    out->static_shared = pf.static_shared_bytes;
    out->local_bytes = pf.frame_bytes;
    out->param_bytes = pf.fn.param_bytes;
    out->max_threads = pf.fn.maxntid[0] ? pf.fn.maxntid[0] * std::max(1u, pf.fn.maxntid[1]) *
                                              std::max(1u, pf.fn.maxntid[2])
                                        : hw::max_threads_per_block;
    for (int i = 0; i < 3; ++i) out->cluster[i] = pf.fn.reqnctapercluster[i];
    out->explicit_cluster = pf.fn.explicit_cluster;
    return true;
}

std::vector<std::string> Emulator::kernel_names() const {
    std::vector<std::string> names;
    if (program_)
        for (const auto& f : program_->module.functions)
            if (f.is_entry) names.push_back(f.name);
    return names;
}

bool Emulator::has_kernel(const std::string& entry) const {
    if (!program_) return false;
    const ptx::Function* f = program_->module.find(entry);
    return f && f->is_entry;
}

std::vector<std::uint32_t> Emulator::parameter_sizes(const std::string& entry) const {
    std::vector<std::uint32_t> sizes;
    if (!program_) return sizes;
    if (const ptx::Function* f = program_->module.find(entry))
        for (const auto& p : f->params) sizes.push_back(p.size);
    return sizes;
}

std::optional<Writer> Emulator::last_writer(std::uint64_t address) const {
    const Allocation* a = memory_->find(address, 1);
    if (!a || a->freed || !writers_tracked_) return std::nullopt;
    std::uint64_t w = (address - a->base) / 4;
    if (w >= a->writer.size() || a->writer[w] == 0) return std::nullopt;
    std::uint64_t id = a->writer[w] - 1;
    std::uint64_t per_block = last_block_.count();
    if (per_block == 0) return std::nullopt;
    std::uint32_t b[3], t[3];
    linear_to_dims(std::uint32_t(id / per_block), last_grid_, b);
    linear_to_dims(std::uint32_t(id % per_block), last_block_, t);
    Writer writer;
    writer.block = Dim3{b[0], b[1], b[2]};
    writer.thread = Dim3{t[0], t[1], t[2]};
    return writer;
}

namespace {

std::string source_line_text(const std::string& path, std::uint32_t line) {
    if (line == 0) return {};
    std::ifstream f(path);
    std::string text;
    for (std::uint32_t i = 1; std::getline(f, text); ++i)
        if (i == line) return text;
    return {};
}

// [SECTION] Fault messages ------------------------------------------------------------------------

// A kernel that reaches an instruction the emulator cannot run, in the words of a load error:
// where the instruction came from (the learner's line, or the header it was inlined from), the
// PTX line and what was not understood.
std::string unrunnable_message(const Program& program, std::int32_t holder,
                               const std::string& kernel_name) {
    const ptx::Function& fn = program.functions[std::size_t(holder)].fn;
    const ptx::Function::Unsupported& u = fn.unsupported.front();
    std::string where = program.source_path.empty() ? std::string("kernel") : program.source_path;
    const auto file = program.module.files.find(u.file);
    const std::string name = file == program.module.files.end()
                                 ? std::string()
                                 : std::filesystem::path(file->second).filename().string();
    std::string inlined;
    if (u.line && (name.empty() || program.source_path.empty() ||
                   name == compiler::nvrtc_program_name(program.source_path)))
        where += ":" + std::to_string(u.line);
    else if (u.line)
        inlined = " (in " + name + ":" + std::to_string(u.line) + ", a header your code uses)";
    const std::string& what = u.message;
    std::string in = " in kernel '" + kernel_name + "'";
    if (!fn.is_entry) in += " (in function " + compiler::source_name_of(fn.name) + ")";
    return where + ": error: the emulator cannot run this code" + in + ": " + what + inlined +
           "\n  try: rewrite the construct it names, or run on a GPU with --backend gpu";
}

std::string format_fault(const Program& program, const LaunchConfig& cfg,
                         const std::string& kernel_name, const FaultInfo& f) {
    std::uint32_t line = 0;
    std::string function_name = kernel_name;
    std::string
        header;  // the header the faulting code was inlined from, when not the learner's file
    if (f.function >= 0) {
        const auto& fn = program.functions[std::size_t(f.function)].fn;
        if (f.pc < fn.code.size()) {
            line = fn.code[f.pc].line;
            // A line of a toolkit header (cooperative groups, texture fetches) is not a line of the
            // learner's file: name the header rather than point into the learner's file.
            const auto file = program.module.files.find(fn.code[f.pc].file);
            const std::string name = file == program.module.files.end()
                                         ? std::string()
                                         : std::filesystem::path(file->second).filename().string();
            if (!name.empty() && !program.source_path.empty() &&
                name != compiler::nvrtc_program_name(program.source_path)) {
                header = name + ":" + std::to_string(line);
                line = 0;
            }
        }
        if (!fn.is_entry) function_name = compiler::source_name_of(fn.name);
    }
    std::uint32_t b[3];
    linear_to_dims(f.block, cfg.grid, b);
    std::ostringstream m;
    m << (program.source_path.empty() ? "kernel" : program.source_path);
    if (line) m << ":" << line;
    m << ": error: " << f.kind << " in kernel '" << kernel_name << "'";
    if (function_name != kernel_name) m << " (in function " << function_name << ")";
    if (!header.empty()) m << " (in " << header << ", a header your code uses)";
    m << "\n";
    std::string text = source_line_text(program.source_path, line);
    if (!text.empty()) m << "  " << line << " | " << text << "\n";
    m << "  block " << dim_text(b[0], b[1], b[2]);
    if (f.lane >= 0) {
        std::uint32_t t[3];
        linear_to_dims(f.warp * 32 + std::uint32_t(f.lane), cfg.block, t);
        m << ", thread " << dim_text(t[0], t[1], t[2]) << " (warp " << f.warp << ", lane " << f.lane
          << ")";
        if (f.other_lanes) m << " and " << f.other_lanes << " more threads of its warp";
    } else {
        // The whole warp: name its threads.
        const std::uint32_t threads = std::uint32_t(cfg.block.count());
        const std::uint32_t first = f.warp * 32,
                            last = std::min(first + 31, threads ? threads - 1 : 0);
        std::uint32_t t0[3], t1[3];
        linear_to_dims(first, cfg.block, t0);
        linear_to_dims(last, cfg.block, t1);
        m << ", warp " << f.warp << " (threads " << dim_text(t0[0], t0[1], t0[2]) << " to "
          << dim_text(t1[0], t1[1], t1[2]) << ")";
    }
    m << ": " << f.detail << "\n";
    if (f.other_line) {
        std::string other = source_line_text(program.source_path, f.other_line);
        if (!other.empty()) m << "  " << f.other_line << " | " << other << "\n";
    }
    m << "  try: " << f.advice;
    return m.str();
}

}  // namespace

Status Emulator::check_launch(const std::string& entry, const std::string& display_name,
                              const LaunchConfig& config,
                              const std::vector<KernelArg>& args) const {
    if (!program_) return Status::error(StatusCode::bad_usage, "no module loaded");
    const ptx::Function* fn = program_->module.find(entry);
    if (!fn || !fn->is_entry)
        return Status::error(StatusCode::bad_usage,
                             "no kernel named '" + display_name + "' in " + program_->source_path);
    // Launch configuration, checked as cudaLaunchKernel checks it.
    const Dim3& g = config.grid;
    const Dim3& bl = config.block;
    std::string bad;
    if (g.x == 0 || g.y == 0 || g.z == 0 || bl.x == 0 || bl.y == 0 || bl.z == 0)
        bad = "a grid or block dimension is 0";
    // The thread count in 128 bits: 1073741824 x 268435456 x 64 must not wrap to 0 threads.
    else if (const unsigned __int128 threads = (unsigned __int128)bl.x * bl.y * bl.z;
             threads > hw::max_threads_per_block)
        bad = "a block has " +
              (threads >> 64 ? std::string("more than 2^64")
                             : std::to_string(std::uint64_t(threads))) +
              " threads; the limit is " + std::to_string(hw::max_threads_per_block);
    else if (g.x > hw::max_grid_x)
        bad = "gridDim.x is limited to " + std::to_string(hw::max_grid_x);
    else if (bl.z > hw::max_block_z)
        bad = "blockDim.z is " + std::to_string(bl.z) + "; the limit is " +
              std::to_string(hw::max_block_z);
    else if (g.y > hw::max_grid_yz || g.z > hw::max_grid_yz)
        bad = "gridDim.y and gridDim.z are limited to " + std::to_string(hw::max_grid_yz);
    else if (fn->reqntid[0] &&
             (bl.x != fn->reqntid[0] || bl.y != fn->reqntid[1] || bl.z != fn->reqntid[2]))
        bad = "the kernel requires blocks of exactly " +
              dim_text(fn->reqntid[0], fn->reqntid[1], fn->reqntid[2]);
    else if (fn->maxntid[0] &&
             bl.count() > std::uint64_t(fn->maxntid[0]) * fn->maxntid[1] * fn->maxntid[2])
        bad = "the block is larger than the kernel's __launch_bounds__ (" +
              std::to_string(fn->maxntid[0]) + " threads)";
    const std::size_t kernel_index = std::size_t(program_->module.function_index.at(entry));
    if (const std::int32_t holder = program_->unrunnable[kernel_index]; holder >= 0)
        return Status::error(StatusCode::compile_error,
                             unrunnable_message(*program_, holder, display_name));
    const PreparedFunction& pk = program_->functions[kernel_index];
    const std::uint32_t static_shared = pk.static_shared_bytes;
    if (bad.empty() && std::uint64_t(static_shared) + config.dynamic_shared_bytes >
                           std::uint64_t(hw::emulated.max_shared_per_block))
        bad = "the block asks for " + std::to_string(static_shared + config.dynamic_shared_bytes) +
              " bytes of shared memory; an " + std::string(hw::emulated_arch) +
              " block can have at most " + std::to_string(hw::emulated.max_shared_per_block) +
              " (227 KB)";
    if (bad.empty() && args.size() != fn->params.size())
        bad = "kernel '" + display_name + "' takes " + std::to_string(fn->params.size()) +
              " parameters but the launch passes " + std::to_string(args.size()) +
              " (did the kernel's signature change? keep the one the exercise gave)";
    for (std::size_t i = 0; bad.empty() && i < args.size(); ++i)
        if (args[i].bytes.size() != fn->params[i].size)
            bad = "parameter " + std::to_string(i) + " of kernel '" + display_name + "' is " +
                  std::to_string(fn->params[i].size) + " bytes but the launch passes " +
                  std::to_string(args[i].bytes.size()) +
                  " (did the kernel's signature change? keep the one the exercise gave)";
    // Thread block clusters (sm_90): the launch's dimensions, or the kernel's __cluster_dims__
    // (.reqnctapercluster); checked as the runtime checks them (cudaErrorInvalidClusterSize).
    if (bad.empty()) {
        Dim3 cluster;
        bool explicit_cluster = false;
        bad = launch_cluster(*fn, config, &cluster, &explicit_cluster);
        const Dim3& g = config.grid;
        if (bad.empty() && explicit_cluster) {
            if (cluster.x == 0 || cluster.y == 0 || cluster.z == 0)
                bad = "a cluster dimension is 0";
            else if (cluster.count() > max_cluster_blocks)
                bad = "a cluster of " + std::to_string(cluster.count()) + " blocks; an " +
                      std::string(hw::emulated_arch) + " cluster has at most " +
                      std::to_string(max_cluster_blocks) + " (8 portably)";
            else if (g.x % cluster.x || g.y % cluster.y || g.z % cluster.z)
                bad = "the grid " + dim_text(g.x, g.y, g.z) +
                      " is not a whole number of clusters of " +
                      dim_text(cluster.x, cluster.y, cluster.z);
        }
    }
    if (!bad.empty())
        return Status::error(StatusCode::bad_usage,
                             "cannot launch '" + display_name + "': invalid configuration: " + bad);
    return Status::success();
}

// Dynamic parallelism: the grids a finished grid's threads launched, each run to completion with
// its own descendants before the next (CUDA 12 and later: a grid is complete only when its
// children are, so work after a launch in the same stream waits for the child's whole tree; no
// parent waits for a child, so running children after their parent is an order a GPU may take).
// Tail launches (cudaStreamTailLaunch) run after the grid's other children, as CUDA specifies.
// Their results (printf, footprint, instructions, warnings) are the parent launch's.
void Emulator::run_device_launches(LaunchState& state, const std::string& parent_name,
                                   LaunchResult& result) {
    constexpr std::uint64_t tail_launch_stream = 3;  // cudaStreamTailLaunch
    std::vector<LaunchState::DeviceLaunch> order;
    for (const auto& d : state.device_launches)
        if (d.stream != tail_launch_stream) order.push_back(d);
    for (const auto& d : state.device_launches)
        if (d.stream == tail_launch_stream) order.push_back(d);
    // Buffers handed out but never launched are the runtime's to reclaim.
    for (const auto& d : state.device_buffers) param_buffers_.push_back({d.buffer_bytes, d.buffer});
    const Dim3 grid = last_grid_, block = last_block_;
    const bool tracked = writers_tracked_;
    for (const auto& d : order) {
        if (!result.status.ok()) {
            if (d.function >= 0) param_buffers_.push_back({d.buffer_bytes, d.buffer});
            continue;
        }
        if (d.function < 0) {  // a device-side cudaMemcpyAsync / cudaMemsetAsync
            const bool copy = d.function == LaunchState::DeviceLaunch::copy_operation;
            std::vector<std::uint8_t> bytes(d.bytes, d.value);
            const bool ok = d.bytes <= memory_->bytes_allocated() &&
                            (!copy || memory_->copy_out(bytes.data(), d.source, d.bytes)) &&
                            memory_->copy_in(d.buffer, bytes.data(), d.bytes);
            if (ok) {
                if (state.record_footprint) {
                    if (copy) result.footprint.push_back({d.source, d.source + d.bytes, false});
                    result.footprint.push_back({d.buffer, d.buffer + d.bytes, true});
                    compact_footprint(result.footprint);
                }
                continue;
            }
            std::uint32_t b[3], t[3];
            linear_to_dims(d.block, state.config.grid, b);
            linear_to_dims(d.thread, state.config.block, t);
            auto hex = [](std::uint64_t v) {
                std::ostringstream h;
                h << "0x" << std::hex << v;
                return h.str();
            };
            std::ostringstream m;
            m << (program_->source_path.empty() ? std::string("kernel") : program_->source_path)
              << ": error: " << (copy ? "cudaMemcpyAsync" : "cudaMemsetAsync")
              << " in device code of " << d.bytes << " bytes " << (copy ? "from " : "")
              << (copy ? hex(d.source) + " to " : std::string("at ")) << hex(d.buffer)
              << ", which is not all device memory, by thread (" << t[0] << "," << t[1] << ","
              << t[2] << ") of block (" << b[0] << "," << b[1] << "," << b[2] << ") of kernel '"
              << parent_name
              << "'\n  try: copy between buffers from cudaMalloc (or device-side cudaMalloc), "
                 "inside their sizes";
            result.status = Status::error(StatusCode::kernel_fault, m.str());
            continue;
        }
        const PreparedFunction& pf = program_->functions[std::size_t(d.function)];
        std::vector<KernelArg> args(pf.fn.params.size());
        for (std::size_t i = 0; i < args.size(); ++i) {
            args[i].bytes.resize(pf.fn.params[i].size);
            memory_->copy_out(args[i].bytes.data(), d.buffer + pf.fn.params[i].offset,
                              pf.fn.params[i].size);
        }
        param_buffers_.push_back({d.buffer_bytes, d.buffer});
        LaunchConfig config;
        config.grid = d.grid;
        config.block = d.block_dim;
        config.dynamic_shared_bytes = d.dynamic_shared;
        ++device_depth_;
        LaunchResult child =
            launch(pf.fn.name, compiler::source_name_of(pf.fn.name), config, args, TraceOptions{});
        --device_depth_;
        result.printf_output += child.printf_output;
        result.printf_dropped_bytes += child.printf_dropped_bytes;
        result.stats.warp_instructions += child.stats.warp_instructions;
        result.stats.thread_instructions += child.stats.thread_instructions;
        for (auto& w : child.warnings) result.warnings.push_back(std::move(w));
        result.uninitialised_shared_reads += child.uninitialised_shared_reads;
        if (result.first_uninitialised_shared_read.empty())
            result.first_uninitialised_shared_read = child.first_uninitialised_shared_read;
        result.global_races += child.global_races;
        if (result.first_global_race.empty()) result.first_global_race = child.first_global_race;
        if (state.record_footprint) {
            result.footprint.insert(result.footprint.end(), child.footprint.begin(),
                                    child.footprint.end());
            compact_footprint(result.footprint);
        }
        if (!child.status.ok()) {
            std::uint32_t b[3], t[3];
            linear_to_dims(d.block, state.config.grid, b);
            linear_to_dims(d.thread, state.config.block, t);
            result.status = child.status;
            result.status.message += "\n  (a grid launched from the device: by thread (" +
                                     std::to_string(t[0]) + "," + std::to_string(t[1]) + "," +
                                     std::to_string(t[2]) + ") of block (" + std::to_string(b[0]) +
                                     "," + std::to_string(b[1]) + "," + std::to_string(b[2]) +
                                     ") of kernel '" + parent_name + "', nesting depth " +
                                     std::to_string(device_depth_ + 1) + ")";
        }
    }
    last_grid_ = grid;
    last_block_ = block;
    writers_tracked_ = tracked;
}

LaunchResult Emulator::launch(const std::string& entry, const std::string& display_name,
                              const LaunchConfig& config, const std::vector<KernelArg>& args,
                              const TraceOptions& trace_options) {
    LaunchResult result;
    auto started = std::chrono::steady_clock::now();
    result.status = check_launch(entry, display_name, config, args);
    if (!result.status.ok()) return result;
    const ptx::Function* fn = program_->module.find(entry);
    const std::size_t kernel_index = std::size_t(program_->module.function_index.at(entry));
    const PreparedFunction& pk = program_->functions[kernel_index];
    const std::uint32_t static_shared = pk.static_shared_bytes;
    const Dim3& g = config.grid;
    const Dim3& bl = config.block;
    Dim3 cluster;  // thread block clusters (checked above)
    bool explicit_cluster = false;
    launch_cluster(*fn, config, &cluster, &explicit_cluster);

    // Every block runs at least one warp instruction, so a grid of more blocks than the budget
    // cannot finish inside it: said at once rather than after running the budget out. (The grid's
    // block count is 64-bit: 65536 x 32768 x 2 blocks must not wrap to none.)
    const std::uint64_t block_count = g.count();
    if (block_count > options_.instruction_budget || block_count > 0xfffff000ull) {
        result.status = Status::error(
            StatusCode::kernel_fault,
            (program_->source_path.empty() ? std::string("kernel") : program_->source_path) +
                ": error: instruction budget exhausted in kernel '" + display_name +
                "': the grid " + dim_text(g.x, g.y, g.z) + " has " + std::to_string(block_count) +
                " blocks and each runs at least one warp instruction, more than the budget of " +
                std::to_string(options_.instruction_budget) +
                " warp instructions per launch\n  try: launch as many blocks as the data needs (a "
                "grid-stride loop covers any size); "
                "raise the budget with --budget if the work is really this large");
        return result;
    }
    LaunchState state(*program_, *memory_);
    state.kernel = std::int32_t(kernel_index);
    state.config = config;
    state.params.assign(fn->param_bytes, 0);
    for (std::size_t i = 0; i < args.size(); ++i)
        if (!args[i].bytes.empty())
            std::memcpy(state.params.data() + fn->params[i].offset, args[i].bytes.data(),
                        args[i].bytes.size());
    state.static_shared = static_shared;
    state.shared_bytes = static_shared + config.dynamic_shared_bytes;
    if (program_->uses_reserved_shared) {
        state.reserved_shared = std::uint32_t(align_up(state.shared_bytes, 16));
        state.shared_bytes = state.reserved_shared + reserved_shared_bytes;
    }
    // Child grids share what their host-launched ancestor left of the budget.
    state.budget = device_depth_ ? device_budget_left_ : options_.instruction_budget;
    state.device_depth = device_depth_;
    state.device_launch_limit = options_.device_pending_launch_limit;
    state.error_text = options_.error_text ? &options_.error_text : nullptr;
    state.error_texts = &error_texts_;
    state.param_buffers = &param_buffers_;
    state.detect_races = options_.detect_races;
    state.record_footprint = options_.record_footprint;
    state.independent_scheduling = options_.independent_scheduling;
    state.scheduling_seed = options_.scheduling_seed;
    state.only_argument_buffers = options_.only_argument_buffers;
    state.num_sms = std::max<std::uint32_t>(1, options_.num_sms);
    state.display_name = display_name;
    state.cluster = cluster;
    state.explicit_cluster = explicit_cluster;
    last_grid_ = g;
    last_block_ = bl;
    const bool record_writers = trace_options.enabled && trace_options.writers;
    if (record_writers) {
        // A traced launch records which thread wrote each word: a shadow as large as the buffers.
        if (memory_->bytes_allocated() * 2 > options_.memory_limit) {
            result.status = Status::error(
                StatusCode::kernel_fault,
                "cannot launch '" + display_name +
                    "': memory limit reached: recording which thread wrote each word of " +
                    std::to_string(memory_->bytes_allocated() >> 20) +
                    " MB of buffers would take the emulator past its " +
                    std::to_string(options_.memory_limit >> 20) +
                    " MB limit (raise it with --memory-limit)");
            return result;
        }
        memory_->track_writers();
    }
    state.track_writers = writers_tracked_ = record_writers;

    const std::uint32_t blocks = std::uint32_t(block_count);
    std::set<std::uint32_t> detail;
    if (trace_options.enabled) {
        if (trace_options.detail_blocks.empty())
            for (std::uint32_t b = 0; b < std::min(blocks, trace_options.auto_detail_blocks); ++b)
                detail.insert(b);
        else
            for (std::uint32_t b : trace_options.detail_blocks)
                if (b < blocks) detail.insert(b);
    }
    // Residency: blocks fill the modelled SMs round-robin, as many per SM as threads and the block
    // limit allow; each fill is a wave.
    constexpr std::uint64_t threads_per_sm =
        std::uint64_t(hw::emulated.max_warps_per_sm) * hw::warp_size;
    const std::uint32_t per_sm = std::max<std::uint32_t>(
        1, std::min<std::uint32_t>(
               std::uint32_t(hw::emulated.max_blocks_per_sm),
               std::uint32_t(threads_per_sm / std::max<std::uint64_t>(1, bl.count()))));

    unsigned workers = options_.worker_threads ? options_.worker_threads
                                               : std::max(1u, std::thread::hardware_concurrency());
    // Atomic results and device malloc's addresses must not depend on thread timing.
    // (Device-side launches are recorded in launch order, and their buffers allocated, likewise.)
    if (program_->uses_global_atomics || program_->uses_device_malloc ||
        program_->uses_device_launch)
        workers = 1;
    workers = std::max(1u, std::min<unsigned>(workers, blocks));
    // Local memory: what the memory limit leaves after the allocations, shared by every thread that
    // can be resident at once (a block on each worker), and never more than a GPU thread's 512 KB.
    {
        const std::uint64_t used = memory_->bytes_allocated() + memory_->shadow_bytes();
        const std::uint64_t left = options_.memory_limit > used ? options_.memory_limit - used : 0;
        // (A cooperative launch has every block resident at once.)
        const std::uint64_t threads =
            (bl.count() + 31) / 32 * 32 * (config.cooperative ? blocks : workers * cluster.count());
        const std::uint64_t share = left / std::max<std::uint64_t>(1, threads);
        state.local_limit =
            std::min<std::uint64_t>(std::uint64_t(hw::max_local_bytes_per_thread), share);
        state.local_limit_reason =
            share < std::uint64_t(hw::max_local_bytes_per_thread)
                ? "each thread may use at most " + std::to_string(state.local_limit) +
                      " bytes here: the emulator memory limit of " +
                      std::to_string(options_.memory_limit >> 20) +
                      " MB, less what the buffers use, shared by " + std::to_string(threads) +
                      " threads (raise it with --memory-limit)"
                : "a GPU thread may use at most 512 KB of local memory (the limit)";
    }
    state.printf_limit = options_.printf_limit;
    state.printf_drops = options_.printf_overflow_drops;
    state.deadline = options_.deadline;
    std::vector<WorkerResult> results(workers);
    std::atomic<std::uint32_t> next_block{0};
    const std::uint32_t chunk = std::clamp<std::uint32_t>(blocks / (workers * 16), 1, 32);
    std::atomic<std::uint64_t> events_total{0};
    auto worker = [&](unsigned w) {
        WorkerResult& r = results[w];
        std::vector<PcCounters>* counters = trace_options.enabled ? &r.counters : nullptr;
        if (counters) r.counters.assign(program_->total_pcs, PcCounters{});
        Block block;
        block.counters = counters;
        ClusterState solo;  // each block is a cluster of one
        std::uint32_t b = 0, chunk_end = 0;
        for (bool first = true;; first = false) {
            // Blocks are taken a few at a time: one shared counter bumped per short block cost as
            // much as running it. Small enough that the workers still finish together.
            if (first || b + 1 >= chunk_end) {
                b = next_block.fetch_add(chunk);
                chunk_end = b < blocks ? std::min(blocks, b + chunk) : b;
            } else {
                ++b;
            }
            // After a fault in block f, blocks below f still run (one of them may fault first: the
            // report names the lowest faulting block, whatever the threads' timing); later ones
            // not.
            if (b >= blocks || b > state.fault_block.load()) break;
            block.linear = b;
            linear_to_dims(b, g, block.ctaid);
            block.sm = std::uint8_t(b % state.num_sms);
            block.detail = detail.count(b) > 0;
            solo.blocks.assign(1, &block);
            solo.phase = 0;
            block.cluster = &solo;
            block.cluster_rank = 0;
            try {
                run_block(state, block, r, trace_options.max_events, events_total);
            } catch (const Fault& f) {
                if (!r.faulted || f.info.block < r.fault.block) {
                    r.faulted = true;
                    r.fault = f.info;
                }
                std::uint32_t seen = state.fault_block.load();
                while (f.info.block < seen &&
                       !state.fault_block.compare_exchange_weak(seen, f.info.block)) {
                }
                continue;
            }
            if (block.detail) {
                flush_counts(state, block);
                take_footprint(r, block);
                r.detail_blocks.push_back(std::move(block));
                block = Block{};
                block.counters = counters;
            }
        }
        flush_counts(state, block);
        take_footprint(r, block);
    };
    if (config.cooperative) {
        // Every block resident at once (the runtime checked that they fit): blocks take turns in
        // short rounds, so one spinning at a grid-wide barrier lets the others reach it.
        const std::uint64_t workspace = memory_->allocate(16, "cooperative grid workspace");
        const std::uint32_t header[2] = {16, 0};  // cooperative_groups' {wsSize, barrier}
        memory_->copy_in(workspace, header, sizeof header);
        state.grid_workspace = workspace;
        state.flush_every = 0;  // many blocks at once: each round's counts go to the totals at once
        WorkerResult& r = results[0];
        if (trace_options.enabled) r.counters.assign(program_->total_pcs, PcCounters{});
        std::vector<Block> grid(blocks);
        std::vector<ClusterState> solos(blocks);  // each block is a cluster of one
        std::vector<BlockOutput> outputs(blocks);
        std::vector<char> finished(blocks, 0);
        for (std::uint32_t b = 0; b < blocks; ++b) {
            Block& block = grid[b];
            block.counters = trace_options.enabled ? &r.counters : nullptr;
            block.linear = b;
            linear_to_dims(b, g, block.ctaid);
            block.sm = std::uint8_t(b % state.num_sms);
            block.detail = detail.count(b) > 0;
            solos[b].blocks.assign(1, &block);
            block.cluster = &solos[b];
            begin_block(state, block);
        }
        std::uint64_t printed = 0;  // printf bytes of every block so far (the limit is per launch)
        try {
            for (std::uint32_t left = blocks; left;) {
                for (std::uint32_t b = 0; b < blocks; ++b) {
                    if (finished[b]) continue;
                    const std::uint64_t before = outputs[b].printf_text.size();
                    state.printf_bytes.store(printed - before,
                                             std::memory_order_relaxed);  // the other blocks'
                    const bool done =
                        step_block(state, grid[b], r, outputs[b], trace_options.max_events,
                                   grid[b].detail ? 1 : 256);
                    printed += outputs[b].printf_text.size() - before;
                    if (!done) continue;
                    finished[b] = 1;
                    --left;
                    state.printf_bytes.fetch_add(outputs[b].printf_text.size(),
                                                 std::memory_order_relaxed);
                    if (!outputs[b].printf_text.empty())
                        r.printf_blocks.push_back({b, std::move(outputs[b].printf_text)});
                }
            }
        } catch (const Fault& f) {
            r.faulted = true;
            r.fault = f.info;
        }
        for (std::uint32_t b = 0; b < blocks; ++b) {
            take_footprint(r, grid[b]);
            if (grid[b].detail) r.detail_blocks.push_back(std::move(grid[b]));
        }
        memory_->release(workspace);
    } else if (cluster.count() > 1) {
        // Clusters: a worker takes a whole cluster and runs its blocks together (run_cluster).
        const Dim3 nclusters{g.x / cluster.x, g.y / cluster.y, g.z / cluster.z};
        const std::uint32_t cluster_count = std::uint32_t(nclusters.count());
        const std::uint32_t size = std::uint32_t(cluster.count());
        std::atomic<std::uint32_t> next_cluster{0};
        workers = std::max(1u, std::min<unsigned>(workers, cluster_count));
        auto cluster_worker = [&](unsigned w) {
            WorkerResult& r = results[w];
            std::vector<PcCounters>* counters = trace_options.enabled ? &r.counters : nullptr;
            if (counters) r.counters.assign(program_->total_pcs, PcCounters{});
            std::vector<Block> members(size);
            ClusterState cs;
            for (;;) {
                const std::uint32_t c = next_cluster.fetch_add(1);
                if (c >= cluster_count) break;
                std::uint32_t id[3];
                linear_to_dims(c, nclusters, id);
                std::uint32_t lowest = ~0u;
                for (std::uint32_t rank = 0; rank < size; ++rank) {
                    std::uint32_t in[3];
                    linear_to_dims(rank, cluster, in);
                    Block& block = members[rank];
                    block.counters = counters;
                    block.ctaid[0] = id[0] * cluster.x + in[0];
                    block.ctaid[1] = id[1] * cluster.y + in[1];
                    block.ctaid[2] = id[2] * cluster.z + in[2];
                    block.linear = block.ctaid[0] + g.x * (block.ctaid[1] + g.y * block.ctaid[2]);
                    block.cluster_rank = rank;
                    block.sm = std::uint8_t(block.linear % state.num_sms);
                    block.detail = detail.count(block.linear) > 0;
                    lowest = std::min(lowest, block.linear);
                }
                if (lowest > state.fault_block.load()) continue;
                try {
                    run_cluster(state, members, cs, r, trace_options.max_events);
                } catch (const Fault& f) {
                    if (!r.faulted || f.info.block < r.fault.block) {
                        r.faulted = true;
                        r.fault = f.info;
                    }
                    std::uint32_t seen = state.fault_block.load();
                    while (f.info.block < seen &&
                           !state.fault_block.compare_exchange_weak(seen, f.info.block)) {
                    }
                }
                for (Block& block : members) {
                    flush_counts(state, block);
                    take_footprint(r, block);
                    if (block.detail) {
                        r.detail_blocks.push_back(std::move(block));
                        block = Block{};
                    }
                }
            }
        };
        WorkerPool::shared().run(workers, cluster_worker);
    } else {
        WorkerPool::shared().run(workers, worker);
    }

    // Merge: counters summed; detail blocks and printf output in block order.
    auto trace = std::make_shared<Trace>();
    trace->kernel.name = display_name;
    trace->kernel.entry = entry;
    trace->kernel.grid[0] = g.x;
    trace->kernel.grid[1] = g.y;
    trace->kernel.grid[2] = g.z;
    trace->kernel.block[0] = bl.x;
    trace->kernel.block[1] = bl.y;
    trace->kernel.block[2] = bl.z;
    trace->kernel.dynamic_shared_bytes = config.dynamic_shared_bytes;
    trace->kernel.num_sms = state.num_sms;
    trace->kernel.cluster[0] = cluster.x;
    trace->kernel.cluster[1] = cluster.y;
    trace->kernel.cluster[2] = cluster.z;
    trace->per_pc.assign(program_->total_pcs, PcCounters{});
    trace->pcs.resize(trace_options.enabled ? program_->total_pcs
                                            : 0);  // untraced: no trace is returned
    for (const auto& pf : program_->functions) {
        if (!trace_options.enabled) break;
        for (std::size_t i = 0; i < pf.fn.code.size(); ++i) {
            PcInfo& info = trace->pcs[pf.pc_base + i];
            info.line = pf.fn.code[i].line;
            info.text = pf.fn.code[i].text;
            info.op_class = ptx::op_class_name(ptx::info(pf.fn.code[i].op).op_class);
            info.opcode = std::string(ptx::info(pf.fn.code[i].op).mnemonic);
            info.function = pf.fn.name;
        }
    }
    std::vector<std::pair<std::uint32_t, std::string>> printed;
    std::vector<Block> detail_blocks;
    const FaultInfo* fault = nullptr;
    for (auto& r : results) {
        for (std::size_t i = 0; i < r.counters.size(); ++i) {
            PcCounters& t = trace->per_pc[i];
            const PcCounters& c = r.counters[i];
            t.warp_executions += c.warp_executions;
            t.active_lanes += c.active_lanes;
            t.predicated_lanes += c.predicated_lanes;
            t.requests += c.requests;
            t.sectors += c.sectors;
            t.lines += c.lines;
            t.requested_bytes += c.requested_bytes;
            t.shared_wavefronts += c.shared_wavefronts;
            t.shared_ideal_wavefronts += c.shared_ideal_wavefronts;
            t.divergent_branches += c.divergent_branches;
            t.atomics += c.atomics;
            t.constant_loads += c.constant_loads;
            t.constant_requests += c.constant_requests;
        }
        for (auto& p : r.printf_blocks) printed.push_back(std::move(p));
        for (auto& b : r.detail_blocks) detail_blocks.push_back(std::move(b));
        trace->barriers += r.barriers;
        trace->dropped_events += r.dropped_events;
        if (r.faulted && (!fault || r.fault.block < fault->block)) fault = &r.fault;
    }
    std::sort(printed.begin(), printed.end(), [](auto& a, auto& b) { return a.first < b.first; });
    for (auto& p : printed) result.printf_output += p.second;
    result.printf_dropped_bytes = state.printf_dropped.load();
    if (state.printf_drops && result.printf_output.size() > state.printf_limit) {
        // Blocks running at once each kept what fitted when they printed: keep the first records
        // in block order, up to the limit (whole lines where there are any).
        std::size_t keep = std::size_t(state.printf_limit);
        const std::size_t line =
            keep ? result.printf_output.rfind('\n', keep - 1) : std::string::npos;
        if (line != std::string::npos) keep = line + 1;
        result.printf_dropped_bytes += result.printf_output.size() - keep;
        result.printf_output.resize(keep);
    }
    std::sort(detail_blocks.begin(), detail_blocks.end(),
              [](const Block& a, const Block& b) { return a.linear < b.linear; });
    std::size_t total_events = 0, total_accesses = 0;
    for (const Block& b : detail_blocks) {
        total_events += b.events.size();
        total_accesses += b.accesses.size();
    }
    trace->events.reserve(total_events);  // one allocation each, not a doubling per push
    trace->accesses.reserve(total_accesses);
    for (Block& b : detail_blocks) {
        trace->detail_blocks.push_back(b.linear);
        const std::int32_t offset = std::int32_t(trace->accesses.size());
        for (WarpEvent e : b.events) {
            if (e.mem >= 0) e.mem += offset;
            trace->events.push_back(e);
        }
        trace->accesses.insert(trace->accesses.end(), b.accesses.begin(), b.accesses.end());
        std::vector<WarpEvent>().swap(b.events);  // freed as we go: the peak is one copy, not two
        std::vector<MemAccess>().swap(b.accesses);
    }
    // Per-block placement, for the views of a traced launch only (5 bytes a block).
    trace->block_sm.resize(trace_options.enabled ? blocks : 0);
    trace->block_wave.resize(trace_options.enabled ? blocks : 0);
    for (std::uint32_t b = 0; b < blocks && trace_options.enabled; ++b) {
        trace->block_sm[b] = std::uint8_t(b % state.num_sms);
        trace->block_wave[b] = b / (state.num_sms * per_sm);
    }
    result.stats.warp_instructions = state.warp_instructions.load();
    result.stats.thread_instructions = state.thread_instructions.load();
    result.warnings = std::move(state.warnings);
    result.uninitialised_shared_reads = state.uninitialised_shared_reads;
    result.first_uninitialised_shared_read = std::move(state.first_uninitialised_shared_read);
    if (state.record_footprint) {
        for (auto& r : results)
            result.footprint.insert(result.footprint.end(), r.footprint.begin(), r.footprint.end());
        compact_footprint(result.footprint);
    }
    result.global_races = state.global_races;
    result.first_global_race = std::move(state.first_global_race);
    if (trace_options.enabled) result.trace = std::move(trace);
    if (fault)
        result.status = Status::error(StatusCode::kernel_fault,
                                      format_fault(*program_, config, display_name, *fault));
    {
        const std::uint64_t used = state.warp_instructions.load();
        device_budget_left_ = state.budget > used ? state.budget - used : 0;
    }
    if (!state.device_launches.empty() || !state.device_buffers.empty())
        run_device_launches(state, display_name, result);
    result.stats.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return result;
}

}  // namespace cudalab::emu
