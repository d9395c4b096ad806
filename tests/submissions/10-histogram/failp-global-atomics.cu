// Correct but slow (the shipped kernel): one global atomic per pixel.
// corpus: expect atomic operations on global memory
__global__ void histogram(const unsigned char* pixels, unsigned int* bins, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) atomicAdd(&bins[pixels[i]], 1u);
}
