// `--sandbox`: the program runs under bubblewrap (bwrap), for grading untrusted submissions.
//
// Inside: no network (new network namespace), its own PID/IPC/UTS namespaces, a read-only view of
// the whole file system except a fresh /tmp and the current folder (writable unless asked
// otherwise), the home folder hidden behind an empty tmpfs, a minimal /dev (plus the NVIDIA device
// files on a GPU), and an environment reduced to what programs need (no tokens or secrets of the
// grader's). The limits (CPU time, memory, processes, output, wall clock) are set by the runner.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace cudalab::programs {

struct SandboxSupport {
    bool ok = false;
    std::string bwrap;  // its path
    std::string
        prlimit;  // util-linux prlimit, for the process limit inside the sandbox ("" if absent)
    std::string why_not;  // when !ok: what is missing and what to do
};

// Probes once per process (runs bwrap with every namespace once) and remembers the answer.
const SandboxSupport& sandbox_support();

struct SandboxSpec {
    std::string cwd;  // made writable (or read-only with readonly_cwd)
    bool readonly_cwd = false;
    std::vector<std::string> read_only;  // paths to keep visible even when under the hidden home
    std::vector<std::string> writable;   // extra writable paths (the runner's output folder)
    bool gpu = false;                    // bind /dev/nvidia*
    std::uint64_t tasks = 0;             // RLIMIT_NPROC inside (0: none)
    // KEY=VALUE set for the program alone, by env(1) right before it starts: the dynamic loader's
    // variables (LD_PRELOAD of the emulated runtime) must not load the runtime into bwrap and
    // prlimit too, whose exit would then overwrite the runtime's result files.
    std::vector<std::string> program_env;
};

// The command line that runs `argv` in the sandbox.
std::vector<std::string> sandbox_command(const SandboxSupport& s, const SandboxSpec& spec,
                                         const std::vector<std::string>& argv);

// The environment variables that pass into the sandbox (the rest are dropped).
bool sandbox_keeps_variable(const std::string& name);

}  // namespace cudalab::programs
