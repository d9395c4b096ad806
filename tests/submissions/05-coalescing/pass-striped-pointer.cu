// A correct alternative: the block's slice as pointers, stepping by blockDim.x.
#define ITEMS 8

__global__ void saxpy(const float* x, float* y, float a, int n)
{
    const int start = blockIdx.x * blockDim.x * ITEMS;
    const int end = min(n, start + (int)blockDim.x * ITEMS);
    for (int i = start + threadIdx.x; i < end; i += blockDim.x) y[i] = fmaf(a, x[i], y[i]);
}
