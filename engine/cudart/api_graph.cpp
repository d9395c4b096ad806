// The CUDA runtime API, part 5: graphs. A graph is a DAG of stream work (state.h, Work); an
// instantiated graph is its nodes in one topological order, run on the launch stream with the
// smaller per-kernel cost of a graph (device_model.h). Nodes of one graph do not overlap each
// other in the modelled time (a simplification: branches of a graph could run side by side).
#include <algorithm>
#include <cstring>
#include <map>

#include "cudart/api.h"
#include "cudart/graph.h"
#include "cudart/program_link.h"

using namespace cudalab;
using namespace cudalab::cudart;

namespace cudalab::cudart {
cudaError_t make_kernel_work(const void* func, dim3 grid, dim3 block, void** args, size_t shared,
                             KernelWork* out, const char* api);
cudaError_t copy_from_params(const cudaMemcpy3DParms* p, Copy3D* c);
}  // namespace cudalab::cudart

namespace cudalab::cudart {

Graph* graph_of(cudaGraph_t g) {
    auto* graph = reinterpret_cast<Graph*>(g);
    return Runtime::get().graphs.count(graph) || is_body_graph(graph) ? graph : nullptr;
}

GraphNode* node_of(cudaGraphNode_t n) { return reinterpret_cast<GraphNode*>(n); }

}  // namespace cudalab::cudart

namespace {

GraphExec* exec_of(cudaGraphExec_t g) {
    auto* e = reinterpret_cast<GraphExec*>(g);
    return Runtime::get().graph_execs.count(e) ? e : nullptr;
}

// What a node does, in a few words: "kernel scale", "memcpy", "host function".
std::string work_label(const Work& w) {
    switch (w.kind) {
    case Work::Kind::kernel:
        return "kernel " + (w.kernel.function ? kernel_display_name(w.kernel.function->entry)
                                              : std::string("?"));
    case Work::Kind::copy: return "memcpy";
    case Work::Kind::set: return "memset";
    case Work::Kind::host: return "host function";
    case Work::Kind::event_record: return "event record";
    case Work::Kind::event_wait: return "event wait";
    case Work::Kind::child_graph: return "child graph";
    case Work::Kind::empty: return "empty";
    case Work::Kind::alloc: return "memory alloc";
    case Work::Kind::free: return "memory free";
    case Work::Kind::prefetch: return "prefetch";
    case Work::Kind::conditional: return "conditional";
    }
    return "?";
}

// The instantiated work of a node of the graph the exec was made from, or null.
Work* exec_work(GraphExec* e, cudaGraphNode_t node) {
    for (std::size_t i = 0; i < e->order.size(); ++i)
        if (e->source_nodes[i] == node_of(node)) return &e->order[i];
    return nullptr;
}

}  // namespace

namespace cudalab::cudart {

// A deep copy (for child-graph nodes, cudaGraphClone and instantiation): nodes and edges.
std::unique_ptr<Graph> clone(const Graph& g) {
    auto copy = std::make_unique<Graph>();
    std::map<const GraphNode*, GraphNode*> mapped;
    for (const auto& n : g.nodes) {
        auto c = std::make_unique<GraphNode>();
        c->owner = copy.get();
        c->type = n->type;
        c->work = n->work;
        if (n->child_copy) {
            c->child_copy = clone(*n->child_copy);
            c->work.child = c->child_copy.get();
        }
        c->work.bodies.clear();
        for (const auto& body : n->bodies) {
            c->bodies.push_back(clone(*body));
            register_body_graph(c->bodies.back().get());
            c->work.bodies.push_back(c->bodies.back().get());
        }
        mapped[n.get()] = c.get();
        copy->nodes.push_back(std::move(c));
    }
    for (std::size_t i = 0; i < g.nodes.size(); ++i)
        for (GraphNode* d : g.nodes[i]->dependencies)
            copy->nodes[i]->dependencies.push_back(mapped[d]);
    return copy;
}

cudaError_t add_node(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* deps,
                     size_t count, int type, Work work) {
    Graph* g = graph_of(graph);
    if (!out || !g || (count && !deps)) return cudaErrorInvalidValue;
    auto n = std::make_unique<GraphNode>();
    n->owner = g;
    n->type = type;
    n->work = std::move(work);
    n->work.made_at = CallStack::here();
    for (size_t i = 0; i < count; ++i) {
        // A node of this graph, found by its handle before it is used (a stale or made-up
        // handle is the program's mistake, not the device's crash).
        GraphNode* d = node_of(deps[i]);
        if (!d || std::none_of(g->nodes.begin(), g->nodes.end(),
                               [&](const auto& m) { return m.get() == d; }))
            return cudaErrorInvalidValue;
        n->dependencies.push_back(d);
    }
    *out = reinterpret_cast<cudaGraphNode_t>(n.get());
    g->nodes.push_back(std::move(n));
    return cudaSuccess;
}

}  // namespace cudalab::cudart

