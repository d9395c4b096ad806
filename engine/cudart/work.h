// Running stream work (work.cpp): kernels on the emulator, copies and sets, host functions and
// event operations, each placed on the modelled timeline; or, while its stream is being
// captured, added to the capture's graph instead.
#pragma once

#include <string>

#include "cudart/state.h"

namespace cudalab::cudart {

// Issues `work` to stream `s`: captured into a graph, or run now. Returns a cudaError_t (a
// launch's configuration errors; copies' argument errors). `api` names the call for messages.
int issue(Stream* s, Work work, const char* api);

// Runs work now on stream `s`. `in_graph`: part of a graph launch (smaller per-kernel overhead).
int run_work(Stream* s, const Work& work, const char* api, bool in_graph = false);

// Orders `s` after what it must wait for (the legacy default stream's rule) and returns the
// earliest modelled start of its next operation.
double stream_ready(Stream* s);

// The host waits for the stream / device (modelled), then device printf output is flushed.
void wait_stream(Stream* s);
void wait_device(int device);

// Records a finished operation on the stream and the timeline.
void place(Stream* s, double start, double end, const std::string& name, const char* category,
           std::vector<std::pair<std::string, std::string>> args = {});

// Puts the managed pages that changed home since the last call on the timeline (the page map's
// row of `device`), between `start` and `end`; `cause` says why ("kernel touch", "host touch",
// "prefetch"). Nothing when the timeline is off.
void record_page_moves(Runtime& rt, int device, double start, double end, const char* cause);

// The display name of a kernel: "add(float const*, float const*, float*, int)" -> "add".
std::string kernel_display_name(const std::string& entry);

// The most device printf output one launch keeps (it is held in memory until the next
// synchronising call), whatever cudaLimitPrintfFifoSize says; a GPU's default is 1 MB.
inline constexpr std::uint64_t max_printf_fifo_bytes = 64ull << 20;

// cudaError_t for an emulator fault message.
int error_for_fault(const std::string& message);

// cudaFreeAsync's work, when its stream reaches it (now, or a graph's free node): back to its
// pool, or cudaFree for cudaMalloc'd memory; graph memory is kept. Returns a cudaError_t.
int stream_ordered_free(void* ptr, const char* api);

// Graph memory (api_memory.cpp): the memory of an allocation node, reserved when the node is made
// (captured or added) and the graph's for good; whether a launch has allocated it and nothing has
// freed it since.
cudaError_t graph_allocate(void** ptr, std::uint64_t bytes, const char* api);
bool is_graph_memory(const void* ptr);
bool graph_memory_allocated(const void* ptr);
void graph_memory_allocates(const void* ptr);

// At a synchronisation (stream, event, device): every memory pool gives the device back what it
// holds above its release threshold (cudaMemPoolAttrReleaseThreshold).
void trim_pools();

// A conditional node's work (api_graph_nodes.cpp): reads its handle's value and runs the body
// it selects (IF, SWITCH), or its body while the value is not zero (WHILE).
int run_conditional(Stream* s, const Work& w, const char* api);

// The nodes a graph launch runs, in dependency order (false: the graph has a cycle).
bool topological_order(const Graph& g, std::vector<GraphNode*>* order);

// The work a stream callback becomes (api_stream.cpp): calls the program's callback with the
// stream and its status.
void run_stream_callback(void* callback_data);

}  // namespace cudalab::cudart
