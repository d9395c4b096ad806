// A subtle bug: `out` indexed with `width` as its row length (right only for square matrices).
#define TILE 32

__global__ void transpose(const float* in, float* out, int width, int height)
{
    __shared__ float tile[TILE][TILE + 1];
    int col = blockIdx.x * TILE + threadIdx.x, row = blockIdx.y * TILE + threadIdx.y;
    if (row < height && col < width) tile[threadIdx.y][threadIdx.x] = in[row * width + col];
    __syncthreads();
    int out_col = blockIdx.y * TILE + threadIdx.x, out_row = blockIdx.x * TILE + threadIdx.y;
    if (out_row < width && out_col < height && out_row * width + out_col < width * height)
        out[out_row * width + out_col] = tile[threadIdx.x][threadIdx.y];
}
