// The CUDA runtime API, part 4: streams, events, host functions and stream capture.
#include <algorithm>
#include <chrono>
#include <set>

#include "cudart/api.h"
#include "cudart/program_link.h"

using namespace cudalab;
using namespace cudalab::cudart;

namespace cudalab::cudart {
void trim_pools();
}

namespace {

Event* event_of(cudaEvent_t e) {
    Runtime& rt = Runtime::get();
    auto* ev = reinterpret_cast<Event*>(e);
    return rt.events.count(ev) ? ev : nullptr;
}

cudaError_t create_stream(cudaStream_t* out, unsigned flags, int priority) {
    Runtime& rt = Runtime::get();
    if (!out) return cudaErrorInvalidValue;
    if (cudaError_t e = device_gate()) return e;
    if (flags & ~unsigned(cudaStreamNonBlocking)) return cudaErrorInvalidValue;
    auto* s = new Stream();
    s->id = rt.next_stream_id++;
    s->device = rt.current_device();
    s->flags = flags;
    s->priority = std::clamp(priority, -5, 0);
    s->tail = rt.issue_time();
    rt.streams.insert(s);
    rt.timeline.name_stream(1 + s->device, s->id,
                            "stream " + std::to_string(s->id) +
                                (flags & cudaStreamNonBlocking ? " (non-blocking)" : ""));
    *out = reinterpret_cast<cudaStream_t>(s);
    return cudaSuccess;
}

}  // namespace

extern "C" {

// [SECTION] Streams
// ---------------------------------------------------------------------------------

cudaError_t cudaStreamCreate(cudaStream_t* stream) {
    CUDALAB_API("cudaStreamCreate");
    return result(create_stream(stream, 0, 0));
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* stream, unsigned int flags) {
    CUDALAB_API("cudaStreamCreateWithFlags");
    return result(create_stream(stream, flags, 0));
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t* stream, unsigned int flags, int priority) {
    CUDALAB_API("cudaStreamCreateWithPriority");
    return result(create_stream(stream, flags, priority));
}

cudaError_t cudaStreamDestroy(cudaStream_t stream) {
    CUDALAB_API("cudaStreamDestroy");
    auto* s = reinterpret_cast<Stream*>(stream);
    if (!rt.streams.count(s)) return fail(cudaErrorInvalidResourceHandle);
    // Work already issued completes; the handle is gone at once.
    for (auto& d : rt.devices) d.streams[0]->tail = std::max(d.streams[0]->tail, 0.0);
    rt.streams.erase(s);
    delete s;
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
    CUDALAB_API("cudaStreamSynchronize");
    Stream* s = rt.stream(stream);
    if (!s) return fail(cudaErrorInvalidResourceHandle);
    if (s->capture_status == cudaStreamCaptureStatusActive)
        return fail(cudaErrorStreamCaptureUnsupported);
    wait_stream(s);
    trim_pools();
    if (cudaError_t e = device_gate(true)) return fail(e);
    return cudaSuccess;
}

cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream) {
    return cudaStreamSynchronize(stream ? stream : cudaStreamPerThread);
}

cudaError_t cudaStreamQuery(cudaStream_t stream) {
    CUDALAB_API("cudaStreamQuery");
    Stream* s = rt.stream(stream);
    if (!s) return fail(cudaErrorInvalidResourceHandle);
    if (cudaError_t e = device_gate()) return fail(e);
    if (stream_ready(s) > rt.host_now()) return cudaErrorNotReady;  // not an error: not recorded
    rt.ordering.host_waits(s);                                      // the host saw it done
    rt.flush_printf();
    if (cudaError_t e = device_gate(true)) return fail(e);
    return cudaSuccess;
}

cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream) {
    return cudaStreamQuery(stream ? stream : cudaStreamPerThread);
}

cudaError_t cudaStreamGetFlags(cudaStream_t stream, unsigned int* flags) {
    CUDALAB_API("cudaStreamGetFlags");
    Stream* s = rt.stream(stream);
    if (!s || !flags) return fail(cudaErrorInvalidValue);
    *flags = s->flags;
    return cudaSuccess;
}

cudaError_t cudaStreamGetPriority(cudaStream_t stream, int* priority) {
    CUDALAB_API("cudaStreamGetPriority");
    Stream* s = rt.stream(stream);
    if (!s || !priority) return fail(cudaErrorInvalidValue);
    *priority = s->priority;
    return cudaSuccess;
}

cudaError_t cudaStreamGetDevice(cudaStream_t stream, int* device) {
    CUDALAB_API("cudaStreamGetDevice");
    Stream* s = rt.stream(stream);
    if (!s || !device) return fail(cudaErrorInvalidValue);
    *device = s->device;
    return cudaSuccess;
}

