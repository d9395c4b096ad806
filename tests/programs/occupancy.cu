// occupancy: asks the runtime how many blocks fit on a multiprocessor, which block size it
// suggests, what it knows about a kernel (registers, static shared memory), and opts a kernel
// in to more than 48 KB of dynamic shared memory, then uses all of it.
#include "check.h"

__global__ void square(int* data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] *= data[i];
}

__global__ void with_static_shared(float* out)
{
    __shared__ float tile[1024];
    tile[threadIdx.x] = threadIdx.x * 2.0f;
    __syncthreads();
    out[threadIdx.x] = tile[blockDim.x - 1 - threadIdx.x];
}

// Reverses n ints through dynamic shared memory, one block.
__global__ void reverse_dynamic(int* data, int n)
{
    extern __shared__ int buf[];
    for (int i = threadIdx.x; i < n; i += blockDim.x) buf[i] = data[i];
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x) data[i] = buf[n - 1 - i];
}

int main()
{
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));

    // Blocks per multiprocessor for a range of block sizes.
    for (int threads = 32; threads <= 1024; threads *= 2) {
        int blocks = 0;
        CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, square, threads, 0));
        EXPECT(blocks >= 1, "no block of %d threads fits", threads);
        EXPECT(blocks * threads <= p.maxThreadsPerMultiProcessor, "%d blocks of %d", blocks, threads);
        EXPECT(blocks <= p.maxBlocksPerMultiProcessor, "%d blocks", blocks);
        std::printf("block of %4d threads: %2d blocks per SM, occupancy %3d%%\n", threads, blocks,
                    100 * blocks * threads / p.maxThreadsPerMultiProcessor);
    }

    // The suggested configuration must be legal and fully usable.
    int min_grid = 0, block = 0;
    CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, square, 0, 0));
    EXPECT(block > 0 && block <= p.maxThreadsPerBlock && block % 32 == 0, "block %d", block);
    EXPECT(min_grid >= p.multiProcessorCount, "min grid %d", min_grid);
    const int n = 1 << 20;
    int* d = nullptr;
    CHECK(cudaMalloc(&d, n * sizeof(int)));
    int* h = new int[n];
    for (int i = 0; i < n; ++i) h[i] = i % 4096;
    CHECK(cudaMemcpy(d, h, n * sizeof(int), cudaMemcpyHostToDevice));
    square<<<(n + block - 1) / block, block>>>(d, n);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) EXPECT(h[i] == (i % 4096) * (i % 4096), "square at %d", i);
    std::printf("suggested block %d, minimum grid %d\n", block, min_grid);

    // What the runtime knows about a kernel.
    cudaFuncAttributes fa;
    CHECK(cudaFuncGetAttributes(&fa, with_static_shared));
    EXPECT(fa.sharedSizeBytes == 1024 * sizeof(float), "static shared %zu", fa.sharedSizeBytes);
    EXPECT(fa.maxThreadsPerBlock >= 256 && fa.numRegs > 0, "threads %d regs %d",
           fa.maxThreadsPerBlock, fa.numRegs);
    std::printf("with_static_shared: %d registers, %zu bytes static shared, PTX %d, binary %d\n",
                fa.numRegs, fa.sharedSizeBytes, fa.ptxVersion, fa.binaryVersion);

    // Dynamic shared memory over 48 KB needs an opt-in; without it the launch is refused.
    const int big = 96 * 1024;
    const int m = big / sizeof(int);
    EXPECT(p.sharedMemPerBlockOptin >= (size_t)big, "opt-in limit %zu", p.sharedMemPerBlockOptin);
    reverse_dynamic<<<1, 256, big>>>(d, m);
    cudaError_t refused = cudaGetLastError();
    EXPECT(refused != cudaSuccess, "a %d-byte launch without opt-in was accepted", big);
    std::printf("without opt-in: %s\n", cudaGetErrorName(refused));

    CHECK(cudaFuncSetAttribute(reverse_dynamic, cudaFuncAttributeMaxDynamicSharedMemorySize, big));
    CHECK(cudaFuncGetAttributes(&fa, reverse_dynamic));
    EXPECT(fa.maxDynamicSharedSizeBytes == big, "max dynamic %d", fa.maxDynamicSharedSizeBytes);
    size_t avail = 0;
    CHECK(cudaOccupancyAvailableDynamicSMemPerBlock(&avail, reverse_dynamic, 1, 256));
    EXPECT(avail >= (size_t)big, "available dynamic shared %zu", avail);
    int big_blocks = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&big_blocks, reverse_dynamic, 256, big));
    EXPECT(big_blocks >= 1 && (size_t)big_blocks * big <= p.sharedMemPerMultiprocessor,
           "%d blocks of %d bytes", big_blocks, big);

    for (int i = 0; i < m; ++i) h[i] = 3 * i + 1;
    CHECK(cudaMemcpy(d, h, m * sizeof(int), cudaMemcpyHostToDevice));
    reverse_dynamic<<<1, 256, big>>>(d, m);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(h, d, m * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < m; ++i) EXPECT(h[i] == 3 * (m - 1 - i) + 1, "reversed at %d", i);
    std::printf("%d KB dynamic shared after opt-in: %d block(s) per SM\n", big / 1024, big_blocks);

    delete[] h;
    CHECK(cudaFree(d));
    std::printf("occupancy: PASS\n");
    return 0;
}
