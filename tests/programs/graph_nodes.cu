// graph_nodes: graph memory nodes and conditional nodes, built explicitly.
// 1. A graph allocates a buffer (cudaGraphAddMemAllocNode), fills it with a kernel, copies it out
//    and frees it (cudaGraphAddMemFreeNode); the node parameters read back; the graph memory
//    attributes move as an H100's do (32 MiB pieces; docs/measurements/driver-apis-h100.md).
// 2. A graph that allocates without freeing cannot be launched again until the memory is freed
//    outside it (cudaErrorInvalidValue, as on an H100), and can after cudaFree, or at once when
//    instantiated with cudaGraphInstantiateFlagAutoFreeOnLaunch.
// 3. Conditional nodes whose kernels set their handle with cudaGraphSetConditional: a WHILE loop
//    counting down, IF with an else branch, SWITCH over three bodies, one body captured from a
//    stream with cudaStreamBeginCaptureToGraph.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,             \
                         cudaGetErrorName(e_));                                                    \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)
#define EXPECT(cond)                                                                               \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            std::fprintf(stderr, "%s:%d: expected %s\n", __FILE__, __LINE__, #cond);              \
            std::exit(1);                                                                          \
        }                                                                                          \
    } while (0)

__global__ void iota(int* p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = i;
}

// WHILE body: one step down; the loop goes on while the counter is above zero.
__global__ void count_down(int* counter, int* steps, cudaGraphConditionalHandle h)
{
    *counter -= 1;
    *steps += 1;
    cudaGraphSetConditional(h, *counter > 0 ? 1 : 0);
}

__global__ void set_condition(cudaGraphConditionalHandle h, const int* value) { cudaGraphSetConditional(h, *value); }

__global__ void mark(int* out, int value) { *out = value; }

unsigned long long attribute(cudaGraphMemAttributeType a)
{
    unsigned long long v = 0;
    CHECK(cudaDeviceGetGraphMemAttribute(0, a, &v));
    return v;
}

cudaGraphNode_t kernel_node(cudaGraph_t g, const cudaGraphNode_t* deps, size_t n, void* func, void** args)
{
    cudaGraphNodeParams p = {};
    p.type = cudaGraphNodeTypeKernel;
    p.kernel.func = func;
    p.kernel.gridDim = dim3(1);
    p.kernel.blockDim = dim3(1);
    p.kernel.kernelParams = args;
    cudaGraphNode_t node;
    CHECK(cudaGraphAddNode(&node, g, deps, nullptr, n, &p));
    return node;
}

