// Lesson 11 — scan: prefix sums with warp shuffles.
//
// An inclusive scan of each block's part of the input: block b covers in[b*256 .. b*256+255], and
//
//     out[i] = in[b*256] + in[b*256 + 1] + ... + in[i]     for every i < n in block b
//
// (the first pass of a full scan of the array; a second pass would add each block's offset).
// The host side (lessons/11-scan/lesson.toml) launches one thread per element in blocks of
// BLOCK = 256 threads; n is not a multiple of 256, so the last block is partly past the end.
//
// As shipped the kernel is CORRECT, but each thread adds up everything before it on its own:
// thread 255 adds 256 numbers, thread 254 adds 255 of them again, ... about 128 loads and adds
// per element, nearly all of them repeating work another thread has already done. The
// performance check allows 100 thread-instructions per element.
//
// Run the checks with:  cudalab check 11-scan

#define BLOCK 256

__global__ void block_scan(const int* in, int* out, int n)
{
    int block_start = blockIdx.x * BLOCK;
    int i = block_start + threadIdx.x;

    // TODO 1: each thread loads its own element (0 past n) into a register v. Every thread of
    //         the block stays to the end: the shuffles and barriers below need all of them.
    // TODO 2: scan inside the warp with __shfl_up_sync: for offset = 1, 2, 4, 8, 16, get the v
    //         of the lane `offset` below (__shfl_up_sync(0xffffffff, v, offset)) and add it if
    //         lane >= offset. Afterwards lane l holds the sum of lanes 0..l of its warp.
    // TODO 3: lane 31 of each warp writes its warp's total to a __shared__ int[BLOCK / 32];
    //         __syncthreads(); warp 0 scans those 8 totals the same way and writes them back;
    //         __syncthreads(); then every warp w > 0 adds the scanned total of warp w - 1.
    // TODO 4: threads with i < n write v to out[i].
    if (i < n) {
        int sum = 0;
        for (int j = block_start; j <= i; ++j) sum += in[j];
        out[i] = sum;
    }
}
