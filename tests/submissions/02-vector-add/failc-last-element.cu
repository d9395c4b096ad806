// A subtle bug: the loop stops one short.
__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n - 1; i += blockDim.x * gridDim.x)
        c[i] = a[i] + b[i];
}
