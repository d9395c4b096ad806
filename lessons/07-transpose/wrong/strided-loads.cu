// Lesson 07, a known-wrong variant for the course linter (tests/course_linter_test.cpp): the direct
// transpose written from the output's side. Each warp writes 32 neighbouring elements of a row of
// `out` (coalesced stores) but reads them from a column of `in`, 32 rows apart: the "global
// loads: sectors per request" check must fail on it. (The shipped exercise is the mirror image:
// coalesced loads, strided stores.)

#define TILE 32

__global__ void transpose(const float* in, float* out, int width, int height)
{
    // The grid covers `in` (x across its columns), so block (bx, by) handles the same elements as
    // in the exercise; only the roles of threadIdx.x and threadIdx.y inside the tile are swapped.
    int col = blockIdx.x * TILE + threadIdx.y;  // column of `in` = row of `out`
    int row = blockIdx.y * TILE + threadIdx.x;  // row of `in` = column of `out`
    if (row < height && col < width) {
        out[col * height + row] = in[row * width + col];
    }
}
