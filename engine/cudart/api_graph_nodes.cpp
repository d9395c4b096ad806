// The CUDA runtime API, graphs continued: memory nodes (cudaGraphAddMemAllocNode/MemFreeNode and
// what graphs hold of device memory), conditional nodes (IF, WHILE, SWITCH, with handles a
// kernel sets through cudaGraphSetConditional), cudaGraphAddNode for every node type cudalab
// runs, and capture into an existing graph.
//
// A conditional handle is the device address of the 4-byte value it carries: device code's
// cudaGraphSetConditional(handle, value) stores the value there (the emulator is given a
// definition of that function, device_runtime.cpp), and the node reads it when the launch
// reaches it.
#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "cudart/api.h"
#include "cudart/graph.h"
#include "cudart/program_link.h"

using namespace cudalab;
using namespace cudalab::cudart;

namespace {

std::set<const Graph*>& bodies() {
    static std::set<const Graph*> all;
    return all;
}

// [SECTION] Graph memory accounting
//
// CUDA backs graph allocations with memory it maps in 32 MiB pieces when an executable graph
// first runs, keeps it associated with the graph until the graph is destroyed, and keeps it
// reserved until cudaDeviceGraphMemTrim (an H100: one 1000-byte allocation node reports 32 MiB
// used and reserved after the first launch; 0 used, 32 MiB high after destroying the graph; 0
// reserved after the trim).
constexpr std::uint64_t graph_memory_piece = 32ull << 20;

struct GraphMemory {
    std::uint64_t used = 0, used_high = 0, reserved = 0, reserved_high = 0;
};
std::map<int, GraphMemory>& graph_memory_of_device() {
    static std::map<int, GraphMemory> all;
    return all;
}
struct ExecMemory {
    int device = 0;
    std::uint64_t bytes = 0;
};
std::map<const GraphExec*, ExecMemory>& exec_memory() {
    static std::map<const GraphExec*, ExecMemory> all;
    return all;
}

// Every allocation node a launch of these works runs, children and bodies included.
void allocations_in(const std::vector<const Work*>& works, std::vector<const Work*>* out) {
    for (const Work* w : works) {
        if (w->kind == Work::Kind::alloc) out->push_back(w);
        std::vector<const Work*> inner;
        if (w->kind == Work::Kind::child_graph && w->child)
            for (const auto& n : w->child->nodes) inner.push_back(&n->work);
        for (const Graph* b : w->bodies)
            for (const auto& n : b->nodes) inner.push_back(&n->work);
        if (!inner.empty()) allocations_in(inner, out);
    }
}

// [SECTION] Conditional handles

struct Condition {
    const Graph* graph = nullptr;  // the graph it was created for
    unsigned default_value = 0;
    bool assign_default = false;
    bool used = false;  // a conditional node has it (one node per handle)
};
std::map<std::uint64_t, Condition>& conditions() {
    static std::map<std::uint64_t, Condition> all;
    return all;
}

unsigned condition_value(std::uint64_t handle) {
    unsigned v = 0;
    Runtime::get().memory->copy_out(&v, handle, sizeof v);
    return v;
}

void collect_conditions(const std::vector<const Work*>& works, std::set<std::uint64_t>* out) {
    for (const Work* w : works) {
        std::vector<const Work*> inner;
        if (w->kind == Work::Kind::conditional) out->insert(w->condition);
        if (w->kind == Work::Kind::child_graph && w->child)
            for (const auto& n : w->child->nodes) inner.push_back(&n->work);
        for (const Graph* b : w->bodies)
            for (const auto& n : b->nodes) inner.push_back(&n->work);
        if (!inner.empty()) collect_conditions(inner, out);
    }
}

// A WHILE node whose kernels never clear the condition would run for ever on a GPU; here it
// stops, with the reason, after this many rounds.
constexpr std::uint64_t max_while_rounds = 1u << 20;

int run_body(Stream* s, const Graph& body, const char* api) {
    std::vector<GraphNode*> order;
    if (!topological_order(body, &order)) return cudaErrorInvalidValue;
    for (GraphNode* n : order)
        if (int e = run_work(s, n->work, api, true)) return e;
    return cudaSuccess;
}

}  // namespace