int main()
{
    // 1. Allocate, fill, copy out, free: all in the graph.
    const int n = 1000;
    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    cudaMemAllocNodeParams alloc = {};
    alloc.poolProps.allocType = cudaMemAllocationTypePinned;
    alloc.poolProps.location.type = cudaMemLocationTypeDevice;
    alloc.poolProps.location.id = 0;
    alloc.bytesize = n * sizeof(int);
    cudaGraphNode_t alloc_node, fill_node, copy_node, free_node;
    CHECK(cudaGraphAddMemAllocNode(&alloc_node, g, nullptr, 0, &alloc));
    int* buffer = static_cast<int*>(alloc.dptr);
    EXPECT(buffer != nullptr);
    int count = n;
    void* fill_args[] = {&buffer, &count};
    cudaKernelNodeParams k = {};
    k.func = reinterpret_cast<void*>(iota);
    k.gridDim = dim3((n + 255) / 256);
    k.blockDim = dim3(256);
    k.kernelParams = fill_args;
    CHECK(cudaGraphAddKernelNode(&fill_node, g, &alloc_node, 1, &k));
    int host[n] = {};
    CHECK(cudaGraphAddMemcpyNode1D(&copy_node, g, &fill_node, 1, host, buffer, n * sizeof(int),
                                   cudaMemcpyDeviceToHost));
    CHECK(cudaGraphAddMemFreeNode(&free_node, g, &copy_node, 1, buffer));
    // A free node needs the allocation's start.
    cudaGraphNode_t bad;
    EXPECT(cudaGraphAddMemFreeNode(&bad, g, &copy_node, 1, buffer + 1) == cudaErrorInvalidValue);
    cudaGetLastError();
    cudaMemAllocNodeParams back = {};
    CHECK(cudaGraphMemAllocNodeGetParams(alloc_node, &back));
    EXPECT(back.dptr == buffer && back.bytesize == n * sizeof(int) && back.poolProps.location.id == 0);
    void* freed = nullptr;
    CHECK(cudaGraphMemFreeNodeGetParams(free_node, &freed));
    EXPECT(freed == buffer);
    cudaGraphNodeType type;
    CHECK(cudaGraphNodeGetType(alloc_node, &type));
    EXPECT(type == cudaGraphNodeTypeMemAlloc);

    EXPECT(attribute(cudaGraphMemAttrUsedMemCurrent) == 0);
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, g, 0));
    EXPECT(attribute(cudaGraphMemAttrReservedMemCurrent) == 0);  // nothing until it runs
    for (int round = 0; round < 2; ++round) {
        CHECK(cudaGraphLaunch(exec, 0));
        CHECK(cudaStreamSynchronize(0));
        for (int i = 0; i < n; ++i) EXPECT(host[i] == i);
    }
    const unsigned long long piece = 32ull << 20;
    EXPECT(attribute(cudaGraphMemAttrUsedMemCurrent) == piece);
    EXPECT(attribute(cudaGraphMemAttrReservedMemCurrent) == piece);
    unsigned long long zero = 0, five = 5;
    EXPECT(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &five) == cudaErrorInvalidValue);
    EXPECT(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &zero) == cudaErrorInvalidValue);
    cudaGetLastError();
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaDeviceGraphMemTrim(0));
    EXPECT(attribute(cudaGraphMemAttrUsedMemCurrent) == 0);
    EXPECT(attribute(cudaGraphMemAttrReservedMemCurrent) == 0);
    EXPECT(attribute(cudaGraphMemAttrUsedMemHigh) == piece);
    CHECK(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero));
    EXPECT(attribute(cudaGraphMemAttrUsedMemHigh) == 0);
    CHECK(cudaGraphDestroy(g));

    // 2. An allocation that outlives the launch.
    cudaGraph_t keeps;
    CHECK(cudaGraphCreate(&keeps, 0));
    cudaGraphNode_t keep_node;
    CHECK(cudaGraphAddMemAllocNode(&keep_node, keeps, nullptr, 0, &alloc));
    cudaGraphExec_t keep_exec;
    CHECK(cudaGraphInstantiate(&keep_exec, keeps, 0));
    CHECK(cudaGraphLaunch(keep_exec, 0));
    EXPECT(cudaGraphLaunch(keep_exec, 0) == cudaErrorInvalidValue);
    cudaGetLastError();
    CHECK(cudaStreamSynchronize(0));
    CHECK(cudaFree(alloc.dptr));
    // Freed, the graph's memory is mapped nowhere until the next launch allocates it again.
    cudaPointerAttributes freed_attributes;
    CHECK(cudaPointerGetAttributes(&freed_attributes, alloc.dptr));
    EXPECT(freed_attributes.type == cudaMemoryTypeUnregistered);
    CHECK(cudaGraphLaunch(keep_exec, 0));
    CHECK(cudaFreeAsync(alloc.dptr, 0));
    CHECK(cudaStreamSynchronize(0));
    CHECK(cudaGraphExecDestroy(keep_exec));
    // Instantiated to free on launch, it may run again at once.
    CHECK(cudaGraphInstantiate(&keep_exec, keeps, cudaGraphInstantiateFlagAutoFreeOnLaunch));
    CHECK(cudaGraphLaunch(keep_exec, 0));
    CHECK(cudaGraphLaunch(keep_exec, 0));
    CHECK(cudaFreeAsync(alloc.dptr, 0));
    CHECK(cudaStreamSynchronize(0));
    CHECK(cudaGraphExecDestroy(keep_exec));
    CHECK(cudaGraphDestroy(keeps));

    // 3. Conditional nodes.
    int* d = nullptr;  // [0] counter, [1] steps, [2] IF result, [3] selector, [4] SWITCH result
    CHECK(cudaMalloc(&d, 8 * sizeof(int)));
    int* counter = d;
    int* steps = d + 1;
    int* if_out = d + 2;
    int* selector = d + 3;
    int* switch_out = d + 4;

    // WHILE: the handle starts at 1 each launch; the body counts down to 0.
    cudaGraph_t loop;
    CHECK(cudaGraphCreate(&loop, 0));
    cudaGraphConditionalHandle loop_handle;
    CHECK(cudaGraphConditionalHandleCreate(&loop_handle, loop, 1, cudaGraphCondAssignDefault));
    EXPECT(cudaGraphConditionalHandleCreate(&loop_handle, loop, 1, 7) == cudaErrorInvalidValue);
    cudaGetLastError();
    cudaGraphNodeParams cp = {};
    cp.type = cudaGraphNodeTypeConditional;
    cp.conditional.handle = loop_handle;
    cp.conditional.type = cudaGraphCondTypeWhile;
    cp.conditional.size = 1;
    cudaGraphNode_t while_node;
    CHECK(cudaGraphAddNode(&while_node, loop, nullptr, nullptr, 0, &cp));
    CHECK(cudaGraphNodeGetType(while_node, &type));
    EXPECT(type == cudaGraphNodeTypeConditional);
    // One node per handle.
    cudaGraphNode_t second;
    EXPECT(cudaGraphAddNode(&second, loop, nullptr, nullptr, 0, &cp) == cudaErrorInvalidValue);
    cudaGetLastError();
    void* count_args[] = {&counter, &steps, &loop_handle};
    kernel_node(cp.conditional.phGraph_out[0], nullptr, 0, reinterpret_cast<void*>(count_down), count_args);
    cudaGraphExec_t loop_exec;
    CHECK(cudaGraphInstantiate(&loop_exec, loop, 0));
    int start[2] = {5, 0};
    CHECK(cudaMemcpy(d, start, sizeof start, cudaMemcpyHostToDevice));
    CHECK(cudaGraphLaunch(loop_exec, 0));
    int result[2];
    CHECK(cudaMemcpy(result, d, sizeof result, cudaMemcpyDeviceToHost));
    EXPECT(result[0] == 0 && result[1] == 5);

    // IF with an else branch, the condition set by a kernel before the node; the true branch is
    // captured from a stream into the body graph.
    cudaGraph_t branch;
    CHECK(cudaGraphCreate(&branch, 0));
    cudaGraphConditionalHandle if_handle;
    CHECK(cudaGraphConditionalHandleCreate(&if_handle, branch, 0, 0));
    void* set_args[] = {&if_handle, &selector};
    cudaGraphNode_t setter = kernel_node(branch, nullptr, 0, reinterpret_cast<void*>(set_condition), set_args);
    cudaGraphNodeParams ip = {};
    ip.type = cudaGraphNodeTypeConditional;
    ip.conditional.handle = if_handle;
    ip.conditional.type = cudaGraphCondTypeIf;
    ip.conditional.size = 2;
    cudaGraphNode_t if_node;
    CHECK(cudaGraphAddNode(&if_node, branch, &setter, nullptr, 1, &ip));
    cudaStream_t capture;
    CHECK(cudaStreamCreate(&capture));
    CHECK(cudaStreamBeginCaptureToGraph(capture, ip.conditional.phGraph_out[0], nullptr, nullptr, 0,
                                        cudaStreamCaptureModeGlobal));
    mark<<<1, 1, 0, capture>>>(if_out, 111);
    CHECK(cudaStreamEndCapture(capture, nullptr));
    int two_two_two = 222;
    void* else_args[] = {&if_out, &two_two_two};
    kernel_node(ip.conditional.phGraph_out[1], nullptr, 0, reinterpret_cast<void*>(mark), else_args);
    cudaGraphExec_t branch_exec;
    CHECK(cudaGraphInstantiate(&branch_exec, branch, 0));
    for (int value : {1, 0}) {
        CHECK(cudaMemcpy(selector, &value, sizeof value, cudaMemcpyHostToDevice));
        CHECK(cudaGraphLaunch(branch_exec, 0));
        int got = 0;
        CHECK(cudaMemcpy(&got, if_out, sizeof got, cudaMemcpyDeviceToHost));
        EXPECT(got == (value ? 111 : 222));
    }

    // SWITCH over three bodies; a value past the last runs none.
    cudaGraph_t choice;
    CHECK(cudaGraphCreate(&choice, 0));
    cudaGraphConditionalHandle switch_handle;
    CHECK(cudaGraphConditionalHandleCreate(&switch_handle, choice, 0, 0));
    void* choose_args[] = {&switch_handle, &selector};
    cudaGraphNode_t chooser = kernel_node(choice, nullptr, 0, reinterpret_cast<void*>(set_condition), choose_args);
    cudaGraphNodeParams sp = {};
    sp.type = cudaGraphNodeTypeConditional;
    sp.conditional.handle = switch_handle;
    sp.conditional.type = cudaGraphCondTypeSwitch;
    sp.conditional.size = 3;
    cudaGraphNode_t switch_node;
    CHECK(cudaGraphAddNode(&switch_node, choice, &chooser, nullptr, 1, &sp));
    int values[3] = {10, 20, 30};
    void* body_args[3][2] = {{&switch_out, &values[0]}, {&switch_out, &values[1]}, {&switch_out, &values[2]}};
    for (int b = 0; b < 3; ++b)
        kernel_node(sp.conditional.phGraph_out[b], nullptr, 0, reinterpret_cast<void*>(mark), body_args[b]);
    cudaGraphExec_t choice_exec;
    CHECK(cudaGraphInstantiate(&choice_exec, choice, 0));
    for (int value : {2, 0, 1, 7}) {
        const int none = -1;
        CHECK(cudaMemcpy(switch_out, &none, sizeof none, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(selector, &value, sizeof value, cudaMemcpyHostToDevice));
        CHECK(cudaGraphLaunch(choice_exec, 0));
        int got = 0;
        CHECK(cudaMemcpy(&got, switch_out, sizeof got, cudaMemcpyDeviceToHost));
        EXPECT(got == (value < 3 ? values[value] : -1));
    }

    // The generic setters: a kernel node's arguments changed in the graph and in its executable.
    cudaGraph_t single;
    CHECK(cudaGraphCreate(&single, 0));
    int value5 = 5, six = 6, seven = 7;
    void* mark_args[] = {&switch_out, &value5};
    cudaGraphNode_t mark_node = kernel_node(single, nullptr, 0, reinterpret_cast<void*>(mark), mark_args);
    cudaGraphNodeParams kp = {};
    kp.type = cudaGraphNodeTypeKernel;
    kp.kernel.func = reinterpret_cast<void*>(mark);
    kp.kernel.gridDim = dim3(1);
    kp.kernel.blockDim = dim3(1);
    void* six_args[] = {&switch_out, &six};
    kp.kernel.kernelParams = six_args;
    CHECK(cudaGraphNodeSetParams(mark_node, &kp));
    cudaGraphExec_t single_exec;
    CHECK(cudaGraphInstantiate(&single_exec, single, 0));
    int got = 0;
    CHECK(cudaGraphLaunch(single_exec, 0));
    CHECK(cudaMemcpy(&got, switch_out, sizeof got, cudaMemcpyDeviceToHost));
    EXPECT(got == 6);
    void* seven_args[] = {&switch_out, &seven};
    kp.kernel.kernelParams = seven_args;
    CHECK(cudaGraphExecNodeSetParams(single_exec, mark_node, &kp));
    CHECK(cudaGraphLaunch(single_exec, 0));
    CHECK(cudaMemcpy(&got, switch_out, sizeof got, cudaMemcpyDeviceToHost));
    EXPECT(got == 7);
    CHECK(cudaGraphExecDestroy(single_exec));
    CHECK(cudaGraphDestroy(single));

    CHECK(cudaGraphExecDestroy(loop_exec));
    CHECK(cudaGraphExecDestroy(branch_exec));
    CHECK(cudaGraphExecDestroy(choice_exec));
    CHECK(cudaGraphDestroy(loop));
    CHECK(cudaGraphDestroy(branch));
    CHECK(cudaGraphDestroy(choice));
    CHECK(cudaStreamDestroy(capture));
    CHECK(cudaFree(d));
    std::printf("graph_nodes: memory nodes, WHILE 5 rounds, IF/else, SWITCH of 3: PASS\n");
    return 0;
}
