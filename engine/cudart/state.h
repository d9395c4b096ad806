// The emulated CUDA runtime's state: devices, the program's modules, kernels and variables,
// allocations, streams, events, graphs, errors and the modelled clock. One instance per process
// (a CUDA context per emulated device, all in one unified address space).
//
// Work runs when it is issued (kernels on the emulator, copies at once), in issue order, which is
// a valid order for every CUDA program that does not wait on the host for work issued later. The
// *time* each operation takes on a GPU is modelled separately (work.cpp): streams, copy
// engines, the legacy default stream and pinned versus pageable memory decide when each
// operation would start and end; events, cudaEventElapsedTime, cudaStreamQuery and the timeline
// read that modelled clock.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "cudart/device_model.h"
#include "cudart/fatbin.h"
#include "cudart/ordering.h"
#include "cudart/provenance.h"
#include "cudart/runtime_mutex.h"
#include "cudart/timeline.h"
#include "emulator/emulator.h"

namespace cudalab::cudart {

// The return addresses of a call into the runtime: cheap to take (backtrace), turned into
// file:line (addr2line) only when a message needs it.
struct CallStack {
    void* frames[12] = {};
    int depth = 0;
    static CallStack here();
};

// [SECTION] Program: modules, kernels, variables --------------------------------------------------

struct Module {
    FatbinContents images;
    std::string ptx;          // the image chosen to run
    std::string source_path;  // the first .file of the PTX: names lines in fault messages
    std::string load_error;   // set when no image can run
    bool no_image = false;  // ...because none is for this device (cudaErrorNoKernelImageForDevice)
    std::vector<std::unique_ptr<emu::Emulator>> per_device;  // loaded on first use per device
    bool from_driver_api = false;
    // __managed__ variables by PTX name: their managed memory, one for every device's copy of the
    // module (place_managed_variable, api_memory.cpp).
    std::map<std::string, std::uint64_t> managed_variables;
};

struct Function {
    Module* module = nullptr;
    std::string entry;  // PTX entry name (mangled)
    const void* host_function = nullptr;
    // cudaFuncAttributeMaxDynamicSharedMemorySize
    int max_dynamic_shared = int(hw::default_shared_per_block);
    int preferred_carveout = -1;
    int cache_config = 0;
    // Thread block clusters (api_cluster.cpp): cudaFuncAttributeNonPortableClusterSizeAllowed,
    // cudaFuncAttributeRequiredClusterWidth/Height/Depth (set at run time; __cluster_dims__ is in
    // the PTX) and cudaFuncAttributeClusterSchedulingPolicyPreference, as the program set them.
    int non_portable_cluster = 0;
    int required_cluster[3] = {0, 0, 0};
    int cluster_policy = 0;
    int traced_launches = 0;  // the timing model's samples (work.cpp)
    double bytes_per_warp_instruction = 0;
    double replays_per_warp_instruction = 0;  // shared-memory bank-conflict replays
    // What the kernel did, for CUDALAB_RESULT's "kernels": every launch's warp instructions, and
    // the memory counters of its traced launches (the first ones; see run_kernel).
    std::uint64_t launches = 0, warp_instructions = 0;
    std::uint64_t traced_warp_instructions = 0;
    std::uint64_t global_load_requests = 0, global_load_sectors = 0;
    std::uint64_t constant_loads = 0, constant_requests = 0;
};

struct Variable {
    Module* module = nullptr;
    std::string name;  // PTX name
    std::size_t size = 0;
    bool constant = false;
    bool managed = false;
    void** managed_host_pointer = nullptr;  // __managed__: the host's pointer to fill in
};

// [SECTION] Memory
// ---------------------------------------------------------------------------------

enum class MemoryKind { device, pinned_host, registered_host, managed, pool };

struct MemoryRecord {
    MemoryKind kind = MemoryKind::device;
    int device = 0;
    std::uint64_t base = 0;
    std::uint64_t size = 0;
    unsigned flags = 0;
    bool mapped = false;           // reachable by kernels at `base`
    bool module_variable = false;  // a __managed__ variable's memory: the module's, not freed
    CallStack allocated_at;        // where the program allocated it (resolved only for messages)
    // Managed memory: one byte per page, where the page is now (0 host, 1 device).
    std::vector<std::uint8_t> page_on_device;
};

// [SECTION] Streams, events, graphs ---------------------------------------------------------------

struct Graph;
struct GraphNode;

struct Stream {
    int id = 0;  // for the timeline: 0 is the legacy default stream of its device
    int device = 0;
    unsigned flags = 0;  // cudaStreamNonBlocking
    int priority = 0;
    bool legacy = false;
    bool per_thread = false;
    double tail = 0;  // modelled time when the last operation issued to it ends (ns)
    // Stream capture.
    int capture_status = 0;  // cudaStreamCaptureStatus
    int capture_mode = 0;
    Graph* capture_graph = nullptr;
    bool capture_owns_graph = false;
    std::vector<GraphNode*> capture_frontier;
    unsigned long long capture_id = 0;
    std::map<int, cudaLaunchAttributeValue> attributes;  // cudaStreamSetAttribute, kept as given
    // The race check (ordering.h): what the stream's work so far is ordered after, the stream's
    // agent (-1: none yet), and the graph node its work belongs to while a graph launch runs.
    Clock order;
    std::int32_t agent = -1, agent_override = -1;
};

struct Event {
    int device = 0;
    unsigned flags = 0;
    bool recorded = false;
    double time = 0;  // modelled ns when the work before it completed
    // Recorded into a capture: a wait on it joins the capture at these nodes.
    Stream* capture_stream = nullptr;
    std::vector<GraphNode*> capture_nodes;
    Clock order;  // the work it was recorded after (ordering.h)
};

// One piece of stream work, run now or kept in a graph and run at each launch.
struct Copy3D {
    // Row-major boxes: `width` bytes x `height` rows x `depth` slices, with pitches.
    const std::uint8_t* src = nullptr;
    std::uint8_t* dst = nullptr;
    std::uint64_t width = 0, height = 1, depth = 1;
    std::uint64_t src_pitch = 0, src_slice = 0;
    std::uint64_t dst_pitch = 0, dst_slice = 0;
    int kind = 4;                          // cudaMemcpyKind (4: default, inferred)
    int src_device = -1, dst_device = -1;  // cudaMemcpyPeer: the devices named
};

struct Set3D {
    std::uint8_t* dst = nullptr;
    std::uint32_t value = 0;
    unsigned element = 1;  // bytes per element (1 for cudaMemset, 1/2/4 for cuMemsetD*)
    std::uint64_t width = 0, height = 1, depth = 1;  // width in elements
    std::uint64_t pitch = 0, slice = 0;
};

struct KernelWork {
    Function* function = nullptr;
    LaunchConfig config;
    std::vector<KernelArg> args;
    bool cooperative = false;
};

struct Work {
    enum class Kind {
        kernel,
        copy,
        set,
        host,
        event_record,
        event_wait,
        child_graph,
        empty,
        alloc,
        free,
        prefetch,
        conditional
    };
    Kind kind = Kind::empty;
    KernelWork kernel;
    Copy3D copy;
    Set3D set;
    void (*host_fn)(void*) = nullptr;
    void* host_data = nullptr;
    Event* event = nullptr;
    Graph* child = nullptr;
    std::uint64_t bytes = 0;  // alloc: size; prefetch: size
    void* pointer = nullptr;  // alloc: out; free / prefetch: the memory
    void** alloc_out = nullptr;
    int target_device = 0;  // prefetch; alloc: the device of the allocation
    // A conditional node (api_graph_nodes.cpp): the handle (the device address of the value
    // cudaGraphSetConditional writes), cudaGraphConditionalNodeType, and the body graphs.
    std::uint64_t condition = 0;
    int condition_type = 0;
    std::vector<Graph*> bodies;
    // Where the program made it, when it became a graph's node (captured or added): the race
    // check names that line rather than the graph's launch.
    CallStack made_at;
};

struct GraphNode {
    Graph* owner = nullptr;
    int type = 0;  // cudaGraphNodeType
    Work work;
    std::vector<GraphNode*> dependencies;
    std::unique_ptr<Graph> child_copy;           // child-graph nodes own a copy of the child
    std::vector<std::unique_ptr<Graph>> bodies;  // a conditional node's body graphs
    // A kernel node's arguments as cudaGraphKernelNodeGetParams hands them out: the pointer array
    // and the values, in memory the program reads (program_link.h share()).
    void* params_view = nullptr;
    std::uint64_t params_view_bytes = 0;
};

struct Graph {
    std::vector<std::unique_ptr<GraphNode>> nodes;
    Graph() = default;
    Graph(const Graph&) = delete;
    Graph& operator=(const Graph&) = delete;
    ~Graph();  // a conditional node's body leaves the list of graphs nodes may be added to
};

struct GraphExec {
    int id = 0;                    // numbered from 1 as instantiated: the timeline's "graph_exec"
    unsigned long long flags = 0;  // cudaGraphInstantiateFlags
    std::vector<Work> order;       // nodes in a topological order
    std::vector<GraphNode*> source_nodes;  // order[i] came from source_nodes[i] (for updates)
    int kernel_nodes = 0;
    std::vector<std::pair<int, int>>
        edges;  // (from, to) as indices into `order`: the DAG, for the timeline
    std::vector<std::unique_ptr<Graph>> owned;  // children the works point to
};

// [SECTION] The runtime
// ----------------------------------------------------------------------------

struct DeviceState {
    int ordinal = 0;
    std::vector<std::unique_ptr<Stream>> streams;  // [0] is the legacy default stream
    double engine_free[4] = {0, 0, 0, 0};          // modelled: compute, copy H2D, D2H, D2D (ns)
    // Modelled: when this device's NVLink is free to send and to receive (ns). A peer copy holds
    // the sender's and the receiver's, so four devices sending to one take turns at its link.
    double nvlink_send_free = 0, nvlink_receive_free = 0;
    int sticky_error = 0;  // a fault: returned by every call from the next synchronisation on
    bool sticky_reported = false;
    std::string sticky_message;
    std::set<int> peers;  // peer access enabled to these devices
    std::uint64_t malloc_heap = 8ull << 20;
    std::uint64_t stack_size = 1024;
    std::uint64_t printf_fifo = 1ull << 20;
    // Dynamic parallelism's limits (cudaLimitDevRuntimePendingLaunchCount, documented default
    // 2048: the emulator fails a launch past it; cudaLimitDevRuntimeSyncDepth, default 2: kept
    // for cudaDeviceGetLimit, as CUDA 12 has no device-side synchronisation for it to bound).
    std::uint64_t pending_launch_count = 2048;
    std::uint64_t sync_depth = 2;
    unsigned flags = 0;
    bool initialised = false;
};

// CUDALAB_INJECT: faults the runtime makes happen on purpose, so that a program's error handling
// can be tested (lesson 16). "malloc:N" fails the Nth cudaMalloc with cudaErrorMemoryAllocation,
// "launch-config:N" refuses the Nth kernel launch as an invalid configuration
// (cudaErrorInvalidValue, as CUDA 13 reports it), "illegal-address:N" makes the Nth kernel launch
// fault as if it had read an unmapped address (cudaErrorIllegalAddress, sticky). Several,
// comma-separated.
struct Injection {
    std::string fault;     // "malloc", "launch-config", "illegal-address"
    std::uint64_t at = 0;  // the call (counting from 1) that fails
    bool fired = false;
};

class Runtime {
  public:
    static Runtime& get();

