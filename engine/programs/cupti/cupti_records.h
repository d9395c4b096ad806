// CUPTI activity records -> timeline events (programs/timeline_json.h). Separate from the injection
// library's entry points so that the tests can feed it records made by hand (no GPU there).
#pragma once

#include <cupti.h>

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "programs/timeline_json.h"

namespace cudalab::programs::cupti {

// Names a runtime API callback id ("cudaMalloc"); the injection library asks CUPTI.
using ApiNamer = std::function<std::string(CUpti_CallbackId)>;

// Managed allocations seen in CUPTI_ACTIVITY_KIND_MEMORY2 records: base address -> bytes. A unified
// memory record gives only the address of what moved; the emulated runtime's page events (and the
// app's page map) name the allocation and the pages within it.
struct ManagedAllocations {
    std::map<std::uint64_t, std::uint64_t> ranges;
};

// The row of a device's page events, as in the emulated runtime (engine/cudart/work.cpp); on the
// host (pid 0) the row of CPU page faults.
constexpr std::int64_t kPageRow = 99999;
// The unit of the timeline's "pages": the emulated runtime's page. NVIDIA's driver moves managed
// memory in pieces of 4 KB to 2 MB; a record's "bytes" is what it moved.
constexpr std::uint64_t kPageBytes = 4096;

// The event for one record, or nothing for kinds that are not drawn (device records update
// `names` instead; managed allocation records update `managed`).
//
// Unified memory counter records (CUpti_ActivityUnifiedMemoryCounter3) become the emulated
// runtime's page events: BYTES_TRANSFER_HTOD "pages to device" and BYTES_TRANSFER_DTOH "pages to
// host" (cat "page", on the device's row kPageRow) with "bytes", "pages", "to", "address" and a
// "cause" in the runtime's words where there is one ("prefetch" for cudaMemPrefetchAsync, "kernel
// touch" / "host touch" for a fault's migration; else "driver prefetch", "eviction", "access
// counters", "unknown"); GPU_PAGE_FAULT "GPU page fault" (the device's row) and
// CPU_PAGE_FAULT_COUNT "CPU page fault" (the host's row kPageRow), cat "page fault".
std::optional<TimelineEvent> to_event(const CUpti_Activity* record, const ApiNamer& api_name,
                                      TimelineNames* names, ManagedAllocations* managed = nullptr);

// Gives each page event the allocation it falls in ("allocation", "allocation_pages",
// "first_page", as the emulated runtime writes them). An address in no known allocation is placed
// in its 2 MB block ("allocation_known": false).
void place_page_moves(std::vector<TimelineEvent>& events, const ManagedAllocations& managed);

// The totals of the page events for the timeline's "otherData": managed_host_to_device_bytes,
// managed_device_to_host_bytes (all migrations), managed_prefetched_bytes (cudaMemPrefetchAsync's),
// managed_gpu_page_faults, managed_cpu_page_faults; and "unified_memory": `availability`
// ("measured", or "not available: " and why).
nlohmann::json unified_memory_summary(const std::vector<TimelineEvent>& events,
                                      const std::string& availability);

// One "graph launch" event per launch of a graph, spanning the work of its nodes (the kernel,
// memcpy and memset records with the same graph id and correlation id). CUPTI's own graph-level
// records (CUPTI_ACTIVITY_KIND_GRAPH_TRACE) would replace the nodes' records, which the timeline
// keeps.
void add_graph_launches(std::vector<TimelineEvent>& events);

// "cudaMalloc_v3020" -> "cudaMalloc".
std::string strip_version_suffix(const std::string& name);
// The demangled name of a kernel, or the name as it is.
std::string demangle(const char* name);
// "void scale<int>(int*, int)" -> "scale<int>": the name the emulated runtime's timeline shows.
std::string short_kernel_name(const std::string& demangled);

}  // namespace cudalab::programs::cupti
