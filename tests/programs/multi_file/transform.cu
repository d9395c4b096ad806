// Element-wise kernel for the multi_file program.
#include "ops.h"

__global__ void square_mod(const int* in, int* out, int n, int modulus)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * in[i] % modulus;
}

void launch_square_mod(const int* in, int* out, int n, int modulus)
{
    square_mod<<<(n + 255) / 256, 256>>>(in, out, n, modulus);
}
