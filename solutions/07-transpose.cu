// Lesson 07 — transpose: tiles in shared memory, and padding against bank conflicts (reference
// solution).
//
// out[col][row] = in[row][col] for a row-major height x width matrix `in`. Each 32 x 32 block
// reads one tile of `in` row by row (coalesced), keeps it in shared memory, and writes it to the
// mirrored tile of `out`, again row by row (coalesced). The transposing happens inside the SM,
// where reading a column costs nothing extra once the tile is padded.

#define TILE 32

__global__ void transpose(const float* in, float* out, int width, int height)
{
    // One row of padding: a row of the tile is 33 floats, so going down a column moves 33 words,
    // which is one bank further each time (33 mod 32 = 1). Without it, the 32 elements of a
    // column are 32 words apart, all in the same bank, and a warp reading a column needs 32
    // wavefronts instead of 1.
    __shared__ float tile[TILE][TILE + 1];

    // Load: a warp is one row of the tile (threadIdx.x runs along the row of `in`).
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    if (row < height && col < width) tile[threadIdx.y][threadIdx.x] = in[row * width + col];

    // Every element of the tile is read by a thread of another warp below: wait for all writes.
    __syncthreads();

    // Store: block (bx, by) of `in` is block (by, bx) of `out`. threadIdx.x now runs along a row
    // of `out`, that is, down a column of `in`'s tile: a warp writes 32 neighbouring elements of
    // one row of `out` (coalesced) and reads one column of the tile (32 different banks).
    int out_col = blockIdx.y * TILE + threadIdx.x;  // a row index of `in`
    int out_row = blockIdx.x * TILE + threadIdx.y;  // a column index of `in`
    if (out_row < width && out_col < height)
        out[out_row * height + out_col] = tile[threadIdx.x][threadIdx.y];
}
