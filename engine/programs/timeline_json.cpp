#include "programs/timeline_json.h"

#include <algorithm>
#include <cstdint>

namespace cudalab::programs {

nlohmann::json timeline_json(std::vector<TimelineEvent> events, const TimelineNames& names,
                             const nlohmann::json& other) {
    std::stable_sort(
        events.begin(), events.end(),
        [](const TimelineEvent& a, const TimelineEvent& b) { return a.start_ns < b.start_ns; });
    const std::uint64_t origin = events.empty() ? 0 : events.front().start_ns;
    nlohmann::json list = nlohmann::json::array();
    for (const auto& [pid, name] : names.processes)
        list.push_back({{"name", "process_name"},
                        {"ph", "M"},
                        {"pid", pid},
                        {"tid", 0},
                        {"args", {{"name", name}}}});
    for (const auto& [key, name] : names.threads)
        list.push_back({{"name", "thread_name"},
                        {"ph", "M"},
                        {"pid", key.first},
                        {"tid", key.second},
                        {"args", {{"name", name}}}});
    for (const auto& e : events) {
        // A record whose end precedes its start (seen with clocks read on two sides) lasts 0.
        std::uint64_t end = std::max(e.end_ns, e.start_ns);
        list.push_back({{"name", e.name},
                        {"cat", e.category},
                        {"ph", "X"},
                        {"ts", double(e.start_ns - origin) / 1000.0},
                        {"dur", double(end - e.start_ns) / 1000.0},
                        {"pid", e.pid},
                        {"tid", e.tid},
                        {"args", e.args}});
    }
    return {{"traceEvents", list}, {"displayTimeUnit", "ns"}, {"otherData", other}};
}

}  // namespace cudalab::programs
