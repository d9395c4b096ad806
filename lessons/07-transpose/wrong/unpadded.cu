// Lesson 07, a known-wrong variant for the course linter (tests/course_linter_test.cpp): the tiled
// transpose WITHOUT padding. It is correct and both its loads and stores are coalesced, but a warp
// reading a column of the 32 x 32 tile finds all 32 elements in one bank: the "shared-memory bank
// conflicts" check must fail on it.

#define TILE 32

__global__ void transpose(const float* in, float* out, int width, int height)
{
    __shared__ float tile[TILE][TILE];  // a row is 32 words: a column lies in a single bank

    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    if (row < height && col < width) tile[threadIdx.y][threadIdx.x] = in[row * width + col];
    __syncthreads();

    int out_col = blockIdx.y * TILE + threadIdx.x;
    int out_row = blockIdx.x * TILE + threadIdx.y;
    if (out_row < width && out_col < height)
        out[out_row * height + out_col] = tile[threadIdx.x][threadIdx.y];  // 32-way conflict
}
