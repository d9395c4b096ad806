// Lesson 10 — histogram: atomics, contention and privatisation (reference solution).
//
// bins[v] = number of pixels equal to v. Each block counts its pixels into a private histogram in
// shared memory, then adds its 256 counts to the global histogram: 256 global atomics per block
// at most, instead of one per pixel.

#define BINS 256

__global__ void histogram(const unsigned char* pixels, unsigned int* bins, int n)
{
    // One private histogram per block, in the SM's shared memory. (The host launches blocks of
    // BINS threads, so each thread owns one bin for zeroing and merging.)
    __shared__ unsigned int local[BINS];
    int t = threadIdx.x;

    local[t] = 0;
    __syncthreads();  // every bin is zero before any thread counts into it

    // Count. The atomics are on shared memory: the block's threads still have to take turns on
    // a bin they hit together, but the traffic stays in the SM, and blocks on different SMs no
    // longer queue up on the same global words. The loads of `pixels` stay coalesced.
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) {
        atomicAdd(&local[pixels[i]], 1u);
    }
    __syncthreads();  // every count of the block is in before the merge reads it

    // Merge: one global atomic per non-empty bin. Other blocks add to the same bins at the same
    // time, so this add must still be atomic, but there are at most 256 per block.
    unsigned int count = local[t];
    if (count > 0) atomicAdd(&bins[t], count);
}
