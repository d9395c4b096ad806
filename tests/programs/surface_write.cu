// Surface objects: a kernel writes a 2D float array through a surface (x in bytes, as
// simpleSurfaceWrite does) and another reads it back through a texture object on the same array;
// stores into 1D (uchar4), 3D, layered and cubemap arrays read back with copies; loads outside
// the surface with cudaBoundaryModeZero and cudaBoundaryModeClamp; a histogram counted with
// surface reductions (sured, inline PTX); cudaArrayGetInfo. Every value is exact.
#include <vector>

#include "check.h"

constexpr int W = 32, H = 16;

__global__ void write2d(cudaSurfaceObject_t s) {
    int x = threadIdx.x, y = blockIdx.x;
    surf2Dwrite(float(y * W + x) * 0.25f, s, x * int(sizeof(float)), y);
}

__global__ void read_back(cudaTextureObject_t t, cudaSurfaceObject_t s, float* out) {
    int x = threadIdx.x, y = blockIdx.x;
    out[y * W + x] = tex2D<float>(t, x + 0.5f, y + 0.5f);
    // Outside by one element on the right: 0, or the last element of the row.
    if (x == 0) {
        out[W * H + 2 * y] = surf2Dread<float>(s, W * 4, y, cudaBoundaryModeZero);
        out[W * H + 2 * y + 1] = surf2Dread<float>(s, W * 4, y, cudaBoundaryModeClamp);
    }
}

__global__ void write_shapes(cudaSurfaceObject_t s1, cudaSurfaceObject_t s3, cudaSurfaceObject_t sl,
                             cudaSurfaceObject_t sc) {
    int i = threadIdx.x;  // 0..47
    if (i < 16) surf1Dwrite(make_uchar4(i, 2 * i, 255 - i, 7), s1, i * 4);
    int x = i % 4, y = (i / 4) % 3, z = i / 12;  // 4 x 3 x 4
    surf3Dwrite(float(i) + 0.5f, s3, x * 4, y, z);
    surf2DLayeredwrite(float(i) + 1000, sl, x * 4, y, z);
    if (i < 24) surfCubemapwrite(float(i) * 2, sc, (i % 2) * 4, (i / 2) % 2, i / 4);
}

// Counts values into 8 bins of a 1D surface of unsigned ints.
__global__ void histogram(cudaSurfaceObject_t bins, const unsigned* values, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = int(values[i] % 8) * 4;
    unsigned one = 1;
    asm volatile("sured.b.add.1d.u32.trap [%0, {%1}], %2;" ::"l"(bins), "r"(x), "r"(one) : "memory");
}

cudaSurfaceObject_t surface_of(cudaArray_t a) {
    cudaResourceDesc r{};
    r.resType = cudaResourceTypeArray;
    r.res.array.array = a;
    cudaSurfaceObject_t s;
    CHECK(cudaCreateSurfaceObject(&s, &r));
    return s;
}