namespace {

cudaError_t kernel_work(const cudaKernelNodeParams* p, Work* w) {
    if (!p) return cudaErrorInvalidValue;
    if (p->extra)
        return not_supported("cudaGraphAddKernelNode", "kernel arguments in the 'extra' form");
    w->kind = Work::Kind::kernel;
    return make_kernel_work(p->func, p->gridDim, p->blockDim, p->kernelParams, p->sharedMemBytes,
                            &w->kernel, "cudaGraphAddKernelNode");
}

Work memset_work(const cudaMemsetParams* p) {
    Work w;
    w.kind = Work::Kind::set;
    w.set.dst = static_cast<std::uint8_t*>(p->dst);
    w.set.value = p->value;
    w.set.element = p->elementSize;
    w.set.width = p->width;
    w.set.height = p->height;
    w.set.pitch = p->height > 1 ? p->pitch : p->width * p->elementSize;
    w.set.slice = w.set.pitch * p->height;
    return w;
}

}  // namespace

extern "C" {

// [SECTION] Building graphs
// -------------------------------------------------------------------------

cudaError_t cudaGraphCreate(cudaGraph_t* graph, unsigned int flags) {
    CUDALAB_API("cudaGraphCreate");
    if (!graph || flags) return fail(cudaErrorInvalidValue);
    auto* g = new Graph();
    rt.graphs.insert(g);
    *graph = reinterpret_cast<cudaGraph_t>(g);
    return cudaSuccess;
}

cudaError_t cudaGraphDestroy(cudaGraph_t graph) {
    CUDALAB_API("cudaGraphDestroy");
    Graph* g = graph_of(graph);
    if (!g) return fail(cudaErrorInvalidValue);
    rt.graphs.erase(g);
    delete g;
    return cudaSuccess;
}

cudaError_t cudaGraphClone(cudaGraph_t* out, cudaGraph_t graph) {
    CUDALAB_API("cudaGraphClone");
    Graph* g = graph_of(graph);
    if (!g || !out) return fail(cudaErrorInvalidValue);
    Graph* c = clone(*g).release();
    rt.graphs.insert(c);
    *out = reinterpret_cast<cudaGraph_t>(c);
    return cudaSuccess;
}

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                   const cudaGraphNode_t* deps, size_t count,
                                   const cudaKernelNodeParams* params) {
    CUDALAB_API("cudaGraphAddKernelNode");
    Work w;
    if (cudaError_t e = kernel_work(params, &w)) return fail(e);
    return result(add_node(node, graph, deps, count, cudaGraphNodeTypeKernel, std::move(w)));
}

cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, cudaKernelNodeParams* params) {
    CUDALAB_API("cudaGraphKernelNodeGetParams");
    GraphNode* n = node_of(node);
    if (!n || !params || n->type != cudaGraphNodeTypeKernel) return fail(cudaErrorInvalidValue);
    const KernelWork& k = n->work.kernel;
    params->func = const_cast<void*>(k.function->host_function);
    params->gridDim = dim3(k.config.grid.x, k.config.grid.y, k.config.grid.z);
    params->blockDim = dim3(k.config.block.x, k.config.block.y, k.config.block.z);
    params->sharedMemBytes = k.config.dynamic_shared_bytes;
    // The argument values live in the node; hand out pointers to copies of them that the program
    // can read (it may build its next launch's arguments from them), valid while the node lives.
    const auto& args = n->work.kernel.args;
    std::uint64_t bytes = args.size() * sizeof(void*);
    for (const auto& a : args) bytes += (a.bytes.size() + 7) / 8 * 8;
    if (n->params_view_bytes < bytes || !n->params_view) {
        if (n->params_view) link::unshare(n->params_view, n->params_view_bytes);
        n->params_view = link::share(std::max<std::uint64_t>(bytes, 8));
        n->params_view_bytes = n->params_view ? std::max<std::uint64_t>(bytes, 8) : 0;
        if (!n->params_view) return fail(cudaErrorMemoryAllocation);
    }
    auto* pointers = static_cast<void**>(n->params_view);
    auto* values = reinterpret_cast<std::uint8_t*>(pointers + args.size());
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::memcpy(values, args[i].bytes.data(), args[i].bytes.size());
        pointers[i] = values;
        values += (args[i].bytes.size() + 7) / 8 * 8;
    }
    params->kernelParams = pointers;
    params->extra = nullptr;
    return cudaSuccess;
}

cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const cudaKernelNodeParams* params) {
    CUDALAB_API("cudaGraphKernelNodeSetParams");
    GraphNode* n = node_of(node);
    if (!n || n->type != cudaGraphNodeTypeKernel) return fail(cudaErrorInvalidValue);
    Work w;
    if (cudaError_t e = kernel_work(params, &w)) return fail(e);
    n->work = std::move(w);
    return cudaSuccess;
}

cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                   const cudaGraphNode_t* deps, size_t count,
                                   const cudaMemcpy3DParms* params) {
    CUDALAB_API("cudaGraphAddMemcpyNode");
    Work w;
    w.kind = Work::Kind::copy;
    if (cudaError_t e = copy_from_params(params, &w.copy)) return fail(e);
    return result(add_node(node, graph, deps, count, cudaGraphNodeTypeMemcpy, std::move(w)));
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t* node, cudaGraph_t graph,
                                     const cudaGraphNode_t* deps, size_t count, void* dst,
                                     const void* src, size_t bytes, cudaMemcpyKind kind) {
    CUDALAB_API("cudaGraphAddMemcpyNode1D");
    Work w;
    w.kind = Work::Kind::copy;
    w.copy.dst = static_cast<std::uint8_t*>(dst);
    w.copy.src = static_cast<const std::uint8_t*>(src);
    w.copy.width = bytes;
    w.copy.src_pitch = w.copy.dst_pitch = bytes;
    w.copy.kind = kind;
    return result(add_node(node, graph, deps, count, cudaGraphNodeTypeMemcpy, std::move(w)));
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                   const cudaGraphNode_t* deps, size_t count,
                                   const cudaMemsetParams* params) {
    CUDALAB_API("cudaGraphAddMemsetNode");
    if (!params ||
        (params->elementSize != 1 && params->elementSize != 2 && params->elementSize != 4))
        return fail(cudaErrorInvalidValue);
    return result(add_node(node, graph, deps, count, cudaGraphNodeTypeMemset, memset_work(params)));
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                 const cudaGraphNode_t* deps, size_t count,
                                 const cudaHostNodeParams* params) {
    CUDALAB_API("cudaGraphAddHostNode");
    if (!params || !params->fn) return fail(cudaErrorInvalidValue);
    Work w;
    w.kind = Work::Kind::host;
    w.host_fn = params->fn;
    w.host_data = params->userData;
    return result(add_node(node, graph, deps, count, cudaGraphNodeTypeHost, std::move(w)));
}

cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node, const cudaHostNodeParams* params) {
    CUDALAB_API("cudaGraphHostNodeSetParams");
    GraphNode* n = node_of(node);
    if (!n || !params || n->type != cudaGraphNodeTypeHost) return fail(cudaErrorInvalidValue);
    n->work.host_fn = params->fn;
    n->work.host_data = params->userData;
    return cudaSuccess;
}

cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                       const cudaGraphNode_t* deps, size_t count,
                                       cudaGraph_t child) {
    CUDALAB_API("cudaGraphAddChildGraphNode");
    Graph* c = graph_of(child);
    if (!c) return fail(cudaErrorInvalidValue);
    Work w;
    w.kind = Work::Kind::child_graph;
    cudaError_t e = add_node(node, graph, deps, count, cudaGraphNodeTypeGraph, std::move(w));
    if (e) return fail(e);
    GraphNode* n = node_of(*node);
    n->child_copy = clone(*c);  // the node keeps a copy: later changes to `child` do not reach it
    n->work.child = n->child_copy.get();
    return cudaSuccess;
}

cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node, cudaGraph_t* graph) {
    GraphNode* n = node_of(node);
    if (!n || !graph || n->type != cudaGraphNodeTypeGraph) return fail(cudaErrorInvalidValue);
    *graph = reinterpret_cast<cudaGraph_t>(n->child_copy.get());
    return cudaSuccess;
}

cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                  const cudaGraphNode_t* deps, size_t count) {
    CUDALAB_API("cudaGraphAddEmptyNode");
    return result(add_node(node, graph, deps, count, cudaGraphNodeTypeEmpty, Work{}));
}

cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                        const cudaGraphNode_t* deps, size_t count,
                                        cudaEvent_t event) {
    CUDALAB_API("cudaGraphAddEventRecordNode");
    auto* e = reinterpret_cast<Event*>(event);
    if (!rt.events.count(e)) return fail(cudaErrorInvalidResourceHandle);
    Work w;
    w.kind = Work::Kind::event_record;
    w.event = e;
    return result(add_node(node, graph, deps, count, cudaGraphNodeTypeEventRecord, std::move(w)));
}

cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t* node, cudaGraph_t graph,
                                      const cudaGraphNode_t* deps, size_t count,
                                      cudaEvent_t event) {
    CUDALAB_API("cudaGraphAddEventWaitNode");
    auto* e = reinterpret_cast<Event*>(event);
    if (!rt.events.count(e)) return fail(cudaErrorInvalidResourceHandle);
    Work w;
    w.kind = Work::Kind::event_wait;
    w.event = e;
    return result(add_node(node, graph, deps, count, cudaGraphNodeTypeWaitEvent, std::move(w)));
}

cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t* from,
                                     const cudaGraphNode_t* to, const cudaGraphEdgeData*,
                                     size_t count) {
    CUDALAB_API("cudaGraphAddDependencies");
    Graph* g = graph_of(graph);
    if (!g || (count && (!from || !to))) return fail(cudaErrorInvalidValue);
    for (size_t i = 0; i < count; ++i) {
        GraphNode* a = node_of(from[i]);
        GraphNode* b = node_of(to[i]);
        if (!a || !b || a->owner != g || b->owner != g) return fail(cudaErrorInvalidValue);
        b->dependencies.push_back(a);
    }
    return cudaSuccess;
}

cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t* from,
                                        const cudaGraphNode_t* to, const cudaGraphEdgeData*,
                                        size_t count) {
    CUDALAB_API("cudaGraphRemoveDependencies");
    for (size_t i = 0; i < count; ++i) {
        GraphNode* b = node_of(to[i]);
        auto& d = b->dependencies;
        d.erase(std::remove(d.begin(), d.end(), node_of(from[i])), d.end());
    }
    return cudaSuccess;
}

cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* count) {
    CUDALAB_API("cudaGraphGetNodes");
    Graph* g = graph_of(graph);
    if (!g || !count) return fail(cudaErrorInvalidValue);
    if (nodes)
        for (size_t i = 0; i < std::min(*count, g->nodes.size()); ++i)
            nodes[i] = reinterpret_cast<cudaGraphNode_t>(g->nodes[i].get());
    *count = g->nodes.size();
    return cudaSuccess;
}

cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t* nodes, size_t* count) {
    CUDALAB_API("cudaGraphGetRootNodes");
    Graph* g = graph_of(graph);
    if (!g || !count) return fail(cudaErrorInvalidValue);
    std::vector<GraphNode*> roots;
    for (auto& n : g->nodes)
        if (n->dependencies.empty()) roots.push_back(n.get());
    if (nodes)
        for (size_t i = 0; i < std::min(*count, roots.size()); ++i)
            nodes[i] = reinterpret_cast<cudaGraphNode_t>(roots[i]);
    *count = roots.size();
    return cudaSuccess;
}

cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t* from, cudaGraphNode_t* to,
                              cudaGraphEdgeData* edges, size_t* count) {
    CUDALAB_API("cudaGraphGetEdges");
    Graph* g = graph_of(graph);
    if (!g || !count) return fail(cudaErrorInvalidValue);
    size_t k = 0;
    for (auto& n : g->nodes)
        for (GraphNode* d : n->dependencies) {
            if (from && to && k < *count) {
                from[k] = reinterpret_cast<cudaGraphNode_t>(d);
                to[k] = reinterpret_cast<cudaGraphNode_t>(n.get());
                if (edges) edges[k] = cudaGraphEdgeData{};
            }
            ++k;
        }
    *count = k;
    return cudaSuccess;
}

cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, cudaGraphNodeType* type) {
    GraphNode* n = node_of(node);
    if (!n || !type) return fail(cudaErrorInvalidValue);
    *type = cudaGraphNodeType(n->type);
    return cudaSuccess;
}

cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node) {
    CUDALAB_API("cudaGraphDestroyNode");
    GraphNode* n = node_of(node);
    if (!n) return fail(cudaErrorInvalidValue);
    Graph* g = n->owner;
    for (auto& other : g->nodes) {
        auto& d = other->dependencies;
        d.erase(std::remove(d.begin(), d.end(), n), d.end());
    }
    g->nodes.erase(
        std::remove_if(g->nodes.begin(), g->nodes.end(), [&](auto& p) { return p.get() == n; }),
        g->nodes.end());
    return cudaSuccess;
}

// [SECTION] Instantiating and launching ---------------------------------------------------------

cudaError_t cudaGraphInstantiate(cudaGraphExec_t* out, cudaGraph_t graph,
                                 unsigned long long flags) {
    CUDALAB_API("cudaGraphInstantiate");
    Graph* g = graph_of(graph);
    if (!out || !g) return fail(cudaErrorInvalidValue);
    auto exec = std::make_unique<GraphExec>();
    exec->id = rt.next_graph_exec_id++;  // the timeline's "graph_exec"
    exec->flags = flags;
    auto copy = clone(*g);
    std::vector<GraphNode*> order;
    if (!topological_order(*copy, &order)) {
        rt.warn("cudaGraphInstantiate: the graph has a cycle");
        return fail(cudaErrorInvalidValue);
    }
    // Map the copy's nodes back to the original's for cudaGraphExec*SetParams.
    std::map<GraphNode*, GraphNode*> original;
    for (std::size_t i = 0; i < g->nodes.size(); ++i)
        original[copy->nodes[i].get()] = g->nodes[i].get();
    std::map<const GraphNode*, int> position;
    for (GraphNode* n : order) {
        position[n] = int(exec->order.size());
        exec->order.push_back(n->work);
        exec->source_nodes.push_back(original[n]);
        exec->kernel_nodes += n->type == cudaGraphNodeTypeKernel;
    }
    // The edges, kept here: the graph it came from may be destroyed while the exec lives on
    // (cudaGraphExecUpdate keeps the topology, so they stay right).
    for (GraphNode* n : order)
        for (const GraphNode* d : n->dependencies)
            if (position.count(d)) exec->edges.push_back({position[d], position[n]});
    exec->owned.push_back(std::move(copy));
    GraphExec* raw = exec.release();
    rt.graph_execs.insert(raw);
    *out = reinterpret_cast<cudaGraphExec_t>(raw);
    return cudaSuccess;
}

cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t* out, cudaGraph_t graph,
                                          unsigned long long flags) {
    return cudaGraphInstantiate(out, graph, flags);
}

cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t* out, cudaGraph_t graph,
                                           cudaGraphInstantiateParams* params) {
    cudaError_t e = cudaGraphInstantiate(out, graph, params ? params->flags : 0);
    if (params) params->result_out = e ? cudaGraphInstantiateError : cudaGraphInstantiateSuccess;
    return e;
}

cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graph_exec) {
    CUDALAB_API("cudaGraphExecDestroy");
    GraphExec* e = exec_of(graph_exec);
    if (!e) return fail(cudaErrorInvalidValue);
    graph_memory_exec_destroyed(e);
    rt.graph_execs.erase(e);
    delete e;
    return cudaSuccess;
}

