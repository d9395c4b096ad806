// A subtle bug: pixels read as signed char, so every grey level above 127 is a negative index.
#define BINS 256

__global__ void histogram(const unsigned char* pixels, unsigned int* bins, int n)
{
    __shared__ unsigned int local[BINS + 128];
    int t = threadIdx.x;
    local[t] = 0;
    if (t < 128) local[BINS + t] = 0;
    __syncthreads();
    const signed char* p = reinterpret_cast<const signed char*>(pixels);
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) atomicAdd(&local[128 + p[i]], 1u);
    __syncthreads();
    if (local[t]) atomicAdd(&bins[t], local[t]);
}
