// The timeline file of a whole program: Chrome's Trace Event Format, which Perfetto
// (ui.perfetto.dev) and chrome://tracing open. One complete event ("ph":"X") per API call, copy,
// memset, kernel and graph launch:
//   {"traceEvents":[{"name":..,"cat":..,"ph":"X","ts":us,"dur":us,"pid":P,"tid":T,"args":{..}},...]}
// pid is the device ordinal for work on a GPU (tid: its stream) and the program's process id for
// host-side API calls (tid: the calling thread). Times are microseconds from the first event.
// Written by the emulated runtime and, on a GPU, by cudalab's CUPTI injection library (this code).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cudalab::programs {

struct TimelineEvent {
    std::string name;
    std::string category;       // "api", "kernel", "memcpy", "memset", "graph", "sync"
    std::uint64_t start_ns = 0, end_ns = 0;
    std::int64_t pid = 0;       // device ordinal, or the host process id
    std::int64_t tid = 0;       // stream id, or host thread id
    nlohmann::json args = nlohmann::json::object();
};

// Names shown for processes and threads (metadata events): pid -> name, (pid, tid) -> name.
struct TimelineNames {
    std::map<std::int64_t, std::string> processes;
    std::map<std::pair<std::int64_t, std::int64_t>, std::string> threads;
};

// The whole file, events sorted by start time.
nlohmann::json timeline_json(std::vector<TimelineEvent> events, const TimelineNames& names);

}  // namespace cudalab::programs
