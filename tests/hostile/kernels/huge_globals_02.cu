// A correct lesson 02 kernel with eight 1 GB __device__ arrays beside it.
__device__ char a0[1 << 30], a1[1 << 30], a2[1 << 30], a3[1 << 30];
__device__ char a4[1 << 30], a5[1 << 30], a6[1 << 30], a7[1 << 30];
__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        c[i] = a[i] + b[i] + a0[i & 1] + a1[1] + a2[2] + a3[3] + a4[4] + a5[5] + a6[6] + a7[7];
}
