// CUPTI activity records -> timeline events (programs/timeline_json.h). Separate from the injection
// library's entry points so that the tests can feed it records made by hand (no GPU there).
#pragma once

#include <cupti.h>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "programs/timeline_json.h"

namespace cudalab::programs::cupti {

// Names a runtime API callback id ("cudaMalloc"); the injection library asks CUPTI.
using ApiNamer = std::function<std::string(CUpti_CallbackId)>;

// The event for one record, or nothing for kinds that are not drawn (device records update
// `names` instead).
std::optional<TimelineEvent> to_event(const CUpti_Activity* record, const ApiNamer& api_name,
                                      TimelineNames* names);

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
