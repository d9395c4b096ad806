// Lesson 08 — matrix multiply: reuse through shared-memory tiles (reference solution).
//
// C = A * B, row-major, A is M x K, B is K x N. Each 16 x 16 block computes one 16 x 16 tile of C.
// It walks along k in steps of 16: in each step the block loads a 16 x 16 tile of A (its rows of
// C, columns t .. t+15) and a 16 x 16 tile of B (rows t .. t+15, its columns of C) into shared
// memory, one element per thread each, and every thread then takes 16 multiply-adds' worth of
// operands from the tiles. 2 floats loaded from global memory per thread per step, 16 FMAs:
// 2 / 16 floats per FMA instead of 2.

#define TILE 16

__global__ void matmul(const float* A, const float* B, float* C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE];  // A[block's rows][t .. t + TILE - 1]
    __shared__ float Bs[TILE][TILE];  // B[t .. t + TILE - 1][block's columns]

    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty;  // the element of C this thread computes
    int col = blockIdx.x * TILE + tx;

    float sum = 0.0f;
    for (int t = 0; t < K; t += TILE) {
        // Load one element of each tile. A warp is two rows of 16 threads (ty, ty + 1), so each
        // load reads 16 neighbouring floats of two rows: coalesced. Outside a matrix the tile
        // gets 0, so the products below need no guard and the sum is exactly the naive one:
        // the same products, in the same order, plus some 0 * 0. No thread returns early: the
        // threads outside C still load their part of the tiles and reach both barriers.
        As[ty][tx] = (row < M && t + tx < K) ? A[row * K + t + tx] : 0.0f;
        Bs[ty][tx] = (t + ty < K && col < N) ? B[(t + ty) * N + col] : 0.0f;

        // Every thread reads elements that the other threads (other warps) loaded.
        __syncthreads();

        // 16 FMAs from shared memory. As[ty][k] is the same word for the 16 lanes of a row
        // (a broadcast); Bs[k][tx] is 16 neighbouring words: no bank conflicts.
        for (int k = 0; k < TILE; ++k) sum += As[ty][k] * Bs[k][tx];

        // The next step overwrites the tiles: wait until every warp is done reading them.
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = sum;
}
