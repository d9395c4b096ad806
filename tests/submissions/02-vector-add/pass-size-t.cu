// A correct alternative: 64-bit indices and the stride kept in a variable.
__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    const size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < (size_t)n; i += stride)
        c[i] = a[i] + b[i];
}
