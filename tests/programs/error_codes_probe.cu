// error_codes_probe: not a test (it is not in programs.toml and has no pass/fail). It prints the
// code NVIDIA's runtime returns for each of a list of bad calls, bad launch configurations and calls
// after a sticky fault, so the emulated runtime can be compared with it; its H200 output is
// recorded in h200-native.txt. Build: nvcc -cudart shared error_codes_probe.cu -o error_codes_probe
#include "check.h"
__global__ void store(int* p, int index, int value) { if (p) p[index] = value; }
#define SHOW(what) do { cudaError_t e_ = (what); std::printf("%-60s -> %s\n", #what, cudaGetErrorName(e_)); } while (0)
int main()
{
    setvbuf(stdout, nullptr, _IONBF, 0);
    int* d; CHECK(cudaMalloc(&d, 4096));
    int index = 0, value = 5;
    void* args[] = {&d, &index, &value};
    store<<<1, 2048>>>(d, 0, 1); SHOW(cudaGetLastError()); SHOW(cudaGetLastError());
    store<<<1, dim3(1024, 2)>>>(d, 0, 1); SHOW(cudaGetLastError());
    store<<<1, dim3(1, 1, 65)>>>(d, 0, 1); SHOW(cudaGetLastError());
    store<<<1, dim3(0, 1, 1)>>>(d, 0, 1); SHOW(cudaGetLastError());
    store<<<0, 1>>>(d, 0, 1); SHOW(cudaGetLastError());
    store<<<dim3(1, 70000), 1>>>(d, 0, 1); SHOW(cudaGetLastError());
    store<<<1, 32, 200000>>>(d, 0, 1); SHOW(cudaGetLastError());
    SHOW(cudaLaunchKernel((const void*)store, dim3(1, 70000), dim3(1), args, 0, 0)); SHOW(cudaGetLastError());
    SHOW(cudaLaunchKernel((const void*)store, dim3(1), dim3(2048), args, 0, 0)); SHOW(cudaGetLastError());
    SHOW(cudaLaunchKernel((const void*)store, dim3(0), dim3(32), args, 0, 0)); SHOW(cudaGetLastError());
    SHOW(cudaMemcpy(d, d, 16, (cudaMemcpyKind)42)); SHOW(cudaGetLastError());
    SHOW(cudaMemcpy(d, d, 1 << 20, cudaMemcpyDeviceToDevice)); SHOW(cudaGetLastError());
    int* huge; SHOW(cudaMalloc(&huge, size_t(1) << 60)); SHOW(cudaGetLastError());
    SHOW(cudaSetDevice(5)); SHOW(cudaGetLastError());
    int v; SHOW(cudaDeviceGetAttribute(&v, (cudaDeviceAttr)100000, 0)); SHOW(cudaGetLastError());
    store<<<1, 1>>>(d, 0, 1); SHOW(cudaDeviceSynchronize());
    // illegal address: a wild pointer
    store<<<1, 1>>>((int*)0x10, 0, 1); SHOW(cudaGetLastError()); SHOW(cudaDeviceSynchronize());
    SHOW(cudaPeekAtLastError()); SHOW(cudaGetLastError()); SHOW(cudaGetLastError()); SHOW(cudaDeviceSynchronize());
    int h; SHOW(cudaMemcpy(&h, d, 4, cudaMemcpyDeviceToHost)); int* m; SHOW(cudaMalloc(&m, 64));
    store<<<1, 1>>>(d, 0, 1); SHOW(cudaGetLastError()); SHOW(cudaPeekAtLastError());
    store<<<1, 2048>>>(d, 0, 1); SHOW(cudaGetLastError());
    SHOW(cudaFree(d)); SHOW(cudaStreamSynchronize(0)); cudaEvent_t e; SHOW(cudaEventCreate(&e));
    return 0;
}
