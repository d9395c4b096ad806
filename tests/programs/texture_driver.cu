// CUDA arrays, texture and surface objects through the driver API (as NVIDIA's simpleTextureDrv
// makes them), used by kernels launched with <<<...>>>: cuArrayCreate / cuArray3DCreate,
// cuMemcpy2D and cuMemcpyHtoA / cuMemcpyAtoH, cuArray(3D)GetDescriptor, cuTexObjectCreate (8-bit
// integers read as normalized floats by default, as integers with CU_TRSF_READ_AS_INTEGER) and
// cuSurfObjectCreate. Every value is exact.
#include <cuda.h>

#include <vector>

#include "check.h"

#define CHECK_CU(call)                                                                           \
    do {                                                                                         \
        CUresult cu_err_ = (call);                                                               \
        if (cu_err_ != CUDA_SUCCESS) {                                                           \
            const char* name_ = nullptr;                                                         \
            cuGetErrorName(cu_err_, &name_);                                                     \
            std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, name_);    \
            std::exit(1);                                                                        \
        }                                                                                        \
    } while (0)

constexpr int W = 16, H = 4;

__global__ void read(cudaTextureObject_t as_float, cudaTextureObject_t as_int,
                     cudaSurfaceObject_t s, float* f, unsigned* u) {
    int x = threadIdx.x, y = blockIdx.x;
    f[y * W + x] = tex2D<float>(as_float, x + 0.5f, y + 0.5f);
    u[y * W + x] = tex2D<unsigned char>(as_int, x + 0.5f, y + 0.5f);
    surf2Dwrite(float(y * W + x) + 0.25f, s, x * 4, y);
}

int main() {
    CHECK_CU(cuInit(0));
    CHECK(cudaFree(nullptr));  // the runtime's primary context, current for the driver calls
    std::vector<unsigned char> bytes(W * H);
    for (int i = 0; i < W * H; ++i) bytes[i] = (unsigned char)(i * 7 + 3);

    CUDA_ARRAY_DESCRIPTOR ad{};
    ad.Width = W;
    ad.Height = H;
    ad.Format = CU_AD_FORMAT_UNSIGNED_INT8;
    ad.NumChannels = 1;
    CUarray a;
    CHECK_CU(cuArrayCreate(&a, &ad));
    CUDA_MEMCPY2D copy{};
    copy.srcMemoryType = CU_MEMORYTYPE_HOST;
    copy.srcHost = bytes.data();
    copy.srcPitch = W;
    copy.dstMemoryType = CU_MEMORYTYPE_ARRAY;
    copy.dstArray = a;
    copy.WidthInBytes = W;
    copy.Height = H;
    CHECK_CU(cuMemcpy2D(&copy));
    CUDA_ARRAY_DESCRIPTOR got{};
    CHECK_CU(cuArrayGetDescriptor(&got, a));
    EXPECT(got.Width == W && got.Height == H && got.Format == CU_AD_FORMAT_UNSIGNED_INT8 &&
               got.NumChannels == 1,
           "descriptor %zu x %zu, format %d, %u channels", got.Width, got.Height, int(got.Format),
           got.NumChannels);

    CUDA_RESOURCE_DESC rd{};
    rd.resType = CU_RESOURCE_TYPE_ARRAY;
    rd.res.array.hArray = a;
    CUDA_TEXTURE_DESC td{};
    td.addressMode[0] = td.addressMode[1] = CU_TR_ADDRESS_MODE_CLAMP;
    td.filterMode = CU_TR_FILTER_MODE_POINT;
    CUtexObject as_float, as_int;
    CHECK_CU(cuTexObjectCreate(&as_float, &rd, &td, nullptr));
    td.flags = CU_TRSF_READ_AS_INTEGER;
    CHECK_CU(cuTexObjectCreate(&as_int, &rd, &td, nullptr));

    CUDA_ARRAY3D_DESCRIPTOR sd{};
    sd.Width = W;
    sd.Height = H;
    sd.Format = CU_AD_FORMAT_FLOAT;
    sd.NumChannels = 1;
    sd.Flags = CUDA_ARRAY3D_SURFACE_LDST;
    CUarray sa;
    CHECK_CU(cuArray3DCreate(&sa, &sd));
    CUDA_RESOURCE_DESC srd{};
    srd.resType = CU_RESOURCE_TYPE_ARRAY;
    srd.res.array.hArray = sa;
    CUsurfObject s;
    CHECK_CU(cuSurfObjectCreate(&s, &srd));

    float* d_f;
    unsigned* d_u;
    CHECK(cudaMalloc(&d_f, W * H * sizeof(float)));
    CHECK(cudaMalloc(&d_u, W * H * sizeof(unsigned)));
    read<<<H, W>>>(as_float, as_int, s, d_f, d_u);
    CHECK_LAUNCH();
    std::vector<float> f(W * H);
    std::vector<unsigned> u(W * H);
    CHECK(cudaMemcpy(f.data(), d_f, f.size() * sizeof(float), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(u.data(), d_u, u.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (int i = 0; i < W * H; ++i) {
        EXPECT(f[i] == bytes[i] / 255.0f, "normalized texel %d: %g, expected %g", i, f[i],
               bytes[i] / 255.0f);
        EXPECT(u[i] == bytes[i], "integer texel %d: %u, expected %u", i, u[i], unsigned(bytes[i]));
    }
    std::vector<float> back(W * H);
    CHECK_CU(cuMemcpyAtoH(back.data(), sa, 0, back.size() * sizeof(float)));
    for (int i = 0; i < W * H; ++i)
        EXPECT(back[i] == i + 0.25f, "surface element %d: %g", i, back[i]);
    // Bytes into the array at an offset, read back the same way.
    const float four[4] = {-1, -2, -3, -4};
    CHECK_CU(cuMemcpyHtoA(sa, 8, four, sizeof four));
    CHECK_CU(cuMemcpyAtoH(back.data(), sa, 0, 6 * sizeof(float)));
    EXPECT(back[1] == 1.25f && back[2] == -1 && back[5] == -4, "after cuMemcpyHtoA: %g %g %g",
           back[1], back[2], back[5]);

    CHECK_CU(cuTexObjectDestroy(as_float));
    CHECK_CU(cuTexObjectDestroy(as_int));
    CHECK_CU(cuSurfObjectDestroy(s));
    CHECK_CU(cuArrayDestroy(a));
    CHECK_CU(cuArrayDestroy(sa));
    CHECK(cudaFree(d_f));
    CHECK(cudaFree(d_u));
    std::printf("texture_driver: arrays, textures and a surface made with the driver API: PASS\n");
    return 0;
}
