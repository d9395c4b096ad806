// Texture objects as image code uses them: a 64 x 48 float image in a CUDA array, sampled with
// linear filtering at rotated, normalized, wrapping coordinates (as NVIDIA's simpleTexture does),
// and at texel centres with point filtering; a 1D texture over linear memory (tex1Dfetch) and a
// 2D texture over pitched memory. The CPU reference is the CUDA Programming Guide's "Texture
// Fetching" appendix: texel centres at i + 0.5, weights in 1/256 steps (so results agree to 1e-3).
#include <cmath>
#include <vector>

#include "check.h"

constexpr int W = 64, H = 48;

__global__ void rotate(cudaTextureObject_t image, float angle, float* out) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= W || y >= H) return;
    float u = float(x) / W - 0.5f, v = float(y) / H - 0.5f;
    float tu = u * cosf(angle) - v * sinf(angle) + 0.5f;
    float tv = v * cosf(angle) + u * sinf(angle) + 0.5f;
    out[y * W + x] = tex2D<float>(image, tu, tv);
}

__global__ void centres(cudaTextureObject_t image, float* out) {
    int x = threadIdx.x, y = blockIdx.x;
    out[y * W + x] = tex2D<float>(image, x + 0.5f, y + 0.5f);
}

__global__ void fetch(cudaTextureObject_t lin, cudaTextureObject_t pitched, float* out) {
    int i = threadIdx.x;
    out[i] = tex1Dfetch<float>(lin, i - 4);                   // 4 before the start: 0
    out[64 + i] = tex2D<float>(pitched, i * 0.25f, 2.5f);      // row 2, x from 0 to 15.75
}

float texel(const std::vector<float>& img, int x, int y) {
    x = ((x % W) + W) % W;  // wrap
    y = ((y % H) + H) % H;
    return img[y * W + x];
}

float reference_linear(const std::vector<float>& img, float u, float v) {
    float x = u * W - 0.5f, y = v * H - 0.5f;
    float fx = std::floor(x), fy = std::floor(y);
    float a = std::floor((x - fx) * 256 + 0.5f) / 256, b = std::floor((y - fy) * 256 + 0.5f) / 256;
    int i = int(fx), j = int(fy);
    return (1 - a) * (1 - b) * texel(img, i, j) + a * (1 - b) * texel(img, i + 1, j) +
           (1 - a) * b * texel(img, i, j + 1) + a * b * texel(img, i + 1, j + 1);
}

