// A graph of two kernel nodes, the second reading what the first writes, built without the edge
// between them: a graph's nodes run in any order their edges allow.
// expect: write-read A B
#include "common.h"

int main() {
    const int n = 1 << 12;
    int *a = nullptr, *b = nullptr;
    CHECK(cudaMalloc(&a, n * sizeof(int)));
    CHECK(cudaMalloc(&b, n * sizeof(int)));
    cudaGraph_t graph;
    CHECK(cudaGraphCreate(&graph, 0));
    int count = n, value = 9;
    void* fill_args[] = {&a, &count, &value};
    void* add_args[] = {&a, &b, &count};
    cudaKernelNodeParams p = {};
    p.func = (void*)fill;
    p.gridDim = dim3(n / 256);
    p.blockDim = dim3(256);
    p.kernelParams = fill_args;
    cudaGraphNode_t first, second;
    CHECK(cudaGraphAddKernelNode(&first, graph, nullptr, 0, &p));  // A
    p.func = (void*)add_one;
    p.kernelParams = add_args;
#ifdef FIXED
    CHECK(cudaGraphAddKernelNode(&second, graph, &first, 1, &p));
#else
    CHECK(cudaGraphAddKernelNode(&second, graph, nullptr, 0, &p));  // B
#endif
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CHECK(cudaGraphLaunch(exec, 0));
    CHECK(cudaStreamSynchronize(0));
    int h = 0;
    CHECK(cudaMemcpy(&h, b + 5, sizeof h, cudaMemcpyDeviceToHost));
    std::printf("b[5] = %d\n", h);
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    return 0;
}
