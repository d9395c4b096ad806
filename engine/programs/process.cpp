// The supervisor of run_process().
//
// [SECTION] helpers: sizes, environment
// [SECTION] the process tree (/proc)
// [SECTION] signals of cudalab itself
// [SECTION] starting the child
// [SECTION] the watch loop
//
// Why it is built this way:
// - The child's output is relayed through cudalab (a pipe, or a pseudo-terminal when our stdout is
// a
//   terminal, so the program still sees a terminal and flushes its lines as it would natively), so
//   that output can be counted and cut at the limit, and captured for reports.
// - Memory and task limits are enforced by reading /proc for the whole tree every 50 ms: RLIMIT_AS
//   would break CUDA, whose driver reserves tens of GB of address space, and RLIMIT_NPROC counts
//   every process of the user (and nothing at all for root).
// - cudalab is a "child subreaper" while it runs a program, so a grandchild that outlives its
//   parent is re-parented to cudalab rather than to init, and is found and stopped with the rest.
// - When stdin is a terminal, the child stays in cudalab's process group so that it can read the
//   terminal (a background group would get SIGTTIN) and Ctrl-C reaches it directly; otherwise it
//   gets its own group, which is killed as one.
#include "programs/process.h"

#include <cstdint>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <dirent.h>
#include <fstream>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>
#include <thread>

extern char** environ;

namespace cudalab::programs {

// [SECTION] helpers: sizes, environment

const char* outcome_name(Outcome o) {
    switch (o) {
    case Outcome::exited: return "exited";
    case Outcome::signaled: return "signaled";
    case Outcome::wall_limit: return "wall_limit";
    case Outcome::cpu_limit: return "cpu_limit";
    case Outcome::memory_limit: return "memory_limit";
    case Outcome::output_limit: return "output_limit";
    case Outcome::task_limit: return "task_limit";
    case Outcome::file_size_limit: return "file_size_limit";
    case Outcome::interrupted: return "interrupted";
    case Outcome::start_failed: return "start_failed";
    }
    return "?";
}

namespace {
std::string seconds_text(double s) {
    std::ostringstream o;
    o << s;
    return o.str();
}
}  // namespace

std::string ProcessResult::limit_text() const {
    switch (outcome) {
    case Outcome::wall_limit:
        return "wall-clock limit of " + seconds_text(limits.wall_seconds) + " s";
    case Outcome::cpu_limit: return "CPU-time limit of " + seconds_text(limits.cpu_seconds) + " s";
    case Outcome::memory_limit: return "memory limit of " + format_bytes(limits.memory_bytes);
    case Outcome::output_limit: return "output limit of " + format_bytes(limits.output_bytes);
    case Outcome::task_limit:
        return "limit of " + std::to_string(limits.tasks) + " processes and threads";
    case Outcome::file_size_limit:
        return "file-size limit of " + format_bytes(limits.file_bytes) + " per file";
    default: return "";
    }
}

std::string format_bytes(std::uint64_t b) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (u < 4 && b >= (std::uint64_t(1) << (10 * (u + 1)))) ++u;
    std::uint64_t unit = std::uint64_t(1) << (10 * u);
    std::ostringstream o;
    if (b % unit == 0) o << b / unit << " " << units[u];
    else o << std::fixed << std::setprecision(1) << double(b) / double(unit) << " " << units[u];
    return o.str();
}

bool parse_bytes(const std::string& text, std::uint64_t* out, int plain_shift) {
    if (text.empty() || !std::isdigit(static_cast<unsigned char>(text[0]))) return false;
    std::size_t i = 0;
    std::uint64_t v = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
        if (v > (UINT64_MAX - 9) / 10) return false;
        v = v * 10 + std::uint64_t(text[i++] - '0');
    }
    std::string unit = text.substr(i);
    for (auto& c : unit) c = char(std::tolower(static_cast<unsigned char>(c)));
    int shift = 0;
    if (unit.empty()) shift = plain_shift;
    else if (unit == "b") shift = 0;
    else if (unit == "k" || unit == "kb" || unit == "kib") shift = 10;
    else if (unit == "m" || unit == "mb" || unit == "mib") shift = 20;
    else if (unit == "g" || unit == "gb" || unit == "gib") shift = 30;
    else if (unit == "t" || unit == "tb" || unit == "tib") shift = 40;
    else return false;
    if (shift && v > (UINT64_MAX >> shift)) return false;
    *out = v << shift;
    return true;
}

