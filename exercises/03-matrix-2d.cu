// Lesson 03 — 2D grids: an image, row by row.
//
// An image of `height` rows and `width` columns of floats is stored row-major: pixel (row, col)
// is in[row * width + col], and each row follows the one above it in memory. The kernel adjusts
// the brightness and contrast of every pixel:
//
//     out[row][col] = in[row][col] * gain + bias
//
// The host side (lessons/03-matrix-2d/lesson.toml) launches it with square 2D blocks and a 2D grid
// that covers the image, rounded up on both sides, e.g. for 32x32 blocks:
//
//     dim3 block(32, 32);
//     dim3 grid((width + 31) / 32, (height + 31) / 32);
//     adjust<<<grid, block>>>(in, out, width, height, gain, bias);
//
// so x counts across the image (columns) and y down it (rows). Neither side of the images is a
// multiple of the block, so the blocks on the right and bottom edges stick out past the image.
//
// As shipped the kernel is CORRECT: each block handles its own square tile of the image and every
// pixel is written once. But it is slow, and the performance checks say so. The hardware cuts a
// 2D block into warps of 32 threads in the order threadIdx.x fastest, then threadIdx.y:
// warp 0 of a 32x32 block is threadIdx.y = 0 with threadIdx.x = 0..31. Look at which pixels
// those 32 threads touch below.
//
// Run the checks with:  cudalab check 03-matrix-2d

__global__ void adjust(const float* in, float* out, int width, int height, float gain, float bias)
{
    // TODO: here threadIdx.x picks the row and threadIdx.y the column, so the 32 threads of a warp
    //       walk DOWN a column of the tile: 32 pixels that are a whole row (width floats) apart in
    //       memory. Make the fast index, threadIdx.x, pick the column, and threadIdx.y the row, so
    //       that a warp reads 32 neighbouring pixels of one row.
    int row = blockIdx.y * blockDim.y + threadIdx.x;
    int col = blockIdx.x * blockDim.x + threadIdx.y;

    // The blocks on the right and bottom edges reach past the image: guard both directions.
    if (row < height && col < width) {
        int i = row * width + col;  // row-major
        out[i] = in[i] * gain + bias;
    }
}
