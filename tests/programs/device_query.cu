// device_query: enumerates the devices, reads their properties and attributes, checks that the
// two agree and that the values are plausible, and reads the runtime and driver versions.
#include <cstring>
#include "check.h"

int main()
{
    int runtime = 0, driver = 0;
    CHECK(cudaRuntimeGetVersion(&runtime));
    CHECK(cudaDriverGetVersion(&driver));
    std::printf("CUDA driver version %d.%d, runtime version %d.%d\n", driver / 1000,
                (driver % 1000) / 10, runtime / 1000, (runtime % 1000) / 10);
    EXPECT(runtime >= 12000, "runtime version %d", runtime);
    EXPECT(driver >= runtime, "driver %d older than runtime %d", driver, runtime);

    int count = 0;
    CHECK(cudaGetDeviceCount(&count));
    EXPECT(count >= 1, "no CUDA device (count %d)", count);

    for (int dev = 0; dev < count; ++dev) {
        CHECK(cudaSetDevice(dev));
        int current = -1;
        CHECK(cudaGetDevice(&current));
        EXPECT(current == dev, "cudaGetDevice gave %d after cudaSetDevice(%d)", current, dev);

        cudaDeviceProp p;
        CHECK(cudaGetDeviceProperties(&p, dev));
        std::printf("Device %d: \"%s\", compute capability %d.%d\n", dev, p.name, p.major, p.minor);
        std::printf("  %d multiprocessors, %zu MiB global memory, %d KiB L2\n",
                    p.multiProcessorCount, p.totalGlobalMem >> 20, p.l2CacheSize >> 10);
        std::printf("  warp %d, max threads/block %d, block dims %d x %d x %d, grid %d x %d x %d\n",
                    p.warpSize, p.maxThreadsPerBlock, p.maxThreadsDim[0], p.maxThreadsDim[1],
                    p.maxThreadsDim[2], p.maxGridSize[0], p.maxGridSize[1], p.maxGridSize[2]);
        std::printf("  shared/block %zu (opt-in %zu), regs/block %d, const %zu, copy engines %d\n",
                    p.sharedMemPerBlock, p.sharedMemPerBlockOptin, p.regsPerBlock,
                    p.totalConstMem, p.asyncEngineCount);

        EXPECT(std::strlen(p.name) > 0, "empty device name");
        EXPECT(p.major >= 3, "compute capability %d.%d", p.major, p.minor);
        EXPECT(p.warpSize == 32, "warp size %d", p.warpSize);
        EXPECT(p.maxThreadsPerBlock >= 512 && p.maxThreadsPerBlock <= 2048, "%d",
               p.maxThreadsPerBlock);
        EXPECT(p.maxGridSize[0] >= 65535 && p.maxGridSize[1] >= 65535, "grid limits");
        EXPECT(p.sharedMemPerBlock >= 48 * 1024, "shared per block %zu", p.sharedMemPerBlock);
        EXPECT(p.sharedMemPerBlockOptin >= p.sharedMemPerBlock, "opt-in below default");
        EXPECT(p.totalGlobalMem > (size_t(1) << 30), "global memory %zu", p.totalGlobalMem);
        EXPECT(p.maxThreadsPerMultiProcessor >= p.maxThreadsPerBlock, "threads per SM");

        // Attributes and properties are two views of the same facts.
        struct { cudaDeviceAttr attr; long long prop; const char* name; } pairs[] = {
            {cudaDevAttrMultiProcessorCount, p.multiProcessorCount, "multiProcessorCount"},
            {cudaDevAttrComputeCapabilityMajor, p.major, "major"},
            {cudaDevAttrComputeCapabilityMinor, p.minor, "minor"},
            {cudaDevAttrWarpSize, p.warpSize, "warpSize"},
            {cudaDevAttrMaxThreadsPerBlock, p.maxThreadsPerBlock, "maxThreadsPerBlock"},
            {cudaDevAttrMaxBlockDimX, p.maxThreadsDim[0], "maxThreadsDim[0]"},
            {cudaDevAttrMaxGridDimX, p.maxGridSize[0], "maxGridSize[0]"},
            {cudaDevAttrMaxSharedMemoryPerBlock, (long long)p.sharedMemPerBlock, "sharedMemPerBlock"},
            {cudaDevAttrMaxSharedMemoryPerBlockOptin, (long long)p.sharedMemPerBlockOptin,
             "sharedMemPerBlockOptin"},
            {cudaDevAttrMaxRegistersPerBlock, p.regsPerBlock, "regsPerBlock"},
            {cudaDevAttrL2CacheSize, p.l2CacheSize, "l2CacheSize"},
            {cudaDevAttrMaxThreadsPerMultiProcessor, p.maxThreadsPerMultiProcessor,
             "maxThreadsPerMultiProcessor"},
            {cudaDevAttrConcurrentManagedAccess, p.concurrentManagedAccess, "concurrentManagedAccess"},
            {cudaDevAttrCooperativeLaunch, p.cooperativeLaunch, "cooperativeLaunch"},
            {cudaDevAttrMemoryPoolsSupported, p.memoryPoolsSupported, "memoryPoolsSupported"},
            {cudaDevAttrAsyncEngineCount, p.asyncEngineCount, "asyncEngineCount"},
        };
        for (const auto& q : pairs) {
            int value = -1;
            CHECK(cudaDeviceGetAttribute(&value, q.attr, dev));
            EXPECT(value == q.prop, "attribute for %s is %d, property is %lld", q.name, value, q.prop);
        }
        int clock_khz = 0, mem_clock_khz = 0, bus_width = 0;
        CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, dev));
        CHECK(cudaDeviceGetAttribute(&mem_clock_khz, cudaDevAttrMemoryClockRate, dev));
        CHECK(cudaDeviceGetAttribute(&bus_width, cudaDevAttrGlobalMemoryBusWidth, dev));
        std::printf("  SM clock %d MHz, memory clock %d MHz, bus %d bits\n", clock_khz / 1000,
                    mem_clock_khz / 1000, bus_width);
        EXPECT(clock_khz > 100000, "clock %d kHz", clock_khz);
        EXPECT(bus_width == p.memoryBusWidth, "bus width %d vs %d", bus_width, p.memoryBusWidth);

        // An attribute outside the enumeration is an error, not a value.
        int bogus = 0;
        CHECK_IS(cudaDeviceGetAttribute(&bogus, (cudaDeviceAttr)100000, dev), cudaErrorInvalidValue);
    }
    // A device number past the end is refused, and the error is not sticky.
    CHECK_IS(cudaSetDevice(count), cudaErrorInvalidDevice);
    cudaGetLastError();
    CHECK(cudaSetDevice(0));
    std::printf("device_query: %d device(s): PASS\n", count);
    return 0;
}
