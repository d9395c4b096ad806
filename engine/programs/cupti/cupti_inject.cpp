// libcudalab_cupti.so: the timeline of a program running on a real GPU. `cudalab run --backend gpu
// --timeline FILE` starts the program with CUDA_INJECTION64_PATH naming this library, so the CUDA
// driver loads it and calls InitializeInjection() at cuInit. It turns CUPTI's activity records
// (runtime API calls, kernels, copies, memsets, and graph launches made from their nodes' records;
// per device and stream; managed memory's migrations and page faults from the unified memory
// counters) into the Trace Event JSON the emulated runtime writes (programs/timeline_json.h), and
// writes it to $CUDALAB_TIMELINE when the program exits. A CUPTI failure is said once on stderr and
// never stops the program; unified memory counters that CUPTI refuses (some platforms,
// virtualisation, GPUs without peer access to each other) are "not available" in the file's
// otherData, with CUPTI's reason, and the rest of the timeline is written as usual.
#include <cupti.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <string>
#include <vector>

#include "programs/cupti/cupti_records.h"

using namespace cudalab::programs;

namespace {

std::mutex g_mutex;
std::vector<TimelineEvent> g_events;
TimelineNames g_names;
std::string g_path;
cupti::ManagedAllocations g_managed;
std::size_t g_dropped = 0;
bool g_started = false;
// "measured", or "not available: " and why (otherData's "unified_memory").
std::string g_unified_memory = "not available: not configured";
CUpti_SubscriberHandle g_subscriber = nullptr;

bool ok(CUptiResult r, const char* what) {
    if (r == CUPTI_SUCCESS) return true;
    static bool said = false;  // once: the first failure explains the rest
    if (said) return false;
    said = true;
    const char* msg = nullptr;
    cuptiGetResultString(r, &msg);
    std::fprintf(stderr, "cudalab timeline: %s failed: %s (the timeline may be incomplete)\n", what,
                 msg ? msg : "?");
    return false;
}

std::string api_name(CUpti_CallbackId cbid) {
    const char* name = nullptr;
    if (cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &name) == CUPTI_SUCCESS && name)
        return cupti::strip_version_suffix(name);
    return "runtime API " + std::to_string(cbid);
}

constexpr std::size_t kBufferSize = 8u << 20;

void CUPTIAPI buffer_requested(uint8_t** buffer, size_t* size, size_t* max_records) {
    *buffer = static_cast<uint8_t*>(std::aligned_alloc(8, kBufferSize));
    *size = *buffer ? kBufferSize : 0;
    *max_records = 0;
}

void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t* buffer, size_t size,
                               size_t valid) {
    CUpti_Activity* record = nullptr;
    std::lock_guard<std::mutex> lock(g_mutex);
    while (valid > 0 && cuptiActivityGetNextRecord(buffer, valid, &record) == CUPTI_SUCCESS) {
        if (auto e = cupti::to_event(record, api_name, &g_names, &g_managed))
            g_events.push_back(std::move(*e));
    }
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS)
        g_dropped += dropped;
    std::free(buffer);
}

void write_timeline() {
    if (!g_started) return;
    ok(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED), "cuptiActivityFlushAll");
    std::lock_guard<std::mutex> lock(g_mutex);
    cupti::add_graph_launches(g_events);
    cupti::place_page_moves(g_events, g_managed);
    nlohmann::json other = cupti::unified_memory_summary(g_events, g_unified_memory);
    other["clock"] = "CUPTI (GPU)";
    other["dropped_events"] = g_dropped;
    nlohmann::json j = timeline_json(g_events, g_names, other);
    std::ofstream out(g_path);
    out << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    if (!out) std::fprintf(stderr, "cudalab timeline: cannot write %s\n", g_path.c_str());
    g_started = false;
}

std::string result_text(CUptiResult r) {
    const char* msg = nullptr;
    cuptiGetResultString(r, &msg);
    return msg ? msg : "CUPTI error " + std::to_string(int(r));
}

