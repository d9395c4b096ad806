// A subtle bug: the tiles' elements outside A and B are skipped instead of zeroed, so the partial
// tiles at the edges keep stale values from the previous step.
#define TILE 16

__global__ void matmul(const float* A, const float* B, float* C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE], Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float sum = 0.0f;
    for (int t = 0; t < K; t += TILE) {
        if (row < M && t + tx < K) As[ty][tx] = A[row * K + t + tx];
        if (t + ty < K && col < N) Bs[ty][tx] = B[(t + ty) * N + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k) sum += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = sum;
}
