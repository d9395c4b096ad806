// A correct alternative: blocks of 128 threads, 64 weight rows (12 KB) staged at a time, bounded
// to 8 blocks per SM.
#define IN 256
#define OUT 48
#define CHUNK 64

__device__ int block_size = 128;

__global__ void __launch_bounds__(128, 8) layer(const float* x, const float* w, float* y, int n)
{
    __shared__ float ws[CHUNK * OUT];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc[OUT];
    for (int j = 0; j < OUT; ++j) acc[j] = 0.0f;
    for (int k0 = 0; k0 < IN; k0 += CHUNK) {
        __syncthreads();
        for (int e = threadIdx.x; e < CHUNK * OUT; e += blockDim.x) ws[e] = w[k0 * OUT + e];
        __syncthreads();
        if (i < n) {
            for (int k = 0; k < CHUNK; ++k) {
                float v = x[(k0 + k) * n + i];
#pragma unroll
                for (int j = 0; j < OUT; ++j) acc[j] += v * ws[k * OUT + j];
            }
        }
    }
    if (i < n) {
        for (int j = 0; j < OUT; ++j) y[j * n + i] = acc[j];
    }
}
