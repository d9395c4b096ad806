// Lesson 07 — transpose: tiles in shared memory, and padding against bank conflicts.
//
// `in` is a row-major matrix of `height` rows and `width` columns; `out` must become its transpose,
// a row-major matrix of `width` rows and `height` columns:
//
//     out[col][row] = in[row][col],  i.e.  out[col * height + row] = in[row * width + col]
//
// The host side (lessons/07-transpose/lesson.toml) launches 32 x 32 blocks (TILE x TILE) on a 2D
// grid that covers `in`: x across its columns, y down its rows, rounded up on both sides.
//
// As shipped the kernel is CORRECT and its loads are coalesced (a warp reads 32 neighbouring
// elements of one row of `in`), but its stores are not: those 32 elements land in one COLUMN of
// `out`, 32 rows apart, 32 sectors per store. The checks want both sides coalesced and no bank
// conflicts in shared memory.
//
// Run the checks with:  cudalab check 07-transpose

#define TILE 32

__global__ void transpose(const float* in, float* out, int width, int height)
{
    // TODO 1: stage the block's 32 x 32 tile in shared memory: __shared__ float tile[TILE][TILE];
    //         each thread loads in[row][col] (coalesced, as now) into tile[threadIdx.y][threadIdx.x].
    // TODO 2: __syncthreads(): the block's threads will read elements that other warps wrote.
    // TODO 3: write the tile out so that a warp stores 32 neighbouring elements of one row of
    //         `out`. The block's tile goes to the mirrored place: block (bx, by) of `in` becomes
    //         block (by, bx) of `out`. Inside it, let threadIdx.x run along the row of `out`
    //         (that is, down a column of the tile): out row = blockIdx.x * TILE + threadIdx.y,
    //         out col = blockIdx.y * TILE + threadIdx.x, value tile[threadIdx.x][threadIdx.y].
    //         Guard against the edges of `out` (width rows, height columns).
    // TODO 4: reading a column of the tile hits one shared-memory bank 32 times (bank conflicts).
    //         Pad each row of the tile by one float and measure again.
    int col = blockIdx.x * TILE + threadIdx.x;
    int row = blockIdx.y * TILE + threadIdx.y;
    if (row < height && col < width) {
        out[col * height + row] = in[row * width + col];
    }
}
