// A subtle bug: each block stores its sum into *total with a plain read-modify-write, so blocks
// overwrite each other (a race the emulator reports).
// corpus: expect race between blocks
#define BLOCK 256

__global__ void block_sum(const float* in, float* total, int n)
{
    __shared__ float partial[BLOCK];
    int t = threadIdx.x;
    float sum = 0.0f;
    for (int i = blockIdx.x * BLOCK + t; i < n; i += BLOCK * gridDim.x) sum += in[i];
    partial[t] = sum;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s /= 2) {
        if (t < s) partial[t] += partial[t + s];
        __syncthreads();
    }
    if (t == 0) *total += partial[0];
}
