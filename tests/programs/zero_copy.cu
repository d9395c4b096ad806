// zero_copy: the kernel reads and writes mapped, page-locked host memory directly through the
// device pointer cudaHostGetDevicePointer gives; no cudaMemcpy anywhere.
#include "check.h"

__global__ void scale_add(const float* a, const float* b, float* c, int n, float s)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        c[i] = s * a[i] + b[i];
}

int main()
{
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));
    EXPECT(p.canMapHostMemory, "device 0 cannot map host memory");
    // Must come before anything creates the context (harmless where mapping is always on).
    CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
    unsigned flags = 0;
    CHECK(cudaGetDeviceFlags(&flags));
    EXPECT(flags & cudaDeviceMapHost, "flags %#x", flags);

    const int n = 1 << 18;
    const size_t bytes = n * sizeof(float);
    float *a, *b, *c;
    CHECK(cudaHostAlloc(&a, bytes, cudaHostAllocMapped));
    CHECK(cudaHostAlloc(&b, bytes, cudaHostAllocMapped | cudaHostAllocWriteCombined));
    CHECK(cudaHostAlloc(&c, bytes, cudaHostAllocMapped | cudaHostAllocPortable));
    for (int i = 0; i < n; ++i) {
        a[i] = (float)(i % 1000);
        b[i] = 0.25f * (i % 7);
        c[i] = -1.0f;
    }
    float *da, *db, *dc;
    CHECK(cudaHostGetDevicePointer(&da, a, 0));
    CHECK(cudaHostGetDevicePointer(&db, b, 0));
    CHECK(cudaHostGetDevicePointer(&dc, c, 0));
    unsigned got_flags = 0;
    CHECK(cudaHostGetFlags(&got_flags, a));
    EXPECT(got_flags & cudaHostAllocMapped, "host flags %#x", got_flags);

    scale_add<<<128, 256>>>(da, db, dc, n, 2.0f);
    CHECK_LAUNCH();
    CHECK(cudaDeviceSynchronize()); // the kernel's writes to host memory are visible after this
    for (int i = 0; i < n; ++i) {
        float want = 2.0f * (float)(i % 1000) + 0.25f * (i % 7);
        EXPECT(c[i] == want, "c[%d] = %g, expected %g", i, c[i], want);
    }
    CHECK(cudaFreeHost(a));
    CHECK(cudaFreeHost(b));
    CHECK(cudaFreeHost(c));
    std::printf("zero_copy: %d elements through mapped host memory: PASS\n", n);
    return 0;
}
