// The blocked kernel with its loads as atomicAdd(p, 0) and its stores as atomicExch, so that no
// ld or st instruction is left to measure. Atomics count.
// corpus: expect sectors of 32 bytes moved
#define ITEMS 8

__global__ void saxpy(const float* x, float* y, float a, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    for (int k = 0; k < ITEMS; ++k) {
        int i = t * ITEMS + k;
        if (i < n) {
            float xv = atomicAdd(const_cast<float*>(&x[i]), 0.0f);
            float yv = atomicAdd(&y[i], 0.0f);
            atomicExch(&y[i], a * xv + yv);
        }
    }
}
