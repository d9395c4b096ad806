// cudalab-device: the device process. It holds the emulated GPUs (the runtime of this folder) and
// serves one program's CUDA calls over the connections of the device protocol
// (engine/device/protocol.h). Started by `cudalab run` (outside the program's sandbox, with the
// settings in its own environment and the record files' paths) or by the program's CUDA library
// when a program is run directly.
//
//   cudalab-device FD     serve the program at the other end of socket FD
//
// Every argument the program passes is an address or a value in another process: the dispatch
// below copies what a call reads into this process and what it writes back (program_memory.h),
// and the few calls whose pointers mean something else (a kernel's argument array, a fat binary,
// an array with its count) have handlers of their own.
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "cudart/executor.h"
#include "cudart/managed.h"
#include "cudart/program_link.h"
#include "cudart/program_memory.h"
#include "cudart/state.h"
#include "device/protocol.h"

// The table names every entry point, deprecated ones too (CUDA still exports them).
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

// The entry points, declared again from the calls table: a line that disagrees with the CUDA
// headers (or with the runtime's definition, for the internal ones) does not compile.
#define CALL(ret, name, params, args) extern "C" ret name params;
#include "device/calls.inc"
#undef CALL

namespace cudalab::cudart {
namespace {

using device::Frame;
using device::Message;
using device::Reader;

// [SECTION] Connections -----------------------------------------------------------------------

struct Connection {
    int socket = -1;
    CallStack stack;  // the program's, for the call in progress
    bool in_call = false;
};

thread_local Connection* current = nullptr;

std::mutex connections_mutex;
std::condition_variable connections_changed;
int open_connections = 0;
std::atomic<bool> unloading{false};  // the program has begun to exit (Frame::shutdown)
// The program's thread for host functions (Frame::host_functions), used by the device thread
// alone once handed over; null until then (and in a program that never made one).
Connection* host_function_channel = nullptr;

// Waits for the client's answer to something sent mid-call (a host function, a mapping),
// serving any call the client makes meanwhile (a host function that calls CUDA, which CUDA
// forbids but a program may do). Returns the answer's status word.
std::uint32_t await_answer(Connection& c);

std::uint64_t serve_call(Connection& c, Message& m);

// [SECTION] The dispatch ---------------------------------------------------------------------

// What the client sent for an argument of type T: its bytes.
template <class T> T decode(Reader& r) {
    T v{};
    r.take(&v, sizeof v);
    return v;
}

template <class T, class = void> struct is_complete : std::false_type {};
template <class T> struct is_complete<T, std::void_t<decltype(sizeof(T))>> : std::true_type {};

template <class T>
constexpr bool mirrored = !std::is_void_v<T> && !std::is_function_v<T> && is_complete<T>::value &&
                          !std::is_same_v<std::remove_cv_t<T>, char>;

// An argument as the implementation receives it. By default a value is passed as it came.
template <class T, class = void> struct Adapt {
    T value;
    Adapt(T raw, bool) : value(raw) {}
    T get() { return value; }
    bool ok() const { return true; }
    void finish() {}
};

// A pointer to one object (an out-parameter, a struct passed by address): the object is copied
// in, and back out when the implementation may have written it.
template <class T> struct Adapt<T*, std::enable_if_t<mirrored<T>>> {
    T* raw;
    std::remove_const_t<T> local{};
    bool pass_raw, good = true;
    Adapt(T* r, bool as_is) : raw(r), pass_raw(as_is) {
        if (raw && !pass_raw) good = program::read(raw, &local, sizeof local);
    }
    T* get() { return pass_raw || !raw ? raw : &local; }
    bool ok() const { return good; }
    void finish() {
        if constexpr (!std::is_const_v<T>)
            if (raw && !pass_raw) program::write(raw, &local, sizeof local);
    }
};

// A string (a kernel's name, a path).
template <class C> struct Adapt<C*, std::enable_if_t<std::is_same_v<std::remove_cv_t<C>, char>>> {
    C* raw;
    std::string local;
    bool pass_raw, good = true;
    Adapt(C* r, bool as_is) : raw(r), pass_raw(as_is) {
        if (raw && !pass_raw) good = program::read_string(raw, &local);
    }
    C* get() { return pass_raw || !raw ? raw : const_cast<C*>(local.c_str()); }
    bool ok() const { return good; }
    void finish() {}
};

template <class R> std::uint64_t encode(R r) {
    std::uint64_t v = 0;
    static_assert(sizeof(R) <= sizeof v);
    std::memcpy(&v, &r, sizeof r);
    return v;
}

// cudaErrorInvalidValue and CUDA_ERROR_INVALID_VALUE are both 1: what a call answers when an
// address it must read is not the program's.
template <class R> std::uint64_t bad_pointer() {
    if constexpr (std::is_void_v<R>) return 0;
    else return 1;
}

template <auto F, std::uint64_t Raw> struct Dispatch;

template <class R, class... A, R (*F)(A...), std::uint64_t Raw> struct Dispatch<F, Raw> {
    static std::uint64_t call(Reader& r) {
        std::tuple<A...> raw{decode<A>(r)...};
        if (r.short_read) return bad_pointer<R>();
        return invoke(raw, std::index_sequence_for<A...>{});
    }
    template <std::size_t... I>
    static std::uint64_t invoke(std::tuple<A...>& raw, std::index_sequence<I...>) {
        std::tuple<Adapt<A>...> in{Adapt<A>(std::get<I>(raw), ((Raw >> I) & 1) != 0)...};
        if (!(std::get<I>(in).ok() && ... && true)) return bad_pointer<R>();
        if constexpr (std::is_void_v<R>) {
            F(std::get<I>(in).get()...);
            (std::get<I>(in).finish(), ...);
            return 0;
        } else {
            R result = F(std::get<I>(in).get()...);
            (std::get<I>(in).finish(), ...);
            return encode(result);
        }
    }
};

template <class R, class... A, R (*F)(A...) noexcept, std::uint64_t Raw>
struct Dispatch<F, Raw> : Dispatch<(R(*)(A...))F, Raw> {};

constexpr std::uint64_t bit(int i) { return std::uint64_t(1) << i; }

// Arguments passed as they came because the implementation reads them itself: a kernel's array
// of argument addresses (read with the kernel's parameter sizes), a fat binary, memory a call
// hands on untouched.
constexpr std::uint64_t raw_arguments(std::string_view name) {
    if (name == "cudaLaunchKernel" || name == "cudaLaunchKernel_ptsz" ||
        name == "cudaLaunchCooperativeKernel" || name == "cudaLaunchCooperativeKernel_ptsz" ||
        name == "__cudaLaunchKernel" || name == "__cudaLaunchKernel_ptsz")
        return bit(3);
    if (name == "cudaLaunchKernelExC" || name == "cudaLaunchKernelExC_ptsz") return bit(2);
    if (name == "cuLaunchKernel" || name == "cuLaunchKernel_ptsz") return bit(9) | bit(10);
    if (name == "cuLaunchCooperativeKernel") return bit(9);
    if (name == "cuLaunchKernelEx") return bit(2) | bit(3);
    // Handles and keys, not objects to copy: a module handle, a registered variable's address,
    // the managed variable's host pointer (written when it is placed).
    if (name == "__cudaRegisterFatBinaryEnd" || name == "__cudaUnregisterFatBinary" ||
        name == "__cudaInitModule")
        return bit(0);
    if (name == "__cudaRegisterFunction")
        return bit(0) | bit(1) | bit(5) | bit(6) | bit(7) | bit(8) | bit(9);
    if (name == "__cudaRegisterVar") return bit(0) | bit(1);
    if (name == "__cudaRegisterManagedVar") return bit(0) | bit(1);
    if (name == "__cudaRegisterHostVar") return bit(0) | bit(2);
    if (name == "__cudaRegisterTexture" || name == "__cudaRegisterSurface") return ~0ull;
    if (name == "cuModuleLoadDataEx") return bit(3) | bit(4);
    // The library API's option arrays (not used).
    if (name == "cuLibraryLoadData" || name == "cudaLibraryLoadData" ||
        name == "cuLibraryLoadFromFile" || name == "cudaLibraryLoadFromFile")
        return bit(2) | bit(3) | bit(5) | bit(6);
    if (name == "cuLinkAddData" || name == "cuLinkAddFile") return ~0ull;
    if (name == "cuLinkCreate") return bit(1) | bit(2);
    return 0;
}

using Handler = std::uint64_t (*)(Reader&);

struct Entry {
    const char* name;
    Handler handler;
    bool may_queue = false;  // Executor::may_queue(name), asked once
};

// [SECTION] Handlers of their own ------------------------------------------------------------

// An array the program passes with its count: copied in whole.
template <class T> struct ArrayIn {
    std::vector<T> local;
    bool good = true;
    ArrayIn(const T* raw, std::size_t count) {
        if (!raw || !count) return;
        if (count > (1u << 24)) {
            good = false;
            return;
        }
        local.resize(count);
        good = program::read(raw, local.data(), count * sizeof(T));
    }
    const T* get(const T* raw) { return raw && !local.empty() ? local.data() : raw; }
};

// cudaGraphAdd*Node(node*, graph, deps, count, ...): the dependencies are an array.
template <class... Rest>
std::uint64_t add_node(Reader& r, cudaError_t (*f)(cudaGraphNode_t*, cudaGraph_t,
                                                   const cudaGraphNode_t*, size_t, Rest...)) {
    auto* node = decode<cudaGraphNode_t*>(r);
    auto graph = decode<cudaGraph_t>(r);
    auto* deps = decode<const cudaGraphNode_t*>(r);
    auto count = decode<size_t>(r);
    std::tuple<Rest...> rest{decode<Rest>(r)...};
    ArrayIn<cudaGraphNode_t> d(deps, count);
    if (!d.good) return 1;
    Adapt<cudaGraphNode_t*> out(node, false);
    if (!out.ok()) return 1;
    return std::apply(
        [&](auto... more) {
            // The trailing arguments are values or single structs, adapted as usual.
            return [&]<std::size_t... I>(std::index_sequence<I...>) {
                std::tuple<Adapt<Rest>...> ad{Adapt<Rest>(more, false)...};
                if (!(std::get<I>(ad).ok() && ... && true)) return std::uint64_t(1);
                const cudaError_t e =
                    f(out.get(), graph, d.get(deps), count, std::get<I>(ad).get()...);
                out.finish();
                (std::get<I>(ad).finish(), ...);
                return encode(e);
            }
            (std::index_sequence_for<Rest...>{});
        },
        rest);
}

// cudaGraphGetNodes(graph, nodes, count*) and the like: *count in, the array out.
std::uint64_t list_out(Reader& r, cudaError_t (*f)(cudaGraph_t, cudaGraphNode_t*, size_t*)) {
    auto graph = decode<cudaGraph_t>(r);
    auto* nodes = decode<cudaGraphNode_t*>(r);
    auto* count = decode<size_t*>(r);
    size_t n = 0;
    if (!count || !program::read_value(count, &n) || n > (1u << 24))
        return encode(cudaErrorInvalidValue);
    const size_t capacity = n;
    std::vector<cudaGraphNode_t> local(capacity);
    const cudaError_t e = f(graph, nodes ? local.data() : nullptr, &n);
    program::write(count, &n, sizeof n);
    if (e == cudaSuccess && nodes)
        program::write(nodes, local.data(), std::min(n, capacity) * sizeof(cudaGraphNode_t));
    return encode(e);
}

// A buffer of `len` characters the call fills (a name, a PCI bus id).
std::uint64_t chars_out(Reader& r, std::uint64_t (*call)(char*, int, Reader&)) {
    auto* buffer = decode<char*>(r);
    const int len = decode<int>(r);
    if (!buffer || len <= 0 || len > (1 << 20)) return call(nullptr, len, r);
    std::vector<char> local(std::size_t(len), 0);
    const std::uint64_t e = call(local.data(), len, r);
    program::write(buffer, local.data(), local.size());
    return e;
}

// An attribute's value, of a size that depends on the attribute: the bytes the runtime wrote,
// found by asking twice over two different fillings (it answers from its state, without effects).
std::size_t attribute_bytes_written(const std::function<CUresult(void*)>& ask) {
    std::uint8_t a[64], b[64];
    std::memset(a, 0xa5, sizeof a);
    std::memset(b, 0x5a, sizeof b);
    ask(a);
    ask(b);
    std::size_t n = 0;
    for (std::size_t i = 0; i < sizeof a; ++i)
        if (a[i] != 0xa5 || b[i] != 0x5a) n = i + 1;
    return n;
}

std::uint64_t handle_cuPointerGetAttribute(Reader& r) {
    auto* data = decode<void*>(r);
    auto attr = decode<CUpointer_attribute>(r);
    auto ptr = decode<CUdeviceptr>(r);
    std::uint8_t local[64] = {};
    const CUresult e = cuPointerGetAttribute(data ? local : nullptr, attr, ptr);
    if (data && e == CUDA_SUCCESS) {
        const std::size_t n =
            attribute_bytes_written([&](void* to) { return cuPointerGetAttribute(to, attr, ptr); });
        program::write(data, local, n);
    }
    return encode(e);
}

std::uint64_t handle_cuPointerGetAttributes(Reader& r) {
    auto count = decode<unsigned>(r);
    auto* attrs = decode<CUpointer_attribute*>(r);
    auto** data = decode<void**>(r);
    auto ptr = decode<CUdeviceptr>(r);
    if (count > 64) return encode(CUDA_ERROR_INVALID_VALUE);
    ArrayIn<CUpointer_attribute> a(attrs, count);
    ArrayIn<void*> d(data, count);
    if (!a.good || !d.good) return encode(CUDA_ERROR_INVALID_VALUE);
    std::vector<std::array<std::uint8_t, 64>> local(count);
    std::vector<void*> slots(count);
    for (unsigned i = 0; i < count; ++i) slots[i] = local[i].data();
    const CUresult e = cuPointerGetAttributes(count, const_cast<CUpointer_attribute*>(a.get(attrs)),
                                              count ? slots.data() : data, ptr);
    if (e == CUDA_SUCCESS)
        for (unsigned i = 0; i < count; ++i)
            if (d.local[i]) {
                const CUpointer_attribute one = a.local[i];
                CUpointer_attribute single = one;
                const std::size_t n = attribute_bytes_written(
                    [&](void* to) { return cuPointerGetAttributes(1, &single, &to, ptr); });
                program::write(d.local[i], local[i].data(), n);
            }
    return encode(e);
}

std::uint64_t handle_cuPointerSetAttribute(Reader& r) {
    auto* value = decode<const void*>(r);
    auto attr = decode<CUpointer_attribute>(r);
    auto ptr = decode<CUdeviceptr>(r);
    // Only CU_POINTER_ATTRIBUTE_SYNC_MEMOPS can be set: an unsigned int.
    unsigned local = 0;
    if (value && !program::read(value, &local, sizeof local))
        return encode(CUDA_ERROR_INVALID_VALUE);
    return encode(cuPointerSetAttribute(value ? &local : nullptr, attr, ptr));
}

std::size_t pool_attribute_bytes(cudaMemPoolAttr a) {
    switch (a) {
    case cudaMemPoolReuseFollowEventDependencies:
    case cudaMemPoolReuseAllowOpportunistic:
    case cudaMemPoolReuseAllowInternalDependencies: return 4;
    default: return 8;
    }
}

std::uint64_t handle_pool_attribute(Reader& r, bool set) {
    auto pool = decode<cudaMemPool_t>(r);
    auto attr = decode<cudaMemPoolAttr>(r);
    auto* value = decode<void*>(r);
    std::uint8_t local[16] = {};
    const std::size_t n = pool_attribute_bytes(attr);
    if (value && set && !program::read(value, local, n)) return encode(cudaErrorInvalidValue);
    const cudaError_t e = set ? cudaMemPoolSetAttribute(pool, attr, value ? local : nullptr)
                              : cudaMemPoolGetAttribute(pool, attr, value ? local : nullptr);
    if (!set && value && e == cudaSuccess) program::write(value, local, n);
    return encode(e);
}

std::uint64_t handle_cudaMemPoolSetAccess(Reader& r) {
    auto pool = decode<cudaMemPool_t>(r);
    auto* desc = decode<const cudaMemAccessDesc*>(r);
    auto count = decode<size_t>(r);
    ArrayIn<cudaMemAccessDesc> d(desc, count);
    if (!d.good) return encode(cudaErrorInvalidValue);
    return encode(cudaMemPoolSetAccess(pool, d.get(desc), count));
}

std::uint64_t handle_cuMemSetAccess(Reader& r) {
    auto ptr = decode<CUdeviceptr>(r);
    auto size = decode<size_t>(r);
    auto* desc = decode<const CUmemAccessDesc*>(r);
    auto count = decode<size_t>(r);
    ArrayIn<CUmemAccessDesc> d(desc, count);
    if (!d.good) return encode(CUDA_ERROR_INVALID_VALUE);
    return encode(cuMemSetAccess(ptr, size, d.get(desc), count));
}

// cudaGraphAddNode and the capture calls: an array of nodes and one of edge data, with a count.
std::uint64_t handle_cudaGraphAddNode(Reader& r) {
    auto* node = decode<cudaGraphNode_t*>(r);
    auto graph = decode<cudaGraph_t>(r);
    auto* deps = decode<const cudaGraphNode_t*>(r);
    auto* edges = decode<const cudaGraphEdgeData*>(r);
    auto count = decode<size_t>(r);
    auto* params = decode<cudaGraphNodeParams*>(r);
    ArrayIn<cudaGraphNode_t> d(deps, count);
    ArrayIn<cudaGraphEdgeData> e(edges, count);
    Adapt<cudaGraphNode_t*> out(node, false);
    Adapt<cudaGraphNodeParams*> p(params, false);
    if (!d.good || !e.good || !out.ok() || !p.ok()) return encode(cudaErrorInvalidValue);
    const cudaError_t rc =
        cudaGraphAddNode(out.get(), graph, d.get(deps), e.get(edges), count, p.get());
    out.finish();
    p.finish();
    return encode(rc);
}

std::uint64_t capture_to_graph(Reader& r, bool per_thread) {
    auto stream = decode<cudaStream_t>(r);
    auto graph = decode<cudaGraph_t>(r);
    auto* deps = decode<const cudaGraphNode_t*>(r);
    auto* edges = decode<const cudaGraphEdgeData*>(r);
    auto count = decode<size_t>(r);
    auto mode = decode<cudaStreamCaptureMode>(r);
    ArrayIn<cudaGraphNode_t> d(deps, count);
    ArrayIn<cudaGraphEdgeData> e(edges, count);
    if (!d.good || !e.good) return encode(cudaErrorInvalidValue);
    return encode((per_thread ? cudaStreamBeginCaptureToGraph_ptsz : cudaStreamBeginCaptureToGraph)(
        stream, graph, d.get(deps), e.get(edges), count, mode));
}

std::uint64_t update_capture(Reader& r, bool per_thread) {
    auto stream = decode<cudaStream_t>(r);
    auto* deps = decode<cudaGraphNode_t*>(r);
    auto* edges = decode<const cudaGraphEdgeData*>(r);
    auto count = decode<size_t>(r);
    auto flags = decode<unsigned int>(r);
    ArrayIn<cudaGraphNode_t> d(deps, count);
    ArrayIn<cudaGraphEdgeData> e(edges, count);
    if (!d.good || !e.good) return encode(cudaErrorInvalidValue);
    return encode((per_thread ? cudaStreamUpdateCaptureDependencies_ptsz
                              : cudaStreamUpdateCaptureDependencies)(
        stream, const_cast<cudaGraphNode_t*>(d.get(deps)), e.get(edges), count, flags));
}

std::uint64_t handle_cudaGraphMemFreeNodeGetParams(Reader& r) {
    auto node = decode<cudaGraphNode_t>(r);
    auto* out = decode<void*>(r);
    void* local = nullptr;
    const cudaError_t e = cudaGraphMemFreeNodeGetParams(node, out ? &local : nullptr);
    if (e == cudaSuccess) program::write(out, &local, sizeof local);
    return encode(e);
}

// cudaDevice{Get,Set}GraphMemAttribute: the value is an unsigned long long behind a void*.
std::uint64_t graph_mem_attribute(Reader& r, bool set) {
    auto device = decode<int>(r);
    auto attr = decode<cudaGraphMemAttributeType>(r);
    auto* value = decode<void*>(r);
    unsigned long long local = 0;
    if (value && set && !program::read(value, &local, sizeof local))
        return encode(cudaErrorInvalidValue);
    const cudaError_t e =
        set ? cudaDeviceSetGraphMemAttribute(device, attr, value ? &local : nullptr)
            : cudaDeviceGetGraphMemAttribute(device, attr, value ? &local : nullptr);
    if (!set && value && e == cudaSuccess) program::write(value, &local, sizeof local);
    return encode(e);
}

// cudaLibraryEnumerateKernels / cuLibraryEnumerateKernels: an array of `count` handles out.
template <class K, class L, class R>
std::uint64_t enumerate_kernels(Reader& r, R (*f)(K*, unsigned int, L)) {
    auto* kernels = decode<K*>(r);
    auto count = decode<unsigned int>(r);
    auto library = decode<L>(r);
    if (!kernels || count > (1u << 20)) return encode(f(nullptr, count, library));
    std::vector<K> local(count);
    const R e = f(local.data(), count, library);
    if (e == 0) program::write(kernels, local.data(), count * sizeof(K));
    return encode(e);
}

std::uint64_t handle_dependencies(Reader& r, bool add) {
    auto graph = decode<cudaGraph_t>(r);
    auto* from = decode<const cudaGraphNode_t*>(r);
    auto* to = decode<const cudaGraphNode_t*>(r);
    auto* edges = decode<const cudaGraphEdgeData*>(r);
    auto count = decode<size_t>(r);
    ArrayIn<cudaGraphNode_t> f(from, count), t(to, count);
    ArrayIn<cudaGraphEdgeData> e(edges, count);
    if (!f.good || !t.good || !e.good) return encode(cudaErrorInvalidValue);
    return encode(
        add ? cudaGraphAddDependencies(graph, f.get(from), t.get(to), e.get(edges), count)
            : cudaGraphRemoveDependencies(graph, f.get(from), t.get(to), e.get(edges), count));
}

std::uint64_t handle_cudaGraphGetEdges(Reader& r) {
    auto graph = decode<cudaGraph_t>(r);
    auto* from = decode<cudaGraphNode_t*>(r);
    auto* to = decode<cudaGraphNode_t*>(r);
    auto* edges = decode<cudaGraphEdgeData*>(r);
    auto* count = decode<size_t*>(r);
    size_t n = 0;
    if (!count || !program::read_value(count, &n) || n > (1u << 24))
        return encode(cudaErrorInvalidValue);
    const size_t capacity = n;
    std::vector<cudaGraphNode_t> f(capacity), t(capacity);
    std::vector<cudaGraphEdgeData> e(capacity);
    const cudaError_t rc = cudaGraphGetEdges(
        graph, from ? f.data() : nullptr, to ? t.data() : nullptr, edges ? e.data() : nullptr, &n);
    program::write(count, &n, sizeof n);
    const size_t w = std::min(n, capacity);
    if (rc == cudaSuccess) {
        if (from) program::write(from, f.data(), w * sizeof f[0]);
        if (to) program::write(to, t.data(), w * sizeof t[0]);
        if (edges) program::write(edges, e.data(), w * sizeof e[0]);
    }
    return encode(rc);
}

// The capture's current dependencies are an array the runtime owns: handed to the program as
// memory it can read.
std::uint64_t capture_info(Reader& r, bool per_thread) {
    auto stream = decode<cudaStream_t>(r);
    Adapt<cudaStreamCaptureStatus*> status(decode<cudaStreamCaptureStatus*>(r), false);
    Adapt<unsigned long long*> id(decode<unsigned long long*>(r), false);
    Adapt<cudaGraph_t*> graph(decode<cudaGraph_t*>(r), false);
    auto** deps = decode<const cudaGraphNode_t**>(r);
    auto** edges = decode<const cudaGraphEdgeData**>(r);
    Adapt<size_t*> count(decode<size_t*>(r), false);
    if (!status.ok() || !id.ok() || !graph.ok() || !count.ok()) return 1;
    const cudaGraphNode_t* d = nullptr;
    const cudaGraphEdgeData* e = nullptr;
    const cudaError_t rc = (per_thread ? cudaStreamGetCaptureInfo_ptsz : cudaStreamGetCaptureInfo)(
        stream, status.get(), id.get(), graph.get(), deps ? &d : nullptr, edges ? &e : nullptr,
        count.get());
    status.finish();
    id.finish();
    graph.finish();
    count.finish();
    if (rc == cudaSuccess && count.get()) {
        const size_t n = *count.get();
        thread_local void* shared = nullptr;
        thread_local std::uint64_t shared_bytes = 0;
        const std::uint64_t need = std::max<std::uint64_t>(
            4096, n * (sizeof(cudaGraphNode_t) + sizeof(cudaGraphEdgeData)));
        if (shared_bytes < need) {
            if (shared) link::unshare(shared, shared_bytes);
            shared = link::share(need);
            shared_bytes = shared ? need : 0;
        }
        auto* nodes_at = static_cast<cudaGraphNode_t*>(shared);
        auto* edges_at = reinterpret_cast<cudaGraphEdgeData*>(nodes_at + n);
        if (shared && d) std::memcpy(nodes_at, d, n * sizeof *d);
        if (shared && e) std::memcpy(edges_at, e, n * sizeof *e);
        const cudaGraphNode_t* dp = d && shared ? nodes_at : nullptr;
        const cudaGraphEdgeData* ep = e && shared ? edges_at : nullptr;
        if (deps) program::write(deps, &dp, sizeof dp);
        if (edges) program::write(edges, &ep, sizeof ep);
    } else {
        const void* none = nullptr;
        if (deps) program::write(deps, &none, sizeof none);
        if (edges) program::write(edges, &none, sizeof none);
    }
    return encode(rc);
}

// cuLinkComplete hands back the linked image: in memory the program can read.
std::uint64_t handle_cuLinkComplete(Reader& r) {
    auto state = decode<CUlinkState>(r);
    auto** image = decode<void**>(r);
    auto* size = decode<size_t*>(r);
    void* local_image = nullptr;
    size_t local_size = 0;
    const CUresult e = cuLinkComplete(state, image ? &local_image : nullptr, &local_size);
    if (e != CUDA_SUCCESS) return encode(e);
    void* shared = link::share(local_size ? local_size : 1);
    if (!shared) return encode(CUDA_ERROR_OUT_OF_MEMORY);
    std::memcpy(shared, local_image, local_size);
    if (image) program::write(image, &shared, sizeof shared);
    if (size) program::write(size, &local_size, sizeof local_size);
    return encode(e);
}

// cudaLaunchKernelEx: the configuration holds an array of launch attributes.
std::uint64_t launch_ex(Reader& r, bool per_thread) {
    auto* config = decode<const cudaLaunchConfig_t*>(r);
    auto* func = decode<const void*>(r);
    auto** args = decode<void**>(r);
    cudaLaunchConfig_t local{};
    if (!config || !program::read(config, &local, sizeof local))
        return encode(cudaErrorInvalidValue);
    std::vector<cudaLaunchAttribute> attrs;
    if (local.numAttrs) {
        if (local.numAttrs > 64 || !local.attrs) return encode(cudaErrorInvalidValue);
        attrs.resize(local.numAttrs);
        if (!program::read(local.attrs, attrs.data(), attrs.size() * sizeof attrs[0]))
            return encode(cudaErrorInvalidValue);
        local.attrs = attrs.data();
    }
    return encode(
        (per_thread ? cudaLaunchKernelExC_ptsz : cudaLaunchKernelExC)(&local, func, args));
}

// The calls that take a launch configuration with its attributes (thread block clusters): the
// configuration and its attribute array are read from the program, an int answer written back.
template <class Config, class Attribute>
bool read_config(const Config* config, Config* local, std::vector<Attribute>* attrs) {
    if (!config || !program::read(config, local, sizeof *local)) return false;
    if (local->numAttrs) {
        if (local->numAttrs > 64 || !local->attrs) return false;
        attrs->resize(local->numAttrs);
        if (!program::read(local->attrs, attrs->data(), attrs->size() * sizeof(Attribute)))
            return false;
        local->attrs = attrs->data();
    }
    return true;
}

template <class R, class Func, class Config, class Attribute, R Invalid>
std::uint64_t occupancy_with_config(Reader& r, R (*fn)(int*, Func, const Config*)) {
    auto* out = decode<int*>(r);
    auto func = decode<Func>(r);
    auto* config = decode<const Config*>(r);
    Config local{};
    std::vector<Attribute> attrs;
    if (!out || !read_config(config, &local, &attrs)) return encode(Invalid);
    int value = 0;
    if (!program::read(out, &value, sizeof value)) return encode(Invalid);
    const R e = fn(&value, func, &local);
    program::write(out, &value, sizeof value);
    return encode(e);
}

std::uint64_t cu_launch_ex(Reader& r) {
    auto* config = decode<const CUlaunchConfig*>(r);
    auto* f = decode<CUfunction>(r);
    auto** params = decode<void**>(r);
    auto** extra = decode<void**>(r);
    CUlaunchConfig local{};
    std::vector<CUlaunchAttribute> attrs;
    if (!read_config(config, &local, &attrs)) return encode(CUDA_ERROR_INVALID_VALUE);
    return encode(cuLaunchKernelEx(&local, f, params, extra));
}

#define CHARS_OUT(fn, ...)                                                                         \
    [](Reader& r) -> std::uint64_t {                                                               \
        return chars_out(r, [](char* b, int len, Reader& rest) -> std::uint64_t {                  \
            return encode(fn(b, len, __VA_ARGS__));                                                \
        });                                                                                        \
    }

const std::map<std::string_view, Handler>& custom_handlers() {
    static const std::map<std::string_view, Handler> h = {
        {"cuPointerGetAttribute", handle_cuPointerGetAttribute},
        {"cuPointerGetAttributes", handle_cuPointerGetAttributes},
        {"cuPointerSetAttribute", handle_cuPointerSetAttribute},
        {"cudaMemPoolGetAttribute", [](Reader& r) { return handle_pool_attribute(r, false); }},
        {"cudaMemPoolSetAttribute", [](Reader& r) { return handle_pool_attribute(r, true); }},
        {"cudaMemPoolSetAccess", handle_cudaMemPoolSetAccess},
        {"cuMemSetAccess", handle_cuMemSetAccess},
        {"cudaLibraryEnumerateKernels",
         [](Reader& r) { return enumerate_kernels(r, cudaLibraryEnumerateKernels); }},
        {"cuLibraryEnumerateKernels",
         [](Reader& r) { return enumerate_kernels(r, cuLibraryEnumerateKernels); }},
        {"cudaGraphAddNode", handle_cudaGraphAddNode},
        {"cudaStreamBeginCaptureToGraph", [](Reader& r) { return capture_to_graph(r, false); }},
        {"cudaStreamBeginCaptureToGraph_ptsz", [](Reader& r) { return capture_to_graph(r, true); }},
        {"cudaStreamUpdateCaptureDependencies", [](Reader& r) { return update_capture(r, false); }},
        {"cudaStreamUpdateCaptureDependencies_ptsz",
         [](Reader& r) { return update_capture(r, true); }},
        {"cudaGraphMemFreeNodeGetParams", handle_cudaGraphMemFreeNodeGetParams},
        {"cudaDeviceGetGraphMemAttribute", [](Reader& r) { return graph_mem_attribute(r, false); }},
        {"cudaDeviceSetGraphMemAttribute", [](Reader& r) { return graph_mem_attribute(r, true); }},
        {"cudaGraphAddMemAllocNode",
         [](Reader& r) { return add_node(r, cudaGraphAddMemAllocNode); }},
        {"cudaGraphAddMemFreeNode", [](Reader& r) { return add_node(r, cudaGraphAddMemFreeNode); }},
        {"cudaGraphAddDependencies", [](Reader& r) { return handle_dependencies(r, true); }},
        {"cudaGraphRemoveDependencies", [](Reader& r) { return handle_dependencies(r, false); }},
        {"cudaGraphGetEdges", handle_cudaGraphGetEdges},
        {"cudaGraphGetNodes", [](Reader& r) { return list_out(r, cudaGraphGetNodes); }},
        {"cudaGraphGetRootNodes", [](Reader& r) { return list_out(r, cudaGraphGetRootNodes); }},
        {"cudaGraphAddChildGraphNode",
         [](Reader& r) { return add_node(r, cudaGraphAddChildGraphNode); }},
        {"cudaGraphAddEmptyNode", [](Reader& r) { return add_node(r, cudaGraphAddEmptyNode); }},
        {"cudaGraphAddEventRecordNode",
         [](Reader& r) { return add_node(r, cudaGraphAddEventRecordNode); }},
        {"cudaGraphAddEventWaitNode",
         [](Reader& r) { return add_node(r, cudaGraphAddEventWaitNode); }},
        {"cudaGraphAddHostNode", [](Reader& r) { return add_node(r, cudaGraphAddHostNode); }},
        {"cudaGraphAddKernelNode", [](Reader& r) { return add_node(r, cudaGraphAddKernelNode); }},
        {"cudaGraphAddMemcpyNode", [](Reader& r) { return add_node(r, cudaGraphAddMemcpyNode); }},
        {"cudaGraphAddMemcpyNode1D",
         [](Reader& r) { return add_node(r, cudaGraphAddMemcpyNode1D); }},
        {"cudaGraphAddMemsetNode", [](Reader& r) { return add_node(r, cudaGraphAddMemsetNode); }},
        {"cudaStreamGetCaptureInfo", [](Reader& r) { return capture_info(r, false); }},
        {"cudaStreamGetCaptureInfo_ptsz", [](Reader& r) { return capture_info(r, true); }},
        {"cuLinkComplete", handle_cuLinkComplete},
        {"cudaLaunchKernelExC", [](Reader& r) { return launch_ex(r, false); }},
        {"cudaLaunchKernelExC_ptsz", [](Reader& r) { return launch_ex(r, true); }},
        {"cuLaunchKernelEx", cu_launch_ex},
        {"cudaOccupancyMaxActiveClusters",
         [](Reader& r) {
             return occupancy_with_config<cudaError_t, const void*, cudaLaunchConfig_t,
                                          cudaLaunchAttribute, cudaErrorInvalidValue>(
                 r, cudaOccupancyMaxActiveClusters);
         }},
        {"cudaOccupancyMaxPotentialClusterSize",
         [](Reader& r) {
             return occupancy_with_config<cudaError_t, const void*, cudaLaunchConfig_t,
                                          cudaLaunchAttribute, cudaErrorInvalidValue>(
                 r, cudaOccupancyMaxPotentialClusterSize);
         }},
        {"cuOccupancyMaxActiveClusters",
         [](Reader& r) {
             return occupancy_with_config<CUresult, CUfunction, CUlaunchConfig, CUlaunchAttribute,
                                          CUDA_ERROR_INVALID_VALUE>(r,
                                                                    cuOccupancyMaxActiveClusters);
         }},
        {"cuOccupancyMaxPotentialClusterSize",
         [](Reader& r) {
             return occupancy_with_config<CUresult, CUfunction, CUlaunchConfig, CUlaunchAttribute,
                                          CUDA_ERROR_INVALID_VALUE>(
                 r, cuOccupancyMaxPotentialClusterSize);
         }},
        {"cudaDeviceGetPCIBusId", CHARS_OUT(cudaDeviceGetPCIBusId, decode<int>(rest))},
        {"cuDeviceGetName", CHARS_OUT(cuDeviceGetName, decode<CUdevice>(rest))},
    };
    return h;
}

const std::vector<Entry>& entries() {
    static const std::vector<Entry> table = [] {
        std::vector<Entry> t = {
#define CALL(ret, name, params, args) {#name, &Dispatch<&::name, raw_arguments(#name)>::call},
#include "device/calls.inc"
#undef CALL
        };
        for (auto& e : t) {
            if (auto it = custom_handlers().find(e.name); it != custom_handlers().end())
                e.handler = it->second;
            e.may_queue = Executor::may_queue(e.name);
        }
        return t;
    }();
    return table;
}

// [SECTION] Serving a connection ------------------------------------------------------------------

void send_or_drop(Connection& c, const Message& m) {
    if (!device::send_message(c.socket, m)) {
        // The program is gone: nothing more can reach it.
        ::shutdown(c.socket, SHUT_RDWR);
    }
}

std::uint64_t serve_call(Connection& c, Message& m) {
    Reader r(m.body);
    const auto index = r.get<std::uint32_t>();
    const auto depth = r.get<std::uint32_t>();
    CallStack saved = c.stack;
    c.stack = CallStack{};
    c.stack.depth = int(std::min<std::uint32_t>(depth, 12));
    for (std::uint32_t i = 0; i < depth && i < 64; ++i) {
        const auto frame = r.get<std::uint64_t>();
        if (i < 12) c.stack.frames[i] = reinterpret_cast<void*>(frame);
    }
    const auto& table = entries();
    std::uint64_t result = 999;  // cudaErrorUnknown
    if (index < table.size() && !r.short_read) {
        if (unloading.load()) result = cudaErrorCudartUnloading;
        else {
            const bool outer = !c.in_call;
            c.in_call = true;
            // Launches may leave their kernel queued for the device thread; every other call
            // sees the device as the queued work leaves it (executor.h).
            const bool may_queue = table[index].may_queue;
            QueueScope scope(may_queue);
            if (!may_queue) {
                std::lock_guard lock(Runtime::get().mutex);
                Executor::get().drain();
            }
            result = table[index].handler(r);
            if (outer) c.in_call = false;
        }
    }
    c.stack = saved;
    return result;
}

void finish_records() {
    static std::once_flag once;
    std::call_once(once, [] {
        Executor::get().stop();
        Runtime& rt = Runtime::get();
        rt.~Runtime();
    });
}

// Pages of managed memory the program touched on the host (its library's fault handler saw
// them; managed.h).
// Each: u64 address, u32 write, u32 depth, depth u64 frames (the faulting instruction first).
void pages_touched(const Message& m) {
    Reader r(m.body);
    Runtime& rt = Runtime::get();
    std::lock_guard lock(rt.mutex);
    Executor::get().drain();  // the host's touch comes after the work it issued before
    while (r.left() >= 16) {
        const auto address = std::uintptr_t(r.get<std::uint64_t>());
        const bool write = r.get<std::uint32_t>() != 0;
        const auto depth = std::min<std::uint32_t>(r.get<std::uint32_t>(), 16);
        void* frames[16] = {};
        for (std::uint32_t i = 0; i < depth; ++i)
            frames[i] = reinterpret_cast<void*>(r.get<std::uint64_t>());
        if (r.short_read) break;
        managed::host_touched(address);
        rt.ordering.program_accessed(address, write, frames, int(depth));
    }
}

void serve(Connection c) {
    current = &c;
    bool handed_over = false;  // the program's host-function thread (Frame::host_functions)
    Message m;
    // A program's next call often follows at once: poll a little before sleeping.
    while (device::receive_message(c.socket, &m, 60)) {
        if (m.type == Frame::page_touched) {
            pages_touched(m);
        } else if (m.type == Frame::call) {
            if (m.fd >= 0) ::close(m.fd);  // no call takes a descriptor
            Message reply;
            reply.type = Frame::reply;
            reply.put(serve_call(c, m));
            send_or_drop(c, reply);
        } else if (m.fd >= 0) {
            ::close(m.fd);
            break;
        } else if (m.type == Frame::connect) {
            int pair[2];
            Message back;
            back.type = Frame::connected;
            if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) == 0) {
                {
                    std::lock_guard lock(connections_mutex);
                    ++open_connections;
                }
                Connection next;
                next.socket = pair[0];
                std::thread([next] { serve(next); }).detach();
                back.fd = pair[1];
            }
            send_or_drop(c, back);
            if (back.fd >= 0) ::close(back.fd);
        } else if (m.type == Frame::host_functions) {
            // The program's thread for host functions: the device thread calls it from now on
            // (run_host_function); nothing else is read from this connection here.
            if (m.fd >= 0) ::close(m.fd);
            {
                std::lock_guard lock(connections_mutex);
                if (!host_function_channel) {
                    host_function_channel = new Connection(c);
                    handed_over = true;
                }
            }
            if (handed_over) break;
        } else if (m.type == Frame::shutdown) {
            // The program is exiting: what it did is final; later calls (a global object's
            // destructor freeing memory) answer cudaErrorCudartUnloading, as CUDA does.
            {
                std::lock_guard lock(Runtime::get().mutex);
                unloading = true;
            }
            finish_records();
            Message ack;
            ack.type = Frame::reply;
            ack.put(std::uint64_t(0));
            send_or_drop(c, ack);
        } else {
            break;  // a frame a client does not send unasked: the connection is not a client's
        }
    }
    if (!handed_over) ::close(c.socket);
    current = nullptr;
    std::lock_guard lock(connections_mutex);
    --open_connections;
    connections_changed.notify_all();
}

