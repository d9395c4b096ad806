#include "cudart/timeline.h"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <map>

namespace cudalab::cudart {

std::string json_string(const std::string& text) {
    std::string out = "\"";
    for (std::size_t i = 0; i < text.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += char(c);
            continue;
        }
        if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
            continue;
        }
        if (c < 0x80) {
            out += char(c);
            continue;
        }
        // Keep well-formed UTF-8 sequences; replace any other byte with U+FFFD.
        int extra = (c & 0xE0) == 0xC0 ? 1 : (c & 0xF0) == 0xE0 ? 2 : (c & 0xF8) == 0xF0 ? 3 : -1;
        bool ok = extra > 0;
        for (int k = 1; ok && k <= extra; ++k)
            ok = i + std::size_t(k) < text.size() &&
                 (static_cast<unsigned char>(text[i + std::size_t(k)]) & 0xC0) == 0x80;
        if (!ok) {
            out += "\xEF\xBF\xBD";
            continue;
        }
        out.append(text, i, std::size_t(extra) + 1);
        i += std::size_t(extra);
    }
    return out + "\"";
}

thread_local std::uint64_t Timeline::issuing = 0;

void Timeline::name_stream(int process, int thread, std::string name) {
    for (auto& [key, n] : stream_names)
        if (key == process * 100000 + thread) return;
    stream_names.push_back({process * 100000 + thread, std::move(name)});
}

bool Timeline::write(std::string* error) const {
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    if (!f) {
        *error = "cannot write the timeline to " + path;
        return false;
    }
    f << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
    bool first = true;
    auto sep = [&] {
        if (!first) f << ",\n";
        first = false;
    };
    std::map<int, bool> processes;
    for (const auto& e : events) processes[e.process] = true;
    for (auto& [p, _] : processes) {
        sep();
        f << "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" << p << ",\"args\":{\"name\":"
          << json_string(p == 0 ? "host" : "GPU " + std::to_string(p - 1) + " (emulated)") << "}}";
    }
    for (const auto& [key, name] : stream_names) {
        sep();
        f << "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":" << key / 100000
          << ",\"tid\":" << key % 100000 << ",\"args\":{\"name\":" << json_string(name) << "}}";
    }
    // In issue order (readers rely on it: lesson 20 counts the host's waits between two copies):
    // by the call that issued each event, its work before the call's own entry on the host's
    // row, as when a call ran its work itself. Calls and the device thread add events at once
    // (executor.h), so the order they were added in depends on the machine.
    std::vector<const TimelineEvent*> order;
    order.reserve(events.size());
    for (const auto& e : events) order.push_back(&e);
    std::stable_sort(
        order.begin(), order.end(), [](const TimelineEvent* a, const TimelineEvent* b) {
            return std::pair(a->issued, a->process == 0) < std::pair(b->issued, b->process == 0);
        });
    char num[64];
    for (const TimelineEvent* p : order) {
        const TimelineEvent& e = *p;
        sep();
        f << "{\"name\":" << json_string(e.name) << ",\"cat\":" << json_string(e.category)
          << ",\"ph\":\"X\"";
        std::snprintf(num, sizeof num, "%.3f", e.start_ns / 1000.0);
        f << ",\"ts\":" << num;
        std::snprintf(num, sizeof num, "%.3f", (e.end_ns - e.start_ns) / 1000.0);
        f << ",\"dur\":" << num << ",\"pid\":" << e.process << ",\"tid\":" << e.thread;
        if (!e.args.empty()) {
            f << ",\"args\":{";
            for (std::size_t i = 0; i < e.args.size(); ++i)
                f << (i ? "," : "") << json_string(e.args[i].first) << ":" << e.args[i].second;
            f << "}";
        }
        f << "}";
    }
    f << "\n],\"otherData\":{\"clock\":\"modelled\",\"dropped_events\":" << dropped;
    for (const auto& [name, value] : counters) f << "," << json_string(name) << ":" << value;
    f << "}}\n";
    if (!f) {
        *error = "cannot write the timeline to " + path;
        return false;
    }
    return true;
}

}  // namespace cudalab::cudart
