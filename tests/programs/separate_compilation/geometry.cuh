// Device functions defined in geometry.cu and called from main.cu's kernel: calls across
// translation units need relocatable device code (nvcc -rdc=true) and a device link.
#pragma once

struct Point { float x, y; };

__device__ float cross(Point o, Point a, Point b);
__device__ float triangle_area(Point a, Point b, Point c);
extern __device__ unsigned degenerate_count; // defined in geometry.cu
