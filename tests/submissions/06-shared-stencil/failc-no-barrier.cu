// A subtle bug: no __syncthreads() between filling the tile and reading it. The emulator reports
// the race between warps.
#define R 3
#define BLOCK 256

__global__ void smooth(const float* in, float* out, int n)
{
    const float w[2 * R + 1] = {1 / 64.f, 6 / 64.f, 15 / 64.f, 20 / 64.f, 15 / 64.f, 6 / 64.f, 1 / 64.f};
    __shared__ float tile[BLOCK + 2 * R];
    int t = threadIdx.x;
    int i = blockIdx.x * BLOCK + t;
    tile[R + t] = i < n ? in[i] : 0.0f;
    if (t < R) {
        int left = blockIdx.x * BLOCK - R + t, right = blockIdx.x * BLOCK + BLOCK + t;
        tile[t] = left >= 0 ? in[left] : 0.0f;
        tile[R + BLOCK + t] = right < n ? in[right] : 0.0f;
    }
    if (i < n) {
        float sum = 0.0f;
        for (int k = -R; k <= R; ++k) sum += w[k + R] * tile[R + t + k];
        out[i] = sum;
    }
}
