// Correct but slow: lanes two elements apart on each pass (pass k takes the even or the odd
// elements of a 256-element stretch), so a request touches 8 sectors and uses half of each.
// corpus: expect sectors of 32 bytes moved
#define ITEMS 8

__global__ void saxpy(const float* x, float* y, float a, int n)
{
    int block_start = blockIdx.x * blockDim.x * ITEMS;
    for (int k = 0; k < ITEMS; ++k) {
        int i = block_start + (k / 2) * 2 * blockDim.x + 2 * threadIdx.x + (k % 2);
        if (i < n) y[i] = a * x[i] + y[i];
    }
}
