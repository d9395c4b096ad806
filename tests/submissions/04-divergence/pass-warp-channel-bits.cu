// A correct alternative: the warp's channel and frame from bit operations on threadIdx.
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
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    int i = ((warp >> 1) << 6) + (lane << 1) + (warp & 1);
    if (i >= n) return;
    out[i] = (warp & 1) ? right_curve(in[i]) : left_curve(in[i]);
}
