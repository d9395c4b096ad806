// Correct and work-efficient (Brent-Kung: an up-sweep and a down-sweep over a shared tree), but
// with two barriers per level; the check says why it fails this lesson.
// corpus: expect Brent-Kung
#define BLOCK 256

__global__ void block_scan(const int* in, int* out, int n)
{
    __shared__ int s[BLOCK];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;
    s[t] = i < n ? in[i] : 0;
    for (int stride = 1; stride < BLOCK; stride *= 2) {
        __syncthreads();
        int k = (t + 1) * 2 * stride - 1;
        if (k < BLOCK) s[k] += s[k - stride];
    }
    for (int stride = BLOCK / 4; stride > 0; stride /= 2) {
        __syncthreads();
        int k = (t + 1) * 2 * stride - 1;
        if (k + stride < BLOCK) s[k + stride] += s[k];
    }
    __syncthreads();
    if (i < n) out[i] = s[t];
}