std::uint32_t await_answer(Connection& c) {
    Message m;
    while (device::receive_message(c.socket, &m)) {
        if (m.fd >= 0) ::close(m.fd);
        if (m.type == Frame::host_done) {
            Reader r(m.body);
            return r.left() >= 4 ? r.get<std::uint32_t>() : 1;
        }
        if (m.type == Frame::call) {
            Message reply;
            reply.type = Frame::reply;
            reply.put(serve_call(c, m));
            send_or_drop(c, reply);
            continue;
        }
        if (m.type == Frame::page_touched) {
            pages_touched(m);
            continue;
        }
        break;
    }
    ::shutdown(c.socket, SHUT_RDWR);
    return 0;
}

// [SECTION] Shared memory -------------------------------------------------------------------------

// Shared memory lives in a window of this process's address space reserved at start, so that the
// program can map it at the same address (pointers into it mean the same in both).
constexpr std::uint64_t window_base = 0x3f0000000000ull;
constexpr std::uint64_t window_bytes = 1ull << 40;
std::mutex window_mutex;
std::uint64_t window_next = window_base;

bool reserve_window() {
    void* p = ::mmap(reinterpret_cast<void*>(window_base), window_bytes, PROT_NONE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    return p == reinterpret_cast<void*>(window_base);
}

std::uint64_t page_round(std::uint64_t n) { return (n + 4095) / 4096 * 4096; }

// Asks the program to map `fd` at `address`; true once it has.
bool map_in_program(int fd, std::uint64_t address, std::uint64_t bytes) {
    if (!current) return program::pid() == 0;
    Message m;
    m.type = Frame::map;
    m.put(address);
    m.put(bytes);
    m.fd = fd;
    if (!device::send_message(current->socket, m)) return false;
    return await_answer(*current) == 1;
}

}  // namespace

