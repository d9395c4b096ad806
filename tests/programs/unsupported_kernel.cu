// A kernel holding an instruction the emulator cannot run (a fetch from a multisample texture,
// which CUDA never makes, written here as inline PTX) fails its own launch with
// cudaErrorNotSupported, naming the kernel and the line; the error is not sticky, and the
// program's other kernel runs (docs/emulator.md). Emulator only: a GPU runs the fetch (on a null
// texture).
#include "check.h"

__global__ void fetch(float* out)
{
    float r, g, b, a;
    asm volatile("tex.2dms.v4.f32.s32 {%0, %1, %2, %3}, [%4, {%5, %5, %5, %5}];" : "=f"(r), "=f"(g), "=f"(b), "=f"(a) : "l"(0ull), "r"(int(threadIdx.x)));
    out[threadIdx.x] = r + g + b + a;
}

__global__ void square(float* out) { out[threadIdx.x] = float(threadIdx.x * threadIdx.x); }

int main()
{
    float* d = nullptr;
    CHECK(cudaMalloc(&d, 64 * sizeof(float)));
    fetch<<<1, 64>>>(d);
    CHECK_IS(cudaGetLastError(), cudaErrorNotSupported);
    CHECK(cudaDeviceSynchronize());  // not sticky: nothing ran
    square<<<1, 64>>>(d);
    CHECK_LAUNCH();
    float h[64];
    CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 64; ++i) EXPECT(h[i] == float(i * i), "out[%d] = %g, expected %d", i, h[i], i * i);
    CHECK(cudaFree(d));
    std::printf("fetch: cudaErrorNotSupported, not sticky; square ran\n");
    std::printf("unsupported_kernel: PASS\n");
    return 0;
}
