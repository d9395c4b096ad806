// A demo kernel for the views (not a lesson): a 32 x 32 tile of a matrix is read row by row into
// shared memory and written out transposed. Reading the tile by columns puts all 32 lanes of a
// warp in one bank: a 32-way bank conflict. Padding each row by one word ([32][33]) spreads them
// over all 32 banks.
//
//   cudalab exec assets/demos/transpose.cu --kernel transpose_tile --grid 4,4 --block 32,8 \
//       --arg f32[16384]:iota --arg f32[16384]:zeros --arg i32:128 --trace transpose.trace
//   cudalab gui --trace transpose.trace --source assets/demos/transpose.cu --view shared

#define TILE 32
#define ROWS 8  // each thread copies TILE / ROWS elements

__global__ void transpose_tile(const float* in, float* out, int n)
{
    __shared__ float tile[TILE][TILE];  // try [TILE][TILE + 1]

    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];

    __syncthreads();

    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}
