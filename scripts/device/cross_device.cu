// What CUDA answers when work crosses devices, and what a peer copy costs with and without peer
// access: the facts the emulated runtime's model takes (docs/runtime.md). Needs two GPUs.
//   nvcc -arch=sm_90 cross_device.cu -o cross_device && ./cross_device
#include <cstdio>
#include <cuda_runtime.h>

__global__ void touch(int* p) { if (p) p[threadIdx.x] = 1; }

int main() {
    int n = 0;
    cudaGetDeviceCount(&n);
    if (n < 2) {
        std::printf("cross_device: %d GPU(s), two are needed\n", n);
        return 0;
    }
    cudaStream_t s0, s1;
    cudaEvent_t e0;
    cudaSetDevice(0);
    cudaStreamCreate(&s0);
    cudaEventCreate(&e0);
    cudaSetDevice(1);
    cudaStreamCreate(&s1);
    // A kernel into another device's stream.
    touch<<<1, 32, 0, s0>>>(nullptr);
    cudaError_t launch = cudaGetLastError();
    std::printf("kernel into device 0's stream while device 1 is current: %s\n", cudaGetErrorName(launch));
    // An event of device 0 recorded in a stream of device 1.
    std::printf("cudaEventRecord(event of device 0, stream of device 1): %s\n",
                cudaGetErrorName(cudaEventRecord(e0, s1)));
    cudaGetLastError();
    // A stream of device 1 waiting on an event of device 0 (recorded on device 0).
    cudaSetDevice(0);
    cudaEventRecord(e0, s0);
    cudaSetDevice(1);
    std::printf("cudaStreamWaitEvent(stream of device 1, event of device 0): %s\n",
                cudaGetErrorName(cudaStreamWaitEvent(s1, e0, 0)));
    // A copy into device 0's stream while device 1 is current.
    int *d0, *d1;
    cudaSetDevice(0);
    cudaMalloc(&d0, 64 << 20);
    cudaSetDevice(1);
    cudaMalloc(&d1, 64 << 20);
    std::printf("cudaMemcpyAsync into device 0's stream while device 1 is current: %s\n",
                cudaGetErrorName(cudaMemcpyAsync(d0, d1, 4096, cudaMemcpyDefault, s0)));
    cudaDeviceSynchronize();
    // Peer copies of 64 MB, without and with peer access.
    for (int enabled = 0; enabled < 2; ++enabled) {
        if (enabled) {
            cudaSetDevice(0);
            cudaDeviceEnablePeerAccess(1, 0);
            cudaSetDevice(1);
            cudaDeviceEnablePeerAccess(0, 0);
        }
        cudaSetDevice(0);
        cudaEvent_t a, b;
        cudaEventCreate(&a);
        cudaEventCreate(&b);
        for (int warm = 0; warm < 2; ++warm) {
            cudaEventRecord(a, s0);
            cudaMemcpyPeerAsync(d1, 1, d0, 0, 64 << 20, s0);
            cudaEventRecord(b, s0);
            cudaEventSynchronize(b);
        }
        float ms = 0;
        cudaEventElapsedTime(&ms, a, b);
        std::printf("peer copy of 64 MiB, peer access %s: %.3f ms (%.1f GB/s)\n",
                    enabled ? "enabled" : "not enabled", ms, (64 << 20) / (ms * 1e6));
    }
    return 0;
}
