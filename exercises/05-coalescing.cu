// Lesson 05 — coalescing: neighbouring lanes, neighbouring addresses.
//
// y[i] = a * x[i] + y[i] for every i in [0, n)  (SAXPY), with each thread handling
// ITEMS = 8 elements ("thread coarsening": fewer threads, each doing more, so the index
// arithmetic and the launch cost are shared by 8 elements).
//
// The host side (lessons/05-coalescing/lesson.toml) launches blocks of 128 threads, and enough of
// them for every thread to have 8 elements: a block covers 128 * 8 = 1024 consecutive elements,
// (n + 1023) / 1024 blocks in all. n is not a multiple of 1024, so the last block covers fewer.
//
// As shipped the kernel is CORRECT: each thread takes a run of 8 consecutive elements, like a CPU
// thread taking its chunk of an array. But look at what one warp does on each pass of the loop:
// lane 0 touches element 0 of its run, lane 1 element 8, lane 2 element 16, ... 32 floats, each
// 32 bytes from the next: 32 different sectors for 128 useful bytes, and each sector fetched again
// on each of the 8 passes. The checks want the sectors moved to be (nearly) the sectors x and y
// occupy: each sector fetched once.
//
// Run the checks with:  cudalab check 05-coalescing

#define ITEMS 8

__global__ void saxpy(const float* x, float* y, float a, int n)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;

    // TODO: as written, thread t owns elements t*8 .. t*8+7 ("blocked"), so on every pass the 32
    //       lanes of a warp are 8 elements apart. Keep 8 elements per thread and keep each block
    //       on its own 1024 elements, but deal them out "striped": on pass k, the block's threads
    //       take 128 consecutive elements, thread threadIdx.x taking the threadIdx.x-th of them.
    //       Then the lanes of a warp touch 32 consecutive floats on every pass.
    for (int k = 0; k < ITEMS; ++k) {
        int i = t * ITEMS + k;
        if (i < n) {
            y[i] = a * x[i] + y[i];
        }
    }
}
