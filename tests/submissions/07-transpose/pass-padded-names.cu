// A correct alternative: the padded tile, written with the block's corner coordinates.
#define TILE 32

__global__ void transpose(const float* in, float* out, int width, int height)
{
    __shared__ float tile[TILE][TILE + 1];
    const int x0 = blockIdx.x * TILE, y0 = blockIdx.y * TILE;
    if (y0 + threadIdx.y < height && x0 + threadIdx.x < width)
        tile[threadIdx.y][threadIdx.x] = in[(y0 + threadIdx.y) * width + x0 + threadIdx.x];
    __syncthreads();
    if (x0 + threadIdx.y < width && y0 + threadIdx.x < height)
        out[(x0 + threadIdx.y) * height + y0 + threadIdx.x] = tile[threadIdx.x][threadIdx.y];
}
