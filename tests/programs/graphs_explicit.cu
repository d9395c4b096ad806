// graphs_explicit: builds graphs node by node with memset, memcpy, kernel, host, child-graph,
// event-record and event-wait nodes, launches them, then changes a kernel's arguments in the
// instantiated graph (cudaGraphExecKernelNodeSetParams) and through cudaGraphExecUpdate.
#include <atomic>
#include "check.h"

__global__ void scale(int* x, const int* y, int k, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += y[i] * k;
}

__global__ void add(int* x, int c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += c;
}

__global__ void spin_then_set(int* flag, long long cycles)
{
    long long start = clock64();
    while (clock64() - start < cycles) {}
    *flag = 1234;
}

__global__ void copy_flag(int* dst, const int* flag) { *dst = *flag; }

struct HostCheck {
    const int* host;
    int n;
    int k, c;
    std::atomic<int> calls{0};
    std::atomic<int> bad{0};
};

static void CUDART_CB host_check(void* p)
{
    HostCheck* h = static_cast<HostCheck*>(p);
    for (int i = 0; i < h->n; ++i)
        if (h->host[i] != i * h->k + h->c) h->bad.fetch_add(1);
    h->calls.fetch_add(1);
}

int main()
{
    const int n = 1000, threads = 128, blocks = (n + threads - 1) / threads;
    int *h_y, *h_x;
    CHECK(cudaMallocHost(&h_y, n * sizeof(int)));
    CHECK(cudaMallocHost(&h_x, n * sizeof(int)));
    for (int i = 0; i < n; ++i) h_y[i] = i;
    int *x, *y;
    CHECK(cudaMalloc(&x, n * sizeof(int)));
    CHECK(cudaMalloc(&y, n * sizeof(int)));
    HostCheck hc;
    hc.host = h_x;
    hc.n = n;
    hc.k = 3;
    hc.c = 7;

    // Child graph: one kernel adding c.
    cudaGraph_t child;
    CHECK(cudaGraphCreate(&child, 0));
    int c = hc.c, nn = n;
    void* add_args[] = {&x, &c, &nn};
    cudaKernelNodeParams addp = {};
    addp.func = (void*)add;
    addp.gridDim = dim3(blocks);
    addp.blockDim = dim3(threads);
    addp.kernelParams = add_args;
    cudaGraphNode_t child_kernel;
    CHECK(cudaGraphAddKernelNode(&child_kernel, child, nullptr, 0, &addp));

    // Main graph: memset x, copy y in (independent) -> scale -> child -> copy x out -> host check
    //             -> event record.
    cudaGraph_t graph;
    CHECK(cudaGraphCreate(&graph, 0));
    cudaMemsetParams ms = {};
    ms.dst = x;
    ms.value = 0;
    ms.elementSize = sizeof(int);
    ms.width = n;
    ms.height = 1;
    cudaGraphNode_t memset_node, copy_in, scale_node, child_node, copy_out, host_node, record_node;
    CHECK(cudaGraphAddMemsetNode(&memset_node, graph, nullptr, 0, &ms));
    CHECK(cudaGraphAddMemcpyNode1D(&copy_in, graph, nullptr, 0, y, h_y, n * sizeof(int),
                                   cudaMemcpyHostToDevice));
    int k = hc.k;
    void* scale_args[] = {&x, &y, &k, &nn};
    cudaKernelNodeParams sp = {};
    sp.func = (void*)scale;
    sp.gridDim = dim3(blocks);
    sp.blockDim = dim3(threads);
    sp.kernelParams = scale_args;
    cudaGraphNode_t before_scale[] = {memset_node, copy_in};
    CHECK(cudaGraphAddKernelNode(&scale_node, graph, before_scale, 2, &sp));
    CHECK(cudaGraphAddChildGraphNode(&child_node, graph, &scale_node, 1, child));
    CHECK(cudaGraphAddMemcpyNode1D(&copy_out, graph, &child_node, 1, h_x, x, n * sizeof(int),
                                   cudaMemcpyDeviceToHost));
    cudaHostNodeParams hp = {};
    hp.fn = host_check;
    hp.userData = &hc;
    CHECK(cudaGraphAddHostNode(&host_node, graph, &copy_out, 1, &hp));
    cudaEvent_t done;
    CHECK(cudaEventCreate(&done));
    CHECK(cudaGraphAddEventRecordNode(&record_node, graph, &host_node, 1, done));

    size_t count = 0;
    CHECK(cudaGraphGetNodes(graph, nullptr, &count));
    EXPECT(count == 7, "graph has %zu nodes", count);
    size_t edges = 0;
    CHECK(cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &edges));
    EXPECT(edges == 6, "graph has %zu edges", edges);

    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    for (int rep = 0; rep < 3; ++rep) CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaEventSynchronize(done)); // recorded by the graph's last node
    CHECK(cudaStreamSynchronize(s));
    EXPECT(hc.calls.load() == 3 && hc.bad.load() == 0, "host node: %d calls, %d bad values",
           hc.calls.load(), hc.bad.load());

    // Change the scale factor in the executable graph only.
    hc.k = k = 5;
    CHECK(cudaGraphExecKernelNodeSetParams(exec, scale_node, &sp));
    CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
    EXPECT(hc.calls.load() == 4 && hc.bad.load() == 0, "after exec set params: %d calls, %d bad",
           hc.calls.load(), hc.bad.load());

    // Change the template graph, then bring the executable graph up to date with it.
    hc.k = k = -2;
    CHECK(cudaGraphKernelNodeSetParams(scale_node, &sp));
    cudaGraphExecUpdateResultInfo info = {};
    CHECK(cudaGraphExecUpdate(exec, graph, &info));
    EXPECT(info.result == cudaGraphExecUpdateSuccess, "update result %d", (int)info.result);
    CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
    EXPECT(hc.calls.load() == 5 && hc.bad.load() == 0, "after exec update: %d calls, %d bad",
           hc.calls.load(), hc.bad.load());

    // An event-wait node orders a graph after work in another stream.
    int *flag, *seen;
    CHECK(cudaMalloc(&flag, sizeof(int)));
    CHECK(cudaMalloc(&seen, sizeof(int)));
    CHECK(cudaMemset(flag, 0, sizeof(int)));
    CHECK(cudaMemset(seen, 0, sizeof(int)));
    // cudaMemset is asynchronous and goes to the legacy default stream, which does not order the
    // non-blocking streams below: wait for it, or they race with it.
    CHECK(cudaDeviceSynchronize());
    cudaEvent_t ready;
    CHECK(cudaEventCreateWithFlags(&ready, cudaEventDisableTiming));
    cudaGraph_t waiter;
    CHECK(cudaGraphCreate(&waiter, 0));
    cudaGraphNode_t wait_node, read_node;
    CHECK(cudaGraphAddEventWaitNode(&wait_node, waiter, nullptr, 0, ready));
    void* read_args[] = {&seen, &flag};
    cudaKernelNodeParams rp = {};
    rp.func = (void*)copy_flag;
    rp.gridDim = dim3(1);
    rp.blockDim = dim3(1);
    rp.kernelParams = read_args;
    CHECK(cudaGraphAddKernelNode(&read_node, waiter, &wait_node, 1, &rp));
    cudaGraphExec_t waiter_exec;
    CHECK(cudaGraphInstantiate(&waiter_exec, waiter, 0));
    cudaStream_t other;
    CHECK(cudaStreamCreateWithFlags(&other, cudaStreamNonBlocking));
    spin_then_set<<<1, 1, 0, other>>>(flag, 1000000); // about half a millisecond on a GPU
    CHECK_LAUNCH();
    CHECK(cudaEventRecord(ready, other));
    CHECK(cudaGraphLaunch(waiter_exec, s));
    CHECK(cudaStreamSynchronize(s));
    int h_seen = 0;
    CHECK(cudaMemcpy(&h_seen, seen, sizeof(int), cudaMemcpyDeviceToHost));
    EXPECT(h_seen == 1234, "the waiting graph read %d before the other stream set it", h_seen);

    CHECK(cudaGraphExecDestroy(waiter_exec));
    CHECK(cudaGraphDestroy(waiter));
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
    CHECK(cudaGraphDestroy(child));
    CHECK(cudaStreamDestroy(s)); CHECK(cudaStreamDestroy(other));
    CHECK(cudaEventDestroy(done)); CHECK(cudaEventDestroy(ready));
    CHECK(cudaFree(x)); CHECK(cudaFree(y)); CHECK(cudaFree(flag)); CHECK(cudaFree(seen));
    CHECK(cudaFreeHost(h_x)); CHECK(cudaFreeHost(h_y));
    std::printf("graphs_explicit: 7-node graph, 5 launches, 2 updates, event wait: PASS\n");
    return 0;
}
