// Benchmark (not a test): how long a SAXPY over 1 M floats takes as a kernel launch on the
// runtime this program runs against, against a plain C loop doing the same work on the host.
// On cudalab's emulated runtime the ratio is the emulator's cost; the goal is within 10x.
//   build/cudalab run bench/programs/saxpy_vs_cpu.cu -O3   (-O3: the host loop optimised too)
// or by hand:
//   nvcc -cudart shared -O3 -arch=sm_90 saxpy_vs_cpu.cu -o saxpy_vs_cpu
//   LD_LIBRARY_PATH=build/cudart-emu ./saxpy_vs_cpu
// It also prints the CPU time of a launch, every thread of the process counted: on a busy
// machine the wall time mostly measures the other tenants, the CPU time much less so.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <vector>

__global__ void saxpy(int n, float a, const float* x, float* y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

static double now_ms()
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// CPU time of every thread of the process so far.
static double cpu_ms()
{
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return double(t.tv_sec) * 1e3 + double(t.tv_nsec) * 1e-6;
}

int main()
{
    const int n = 1 << 20;
    std::vector<float> x(n), y(n);
    for (int i = 0; i < n; ++i) { x[i] = float(i % 1000) * 0.001f; y[i] = 1.0f; }
    float *dx, *dy;
    cudaMalloc(&dx, n * sizeof(float));
    cudaMalloc(&dy, n * sizeof(float));
    cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    double best_kernel = 1e30, best_cpu = 1e30, best_kernel_cpu = 1e30;
    for (int rep = 0; rep < 10; ++rep) {
        const double t0 = now_ms(), c0 = cpu_ms();
        saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, dx, dy);
        cudaDeviceSynchronize();
        best_kernel = std::min(best_kernel, now_ms() - t0);
        // (The emulated runtime traces a kernel's first two launches, which costs more.)
        if (rep >= 2) best_kernel_cpu = std::min(best_kernel_cpu, cpu_ms() - c0);
        const double t1 = now_ms();
        for (int i = 0; i < n; ++i) y[i] = 2.0f * x[i] + y[i];
        best_cpu = std::min(best_cpu, now_ms() - t1);
    }
    // Keep the host loop's result alive so it is not optimised away.
    volatile float sink = y[n / 2];
    (void)sink;
    const cudaError_t e = cudaGetLastError();
    std::printf("saxpy 1M floats: kernel launch + sync %.3f ms (wall), plain C loop %.3f ms: %.1fx  [%s]\n", best_kernel,
                best_cpu, best_kernel / best_cpu, cudaGetErrorName(e));
    std::printf("  CPU time of a launch, all threads: %.3f ms (%.1fx the loop)\n", best_kernel_cpu, best_kernel_cpu / best_cpu);
    cudaFree(dx);
    cudaFree(dy);
    return e == cudaSuccess ? 0 : 1;
}
