// A correct alternative: a thread per frame runs both curves, for its left and its right sample.
// No lane waits on another's branch; half the grid's threads have no frame and leave at once.
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
    int f = blockIdx.x * blockDim.x + threadIdx.x;
    if (2 * f < n) out[2 * f] = left_curve(in[2 * f]);
    if (2 * f + 1 < n) out[2 * f + 1] = right_curve(in[2 * f + 1]);
}
