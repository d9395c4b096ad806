// Decoded PTX: what the parser produces and the emulator executes. PTX text is read once; the
// execute loop sees only these flat records, with registers as dense indices.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "ptx/opcodes.h"

namespace cudalab::ptx {

// Scalar types (PTX ISA 5.2). `pred` is a 1-bit predicate.
// Grouped by kind, by hand.
// clang-format off
enum class Type : std::uint8_t {
    none, b8, b16, b32, b64, b128, u8, u16, u32, u64, s8, s16, s32, s64,
    f16, f16x2, bf16, bf16x2, f32, f64, pred,
    u2, s2, u4, s4,  // cvt.pack destinations only
    u16x2, s16x2,    // two 16-bit integers in 32 bits (SIMD add, sub, min, max: PTX 8.0)
    tf32,            // an f32 with 10 mantissa bits, in 32 bits (cvt destinations only)
};
// clang-format on
// Inline: the interpreter asks these on every memory instruction.
constexpr int type_bits(Type t) {
    switch (t) {
    case Type::u2:
    case Type::s2: return 2;
    case Type::u4:
    case Type::s4: return 4;
    case Type::b8:
    case Type::u8:
    case Type::s8: return 8;
    case Type::b16:
    case Type::u16:
    case Type::s16:
    case Type::f16:
    case Type::bf16: return 16;
    case Type::b32:
    case Type::u32:
    case Type::s32:
    case Type::f32:
    case Type::f16x2:
    case Type::bf16x2:
    case Type::u16x2:
    case Type::s16x2:
    case Type::tf32: return 32;
    case Type::b64:
    case Type::u64:
    case Type::s64:
    case Type::f64: return 64;
    case Type::b128: return 128;
    case Type::pred: return 1;
    default: return 0;
    }
}
constexpr bool type_is_float(Type t) {
    return t == Type::f16 || t == Type::f16x2 || t == Type::bf16 || t == Type::bf16x2 ||
           t == Type::f32 || t == Type::f64;
}
constexpr bool type_is_signed(Type t) {
    return t == Type::s8 || t == Type::s16 || t == Type::s32 || t == Type::s64 || t == Type::s2 ||
           t == Type::s4;
}
const char* type_name(Type t);

enum class Space : std::uint8_t { none, generic, global, shared, local, param, constant, reg };

// Comparison operators for setp/set (9.7.5.1), including the unordered float forms.
enum class Cmp : std::uint8_t {
    none,
    eq,
    ne,
    lt,
    le,
    gt,
    ge,
    lo,
    ls,
    hi,
    hs,
    equ,
    neu,
    ltu,
    leu,
    gtu,
    geu,
    num,
    nan
};

enum class Rounding : std::uint8_t { none, rn, rz, rm, rp, rni, rzi, rmi, rpi, rna };

// Modifier flags that change an instruction's meaning.
enum Flag : std::uint32_t {
    f_ftz = 1u << 0,
    f_sat = 1u << 1,
    f_approx = 1u << 2,
    f_full = 1u << 3,
    f_hi = 1u << 4,
    f_lo = 1u << 5,
    f_wide = 1u << 6,
    f_uni = 1u << 7,
    f_sync = 1u << 8,
    f_aligned = 1u << 9,
    f_cc = 1u << 10,
    f_volatile = 1u << 11,
    f_nc = 1u << 12,
    f_shift_clamp = 1u << 13,
    f_shift_left = 1u << 14,
    f_relu = 1u << 15,
    f_arrive = 1u << 16,
    f_red = 1u << 17,
    f_noftz = 1u << 18,
    f_to = 1u << 19,   // cvta.to
    f_nan = 1u << 20,  // min/max.NaN: a NaN operand gives NaN
    // cvt.satfinite: out-of-range results clamp to the largest finite value
    f_satfinite = 1u << 21,
    f_shiftamt = 1u << 22,     // bfind.shiftamt
    f_parity = 1u << 23,       // mbarrier.test_wait/try_wait.parity: the operand is a phase parity
    f_no_complete = 1u << 24,  // mbarrier.arrive.noComplete: must not complete the phase
    f_expect_tx = 1u << 25,    // mbarrier.arrive.expect_tx: also expect a transaction count
    f_noinc = 1u << 26,        // cp.async.mbarrier.arrive.noinc
    f_bulk_to_global = 1u << 27,    // cp.async.bulk.global.shared::cta: shared memory to global
    f_bulk_from_shared = 1u << 28,  // cp.async.bulk.shared::cluster.shared::cta
    // .shared::cluster (ld, st, atom, red, mapa, getctarank, isspacep, cvta): the address may name
    // another block's shared memory in the cluster (distributed shared memory)
    f_cluster = 1u << 29,
};

// Sub-operations: atom/red operation, shfl mode, vote mode, bool op of setp, redux op, ...
enum class SubOp : std::uint8_t {
    none,
    // atom / red / redux / bar.red
    add,
    min,
    max,
    inc,
    dec,
    and_,
    or_,
    xor_,
    exch,
    cas,
    popc,
    // shfl
    up,
    down,
    bfly,
    idx,
    // vote
    all,
    any,
    uni,
    ballot,
    // match
    match_any,
    match_all,
    // prmt modes (9.7.8.7); none is the default byte selection
    prmt_f4e,
    prmt_b4e,
    prmt_rc8,
    prmt_ecl,
    prmt_ecr,
    prmt_rc16,
    // testp properties (9.7.3.20)
    testp_finite,
    testp_infinite,
    testp_number,
    testp_notanumber,
    testp_normal,
    testp_subnormal,
    // cp.async forms (9.7.9): none is the copy itself
    cp_commit_group,
    cp_wait_group,
    cp_wait_all,
    cp_mbarrier_arrive,
    cp_bulk,           // cp.async.bulk: a copy of any multiple of 16 bytes
    cp_bulk_prefetch,  // cp.async.bulk.prefetch.L2
};

// Special registers (10.x). Per-lane constants (tid, laneid, lanemask_*) are materialised into
// ordinary registers when a warp starts; the rest are read when executed.
enum class Special : std::uint8_t {
    none,
    tid_x,
    tid_y,
    tid_z,
    ntid_x,
    ntid_y,
    ntid_z,
    ctaid_x,
    ctaid_y,
    ctaid_z,
    nctaid_x,
    nctaid_y,
    nctaid_z,
    laneid,
    warpid,
    nwarpid,
    smid,
    nsmid,
    gridid,
    lanemask_eq,
    lanemask_lt,
    lanemask_le,
    lanemask_gt,
    lanemask_ge,
    clock,
    clock64,
    globaltimer,
    globaltimer_lo,
    globaltimer_hi,
    dynamic_smem_size,
    total_smem_size,
    warpsz,
    envreg0,
    envreg1,
    envreg2,  // driver ABI: 1 and 2 hold the cooperative grid workspace's address
    // The reserved shared memory of sm_80 and later (%reserved_smem_offset_begin/end/cap/0/1):
    // cooperative groups keeps its multi-warp tiles' scratch at %reserved_smem_offset_1.
    reserved_smem_begin,
    reserved_smem_end,
    reserved_smem_cap,
    reserved_smem_0,
    reserved_smem_1,
    // Clusters (sm_90): a launch without cluster dimensions runs each block as a cluster of one,
    // so a block is rank 0 of 1 and its cluster's id is its own.
    cluster_ctarank,
    cluster_nctarank,
    cluster_ctaid_x,
    cluster_ctaid_y,
    cluster_ctaid_z,
    cluster_nctaid_x,
    cluster_nctaid_y,
    cluster_nctaid_z,
    clusterid_x,
    clusterid_y,
    clusterid_z,
    nclusterid_x,
    nclusterid_y,
    nclusterid_z,
    is_explicit_cluster,  // a predicate: the launch gave cluster dimensions (or __cluster_dims__)
    count_
};

// The most registers a {vector} operand holds: eight (a wmma fragment, 9.7.14.4).
constexpr int max_vector_registers = 8;

enum class OperandKind : std::uint8_t {
    none,
    reg,      // a register (ordinary, materialised special or materialised immediate)
    imm,      // an immediate (value); also materialised into `reg` by the loader
    special,  // a special register read at execution time (%clock, %smid, ...)
    address,  // [reg + offset] or [symbol + offset]; symbol resolved to `symbol`
    symbol,   // a symbol used as a value (mov %rd, sym): its address
    label,    // a branch target
    vector,   // {r1, r2, r3, r4}
    sink,     // _
};

struct Operand {
    OperandKind kind = OperandKind::none;
    bool negate = false;     // !%p
    std::int32_t reg = -1;   // register index (reg, address base; -1: none)
    std::int64_t value = 0;  // immediate bits / address offset
    enum Scope : std::uint8_t {
        module_scope,
        function_scope,
        param_scope,
        return_scope,
        code_scope
    };
    Scope scope = module_scope;  // where `symbol` indexes: Module::globals, Function::locals,
                                 // Function::params, Function::returns, Module::functions (a
                                 // function's address: function pointers)
    std::int32_t symbol = -1;    // symbol index (address, symbol operands); -1: none
    Special special = Special::none;
    std::int32_t vec[max_vector_registers] = {-1, -1, -1, -1, -1, -1, -1, -1};
    std::uint8_t vec_count = 0;
    std::string name;  // label or callee name (resolved after parsing)
};

// The matrix instructions' modifiers (9.7.14: wmma, mma, ldmatrix, stmatrix, movmatrix).
struct MatrixForm {
    std::uint8_t m = 0, n = 0, k = 0;  // .m16n8k16, .m8n8 (k 0)
    char matrix = 0;                   // wmma.load/store: 'a', 'b', 'c' or 'd'
    bool a_col = false;                // .col for A (wmma.load/store: the one layout given)
    bool b_col = false;                // .col for B (wmma.mma, mma)
    bool trans = false;                // ldmatrix/stmatrix/movmatrix .trans
    std::uint8_t count = 0;            // ldmatrix/stmatrix .x1, .x2, .x4
    // mma/wmma.mma: the types of D, A, B and C in the order written (wmma.mma of f16 gives D
    // and C only; A and B are then f16).
    Type d = Type::none, a = Type::none, b = Type::none, c = Type::none;
};

// The modifiers of the texture and surface instructions (9.7.10, 9.7.11).
enum class TexGeometry : std::uint8_t { none, d1, d2, d3, a1d, a2d, cube, acube };
struct TextureForm {
    TexGeometry geometry = TexGeometry::none;
    enum class Lod : std::uint8_t { base, level, grad } lod = Lod::base;  // tex.level, tex.grad
    std::int8_t component = -1;                                           // tld4.r/.g/.b/.a: 0-3
    enum class Clamp : std::uint8_t { trap, clamp, zero } clamp = Clamp::trap;  // su*
    std::string query;         // txq/suq: "width", "num_mipmap_levels", ...
    bool query_level = false;  // txq.level
};

struct Instruction {
    Opcode op = Opcode::mov;
    Type type = Type::none;     // the (last) instruction type: add.s32 -> s32, cvt.f32.s32 -> f32
    Type type2 = Type::none;    // second type: cvt source, setp compare type when different, ...
    Type type3 = Type::none;    // third type (vadd4.u32.s32.s32: b's), else type2
    Space space = Space::none;  // ld/st/atom/cvta/isspacep state space
    Cmp cmp = Cmp::none;
    SubOp sub = SubOp::none;      // atom op, shfl mode, vote mode
    SubOp bool_op = SubOp::none;  // setp.lt.and: and/or/xor
    Rounding rounding = Rounding::none;
    MatrixForm matrix;        // wmma, mma, ldmatrix, stmatrix, movmatrix
    TextureForm texture;      // tex, tld4, txq, suld, sust, sured, suq
    std::uint8_t vector = 1;  // .v2 / .v4
    std::uint32_t flags = 0;
    std::int32_t guard = -1;  // @%p guard register, -1 for none
    bool guard_negated = false;
    std::uint8_t operand_count = 0;
    Operand operands[6];
    std::int32_t target = -1;  // bra: target pc; call: callee function index
    std::vector<std::int32_t> call_results, call_args;  // call: the call site's .param symbols
                                                        // (Function::locals indices), in order
    std::int32_t reconverge = -1;  // bra: immediate post-dominator pc (-1: function exit)
    std::uint32_t line = 0;        // source line from .loc (0: none)
    std::uint32_t file = 0;        // .file index
    std::uint32_t ptx_line = 0;    // line in the PTX text (for errors)
    std::string text;              // the instruction as written (for views and errors)
};

// An initialiser that holds an address, resolved when the module is loaded:
// `.global .u64 table[2] = {_Z3addi, _Z3subi};`, `= {generic(data)}`, `= {data+8}`.
struct Relocation {
    std::uint64_t offset = 0;  // where in the symbol's bytes (8 bytes are written)
    std::string target;        // a function or a module-scope variable
    bool generic = false;      // generic(var): the variable's generic address
    std::int64_t addend = 0;
};

struct Symbol {
    std::string name;
    Space space = Space::none;
    Type type = Type::none;
    std::uint32_t align = 1;
    std::uint64_t size = 0;    // bytes (0 for extern .shared [] )
    std::uint64_t offset = 0;  // assigned by the loader / parser within its space
    bool is_extern = false;
    bool is_managed = false;         // .attribute(.managed): host and device share it
    std::vector<std::uint8_t> init;  // initialiser bytes, if any
    std::vector<Relocation> relocations;
};

struct Param {
    std::string name;
    Type type = Type::none;
    std::uint32_t size = 0;  // bytes (.param .align 8 .b8 p[16] -> 16)
    std::uint32_t align = 0;
    std::uint32_t offset = 0;      // within the parameter buffer
    bool is_pointer_hint = false;  // .ptr attribute
};

struct Function {
    std::string name;
    bool is_entry = false;
    bool is_extern = false;  // declared only (e.g. vprintf)
    std::vector<Param> params;
    std::vector<Param> returns;
    std::uint32_t param_bytes = 0;
    std::uint32_t return_bytes = 0;
    std::vector<std::string> register_names;  // index -> name
    std::vector<Type> register_types;
    std::unordered_map<std::string, std::int32_t> registers;  // name -> index
    std::vector<Symbol> locals;  // .local / .shared / .param declared inside the body
    std::vector<Instruction> code;
    std::unordered_map<std::string, std::int32_t> labels;  // label -> pc
    std::uint32_t first_line = 0;  // source line of the function's first .loc
    // Performance directives.
    std::uint32_t maxntid[3] = {0, 0, 0};
    std::uint32_t reqntid[3] = {0, 0, 0};
    std::uint32_t minnctapersm = 0;
    std::uint32_t maxnreg = 0;
    // Cluster directives (sm_90): .reqnctapercluster x, y, z (0: none), .explicitcluster (the
    // kernel must be launched with cluster dimensions; __cluster_dims__ gives both),
    // .maxclusterrank.
    std::uint32_t reqnctapercluster[3] = {0, 0, 0};
    bool explicit_cluster = false;
    std::uint32_t maxclusterrank = 0;
    std::uint32_t ptx_line = 0;
    // Instructions the emulator cannot run (an unknown opcode or modifier), in PTX order. They are
    // left out of `code`; a launch that reaches this function fails naming the first.
    struct Unsupported {
        std::string message;         // "ptx:212: unknown modifier '.u16x2' in 'add.u16x2'"
        std::uint32_t ptx_line = 0;  // its line in the PTX text
        std::uint32_t file = 0;      // .file index of its source line (.loc)
        std::uint32_t line = 0;      // source line (0: none)
    };
    std::vector<Unsupported> unsupported;
};

struct Module {
    std::string version;
    std::string target;
    int address_size = 64;
    std::vector<Function> functions;
    std::vector<Symbol> globals;                 // .global, .const, .shared at module scope
    std::map<std::uint32_t, std::string> files;  // .file index -> path
    std::unordered_map<std::string, std::int32_t> function_index;

    const Function* find(const std::string& name) const;
};

}  // namespace cudalab::ptx
