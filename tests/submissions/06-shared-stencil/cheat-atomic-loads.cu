// The naive stencil with its loads as atomicAdd(p, 0.0f), so that no ld instruction reads global
// memory. Atomics are reads too.
// corpus: expect atomics included
#define R 3

__global__ void smooth(const float* in, float* out, int n)
{
    const float w[2 * R + 1] = {1 / 64.f, 6 / 64.f, 15 / 64.f, 20 / 64.f, 15 / 64.f, 6 / 64.f, 1 / 64.f};
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float sum = 0.0f;
    for (int k = -R; k <= R; ++k) {
        int j = i + k;
        sum += w[k + R] * (j >= 0 && j < n ? atomicAdd(const_cast<float*>(&in[j]), 0.0f) : 0.0f);
    }
    out[i] = sum;
}
