// Correct but slow (the shipped kernel): loads along rows, stores down columns.
// corpus: expect sectors of 32 bytes moved
#define TILE 32

__global__ void transpose(const float* in, float* out, int width, int height)
{
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    if (row < height && col < width) out[col * height + row] = in[row * width + col];
}
