// multi_copy: the ways data moves. Pitched 2D allocations with cudaMemcpy2D and cudaMemset2D,
// a 3D allocation with cudaMemcpy3D and cudaMemset3D, __constant__ and __device__ globals through
// cudaMemcpyToSymbol/FromSymbol and cudaGetSymbolAddress, device-to-device and async copies, and
// cudaMemGetInfo seeing an allocation.
#include <vector>
#include "check.h"

__constant__ float coeffs[16];
__device__ int table[256];
__device__ int scalar_result;

// out[y][x] = in[y][x] * coeffs[x % 16] on a pitched 2D array.
__global__ void scale_rows(const float* in, size_t in_pitch, float* out, size_t out_pitch, int w, int h)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    const float* row_in = (const float*)((const char*)in + y * in_pitch);
    float* row_out = (float*)((char*)out + y * out_pitch);
    row_out[x] = row_in[x] * coeffs[x % 16];
}

__global__ void sum_table(int n)
{
    int s = 0;
    for (int i = 0; i < n; ++i) s += table[i];
    scalar_result = s;
}

// Adds z*10000 + y*100 + x to every element of a 3D pitched array of ints.
__global__ void tag3d(cudaPitchedPtr p, int w, int h, int d)
{
    int x = threadIdx.x, y = blockIdx.x, z = blockIdx.y;
    if (x >= w || y >= h || z >= d) return;
    int* row = (int*)((char*)p.ptr + (z * h + y) * p.pitch);
    row[x] += z * 10000 + y * 100 + x;
}