namespace cudalab::cudart {

void register_body_graph(Graph* body) { bodies().insert(body); }
bool is_body_graph(const Graph* g) { return bodies().count(g) > 0; }

Graph::~Graph() { bodies().erase(this); }

GraphNode* known_node(cudaGraphNode_t handle) {
    auto* n = reinterpret_cast<GraphNode*>(handle);
    auto holds = [&](const Graph* g) {
        return std::any_of(g->nodes.begin(), g->nodes.end(),
                           [&](const auto& m) { return m.get() == n; });
    };
    for (const Graph* g : Runtime::get().graphs)
        if (holds(g)) return n;
    for (const Graph* g : bodies())
        if (holds(g)) return n;
    return nullptr;
}

bool graph_memory_launch(GraphExec* exec) {
    Runtime& rt = Runtime::get();
    std::vector<const Work*> works;
    for (const Work& w : exec->order) works.push_back(&w);
    std::vector<const Work*> allocs;
    allocations_in(works, &allocs);
    for (const Work* a : allocs) {
        if (!graph_memory_allocated(a->pointer)) continue;
        // cudaGraphInstantiateFlagAutoFreeOnLaunch: the launch frees what the last one left.
        if (exec->flags & cudaGraphInstantiateFlagAutoFreeOnLaunch) {
            stream_ordered_free(a->pointer, "cudaGraphLaunch");
            continue;
        }
        rt.warn("cudaGraphLaunch: the graph's allocation at " +
                [&] {
                    char b[32];
                    std::snprintf(b, sizeof b, "%p", a->pointer);
                    return std::string(b);
                }() +
                " is still allocated from an earlier launch: free it (a free node, cudaFree or "
                "cudaFreeAsync) before launching the graph again; CUDA refuses the launch with "
                "cudaErrorInvalidValue (or instantiate it with "
                "cudaGraphInstantiateFlagAutoFreeOnLaunch)");
        return false;
    }
    if (allocs.empty() || exec_memory().count(exec)) return true;
    std::uint64_t bytes = 0;
    for (const Work* a : allocs) bytes += a->bytes;
    ExecMemory m;
    m.device = allocs.front()->target_device;
    m.bytes = (bytes + graph_memory_piece - 1) / graph_memory_piece * graph_memory_piece;
    exec_memory()[exec] = m;
    GraphMemory& g = graph_memory_of_device()[m.device];
    g.used += m.bytes;
    g.reserved = std::max(g.reserved, g.used);
    g.used_high = std::max(g.used_high, g.used);
    g.reserved_high = std::max(g.reserved_high, g.reserved);
    return true;
}

void graph_memory_exec_destroyed(GraphExec* exec) {
    auto it = exec_memory().find(exec);
    if (it == exec_memory().end()) return;
    graph_memory_of_device()[it->second.device].used -= it->second.bytes;
    exec_memory().erase(it);
}

void conditional_defaults(const GraphExec& exec) {
    std::vector<const Work*> works;
    for (const Work& w : exec.order) works.push_back(&w);
    std::set<std::uint64_t> used;
    collect_conditions(works, &used);
    for (std::uint64_t h : used) {
        auto it = conditions().find(h);
        if (it != conditions().end() && it->second.assign_default)
            Runtime::get().memory->copy_in(h, &it->second.default_value, 4);
    }
}

int run_conditional(Stream* s, const Work& w, const char* api) {
    Runtime& rt = Runtime::get();
    switch (w.condition_type) {
    case cudaGraphCondTypeIf: {
        const unsigned v = condition_value(w.condition);
        if (v) return run_body(s, *w.bodies[0], api);
        if (w.bodies.size() > 1) return run_body(s, *w.bodies[1], api);
        return cudaSuccess;
    }
    case cudaGraphCondTypeWhile:
        for (std::uint64_t round = 0; condition_value(w.condition); ++round) {
            if (round == max_while_rounds) {
                rt.warn(std::string(api) + ": a WHILE conditional node ran its body " +
                        std::to_string(max_while_rounds) +
                        " times and its condition is still set: stopped (does a kernel of the "
                        "body call cudaGraphSetConditional(handle, 0) when it is done?)");
                return cudaErrorLaunchTimeout;
            }
            if (int e = run_body(s, *w.bodies[0], api)) return e;
        }
        return cudaSuccess;
    case cudaGraphCondTypeSwitch: {
        const unsigned v = condition_value(w.condition);
        return v < w.bodies.size() ? run_body(s, *w.bodies[v], api) : cudaSuccess;
    }
    default: return cudaErrorInvalidValue;
    }
}

}  // namespace cudalab::cudart

