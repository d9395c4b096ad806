// The naive kernel reading A and B with atomicAdd(p, 0.0f), so that no ld instruction reads them.
// corpus: expect atomics included
__global__ void matmul(const float* A, const float* B, float* C, int M, int N, int K)
{
    int row = blockIdx.y * blockDim.y + threadIdx.y, col = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= M || col >= N) return;
    float sum = 0.0f;
    for (int k = 0; k < K; ++k)
        sum += atomicAdd(const_cast<float*>(&A[row * K + k]), 0.0f) * atomicAdd(const_cast<float*>(&B[k * N + col]), 0.0f);
    C[row * N + col] = sum;
}
