// Reports that survive any bytes. Source lines, file names, printf output and compiler messages
// come from the learner and may hold anything: invalid UTF-8 (a Latin-1 comment), terminal escape
// sequences, megabytes of text. Every writer (text, JSON, JUnit XML, Gradescope) reads a sanitised
// copy of the report, so each of them is well-formed and bounded whatever the submission held.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "lessons/course.h"

namespace cudalab::report {

// Bounds of what a report carries from the learner (a grader shows them; none needs more).
inline constexpr std::size_t max_message_bytes = 16 * 1024;  // one message, name or source line
inline constexpr std::size_t max_printf_bytes = 64 * 1024;   // device printf output in a report
inline constexpr std::size_t max_diagnostics = 50;
inline constexpr std::size_t max_log_lines = 200;

// `text` as valid UTF-8 (each invalid byte becomes U+FFFD), without control characters other
// than newline and tab (each becomes a space), without the non-characters U+FFFE/U+FFFF that XML
// forbids, and at most `max_bytes` long: a longer text is cut at a character boundary and says
// how much was cut.
std::string safe_text(std::string_view text, std::size_t max_bytes = max_message_bytes);

// A copy of the report with every string made safe and every list bounded.
lessons::CheckReport sanitized(const lessons::CheckReport& report);

}  // namespace cudalab::report