namespace {

cudaError_t add_alloc_node(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                           size_t count, const cudaMemPoolProps& props, size_t accessDescCount,
                           size_t bytes, void** dptr) {
    Runtime& rt = Runtime::get();
    if (!dptr || bytes == 0 || props.allocType != cudaMemAllocationTypePinned ||
        props.location.type != cudaMemLocationTypeDevice || props.location.id < 0 ||
        props.location.id >= rt.device_count || props.handleTypes != cudaMemHandleTypeNone ||
        accessDescCount > std::size_t(rt.device_count))
        return cudaErrorInvalidValue;
    if (!graph_of(graph)) return cudaErrorInvalidValue;
    void* p = nullptr;
    const int saved = rt.current_device();
    rt.current_device() = props.location.id;
    const cudaError_t e = graph_allocate(&p, bytes, "cudaGraphAddMemAllocNode");
    rt.current_device() = saved;
    if (e) return e;
    Work w;
    w.kind = Work::Kind::alloc;
    w.bytes = bytes;
    w.pointer = p;
    w.target_device = props.location.id;
    if (cudaError_t a = add_node(node, graph, deps, count, cudaGraphNodeTypeMemAlloc, w)) return a;
    *dptr = p;
    return cudaSuccess;
}

cudaError_t add_free_node(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                          size_t count, void* dptr) {
    Runtime& rt = Runtime::get();
    // The memory of an allocation node (this graph's or another's) or of cudaMallocAsync, by its
    // start (an H100 refuses an address inside the allocation).
    const MemoryRecord* r = rt.record_of(dptr);
    if (!dptr || !r || r->base != reinterpret_cast<std::uint64_t>(dptr) ||
        !(is_graph_memory(dptr) || r->kind == MemoryKind::pool))
        return cudaErrorInvalidValue;
    Work w;
    w.kind = Work::Kind::free;
    w.pointer = dptr;
    return add_node(node, graph, deps, count, cudaGraphNodeTypeMemFree, w);
}

cudaError_t add_conditional_node(cudaGraphNode_t* node, cudaGraph_t graph,
                                 const cudaGraphNode_t* deps, size_t count,
                                 cudaConditionalNodeParams* p) {
    auto it = conditions().find(p->handle);
    if (it == conditions().end() || it->second.used) return cudaErrorInvalidValue;
    const bool size_ok = (p->type == cudaGraphCondTypeIf && (p->size == 1 || p->size == 2)) ||
                         (p->type == cudaGraphCondTypeWhile && p->size == 1) ||
                         (p->type == cudaGraphCondTypeSwitch && p->size >= 1 && p->size <= 4096);
    if (!size_ok) return cudaErrorInvalidValue;
    Work w;
    w.kind = Work::Kind::conditional;
    w.condition = p->handle;
    w.condition_type = p->type;
    if (cudaError_t e = add_node(node, graph, deps, count, cudaGraphNodeTypeConditional, w))
        return e;
    GraphNode* n = node_of(*node);
    // The bodies are the node's; the array that names them is memory the program reads.
    void* names = link::share(p->size * sizeof(cudaGraph_t));
    if (!names) return cudaErrorMemoryAllocation;
    for (unsigned i = 0; i < p->size; ++i) {
        n->bodies.push_back(std::make_unique<Graph>());
        register_body_graph(n->bodies.back().get());
        n->work.bodies.push_back(n->bodies.back().get());
        static_cast<cudaGraph_t*>(names)[i] = reinterpret_cast<cudaGraph_t>(n->bodies.back().get());
    }
    p->phGraph_out = static_cast<cudaGraph_t*>(names);
    it->second.used = true;
    return cudaSuccess;
}

}  // namespace

