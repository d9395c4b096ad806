// Lesson 01 — threads, blocks and warps.
//
// Every thread of this kernel reports who it is. The host side launches it with a 1D grid of
// 1D blocks, several times with different shapes, and gives it four int arrays, each with one
// element per thread of the grid. Thread g (its global id) writes, at index g:
//
//   global_id[g]  its global id: its position among all threads of the grid
//   block_id[g]   the index of its block in the grid
//   warp_id[g]    the index of its warp inside its block (32 consecutive threads form a warp)
//   lane[g]       its position inside that warp, 0..31
//
// The grid is rounded up to whole blocks, so it can have more threads than n. A thread whose
// global id is n or more must write nothing: the checks expect those elements untouched.
//
// Useful built-ins (all unsigned, .x because the launch is 1D):
//   threadIdx.x  index of this thread inside its block
//   blockIdx.x   index of this block inside the grid
//   blockDim.x   threads per block
//   gridDim.x    blocks in the grid
//
// Run the checks with:  cudalab check 01-threads

__global__ void whoami(int* global_id, int* block_id, int* warp_id, int* lane, int n)
{
    // TODO 1: threadIdx.x only numbers the threads inside one block, so every block starts again
    //         at 0. Turn it into the thread's position in the whole grid.
    int id = threadIdx.x;

    // TODO 2: the last block may stick out past n. Threads with id >= n must stop here.

    global_id[id] = id;

    // TODO 3: which block is this thread in?
    block_id[id] = 0;

    // TODO 4: which warp of its block is it in? (Counted inside the block, from 0.)
    warp_id[id] = 0;

    // TODO 5: which lane of that warp is it?
    lane[id] = 0;
}
