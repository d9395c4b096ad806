// printf: device printf from several blocks and threads with the common conversions. The output
// is flushed at the synchronising call; tests check its lines (see programs.toml), and the
// program checks the kernel's ordinary results itself.
#include "check.h"

__device__ int counter;

__global__ void greet(int* out)
{
    int id = blockIdx.x * blockDim.x + threadIdx.x;
    printf("hello from block %d, thread %d\n", blockIdx.x, threadIdx.x);
    if (id == 0) {
        const char* word = "warp";
        printf("formats: int=%d neg=%i unsigned=%u hex=%x HEX=%X oct=%o char=%c str=%s\n", 42, -7,
               4000000000u, 255, 48879, 8, 'Z', word);
        printf("floats: f=%f 2dp=%.2f sci=%e g=%g width=[%8.3f] left=[%-6d]\n", 1.5f, 3.14159,
               12345.678, 0.0001, -2.5, 17);
        printf("wide: ll=%lld ull=%llu percent=%% ptr-null=%d\n", -9000000000LL,
               18000000000000000000ULL, (int)(out == nullptr));
    }
    out[id] = atomicAdd(&counter, 1) >= 0 ? id * 2 : -1;
}

int main()
{
    const int blocks = 2, threads = 4, n = blocks * threads;
    int* d = nullptr;
    CHECK(cudaMalloc(&d, n * sizeof(int)));
    int zero = 0;
    CHECK(cudaMemcpyToSymbol(counter, &zero, sizeof(int)));
    greet<<<blocks, threads>>>(d);
    CHECK_LAUNCH();
    CHECK(cudaDeviceSynchronize()); // device printf output appears here, before the next line
    std::fflush(stdout);

    int h[n];
    CHECK(cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) EXPECT(h[i] == 2 * i, "out[%d] = %d", i, h[i]);
    int count = 0;
    CHECK(cudaMemcpyFromSymbol(&count, counter, sizeof(int)));
    EXPECT(count == n, "counter %d", count);
    CHECK(cudaFree(d));
    std::printf("printf: %d threads printed: PASS\n", n);
    return 0;
}