namespace {

// cudaGraphNodeParams (cudaGraphAddNode, cudaGraph[Exec]NodeSetParams) as the parameters of each
// node kind's own call.
cudaKernelNodeParams kernel_params(const cudaGraphNodeParams& p) {
    cudaKernelNodeParams k{};
    k.func = p.kernel.func;
    k.gridDim = p.kernel.gridDim;
    k.blockDim = p.kernel.blockDim;
    k.sharedMemBytes = p.kernel.sharedMemBytes;
    k.kernelParams = p.kernel.kernelParams;
    k.extra = p.kernel.extra;
    return k;
}

cudaHostNodeParams host_params(const cudaGraphNodeParams& p) {
    cudaHostNodeParams h{};
    h.fn = p.host.fn;
    h.userData = p.host.userData;
    return h;
}

cudaMemsetParams memset_params(const cudaGraphNodeParams& p) {
    cudaMemsetParams m{};
    m.dst = p.memset.dst;
    m.pitch = p.memset.pitch;
    m.value = p.memset.value;
    m.elementSize = p.memset.elementSize;
    m.width = p.memset.width;
    m.height = p.memset.height;
    return m;
}

}  // namespace

extern "C" {

// [SECTION] Memory nodes
// -----------------------------------------------------------------------------

cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                     const cudaGraphNode_t* deps, size_t count,
                                     cudaMemAllocNodeParams* params) {
    CUDALAB_API("cudaGraphAddMemAllocNode");
    if (!params) return fail(cudaErrorInvalidValue);
    return result(add_alloc_node(node, graph, deps, count, params->poolProps,
                                 params->accessDescCount, params->bytesize, &params->dptr));
}

cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node, cudaMemAllocNodeParams* params) {
    CUDALAB_API("cudaGraphMemAllocNodeGetParams");
    GraphNode* n = known_node(node);
    if (!n || !params || n->type != cudaGraphNodeTypeMemAlloc) return fail(cudaErrorInvalidValue);
    std::memset(params, 0, sizeof *params);
    params->poolProps.allocType = cudaMemAllocationTypePinned;
    params->poolProps.location.type = cudaMemLocationTypeDevice;
    params->poolProps.location.id = n->work.target_device;
    params->bytesize = n->work.bytes;
    params->dptr = n->work.pointer;
    return cudaSuccess;
}

cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                    const cudaGraphNode_t* deps, size_t count, void* dptr) {
    CUDALAB_API("cudaGraphAddMemFreeNode");
    return result(add_free_node(node, graph, deps, count, dptr));
}

cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void* dptr_out) {
    CUDALAB_API("cudaGraphMemFreeNodeGetParams");
    GraphNode* n = known_node(node);
    if (!n || !dptr_out || n->type != cudaGraphNodeTypeMemFree) return fail(cudaErrorInvalidValue);
    *static_cast<void**>(dptr_out) = n->work.pointer;
    return cudaSuccess;
}

cudaError_t cudaDeviceGraphMemTrim(int device) {
    CUDALAB_API("cudaDeviceGraphMemTrim");
    if (device < 0 || device >= rt.device_count) return fail(cudaErrorInvalidDevice);
    GraphMemory& g = graph_memory_of_device()[device];
    g.reserved = g.used;  // what no executable graph holds goes back to the device
    return cudaSuccess;
}

