// The lane loops of the commonest float instructions (fma, add, sub, mul on f32; fma on f64), in a
// file of their own: execute.cpp is compiled with -frounding-math because its handlers switch the
// rounding mode, and that flag also stops the compiler vectorising float arithmetic. These only
// compute: a caller that wants a directed rounding mode sets it first, and vector instructions
// honour it exactly as scalar ones do. f32 NaN results become the GPU's canonical 0x7fffffff.
#pragma once

#include <cstdint>

namespace cudalab::emu::lanes {

// d[l] = op(a[l], b[l] [, c[l]]) for each lane l in mask, on raw register values.
void fma_f32(std::uint64_t* d, const std::uint64_t* a, const std::uint64_t* b,
             const std::uint64_t* c, std::uint32_t mask);
void fma_f64(std::uint64_t* d, const std::uint64_t* a, const std::uint64_t* b,
             const std::uint64_t* c, std::uint32_t mask);
void add_f32(std::uint64_t* d, const std::uint64_t* a, const std::uint64_t* b, std::uint32_t mask);
void sub_f32(std::uint64_t* d, const std::uint64_t* a, const std::uint64_t* b, std::uint32_t mask);
void mul_f32(std::uint64_t* d, const std::uint64_t* a, const std::uint64_t* b, std::uint32_t mask);

}  // namespace cudalab::emu::lanes
