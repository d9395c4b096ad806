// Turning NVRTC's log into Diagnostics at the learner's file:line:column, and back into text.
#pragma once

#include "compiler/compiler.h"

#include <string>
#include <string_view>
#include <vector>

namespace cudalab::compiler {

struct LogSource {
    std::string_view program_name;  // the file name NVRTC was given, as the log spells it
    std::string_view learner_path;  // what a Diagnostic in that file names instead
    std::string_view source;        // that file's text, to place the caret on the right column
};

// The compiler's diagnostics, in log order. ptxas lines must already be removed
// (parse_ptxas_report); summary lines ("1 error detected ...") are skipped.
std::vector<Diagnostic> parse_nvrtc_log(std::string_view log, const LogSource& source);

// "file:line:col: severity: message" followed by the context lines, like gcc; the position is
// shortened when line or column is unknown.
std::string format_diagnostic(const Diagnostic& diagnostic);

}  // namespace cudalab::compiler
