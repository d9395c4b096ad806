// Layered, cubemap and mipmapped textures, as NVIDIA's simpleLayeredTexture and
// simpleCubemapTexture use them: a kernel reads every layer of a 2D layered array (texel centres:
// exact; half-way between texels with linear filtering: the mean of the two), every face of a
// cubemap through the direction of each texel's centre, and a mipmapped array at several levels
// of detail (nearest level, rounding the level of detail).
#include <cmath>
#include <vector>

#include "check.h"

constexpr int W = 8, H = 8, LAYERS = 5;

__global__ void layers(cudaTextureObject_t point, cudaTextureObject_t linear, float* out) {
    int x = threadIdx.x, y = threadIdx.y, layer = blockIdx.x;
    int i = (layer * H + y) * W + x;
    out[i] = tex2DLayered<float>(point, x + 0.5f, y + 0.5f, layer) * 2 + layer;
    // Half-way between x and x + 1 (x < W - 1): the mean of the two texels.
    out[W * H * LAYERS + i] = tex2DLayered<float>(linear, x + 1.0f, y + 0.5f, layer);
}

// Each face's texel centres, as directions (the CUDA Programming Guide's cubemap table).
__global__ void cube(cudaTextureObject_t t, float* out) {
    int x = threadIdx.x, y = threadIdx.y, face = blockIdx.x;
    float s = (x + 0.5f) / 4 * 2 - 1, u = (y + 0.5f) / 4 * 2 - 1;
    float3 d;
    switch (face) {
    case 0: d = make_float3(1, -u, -s); break;
    case 1: d = make_float3(-1, -u, s); break;
    case 2: d = make_float3(s, 1, u); break;
    case 3: d = make_float3(s, -1, -u); break;
    case 4: d = make_float3(s, -u, 1); break;
    default: d = make_float3(-s, -u, -1); break;
    }
    out[(face * 4 + y) * 4 + x] = texCubemap<float>(t, d.x, d.y, d.z);
}

__global__ void lods(cudaTextureObject_t t, float* out) {
    int i = threadIdx.x;
    out[i] = tex2DLod<float>(t, 0.3f, 0.6f, i * 0.25f);  // levels of detail 0 to 3.75
}

int main() {
    // 2D layered: texel (x, y) of layer l holds l * 100 + y * W + x.
    std::vector<float> data(W * H * LAYERS);
    for (int i = 0; i < W * H * LAYERS; ++i) data[i] = float((i / (W * H)) * 100 + i % (W * H));
    cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    cudaArray_t layered;
    CHECK(cudaMalloc3DArray(&layered, &fd, make_cudaExtent(W, H, LAYERS), cudaArrayLayered));
    cudaMemcpy3DParms p{};
    p.srcPtr = make_cudaPitchedPtr(data.data(), W * sizeof(float), W, H);
    p.dstArray = layered;
    p.extent = make_cudaExtent(W, H, LAYERS);
    p.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&p));
    cudaResourceDesc r{};
    r.resType = cudaResourceTypeArray;
    r.res.array.array = layered;
    cudaTextureDesc td{};
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t point, linear;
    CHECK(cudaCreateTextureObject(&point, &r, &td, nullptr));
    td.filterMode = cudaFilterModeLinear;
    CHECK(cudaCreateTextureObject(&linear, &r, &td, nullptr));
    float* d_out;
    CHECK(cudaMalloc(&d_out, 2 * W * H * LAYERS * sizeof(float)));
    layers<<<LAYERS, dim3(W, H)>>>(point, linear, d_out);
    CHECK_LAUNCH();
    std::vector<float> out(2 * W * H * LAYERS);
    CHECK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < W * H * LAYERS; ++i) {
        const int layer = i / (W * H), x = i % W;
        EXPECT(out[i] == data[i] * 2 + layer, "layer %d element %d: %g", layer, i, out[i]);
        const float mean = x < W - 1 ? data[i] + 0.5f : data[i];
        EXPECT(out[W * H * LAYERS + i] == mean, "linear, layer %d element %d: %g, expected %g",
               layer, i, out[W * H * LAYERS + i], mean);
    }

    // Cubemap: 4 x 4 faces, texel (x, y) of face f holds f * 16 + y * 4 + x.
    std::vector<float> faces(4 * 4 * 6);
    for (int i = 0; i < 96; ++i) faces[i] = float(i);
    cudaArray_t cubemap;
    CHECK(cudaMalloc3DArray(&cubemap, &fd, make_cudaExtent(4, 4, 6), cudaArrayCubemap));
    p.srcPtr = make_cudaPitchedPtr(faces.data(), 4 * sizeof(float), 4, 4);
    p.dstArray = cubemap;
    p.extent = make_cudaExtent(4, 4, 6);
    CHECK(cudaMemcpy3D(&p));
    r.res.array.array = cubemap;
    cudaTextureDesc cd{};
    cd.normalizedCoords = 1;
    cudaTextureObject_t cube_tex;
    CHECK(cudaCreateTextureObject(&cube_tex, &r, &cd, nullptr));
    cube<<<6, dim3(4, 4)>>>(cube_tex, d_out);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(out.data(), d_out, 96 * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < 96; ++i) EXPECT(out[i] == faces[i], "cubemap texel %d: %g", i, out[i]);

    // Mipmapped: 16 x 16, 5 levels; level l holds l everywhere.
    cudaMipmappedArray_t mip;
    CHECK(cudaMallocMipmappedArray(&mip, &fd, make_cudaExtent(16, 16, 0), 5));
    for (int l = 0; l < 5; ++l) {
        cudaArray_t level;
        CHECK(cudaGetMipmappedArrayLevel(&level, mip, l));
        const int w = 16 >> l;
        std::vector<float> v(w * w, float(l));
        CHECK(cudaMemcpy2DToArray(level, 0, 0, v.data(), w * 4, w * 4, w, cudaMemcpyHostToDevice));
    }
    cudaResourceDesc mr{};
    mr.resType = cudaResourceTypeMipmappedArray;
    mr.res.mipmap.mipmap = mip;
    cudaTextureDesc md{};
    md.normalizedCoords = 1;
    md.mipmapFilterMode = cudaFilterModePoint;
    md.maxMipmapLevelClamp = 4;
    cudaTextureObject_t mip_tex;
    CHECK(cudaCreateTextureObject(&mip_tex, &mr, &md, nullptr));
    lods<<<1, 16>>>(mip_tex, d_out);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(out.data(), d_out, 16 * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < 16; ++i) {
        const float want = std::fmin(std::floor(i * 0.25f + 0.5f), 4.0f);
        EXPECT(out[i] == want, "level of detail %g: level %g, expected %g", i * 0.25f, out[i], want);
    }

    for (cudaTextureObject_t t : {point, linear, cube_tex, mip_tex}) CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaFreeArray(layered));
    CHECK(cudaFreeArray(cubemap));
    CHECK(cudaFreeMipmappedArray(mip));
    CHECK(cudaFree(d_out));
    std::printf("layered_texture: %d layers, 6 cubemap faces, 5 mipmap levels: PASS\n", LAYERS);
    return 0;
}