int main() {
    cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    cudaArray_t a;
    CHECK(cudaMallocArray(&a, &fd, W, H, cudaArraySurfaceLoadStore));
    cudaSurfaceObject_t s = surface_of(a);
    write2d<<<H, W>>>(s);
    CHECK_LAUNCH();
    cudaResourceDesc r{};
    r.resType = cudaResourceTypeArray;
    r.res.array.array = a;
    cudaTextureDesc td{};
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t t;
    CHECK(cudaCreateTextureObject(&t, &r, &td, nullptr));
    float* d_out;
    CHECK(cudaMalloc(&d_out, (W * H + 2 * H) * sizeof(float)));
    read_back<<<H, W>>>(t, s, d_out);
    CHECK_LAUNCH();
    std::vector<float> out(W * H + 2 * H);
    CHECK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < W * H; ++i) EXPECT(out[i] == i * 0.25f, "element %d: %g", i, out[i]);
    for (int y = 0; y < H; ++y) {
        EXPECT(out[W * H + 2 * y] == 0, "row %d, zero mode: %g", y, out[W * H + 2 * y]);
        const float last = float(y * W + W - 1) * 0.25f;
        EXPECT(out[W * H + 2 * y + 1] == last, "row %d, clamp mode: %g, expected %g", y,
               out[W * H + 2 * y + 1], last);
    }

    // The other shapes.
    cudaChannelFormatDesc ud = cudaCreateChannelDesc<uchar4>();
    cudaArray_t a1, a3, al, ac;
    CHECK(cudaMallocArray(&a1, &ud, 16, 0, cudaArraySurfaceLoadStore));
    CHECK(cudaMalloc3DArray(&a3, &fd, make_cudaExtent(4, 3, 4), cudaArraySurfaceLoadStore));
    CHECK(cudaMalloc3DArray(&al, &fd, make_cudaExtent(4, 3, 4),
                            cudaArraySurfaceLoadStore | cudaArrayLayered));
    CHECK(cudaMalloc3DArray(&ac, &fd, make_cudaExtent(2, 2, 6),
                            cudaArraySurfaceLoadStore | cudaArrayCubemap));
    cudaSurfaceObject_t s1 = surface_of(a1), s3 = surface_of(a3), sl = surface_of(al),
                        sc = surface_of(ac);
    write_shapes<<<1, 48>>>(s1, s3, sl, sc);
    CHECK_LAUNCH();
    std::vector<uchar4> h1(16);
    CHECK(cudaMemcpy2DFromArray(h1.data(), 64, a1, 0, 0, 64, 1, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 16; ++i)
        EXPECT(h1[i].x == i && h1[i].y == 2 * i && h1[i].z == 255 - i && h1[i].w == 7,
               "1D element %d: %d %d %d %d", i, h1[i].x, h1[i].y, h1[i].z, h1[i].w);
    std::vector<float> h(48);
    cudaMemcpy3DParms p{};
    p.dstPtr = make_cudaPitchedPtr(h.data(), 16, 4, 3);
    p.extent = make_cudaExtent(4, 3, 4);
    p.kind = cudaMemcpyDeviceToHost;
    p.srcArray = a3;
    CHECK(cudaMemcpy3D(&p));
    for (int i = 0; i < 48; ++i) EXPECT(h[i] == i + 0.5f, "3D element %d: %g", i, h[i]);
    p.srcArray = al;
    CHECK(cudaMemcpy3D(&p));
    for (int i = 0; i < 48; ++i) EXPECT(h[i] == i + 1000.0f, "layered element %d: %g", i, h[i]);
    p.srcArray = ac;
    p.dstPtr = make_cudaPitchedPtr(h.data(), 8, 2, 2);
    p.extent = make_cudaExtent(2, 2, 6);
    CHECK(cudaMemcpy3D(&p));
    for (int i = 0; i < 24; ++i) EXPECT(h[i] == i * 2.0f, "cubemap element %d: %g", i, h[i]);

    // A histogram by surface reductions.
    cudaChannelFormatDesc bd = cudaCreateChannelDesc<unsigned>();
    cudaArray_t bins;
    CHECK(cudaMallocArray(&bins, &bd, 8, 0, cudaArraySurfaceLoadStore));
    const unsigned zero[8] = {};
    CHECK(cudaMemcpy2DToArray(bins, 0, 0, zero, 32, 32, 1, cudaMemcpyHostToDevice));
    const int n = 1000;
    std::vector<unsigned> values(n);
    unsigned want[8] = {};
    for (int i = 0; i < n; ++i) {
        values[i] = unsigned(i) * 2654435761u >> 7;
        ++want[values[i] % 8];
    }
    unsigned* d_values;
    CHECK(cudaMalloc(&d_values, n * sizeof(unsigned)));
    CHECK(cudaMemcpy(d_values, values.data(), n * sizeof(unsigned), cudaMemcpyHostToDevice));
    cudaSurfaceObject_t sb = surface_of(bins);
    histogram<<<(n + 127) / 128, 128>>>(sb, d_values, n);
    CHECK_LAUNCH();
    unsigned got[8];
    CHECK(cudaMemcpy2DFromArray(got, 32, bins, 0, 0, 32, 1, cudaMemcpyDeviceToHost));
    for (int b = 0; b < 8; ++b) EXPECT(got[b] == want[b], "bin %d: %u, expected %u", b, got[b], want[b]);

    cudaChannelFormatDesc gd;
    cudaExtent ge;
    unsigned flags;
    CHECK(cudaArrayGetInfo(&gd, &ge, &flags, al));
    EXPECT(gd.x == 32 && gd.y == 0 && gd.f == cudaChannelFormatKindFloat, "channel descriptor");
    EXPECT(ge.width == 4 && ge.height == 3 && ge.depth == 4, "extent %zu %zu %zu", ge.width,
           ge.height, ge.depth);
    EXPECT(flags == (cudaArraySurfaceLoadStore | cudaArrayLayered), "flags %u", flags);

    for (cudaSurfaceObject_t x : {s, s1, s3, sl, sc, sb}) CHECK(cudaDestroySurfaceObject(x));
    CHECK(cudaDestroyTextureObject(t));
    for (cudaArray_t x : {a, a1, a3, al, ac, bins}) CHECK(cudaFreeArray(x));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_values));
    std::printf("surface_write: 2D, 1D, 3D, layered and cubemap stores, boundary modes, %d "
                "reductions: PASS\n", n);
    return 0;
}
