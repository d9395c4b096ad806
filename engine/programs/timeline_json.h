// The timeline file of a whole program: Chrome's Trace Event Format, which Perfetto
// (ui.perfetto.dev) and chrome://tracing open. One complete event ("ph":"X") per API call, copy,
// memset, kernel and graph launch:
//   {"traceEvents":[{"name":..,"cat":..,"ph":"X","ts":us,"dur":us,"pid":P,"tid":T,"args":{..}},...]}
// As the emulated runtime writes it (engine/cudart/timeline.h): pid 0 is the host (tid: the calling
// thread, 0 the first), pid 1+N is device N (tid: the stream). Times are microseconds from the
// first event. This code writes the GPU's file, from CUPTI's records (programs/cupti/).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cudalab::programs {

struct TimelineEvent {
    std::string name;
    std::string category;  // "api", "kernel", "memcpy", "memset", "graph", "sync"
    std::uint64_t start_ns = 0, end_ns = 0;
    std::int64_t pid = 0;  // 0: the host; 1 + device ordinal: a device
    // host: the thread (0, 1, ... in order of appearance); device: the stream
    std::int64_t tid = 0;
    nlohmann::json args = nlohmann::json::object();
};

// Names shown for processes and threads (metadata events): pid -> name, (pid, tid) -> name.
struct TimelineNames {
    std::map<std::int64_t, std::string> processes;
    std::map<std::pair<std::int64_t, std::int64_t>, std::string> threads;
    std::map<std::uint64_t, std::int64_t> host_threads;  // OS thread id -> tid
};

// The whole file, events sorted by start time.
// `other` goes under "otherData" (e.g. the clock, dropped records).
nlohmann::json timeline_json(std::vector<TimelineEvent> events, const TimelineNames& names,
                             const nlohmann::json& other = nlohmann::json::object());

}  // namespace cudalab::programs
