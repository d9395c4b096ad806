// A subtle bug: no __syncthreads() between writing the tile and reading it across warps.
#define TILE 32

__global__ void transpose(const float* in, float* out, int width, int height)
{
    __shared__ float tile[TILE][TILE + 1];
    int col = blockIdx.x * TILE + threadIdx.x, row = blockIdx.y * TILE + threadIdx.y;
    if (row < height && col < width) tile[threadIdx.y][threadIdx.x] = in[row * width + col];
    int out_col = blockIdx.y * TILE + threadIdx.x, out_row = blockIdx.x * TILE + threadIdx.y;
    if (out_row < width && out_col < height) out[out_row * height + out_col] = tile[threadIdx.x][threadIdx.y];
}
