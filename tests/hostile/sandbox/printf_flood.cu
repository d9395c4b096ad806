// Prints far more with device printf than the printf buffer holds. On a GPU the output that does
// not fit is lost and the kernel runs on: no error, every thread's store done.
#include <cstdio>
#include <cstdlib>

__global__ void flood(int* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    printf("thread %5d of the flood says hello\n", i);
    out[i] = 2 * i;
}

int main(int argc, char** argv) {
    const size_t fifo = argc > 1 ? size_t(std::atol(argv[1])) : 0;
    if (fifo) std::printf("set limit: %s\n", cudaGetErrorName(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, fifo)));
    const int n = argc > 2 ? std::atoi(argv[2]) : 4096;  // a multiple of 256, at most 1 << 16
    if (n <= 0 || n % 256 || n > (1 << 16)) return 2;
    int* d = nullptr;
    cudaMalloc(&d, n * sizeof(int));
    flood<<<n / 256, 256>>>(d, n);
    std::printf("launch: %s\n", cudaGetErrorName(cudaGetLastError()));
    std::printf("sync: %s\n", cudaGetErrorName(cudaDeviceSynchronize()));
    static int h[1 << 16];
    std::printf("copy: %s\n", cudaGetErrorName(cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost)));
    int wrong = 0;
    for (int i = 0; i < n; ++i) wrong += h[i] != 2 * i;
    std::printf("stores: %d of %d wrong\n", wrong, n);
    std::printf("last: %s\n", cudaGetErrorName(cudaGetLastError()));
    cudaFree(d);
    return wrong ? 1 : 0;
}
