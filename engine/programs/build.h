// Builds a whole CUDA program (host code and kernels, `main`) with the toolkit's nvcc, the way the
// emulated runtime and a GPU can both run it, and caches the executable by content.
//
//   nvcc -cudart shared -lineinfo -g -arch=compute_90 -code=compute_90 -compress-mode=none
//        [the program's own options] SOURCES -o CACHE/programs/KEY/program
//
// - `-cudart shared`: the program calls libcudart.so.13, which `--backend emu` replaces with
//   cudalab's emulated runtime (the static runtime, nvcc's default, cannot be replaced);
// - PTX only, for an sm_90-class device: the emulator runs PTX, and a GPU's driver compiles it at
//   load time (its JIT cache keeps that for later runs);
// - uncompressed fat binaries, so that the emulated runtime reads the PTX as it is;
// - `-lineinfo`, so that kernel faults name source lines; `-g` (host code only: device code is
//   compiled as without it), so that the runtime names the host line of an allocation or launch
//   ("allocated at main.cu:22"); it costs nvcc no measurable time.
// A program's own -arch/-code/-gencode replace the default target.
//
// The cache key is a SHA-256 of: the sources and the local headers they include (found through
// the including file's folder and -I), libraries named by -l in -L folders (size and time), the
// options, nvcc and the host compiler (path, size and time) and the environment variables nvcc
// reads.
#pragma once

#include <string>
#include <vector>

#include "programs/process.h"

namespace cudalab::programs {

struct BuildRequest {
    std::vector<std::string> inputs;  // .cu .cpp .cc .cxx .c .o .a .so files, as given
    std::vector<std::string>
        nvcc_options;       // passed to nvcc in order (-I -D -l -L -std= -rdc=true ...)
    std::string cwd;        // where nvcc runs and relative paths start; empty: ours
    std::string cache_dir;  // empty: default_cache_dir()
    bool use_cache = true;  // false: build again (the result still replaces the cache's)
    Limits limits;          // for nvcc; the defaults are set by default_build_limits()
    bool sandbox = false;   // run nvcc in the sandbox (programs/sandbox.h), read-only
    // In the sandbox: more folders nvcc may read (a lesson's headers), and folders it must not see
    // even inside one it is shown (the course's root).
    std::vector<std::string> sandbox_read_only, sandbox_hidden;
};

enum class BuildFailure {
    none,
    bad_input,      // no source, a missing file, an option cudalab cannot honour
    no_nvcc,        // message says where it was looked for
    compile_error,  // log has nvcc's messages
    limit,          // nvcc ran past a limit (message names it)
    internal,       // the cache folder could not be written, ...
};

struct BuildResult {
    BuildFailure failure = BuildFailure::none;
    bool ok() const { return failure == BuildFailure::none; }
    std::string message;      // a failure's explanation (no trailing newline)
    std::string log;          // nvcc's messages, "file(12): error" rewritten as "file:12: error"
    std::string executable;   // the program in the cache
    std::string key;          // the cache key (hex)
    bool cached = false;      // found in the cache; nvcc did not run
    double seconds = 0;       // everything: hashing, nvcc, cache
    double nvcc_seconds = 0;  // nvcc alone (0 when cached)
    std::string nvcc;         // the nvcc used
    std::vector<std::string> command;  // nvcc's command line
};

// The largest source or local header a build reads (to hash it for the cache): larger than any
// program's file, so a bigger one (a 1 GB sparse file beside the submission) is refused, naming
// the cap, before anything reads it whole.
inline constexpr std::uint64_t max_build_file_bytes = 16ull << 20;

BuildResult build_program(const BuildRequest& request);

Limits default_build_limits();
// $CUDALAB_CACHE_DIR, else $XDG_CACHE_HOME/cudalab, else ~/.cache/cudalab.
std::string default_cache_dir();
// The options cudalab adds in front of the program's own (documented above).
std::vector<std::string> default_nvcc_options(const std::vector<std::string>& user_options);
// $CUDALAB_NVCC alone when set; else $CUDA_HOME/bin/nvcc, $CUDA_PATH/bin/nvcc, the toolkit cudalab
// was built with, /usr/local/cuda, then PATH. Returns "" when none exists, with *looked_in listing
// the places tried.
std::string find_nvcc(std::string* looked_in);
// "a.cu(12): error: x" -> "a.cu:12: error: x" (the form editors and the rest of cudalab use).
std::string colon_line_numbers(const std::string& log);
// True for the file names the build takes as inputs.
bool is_build_input(const std::string& path);

// A file name as messages show it: on one line, whatever it holds. A name with a newline (a file
// saved as "sol", newline, "ution.cu") would otherwise split each of nvcc's "file:line: error"
// lines in two; control bytes are written as C escapes (sol\nution.cu), and then a backslash as
// two. Other names are returned as they are.
std::string one_line_name(const std::string& name);
// nvcc options that take their value as the next argument ("-I dir", "-o file", ...).
bool nvcc_option_takes_value(const std::string& option);

}  // namespace cudalab::programs
