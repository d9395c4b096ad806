// Correct but slow (the shipped kernel): each thread adds up everything before it in its block.
// corpus: expect thread-instructions
#define BLOCK 256

__global__ void block_scan(const int* in, int* out, int n)
{
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;
    if (i >= n) return;
    int sum = 0;
    for (int j = blockIdx.x * BLOCK; j <= i; ++j) sum += in[j];
    out[i] = sum;
}