std::uint64_t physical_memory_bytes() {
    long pages = ::sysconf(_SC_PHYS_PAGES), size = ::sysconf(_SC_PAGESIZE);
    return pages > 0 && size > 0 ? std::uint64_t(pages) * std::uint64_t(size) : 0;
}

std::vector<std::string> current_environment() {
    std::vector<std::string> env;
    for (char** e = environ; e && *e; ++e) env.emplace_back(*e);
    return env;
}

void set_env(std::vector<std::string>& env, const std::string& key, const char* value) {
    std::string prefix = key + "=";
    env.erase(std::remove_if(env.begin(), env.end(),
                             [&](const std::string& e) { return e.rfind(prefix, 0) == 0; }),
              env.end());
    if (value) env.push_back(prefix + value);
}

const char* get_env(const std::vector<std::string>& env, const std::string& key) {
    std::string prefix = key + "=";
    for (const auto& e : env)
        if (e.rfind(prefix, 0) == 0) return e.c_str() + prefix.size();
    return nullptr;
}

// [SECTION] the process tree (/proc)

namespace {

struct ProcInfo {
    pid_t pid = 0, ppid = 0;
    std::uint64_t rss_pages = 0, threads = 0;
    bool zombie = false;
    bool stopped = false;  // state T: stopped by a signal
};

bool read_proc_stat(pid_t pid, ProcInfo* p) {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/stat", int(pid));
    int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    char buf[1024];
    ssize_t n = ::read(fd, buf, sizeof buf - 1);
    ::close(fd);
    if (n <= 0) return false;
    buf[n] = 0;
    // The command name is in parentheses and may contain anything: parse from the last ')'.
    char* close_paren = std::strrchr(buf, ')');
    if (!close_paren) return false;
    std::istringstream in(close_paren + 2);
    std::string state;
    long long f[22] = {};
    in >> state;
    // Fields 4.. of proc(5): ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt
    // utime stime cutime cstime priority nice num_threads itrealvalue starttime vsize rss
    for (int i = 0; i < 21 && in; ++i) in >> f[i];
    if (!in) return false;
    p->pid = pid;
    p->zombie = state == "Z" || state == "X";
    p->stopped = state == "T";
    p->ppid = pid_t(f[0]);
    p->threads = std::uint64_t(std::max(0LL, f[16]));
    p->rss_pages = std::uint64_t(std::max(0LL, f[20]));
    return true;
}

// Every process below `root` (not root itself), found by walking parent links; the trees rooted
// at `skip` (a sibling supervision's) left out.
std::vector<ProcInfo> descendants_of(pid_t root, const std::set<int>& skip = {}) {
    std::vector<ProcInfo> all;
    DIR* d = ::opendir("/proc");
    if (!d) return {};
    while (dirent* e = ::readdir(d)) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        ProcInfo p;
        if (read_proc_stat(pid_t(std::atoi(e->d_name)), &p)) all.push_back(p);
    }
    ::closedir(d);
    std::map<pid_t, std::vector<std::size_t>> children;
    for (std::size_t i = 0; i < all.size(); ++i) children[all[i].ppid].push_back(i);
    std::vector<ProcInfo> out;
    std::vector<pid_t> todo{root};
    std::set<pid_t> seen{root};
    while (!todo.empty()) {
        pid_t p = todo.back();
        todo.pop_back();
        for (std::size_t i : children[p])
            if (!skip.count(all[i].pid) && seen.insert(all[i].pid).second) {
                out.push_back(all[i]);
                todo.push_back(all[i].pid);
            }
    }
    return out;
}

