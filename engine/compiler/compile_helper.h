// The compile helper: NVRTC runs in a child process (build/cudalab-compile) that can be killed,
// under a time limit and a memory limit, so that a submission whose templates or macros explode
// costs a bounded failed check instead of the grader. The child also jails the compile: it starts
// in the toolkit's include folder with an empty environment, cannot create files, and where the
// kernel offers Landlock it cannot read anything outside the toolkit and NVRTC's own folder.
//
// Parent side: compile_in_helper(). Child side: serve_compile_request() (the helper's main).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "compiler/compiler.h"

namespace cudalab::compiler {

// Compiles in a fresh helper process under options.limits; a limit reached, a helper that cannot
// be started or that dies is a failed result whose one error diagnostic says which and why.
std::shared_ptr<CompileResult> compile_in_helper(const std::string& source, const std::string& path,
                                                 const CompileOptions& options);

// The helper's main: reads one request from fd 0, compiles it, writes the result to fd 1.
// Returns the process exit status.
int serve_compile_request();

// NVRTC in this process, no isolation (the helper calls it; compile_in_helper() is the way in).
std::shared_ptr<CompileResult> compile_in_process(const std::string& source,
                                                  const std::string& path,
                                                  const CompileOptions& options);

// The CUDA Toolkit's include folders NVRTC is given (-I), cccl/ included where it exists.
std::vector<std::string> toolkit_include_dirs();

// Whether this kernel offers Landlock, the helper's wall against reading files outside the
// toolkit (without it, the #include check and the empty environment still hold).
bool landlock_available();

// Where the helper executable is: next to the running program, else where the build put it.
// "" when neither exists.
std::string compile_helper_path();

}  // namespace cudalab::compiler