cudaError_t cudaGraphUpload(cudaGraphExec_t graph_exec, cudaStream_t) {
    return exec_of(graph_exec) ? cudaSuccess : fail(cudaErrorInvalidValue);
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t graph_exec, cudaStream_t stream) {
    CUDALAB_API("cudaGraphLaunch");
    GraphExec* e = exec_of(graph_exec);
    Stream* s = rt.stream(stream);
    if (!e) return fail(cudaErrorInvalidValue);
    if (!s) return fail(cudaErrorInvalidResourceHandle);
    if (cudaError_t g = device_gate()) return fail(g);
    if (s->capture_status == cudaStreamCaptureStatusActive) {
        // Launching a graph into a capture adds it as a child graph.
        Work w;
        w.kind = Work::Kind::child_graph;
        w.child = e->owned.front().get();
        return result(issue(s, std::move(w), "cudaGraphLaunch"));
    }
    if (!graph_memory_launch(e)) return fail(cudaErrorInvalidValue);
    conditional_defaults(*e);
    const double start = std::max(stream_ready(s), rt.issue_time() + rt.model.launch_latency * 1e9);
    s->tail = std::max(s->tail, start);
    // The race check orders each node after its dependencies only, not after the nodes that
    // happen to run before it here.
    std::vector<std::vector<std::size_t>> dependencies(e->order.size());
    for (const auto& [from, to] : e->edges)
        if (std::size_t(to) < dependencies.size())
            dependencies[std::size_t(to)].push_back(std::size_t(from));
    rt.ordering.begin_graph(s, e->id, e->order.size());
    for (std::size_t i = 0; i < e->order.size(); ++i) {
        // Each node's events name the graph and the node (its index in the launch's "nodes").
        rt.graph_exec_running = e->id;
        rt.graph_node_running = int(i);
        rt.ordering.begin_node(s, i, dependencies[i]);
        const int err = run_work(s, e->order[i], "cudaGraphLaunch", true);
        rt.ordering.end_node(s, i);
        rt.graph_exec_running = 0;
        rt.graph_node_running = -1;
        if (err) {
            rt.ordering.end_graph(s);
            return result(err);
        }
    }
    rt.ordering.end_graph(s);
    if (rt.timeline.enabled) {
        TimelineEvent t;
        t.name = "graph launch (" + std::to_string(e->order.size()) + " nodes)";
        t.category = "graph";
        // The DAG: each node's kind and name, and the edges between them (indices into "nodes"),
        // so that a viewer can draw it. Bounded: a huge graph keeps only its size.
        if (e->order.size() <= 512) {
            std::string nodes = "[", edges = "[";
            for (std::size_t i = 0; i < e->order.size(); ++i)
                nodes += (i ? "," : "") + json_string(work_label(e->order[i]));
            for (std::size_t i = 0; i < e->edges.size(); ++i)
                edges += (i ? ",[" : "[") + std::to_string(e->edges[i].first) + "," +
                         std::to_string(e->edges[i].second) + "]";
            t.args = {{"nodes", nodes + "]"}, {"edges", edges + "]"}};
        }
        t.process = 1 + s->device;
        t.thread = s->id;
        t.start_ns = start;
        t.end_ns = s->tail;
        t.args.push_back({"graph_exec", std::to_string(e->id)});
        t.args.push_back({"kernel_nodes", std::to_string(e->kernel_nodes)});
        rt.timeline.add(std::move(t));
    }
    rt.host_spend(rt.model.graph_launch_api_cost);
    return cudaSuccess;
}

cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t graph_exec, cudaStream_t stream) {
    return cudaGraphLaunch(graph_exec, stream ? stream : cudaStreamPerThread);
}

cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t graph_exec, cudaGraphNode_t node,
                                             const cudaKernelNodeParams* params) {
    CUDALAB_API("cudaGraphExecKernelNodeSetParams");
    GraphExec* e = exec_of(graph_exec);
    if (!e) return fail(cudaErrorInvalidValue);
    for (std::size_t i = 0; i < e->order.size(); ++i) {
        if (e->source_nodes[i] != node_of(node)) continue;
        Work w;
        if (cudaError_t err = kernel_work(params, &w)) return fail(err);
        if (w.kernel.function != e->order[i].kernel.function) {
            // A node's kernel may change only to one of the same module on the same device.
            if (w.kernel.function->module != e->order[i].kernel.function->module)
                return fail(cudaErrorInvalidValue);
        }
        e->order[i] = std::move(w);
        return cudaSuccess;
    }
    return fail(cudaErrorInvalidValue);
}

cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t graph_exec, cudaGraphNode_t node,
                                             const cudaMemsetParams* params) {
    CUDALAB_API("cudaGraphExecMemsetNodeSetParams");
    GraphExec* e = exec_of(graph_exec);
    if (!e || !params) return fail(cudaErrorInvalidValue);
    Work* w = exec_work(e, node);
    if (!w) return fail(cudaErrorInvalidValue);
    *w = memset_work(params);
    return cudaSuccess;
}

cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t graph_exec, cudaGraphNode_t node,
                                           const cudaHostNodeParams* params) {
    CUDALAB_API("cudaGraphExecHostNodeSetParams");
    GraphExec* e = exec_of(graph_exec);
    if (!e || !params) return fail(cudaErrorInvalidValue);
    Work* w = exec_work(e, node);
    if (!w) return fail(cudaErrorInvalidValue);
    w->host_fn = params->fn;
    w->host_data = params->userData;
    return cudaSuccess;
}

cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t graph_exec, cudaGraphNode_t node,
                                               void* dst, const void* src, size_t bytes,
                                               cudaMemcpyKind kind) {
    CUDALAB_API("cudaGraphExecMemcpyNodeSetParams1D");
    GraphExec* e = exec_of(graph_exec);
    if (!e) return fail(cudaErrorInvalidValue);
    Work* w = exec_work(e, node);
    if (!w) return fail(cudaErrorInvalidValue);
    Copy3D& c = w->copy;
    c = Copy3D{};
    c.dst = static_cast<std::uint8_t*>(dst);
    c.src = static_cast<const std::uint8_t*>(src);
    c.width = bytes;
    c.src_pitch = c.dst_pitch = bytes;
    c.kind = kind;
    return cudaSuccess;
}

// Whole-graph update: the new graph must have the same shape (node count, types and edges, in
// creation order); its nodes' parameters replace the instantiated ones.
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t graph_exec, cudaGraph_t graph,
                                cudaGraphExecUpdateResultInfo* info) {
    CUDALAB_API("cudaGraphExecUpdate");
    GraphExec* e = exec_of(graph_exec);
    Graph* g = graph_of(graph);
    if (info) *info = cudaGraphExecUpdateResultInfo{};
    if (!e || !g) return fail(cudaErrorInvalidValue);
    const Graph& old = *e->owned.front();
    auto reject = [&](cudaGraphExecUpdateResult why) {
        if (info) info->result = why;
        return fail(cudaErrorGraphExecUpdateFailure);
    };
    if (old.nodes.size() != g->nodes.size()) return reject(cudaGraphExecUpdateErrorTopologyChanged);
    std::map<const GraphNode*, std::size_t> index_old, index_new;
    for (std::size_t i = 0; i < old.nodes.size(); ++i) {
        index_old[old.nodes[i].get()] = i;
        index_new[g->nodes[i].get()] = i;
    }
    for (std::size_t i = 0; i < old.nodes.size(); ++i) {
        if (old.nodes[i]->type != g->nodes[i]->type)
            return reject(cudaGraphExecUpdateErrorNodeTypeChanged);
        std::vector<std::size_t> a, b;
        for (auto* d : old.nodes[i]->dependencies) a.push_back(index_old[d]);
        for (auto* d : g->nodes[i]->dependencies) b.push_back(index_new[d]);
        std::sort(a.begin(), a.end());
        std::sort(b.begin(), b.end());
        if (a != b) return reject(cudaGraphExecUpdateErrorTopologyChanged);
    }
    auto fresh = clone(*g);
    std::vector<GraphNode*> order;
    topological_order(*fresh, &order);
    std::map<GraphNode*, GraphNode*> original;
    for (std::size_t i = 0; i < g->nodes.size(); ++i)
        original[fresh->nodes[i].get()] = g->nodes[i].get();
    e->order.clear();
    e->source_nodes.clear();
    for (GraphNode* n : order) {
        e->order.push_back(n->work);
        e->source_nodes.push_back(original[n]);
    }
    e->owned.clear();
    e->owned.push_back(std::move(fresh));
    if (info) info->result = cudaGraphExecUpdateSuccess;
    return cudaSuccess;
}

}  // extern "C"
