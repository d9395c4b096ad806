#include <cstdio>

__global__ void k(int* x) { x[threadIdx.x] = 1 }

int main() { std::printf("never\n"); return 0; }
