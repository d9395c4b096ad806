#include "programs/sandbox.h"

#include <dirent.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <sstream>

#include "programs/process.h"

namespace fs = std::filesystem;

namespace cudalab::programs {

namespace {

std::string find_in_path(const std::string& name) {
    const char* path = std::getenv("PATH");
    std::string p = path ? path : "/usr/bin:/bin";
    p += ":/usr/bin:/bin:/usr/sbin:/sbin";
    std::stringstream in(p);
    std::string dir;
    while (std::getline(in, dir, ':')) {
        if (dir.empty()) continue;
        fs::path c = fs::path(dir) / name;
        if (::access(c.c_str(), X_OK) == 0) return c.string();
    }
    return "";
}

// The view every sandboxed process starts from, the probe's included: no namespace shared with
// the machine, everything read-only, and its own /proc, /dev and /tmp.
std::vector<std::string> bwrap_base(const std::string& bwrap) {
    // clang-format off
    return {bwrap, "--unshare-all", "--die-with-parent",
            "--ro-bind", "/", "/",
            "--proc", "/proc",
            "--dev", "/dev",
            "--tmpfs", "/tmp"};
    // clang-format on
}

}  // namespace

const SandboxSupport& sandbox_support() {
    static SandboxSupport s;
    static std::once_flag once;
    std::call_once(once, [] {
        s.bwrap = find_in_path("bwrap");
        s.prlimit = find_in_path("prlimit");
        if (s.bwrap.empty()) {
            s.why_not =
                "bubblewrap (bwrap) is not installed; install the Debian package `bubblewrap` "
                "(scripts/setup.sh does), or run without --sandbox";
            return;
        }
        ProcessSpec probe;
        probe.argv = bwrap_base(s.bwrap);
        probe.argv.insert(probe.argv.end(), {"--", "/bin/true"});
        probe.env = current_environment();
        probe.output = OutputMode::capture;
        probe.stdin_null = true;
        probe.limits.wall_seconds = 20;
        ProcessResult r = run_process(probe);
        if (r.outcome == Outcome::exited && r.exit_code == 0) {
            s.ok = true;
            return;
        }
        std::string said = r.err.empty() ? r.error : r.err;
        while (!said.empty() && (said.back() == '\n' || said.back() == ' ')) said.pop_back();
        s.why_not =
            "bubblewrap cannot create its namespaces on this machine (bwrap: " + said +
            "). The sandbox needs unprivileged user namespaces: enable them (sysctl "
            "kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 also "
            "kernel.apparmor_restrict_unprivileged_userns=0; in a container, run it with user "
            "namespaces allowed), or run without --sandbox";
    });
    return s;
}

bool sandbox_keeps_variable(const std::string& name) {
    static const char* exact[] = {"PATH",       "HOME",           "USER",     "LOGNAME",
                                  "LANG",       "LANGUAGE",       "TERM",     "TZ",
                                  "COLUMNS",    "LINES",          "NO_COLOR", "LD_LIBRARY_PATH",
                                  "LD_PRELOAD", "OMP_NUM_THREADS"};
    for (const char* e : exact)
        if (name == e) return true;
    for (const char* prefix : {"LC_", "CUDA_", "CUDALAB_", "NVIDIA_", "NVCC_"})
        if (name.rfind(prefix, 0) == 0) return true;
    return false;
}

std::vector<std::string> sandbox_command(const SandboxSupport& s, const SandboxSpec& spec,
                                         const std::vector<std::string>& argv) {
    std::vector<std::string> c = bwrap_base(s.bwrap);
    c.push_back("--new-session");  // no terminal to push input into (TIOCSTI)
    if (spec.gpu) {
        // The driver talks to the GPU through these.
        if (DIR* d = ::opendir("/dev")) {
            while (dirent* e = ::readdir(d)) {
                std::string n = e->d_name;
                if (n.rfind("nvidia", 0) == 0)
                    c.insert(c.end(), {"--dev-bind-try", "/dev/" + n, "/dev/" + n});
            }
            ::closedir(d);
        }
        c.insert(c.end(), {"--dev-bind-try", "/dev/dri", "/dev/dri"});
    }
    // The home folder (keys, other submissions, the grader's files) is hidden behind an empty one,
    // as /tmp is (a fresh one).
    std::vector<fs::path> hidden = {"/tmp"};
    const char* home = std::getenv("HOME");
    std::error_code ec;
    if (home && *home && std::string(home) != "/" && fs::is_directory(home, ec)) {
        fs::path h = fs::weakly_canonical(home, ec);
        c.insert(c.end(), {"--tmpfs", h.string()});
        hidden.push_back(h);
    }
    // Bound back: what the program needs (itself, the runtime) from a hidden folder (elsewhere
    // the read-only root shows it, and binding onto a symbolic link such as /usr/local/cuda
    // would fail). cudalab itself may live under /tmp, as a fresh clone in CI can.
    for (const auto& p : spec.read_only) {
        fs::path real = fs::weakly_canonical(p, ec);
        for (const fs::path& h : hidden) {
            fs::path rel = real.lexically_relative(fs::weakly_canonical(h, ec));
            const bool inside = !rel.empty() && *rel.begin() != ".." && rel != ".";
            if (inside) {
                c.insert(c.end(), {"--ro-bind", real.string(), real.string()});
                break;
            }
        }
    }
    // The current folder before the writable ones: a later bind covers an earlier one, and a
    // writable folder inside a read-only current folder (a build's scratch folder in a cache under
    // it) must stay writable.
    if (!spec.cwd.empty()) {
        bool ro = spec.readonly_cwd || spec.cwd == "/";
        c.insert(c.end(), {ro ? "--ro-bind" : "--bind", spec.cwd, spec.cwd});
    }
    for (const auto& p : spec.writable) c.insert(c.end(), {"--bind", p, p});
    if (!spec.cwd.empty()) c.insert(c.end(), {"--chdir", spec.cwd});
    c.push_back("--");
    // RLIMIT_NPROC set inside the sandbox counts the sandbox's own processes only (its user
    // namespace has its own count); set outside, it would count every process of the user.
    if (spec.tasks && !s.prlimit.empty())
        c.insert(c.end(), {s.prlimit, "--nproc=" + std::to_string(spec.tasks), "--"});
    if (!spec.program_env.empty()) {
        c.push_back("/usr/bin/env");
        c.insert(c.end(), spec.program_env.begin(), spec.program_env.end());
    }
    c.insert(c.end(), argv.begin(), argv.end());
    return c;
}

}  // namespace cudalab::programs
