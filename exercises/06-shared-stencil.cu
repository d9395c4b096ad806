// Lesson 06 — shared memory: a stencil with a tile and its halo.
//
// A 1D smoothing filter of radius R = 3: every output is a weighted sum of the 7 inputs around it,
//
//     out[i] = w[0]*in[i-3] + w[1]*in[i-2] + ... + w[3]*in[i] + ... + w[6]*in[i+3]
//
// with the binomial weights below (they add up to 1). Inputs outside [0, n) count as 0.
//
// The host side (lessons/06-shared-stencil/lesson.toml) launches blocks of BLOCK = 256 threads,
// one thread per output, (n + 255) / 256 blocks; n is not a multiple of 256.
//
// As shipped the kernel is CORRECT, but each thread reads its 7 inputs straight from global
// memory, so every input is read 7 times, by 7 different threads. The performance check allows
// (BLOCK + 2R) / BLOCK global loads per output: each block may read its 256 inputs once, plus
// R = 3 on each side (the "halo"), and no more.
//
// Run the checks with:  cudalab check 06-shared-stencil

#define R 3
#define BLOCK 256

__global__ void smooth(const float* in, float* out, int n)
{
    const float w[2 * R + 1] = {1 / 64.f, 6 / 64.f, 15 / 64.f, 20 / 64.f, 15 / 64.f, 6 / 64.f, 1 / 64.f};
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    // TODO 1: declare a shared tile for the block's inputs plus the halo on each side:
    //         __shared__ float tile[BLOCK + 2 * R];  tile[R + t] will hold in[blockStart + t].
    // TODO 2: every thread copies its own input into the tile (0 if it is past n), and the first
    //         R threads also copy the R inputs left of the block and the R inputs right of it
    //         (0 where they fall outside [0, n)). Do this before any thread returns.
    // TODO 3: wait until the whole tile is written: __syncthreads(). Without it a thread may read
    //         a neighbour's slot before that neighbour (in another warp) has written it; the
    //         emulator reports that as a shared-memory race.
    // TODO 4: compute the sum from the tile instead of from `in`.
    if (i < n) {
        float sum = 0.0f;
        for (int k = -R; k <= R; ++k) {
            int j = i + k;
            float v = (j >= 0 && j < n) ? in[j] : 0.0f;
            sum += w[k + R] * v;
        }
        out[i] = sum;
    }
}
