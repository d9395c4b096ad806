// libcudalab_cupti.so: the timeline of a program running on a real GPU. `cudalab run --backend gpu
// --timeline FILE` starts the program with CUDA_INJECTION64_PATH naming this library, so the CUDA
// driver loads it and calls InitializeInjection() at cuInit. It turns CUPTI's activity records
// (runtime API calls, kernels, copies, memsets, and graph launches made from their nodes' records;
// per device and stream) into the
// Trace Event JSON the emulated runtime writes (programs/timeline_json.h), and writes it to
// $CUDALAB_TIMELINE when the program exits. A CUPTI failure is said once on stderr and never stops
// the program.
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
std::size_t g_dropped = 0;
bool g_started = false;

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
        if (auto e = cupti::to_event(record, api_name, &g_names)) g_events.push_back(std::move(*e));
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
    nlohmann::json j =
        timeline_json(g_events, g_names, {{"clock", "CUPTI (GPU)"}, {"dropped_events", g_dropped}});
    std::ofstream out(g_path);
    out << j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    if (!out) std::fprintf(stderr, "cudalab timeline: cannot write %s\n", g_path.c_str());
    g_started = false;
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
                                        CUPTI_ACTIVITY_KIND_MEMSET};
    for (auto k : kinds) ok(cuptiActivityEnable(k), "cuptiActivityEnable");
    g_started = true;
    std::atexit(write_timeline);
    return 1;
}
