// Walks down columns with atomics as its loads and stores (atomicAdd(p, 0), atomicExch), hoping
// they are not counted as traffic. They are.
// corpus: expect sectors of 32 bytes moved
__global__ void adjust(const float* in, float* out, int width, int height, float gain, float bias)
{
    int row = blockIdx.y * blockDim.y + threadIdx.x;
    int col = blockIdx.x * blockDim.x + threadIdx.y;
    if (row < height && col < width) {
        float v = atomicAdd(const_cast<float*>(&in[row * width + col]), 0.0f);
        atomicExch(&out[row * width + col], v * gain + bias);
    }
}
