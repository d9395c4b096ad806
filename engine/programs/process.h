// Runs a program in a child process and watches it: wall-clock, CPU-time, memory, output-size and
// process limits, with the outcome said precisely (which limit, which signal). The child can do
// anything (crash, spin, fork, print forever, ignore SIGTERM); the supervisor stays in control and
// always returns. Used for the learner's CUDA programs and for nvcc.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

namespace cudalab::programs {

// 0 means "no limit" everywhere.
struct Limits {
    double wall_seconds = 0;
    double cpu_seconds = 0;          // per process (RLIMIT_CPU), ended by SIGXCPU
    std::uint64_t memory_bytes = 0;  // resident memory of the program and all its descendants
    std::uint64_t output_bytes = 0;  // stdout and stderr together
    std::uint64_t tasks = 0;         // processes and threads of the program's tree, together
    // Any one file the program writes (RLIMIT_FSIZE): a write past it gets SIGXFSZ, or EFBIG
    // where the program ignores that signal.
    std::uint64_t file_bytes = 0;
};

enum class Outcome {
    exited,    // exit_code is its status
    signaled,  // killed by `signal` (not by a limit of ours)
    wall_limit,
    cpu_limit,
    memory_limit,
    output_limit,
    task_limit,
    file_size_limit,  // SIGXFSZ under Limits::file_bytes
    interrupted,      // cudalab itself got SIGINT/SIGTERM/SIGHUP and stopped the program
    start_failed,     // could not start (error says why)
};
const char* outcome_name(Outcome o);

enum class OutputMode {
    pass_through,  // relayed to our stdout/stderr as it comes (a terminal stays a terminal)
    capture,       // kept in ProcessResult::out/err (bounded by the output limit)
};

// Supervised trees of one cudalab that run side by side (a program and its emulated device
// process): each supervision counts, limits and kills only its own tree, not the others'. Each
// run_process adds its child here when it starts.
struct SiblingTrees {
    std::mutex mutex;
    std::condition_variable started;
    std::set<int> roots;
    void add(int pid) {
        {
            std::lock_guard lock(mutex);
            roots.insert(pid);
        }
        started.notify_all();
    }
    std::set<int> others(int own) {
        std::lock_guard lock(mutex);
        std::set<int> out = roots;
        out.erase(own);
        return out;
    }
};

struct ProcessSpec {
    std::vector<std::string> argv;  // argv[0] is what the program sees as its name
    std::string executable;         // the file to run (not searched in PATH); empty: argv[0]
    std::vector<std::string> env;   // the whole environment, KEY=VALUE
    std::string cwd;                // empty: ours
    Limits limits;
    OutputMode output = OutputMode::pass_through;
    bool stdin_null = false;  // /dev/null instead of our stdin
    // Descriptors the child keeps open across exec (bwrap's --seccomp FD); the rest are closed.
    std::vector<int> inherit_fds;
    std::shared_ptr<void> keep_alive;  // owns inherit_fds until the spec is gone
    // A process of the tree that stops (SIGSTOP to itself, SIGTSTP) is continued, so that no
    // program can freeze its run until the wall-clock limit (the sandbox sets it).
    bool continue_stopped = false;
    std::shared_ptr<SiblingTrees> siblings;  // null: cudalab supervises this tree alone
};

struct ProcessResult {
    Outcome outcome = Outcome::start_failed;
    int exit_code = -1;  // when exited
    int signal = 0;      // the signal that ended it; for `interrupted`, the one cudalab got
    double wall_seconds = 0;
    double cpu_seconds = 0;  // user + system of the program and its reaped descendants
    std::uint64_t peak_memory_bytes = 0;
    std::uint64_t peak_tasks = 0;
    std::uint64_t output_bytes = 0;  // as produced, also past the limit's cut
    std::string out, err;            // with OutputMode::capture
    std::string error;               // start_failed: why
    std::string
    limit_text() const;  // e.g. "wall-clock limit of 60 s" for the limit outcomes, else ""
    Limits limits;       // the limits it ran under (for messages)
};

ProcessResult run_process(const ProcessSpec& spec);

// Helpers shared with the runner.
std::string format_bytes(std::uint64_t bytes);  // "4 GiB", "512 MiB", "100 B"
// "4G", "512M", "100k"; a number without a unit is in units of 2^plain_shift bytes (0: bytes).
bool parse_bytes(const std::string& text, std::uint64_t* out, int plain_shift = 0);
std::uint64_t physical_memory_bytes();
std::vector<std::string> current_environment();
// Sets KEY=VALUE in env (replacing an existing KEY), or removes KEY when value is null.
void set_env(std::vector<std::string>& env, const std::string& key, const char* value);
const char* get_env(const std::vector<std::string>& env, const std::string& key);

}  // namespace cudalab::programs