// Migrations both ways and page faults on both sides, for every managed allocation of the process.
// Cheap when nothing is managed (records are made only when pages move or fault), so always on.
// CUPTI wants the driver initialised first: tried at InitializeInjection (called from cuInit), and
// again when the first context is created unless CUPTI said the platform or device has no
// counters. The result (otherData's "unified_memory") names the call that failed and why.
std::string configure_unified_memory(CUptiResult* result) {
    const CUpti_ActivityUnifiedMemoryCounterKind kinds[] = {
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_HTOD,
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_BYTES_TRANSFER_DTOH,
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_CPU_PAGE_FAULT_COUNT,
        CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_KIND_GPU_PAGE_FAULT};
    CUpti_ActivityUnifiedMemoryCounterConfig config[4] = {};
    for (int i = 0; i < 4; ++i) {
        config[i].scope = CUPTI_ACTIVITY_UNIFIED_MEMORY_COUNTER_SCOPE_PROCESS_SINGLE_DEVICE;
        config[i].kind = kinds[i];
        config[i].deviceId = 0;
        config[i].enable = 1;
    }
    *result = cuptiActivityConfigureUnifiedMemoryCounter(config, 4);
    if (*result != CUPTI_SUCCESS)
        return "not available: cuptiActivityConfigureUnifiedMemoryCounter: " + result_text(*result);
    *result = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_UNIFIED_MEMORY_COUNTER);
    if (*result != CUPTI_SUCCESS)
        return "not available: cuptiActivityEnable(UNIFIED_MEMORY_COUNTER): " +
               result_text(*result);
    return "measured";
}

// No use trying again: the platform, the device or the GPUs' topology has no counters.
bool final_refusal(CUptiResult r) {
    return r == CUPTI_SUCCESS || r == CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED ||
           r == CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_ON_DEVICE ||
           r == CUPTI_ERROR_UM_PROFILING_NOT_SUPPORTED_ON_NON_P2P_DEVICES;
}

void CUPTIAPI on_callback(void*, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void*) {
    if (domain != CUPTI_CB_DOMAIN_RESOURCE || cbid != CUPTI_CBID_RESOURCE_CONTEXT_CREATED) return;
    static std::once_flag once;
    std::call_once(once, [] {
        CUptiResult r = CUPTI_SUCCESS;
        std::string state = configure_unified_memory(&r);
        if (r != CUPTI_SUCCESS) state += " (at the first context)";
        {
            std::lock_guard<std::mutex> lock(g_mutex);
            g_unified_memory = state;
        }
        cuptiEnableCallback(0, g_subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                            CUPTI_CBID_RESOURCE_CONTEXT_CREATED);
    });
}

}  // namespace

extern "C" __attribute__((visibility("default"))) int InitializeInjection(void) {
    const char* path = std::getenv("CUDALAB_TIMELINE");
    if (!path || !*path || g_started) return 1;
    g_path = path;
    if (!ok(cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed),
            "cuptiActivityRegisterCallbacks"))
        return 1;
    const CUpti_ActivityKind kinds[] = {CUPTI_ACTIVITY_KIND_DEVICE,
                                        CUPTI_ACTIVITY_KIND_RUNTIME,
                                        CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
                                        CUPTI_ACTIVITY_KIND_MEMCPY,
                                        CUPTI_ACTIVITY_KIND_MEMCPY2,
                                        CUPTI_ACTIVITY_KIND_MEMSET,
                                        CUPTI_ACTIVITY_KIND_MEMORY2};
    for (auto k : kinds) ok(cuptiActivityEnable(k), "cuptiActivityEnable");
    // Unified memory: its failure is reported in the timeline, not on the program's stderr.
    // CUDALAB_CUPTI_UNIFIED_MEMORY=0 leaves the counters off (to measure what they cost).
    CUptiResult um = CUPTI_SUCCESS;
    const char* um_setting = std::getenv("CUDALAB_CUPTI_UNIFIED_MEMORY");
    if (um_setting && std::string(um_setting) == "0")
        g_unified_memory = "not available: turned off (CUDALAB_CUPTI_UNIFIED_MEMORY=0)";
    else g_unified_memory = configure_unified_memory(&um);
    if (!final_refusal(um)) {
        if (cuptiSubscribe(&g_subscriber, on_callback, nullptr) == CUPTI_SUCCESS &&
            cuptiEnableCallback(1, g_subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                                CUPTI_CBID_RESOURCE_CONTEXT_CREATED) == CUPTI_SUCCESS)
            g_unified_memory += " (at cuInit; no CUDA context was created after)";
        else g_unified_memory += " (at cuInit; cuptiSubscribe failed, so not tried again)";
    }
    g_started = true;
    std::atexit(write_timeline);
    return 1;
}
