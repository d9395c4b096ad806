// Lesson 08 — matrix multiply: reuse through shared-memory tiles.
//
// C = A * B for row-major matrices: A is M x K, B is K x N, C is M x N,
//
//     C[row][col] = sum over k of A[row][k] * B[k][col]
//                 = sum over k of A[row * K + k] * B[k * N + col]
//
// The host side (lessons/08-matmul-tiled/lesson.cpp) launches blocks of TILE x TILE = 16 x 16
// threads on a 2D grid that covers C: x across its columns, y down its rows, rounded up on both
// sides. M, N and K are not multiples of 16.
//
// As shipped the kernel is CORRECT, but each thread reads a whole row of A and a whole column of B
// from global memory: 2 floats loaded per multiply-add (FMA), 8 bytes for 2 FLOPs. Every element
// of A is loaded again by every thread of its row of C, every element of B by every thread of its
// column. The check allows 2 / TILE floats per FMA: each block may load a 16-wide strip of A and
// a 16-high strip of B once, and take every other use of them from shared memory.
//
// Keep TILE at 16 and the kernel's signature as they are: the host launches 16 x 16 blocks.
//
// Run the checks with:  cudalab check 08-matmul-tiled

#define TILE 16

__global__ void matmul(const float* A, const float* B, float* C, int M, int N, int K)
{
    // TODO 1: declare two shared tiles, one for a TILE x TILE piece of A and one for B:
    //         __shared__ float As[TILE][TILE]; __shared__ float Bs[TILE][TILE];
    // TODO 2: walk along k one tile at a time: for (int t = 0; t < K; t += TILE). In each step,
    //         thread (tx, ty) loads ONE element of A, A[row][t + tx], into As[ty][tx], and ONE
    //         element of B, B[t + ty][col], into Bs[ty][tx]. Where that element is outside its
    //         matrix (row >= M, col >= N or past K), store 0 instead: a zero adds nothing to the
    //         sum, and every thread, even one outside C, must help load and reach the barriers.
    // TODO 3: __syncthreads(), then add the 16 products of the step from the tiles:
    //         sum += As[ty][k] * Bs[k][tx] for k = 0 .. TILE - 1.
    // TODO 4: __syncthreads() again before the next step overwrites the tiles (a warp still
    //         reading them would see the next step's values). Write C after the loop, guarded.
    int row = blockIdx.y * TILE + threadIdx.y;
    int col = blockIdx.x * TILE + threadIdx.x;
    if (row < M && col < N) {
        float sum = 0.0f;
        for (int k = 0; k < K; ++k) {
            sum += A[row * K + k] * B[k * N + col];
        }
        C[row * N + col] = sum;
    }
}
