// Lesson 03 — 2D grids: an image, row by row (reference solution).
//
// out[row][col] = in[row][col] * gain + bias for every pixel of a row-major height x width image,
// launched with 2D blocks over a 2D grid that covers the image (rounded up on both sides).

__global__ void adjust(const float* in, float* out, int width, int height, float gain, float bias)
{
    // x runs across the image, y down it: the column comes from the .x built-ins, the row from
    // the .y ones. The hardware forms warps from consecutive threadIdx.x (then threadIdx.y), so
    // with this mapping a warp of a 32-wide block is 32 neighbouring pixels of ONE row:
    // 32 consecutive floats, 128 bytes, 4 sectors of 32 bytes for each load and each store.
    // (With threadIdx.x picking the row instead, the same warp reads a column: 32 pixels a whole
    // row apart, 32 different sectors for 128 useful bytes.)
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;

    // The grid is rounded up in both directions, so the edge blocks have threads with no pixel.
    // Both tests are needed: col < width alone would let the bottom blocks write past the last
    // row; row < height alone would let a thread past the right edge wrap onto the next row.
    if (row < height && col < width) {
        int i = row * width + col;  // row-major: `row` whole rows before this one, then `col`
        out[i] = in[i] * gain + bias;
    }
}
