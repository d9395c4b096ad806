// A correct alternative: grid-stride loops in both directions, threadIdx.x along a row.
__global__ void adjust(const float* in, float* out, int width, int height, float gain, float bias)
{
    for (int row = blockIdx.y * blockDim.y + threadIdx.y; row < height; row += blockDim.y * gridDim.y)
        for (int col = blockIdx.x * blockDim.x + threadIdx.x; col < width; col += blockDim.x * gridDim.x)
            out[row * width + col] = in[row * width + col] * gain + bias;
}
