// The PTX front end: NVRTC's PTX text (ISA 9.0) -> ptx::Module. Unknown syntax is an error naming
// the PTX line, never skipped.
#pragma once

#include <string>

#include "ptx/module.h"

namespace cudalab::ptx {

struct ParseResult {
    bool ok = false;
    Module module;
    std::string error;              // "ptx:123: unknown instruction 'foo.bar'"
    std::uint32_t error_line = 0;   // the PTX line
    std::uint32_t source_line = 0;  // the learner's source line there (.loc), when known
    std::string source_file;        // the file of source_line as the PTX names it (.file)
};

ParseResult parse(const std::string& ptx_text);

}  // namespace cudalab::ptx
