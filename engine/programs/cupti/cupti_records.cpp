#include "programs/cupti/cupti_records.h"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>

namespace cudalab::programs::cupti {

std::string strip_version_suffix(const std::string& name) {
    std::size_t v = name.rfind("_v");
    if (v != std::string::npos && v + 2 < name.size() && name.find_first_not_of("0123456789", v + 2) == std::string::npos)
        return name.substr(0, v);
    return name;
}

std::string demangle(const char* name) {
    if (!name) return "kernel";
    int status = 0;
    std::unique_ptr<char, void (*)(void*)> d(abi::__cxa_demangle(name, nullptr, nullptr, &status), std::free);
    return status == 0 && d ? std::string(d.get()) : std::string(name);
}

namespace {

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

void name_stream(TimelineNames* names, std::uint32_t device, std::uint32_t stream) {
    if (names) names->threads.emplace(std::make_pair(std::int64_t(device), std::int64_t(stream)), "stream " + std::to_string(stream));
    if (names) names->processes.emplace(std::int64_t(device), "GPU " + std::to_string(device));
}

}  // namespace

std::optional<TimelineEvent> to_event(const CUpti_Activity* record, const ApiNamer& api_name, TimelineNames* names) {
    TimelineEvent e;
    switch (record->kind) {
        case CUPTI_ACTIVITY_KIND_RUNTIME:
        case CUPTI_ACTIVITY_KIND_DRIVER: {
            auto* a = reinterpret_cast<const CUpti_ActivityAPI*>(record);
            e.name = api_name ? api_name(a->cbid) : "api " + std::to_string(a->cbid);
            e.category = "api";
            e.start_ns = a->start;
            e.end_ns = a->end;
            e.pid = a->processId;
            e.tid = a->threadId;
            e.args = {{"correlation", a->correlationId}, {"result", a->returnValue}};
            if (names) {
                names->processes.emplace(std::int64_t(a->processId), "host (process " + std::to_string(a->processId) + ")");
                names->threads.emplace(std::make_pair(std::int64_t(a->processId), std::int64_t(a->threadId)), "thread " + std::to_string(a->threadId));
            }
            return e;
        }
        case CUPTI_ACTIVITY_KIND_KERNEL:
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
            auto* k = reinterpret_cast<const CUpti_ActivityKernel10*>(record);
            e.name = demangle(k->name);
            e.category = "kernel";
            e.start_ns = k->start;
            e.end_ns = k->end;
            e.pid = k->deviceId;
            e.tid = k->streamId;
            e.args = {{"grid", {k->gridX, k->gridY, k->gridZ}},
                      {"block", {k->blockX, k->blockY, k->blockZ}},
                      {"registers_per_thread", k->registersPerThread},
                      {"static_shared_bytes", k->staticSharedMemory},
                      {"dynamic_shared_bytes", k->dynamicSharedMemory},
                      {"correlation", k->correlationId}};
            name_stream(names, k->deviceId, k->streamId);
            return e;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY: {
            auto* m = reinterpret_cast<const CUpti_ActivityMemcpy6*>(record);
            e.name = std::string("Memcpy ") + copy_kind(m->copyKind);
            e.category = "memcpy";
            e.start_ns = m->start;
            e.end_ns = m->end;
            e.pid = m->deviceId;
            e.tid = m->streamId;
            e.args = {{"bytes", m->bytes},
                      {"src", memory_kind(m->srcKind)},
                      {"dst", memory_kind(m->dstKind)},
                      {"async", (m->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC) != 0},
                      {"correlation", m->correlationId}};
            name_stream(names, m->deviceId, m->streamId);
            return e;
        }
        case CUPTI_ACTIVITY_KIND_MEMCPY2: {
            auto* m = reinterpret_cast<const CUpti_ActivityMemcpyPtoP4*>(record);
            e.name = "Memcpy PtoP";
            e.category = "memcpy";
            e.start_ns = m->start;
            e.end_ns = m->end;
            e.pid = m->deviceId;
            e.tid = m->streamId;
            e.args = {{"bytes", m->bytes}, {"src_device", m->srcDeviceId}, {"dst_device", m->dstDeviceId}, {"correlation", m->correlationId}};
            name_stream(names, m->deviceId, m->streamId);
            return e;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET: {
            auto* m = reinterpret_cast<const CUpti_ActivityMemset4*>(record);
            e.name = "Memset";
            e.category = "memset";
            e.start_ns = m->start;
            e.end_ns = m->end;
            e.pid = m->deviceId;
            e.tid = m->streamId;
            e.args = {{"bytes", m->bytes}, {"value", m->value}, {"correlation", m->correlationId}};
            name_stream(names, m->deviceId, m->streamId);
            return e;
        }
        case CUPTI_ACTIVITY_KIND_GRAPH_TRACE: {
            auto* g = reinterpret_cast<const CUpti_ActivityGraphTrace2*>(record);
            e.name = "Graph " + std::to_string(g->graphId);
            e.category = "graph";
            e.start_ns = g->start;
            e.end_ns = g->end;
            e.pid = g->deviceId;
            e.tid = g->streamId;
            e.args = {{"graph", g->graphId}, {"correlation", g->correlationId}};
            name_stream(names, g->deviceId, g->streamId);
            return e;
        }
        case CUPTI_ACTIVITY_KIND_DEVICE: {
            auto* d = reinterpret_cast<const CUpti_ActivityDevice5*>(record);
            if (names) names->processes[std::int64_t(d->id)] = "GPU " + std::to_string(d->id) + ": " + (d->name ? d->name : "?");
            return std::nullopt;
        }
        default:
            return std::nullopt;
    }
}

}  // namespace cudalab::programs::cupti