int main() {
    std::vector<float> img(W * H);
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) img[y * W + x] = std::sin(x * 0.3f) + std::cos(y * 0.2f) * 2;
    cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();
    cudaArray_t array;
    CHECK(cudaMallocArray(&array, &desc, W, H));
    CHECK(cudaMemcpy2DToArray(array, 0, 0, img.data(), W * sizeof(float), W * sizeof(float), H,
                              cudaMemcpyHostToDevice));
    cudaResourceDesc res{};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = array;
    cudaTextureDesc td{};
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeWrap;
    td.filterMode = cudaFilterModeLinear;
    td.readMode = cudaReadModeElementType;
    td.normalizedCoords = 1;
    cudaTextureObject_t linear_tex;
    CHECK(cudaCreateTextureObject(&linear_tex, &res, &td, nullptr));
    td.filterMode = cudaFilterModePoint;
    td.normalizedCoords = 0;
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    cudaTextureObject_t point_tex;
    CHECK(cudaCreateTextureObject(&point_tex, &res, &td, nullptr));

    float* d_out;
    CHECK(cudaMalloc(&d_out, W * H * sizeof(float)));
    const float angle = 0.5f;
    rotate<<<dim3(W / 16, H / 16), dim3(16, 16)>>>(linear_tex, angle, d_out);
    CHECK_LAUNCH();
    std::vector<float> out(W * H);
    CHECK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    double worst = 0;
    for (int y = 0; y < H; ++y)
        for (int x = 0; x < W; ++x) {
            float u = float(x) / W - 0.5f, v = float(y) / H - 0.5f;
            float tu = u * std::cos(angle) - v * std::sin(angle) + 0.5f;
            float tv = v * std::cos(angle) + u * std::sin(angle) + 0.5f;
            worst = std::fmax(worst, std::fabs(out[y * W + x] - reference_linear(img, tu, tv)));
        }
    EXPECT(worst < 1e-3, "rotated image differs from the reference by %g", worst);

    centres<<<H, W>>>(point_tex, d_out);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(out.data(), d_out, out.size() * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < W * H; ++i) EXPECT(out[i] == img[i], "texel %d: %g, expected %g", i, out[i], img[i]);

    // Linear memory (tex1Dfetch: integer indices, 0 outside) and pitched 2D memory.
    float *d_lin, *d_pitched;
    std::vector<float> lin(64);
    for (int i = 0; i < 64; ++i) lin[i] = float(i) * 0.5f;
    CHECK(cudaMalloc(&d_lin, 64 * sizeof(float)));
    CHECK(cudaMemcpy(d_lin, lin.data(), 64 * sizeof(float), cudaMemcpyHostToDevice));
    cudaResourceDesc lr{};
    lr.resType = cudaResourceTypeLinear;
    lr.res.linear.devPtr = d_lin;
    lr.res.linear.desc = cudaCreateChannelDesc<float>();
    lr.res.linear.sizeInBytes = 64 * sizeof(float);
    cudaTextureDesc ld{};
    ld.readMode = cudaReadModeElementType;
    cudaTextureObject_t lin_tex;
    CHECK(cudaCreateTextureObject(&lin_tex, &lr, &ld, nullptr));
    size_t pitch;
    CHECK(cudaMallocPitch(&d_pitched, &pitch, 16 * sizeof(float), 4));
    std::vector<float> rows(16 * 4);
    for (int i = 0; i < 64; ++i) rows[i] = float(i % 16) * 10 + float(i / 16);
    CHECK(cudaMemcpy2D(d_pitched, pitch, rows.data(), 16 * sizeof(float), 16 * sizeof(float), 4,
                       cudaMemcpyHostToDevice));
    cudaResourceDesc pr{};
    pr.resType = cudaResourceTypePitch2D;
    pr.res.pitch2D.devPtr = d_pitched;
    pr.res.pitch2D.desc = cudaCreateChannelDesc<float>();
    pr.res.pitch2D.width = 16;
    pr.res.pitch2D.height = 4;
    pr.res.pitch2D.pitchInBytes = pitch;
    cudaTextureDesc pd{};
    pd.filterMode = cudaFilterModeLinear;
    pd.addressMode[0] = pd.addressMode[1] = cudaAddressModeClamp;
    cudaTextureObject_t pitched_tex;
    CHECK(cudaCreateTextureObject(&pitched_tex, &pr, &pd, nullptr));
    fetch<<<1, 64>>>(lin_tex, pitched_tex, d_out);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(out.data(), d_out, 128 * sizeof(float), cudaMemcpyDeviceToHost));
    for (int i = 0; i < 64; ++i) {
        const float want = i < 4 ? 0.0f : lin[i - 4];
        EXPECT(out[i] == want, "tex1Dfetch(%d) = %g, expected %g", i - 4, out[i], want);
        // Row 2 exactly (y at its centre); x linear between columns, clamped at both ends.
        const float x = i * 0.25f - 0.5f;
        const float xc = std::fmin(std::fmax(x, 0.0f), 15.0f);
        const float want2 = xc * 10 + 2;
        EXPECT(std::fabs(out[64 + i] - want2) < 1e-3f, "pitched at x = %g: %g, expected %g",
               i * 0.25f, out[64 + i], want2);
    }

    for (cudaTextureObject_t t : {linear_tex, point_tex, lin_tex, pitched_tex})
        CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaFreeArray(array));
    CHECK(cudaFree(d_out));
    CHECK(cudaFree(d_lin));
    CHECK(cudaFree(d_pitched));
    std::printf("rotated %dx%d image: largest difference from the reference %.2g\n", W, H, worst);
    std::printf("texture_filter: PASS\n");
    return 0;
}
