// Whether cudaMalloc and cudaFree wait for the device: a kernel that spins for about 200 ms,
// then each call timed on the host (docs/runtime.md takes the answer for its model).
//   nvcc -arch=sm_90 free_sync.cu -o free_sync && ./free_sync
#include <chrono>
#include <cstdio>
#include <string>
#include <cuda_runtime.h>

__global__ void spin(long long cycles) {
    long long start = clock64();
    while (clock64() - start < cycles) {
    }
}

double ms_since(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

int main() {
    int* p = nullptr;
    cudaMalloc(&p, 1 << 20);
    cudaDeviceSynchronize();
    const long long cycles = 400'000'000;  // about 200 ms at 1.98 GHz
    for (const char* what : {"cudaMalloc", "cudaFree", "cudaMallocHost", "cudaFreeHost", "cudaMemset"}) {
        spin<<<1, 1>>>(cycles);
        auto t = std::chrono::steady_clock::now();
        void* q = nullptr;
        if (std::string(what) == "cudaMalloc") cudaMalloc(&q, 1 << 20);
        else if (std::string(what) == "cudaFree") cudaFree(p);
        else if (std::string(what) == "cudaMallocHost") cudaMallocHost(&q, 1 << 20);
        else if (std::string(what) == "cudaFreeHost") { cudaMallocHost(&q, 1 << 20); t = std::chrono::steady_clock::now(); cudaFreeHost(q); }
        else { int* r; cudaMalloc(&r, 4096); t = std::chrono::steady_clock::now(); cudaMemset(r, 0, 4096); }
        std::printf("%-15s returned after %.1f ms while a 200 ms kernel ran\n", what, ms_since(t));
        cudaDeviceSynchronize();
    }
    return 0;
}
