// Reading ptxas' -v report out of NVRTC's program log.
#pragma once

#include "compiler/compiler.h"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace cudalab::compiler {

struct PtxasMessage {
    Severity severity = Severity::error;  // error or warning
    std::string text;  // ptxas' words, with kernel names as the learner wrote them
};

struct PtxasReport {
    // Per entry, keyed by mangled name; source_name and max_threads_per_block are left empty.
    std::map<std::string, KernelResources> entries;
    std::vector<PtxasMessage> messages;  // ptxas errors and warnings, in log order
    std::string front_end_log;           // the log without any ptxas line: the compiler's own part
};

// Splits the log: "ptxas info" lines become resources, "ptxas error/warning/fatal" lines become
// messages, and every other line is kept for the diagnostics parser.
PtxasReport parse_ptxas_report(std::string_view log);

}  // namespace cudalab::compiler
