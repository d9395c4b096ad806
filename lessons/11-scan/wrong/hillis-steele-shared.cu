// Lesson 11, a known-wrong variant for the course linter (tests/course_linter_test.cpp): a
// Hillis-Steele scan of the whole block in shared memory. Correct and well within the instruction
// bound, but each of its 8 steps needs two block-wide barriers (read, then write), 17 in all:
// the "barriers per block" check must fail on it.

#define BLOCK 256

__global__ void block_scan(const int* in, int* out, int n)
{
    __shared__ int buf[BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;
    buf[t] = i < n ? in[i] : 0;
    __syncthreads();
    for (int offset = 1; offset < BLOCK; offset *= 2) {
        int below = t >= offset ? buf[t - offset] : 0;
        __syncthreads();  // everyone has read before anyone overwrites
        buf[t] += below;
        __syncthreads();  // everyone has written before the next step reads
    }
    if (i < n) out[i] = buf[t];
}
