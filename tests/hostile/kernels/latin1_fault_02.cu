// Lesson 02 with a Latin-1 comment: café, naïve, © 2026
__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    c[i + 1000000000] = a[i] + b[i];  /* faults: été */
}