// [SECTION] What the runtime asks of the program (program_link.h) ---------------------------------

namespace link {

void emit(int stream, const std::string& text) {
    if (text.empty()) return;
    if (current && current->in_call) {
        Message m;
        m.type = Frame::output;
        m.put(std::uint32_t(stream));
        m.put_bytes(text.data(), text.size());
        send_or_drop(*current, m);
        return;
    }
    // No call in progress (the program has exited, or the records are being finished): the
    // device's own descriptors, which `cudalab run` joins to the program's.
    std::FILE* f = stream == 1 ? stdout : stderr;
    std::fwrite(text.data(), 1, text.size(), f);
    std::fflush(f);
}

void* share(std::uint64_t bytes) {
    const std::uint64_t size = page_round(std::max<std::uint64_t>(bytes, 1));
    if (program::pid() == 0) {
        void* p = std::aligned_alloc(4096, size);
        if (p) std::memset(p, 0, size);
        return p;
    }
    std::uint64_t at;
    {
        std::lock_guard lock(window_mutex);
        if (window_next + size > window_base + window_bytes) return nullptr;
        at = window_next;
        window_next += size;
    }
    const int fd = ::memfd_create("cudalab-shared", MFD_CLOEXEC);
    if (fd < 0) return nullptr;
    if (::ftruncate(fd, off_t(size)) != 0) {
        ::close(fd);
        return nullptr;
    }
    void* p = ::mmap(reinterpret_cast<void*>(at), size, PROT_READ | PROT_WRITE,
                     MAP_SHARED | MAP_FIXED, fd, 0);
    if (p == MAP_FAILED) {
        ::close(fd);
        return nullptr;
    }
    const bool mapped = map_in_program(fd, at, size);
    ::close(fd);
    if (!mapped) {
        ::mmap(p, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0);
        return nullptr;
    }
    program::add_shared(at, p, size);
    return p;
}

void unshare(void* address, std::uint64_t bytes) {
    if (!address) return;
    if (program::pid() == 0) {
        std::free(address);
        return;
    }
    const std::uint64_t size = page_round(std::max<std::uint64_t>(bytes, 1));
    program::remove_shared(reinterpret_cast<std::uint64_t>(address));
    if (current) {
        Message m;
        m.type = Frame::unmap;
        m.put(reinterpret_cast<std::uint64_t>(address));
        m.put(size);
        if (device::send_message(current->socket, m)) await_answer(*current);
    }
    ::mmap(address, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1,
           0);
}

// Registered memory: the program's own pages. Where they are its anonymous memory, the program
// puts shared pages holding the same bytes in their place (Frame::adopt) and both processes see
// one memory, as pinned memory is. Otherwise (a file's mapping, the stack, a page another
// registration already shares) kernels reach a copy, brought up to date around each kernel;
// copies reach the program's memory directly (program_memory.h).
struct Adopted {
    void* local = nullptr;   // this process's view of the pages
    std::uint64_t base = 0;  // the first page in the program
    std::uint64_t size = 0;  // whole pages
};
std::mutex registered_mutex;
std::map<std::uint64_t, std::vector<std::uint8_t>> registered;  // kept in step by copying
std::map<std::uint64_t, Adopted> adopted;                       // by the registration's address

namespace {

bool overlaps_adopted(std::uint64_t lo, std::uint64_t hi) {
    for (const auto& [at, a] : adopted)
        if (a.base < hi && lo < a.base + a.size) return true;
    return false;
}

// Asks the program to swap [base, base + size) for shared pages; their view here, or null.
void* adopt_in_program(std::uint64_t base, std::uint64_t size) {
    if (!current) return nullptr;
    const int fd = ::memfd_create("cudalab-registered", MFD_CLOEXEC);
    if (fd < 0) return nullptr;
    void* local = MAP_FAILED;
    if (::ftruncate(fd, off_t(size)) == 0)
        local = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (local == MAP_FAILED) {
        ::close(fd);
        return nullptr;
    }
    Message m;
    m.type = Frame::adopt;
    m.put(base);
    m.put(size);
    m.fd = fd;
    const bool ok = device::send_message(current->socket, m) && await_answer(*current) == 1;
    ::close(fd);
    if (!ok) {
        ::munmap(local, size);
        return nullptr;
    }
    return local;
}

}  // namespace

void* share_existing(void* address, std::uint64_t bytes) {
    if (program::pid() == 0) return address;
    const auto at = reinterpret_cast<std::uint64_t>(address);
    const std::uint64_t base = at / 4096 * 4096;
    const std::uint64_t size = page_round(at + std::max<std::uint64_t>(bytes, 1)) - base;
    std::lock_guard lock(registered_mutex);
    if (!overlaps_adopted(base, base + size))
        if (void* local = adopt_in_program(base, size)) {
            adopted[at] = Adopted{local, base, size};
            program::add_shared(base, local, size);
            return static_cast<char*>(local) + (at - base);
        }
    auto& copy = registered[at];
    try {
        copy.assign(bytes, 0);
    } catch (const std::bad_alloc&) {
        registered.erase(at);
        return nullptr;
    }
    if (!program::read(address, copy.data(), bytes)) {
        registered.erase(at);
        return nullptr;
    }
    return copy.data();
}

void unshare_existing(void* address) {
    std::lock_guard lock(registered_mutex);
    const auto at = reinterpret_cast<std::uint64_t>(address);
    if (auto it = adopted.find(at); it != adopted.end()) {
        // The program keeps its (shared) pages and their bytes; this view goes.
        program::remove_shared(it->second.base);
        ::munmap(it->second.local, it->second.size);
        adopted.erase(it);
    }
    registered.erase(at);
}

void registered_in() {
    std::lock_guard lock(registered_mutex);
    for (auto& [at, copy] : registered)
        program::read(reinterpret_cast<const void*>(at), copy.data(), copy.size());
}

bool registered_copies() {
    std::lock_guard lock(registered_mutex);
    return !registered.empty();
}

void registered_out() {
    std::lock_guard lock(registered_mutex);
    for (auto& [at, copy] : registered)
        program::write(reinterpret_cast<void*>(at), copy.data(), copy.size());
}

void protect_in_program(void* address, std::uint64_t bytes, int prot) {
    if (!current || program::pid() == 0) {
        ::mprotect(address, bytes, prot);
        return;
    }
    Message m;
    m.type = Frame::protect;
    m.put(reinterpret_cast<std::uint64_t>(address));
    m.put(bytes);
    m.put(std::uint32_t(prot));
    // Answered once done: the device may write those pages next (process_vm_writev honours the
    // program's protection).
    if (device::send_message(current->socket, m)) await_answer(*current);
}

namespace {

// Runs a host function (or stream callback) in the program: on the device thread, on the
// program's host-function thread, without the runtime's lock (the program's other threads issue
// work meanwhile; a CUDA call the function makes, which CUDA forbids, is served here); in a call,
// on the calling thread.
void host_call(device::HostCallKind kind, void* fn, void* data, void* stream, int status) {
    Connection* via = current;
    if (Executor::running()) {
        std::lock_guard lock(connections_mutex);
        via = host_function_channel ? host_function_channel : nullptr;
    }
    if (!via) return;  // the program is gone: nothing of it can run
    Message m;
    m.type = Frame::host_call;
    m.put(std::uint32_t(kind));
    m.put(reinterpret_cast<std::uint64_t>(fn));
    m.put(reinterpret_cast<std::uint64_t>(data));
    m.put(reinterpret_cast<std::uint64_t>(stream));
    m.put(std::uint32_t(status));
    if (via == current) {
        if (device::send_message(via->socket, m)) await_answer(*via);
        return;
    }
    LetOthersIn meanwhile;
    Connection* saved = current;
    current = via;
    if (device::send_message(via->socket, m)) await_answer(*via);
    current = saved;
}

}  // namespace

void run_host_function(void (*fn)(void*), void* data) {
    if (program::pid() == 0) return fn(data);
    host_call(device::HostCallKind::host_fn, reinterpret_cast<void*>(fn), data, nullptr, 0);
}

void run_stream_callback(void* callback, void* stream, int status, void* data) {
    if (program::pid() == 0)
        return reinterpret_cast<cudaStreamCallback_t>(callback)(static_cast<cudaStream_t>(stream),
                                                                cudaError_t(status), data);
    host_call(device::HostCallKind::stream_callback, callback, data, stream, status);
}

bool host_function_thread() {
    std::lock_guard lock(connections_mutex);
    return host_function_channel != nullptr;
}

const CallStack* caller_stack() { return current && current->in_call ? &current->stack : nullptr; }

std::string program_path(const std::string& path) {
    const int p = program::pid();
    if (p == 0 || path.empty()) return path;
    return "/proc/" + std::to_string(p) + (path[0] == '/' ? "/root" : "/cwd/") + path;
}

}  // namespace link

}  // namespace cudalab::cudart

