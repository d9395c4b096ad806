// libFuzzer target for the PTX parser: any bytes must give a module or an error naming a line,
// never a crash, a hang or a module the emulator cannot trust. Beyond parse(), it checks the
// invariants the emulator's load() relies on (every register, symbol, label and callee index in
// range) and computes reconvergence points as load() does. See docs/emulator.md, "Fuzzing".
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "ptx/cfg.h"
#include "ptx/parser.h"

namespace {

[[noreturn]] void broken(const char* what, const std::string& where) {
    std::fprintf(stderr, "parsed module breaks an invariant: %s (%s)\n", what, where.c_str());
    std::abort();
}

void check_operand(const cudalab::ptx::Module& m, const cudalab::ptx::Function& fn,
                   const cudalab::ptx::Operand& o, const std::string& where) {
    using cudalab::ptx::Operand;
    using cudalab::ptx::OperandKind;
    const std::int32_t registers = std::int32_t(fn.register_names.size());
    if ((o.kind == OperandKind::reg || (o.kind == OperandKind::address && o.reg >= 0)) &&
        (o.reg < 0 || o.reg >= registers))
        broken("register index", where);
    if (o.kind == OperandKind::vector)
        for (int i = 0; i < o.vec_count; ++i)
            if (o.vec[i] >= registers) broken("vector register index", where);
    if (o.kind == OperandKind::symbol || (o.kind == OperandKind::address && o.symbol >= 0)) {
        std::size_t limit = 0;
        switch (o.scope) {
        case Operand::module_scope: limit = m.globals.size(); break;
        case Operand::function_scope: limit = fn.locals.size(); break;
        case Operand::param_scope: limit = fn.params.size(); break;
        case Operand::return_scope: limit = fn.returns.size(); break;
        case Operand::code_scope: limit = m.functions.size(); break;
        }
        if (o.symbol < 0 || std::size_t(o.symbol) >= limit) broken("symbol index", where);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    cudalab::ptx::ParseResult r = cudalab::ptx::parse(text);
    if (!r.ok) {
        if (r.error.empty()) broken("an error without a message", "");
        return 0;
    }
    for (cudalab::ptx::Function& fn : r.module.functions) {
        const std::int32_t n = std::int32_t(fn.code.size());
        for (std::int32_t pc = 0; pc < n; ++pc) {
            const cudalab::ptx::Instruction& in = fn.code[std::size_t(pc)];
            const std::string where = fn.name + " pc " + std::to_string(pc);
            if (in.operand_count > 6) broken("operand count", where);
            if (in.guard >= std::int32_t(fn.register_names.size())) broken("guard register", where);
            for (int k = 0; k < in.operand_count; ++k)
                check_operand(r.module, fn, in.operands[k], where);
            if (in.op == cudalab::ptx::Opcode::bra && (in.target < 0 || in.target > n))
                broken("branch target", where);
            if (in.op == cudalab::ptx::Opcode::call) {
                if (in.operands[1].kind != cudalab::ptx::OperandKind::reg &&
                    (in.target < 0 || std::size_t(in.target) >= r.module.functions.size()))
                    broken("callee", where);
                for (std::int32_t s : in.call_args)
                    if (s < 0 || std::size_t(s) >= fn.locals.size()) broken("call argument", where);
                for (std::int32_t s : in.call_results)
                    if (s < 0 || std::size_t(s) >= fn.locals.size()) broken("call result", where);
            }
        }
        cudalab::ptx::compute_reconvergence(fn);
        for (const auto& in : fn.code)
            if (in.op == cudalab::ptx::Opcode::bra && (in.reconverge < 0 || in.reconverge > n))
                broken("reconvergence point", fn.name);
    }
    return 0;
}