cudaError_t cudaDeviceGetGraphMemAttribute(int device, cudaGraphMemAttributeType attr,
                                           void* value) {
    CUDALAB_API("cudaDeviceGetGraphMemAttribute");
    if (device < 0 || device >= rt.device_count) return fail(cudaErrorInvalidDevice);
    if (!value) return fail(cudaErrorInvalidValue);
    const GraphMemory& g = graph_memory_of_device()[device];
    unsigned long long v = 0;
    switch (attr) {
    case cudaGraphMemAttrUsedMemCurrent: v = g.used; break;
    case cudaGraphMemAttrUsedMemHigh: v = g.used_high; break;
    case cudaGraphMemAttrReservedMemCurrent: v = g.reserved; break;
    case cudaGraphMemAttrReservedMemHigh: v = g.reserved_high; break;
    default: return fail(cudaErrorInvalidValue);
    }
    std::memcpy(value, &v, sizeof v);
    return cudaSuccess;
}

cudaError_t cudaDeviceSetGraphMemAttribute(int device, cudaGraphMemAttributeType attr,
                                           void* value) {
    CUDALAB_API("cudaDeviceSetGraphMemAttribute");
    if (device < 0 || device >= rt.device_count) return fail(cudaErrorInvalidDevice);
    if (!value) return fail(cudaErrorInvalidValue);
    unsigned long long v = 0;
    std::memcpy(&v, value, sizeof v);
    // Only the high-water marks may be set, and only to 0 (a reset to the current amount), as on
    // an H100.
    GraphMemory& g = graph_memory_of_device()[device];
    if (v != 0) return fail(cudaErrorInvalidValue);
    if (attr == cudaGraphMemAttrUsedMemHigh) g.used_high = g.used;
    else if (attr == cudaGraphMemAttrReservedMemHigh) g.reserved_high = g.reserved;
    else return fail(cudaErrorInvalidValue);
    return cudaSuccess;
}

// [SECTION] Conditional nodes
// -----------------------------------------------------------------------

cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle* handle, cudaGraph_t graph,
                                             unsigned int default_value, unsigned int flags) {
    CUDALAB_API("cudaGraphConditionalHandleCreate");
    Graph* g = graph_of(graph);
    if (!handle || !g || (flags & ~unsigned(cudaGraphCondAssignDefault)))
        return fail(cudaErrorInvalidValue);
    // The value lives in device memory, where kernels set it (a module-scope object, reachable
    // from any kernel like a __device__ variable: the label says so to the emulator).
    const std::uint64_t at =
        rt.memory->allocate(8, "global variable (a conditional handle of a graph)");
    const unsigned initial = (flags & cudaGraphCondAssignDefault) ? default_value : 0;
    rt.memory->copy_in(at, &initial, sizeof initial);
    Condition c;
    c.graph = g;
    c.default_value = default_value;
    c.assign_default = (flags & cudaGraphCondAssignDefault) != 0;
    conditions()[at] = c;
    *handle = at;
    return cudaSuccess;
}

// [SECTION] cudaGraphAddNode
// ------------------------------------------------------------------------

