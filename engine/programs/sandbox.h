// The sandbox: a learner's program (and nvcc building it) runs under bubblewrap (bwrap), for
// grading untrusted submissions. docs/grading.md, "The sandbox", states the threat model; in short:
//
// - no privilege: as root, bwrap sets up the namespaces and util-linux `setpriv` then becomes
//   uid/gid 65534 (nobody) with no supplementary groups and no capabilities, not even in the
//   bounding set, before the program starts; as another user, a user namespace maps that user to
//   65534 with every capability dropped. No new privileges either way (setuid files do nothing).
// - a seccomp filter (libseccomp, handed to bwrap as a BPF program) that refuses with EPERM what
//   no CUDA program needs: mounting, ptrace, the kernel keyring, BPF, new namespaces, loading
//   modules, rebooting... (the list and why each: sandbox.cpp, "the seccomp filter").
// - an empty root: only the system's programs and libraries (/usr and its links), a short list of
//   /etc files the loader and the C library read, the CUDA Toolkit, a new /proc, a minimal /dev, a
//   sized tmpfs on /tmp, and what the caller binds: the program, the runtime, its own folders.
//   Nothing else of the machine exists inside (homes, other students' folders, the course's
//   solutions, grade stores, /srv, /opt, /var...). Folders the caller names as hidden are covered
//   even when they sit inside a bound tree.
// - no network, its own PID, IPC and UTS namespaces, a new session (no terminal to push input
//   into), killed with cudalab.
// - an environment built from an allow list (sandbox_environment()) plus what the caller sets
//   explicitly: none of the grader's CUDALAB_*, CUDA_*, NVIDIA_*, NVCC_* or other variables.
// The limits (CPU time, memory, processes, output, file size, wall clock) are set by the caller
// (programs/process.h).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace cudalab::programs {

struct ProcessSpec;

struct SandboxSupport {
    bool ok = false;
    std::string bwrap;     // its path
    std::string prlimit;   // util-linux prlimit, for the process limit inside ("" if absent)
    std::string setpriv;   // util-linux setpriv, to drop root inside the sandbox (as root)
    bool as_root = false;  // cudalab runs as root: the program runs as 65534 through setpriv
    std::string why_not;   // when !ok: what is missing and what to do
};

// Probes once per process (builds the real sandbox around /bin/true) and remembers the answer.
const SandboxSupport& sandbox_support();

// The user and group the program runs as inside the sandbox (and, as root, outside too).
constexpr uid_t kSandboxUid = 65534;
constexpr gid_t kSandboxGid = 65534;

struct SandboxSpec {
    std::string cwd;  // where it starts; bound at its own path, writable unless readonly_cwd
    bool readonly_cwd = false;
    std::vector<std::string> read_only;  // files and folders bound read-only at their own paths
    std::vector<std::string> writable;   // folders bound writable at their own paths
    // {source, destination}: bound read-only at another path (a folder whose name may not reach
    // a shell appears under a plain name).
    std::vector<std::pair<std::string, std::string>> read_only_at;
    std::vector<std::pair<std::string, std::string>> writable_at;
    // Folders never visible, even where they sit inside a bound tree (the course's root, its
    // grade store): covered by an empty read-only folder; what is bound above stays visible.
    std::vector<std::string> hidden;
    bool gpu = false;             // bind /dev/nvidia*, /dev/dri and /sys (read-only)
    std::uint64_t tasks = 0;      // RLIMIT_NPROC inside (0: none)
    std::uint64_t tmp_bytes = 0;  // size of the tmpfs on /tmp (0: 64 MiB)
    // The whole environment of the program, KEY=VALUE: sandbox_environment() plus what the caller
    // sets on purpose. Nothing else of cudalab's environment passes.
    std::vector<std::string> env;
    // KEY=VALUE set for the program alone, by env(1) right before it starts: the dynamic loader's
    // variables (LD_PRELOAD of the emulated runtime) must not load the runtime into bwrap,
    // setpriv and prlimit too, whose exit would then overwrite the runtime's result files.
    std::vector<std::string> program_env;
};

// Makes `process` run `argv` in the sandbox: its argv, env and the file descriptors bwrap reads
// (the seccomp filter) are set; the caller sets the limits and the output. False with *why when
// the sandbox cannot be made (the filter could not be built, a folder to bind is missing).
bool sandbox_process(const SandboxSupport& s, const SandboxSpec& spec,
                     const std::vector<std::string>& argv, ProcessSpec* process, std::string* why);

// The variables of cudalab's environment that pass into the sandbox, by an allow list: PATH
// (fixed to the system's folders), LANG, LANGUAGE, LC_*, TERM, TZ, COLUMNS, LINES, NO_COLOR,
// OMP_NUM_THREADS, and HOME=/tmp, TMPDIR=/tmp.
std::vector<std::string> sandbox_environment();
bool sandbox_keeps_variable(const std::string& name);

// Why `dir` may not be shown to a sandboxed program ("" when it may): the root folder, a folder
// every user shares (/tmp, /var/tmp, /dev/shm, /home, /srv), the home folder of cudalab's user
// (or of $HOME), or a folder that holds one of them.
std::string sandbox_refuses_folder(const std::string& dir);

// A name that reaches nvcc's shell unchanged: letters, digits and _ . , + - @ % = : / only.
bool shell_safe_path(const std::string& path);

// As root, a folder the sandboxed program writes into must be its user's (65534); a folder made
// by cudalab for the run (a work or scratch folder) is handed over with this. Does nothing when
// cudalab is not root. False with *why when it cannot.
bool give_to_sandbox_user(const std::string& dir, std::string* why);

// The option that runs program lessons without the sandbox, for trusted code only (`check`,
// `grade`, the Gradescope bundle), named in every refusal.
constexpr const char* kNoSandboxOption = "--no-sandbox";

}  // namespace cudalab::programs
