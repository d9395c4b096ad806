// The warp-level matrix instructions' forms and fragment layouts (ptx/matrix.h).
#include "ptx/matrix.h"

namespace cudalab::ptx {

namespace {

bool shape_is(const MatrixForm& f, int m, int n, int k) { return f.m == m && f.n == n && f.k == k; }

bool is_wmma_shape(const MatrixForm& f) {
    return shape_is(f, 16, 16, 16) || shape_is(f, 32, 8, 16) || shape_is(f, 8, 32, 16) ||
           shape_is(f, 16, 16, 8) || shape_is(f, 8, 8, 4);
}

bool is_integer_input(Type t) { return t == Type::s8 || t == Type::u8; }
bool is_float_accumulator(Type t) { return t == Type::f16 || t == Type::f32; }

// The A and B types a wmma shape takes (m16n16k8 is tf32's only; tf32 has no other).
bool wmma_inputs_fit(const MatrixForm& f, Type t) {
    if (shape_is(f, 16, 16, 8)) return t == Type::tf32;
    if (shape_is(f, 8, 8, 4)) return t == Type::f64;
    return t == Type::f16 || t == Type::bf16 || is_integer_input(t);
}

// A, B, C and D types of wmma.mma and mma: f16 accumulates in f16 or f32, bf16 and tf32 in f32,
// 8-bit integers in s32.
bool accumulators_fit(const MatrixForm& f) {
    if (f.a == Type::f16 && f.b == Type::f16)
        return is_float_accumulator(f.c) && is_float_accumulator(f.d);
    if ((f.a == Type::bf16 && f.b == Type::bf16) || (f.a == Type::tf32 && f.b == Type::tf32))
        return f.c == Type::f32 && f.d == Type::f32;
    if (is_integer_input(f.a) && is_integer_input(f.b)) return f.c == Type::s32 && f.d == Type::s32;
    if (f.a == Type::f64 && f.b == Type::f64) return f.c == Type::f64 && f.d == Type::f64;
    return false;
}

int type_bits_of(Type t) { return t == Type::tf32 ? 32 : type_bits(t); }

}  // namespace

bool tensor_form_supported(const Instruction& in) {
    const MatrixForm& f = in.matrix;
    switch (in.op) {
    case Opcode::wmma_load:
    case Opcode::wmma_store: {
        if (!is_wmma_shape(f)) return false;
        const bool store = in.op == Opcode::wmma_store;
        if (store ? f.matrix != 'd' : (f.matrix != 'a' && f.matrix != 'b' && f.matrix != 'c'))
            return false;
        if (f.matrix == 'a' || f.matrix == 'b') return wmma_inputs_fit(f, in.type);
        if (shape_is(f, 16, 16, 8)) return in.type == Type::f32;
        if (shape_is(f, 8, 8, 4)) return in.type == Type::f64;
        return in.type == Type::f16 || in.type == Type::f32 || in.type == Type::s32;
    }
    case Opcode::wmma_mma:
        // Integer wmma takes the same type for A and B; the 16-bit floats too. f64's rounding
        // modifier: to nearest only.
        if (f.a == Type::f64 && in.rounding != Rounding::none && in.rounding != Rounding::rn)
            return false;
        return is_wmma_shape(f) && f.a == f.b && wmma_inputs_fit(f, f.a) && accumulators_fit(f);
    case Opcode::mma: {
        if (f.a_col || !f.b_col) return false;  // .row.col, the only layout of these shapes
        // (mma, unlike wmma.mma, takes C and D of one type: ptxas refuses .f32.f16.f16.f16)
        if (!accumulators_fit(f) || f.c != f.d) return false;
        const bool half = f.a == Type::f16 || f.a == Type::bf16;
        if (shape_is(f, 16, 8, 16)) return half || is_integer_input(f.a);
        if (shape_is(f, 16, 8, 8)) return half || f.a == Type::tf32;
        if (shape_is(f, 16, 8, 4)) return f.a == Type::tf32;
        if (shape_is(f, 16, 8, 32) || shape_is(f, 8, 8, 16)) return is_integer_input(f.a);
        if (shape_is(f, 8, 8, 4)) return f.a == Type::f64;  // (m8n8k4 of f16: Volta's, not here)
        return false;
    }
    case Opcode::ldmatrix:
    case Opcode::stmatrix:
        return shape_is(f, 8, 8, 0) && (f.count == 1 || f.count == 2 || f.count == 4) &&
               in.type == Type::b16;
    case Opcode::movmatrix: return shape_is(f, 8, 8, 0) && f.trans && in.type == Type::b16;
    default: return true;
    }
}

Type fragment_type(const Instruction& in, MatrixRole role) {
    if (in.op == Opcode::wmma_load || in.op == Opcode::wmma_store) return in.type;
    const MatrixForm& f = in.matrix;
    return role == MatrixRole::a ? f.a : role == MatrixRole::b ? f.b : f.c;
}

FragmentShape fragment_shape(const Instruction& in, MatrixRole role) {
    const MatrixForm& f = in.matrix;
    FragmentShape s;
    s.rows = role == MatrixRole::b ? f.k : f.m;
    s.cols = role == MatrixRole::a ? f.k : f.n;
    s.element_bits = type_bits_of(fragment_type(in, role));
    s.elements = s.rows * s.cols / 32;
    const bool wmma = in.op != Opcode::mma;
    // wmma's f16 A and B fragments are 8 registers whatever the shape (9.7.14.4.1): 16 elements,
    // the tile held twice (m16n16k16) or four times (m32n8k16's B, m8n32k16's A).
    if (wmma && role != MatrixRole::c && fragment_type(in, role) == Type::f16) s.elements = 16;
    // (an f64 element takes a 64-bit register of its own)
    s.registers = s.element_bits == 64 ? s.elements : s.elements * s.element_bits / 32;
    return s;
}

ElementPlace fragment_element(const Instruction& in, MatrixRole role, int lane, int e) {
    const MatrixForm& f = in.matrix;
    const int g = lane / 4, t = lane % 4;
    const int bits = type_bits_of(fragment_type(in, role));
    // mma's layouts; wmma m8n8k4 of f64 is taken to use them too (not compared on a GPU).
    if (in.op == Opcode::mma || bits == 64) {
        // 9.7.14.5.x: A in 8-row halves and K chunks of 4 registers' worth, B down K, C in rows
        // g and g + 8 (pack: elements per register).
        const int pack = bits == 64 ? 1 : 32 / bits;
        if (role == MatrixRole::a) {
            if (f.m == 8) return {g, pack * t + e % pack};
            const int chunk = e / pack;
            return {g + 8 * (chunk % 2), pack * t + e % pack + (chunk / 2) * 4 * pack};
        }
        if (role == MatrixRole::b) return {pack * t + e % pack + (e / pack) * 4 * pack, g};
        if (f.m == 8) return {g, 2 * t + e};
        return {g + 8 * (e / 2), 2 * t + e % 2};
    }
    // wmma, as an H200 lays it out (the file's header).
    const bool m16 = f.m == 16, m32 = f.m == 32;
    if (role == MatrixRole::c) {
        if (m16) return {g + 8 * ((e / 2) % 2), 2 * t + e % 2 + 8 * (e / 4)};
        if (m32) return {g + 8 * (e / 2), 2 * t + e % 2};
        return {2 * t + e % 2, g + 8 * (e / 2)};  // m8n32k16: m32n8k16's, transposed
    }
    if (bits == 32) {  // tf32, m16n16k8
        if (role == MatrixRole::a) return {g + 8 * (e % 2), t + 4 * (e / 2)};
        return {t + 4 * (e % 2), g + 8 * (e / 2)};
    }
    if (bits == 8) {
        if (role == MatrixRole::a) {
            if (m16) return {g + 8 * (e / 4), 4 * t + e % 4};
            if (m32) return {g + 8 * ((e / 4) % 2) + 16 * (e / 8), 4 * t + e % 4};
            return {g, 4 * t + e};
        }
        if (m16) return {4 * t + e % 4, g + 8 * (e / 4)};
        if (m32) return {4 * t + e, g};
        return {4 * t + e % 4, g + 8 * ((e / 4) % 2) + 16 * (e / 8)};
    }
    // f16 and bf16
    if (role == MatrixRole::a) {
        if (m16) {
            const int r = e % 8;
            return {g + 8 * ((r / 2) % 2), 2 * t + r % 2 + 8 * (r / 4)};
        }
        if (m32) return {g + 8 * ((e / 2) % 2) + 16 * (e / 8), 2 * t + e % 2 + 8 * ((e / 4) % 2)};
        const int r = e % 4;
        return {g, 2 * t + r % 2 + 8 * (r / 2)};
    }
    if (m16) {
        const int r = e % 8;
        return {2 * t + r % 2 + 8 * ((r / 2) % 2), g + 8 * (r / 4)};
    }
    if (m32) {
        const int r = e % 4;
        return {2 * t + r % 2 + 8 * (r / 2), g};
    }
    return {2 * t + e % 2 + 8 * ((e / 4) % 2), g + 8 * ((e / 2) % 2) + 16 * (e / 8)};
}

}  // namespace cudalab::ptx
