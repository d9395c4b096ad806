// Lesson 02 — vector add (reference solution).
//
// c[i] = a[i] + b[i] for every i in [0, n), correct for ANY n and ANY launch configuration.
//
// The kernel is a grid-stride loop: each thread starts at its global id and then jumps ahead by the
// number of threads in the whole grid (blockDim.x * gridDim.x) until it passes n.
//   - With at least n threads (the usual launch) every thread does one iteration, or none: the
//     loop condition `i < n` is the bounds guard, so the threads of the last block that fall past
//     n simply skip the body.
//   - With fewer than n threads (the small-grid launch) each thread takes several elements, and
//     together the threads still cover every element exactly once.

__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    // Total number of threads in the grid: the distance between two elements handled by the same
    // thread. Consecutive threads still touch consecutive elements on every pass, so each warp's
    // loads and stores stay on neighbouring addresses (the memory view shows this).
    int stride = blockDim.x * gridDim.x;

    // Start at this thread's global id (lesson 01), step by the grid size. `i < n` guards the
    // last, partial pass: no thread ever reads a[n] or writes c[n].
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        c[i] = a[i] + b[i];
    }
}
