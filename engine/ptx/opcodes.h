// Opcode enum and names, generated from the one table in opcodes.def.
#pragma once

#include <cstdint>
#include <string_view>

namespace cudalab::ptx {

enum class OpClass : std::uint8_t {
    arith,
    logic,
    compare,
    convert,
    move,
    memory,
    atomic,
    control,
    barrier,
    warp,
    tensor,  // a matrix multiply-accumulate on the tensor cores
    special
};

enum class Opcode : std::uint8_t {
#define PTX_OP(id, mnemonic, cls, section) id,
#include "ptx/opcodes.def"
#undef PTX_OP
    count_
};

constexpr int opcode_count = int(Opcode::count_);

struct OpcodeInfo {
    std::string_view mnemonic;
    OpClass op_class;
    std::string_view isa_section;
};

inline constexpr OpcodeInfo opcode_table[] = {
#define PTX_OP(id, mnemonic, cls, section) {mnemonic, OpClass::cls, section},
#include "ptx/opcodes.def"
#undef PTX_OP
};

inline const OpcodeInfo& info(Opcode op) { return opcode_table[int(op)]; }
const char* op_class_name(OpClass c);

}  // namespace cudalab::ptx
