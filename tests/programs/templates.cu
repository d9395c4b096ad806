// templates: one templated kernel instantiated for int, float and double, a kernel templated on
// a functor and a block size (shared memory sized by the template argument), and a templated
// __device__ helper. Results are checked against the same computation on the host.
#include <cmath>
#include <vector>
#include "check.h"

template <typename T> __host__ __device__ T clamp_to(T v, T lo, T hi)
{
    return v < lo ? lo : (v > hi ? hi : v);
}

template <typename T> __global__ void axpy_clamp(T a, const T* x, T* y, int n, T lo, T hi)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = clamp_to<T>(a * x[i] + y[i], lo, hi);
}

struct Square { template <typename T> __host__ __device__ T operator()(T v) const { return v * v; } };
struct Negate { template <typename T> __host__ __device__ T operator()(T v) const { return -v; } };

// Block-wide sum of op(x) with a block size known at compile time.
template <int BLOCK, typename T, typename Op> __global__ void map_reduce(const T* x, T* out, int n, Op op)
{
    __shared__ T partial[BLOCK];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    partial[threadIdx.x] = i < n ? op(x[i]) : T(0);
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = partial[0];
}

template <typename T> static void run_axpy(const char* name, T a, T lo, T hi)
{
    const int n = 10000;
    std::vector<T> x(n), y(n), want(n);
    for (int i = 0; i < n; ++i) {
        x[i] = T(i % 97) - T(40);
        y[i] = T(i % 13);
        want[i] = clamp_to<T>(a * x[i] + y[i], lo, hi);
    }
    T *dx, *dy;
    CHECK(cudaMalloc(&dx, n * sizeof(T)));
    CHECK(cudaMalloc(&dy, n * sizeof(T)));
    CHECK(cudaMemcpy(dx, x.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dy, y.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    axpy_clamp<T><<<(n + 127) / 128, 128>>>(a, dx, dy, n, lo, hi);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(y.data(), dy, n * sizeof(T), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i)
        EXPECT(y[i] == want[i], "%s at %d: %g vs %g", name, i, (double)y[i], (double)want[i]);
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dy));
    std::printf("axpy_clamp<%s>: ok\n", name);
}

template <int BLOCK, typename T, typename Op> static void run_reduce(const char* name, Op op)
{
    const int n = 5000, blocks = (n + BLOCK - 1) / BLOCK;
    std::vector<T> x(n), part(blocks);
    for (int i = 0; i < n; ++i) x[i] = T((i % 11) - 5);
    T *dx, *dout;
    CHECK(cudaMalloc(&dx, n * sizeof(T)));
    CHECK(cudaMalloc(&dout, blocks * sizeof(T)));
    CHECK(cudaMemcpy(dx, x.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    map_reduce<BLOCK, T, Op><<<blocks, BLOCK>>>(dx, dout, n, op);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(part.data(), dout, blocks * sizeof(T), cudaMemcpyDeviceToHost));
    T got = 0, want = 0;
    for (T v : part) got += v;
    for (T v : x) want += op(v);
    EXPECT(got == want, "%s: %g vs %g", name, (double)got, (double)want); // small integers: exact
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dout));
    std::printf("map_reduce<%d, %s>: %g\n", BLOCK, name, (double)got);
}

int main()
{
    run_axpy<int>("int", 3, -50, 100);
    run_axpy<float>("float", 0.5f, -10.0f, 20.0f);
    run_axpy<double>("double", -1.25, -30.0, 30.0);
    run_reduce<64, int>("int, Square", Square{});
    run_reduce<256, float>("float, Square", Square{});
    run_reduce<128, double>("double, Negate", Negate{});
    run_reduce<32, long long>("long long, Square", Square{});
    std::printf("templates: 7 instantiations: PASS\n");
    return 0;
}
