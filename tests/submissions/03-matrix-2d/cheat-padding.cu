// Walks down columns, and pads with cheap one-sector requests (every lane reading the same float)
// to pull the average sectors per request under 4. Sectors moved only grow.
// corpus: expect sectors of 32 bytes moved
__global__ void adjust(const float* in, float* out, int width, int height, float gain, float bias)
{
    int row = blockIdx.y * blockDim.y + threadIdx.x;
    int col = blockIdx.x * blockDim.x + threadIdx.y;
    float pad = 0.0f;
    for (int k = 0; k < 40; ++k) pad += ((volatile const float*)in)[0];
    if (row < height && col < width) out[row * width + col] = in[row * width + col] * gain + bias;
    if (pad == 12345.0f) out[0] = 0.0f;
}