// Kills the whole tree below cudalab (the program and anything it started), repeating while new
// processes appear (a fork loop races the first sweep), and reaps what was ours.
void kill_tree(pid_t group, int sig, pid_t main_child, const std::set<int>& skip = {}) {
    if (group > 0) ::kill(-group, sig);
    for (int round = 0; round < 200; ++round) {
        bool any = false;
        for (const auto& p : descendants_of(::getpid(), skip)) {
            if (p.zombie) {
                // Dead already. Reap what was re-parented to us, so that it is gone for good (not
                // the program itself: its status is read by the watch loop).
                if (p.ppid == ::getpid() && p.pid != main_child) ::waitpid(p.pid, nullptr, WNOHANG);
                continue;
            }
            ::kill(p.pid, sig);
            any = true;
        }
        if (!any || sig != SIGKILL) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
}

// [SECTION] signals of cudalab itself

volatile sig_atomic_t g_stop_signal = 0;
void on_stop_signal(int sig) { g_stop_signal = sig; }

struct SignalGuard {
    static constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
    struct sigaction saved[4], saved_pipe;
    SignalGuard() {
        g_stop_signal = 0;
        struct sigaction sa {};
        sa.sa_handler = on_stop_signal;
        sigemptyset(&sa.sa_mask);
        for (int i = 0; i < 4; ++i) ::sigaction(kSignals[i], &sa, &saved[i]);
        // Our stdout may be a pipe whose reader went away (`cudalab run | head`): keep going.
        struct sigaction ign {};
        ign.sa_handler = SIG_IGN;
        ::sigaction(SIGPIPE, &ign, &saved_pipe);
    }
    ~SignalGuard() {
        for (int i = 0; i < 4; ++i) ::sigaction(kSignals[i], &saved[i], nullptr);
        ::sigaction(SIGPIPE, &saved_pipe, nullptr);
    }
};

// [SECTION] starting the child

void write_all(int fd, const char* data, std::size_t n, bool* broken) {
    while (n > 0 && !*broken) {
        ssize_t w = ::write(fd, data, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN) {
                std::this_thread::sleep_for(std::chrono::milliseconds(1));
                continue;
            }
            *broken = true;  // EPIPE and friends: the output is discarded from now on
            return;
        }
        data += w;
        n -= std::size_t(w);
    }
}

struct Channel {
    int fd = -1;
    int target = 1;  // our fd to relay to
    std::string* capture = nullptr;
    bool broken = false;
};

}  // namespace