// [SECTION] main
// ------------------------------------------------------------------------------------

int main(int argc, char** argv) {
    using namespace cudalab;
    if (argc != 2) {
        std::fprintf(stderr, "usage: cudalab-device FD (started by cudalab or by libcudart)\n");
        return 2;
    }
    const int socket = std::atoi(argv[1]);
    // Gone with whoever started it, and never a target for the program's signals: the program
    // runs as another user or in another namespace.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    ::signal(SIGPIPE, SIG_IGN);
    if (!cudart::reserve_window()) {
        std::fprintf(stderr, "cudalab-device: cannot reserve the shared memory window\n");
        return 1;
    }
    device::Message hello;
    int pid = 0;
    if (!device::receive_hello(socket, &hello, &pid) || hello.type != device::Frame::hello) {
        std::fprintf(stderr, "cudalab-device: no program connected\n");
        return 1;
    }
    device::Reader r(hello.body);
    const auto version = r.get<std::uint32_t>();
    const auto checksum = r.get<std::uint64_t>();
    device::Message welcome;
    welcome.type = device::Frame::welcome;
    if (version != device::protocol_version || checksum != device::calls_checksum() || pid <= 0) {
        const std::string why = "this program's libcudart.so.13 is from another cudalab build "
                                "than cudalab-device (rebuild, or run it with that build's "
                                "cudalab run)";
        welcome.put(std::uint32_t(0));
        welcome.put_bytes(why.data(), why.size());
        device::send_message(socket, welcome);
        std::fprintf(stderr, "cudalab-device: %s\n", why.c_str());
        return 1;
    }
    cudart::program::attach(pid);
    cudart::remember_program_files();
    // A program's launches return before their kernels have run, as on a GPU (executor.h);
    // CUDALAB_DEVICE_THREAD=0 runs each call's work inside it instead (to compare).
    if (const char* v = std::getenv("CUDALAB_DEVICE_THREAD"); !v || std::strcmp(v, "0") != 0)
        cudart::Executor::get().enable();
    welcome.put(std::uint32_t(1));
    if (!device::send_message(socket, welcome)) return 1;
    {
        std::lock_guard lock(cudart::connections_mutex);
        ++cudart::open_connections;
    }
    cudart::Connection first;
    first.socket = socket;
    std::thread([first] { cudart::serve(first); }).detach();
    {
        std::unique_lock lock(cudart::connections_mutex);
        cudart::connections_changed.wait(lock, [] { return cudart::open_connections == 0; });
    }
    // Every connection has closed: the program has exited (or died). The records are written
    // from what the device saw, complete to this point.
    cudart::finish_records();
    std::fflush(stdout);
    std::_Exit(0);
}
