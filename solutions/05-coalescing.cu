// Lesson 05 — coalescing: neighbouring lanes, neighbouring addresses (reference solution).
//
// y[i] = a * x[i] + y[i] (SAXPY) with 8 elements per thread. Block b owns elements
// b*1024 .. b*1024+1023, as in the exercise, but deals them out striped: on pass k its 128
// threads take elements b*1024 + k*128 + 0..127, one each, in threadIdx.x order.

#define ITEMS 8

__global__ void saxpy(const float* x, float* y, float a, int n)
{
    // The block's first element; the block's 128 threads cover 128 * ITEMS elements from here.
    int block_start = blockIdx.x * blockDim.x * ITEMS;

    for (int k = 0; k < ITEMS; ++k) {
        // Pass k covers the k-th stretch of blockDim.x elements. Neighbouring lanes take
        // neighbouring elements, so a warp's 32 loads of x (and of y, and its 32 stores to y) fall
        // on 128 consecutive, 128-byte-aligned bytes: 4 sectors per request, every byte used.
        // Each thread still handles exactly 8 elements, and the block the same 1024 as before.
        int i = block_start + k * blockDim.x + threadIdx.x;
        if (i < n) {
            y[i] = a * x[i] + y[i];
        }
    }
}
