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
    std::uint64_t issued = 0;  // the call that issued it (Timeline::issuing), for the file's order
};

class Timeline {
  public:
    bool enabled = false;
    std::string path;
    std::vector<TimelineEvent> events;
    std::vector<std::pair<int, std::string>> stream_names;  // (pid*100000 + tid) -> name
    void add(TimelineEvent e) {
        e.issued = issuing;
        if (enabled && events.size() < max_events) events.push_back(std::move(e));
        else if (enabled) ++dropped;
    }
    // The program's call being served on this thread, counted from 1 (ApiCall), or on the device
    // thread the call that issued the work it runs (executor.h). The file lists events in the
    // order of the calls that issued them, as if each call ran its work itself, whichever thread
    // added them first.
    static thread_local std::uint64_t issuing;
    std::uint64_t calls = 0;
    void name_stream(int process, int thread, std::string name);
    // Writes the file; false with `error` when it cannot be written.
    bool write(std::string* error) const;
    std::uint64_t dropped = 0;
    std::vector<std::pair<std::string, std::uint64_t>> counters;  // written under "otherData"
    static constexpr std::size_t max_events = 2'000'000;
};

std::string json_string(const std::string& text);  // a JSON string literal, valid UTF-8

}  // namespace cudalab::cudart
