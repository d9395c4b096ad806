// separate_compilation: a kernel in this file calls device functions and updates a __device__
// variable defined in geometry.cu. Build with relocatable device code:
//   nvcc -cudart shared -rdc=true main.cu geometry.cu -o separate_compilation
#include <cmath>
#include <vector>
#include "../check.h"
#include "geometry.cuh"

__global__ void areas(const Point* p, float* out, int ntri)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < ntri) out[t] = triangle_area(p[3 * t], p[3 * t + 1], p[3 * t + 2]);
}

int main()
{
    const int ntri = 5000;
    std::vector<Point> pts(3 * ntri);
    int degenerate = 0;
    for (int t = 0; t < ntri; ++t) {
        pts[3 * t] = {(float)(t % 10), (float)(t % 7)};
        pts[3 * t + 1] = {(float)(t % 10 + 3), (float)(t % 7)};
        // Every fifth triangle has its third point on the line through the first two.
        pts[3 * t + 2] = {(float)(t % 10 + 1), (float)(t % 7 + (t % 5 == 0 ? 0 : 2 + t % 3))};
        if (t % 5 == 0) ++degenerate;
    }
    Point* d_pts;
    float* d_out;
    CHECK(cudaMalloc(&d_pts, pts.size() * sizeof(Point)));
    CHECK(cudaMalloc(&d_out, ntri * sizeof(float)));
    CHECK(cudaMemcpy(d_pts, pts.data(), pts.size() * sizeof(Point), cudaMemcpyHostToDevice));
    areas<<<(ntri + 127) / 128, 128>>>(d_pts, d_out, ntri);
    CHECK_LAUNCH();
    std::vector<float> out(ntri);
    CHECK(cudaMemcpy(out.data(), d_out, ntri * sizeof(float), cudaMemcpyDeviceToHost));
    unsigned count = 0;
    CHECK(cudaMemcpyFromSymbol(&count, degenerate_count, sizeof(count)));
    for (int t = 0; t < ntri; ++t) {
        const Point &a = pts[3 * t], &b = pts[3 * t + 1], &c = pts[3 * t + 2];
        float want = 0.5f * std::fabs((b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x));
        EXPECT(out[t] == want, "triangle %d: area %g, expected %g", t, out[t], want);
    }
    EXPECT(count == (unsigned)degenerate, "degenerate count %u, expected %d", count, degenerate);
    CHECK(cudaFree(d_pts));
    CHECK(cudaFree(d_out));
    std::printf("separate_compilation: %d triangles, %u degenerate, across 2 files: PASS\n", ntri,
                count);
    return 0;
}