cudaError_t cudaStreamGetId(cudaStream_t stream, unsigned long long* id) {
    CUDALAB_API("cudaStreamGetId");
    Stream* s = rt.stream(stream);
    if (!s || !id) return fail(cudaErrorInvalidValue);
    *id = static_cast<unsigned long long>(s->id);
    return cudaSuccess;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
    CUDALAB_API("cudaStreamWaitEvent");
    Stream* s = rt.stream(stream);
    Event* e = event_of(event);
    if (!s || !e) return fail(cudaErrorInvalidResourceHandle);
    // (An event recorded before the capture's first node still joins it, at the root.)
    if (e->capture_stream && e->capture_stream->capture_status == cudaStreamCaptureStatusActive) {
        // Joining a capture: the waiting stream now records into the same graph (fork/join).
        Stream* origin = e->capture_stream;
        if (s->capture_status != cudaStreamCaptureStatusActive) {
            s->capture_status = cudaStreamCaptureStatusActive;
            s->capture_graph = origin->capture_graph;
            s->capture_id = origin->capture_id;
            s->capture_frontier = e->capture_nodes;
        } else {
            for (GraphNode* n : e->capture_nodes)
                if (std::find(s->capture_frontier.begin(), s->capture_frontier.end(), n) ==
                    s->capture_frontier.end())
                    s->capture_frontier.push_back(n);
        }
        return cudaSuccess;
    }
    Work w;
    w.kind = Work::Kind::event_wait;
    w.event = e;
    return result(issue(s, std::move(w), "cudaStreamWaitEvent"));
}

cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
    return cudaStreamWaitEvent(stream ? stream : cudaStreamPerThread, event, flags);
}

cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void* data) {
    CUDALAB_API("cudaLaunchHostFunc");
    Stream* s = rt.stream(stream);
    if (!s) return fail(cudaErrorInvalidResourceHandle);
    if (!fn) return fail(cudaErrorInvalidValue);
    if (cudaError_t e = device_gate()) return fail(e);
    Work w;
    w.kind = Work::Kind::host;
    w.host_fn = fn;
    w.host_data = data;
    return result(issue(s, std::move(w), "cudaLaunchHostFunc"));
}

cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn, void* data) {
    return cudaLaunchHostFunc(stream ? stream : cudaStreamPerThread, fn, data);
}

}  // extern "C"

namespace {
struct CallbackData {
    cudaStreamCallback_t callback;
    cudaStream_t stream;
    void* data;
};
}  // namespace

void cudalab::cudart::run_stream_callback(void* p) {
    auto* c = static_cast<CallbackData*>(p);
    // The status argument is the stream's error state, cudaSuccess unless the context faulted.
    Runtime& rt = Runtime::get();
    const int sticky = rt.devices[std::size_t(rt.current_device())].sticky_error;
    link::run_stream_callback(reinterpret_cast<void*>(c->callback), c->stream, sticky, c->data);
    delete c;
}

extern "C" {

cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void* data,
                                  unsigned int flags) {
    CUDALAB_API("cudaStreamAddCallback");
    if (!callback || flags) return fail(cudaErrorInvalidValue);
    Stream* s = rt.stream(stream);
    if (!s) return fail(cudaErrorInvalidResourceHandle);
    Work w;
    w.kind = Work::Kind::host;
    w.host_fn = run_stream_callback;
    w.host_data = new CallbackData{callback, stream, data};
    return result(issue(s, std::move(w), "cudaStreamAddCallback"));
}

cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t stream, cudaStreamCallback_t callback,
                                       void* data, unsigned int flags) {
    return cudaStreamAddCallback(stream ? stream : cudaStreamPerThread, callback, data, flags);
}

cudaError_t cudaStreamAttachMemAsync(cudaStream_t, void*, size_t, unsigned int) {
    return cudaSuccess;
}

// Stream attributes (L2 access-policy windows, synchronisation policy, priority) are hints that
// change no result: kept and answered back, not modelled.
cudaError_t cudaStreamSetAttribute(cudaStream_t stream, cudaLaunchAttributeID attr,
                                   const cudaLaunchAttributeValue* value) {
    CUDALAB_API("cudaStreamSetAttribute");
    Stream* s = rt.stream(stream);
    if (!s || !value) return fail(cudaErrorInvalidValue);
    s->attributes[int(attr)] = *value;
    return cudaSuccess;
}

cudaError_t cudaStreamGetAttribute(cudaStream_t stream, cudaLaunchAttributeID attr,
                                   cudaLaunchAttributeValue* value) {
    CUDALAB_API("cudaStreamGetAttribute");
    Stream* s = rt.stream(stream);
    if (!s || !value) return fail(cudaErrorInvalidValue);
    auto it = s->attributes.find(int(attr));
    *value = it != s->attributes.end() ? it->second : cudaLaunchAttributeValue{};
    if (attr == cudaLaunchAttributePriority && it == s->attributes.end())
        value->priority = s->priority;
    return cudaSuccess;
}

