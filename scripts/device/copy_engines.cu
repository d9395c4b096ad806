// What lesson 14 and docs/runtime.md say about copy engines and pageable memory, measured: the
// device's asyncEngineCount and concurrentManagedAccess, then a kernel of about 1 s in one stream
// and, in another non-blocking stream issued right after it, a 512 MB copy in and a 512 MB copy
// out, once from pageable (malloc) memory and once from pinned memory. It prints how long each
// cudaMemcpyAsync held the host, and when each copy ended relative to the kernel's start and end
// (events in both streams): a copy that ends before the kernel ends ran while the kernel ran.
//   nvcc -O2 -o copy_engines scripts/device/copy_engines.cu && ./copy_engines
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CHECK(call)                                                                              \
    do {                                                                                         \
        cudaError_t e_ = (call);                                                                 \
        if (e_ != cudaSuccess) {                                                                 \
            std::printf("%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));   \
            return 1;                                                                            \
        }                                                                                        \
    } while (0)

__global__ void spin(long long cycles, int* out)
{
    const long long start = clock64();
    while (clock64() - start < cycles) {
    }
    if (threadIdx.x == 0) *out = 1;
}

static double ms_since(std::chrono::steady_clock::time_point t)
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t).count();
}

static int measure(const char* label, bool pinned, long long cycles)
{
    const size_t bytes = 512u << 20;
    char *h_in = nullptr, *h_out = nullptr, *d_in = nullptr, *d_out = nullptr;
    int* flag = nullptr;
    if (pinned) {
        CHECK(cudaMallocHost(&h_in, bytes));
        CHECK(cudaMallocHost(&h_out, bytes));
    } else {
        h_in = static_cast<char*>(std::malloc(bytes));
        h_out = static_cast<char*>(std::malloc(bytes));
    }
    std::memset(h_in, 1, bytes);
    std::memset(h_out, 0, bytes);  // touch every page before timing
    CHECK(cudaMalloc(&d_in, bytes));
    CHECK(cudaMalloc(&d_out, bytes));
    CHECK(cudaMalloc(&flag, sizeof(int)));
    CHECK(cudaMemset(d_out, 2, bytes));
    cudaStream_t ks, cs;
    CHECK(cudaStreamCreateWithFlags(&ks, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
    cudaEvent_t k0, k1, c0, c1, c2;
    for (cudaEvent_t* e : {&k0, &k1, &c0, &c1, &c2}) CHECK(cudaEventCreate(e));
    CHECK(cudaDeviceSynchronize());

    CHECK(cudaEventRecord(k0, ks));
    spin<<<1, 32, 0, ks>>>(cycles, flag);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(k1, ks));
    CHECK(cudaEventRecord(c0, cs));
    auto t = std::chrono::steady_clock::now();
    CHECK(cudaMemcpyAsync(d_in, h_in, bytes, cudaMemcpyHostToDevice, cs));
    const double host_in = ms_since(t);
    CHECK(cudaEventRecord(c1, cs));
    t = std::chrono::steady_clock::now();
    CHECK(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, cs));
    const double host_out = ms_since(t);
    CHECK(cudaEventRecord(c2, cs));
    CHECK(cudaEventSynchronize(c2));
    const bool kernel_running = cudaEventQuery(k1) == cudaErrorNotReady;
    CHECK(cudaDeviceSynchronize());
    float kernel_ms = 0, in_end = 0, out_end = 0;
    CHECK(cudaEventElapsedTime(&kernel_ms, k0, k1));
    CHECK(cudaEventElapsedTime(&in_end, k0, c1));
    CHECK(cudaEventElapsedTime(&out_end, k0, c2));
    std::printf("%s: kernel %.1f ms; copy in (512 MB) ended at %.1f ms, copy out (512 MB) at %.1f "
                "ms after the kernel's start; cudaMemcpyAsync held the host %.1f ms (in) and %.1f "
                "ms (out); kernel still running when both copies had ended: %s\n",
                label, kernel_ms, in_end, out_end, host_in, host_out,
                kernel_running ? "yes" : "no");
    for (cudaEvent_t e : {k0, k1, c0, c1, c2}) CHECK(cudaEventDestroy(e));
    CHECK(cudaStreamDestroy(ks));
    CHECK(cudaStreamDestroy(cs));
    CHECK(cudaFree(d_in));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(flag));
    if (pinned) {
        CHECK(cudaFreeHost(h_in));
        CHECK(cudaFreeHost(h_out));
    } else {
        std::free(h_in);
        std::free(h_out);
    }
    return 0;
}

int main()
{
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));
    int driver = 0, runtime = 0, clock_khz = 0;
    CHECK(cudaDriverGetVersion(&driver));
    CHECK(cudaRuntimeGetVersion(&runtime));
    CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    std::printf("%s, sm_%d%d, driver %d, runtime %d\n", p.name, p.major, p.minor, driver, runtime);
    std::printf("asyncEngineCount %d, concurrentManagedAccess %d, pageableMemoryAccess %d\n",
                p.asyncEngineCount, p.concurrentManagedAccess, p.pageableMemoryAccess);
    const long long cycles = 1000ll * clock_khz;  // about 1 s at the reported clock
    if (measure("pageable", false, cycles)) return 1;
    if (measure("pinned", true, cycles)) return 1;
    return 0;
}
