// ptxas -v prints, per kernel (verified with NVRTC 13.0, -Xptxas=-v, sm_90):
//   ptxas info    : Compiling entry function '_Z2smPf' for 'sm_90'
//   ptxas info    : Function properties for _Z2smPf
//   ptxas         .     8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 24 registers, used 1 barriers, 8 bytes cumulative stack size,
//                   1024 bytes smem                      (one line in the log)
//   ptxas info    : Compile time = 2.256 ms
// "Function properties" also appears for non-inlined device functions, whose stack frame belongs
// to the function and not to the entry being compiled; the "Used" line always follows its entry.
// Items of the "Used" line come and go (no "smem" item when there is none), so each one is read
// by its unit rather than by position.
#include "compiler/ptxas_report.h"

#include <climits>
#include <cstdint>

namespace cudalab::compiler {
namespace {

bool starts_with(std::string_view text, std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
}

std::string_view trim(std::string_view text) {
    while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
        text.remove_suffix(1);
    return text;
}

// Whether `line` is "ptxas <kind> : <rest>"; sets `rest`.
bool ptxas_line(std::string_view line, std::string_view kind, std::string_view& rest) {
    if (!starts_with(line, "ptxas")) return false;
    std::string_view after = trim(line.substr(5));
    if (!starts_with(after, kind)) return false;
    after = trim(after.substr(kind.size()));
    if (!starts_with(after, ":")) return false;
    rest = trim(after.substr(1));
    return true;
}

// Leading unsigned number of `text`, saturated to INT_MAX; advances `text` past it.
bool take_number(std::string_view& text, int& value) {
    text = trim(text);
    size_t digits = 0;
    int64_t number = 0;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') {
        number = number * 10 + (text[digits] - '0');
        if (number > INT_MAX) number = INT_MAX;
        ++digits;
    }
    if (digits == 0) return false;
    value = static_cast<int>(number);
    text.remove_prefix(digits);
    text = trim(text);
    return true;
}

// "Used 24 registers, used 1 barriers, 1024 bytes smem" -> fields of `resources`.
void read_usage_items(std::string_view items, KernelResources& resources) {
    while (!items.empty()) {
        const size_t comma = items.find(',');
        std::string_view item = trim(items.substr(0, comma));
        items = comma == std::string_view::npos ? std::string_view{} : items.substr(comma + 1);
        if (starts_with(item, "Used ") || starts_with(item, "used ")) item.remove_prefix(5);
        int value = 0;
        if (!take_number(item, value)) continue;
        if (starts_with(item, "registers")) resources.registers = value;
        else if (starts_with(item, "barriers")) resources.barriers = value;
        else if (item == "bytes smem") resources.static_shared_bytes = value;
        else if (item == "bytes cumulative stack size" && value > resources.stack_frame_bytes)
            resources.stack_frame_bytes = value;  // includes the frames of called functions
    }
}

// "8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads" -> fields of `resources`.
void read_frame_items(std::string_view items, KernelResources& resources) {
    while (!items.empty()) {
        const size_t comma = items.find(',');
        std::string_view item = trim(items.substr(0, comma));
        items = comma == std::string_view::npos ? std::string_view{} : items.substr(comma + 1);
        int value = 0;
        if (!take_number(item, value)) continue;
        if (item == "bytes stack frame" && value > resources.stack_frame_bytes)
            resources.stack_frame_bytes = value;
        else if (item == "bytes spill stores") resources.spill_store_bytes = value;
        else if (item == "bytes spill loads") resources.spill_load_bytes = value;
    }
}

// Text between the first pair of single quotes, or "" when there is none.
std::string_view quoted(std::string_view text) {
    const size_t open = text.find('\'');
    if (open == std::string_view::npos) return {};
    const size_t close = text.find('\'', open + 1);
    if (close == std::string_view::npos) return {};
    return text.substr(open + 1, close - open - 1);
}

// ptxas names kernels by their mangled names; the learner knows the source names.
std::string with_source_names(std::string_view text) {
    std::string out;
    size_t pos = 0;
    while (pos < text.size()) {
        const size_t open = text.find('\'', pos);
        const size_t close = open == std::string_view::npos ? open : text.find('\'', open + 1);
        if (close == std::string_view::npos) break;
        const std::string name(text.substr(open + 1, close - open - 1));
        out.append(text.substr(pos, open + 1 - pos));
        out += source_name_of(name);
        out += '\'';
        pos = close + 1;
    }
    out.append(text.substr(pos));
    return out;
}

}  // namespace

PtxasReport parse_ptxas_report(std::string_view log) {
    PtxasReport report;
    std::string current_entry;      // the entry whose "Used" line comes next
    std::string properties_target;  // the function whose "Function properties" come next
    size_t pos = 0;
    while (pos < log.size()) {
        size_t end = log.find('\n', pos);
        if (end == std::string_view::npos) end = log.size();
        const std::string_view line = log.substr(pos, end - pos);
        pos = end + 1;

        if (!starts_with(line, "ptxas")) {
            report.front_end_log.append(line);
            report.front_end_log += '\n';
            continue;
        }
        std::string_view rest;
        if (ptxas_line(line, "info", rest)) {
            if (starts_with(rest, "Compiling entry function")) {
                current_entry = std::string(quoted(rest));
                properties_target.clear();
                if (!current_entry.empty()) {
                    report.entries[current_entry].mangled_name = current_entry;
                }
            } else if (starts_with(rest, "Function properties for")) {
                properties_target = std::string(trim(rest.substr(23)));
            } else if (starts_with(rest, "Used") && !current_entry.empty()) {
                read_usage_items(rest, report.entries[current_entry]);
            }
            // gmem totals and compile times carry nothing per kernel.
        } else if (const std::string_view after = trim(line.substr(5)); starts_with(after, ".")) {
            // "ptxas    .   8 bytes stack frame, ..." continues "Function properties for <name>".
            const std::string_view items = trim(after.substr(1));
            if (!properties_target.empty() && properties_target == current_entry) {
                read_frame_items(items, report.entries[current_entry]);
            }
        } else if (ptxas_line(line, "error", rest) || ptxas_line(line, "fatal", rest)) {
            report.messages.push_back({Severity::error, with_source_names(rest)});
        } else if (ptxas_line(line, "warning", rest)) {
            report.messages.push_back({Severity::warning, with_source_names(rest)});
        } else {
            // Some other ptxas line: not a resource report, so leave it to the diagnostics.
            report.front_end_log.append(line);
            report.front_end_log += '\n';
        }
    }
    return report;
}

}  // namespace cudalab::compiler
