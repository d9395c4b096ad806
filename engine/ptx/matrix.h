// The warp-level matrix instructions' forms and fragments (PTX ISA 9.7.14): which forms the
// emulator implements, and for each lane and fragment element, which element of its matrix it is.
//
// mma.sync's fragment layouts are the PTX ISA's (9.7.14.5.x). wmma's are left to the
// implementation by the ISA; these are the ones an H200 uses (sm_90, read from its fragments by
// tests/agreement/tensor_ops.cu): m16n16k16 and m32n8k16 fragments are mma.sync m16n8k16 tiles
// side by side, m8n32k16 the transpose of m32n8k16, and an f16 A or B fragment of 16 elements
// holds the 16x16 tile twice (or the 16x8 tile four times).
#pragma once

#include <cstdint>

#include "ptx/module.h"

namespace cudalab::ptx {

// The matrices of D = A * B + C: A is M x K, B is K x N, C and D are M x N.
enum class MatrixRole : std::uint8_t { a, b, c };

// A lane's fragment of one matrix: how many elements, of how many bits, in how many registers
// (a register holds 32 / element_bits elements, element 0 in the low bits; f64 one per 64-bit
// register).
struct FragmentShape {
    int rows = 0, cols = 0;  // the matrix
    int element_bits = 0;    // 8, 16, 32 or 64
    int elements = 0;        // per lane
    int registers = 0;       // per lane
};

struct ElementPlace {
    int row = 0, col = 0;
};

// Whether the emulator implements this wmma, mma, ldmatrix, stmatrix or movmatrix (its shape,
// types and layouts); true for every other instruction.
bool tensor_form_supported(const Instruction& in);

// The element type of a matrix of a wmma or mma instruction (wmma.load/store: the one written).
Type fragment_type(const Instruction& in, MatrixRole role);

// The fragment of `role` for a supported wmma.load/store/mma or mma instruction.
FragmentShape fragment_shape(const Instruction& in, MatrixRole role);

// Where element `e` of lane `lane`'s fragment lies in its matrix.
ElementPlace fragment_element(const Instruction& in, MatrixRole role, int lane, int e);

}  // namespace cudalab::ptx
