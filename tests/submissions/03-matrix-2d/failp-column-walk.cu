// Correct but slow (the shipped kernel): threadIdx.x moves the row, so a warp walks down a column.
// corpus: expect sectors of 32 bytes moved
__global__ void adjust(const float* in, float* out, int width, int height, float gain, float bias)
{
    int row = blockIdx.y * blockDim.y + threadIdx.x;
    int col = blockIdx.x * blockDim.x + threadIdx.y;
    if (row < height && col < width) out[row * width + col] = in[row * width + col] * gain + bias;
}
