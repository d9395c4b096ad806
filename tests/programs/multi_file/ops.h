// Host-callable entry points of the two .cu files of the multi_file program. The .cpp host file
// sees only these plain C++ declarations; the kernels stay inside their own translation units.
#pragma once
#include <cstddef>

// histogram.cu: counts values 0..bins-1 of `in` (device memory) into `counts` (device memory).
void launch_histogram(const int* in, int n, unsigned* counts, int bins);

// transform.cu: out[i] = in[i] * in[i] % modulus, in device memory.
void launch_square_mod(const int* in, int* out, int n, int modulus);