cudaError_t cudaCtxResetPersistingL2Cache(void) { return cudaSuccess; }

// [SECTION] Events
// ----------------------------------------------------------------------------------

cudaError_t cudaEventCreateWithFlags(cudaEvent_t* event, unsigned int flags) {
    CUDALAB_API("cudaEventCreate");
    if (!event) return fail(cudaErrorInvalidValue);
    if (cudaError_t e = device_gate()) return fail(e);
    if (flags & ~unsigned(cudaEventBlockingSync | cudaEventDisableTiming | cudaEventInterprocess))
        return fail(cudaErrorInvalidValue);
    auto* e = new Event();
    e->device = rt.current_device();
    e->flags = flags;
    rt.events.insert(e);
    *event = reinterpret_cast<cudaEvent_t>(e);
    return cudaSuccess;
}

cudaError_t cudaEventCreate(cudaEvent_t* event) { return cudaEventCreateWithFlags(event, 0); }

cudaError_t cudaEventDestroy(cudaEvent_t event) {
    CUDALAB_API("cudaEventDestroy");
    Event* e = event_of(event);
    if (!e) return fail(cudaErrorInvalidResourceHandle);
    rt.events.erase(e);
    delete e;
    return cudaSuccess;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
    CUDALAB_API("cudaEventRecord");
    Event* e = event_of(event);
    Stream* s = rt.stream(stream);
    if (!e || !s) return fail(cudaErrorInvalidResourceHandle);
    if (cudaError_t g = device_gate()) return fail(g);
    if (s->capture_status == cudaStreamCaptureStatusActive) {
        // Recorded into a capture: waits on it join the capture at this point.
        e->capture_stream = s;
        e->capture_nodes = s->capture_frontier;
        return cudaSuccess;
    }
    e->capture_stream = nullptr;
    e->capture_nodes.clear();
    Work w;
    w.kind = Work::Kind::event_record;
    w.event = e;
    return result(issue(s, std::move(w), "cudaEventRecord"));
}

cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream) {
    return cudaEventRecord(event, stream ? stream : cudaStreamPerThread);
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int) {
    return cudaEventRecord(event, stream);
}

cudaError_t cudaEventQuery(cudaEvent_t event) {
    CUDALAB_API("cudaEventQuery");
    Event* e = event_of(event);
    if (!e) return fail(cudaErrorInvalidResourceHandle);
    if (cudaError_t g = device_gate()) return fail(g);
    if (e->recorded && e->time > rt.host_now()) return cudaErrorNotReady;
    rt.ordering.host_waits(e);  // the host saw it done
    return cudaSuccess;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event) {
    CUDALAB_API("cudaEventSynchronize");
    Event* e = event_of(event);
    if (!e) return fail(cudaErrorInvalidResourceHandle);
    if (e->recorded) rt.host_advance_to(e->time + rt.model.sync_cost * 1e9);
    rt.ordering.host_waits(e);
    rt.flush_printf();
    trim_pools();
    if (cudaError_t g = device_gate(true)) return fail(g);
    return cudaSuccess;
}

cudaError_t cudaEventElapsedTime(float* ms, cudaEvent_t start, cudaEvent_t end) {
    CUDALAB_API("cudaEventElapsedTime");
    Event* a = event_of(start);
    Event* b = event_of(end);
    if (!ms || !a || !b) return fail(!ms ? cudaErrorInvalidValue : cudaErrorInvalidResourceHandle);
    if ((a->flags | b->flags) & cudaEventDisableTiming) return fail(cudaErrorInvalidResourceHandle);
    if (!a->recorded || !b->recorded) return fail(cudaErrorInvalidResourceHandle);
    if (cudaError_t g = device_gate()) return fail(g);
    if (std::max(a->time, b->time) > rt.host_now()) return fail(cudaErrorNotReady);
    *ms = float((b->time - a->time) / 1e6);
    return cudaSuccess;
}

cudaError_t cudaEventElapsedTime_v2(float* ms, cudaEvent_t start, cudaEvent_t end) {
    return cudaEventElapsedTime(ms, start, end);
}

// [SECTION] Stream capture ------------------------------------------------------------------------

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, cudaStreamCaptureMode mode) {
    CUDALAB_API("cudaStreamBeginCapture");
    Stream* s = rt.stream(stream);
    if (!s) return fail(cudaErrorInvalidResourceHandle);
    if (s->legacy)
        return fail(cudaErrorStreamCaptureUnsupported);  // the legacy stream cannot be captured
    if (s->capture_status == cudaStreamCaptureStatusActive) return fail(cudaErrorIllegalState);
    static unsigned long long next_id = 1;
    auto* g = new Graph();
    rt.graphs.insert(g);
    s->capture_status = cudaStreamCaptureStatusActive;
    s->capture_mode = mode;
    s->capture_graph = g;
    s->capture_owns_graph = true;
    s->capture_frontier.clear();
    s->capture_id = next_id++;
    return cudaSuccess;
}

cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream, cudaStreamCaptureMode mode) {
    return cudaStreamBeginCapture(stream ? stream : cudaStreamPerThread, mode);
}

cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t* graph) {
    CUDALAB_API("cudaStreamEndCapture");
    Stream* s = rt.stream(stream);
    // A capture into the program's own graph (cudaStreamBeginCaptureToGraph) needs no out.
    if (!s ||
        (!graph && (s->capture_owns_graph || s->capture_status != cudaStreamCaptureStatusActive)))
        return fail(cudaErrorInvalidValue);
    if (s->capture_status != cudaStreamCaptureStatusActive) return fail(cudaErrorIllegalState);
    Graph* g = s->capture_graph;
    // A stream that joined the capture (through an event) must have been joined back into the
    // origin: its last captured work must come before the origin's. Otherwise CUDA ends the
    // capture with cudaErrorStreamCaptureUnjoined (a fork whose branch nothing waits for).
    std::set<const GraphNode*> before_end;
    std::vector<const GraphNode*> todo(s->capture_frontier.begin(), s->capture_frontier.end());
    while (!todo.empty()) {
        const GraphNode* n = todo.back();
        todo.pop_back();
        if (!before_end.insert(n).second) continue;
        for (const GraphNode* d : n->dependencies) todo.push_back(d);
    }
    bool unjoined = false;
    auto check = [&](Stream* t) {
        if (t == s || t->capture_graph != g) return;
        for (const GraphNode* n : t->capture_frontier) unjoined |= !before_end.count(n);
    };
    for (Stream* t : rt.streams) check(t);
    for (auto& d : rt.devices)
        for (auto& t : d.streams) check(t.get());
    // Every stream that joined this capture leaves it with the origin.
    auto leave = [&](Stream* t) {
        if (t->capture_graph != g) return;
        t->capture_status = cudaStreamCaptureStatusNone;
        t->capture_graph = nullptr;
        t->capture_frontier.clear();
    };
    for (Stream* t : rt.streams) leave(t);
    for (auto& d : rt.devices)
        for (auto& t : d.streams) leave(t.get());
    if (unjoined) {
        rt.warn("cudaStreamEndCapture: a stream that joined the capture was not joined back into "
                "the origin stream "
                "(record an event in it after its last work and make the origin wait for that "
                "event before ending the "
                "capture); CUDA ends the capture with cudaErrorStreamCaptureUnjoined");
        if (graph) *graph = nullptr;
        return fail(cudaErrorStreamCaptureUnjoined);
    }
    if (graph) *graph = reinterpret_cast<cudaGraph_t>(g);
    return cudaSuccess;
}

cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t* graph) {
    return cudaStreamEndCapture(stream ? stream : cudaStreamPerThread, graph);
}

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, cudaStreamCaptureStatus* status) {
    CUDALAB_API("cudaStreamIsCapturing");
    Stream* s = rt.stream(stream);
    if (!s || !status) return fail(cudaErrorInvalidValue);
    *status = cudaStreamCaptureStatus(s->capture_status);
    return cudaSuccess;
}

cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream, cudaStreamCaptureStatus* status) {
    return cudaStreamIsCapturing(stream ? stream : cudaStreamPerThread, status);
}

cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, cudaStreamCaptureStatus* status,
                                     unsigned long long* id, cudaGraph_t* graph,
                                     const cudaGraphNode_t** deps, const cudaGraphEdgeData** edges,
                                     size_t* count) {
    CUDALAB_API("cudaStreamGetCaptureInfo");
    Stream* s = rt.stream(stream);
    if (!s || !status) return fail(cudaErrorInvalidValue);
    *status = cudaStreamCaptureStatus(s->capture_status);
    if (id) *id = s->capture_id;
    if (graph) *graph = reinterpret_cast<cudaGraph_t>(s->capture_graph);
    if (deps) *deps = reinterpret_cast<const cudaGraphNode_t*>(s->capture_frontier.data());
    if (edges) *edges = nullptr;
    if (count) *count = s->capture_frontier.size();
    return cudaSuccess;
}

cudaError_t cudaThreadExchangeStreamCaptureMode(cudaStreamCaptureMode* mode) {
    if (!mode) return fail(cudaErrorInvalidValue);
    thread_local cudaStreamCaptureMode current = cudaStreamCaptureModeGlobal;
    std::swap(current, *mode);
    return cudaSuccess;
}

}  // extern "C"