    RuntimeMutex mutex;  // one call at a time: the runtime is used from any host thread
    const DeviceModel& model;
    int device_count = 1;
    int driver_version = 13000;            // CUDA_VERSION-style: 13000 is 13.0
    std::uint64_t instruction_budget = 0;  // 0: the emulator's default
    std::uint64_t memory_limit = 0;        // bytes the emulator may use in all
    // CUDALAB_TRACE: the file that receives a launch's full trace (for cudalab gui --trace): the
    // last launch's, or launch number CUDALAB_TRACE_LAUNCH (1-based), or the first that faulted.
    std::string trace_path;
    std::uint64_t trace_launch = 0;
    std::uint64_t launches = 0;
    bool trace_kept = false;
    bool detect_races = false;
    std::vector<Injection> injections;  // CUDALAB_INJECT
    std::uint64_t malloc_calls = 0;     // cudaMalloc calls so far (for malloc:N)
    // kernels run so far, graphs' included (for launch-config:N, illegal-address:N)
    std::uint64_t kernel_launches = 0;
    // cuModuleLoadData(Ex) calls that loaded a module (result file)
    std::uint64_t driver_module_loads = 0;
    // The injection of `fault` due at call `count`, marked fired; null when none.
    Injection* inject(const char* fault, std::uint64_t count);
    std::shared_ptr<emu::DeviceMemory> memory;  // one unified address space for all devices
    std::vector<DeviceState> devices;

