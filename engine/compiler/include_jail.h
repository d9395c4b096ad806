// The compile jail's first wall: every #include (and __has_include probe) of a submission is read
// before NVRTC sees the file, and only the headers cudalab provides may be named: the include
// shims, headers a lesson ships for its exercise (CompileOptions::headers) and the CUDA Toolkit's
// own headers. Anything else (an absolute path, "..", /proc, /etc, the solutions/ folder, a macro
// naming the file) is a compile error at the directive's file:line:column.
//
// The second wall is the compile helper (compile_helper.h): NVRTC runs in a child process whose
// working directory is the toolkit's include folder, with an empty environment and, where the
// kernel offers Landlock, no read access outside the toolkit and the system libraries. So a header
// of the toolkit that includes a file through a macro still reaches nothing else.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "compiler/compiler.h"

namespace cudalab::compiler {

struct IncludePolicy {
    std::vector<std::string> toolkit_dirs;  // headers found beneath these (canonical) are allowed
    std::vector<std::string> extra_names;   // in-memory headers by name (shims, lesson headers)
    // nvcc's rule for whole programs (program lessons): any plain relative name may be included
    // (no absolute path, '..', backslash or macro); what it can find is decided by the sandbox
    // nvcc runs in (the system's and the toolkit's headers, the program's and the lesson's
    // folders).
    bool any_relative_name = false;
};

// The diagnostics for every directive that names something outside the policy; empty when the
// source may be compiled. `path` is the name messages give the file.
std::vector<Diagnostic> check_includes(const std::string& source, const std::string& path,
                                       const IncludePolicy& policy);

}  // namespace cudalab::compiler