cudaError_t cudaGraphAddNode(cudaGraphNode_t* node, cudaGraph_t graph, const cudaGraphNode_t* deps,
                             const cudaGraphEdgeData* edges, size_t count,
                             cudaGraphNodeParams* params) {
    CUDALAB_API("cudaGraphAddNode");
    if (!params) return fail(cudaErrorInvalidValue);
    if (edges)
        for (size_t i = 0; i < count; ++i)
            if (edges[i].type != cudaGraphDependencyTypeDefault || edges[i].from_port ||
                edges[i].to_port)
                return not_supported("cudaGraphAddNode", "edges other than full dependencies");
    switch (params->type) {
    case cudaGraphNodeTypeKernel: {
        const cudaKernelNodeParams k = kernel_params(*params);
        return cudaGraphAddKernelNode(node, graph, deps, count, &k);
    }
    case cudaGraphNodeTypeMemcpy:
        return cudaGraphAddMemcpyNode(node, graph, deps, count, &params->memcpy.copyParams);
    case cudaGraphNodeTypeMemset: {
        const cudaMemsetParams m = memset_params(*params);
        return cudaGraphAddMemsetNode(node, graph, deps, count, &m);
    }
    case cudaGraphNodeTypeHost: {
        const cudaHostNodeParams h = host_params(*params);
        return cudaGraphAddHostNode(node, graph, deps, count, &h);
    }
    case cudaGraphNodeTypeGraph:
        return cudaGraphAddChildGraphNode(node, graph, deps, count, params->graph.graph);
    case cudaGraphNodeTypeEmpty: return cudaGraphAddEmptyNode(node, graph, deps, count);
    case cudaGraphNodeTypeWaitEvent:
        return cudaGraphAddEventWaitNode(node, graph, deps, count, params->eventWait.event);
    case cudaGraphNodeTypeEventRecord:
        return cudaGraphAddEventRecordNode(node, graph, deps, count, params->eventRecord.event);
    case cudaGraphNodeTypeMemAlloc:
        return result(add_alloc_node(node, graph, deps, count, params->alloc.poolProps,
                                     params->alloc.accessDescCount, params->alloc.bytesize,
                                     &params->alloc.dptr));
    case cudaGraphNodeTypeMemFree:
        return result(add_free_node(node, graph, deps, count, params->free.dptr));
    case cudaGraphNodeTypeConditional:
        return result(add_conditional_node(node, graph, deps, count, &params->conditional));
    default:
        return not_supported("cudaGraphAddNode", "external semaphore nodes, and node types CUDA "
                                                 "13 does not define");
    }
}

// The generic forms of the node setters: the kinds whose parameters cudalab can change in place.
cudaError_t cudaGraphNodeSetParams(cudaGraphNode_t node, cudaGraphNodeParams* params) {
    CUDALAB_API("cudaGraphNodeSetParams");
    GraphNode* n = known_node(node);
    if (!n || !params || int(params->type) != n->type) return fail(cudaErrorInvalidValue);
    switch (params->type) {
    case cudaGraphNodeTypeKernel: {
        const cudaKernelNodeParams k = kernel_params(*params);
        return cudaGraphKernelNodeSetParams(node, &k);
    }
    case cudaGraphNodeTypeHost: {
        const cudaHostNodeParams h = host_params(*params);
        return cudaGraphHostNodeSetParams(node, &h);
    }
    default:
        return not_supported("cudaGraphNodeSetParams", "nodes other than kernel and host nodes");
    }
}

cudaError_t cudaGraphExecNodeSetParams(cudaGraphExec_t exec, cudaGraphNode_t node,
                                       cudaGraphNodeParams* params) {
    CUDALAB_API("cudaGraphExecNodeSetParams");
    GraphNode* n = known_node(node);
    if (!n || !params || int(params->type) != n->type) return fail(cudaErrorInvalidValue);
    switch (params->type) {
    case cudaGraphNodeTypeKernel: {
        const cudaKernelNodeParams k = kernel_params(*params);
        return cudaGraphExecKernelNodeSetParams(exec, node, &k);
    }
    case cudaGraphNodeTypeHost: {
        const cudaHostNodeParams h = host_params(*params);
        return cudaGraphExecHostNodeSetParams(exec, node, &h);
    }
    case cudaGraphNodeTypeMemset: {
        const cudaMemsetParams m = memset_params(*params);
        return cudaGraphExecMemsetNodeSetParams(exec, node, &m);
    }
    default:
        return not_supported("cudaGraphExecNodeSetParams",
                             "nodes other than kernel, host and memset nodes");
    }
}

