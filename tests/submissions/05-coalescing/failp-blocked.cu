// Correct but slow (the shipped kernel): each thread takes 8 consecutive elements.
// corpus: expect sectors of 32 bytes moved
#define ITEMS 8

__global__ void saxpy(const float* x, float* y, float a, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    for (int k = 0; k < ITEMS; ++k) {
        int i = t * ITEMS + k;
        if (i < n) y[i] = a * x[i] + y[i];
    }
}
