#include "geometry.cuh"

__device__ unsigned degenerate_count = 0;

__device__ float cross(Point o, Point a, Point b)
{
    return (a.x - o.x) * (b.y - o.y) - (a.y - o.y) * (b.x - o.x);
}

__device__ float triangle_area(Point a, Point b, Point c)
{
    float area = 0.5f * fabsf(cross(a, b, c));
    if (area == 0.0f) atomicAdd(&degenerate_count, 1u);
    return area;
}
