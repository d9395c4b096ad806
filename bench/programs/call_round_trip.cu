// Benchmark (not a test): what one runtime call costs the program. On cudalab's emulated runtime
// each call is a round trip to the device process (engine/device/protocol.h); the goal is at most
// 20 us (median) on a 2-core machine. Three calls: cudaGetDevice (nothing to do but answer),
// cudaStreamQuery (the runtime's state), and a 4-byte cudaMemcpy to the device and back (the
// program's memory read and written by the device process). On a GPU the same program measures
// NVIDIA's runtime, the peer.
//   build/cudalab run bench/programs/call_round_trip.cu -O2
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

template <class F> static double median_us(F call, int batches = 21, int per_batch = 2000)
{
    std::vector<double> us;
    for (int b = 0; b < batches; ++b) {
        const auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < per_batch; ++i) call();
        const auto end = std::chrono::steady_clock::now();
        us.push_back(std::chrono::duration<double, std::micro>(end - start).count() / per_batch);
    }
    std::sort(us.begin(), us.end());
    return us[us.size() / 2];
}

int main()
{
    int device = 0;
    int* d = nullptr;
    int h = 7;
    if (cudaMalloc(&d, sizeof(int)) != cudaSuccess) {
        std::printf("cudaMalloc failed\n");
        return 1;
    }
    const double get_device = median_us([&] { cudaGetDevice(&device); });
    const double query = median_us([&] { cudaStreamQuery(0); });
    const double copy = median_us([&] {
        cudaMemcpy(d, &h, sizeof h, cudaMemcpyHostToDevice);
        cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
    }, 21, 500) / 2;
    std::printf("call round trip, median of 21 batches (goal: at most 20 us on the emulated runtime)\n");
    std::printf("  cudaGetDevice      %8.2f us\n", get_device);
    std::printf("  cudaStreamQuery    %8.2f us\n", query);
    std::printf("  cudaMemcpy 4 bytes %8.2f us\n", copy);
    cudaFree(d);
    return 0;
}
