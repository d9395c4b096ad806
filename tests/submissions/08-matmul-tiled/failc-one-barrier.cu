// A subtle bug: no barrier after the products, so a fast warp overwrites the tiles while others
// still read them. The emulator reports the race.
#define TILE 16

__global__ void matmul(const float* A, const float* B, float* C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE], Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float sum = 0.0f;
    for (int t = 0; t < K; t += TILE) {
        As[ty][tx] = (row < M && t + tx < K) ? A[row * K + t + tx] : 0.0f;
        Bs[ty][tx] = (t + ty < K && col < N) ? B[(t + ty) * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) sum += As[ty][k] * Bs[k][tx];
    }
    if (row < M && col < N) C[row * N + col] = sum;
}
