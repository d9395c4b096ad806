#include "programs/cupti/cupti_records.h"

#include <cxxabi.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>

namespace cudalab::programs::cupti {

std::string strip_version_suffix(const std::string& name) {
    std::size_t v = name.rfind("_v");
    if (v != std::string::npos && v + 2 < name.size() &&
        name.find_first_not_of("0123456789", v + 2) == std::string::npos)
        return name.substr(0, v);
    return name;
}

std::string demangle(const char* name) {
    if (!name) return "kernel";
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(name, nullptr, nullptr, &status),
                                             std::free);
    return status == 0 && d ? std::string(d.get()) : std::string(name);
}

std::string short_kernel_name(const std::string& d) {
    std::string s = d;
    // Drop the parameter list: the last top-level "(...)".
    if (!s.empty() && s.back() == ')') {
        int depth = 0;
        for (std::size_t i = s.size(); i-- > 0;) {
            if (s[i] == ')') ++depth;
            else if (s[i] == '(' && --depth == 0) {
                s.resize(i);
                break;
            }
        }
    }
    // Drop a return type (templates' names carry one): the last space outside <...>.
    int angle = 0;
    for (std::size_t i = s.size(); i-- > 0;) {
        if (s[i] == '>') ++angle;
        else if (s[i] == '<') --angle;
        else if (s[i] == ' ' && angle == 0) {
            s = s.substr(i + 1);
            break;
        }
    }
    return s.empty() ? d : s;
}

namespace {

std::string dims(int x, int y, int z) {
    char buf[64];  // (snprintf: GCC 12 warns falsely about "(" + std::to_string(...) chains)
    std::snprintf(buf, sizeof buf, "(%d,%d,%d)", x, y, z);
    return buf;
}

const char* copy_kind(std::uint8_t k) {
    switch (k) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return "HtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return "AtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA: return "AtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD: return "AtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA: return "DtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "PtoP";
    default: return "unknown";
    }
}

const char* memory_kind(std::uint8_t k) {
    switch (k) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE: return "pageable";
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: return "pinned";
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE: return "device";
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY: return "array";
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED: return "managed";
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC: return "device static";
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC: return "managed static";
    default: return "unknown";
    }
}

// Device N is process 1+N, as in the emulated runtime's timeline.
std::int64_t device_pid(std::uint32_t device) { return 1 + std::int64_t(device); }

void name_stream(TimelineNames* names, std::uint32_t device, std::uint32_t stream) {
    if (!names) return;
    names->threads.emplace(std::make_pair(device_pid(device), std::int64_t(stream)),
                           "stream " + std::to_string(stream));
    names->processes.emplace(device_pid(device), "GPU " + std::to_string(device));
}

}  // namespace

void add_graph_launches(std::vector<TimelineEvent>& events) {
    std::map<std::pair<std::uint64_t, std::uint64_t>, TimelineEvent>
        launches;  // (graph, correlation)
    for (const auto& e : events) {
        if (e.category == "api" || e.category == "graph" || !e.args.contains("graph_id")) continue;
        std::uint64_t graph = e.args["graph_id"].get<std::uint64_t>();
        if (graph == 0) continue;
        std::uint64_t correlation = e.args.value("correlation", std::uint64_t(0));
        auto [it, fresh] = launches.try_emplace({graph, correlation});
        TimelineEvent& g = it->second;
        if (fresh) {
            g.name = "graph launch";
            g.category = "graph";
            g.start_ns = e.start_ns;
            g.end_ns = e.end_ns;
            g.pid = e.pid;
            g.tid = e.tid;
            g.args = {{"graph_id", graph}, {"nodes", 0}, {"correlation", correlation}};
        }
        g.start_ns = std::min(g.start_ns, e.start_ns);
        g.end_ns = std::max(g.end_ns, e.end_ns);
        g.args["nodes"] = g.args["nodes"].get<int>() + 1;
    }
    for (auto& [key, g] : launches) events.push_back(std::move(g));
}

