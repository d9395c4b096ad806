// Lesson 12 — occupancy: registers, shared memory and the block size.
//
// A small fully connected layer, applied to n samples at once: each sample has IN = 256 features
// and gets OUT = 48 outputs,
//
//     y[j][i] = sum over k of x[k][i] * w[k][j]      (sample i, output j, feature k)
//
// stored feature-major so that neighbouring threads (samples) touch neighbouring floats:
// x[k * n + i], y[j * n + i], and the weights row-major, w[k * OUT + j]. One thread per sample;
// every thread needs all of w, so each block stages it in shared memory, CHUNK rows at a time,
// and each thread keeps its 48 sums in registers.
//
// The host side (lessons/12-occupancy/lesson.cpp) reads `block_size` below from your compiled
// file and launches blocks of that many threads, (n + block_size - 1) / block_size of them.
//
// As shipped the kernel is CORRECT, but only 4 of its 128-thread blocks fit on an sm_90 SM at
// once: 16 warps of the 64 an SM can hold, 25% theoretical occupancy. The check wants at least
// 50%. What limits it is in the check's message; the lesson explains the arithmetic.
//
// Run the checks with:  cudalab check 12-occupancy

#define IN 256     // features per sample
#define OUT 48     // outputs per sample: 48 sums per thread, kept in registers
#define CHUNK 256  // rows of w staged in shared memory at a time (must divide IN)

// TODO 1: choose the block size (a multiple of 32, at most 1024). More threads per block share
//         the same shared-memory buffer, but every thread brings its registers along.
__device__ int block_size = 128;

// TODO 2: the check's message names the resource that limits the blocks per SM. Shared memory:
//         fewer blocks' worth of buffer per SM (CHUNK) or more warps per buffer (block_size).
//         Registers: tell the compiler how many threads a block will have and how many blocks
//         you want on an SM, and it will fit the registers to that:
//             __global__ void __launch_bounds__(THREADS, MIN_BLOCKS) layer(...)
//         (it must agree with block_size: a launch with more than THREADS threads is refused).
//         Do not ask for so much that the compiler has to spill registers to local memory.
__global__ void layer(const float* x, const float* w, float* y, int n)
{
    __shared__ float ws[CHUNK * OUT];  // CHUNK x OUT floats: 48 KB as shipped

    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc[OUT];
    for (int j = 0; j < OUT; ++j) acc[j] = 0.0f;

    for (int k0 = 0; k0 < IN; k0 += CHUNK) {
        // Stage rows k0 .. k0 + CHUNK - 1 of w, the whole block together (works for any block
        // size). Every thread takes part, even one past n: it must reach the barriers.
        __syncthreads();  // the previous chunk is no longer being read
        for (int e = threadIdx.x; e < CHUNK * OUT; e += blockDim.x) ws[e] = w[k0 * OUT + e];
        __syncthreads();  // the chunk is complete

        if (i < n) {
            for (int k = 0; k < CHUNK; ++k) {
                float v = x[(k0 + k) * n + i];
#pragma unroll
                for (int j = 0; j < OUT; ++j) acc[j] += v * ws[k * OUT + j];
            }
        }
    }
    if (i < n) {
        for (int j = 0; j < OUT; ++j) y[j * n + i] = acc[j];
    }
}
