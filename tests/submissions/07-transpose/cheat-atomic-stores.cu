// The naive transpose with its strided stores made atomicExch, so no st instruction is strided.
// corpus: expect sectors of 32 bytes moved
#define TILE 32

__global__ void transpose(const float* in, float* out, int width, int height)
{
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    if (row < height && col < width) atomicExch(&out[col * height + row], in[row * width + col]);
}