    std::vector<std::unique_ptr<Module>> modules;
    std::map<const void*, std::unique_ptr<Function>> functions;  // by host stub address
    std::map<const void*, std::unique_ptr<Variable>> variables;  // by host shadow address
    std::map<std::uint64_t, MemoryRecord> allocations;           // by base
    std::set<Stream*> streams;  // created by the program (not the default ones)
    std::set<Event*> events;
    std::set<Graph*> graphs;
    std::set<GraphExec*> graph_execs;
    Timeline timeline;
    // Races between streams (ordering.h); CUDALAB_STREAM_RACES=0 turns the check off.
    Ordering ordering;
    Provenance provenance;  // what came back from the device, and whether a kernel made it

    // Per host thread.
    int& current_device();
    int& last_error();
    Stream* per_thread_stream(int device);

    // A device's emulator for a module (loaded on first use). Null with `error` set when the
    // module cannot run.
    emu::Emulator* emulator_for(Module& module, int device, std::string* error);

    // Streams: handle -> object (0 and cudaStreamLegacy: the legacy stream of the current
    // device; cudaStreamPerThread: this thread's). Null for an unknown handle.
    Stream* stream(void* handle);
    Stream* legacy_stream(int device) { return devices[std::size_t(device)].streams[0].get(); }

    // Memory lookups.
    const MemoryRecord* record_of(const void* pointer) const;  // the allocation holding it
    bool is_device_pointer(const void* pointer) const;         // reachable device memory