// [SECTION] Capturing into an existing graph
// --------------------------------------------------------

cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph,
                                          const cudaGraphNode_t* deps,
                                          const cudaGraphEdgeData* edges, size_t count,
                                          cudaStreamCaptureMode mode) {
    CUDALAB_API("cudaStreamBeginCaptureToGraph");
    Stream* s = rt.stream(stream);
    Graph* g = graph_of(graph);
    if (!s) return fail(cudaErrorInvalidResourceHandle);
    if (!g || (count && !deps)) return fail(cudaErrorInvalidValue);
    if (s->legacy) return fail(cudaErrorStreamCaptureUnsupported);
    if (s->capture_status == cudaStreamCaptureStatusActive) return fail(cudaErrorIllegalState);
    if (edges)
        for (size_t i = 0; i < count; ++i)
            if (edges[i].type != cudaGraphDependencyTypeDefault)
                return not_supported("cudaStreamBeginCaptureToGraph",
                                     "edges other than full dependencies");
    std::vector<GraphNode*> frontier;
    for (size_t i = 0; i < count; ++i) {
        GraphNode* d = known_node(deps[i]);
        if (!d || d->owner != g) return fail(cudaErrorInvalidValue);
        frontier.push_back(d);
    }
    static unsigned long long next_id = 1u << 30;
    s->capture_status = cudaStreamCaptureStatusActive;
    s->capture_mode = mode;
    s->capture_graph = g;
    s->capture_owns_graph = false;  // the program's graph: cudaStreamEndCapture may pass no out
    s->capture_frontier = frontier;
    s->capture_id = next_id++;
    return cudaSuccess;
}

cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t* deps,
                                                const cudaGraphEdgeData* edges, size_t count,
                                                unsigned int flags) {
    CUDALAB_API("cudaStreamUpdateCaptureDependencies");
    Stream* s = rt.stream(stream);
    if (!s) return fail(cudaErrorInvalidResourceHandle);
    if (s->capture_status != cudaStreamCaptureStatusActive) return fail(cudaErrorIllegalState);
    if ((count && !deps) ||
        (flags != cudaStreamAddCaptureDependencies && flags != cudaStreamSetCaptureDependencies))
        return fail(cudaErrorInvalidValue);
    if (edges)
        for (size_t i = 0; i < count; ++i)
            if (edges[i].type != cudaGraphDependencyTypeDefault)
                return not_supported("cudaStreamUpdateCaptureDependencies",
                                     "edges other than full dependencies");
    std::vector<GraphNode*> nodes;
    for (size_t i = 0; i < count; ++i) {
        GraphNode* d = known_node(deps[i]);
        if (!d || d->owner != s->capture_graph) return fail(cudaErrorInvalidValue);
        nodes.push_back(d);
    }
    if (flags == cudaStreamSetCaptureDependencies) s->capture_frontier.clear();
    for (GraphNode* d : nodes)
        if (std::find(s->capture_frontier.begin(), s->capture_frontier.end(), d) ==
            s->capture_frontier.end())
            s->capture_frontier.push_back(d);
    return cudaSuccess;
}

cudaError_t cudaStreamBeginCaptureToGraph_ptsz(cudaStream_t stream, cudaGraph_t graph,
                                               const cudaGraphNode_t* deps,
                                               const cudaGraphEdgeData* edges, size_t count,
                                               cudaStreamCaptureMode mode) {
    return cudaStreamBeginCaptureToGraph(stream ? stream : cudaStreamPerThread, graph, deps, edges,
                                         count, mode);
}

cudaError_t cudaStreamUpdateCaptureDependencies_ptsz(cudaStream_t stream, cudaGraphNode_t* deps,
                                                     const cudaGraphEdgeData* edges, size_t count,
                                                     unsigned int flags) {
    return cudaStreamUpdateCaptureDependencies(stream ? stream : cudaStreamPerThread, deps, edges,
                                               count, flags);
}

}  // extern "C"
