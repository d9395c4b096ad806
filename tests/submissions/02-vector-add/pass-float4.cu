// A correct alternative: float4 loads and stores over the grid, then the last n % 4 elements. Each
// warp request moves 512 neighbouring bytes: every sector moved is needed.
__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    const int stride = blockDim.x * gridDim.x;
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int quads = n / 4;
    const float4* a4 = reinterpret_cast<const float4*>(a);
    const float4* b4 = reinterpret_cast<const float4*>(b);
    float4* c4 = reinterpret_cast<float4*>(c);
    for (int q = t; q < quads; q += stride) {
        float4 x = a4[q], y = b4[q];
        c4[q] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
    for (int i = quads * 4 + t; i < n; i += stride) c[i] = a[i] + b[i];
}