std::optional<TimelineEvent> to_event(const CUpti_Activity* record, const ApiNamer& api_name,
                                      TimelineNames* names) {
    TimelineEvent e;
    switch (record->kind) {
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
        auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
        e.name = api_name ? api_name(a->cbid) : "api " + std::to_string(a->cbid);
        e.category = "api";
        e.start_ns = a->start;
        e.end_ns = a->end;
        e.pid = 0;
        e.tid = 0;
        e.args = {{"correlation", a->correlationId}, {"result", a->returnValue}};
        if (names) {
            auto [it, fresh] =
                names->host_threads.emplace(a->threadId, std::int64_t(names->host_threads.size()));
            e.tid = it->second;
            names->processes.emplace(0, "host");
            if (fresh)
                names->threads.emplace(std::make_pair(std::int64_t(0), e.tid),
                                       e.tid == 0 ? "main thread"
                                                  : "thread " + std::to_string(e.tid));
        }
        return e;
    }
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
        std::string full = demangle(k->name);
        e.name = short_kernel_name(full);
        e.category = "kernel";
        e.start_ns = k->start;
        e.end_ns = k->end;
        e.pid = device_pid(k->deviceId);
        e.tid = k->streamId;
        e.args = {{"grid", dims(k->gridX, k->gridY, k->gridZ)},
                  {"block", dims(k->blockX, k->blockY, k->blockZ)},
                  {"dynamic_shared", k->dynamicSharedMemory},
                  {"static_shared", k->staticSharedMemory},
                  {"registers_per_thread", k->registersPerThread},
                  {"graph", k->graphId != 0},
                  {"graph_id", k->graphId},
                  {"function", full},
                  {"correlation", k->correlationId}};
        name_stream(names, k->deviceId, k->streamId);
        return e;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
        e.name = std::string("memcpy ") + copy_kind(m->copyKind);
        e.category = "memcpy";
        e.start_ns = m->start;
        e.end_ns = m->end;
        e.pid = device_pid(m->deviceId);
        e.tid = m->streamId;
        e.args = {{"bytes", m->bytes},
                  {"pinned", m->srcKind == CUPTI_ACTIVITY_MEMORY_KIND_PINNED ||
                                 m->dstKind == CUPTI_ACTIVITY_MEMORY_KIND_PINNED},
                  {"graph", m->graphId != 0},
                  {"graph_id", m->graphId},
                  {"src", memory_kind(m->srcKind)},
                  {"dst", memory_kind(m->dstKind)},
                  {"async", (m->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) != 0},
                  {"correlation", m->correlationId}};
        name_stream(names, m->deviceId, m->streamId);
        return e;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY2: {
        auto* m = reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(record);
        e.name = "memcpy PtoP";
        e.category = "memcpy";
        e.start_ns = m->start;
        e.end_ns = m->end;
        e.pid = device_pid(m->deviceId);
        e.tid = m->streamId;
        e.args = {{"bytes", m->bytes},
                  {"src_device", m->srcDeviceId},
                  {"dst_device", m->dstDeviceId},
                  {"correlation", m->correlationId}};
        name_stream(names, m->deviceId, m->streamId);
        return e;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
        e.name = "memset";
        e.category = "memset";
        e.start_ns = m->start;
        e.end_ns = m->end;
        e.pid = device_pid(m->deviceId);
        e.tid = m->streamId;
        e.args = {{"bytes", m->bytes},
                  {"value", m->value},
                  {"graph", m->graphId != 0},
                  {"graph_id", m->graphId},
                  {"correlation", m->correlationId}};
        name_stream(names, m->deviceId, m->streamId);
        return e;
    }
    case CUPTI_ACTIVITY_KIND_GRAPH_TRACE: {
        auto* g = reinterpret_cast<const CUpti_ActivityGraphTrace2*>(record);
        e.name = "graph launch";
        e.category = "graph";
        e.start_ns = g->start;
        e.end_ns = g->end;
        e.pid = device_pid(g->deviceId);
        e.tid = g->streamId;
        e.args = {{"graph", g->graphId}, {"correlation", g->correlationId}};
        name_stream(names, g->deviceId, g->streamId);
        return e;
    }
    case CUPTI_ACTIVITY_KIND_DEVICE: {
        auto* d = reinterpret_cast<const CUpti_ActivityDevice5*>(record);
        if (names)
            names->processes[device_pid(d->id)] =
                "GPU " + std::to_string(d->id) + " (" + (d->name ? d->name : "?") + ")";
        return std::nullopt;
    }
    default: return std::nullopt;
    }
}

}  // namespace cudalab::programs::cupti
