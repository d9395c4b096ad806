// What the graph translation units share: api_graph.cpp (building, instantiating and launching
// graphs) and api_graph_nodes.cpp (memory nodes, conditional nodes, cudaGraphAddNode).
#pragma once

#include <cuda_runtime_api.h>

#include <memory>

#include "cudart/state.h"

namespace cudalab::cudart {

// A graph the program may add nodes to (one it created, or a conditional node's body), or null.
Graph* graph_of(cudaGraph_t g);
GraphNode* node_of(cudaGraphNode_t n);
// The node a handle names when it is a node of a live graph the program may use, else null.
GraphNode* known_node(cudaGraphNode_t n);
// A deep copy: nodes, edges, child graphs and conditional bodies.
std::unique_ptr<Graph> clone(const Graph& g);
// Adds a node of `type` doing `work` after `deps` (all of `graph`).
cudaError_t add_node(cudaGraphNode_t* out, cudaGraph_t graph, const cudaGraphNode_t* deps,
                     size_t count, int type, Work work);

// Conditional nodes' body graphs belong to their node, not to the program's list of graphs, yet
// the program adds nodes to them.
void register_body_graph(Graph* body);
bool is_body_graph(const Graph* g);

// Graph memory (api_graph_nodes.cpp): what instantiated graphs hold, for
// cudaDeviceGetGraphMemAttribute. Called when an executable graph is launched (false, with the
// reason said, when one of its allocations is still allocated from an earlier launch: CUDA refuses
// such a launch with cudaErrorInvalidValue) and when it is destroyed.
bool graph_memory_launch(GraphExec* exec);
void graph_memory_exec_destroyed(GraphExec* exec);
// Conditional handles created with cudaGraphCondAssignDefault take their default value at the
// start of each launch of a graph that uses them.
void conditional_defaults(const GraphExec& exec);

}  // namespace cudalab::cudart
