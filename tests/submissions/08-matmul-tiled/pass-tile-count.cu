// A correct alternative: the number of tiles counted first, indices from the tile number.
#define TILE 16

__global__ void matmul(const float* A, const float* B, float* C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE], Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    int tiles = (K + TILE - 1) / TILE;
    float sum = 0.0f;
    for (int p = 0; p < tiles; ++p) {
        int ka = p * TILE + threadIdx.x, kb = p * TILE + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = row < M && ka < K ? A[row * K + ka] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = kb < K && col < N ? B[kb * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) sum += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = sum;
}
