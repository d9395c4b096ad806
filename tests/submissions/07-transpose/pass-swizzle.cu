// A correct alternative: an XOR swizzle instead of padding. Element (r, c) of the tile is stored
// in column c ^ r, so a row and a column of the tile each fall in 32 different banks.
#define TILE 32

__global__ void transpose(const float* in, float* out, int width, int height)
{
    __shared__ float tile[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int col = blockIdx.x * TILE + tx, row = blockIdx.y * TILE + ty;
    if (row < height && col < width) tile[ty][tx ^ ty] = in[row * width + col];
    __syncthreads();
    int out_col = blockIdx.y * TILE + tx, out_row = blockIdx.x * TILE + ty;
    if (out_row < width && out_col < height) out[out_row * height + out_col] = tile[tx][ty ^ tx];
}