    // The modelled host clock (ns): wall time minus time spent emulating, plus waits.
    double host_now() const;
    void host_advance_to(double t);   // the host blocked until t
    void host_spend(double seconds);  // a call's modelled host cost
    // The host's clock is modelled, never measured: it moves by each call's modelled cost and
    // when the host waits for the device, so every figure is the same for the same program on any
    // machine at any load. The host's own work between calls takes no modelled time.
    // CUDALAB_HOST_CLOCK=free: not even the calls' costs (the host issues work in no time; lesson
    // 20); =measured: the real time between calls counts too (figures then depend on
    // the machine and its load).
    bool free_host = false;
    bool measured_host = false;
    // Wall-clock ns since the runtime started: the host time a learner's program really took,
    // shown beside the modelled one on the timeline (labelled measured).
    double measured_ns() const;
    void add_emulation_time(double seconds) { emulation_ns_ += seconds * 1e9; }
    // The modelled host time at which the current API call issues its work: taken when the call
    // starts, so the real time cudalab spends inside the call does not delay the work it issues.
    double call_time = 0;
    // (Work the device thread runs later keeps the time of the call that issued it: executor.h.)
    double issue_time() const;
    double call_wall_start = 0;  // wall ns when the outermost call in progress began (0: none)

    // Settles a fault so that later calls report it (CUDA's sticky errors).
    void set_sticky(int device, int error, const std::string& message);
    // The sticky error the next call on `device` must return, or 0.
    int sticky(int device) const { return devices[std::size_t(device)].sticky_error; }

    // Messages on stderr, each said once.
    void say_once(const std::string& key, const std::string& message);
    void warn(const std::string& message);
    // What the device thread said while it ran queued work (executor.h), held for the next call
    // that waits for it: said then, in the program's output at the point it synchronised.
    void say_held();

    // Device printf output waits for the next synchronising call, as on a GPU.
    std::string pending_printf;
    void flush_printf();

    int next_stream_id = 1;
    // While a graph launch runs its nodes: which graph (GraphExec::id) and node (its index in
    // the launch event's "nodes"); place() tags the work's timeline events with them.
    int graph_exec_running = 0, graph_node_running = -1;
    int next_graph_exec_id = 1;
    // Device memory, for CUDALAB_RESULT's "memory": the most live at once (cudaMalloc'd and pool
    // memory, every device), how often a pool had to take more from the device (a new
    // reservation: cudaMallocAsync found no free block in its pool) and how many bytes, and the
    // allocations made by allocation nodes of captured graphs.
    std::uint64_t peak_device_bytes = 0;
    std::uint64_t pool_reservations = 0, pool_reserved_bytes = 0;
    std::uint64_t graph_allocations = 0;
    ~Runtime();

  private:
    Runtime();
    double start_ns_ = 0;
    double emulation_ns_ = 0;
    double waited_ns_ = 0;
    double spent_ns_ = 0;  // the calls' modelled costs
    int owner_pid_ = 0;
    std::set<std::string> said_;
    std::string held_;  // say_held()
};

// The source site of the program's call into the runtime ("main.cu:12"), when the executable
// has line information (cudalab build adds -g); else the function name, else empty.
std::string caller_site();
// Reads which files the program has mapped now, so that a stack can still be named after it
// has gone (the device process, at its first call).
void remember_program_files();
std::string site_of(const CallStack& stack);

}  // namespace cudalab::cudart
