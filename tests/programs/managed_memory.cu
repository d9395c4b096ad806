// managed_memory: cudaMallocManaged data touched by the host and by kernels in several streams,
// with cudaMemAdvise hints and cudaMemPrefetchAsync moving pages ahead of use. Each stream works on
// its own slice, and the host checks the slices as each stream finishes.
#include "check.h"

__global__ void saxpy(float a, const float* x, float* y, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void bump(int* c) { *c += 1; }

int main()
{
    int dev = 0, managed = 0, concurrent = 0;
    CHECK(cudaGetDevice(&dev));
    CHECK(cudaDeviceGetAttribute(&managed, cudaDevAttrManagedMemory, dev));
    CHECK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, dev));
    EXPECT(managed, "device %d has no managed memory", dev);

    const int nstreams = 4, slice = 1 << 16, n = nstreams * slice;
    float *x = nullptr, *y = nullptr;
    CHECK(cudaMallocManaged(&x, n * sizeof(float)));
    CHECK(cudaMallocManaged(&y, n * sizeof(float), cudaMemAttachGlobal));
    for (int i = 0; i < n; ++i) { x[i] = (float)(i % 64); y[i] = 1.0f; } // first touch on the host

    cudaMemLocation gpu = {};
    gpu.type = cudaMemLocationTypeDevice;
    gpu.id = dev;
    cudaMemLocation cpu = {};
    cpu.type = cudaMemLocationTypeHost;
    cpu.id = 0;
    // x is only read by the device; y is preferred on the device.
    CHECK(cudaMemAdvise(x, n * sizeof(float), cudaMemAdviseSetReadMostly, gpu));
    CHECK(cudaMemAdvise(y, n * sizeof(float), cudaMemAdviseSetPreferredLocation, gpu));
    CHECK(cudaMemAdvise(y, n * sizeof(float), cudaMemAdviseSetAccessedBy, cpu));

    cudaStream_t streams[nstreams];
    for (auto& s : streams) CHECK(cudaStreamCreate(&s));
    for (int k = 0; k < nstreams; ++k) {
        float* xs = x + k * slice;
        float* ys = y + k * slice;
        CHECK(cudaMemPrefetchAsync(xs, slice * sizeof(float), gpu, 0, streams[k]));
        CHECK(cudaMemPrefetchAsync(ys, slice * sizeof(float), gpu, 0, streams[k]));
        saxpy<<<slice / 256, 256, 0, streams[k]>>>(2.0f, xs, ys, slice);
        CHECK_LAUNCH();
        saxpy<<<slice / 256, 256, 0, streams[k]>>>(0.5f, xs, ys, slice);
        CHECK_LAUNCH();
        CHECK(cudaMemPrefetchAsync(ys, slice * sizeof(float), cpu, 0, streams[k]));
    }
    // Check each slice as soon as its stream is done.
    for (int k = 0; k < nstreams; ++k) {
        CHECK(cudaStreamSynchronize(streams[k]));
        for (int i = k * slice; i < (k + 1) * slice; ++i) {
            float want = 1.0f + 2.5f * (float)(i % 64);
            EXPECT(y[i] == want, "y[%d] = %g, expected %g", i, y[i], want);
        }
    }

    // The host changes the data, the device uses it again without any prefetch.
    for (int i = 0; i < n; ++i) y[i] = -y[i];
    saxpy<<<n / 256, 256>>>(1.0f, x, y, n);
    CHECK_LAUNCH();
    CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < n; ++i) {
        float want = -(1.0f + 2.5f * (float)(i % 64)) + (float)(i % 64);
        EXPECT(y[i] == want, "second pass y[%d] = %g, expected %g", i, y[i], want);
    }

    // A single managed int passed back and forth: host, device, host, device.
    int* counter = nullptr;
    CHECK(cudaMallocManaged(&counter, sizeof(int)));
    *counter = 40;
    bump<<<1, 1>>>(counter);
    CHECK_LAUNCH();
    CHECK(cudaDeviceSynchronize());
    *counter *= 2;
    bump<<<1, 1>>>(counter);
    CHECK_LAUNCH();
    CHECK(cudaDeviceSynchronize());
    EXPECT(*counter == 83, "counter %d", *counter);

    for (auto& s : streams) CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(x));
    CHECK(cudaFree(y));
    CHECK(cudaFree(counter));
    std::printf("managed_memory: %d streams, concurrent managed access %d: PASS\n", nstreams,
                concurrent);
    return 0;
}
