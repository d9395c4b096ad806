// A subtle bug: the guard drops the last element.
#define ITEMS 8

__global__ void saxpy(const float* x, float* y, float a, int n)
{
    int block_start = blockIdx.x * blockDim.x * ITEMS;
    for (int k = 0; k < ITEMS; ++k) {
        int i = block_start + k * blockDim.x + threadIdx.x;
        if (i < n - 1) y[i] = a * x[i] + y[i];
    }
}
