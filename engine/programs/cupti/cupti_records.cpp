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

std::string hex(std::uint64_t v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)v);
    return buf;
}

// A unified memory record names the CPU with this id; a device id that is the CPU's (not expected
// for the side a transfer or GPU fault is drawn on) is drawn on device 0 rather than on an
// imaginary device 4294967295.
std::uint32_t gpu_of(std::uint32_t id) { return id == CUPTI_UNIFIED_MEMORY_CPU_DEVICE_ID ? 0 : id; }

// The cause of a migration in the emulated runtime's words where it has them.
std::string migration_cause(std::uint32_t flags, bool to_device) {
    switch (flags) {
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_USER: return "prefetch";
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_COHERENCE:
        return to_device ? "kernel touch" : "host touch";
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_PREFETCH: return "driver prefetch";
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_EVICTION: return "eviction";
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_MIGRATION_CAUSE_ACCESS_COUNTERS: return "access counters";
    default: return "unknown";
    }
}

const char* access_type(std::uint32_t flags) {
    switch (flags) {
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_ACCESS_TYPE_READ: return "read";
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_ACCESS_TYPE_WRITE: return "write";
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_ACCESS_TYPE_ATOMIC: return "atomic";
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_ACCESS_TYPE_PREFETCH: return "prefetch";
    default: return "unknown";
    }
}

std::optional<TimelineEvent> unified_memory_event(const CUpti_ActivityUnifiedMemoryCounter3* u,
                                                  TimelineNames* names) {
    TimelineEvent e;
    e.start_ns = u->start;
    e.end_ns = u->end;
    e.tid = kPageRow;
    switch (u->counterKind) {
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD:
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH: {
        const bool to_device =
            u->counterKind == CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD;
        const std::uint32_t device = gpu_of(to_device ? u->dstId : u->srcId);
        e.name = to_device ? "pages to device" : "pages to host";
        e.category = "page";
        e.pid = device_pid(device);
        e.args = {{"address", hex(u->address)},
                  {"bytes", u->value},
                  {"pages", (u->value + kPageBytes - 1) / kPageBytes},
                  {"to", to_device ? "device" : "host"},
                  {"cause", migration_cause(u->flags, to_device)}};
        if (names) {
            names->threads.emplace(std::make_pair(e.pid, kPageRow), "managed pages");
            names->processes.emplace(e.pid, "GPU " + std::to_string(device));
        }
        return e;
    }
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT: {
        const std::uint32_t device = gpu_of(u->srcId);
        e.name = "GPU page fault";
        e.category = "page fault";
        e.pid = device_pid(device);
        e.args = {{"address", hex(u->address)},
                  {"fault_groups", u->value},
                  {"access", access_type(u->flags)}};
        if (names) {
            names->threads.emplace(std::make_pair(e.pid, kPageRow), "managed pages");
            names->processes.emplace(e.pid, "GPU " + std::to_string(device));
        }
        return e;
    }
    case CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT:
        // The record's end is to be ignored for CPU faults: an instant.
        e.name = "CPU page fault";
        e.category = "page fault";
        e.end_ns = e.start_ns;
        e.pid = 0;
        e.args = {{"address", hex(u->address)}, {"pc", hex(u->value)}};
        if (names) {
            names->threads.emplace(std::make_pair(std::int64_t(0), kPageRow), "CPU page faults");
            names->processes.emplace(0, "host");
        }
        return e;
    default: return std::nullopt;  // not configured (thrashing, throttling, remote maps)
    }
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

void place_page_moves(std::vector<TimelineEvent>& events, const ManagedAllocations& managed) {
    constexpr std::uint64_t block = 2u << 20;
    for (auto& e : events) {
        if (e.category != "page" || !e.args.contains("address") || !e.args["address"].is_string())
            continue;
        const std::uint64_t address =
            std::strtoull(e.args["address"].get<std::string>().c_str(), nullptr, 16);
        std::uint64_t base = address / block * block, bytes = block;
        bool known = false;
        if (auto it = managed.ranges.upper_bound(address); it != managed.ranges.begin()) {
            --it;
            if (address - it->first < it->second) {
                base = it->first;
                bytes = it->second;
                known = true;
            }
        }
        e.args["allocation"] = hex(base);
        e.args["allocation_pages"] = (bytes + kPageBytes - 1) / kPageBytes;
        e.args["first_page"] = (address - base) / kPageBytes;
        e.args["allocation_known"] = known;
    }
}

nlohmann::json unified_memory_summary(const std::vector<TimelineEvent>& events,
                                      const std::string& availability) {
    std::uint64_t to_device = 0, to_host = 0, prefetched = 0, gpu_faults = 0, cpu_faults = 0;
    for (const auto& e : events) {
        if (e.category == "page") {
            const std::uint64_t bytes = e.args.value("bytes", std::uint64_t(0));
            (e.name == "pages to device" ? to_device : to_host) += bytes;
            if (e.args.value("cause", std::string()) == "prefetch") prefetched += bytes;
        } else if (e.category == "page fault") {
            ++(e.pid == 0 ? cpu_faults : gpu_faults);
        }
    }
    return {{"unified_memory", availability},          {"managed_host_to_device_bytes", to_device},
            {"managed_device_to_host_bytes", to_host}, {"managed_prefetched_bytes", prefetched},
            {"managed_gpu_page_faults", gpu_faults},   {"managed_cpu_page_faults", cpu_faults}};
}

std::optional<TimelineEvent> to_event(const CUpti_Activity* record, const ApiNamer& api_name,
                                      TimelineNames* names, ManagedAllocations* managed) {
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
    case CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER:
        return unified_memory_event(
            reinterpret_cast<const CUpti_ActivityUnifiedMemoryCounter3*>(record), names);
    case CUPTI_ACTIVITY_KIND_MEMORY2: {
        auto* m = reinterpret_cast<const CUpti_ActivityMemory4*>(record);
        if (managed && m->memoryKind == CUPTI_ACTIVITY_MEMORY_KIND_MANAGED &&
            m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION &&
            m->bytes > 0)
            managed->ranges[m->address] = m->bytes;
        return std::nullopt;
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
