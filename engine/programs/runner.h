// Runs a built CUDA program on a backend, isolated in a child process:
//
//   emu  the program's libcudart.so.13 (and libcuda.so.1) are replaced by cudalab's emulated
//        runtime: LD_LIBRARY_PATH=<dir> and LD_PRELOAD=<dir>/libcudart.so.13, where <dir> is
//        $CUDALAB_CUDART_DIR or the cudart-emu folder next to the cudalab executable. Settings
//        reach the runtime as CUDALAB_* environment variables (below).
//   gpu  NVIDIA's runtime and driver; a timeline comes from CUPTI (CUDA_INJECTION64_PATH names
//        cudalab's injection library, libcudalab_cupti.so next to the executable, or
//        $CUDALAB_CUPTI_LIB).
//   auto gpu when a driver and a device are found, else emu; emu also when an emulator-only
//        option (--trace, --driver-version, --budget) is given.
//
// Environment set for the emulated runtime: CUDALAB_DEVICES, CUDALAB_TIMELINE, CUDALAB_TRACE,
// CUDALAB_DRIVER_VERSION, CUDALAB_BUDGET, CUDALAB_RESULT (a JSON summary the runtime writes at
// exit: {"faults":[...],"leaks":[...],"unsupported":[...]}, read back into the report). The program
// can replace every file the runtime writes, so each is read back as base/safe_files.h says: no
// link followed, a regular file only, size and JSON depth capped before parsing.
//
// Exit codes (run_exit_code): the program's own status when it exits; 128+N when signal N ends
// it; 2 when it could not be started; 120 file-size limit, 121 task limit, 122 CPU-time limit,
// 123 output limit, 124 wall-clock limit, 125 memory limit; 128+N when cudalab got signal N
// (Ctrl-C: 130).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "programs/process.h"

namespace cudalab::programs {

struct RunRequest {
    std::string executable;         // the program
    std::string argv0;              // its argv[0] (empty: the executable's path)
    std::vector<std::string> args;  // its arguments
    std::string backend = "auto";   // emu | gpu | auto
    bool built_by_cudalab = false;  // false: the executable's linkage is checked for emu
    std::string cwd;                // empty: ours
    int devices = 0;                // emulated GPUs (0: the runtime's default)
    std::string timeline;           // Chrome trace JSON to write
    std::string trace;              // the emulator's trace
    // with `trace`: trace launch number N (1-based), 0: the runtime's choice
    std::uint64_t trace_launch = 0;
    long driver_version = 0;   // emulated driver version (e.g. 12080), 0: the runtime's
    std::uint64_t budget = 0;  // emulator instruction budget, 0: the runtime's
    bool sandbox = false;
    bool sandbox_readonly_cwd = false;
    // Folders the sandboxed program must not see even where they sit in a folder it is shown
    // (the course's root: its solutions; a grade store).
    std::vector<std::string> sandbox_hidden;
    Limits limits;
    // The timeline and trace copied out of the sandbox are refused above this size (they are
    // copied a block at a time; a lesson, which parses its timeline, asks for less).
    std::uint64_t output_file_cap = 1ull << 30;
    OutputMode output = OutputMode::pass_through;
    bool stdin_null = false;
    std::string cudart_dir;     // overrides the emulated runtime's folder (tests)
    std::string cupti_library;  // overrides the injection library (tests)
    // More settings for the program's environment (e.g. CUDALAB_INJECT), set last. In the sandbox
    // these and the runner's own settings are all that reach it besides the allow list
    // (sandbox_environment()).
    std::vector<std::pair<std::string, std::string>> environment;
};

struct RunResult {
    bool started = false;  // false: could not start; message says why (exit 2)
    std::string message;
    std::string backend;         // "emu" or "gpu", as run
    std::string backend_reason;  // why (for auto)
    ProcessResult process;
    nlohmann::json runtime;  // what the runtime wrote to CUDALAB_RESULT, or null
    bool timeline_written = false;
    std::vector<std::string> notes;  // things worth saying (a timeline not written, ...)
    // Why a file the runtime writes (the result, the timeline, the trace) was refused: a link, not
    // a regular file, over its cap, not JSON or nested too deep. Only a program that tampered with
    // its runtime's files gets one; a lesson fails the run for it. "" when none was.
    std::string file_refused;
    std::vector<std::string> command;  // what was started (bwrap's command line in the sandbox)
};

RunResult run_program(const RunRequest& request);

// The exit code cudalab gives for a run (documented above and in docs/programs.md).
int run_exit_code(const RunResult& r);
// One line for stderr when the run did not simply exit ("" otherwise), e.g.
// "cudalab: the program was stopped at the wall-clock limit of 60 s (exit 124)". `run_flags`:
// the advice names `cudalab run`'s flags (--output-limit, --cpu-limit, --tasks-limit); false for
// a lesson's check, which has none of them.
std::string run_summary(const RunResult& r, bool run_flags = true);
// The run as JSON (the `--json` report's "run" part).
nlohmann::json run_json(const RunResult& r);

// The emulated runtime's folder ("" when it has no libcudart.so.13; *looked_in says where).
std::string find_emulated_runtime(const std::string& override_dir, std::string* looked_in);
// The CUPTI injection library ("" when absent).
std::string find_cupti_library(const std::string& override_path, std::string* looked_in);
// A CUDA driver and at least one device, probed in a child process; *why_not when not, and
// *devices the number of GPUs when there are.
bool gpu_available(std::string* why_not, int* devices = nullptr);
// The folder of the running executable.
std::string self_dir();

Limits default_run_limits(bool sandbox);

}  // namespace cudalab::programs
