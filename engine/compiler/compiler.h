// The compiler service: a learner's .cu file -> PTX plus per-kernel resource usage, through NVRTC.
//
// Supports:
//   [x] CUDA C++ kernel files as nvcc accepts them (common standard and CUDA headers resolve
//       through built-in shims, since NVRTC ships none of them)
//   [x] PTX for compute_75 or newer with -lineinfo (every instruction maps to a source line)
//   [x] registers / static shared memory / barriers / stack per kernel from ptxas (-Xptxas=-v) on a
//       cubin for a named architecture: no GPU or driver needed
//   [x] kernels found by their source name, extern "C" or C++-mangled
//   [x] diagnostics mapped to the learner's file:line:column
//   [x] results cached in memory by source hash and options
//   [x] a jail: only the include shims, the lesson's headers and the toolkit's headers can be
//       included (include_jail.h); NVRTC runs in a child process with time and memory limits
//       (compile_helper.h)
//   [ ] host code (a learner file holds kernels only; the lesson supplies the host side)
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/hardware.h"
#include "base/severity.h"

namespace cudalab::compiler {

struct Diagnostic {
    std::string file;  // the path the learner knows (as given to compile())
    int line = 0;      // 1-based; 0 when the compiler gave none
    int column = 0;    // 1-based; 0 when unknown
    Severity severity = Severity::error;
    std::string message;  // the compiler's words, first line
    std::string context;  // the offending source line and caret, as the compiler printed it
};

// What ptxas reports for one kernel on the target architecture.
struct KernelResources {
    std::string source_name;   // as written in the .cu file, e.g. "vector_add"
    std::string mangled_name;  // the PTX entry name, e.g. "_Z10vector_addPKfS0_Pfi"
    int registers = 0;
    int static_shared_bytes = 0;
    int barriers = 0;
    int stack_frame_bytes = 0;
    int spill_store_bytes = 0;
    int spill_load_bytes = 0;
    int max_threads_per_block = 0;      // from __launch_bounds__ (.maxntid), 0 when none
    bool resources_from_cubin = false;  // read from the cubin (no ptxas report): spills unknown
};

// What one compile may cost. NVRTC runs in a child process that is killed when it reaches a limit
// (compile_helper.h); the result is then a failed compile naming the limit and its value.
struct CompileLimits {
    double seconds = 60;             // wall-clock time of one compile
    std::uint64_t memory_mb = 2048;  // resident memory of the compiling process
    // false: NVRTC runs in this process, with no limits and no jail beyond the #include check
    // (only for tools that compile trusted code and cannot start the helper).
    bool isolate = true;
};

struct CompileOptions {
    std::string arch{
        hw::emulated_arch};  // ptxas target for resource usage; the PTX targets the same
    std::vector<std::string> extra_options;  // appended to the NVRTC options
    bool lineinfo = true;
    // Headers the lesson ships for its exercise, by the name the exercise includes them with
    // (given to NVRTC in memory; no other file of the machine can be included).
    std::vector<std::pair<std::string, std::string>> headers;
    CompileLimits limits;
};

struct CompileResult {
    bool ok = false;
    std::string source_path;  // as given
    std::string ptx;
    std::string log;  // NVRTC's log, verbatim
    std::vector<Diagnostic> diagnostics;
    std::vector<KernelResources> kernels;
    double seconds = 0;           // wall time of the NVRTC call (0 for a cache hit)
    double compiled_seconds = 0;  // wall time of the NVRTC call that made it, cached or not
    bool from_cache = false;
    bool limit_reached = false;  // stopped by CompileLimits (never cached: a larger limit may pass)

    // The PTX entry for a kernel by its source name or its mangled name; "" if absent.
    std::string mangled_name(const std::string& name) const;
    const KernelResources* kernel(const std::string& name) const;
    // All errors, formatted "file:line:col: error: message" one per line (for the CLI).
    std::string error_text() const;
};

// Compiles with NVRTC. Thread-safe; results are cached by (source hash, path, options).
class Compiler {
  public:
    Compiler();
    ~Compiler();
    std::shared_ptr<const CompileResult> compile(const std::string& source, const std::string& path,
                                                 const CompileOptions& options = {});
    // Reads the file and compiles it; a missing file is a failed result with one diagnostic.
    std::shared_ptr<const CompileResult> compile_file(const std::string& path,
                                                      const CompileOptions& options = {});
    std::string nvrtc_version() const;

  private:
    struct Cache;
    std::unique_ptr<Cache> cache_;
};

// The name NVRTC is given for a learner's file: its file name, in characters no tool chokes on
// (ptxas aborted on a '"'). PTX .file directives end with it.
std::string nvrtc_program_name(const std::string& path);

// The demangled kernel name without its parameter list: "_Z3addPfi" -> "add",
// "_Z5scaleIfEvPT_" -> "scale<float>"; an extern "C" name is returned as is.
std::string source_name_of(const std::string& mangled);

}  // namespace cudalab::compiler