int main()
{
    size_t free0 = 0, total = 0;
    CHECK(cudaMemGetInfo(&free0, &total));
    EXPECT(free0 > 0 && free0 <= total, "free %zu of %zu", free0, total);

    // --- 2D ---
    const int w = 100, h = 37;
    std::vector<float> src(w * h), dst(w * h);
    for (int i = 0; i < w * h; ++i) src[i] = (float)(i % 251);
    float host_coeffs[16];
    for (int i = 0; i < 16; ++i) host_coeffs[i] = 0.5f * i;
    CHECK(cudaMemcpyToSymbol(coeffs, host_coeffs, sizeof(host_coeffs)));

    float *in2d, *out2d;
    size_t in_pitch = 0, out_pitch = 0;
    CHECK(cudaMallocPitch(&in2d, &in_pitch, w * sizeof(float), h));
    CHECK(cudaMallocPitch(&out2d, &out_pitch, w * sizeof(float), h));
    EXPECT(in_pitch >= w * sizeof(float), "pitch %zu", in_pitch);
    CHECK(cudaMemcpy2D(in2d, in_pitch, src.data(), w * sizeof(float), w * sizeof(float), h,
                       cudaMemcpyHostToDevice));
    CHECK(cudaMemset2D(out2d, out_pitch, 0xff, w * sizeof(float), h));
    dim3 block(32, 8), grid((w + 31) / 32, (h + 7) / 8);
    scale_rows<<<grid, block>>>(in2d, in_pitch, out2d, out_pitch, w, h);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy2D(dst.data(), w * sizeof(float), out2d, out_pitch, w * sizeof(float), h,
                       cudaMemcpyDeviceToHost));
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            EXPECT(dst[y * w + x] == src[y * w + x] * host_coeffs[x % 16], "2D at %d,%d", x, y);

    // A sub-rectangle, device to device, then async back to the host.
    const int sw = 10, sh = 5, sx = 7, sy = 3;
    float* sub = nullptr;
    CHECK(cudaMalloc(&sub, sw * sh * sizeof(float)));
    CHECK(cudaMemcpy2D(sub, sw * sizeof(float), (char*)in2d + sy * in_pitch + sx * sizeof(float),
                       in_pitch, sw * sizeof(float), sh, cudaMemcpyDeviceToDevice));
    float* pinned = nullptr;
    CHECK(cudaMallocHost(&pinned, sw * sh * sizeof(float)));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMemcpy2DAsync(pinned, sw * sizeof(float), sub, sw * sizeof(float),
                            sw * sizeof(float), sh, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    for (int y = 0; y < sh; ++y)
        for (int x = 0; x < sw; ++x)
            EXPECT(pinned[y * sw + x] == src[(y + sy) * w + x + sx], "sub-rectangle at %d,%d", x, y);

    // --- 3D ---
    const int W = 20, H = 6, D = 4;
    cudaExtent ext = make_cudaExtent(W * sizeof(int), H, D);
    cudaPitchedPtr vol;
    CHECK(cudaMalloc3D(&vol, ext));
    CHECK(cudaMemset3D(vol, 0, ext));
    std::vector<int> h3(W * H * D);
    for (int i = 0; i < W * H * D; ++i) h3[i] = 7;
    cudaMemcpy3DParms up = {};
    up.srcPtr = make_cudaPitchedPtr(h3.data(), W * sizeof(int), W, H);
    up.dstPtr = vol;
    up.extent = ext;
    up.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&up));
    tag3d<<<dim3(H, D), 32>>>(vol, W, H, D);
    CHECK_LAUNCH();
    std::vector<int> back(W * H * D, -1);
    cudaMemcpy3DParms down = {};
    down.srcPtr = vol;
    down.dstPtr = make_cudaPitchedPtr(back.data(), W * sizeof(int), W, H);
    down.extent = ext;
    down.kind = cudaMemcpyDeviceToHost;
    CHECK(cudaMemcpy3DAsync(&down, s));
    CHECK(cudaStreamSynchronize(s));
    for (int z = 0; z < D; ++z)
        for (int y = 0; y < H; ++y)
            for (int x = 0; x < W; ++x)
                EXPECT(back[(z * H + y) * W + x] == 7 + z * 10000 + y * 100 + x, "3D at %d,%d,%d",
                       x, y, z);

    // --- symbols ---
    int host_table[256];
    for (int i = 0; i < 256; ++i) host_table[i] = i * i;
    CHECK(cudaMemcpyToSymbol(table, host_table, 128 * sizeof(int)));                 // first half
    CHECK(cudaMemcpyToSymbol(table, host_table + 128, 128 * sizeof(int), 128 * sizeof(int)));
    int* table_addr = nullptr;
    size_t table_size = 0;
    CHECK(cudaGetSymbolAddress((void**)&table_addr, table));
    CHECK(cudaGetSymbolSize(&table_size, table));
    EXPECT(table_size == sizeof(host_table), "symbol size %zu", table_size);
    CHECK(cudaMemsetAsync(table_addr + 200, 0, 56 * sizeof(int), s)); // zero the tail via the address
    CHECK(cudaStreamSynchronize(s));
    sum_table<<<1, 1>>>(256);
    CHECK_LAUNCH();
    int result = 0, want = 0;
    CHECK(cudaMemcpyFromSymbol(&result, scalar_result, sizeof(int)));
    for (int i = 0; i < 200; ++i) want += i * i;
    EXPECT(result == want, "table sum %d, expected %d", result, want);
    int readback[4];
    CHECK(cudaMemcpyFromSymbolAsync(readback, table, sizeof(readback), 10 * sizeof(int),
                                    cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < 4; ++i) EXPECT(readback[i] == (10 + i) * (10 + i), "readback %d", i);
    float cback[16];
    CHECK(cudaMemcpyFromSymbol(cback, coeffs, sizeof(cback)));
    for (int i = 0; i < 16; ++i) EXPECT(cback[i] == host_coeffs[i], "constant %d", i);

    // --- cudaMemGetInfo sees a large allocation ---
    size_t free1 = 0;
    void* big = nullptr;
    const size_t big_bytes = size_t(256) << 20;
    CHECK(cudaMalloc(&big, big_bytes));
    CHECK(cudaMemGetInfo(&free1, &total));
    EXPECT(free1 + big_bytes / 2 <= free0, "free before %zu, after 256 MiB %zu", free0, free1);
    CHECK(cudaFree(big));

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(in2d)); CHECK(cudaFree(out2d)); CHECK(cudaFree(sub)); CHECK(cudaFree(vol.ptr));
    CHECK(cudaFreeHost(pinned));
    std::printf("multi_copy: 2D, 3D, symbols, constant memory, memory info: PASS\n");
    return 0;
}
