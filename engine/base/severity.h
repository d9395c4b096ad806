// How serious a diagnostic is: the compiler's, ptxas', a run's. One enum and one spelling, so the
// compiler, the reports (text, JSON), the CLI and the app agree on the words they print.
#pragma once

#include <optional>
#include <string_view>

namespace cudalab {

enum class Severity { error, warning, remark };

// "error", "warning", "remark": the words gcc-style messages and the JSON reports use.
constexpr const char* to_string(Severity severity) {
    switch (severity) {
    case Severity::error: return "error";
    case Severity::warning: return "warning";
    case Severity::remark: return "remark";
    }
    return "error";
}

// The inverse of to_string; nothing for any other word.
constexpr std::optional<Severity> severity_from_string(std::string_view word) {
    for (Severity s : {Severity::error, Severity::warning, Severity::remark})
        if (word == to_string(s)) return s;
    return std::nullopt;
}

}  // namespace cudalab
