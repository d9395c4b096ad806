// Lesson 02 — vector add.
//
// c[i] = a[i] + b[i] for every i in [0, n).
//
// The host side (lessons/02-vector-add/lesson.toml) allocates a, b and c on the device, copies a
// and b there, launches this kernel and copies c back, like any CUDA program. It launches it
// twice for each of several sizes n (1, 1000, 4099, ...):
//   - with enough threads: (n + 255) / 256 blocks of 256, at least one thread per element;
//   - with a deliberately small grid: 4 blocks of 128, only 512 threads, even for n = 100003.
// The kernel must be right for both: any n, any grid.
//
// As shipped, each thread handles the one element at its global id. That passes the first kind
// of launch and leaves most of c unwritten in the second.
//
// Run the checks with:  cudalab check 02-vector-add

__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;

    // TODO: with fewer threads than elements, a thread must handle more than one element.
    //       Turn this `if` into a grid-stride loop: start at i, step by the number of threads
    //       in the whole grid, and stop at n. Keep the body as it is.
    if (i < n) {
        c[i] = a[i] + b[i];
    }
}
