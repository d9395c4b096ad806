// A correct alternative: float4. Each block's 1024 elements are 256 float4s; a thread takes two,
// striped (float4 t and t + 128), so a warp request moves 512 neighbouring bytes: 16 sectors, all
// needed. The last block's elements past a multiple of 4 go one by one.
#define ITEMS 8

__global__ void saxpy(const float* x, float* y, float a, int n)
{
    int block_start = blockIdx.x * blockDim.x * ITEMS;
    for (int k = 0; k < ITEMS / 4; ++k) {
        int i = block_start + 4 * (k * blockDim.x + threadIdx.x);
        if (i + 3 < n) {
            float4 xv = *reinterpret_cast<const float4*>(&x[i]);
            float4 yv = *reinterpret_cast<float4*>(&y[i]);
            yv.x = a * xv.x + yv.x;
            yv.y = a * xv.y + yv.y;
            yv.z = a * xv.z + yv.z;
            yv.w = a * xv.w + yv.w;
            *reinterpret_cast<float4*>(&y[i]) = yv;
        } else {
            for (int j = i; j < n && j < i + 4; ++j) y[j] = a * x[j] + y[j];
        }
    }
}
