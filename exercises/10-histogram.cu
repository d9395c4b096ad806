// Lesson 10 — histogram: atomics, contention and privatisation.
//
// bins[v] = the number of pixels i < n with pixels[i] == v, for the 256 grey levels v of an 8-bit
// image. The host side (lessons/10-histogram/lesson.toml) zeroes `bins` and launches blocks of 256
// threads, usually far fewer threads than pixels, so each thread visits several pixels with a
// grid-stride loop (lesson 02).
//
// Two threads may see the same grey level at the same time, so `bins[v]++` would lose counts:
// both read the old value, both write old + 1. atomicAdd makes the read-add-write indivisible.
//
// As shipped the kernel is CORRECT, but every pixel is one atomic operation on global memory,
// 100250 of them for the 401 x 250 image, many on the same few bins (neighbouring pixels have
// similar grey levels): they queue up behind each other in the memory system. The check allows
// 256 global atomics per block: one per bin.
//
// Run the checks with:  cudalab check 10-histogram

#define BINS 256

__global__ void histogram(const unsigned char* pixels, unsigned int* bins, int n)
{
    // TODO 1: give the block its own private histogram in shared memory:
    //         __shared__ unsigned int local[BINS]; each thread zeroes one bin (blockDim.x == BINS),
    //         then __syncthreads() so no thread counts into a bin that is not zeroed yet.
    // TODO 2: count into the shared histogram instead: atomicAdd(&local[pixels[i]], 1). Shared
    //         atomics stay inside the SM and only contend with the block's own threads.
    // TODO 3: __syncthreads() again (every count must be in), then merge: thread t adds local[t]
    //         to bins[t] with ONE global atomicAdd (or none, if local[t] is 0).
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        atomicAdd(&bins[pixels[i]], 1u);
    }
}
