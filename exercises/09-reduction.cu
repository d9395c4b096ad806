// Lesson 09 — reduction: a tree in shared memory, warp shuffles, one atomic per block.
//
// *total = in[0] + in[1] + ... + in[n-1].
//
// The host side (lessons/09-reduction/lesson.toml) sets *total to 0 and launches blocks of
// BLOCK = 256 threads, sometimes fewer blocks than n needs, so each thread first adds up several
// elements in a grid-stride loop (lesson 02). Each block then combines its 256 partial sums into
// one and adds it to *total with atomicAdd: blocks cannot wait for each other, but an atomic
// add from every block still gives the right total.
//
// As shipped the kernel is CORRECT, but its tree is the textbook first attempt: at step s,
// threads whose index is a multiple of 2s add the element s places to their right. That splits
// every warp at every step (lanes 0, 2, 4, ... work while 1, 3, 5, ... idle; then 0, 4, 8, ...),
// and it synchronises the whole block 8 times even when only one warp still has work.
//
// Run the checks with:  cudalab check 09-reduction

#define BLOCK 256

__global__ void block_sum(const float* in, float* total, int n)
{
    __shared__ float partial[BLOCK];
    int t = threadIdx.x;

    // Each thread adds up its share of the input (a grid-stride loop).
    float sum = 0.0f;
    for (int i = blockIdx.x * BLOCK + t; i < n; i += BLOCK * gridDim.x) sum += in[i];
    partial[t] = sum;
    __syncthreads();

    // TODO 1: "sequential addressing": at each step let the FIRST s threads add the element s
    //         places after them, for s = 128, 64, 32, ...: if (t < s) partial[t] += partial[t + s].
    //         The working threads are then always whole warps, until s drops below 32.
    // TODO 2: stop the shared-memory tree when 64 partial sums are left (s > 32). Finish inside
    //         warp 0: lane t starts from partial[t] + partial[t + 32], and 5 steps of
    //         v += __shfl_down_sync(0xffffffff, v, offset) for offset = 16, 8, 4, 2, 1 add up the
    //         32 values in registers, with no shared memory and no __syncthreads.
    // TODO 3: lane 0 of warp 0 then holds the block's sum: atomicAdd(total, v).
    for (int s = 1; s < BLOCK; s *= 2) {
        if (t % (2 * s) == 0) partial[t] += partial[t + s];
        __syncthreads();
    }
    if (t == 0) atomicAdd(total, partial[0]);
}