ProcessResult run_process(const ProcessSpec& spec) {
    ProcessResult r;
    r.limits = spec.limits;
    if (spec.argv.empty()) {
        r.error = "nothing to run";
        return r;
    }

    // Everything the child needs is prepared before fork(): after it, the child calls only
    // async-signal-safe functions.
    std::vector<char*> argv, envp;
    for (const auto& a : spec.argv) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    for (const auto& e : spec.env) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);
    const char* exe_path = spec.executable.empty() ? spec.argv[0].c_str() : spec.executable.c_str();

    const bool pass = spec.output == OutputMode::pass_through;
    const bool stdin_tty = !spec.stdin_null && ::isatty(0);
    // A pseudo-terminal for stdout (and stderr, when it is the same terminal) keeps the program's
    // line buffering and colours as they would be natively.
    const bool use_pty = pass && ::isatty(1);
    const bool stderr_on_pty = use_pty && ::isatty(2);

    int out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1}, exec_pipe[2] = {-1, -1};
    int pty_master = -1;
    std::string pty_slave;
    auto close_fd = [](int& fd) {
        if (fd >= 0) {
            ::close(fd);
            fd = -1;
        }
    };
    auto fail = [&](const std::string& why) {
        close_fd(out_pipe[0]);
        close_fd(out_pipe[1]);
        close_fd(err_pipe[0]);
        close_fd(err_pipe[1]);
        close_fd(exec_pipe[0]);
        close_fd(exec_pipe[1]);
        close_fd(pty_master);
        r.outcome = Outcome::start_failed;
        r.error = why + " (" + std::strerror(errno) + ")";
        return r;
    };
    if (use_pty) {
        pty_master = ::posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC);
        if (pty_master < 0 || ::grantpt(pty_master) != 0 || ::unlockpt(pty_master) != 0)
            return fail("cannot open a pseudo-terminal");
        const char* name = ::ptsname(pty_master);
        if (!name) return fail("cannot name the pseudo-terminal");
        pty_slave = name;
    } else if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
        return fail("cannot create a pipe");
    }
    if (!stderr_on_pty && ::pipe2(err_pipe, O_CLOEXEC) != 0) return fail("cannot create a pipe");
    if (::pipe2(exec_pipe, O_CLOEXEC) != 0) return fail("cannot create a pipe");
    struct winsize ws {};
    bool have_ws = use_pty && ::ioctl(1, TIOCGWINSZ, &ws) == 0;

    SignalGuard signals;
    ::prctl(PR_SET_CHILD_SUBREAPER, 1);
    const pid_t parent = ::getpid();
    const auto start = std::chrono::steady_clock::now();
    pid_t pid = ::fork();
    if (pid < 0) {
        ::prctl(PR_SET_CHILD_SUBREAPER, 0);
        return fail("cannot fork");
    }
    if (pid == 0) {
        // The child: only async-signal-safe calls from here to execve.
        if (!stdin_tty) ::setpgid(0, 0);
        ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // if cudalab dies, the program does not run on
        if (::getppid() != parent) ::_exit(127);
        int out_fd = out_pipe[1], err_fd = err_pipe[1];
        if (use_pty) {
            out_fd = ::open(pty_slave.c_str(), O_RDWR | O_NOCTTY);
            if (out_fd < 0) goto failed;
            struct termios t;
            if (::tcgetattr(out_fd, &t) == 0) {
                // no "\n" -> "\r\n": the bytes reach our terminal as written
                t.c_oflag &= ~tcflag_t(OPOST);
                t.c_lflag &= ~tcflag_t(ECHO);
                ::tcsetattr(out_fd, TCSANOW, &t);
            }
            if (have_ws) ::ioctl(out_fd, TIOCSWINSZ, &ws);
            if (stderr_on_pty) err_fd = out_fd;
        }
        if (spec.stdin_null) {
            int null_fd = ::open("/dev/null", O_RDONLY);
            if (null_fd < 0 || ::dup2(null_fd, 0) < 0) goto failed;
        }
        if (::dup2(out_fd, 1) < 0 || ::dup2(err_fd, 2) < 0) goto failed;
        if (!spec.cwd.empty() && ::chdir(spec.cwd.c_str()) != 0) goto failed;
        {
            const rlimit no_core{0, 0};
            ::setrlimit(RLIMIT_CORE, &no_core);  // no core files in the learner's directory
            if (spec.limits.cpu_seconds > 0) {
                rlim_t soft = rlim_t(std::ceil(spec.limits.cpu_seconds));
                // SIGXCPU at the limit, SIGKILL 2 s later.
                const rlimit cpu{soft, soft + 2};
                ::setrlimit(RLIMIT_CPU, &cpu);
            }
            if (spec.limits.file_bytes > 0) {
                // Inherited by bwrap and whatever it starts: no file of the program's (in its
                // work folder, or in the sandbox's /tmp) grows past it.
                const rlimit fsize{rlim_t(spec.limits.file_bytes), rlim_t(spec.limits.file_bytes)};
                ::setrlimit(RLIMIT_FSIZE, &fsize);
            }
            for (int fd : spec.inherit_fds)
                if (fd > 2) ::fcntl(fd, F_SETFD, 0);
            struct sigaction dfl {};
            dfl.sa_handler = SIG_DFL;
            for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) ::sigaction(s, &dfl, nullptr);
            sigset_t none;
            sigemptyset(&none);
            ::sigprocmask(SIG_SETMASK, &none, nullptr);
        }
        ::execve(exe_path, argv.data(), envp.data());
    failed:
        int e = errno;
        ssize_t ignored = ::write(exec_pipe[1], &e, sizeof e);
        (void)ignored;
        ::_exit(127);
    }

    // [SECTION] the watch loop
    const pid_t group = stdin_tty ? 0 : pid;
    if (group)
        ::setpgid(pid,
                  pid);  // also here, so that a kill before the child's own call reaches the group
    close_fd(out_pipe[1]);
    close_fd(err_pipe[1]);
    close_fd(exec_pipe[1]);
    int exec_errno = 0;
    ssize_t got = ::read(exec_pipe[0], &exec_errno, sizeof exec_errno);
    close_fd(exec_pipe[0]);
    if (got == sizeof exec_errno) {
        ::waitpid(pid, nullptr, 0);
        ::prctl(PR_SET_CHILD_SUBREAPER, 0);
        close_fd(out_pipe[0]);
        close_fd(err_pipe[0]);
        close_fd(pty_master);
        r.outcome = Outcome::start_failed;
        r.error = std::string("cannot run ") + exe_path + ": " + std::strerror(exec_errno);
        return r;
    }

    // A sibling supervision (the device process beside a program) leaves this tree alone.
    if (spec.siblings) spec.siblings->add(pid);
    auto siblings = [&] { return spec.siblings ? spec.siblings->others(pid) : std::set<int>{}; };

    std::vector<Channel> channels;
    {
        Channel c;
        c.fd = use_pty ? pty_master : out_pipe[0];
        c.target = 1;
        c.capture = pass ? nullptr : &r.out;
        channels.push_back(c);
    }
    if (err_pipe[0] >= 0) {
        Channel c;
        c.fd = err_pipe[0];
        c.target = 2;
        c.capture = pass ? nullptr : &r.err;
        channels.push_back(c);
    }
    for (auto& c : channels) ::fcntl(c.fd, F_SETFL, ::fcntl(c.fd, F_GETFL) | O_NONBLOCK);

    const Limits& lim = spec.limits;
    bool exited = false;
    int status = 0;
    struct rusage usage {};
    Outcome limit_hit = Outcome::exited;
    int stop_signal_seen = 0;
    auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    double next_scan = 0;
    double exited_at = -1;
    bool output_cut = false;

    auto stop = [&](Outcome why, bool gently) {
        if (limit_hit != Outcome::exited) return;
        limit_hit = why;
        if (gently) {
            // SIGTERM first, so that a runtime can still write its timeline; then SIGKILL.
            kill_tree(group, SIGTERM, pid, siblings());
            ::kill(pid, SIGTERM);
            for (int i = 0; i < 50 && !exited; ++i) {
                pid_t w = ::wait4(pid, &status, WNOHANG, &usage);
                if (w == pid) {
                    exited = true;
                    break;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
            }
        }
        kill_tree(group, SIGKILL, pid, siblings());
        if (!exited) ::kill(pid, SIGKILL);
    };

    while (true) {
        // Relay whatever is there.
        std::vector<pollfd> fds;
        for (auto& c : channels)
            if (c.fd >= 0) fds.push_back({c.fd, POLLIN, 0});
        if (fds.empty() && exited) break;
        if (!fds.empty()) ::poll(fds.data(), fds.size(), exited ? 20 : 10);
        else std::this_thread::sleep_for(std::chrono::milliseconds(10));
        for (auto& c : channels) {
            if (c.fd < 0) continue;
            for (int burst = 0; burst < 16; ++burst) {
                char buf[65536];
                ssize_t n = ::read(c.fd, buf, sizeof buf);
                if (n < 0 && (errno == EINTR)) continue;
                if (n < 0 && errno == EAGAIN) break;
                if (n <= 0) {
                    close_fd(c.fd);
                    break;
                }  // EOF, or EIO once the pty's last writer is gone
                std::uint64_t before = r.output_bytes;
                r.output_bytes += std::uint64_t(n);
                std::size_t keep = std::size_t(n);
                if (lim.output_bytes && r.output_bytes > lim.output_bytes) {
                    keep = before >= lim.output_bytes ? 0 : std::size_t(lim.output_bytes - before);
                    if (!output_cut) {
                        output_cut = true;
                        stop(Outcome::output_limit, false);
                    }
                }
                if (keep == 0) continue;
                if (c.capture) c.capture->append(buf, keep);
                else write_all(c.target, buf, keep, &c.broken);
            }
        }

        if (!exited) {
            pid_t w = ::wait4(pid, &status, WNOHANG, &usage);
            if (w == pid || (w < 0 && errno == ECHILD)) {
                exited = true;
                exited_at = elapsed();
            }
        }
        double now = elapsed();
        if (exited) {
            if (exited_at < 0) exited_at = now;
            // The program is done: what it left running (holding the pipes open) is stopped after a
            // short grace for the last output to arrive.
            if (now - exited_at > 0.2) {
                kill_tree(group, SIGKILL, pid, siblings());
                for (auto& c : channels) {
                    // Drain what is already buffered, then close.
                    for (;;) {
                        if (c.fd < 0) break;
                        char buf[65536];
                        ssize_t n = ::read(c.fd, buf, sizeof buf);
                        if (n <= 0) {
                            close_fd(c.fd);
                            break;
                        }
                        std::uint64_t before = r.output_bytes;
                        r.output_bytes += std::uint64_t(n);
                        std::size_t keep = std::size_t(n);
                        if (lim.output_bytes && r.output_bytes > lim.output_bytes)
                            keep = before >= lim.output_bytes
                                       ? 0
                                       : std::size_t(lim.output_bytes - before);
                        if (keep && c.capture) c.capture->append(buf, keep);
                        else if (keep) write_all(c.target, buf, keep, &c.broken);
                    }
                }
                break;
            }
            continue;
        }
        if (g_stop_signal && !stop_signal_seen) {
            stop_signal_seen = g_stop_signal;
            // With the child in our group, a terminal's Ctrl-C has reached it too; give it the
            // chance to end of it before it is stopped.
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            if (::wait4(pid, &status, WNOHANG, &usage) == pid) {
                exited = true;
                exited_at = elapsed();
                continue;
            }
            stop(Outcome::interrupted, true);
            continue;
        }
        if (lim.wall_seconds > 0 && now > lim.wall_seconds) {
            stop(Outcome::wall_limit, true);
            continue;
        }
        if (now >= next_scan) {  // also without limits: the peaks go into the report
            next_scan = now + 0.05;
            std::uint64_t rss = 0, tasks = 0;
            static const std::uint64_t page = std::uint64_t(::sysconf(_SC_PAGESIZE));
            for (const auto& p : descendants_of(::getpid(), siblings())) {
                rss += p.rss_pages * page;
                tasks += p.threads;
                if (p.stopped && spec.continue_stopped) ::kill(p.pid, SIGCONT);
            }
            r.peak_memory_bytes = std::max(r.peak_memory_bytes, rss);
            r.peak_tasks = std::max(r.peak_tasks, tasks);
            if (lim.memory_bytes && rss > lim.memory_bytes) {
                stop(Outcome::memory_limit, false);
                continue;
            }
            if (lim.tasks && tasks > lim.tasks) {
                stop(Outcome::task_limit, false);
                continue;
            }
        }
    }
    if (!exited) {
        ::wait4(pid, &status, 0, &usage);
    }
    kill_tree(group, SIGKILL, pid, siblings());
    ::prctl(PR_SET_CHILD_SUBREAPER, 0);
    close_fd(pty_master);
    for (auto& c : channels) close_fd(c.fd);

    r.wall_seconds = elapsed();
    r.cpu_seconds = double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
                    double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
    r.peak_memory_bytes = std::max(r.peak_memory_bytes, std::uint64_t(usage.ru_maxrss) * 1024);
    if (WIFEXITED(status)) {
        r.outcome = Outcome::exited;
        r.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        r.outcome = Outcome::signaled;
        r.signal = WTERMSIG(status);
    }
    if (limit_hit != Outcome::exited) {
        r.outcome = limit_hit;
        if (limit_hit == Outcome::interrupted) r.signal = stop_signal_seen;
    } else if (r.outcome == Outcome::signaled && lim.cpu_seconds > 0 &&
               (r.signal == SIGXCPU || (r.signal == SIGKILL && r.cpu_seconds >= lim.cpu_seconds))) {
        r.outcome = Outcome::cpu_limit;
    } else if (r.outcome == Outcome::signaled && lim.file_bytes > 0 && r.signal == SIGXFSZ) {
        r.outcome = Outcome::file_size_limit;
    }
    return r;
}

}  // namespace cudalab::programs
