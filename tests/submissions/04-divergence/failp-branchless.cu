// Correct but slow: no branch splits a warp, because every lane computes both curves and keeps one.
// Divergence is gone and so is half of the work's use: twice the instructions the fix issues.
// corpus: expect warp instructions
__device__ float left_curve(float x)
{
    float x2 = x * x;
    float p = 0.0f;
    for (int k = 31; k >= 0; --k)
        p = fmaf(p, x2, (k % 2 ? -1.0f : 1.0f) / (2 * k + 1));
    return p * x;
}

__device__ float right_curve(float x)
{
    float p = 1.0f;
    for (int k = 16; k >= 1; --k)
        p = fmaf(p, x * (1.0f / k), 1.0f);
    return p - 1.0f;
}

__global__ void stereo_curves(const float* in, float* out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float x = in[i];
        float l = left_curve(x), r = right_curve(x);
        out[i] = (i & 1) ? r : l;
    }
}
