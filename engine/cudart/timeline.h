// The timeline of a run: every API call, copy, kernel, host function and graph launch, per
// stream, with modelled start and end, written in the Trace Event Format (the JSON that Perfetto
// and chrome://tracing open): {"traceEvents": [{"name", "cat", "ph": "X", "ts", "dur", "pid",
// "tid", "args"}, ...]}. Times are microseconds of the modelled clock.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cudalab::cudart {

struct TimelineEvent {
    std::string name;
    std::string category;  // "api", "kernel", "memcpy", "memset", "host", "graph", "sync"
    int process = 0;       // 0: the host; 1 + device ordinal: a device
    int thread = 0;        // host: the thread; device: the stream id
    double start_ns = 0, end_ns = 0;
    std::vector<std::pair<std::string, std::string>> args;  // values are JSON already
};

class Timeline {
  public:
    bool enabled = false;
    std::string path;
    std::vector<TimelineEvent> events;
    std::vector<std::pair<int, std::string>> stream_names;  // (pid*100000 + tid) -> name
    void add(TimelineEvent e) {
        if (enabled && events.size() < max_events) events.push_back(std::move(e));
        else if (enabled) ++dropped;
    }
    void name_stream(int process, int thread, std::string name);
    // Writes the file; false with `error` when it cannot be written.
    bool write(std::string* error) const;
    std::uint64_t dropped = 0;
    std::vector<std::pair<std::string, std::uint64_t>> counters;  // written under "otherData"
    static constexpr std::size_t max_events = 2'000'000;
};

std::string json_string(const std::string& text);  // a JSON string literal, valid UTF-8

}  // namespace cudalab::cudart
