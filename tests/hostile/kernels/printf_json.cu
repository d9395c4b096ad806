#include <cstdio>
__global__ void k(int* x) { printf("thread %d says \"hi\" {\n", threadIdx.x); x[threadIdx.x] = threadIdx.x; }
