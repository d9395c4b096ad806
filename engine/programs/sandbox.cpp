// The sandbox (sandbox.h): bwrap's command line, the seccomp filter, the environment's allow list.
//
// [SECTION] helpers
// [SECTION] the seccomp filter
// [SECTION] the view: an empty root and what is bound into it
// [SECTION] the probe
// [SECTION] sandbox_process
#include "programs/sandbox.h"

#include <fcntl.h>
#include <linux/sched.h>
#include <pwd.h>
#include <seccomp.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dirent.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <sstream>

#include "programs/process.h"

namespace fs = std::filesystem;

namespace cudalab::programs {

// [SECTION] helpers

namespace {

std::string find_in_path(const std::string& name) {
    const char* path = std::getenv("PATH");
    std::string p = path ? path : "/usr/bin:/bin";
    p += ":/usr/bin:/bin:/usr/sbin:/sbin";
    std::stringstream in(p);
    std::string dir;
    while (std::getline(in, dir, ':')) {
        if (dir.empty() || dir[0] != '/') continue;  // never a relative PATH entry
        fs::path c = fs::path(dir) / name;
        if (::access(c.c_str(), X_OK) == 0) return c.string();
    }
    return "";
}

fs::path canonical_or_self(const fs::path& p) {
    std::error_code ec;
    fs::path c = fs::weakly_canonical(p, ec);
    return ec ? p.lexically_normal() : c;
}

// `inner` is `outer` or below it (both canonical).
bool within(const fs::path& inner, const fs::path& outer) {
    const std::string i = inner.string(), o = outer.string();
    if (o == "/") return true;
    return i == o || (i.size() > o.size() && i.compare(0, o.size(), o) == 0 && i[o.size()] == '/');
}

// The home folders a program must never see: $HOME and the password database's for our user.
std::vector<fs::path> home_folders() {
    std::vector<fs::path> homes;
    if (const char* h = std::getenv("HOME"); h && *h) homes.push_back(canonical_or_self(h));
    if (const passwd* pw = ::getpwuid(::geteuid()); pw && pw->pw_dir && *pw->pw_dir)
        homes.push_back(canonical_or_self(pw->pw_dir));
    return homes;
}

// Owns the file descriptors bwrap reads (the filter, /etc/passwd, /etc/group) until the process
// has started.
struct Fds {
    std::vector<int> fds;
    ~Fds() {
        for (int fd : fds) ::close(fd);
    }
};

// A memory file holding `bytes`, at offset 0, closed on exec unless the child keeps it.
int memory_file(const char* name, const std::string& bytes) {
    int fd = ::memfd_create(name, MFD_CLOEXEC);
    if (fd < 0) return -1;
    std::size_t done = 0;
    while (done < bytes.size()) {
        ssize_t w = ::write(fd, bytes.data() + done, bytes.size() - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            ::close(fd);
            return -1;
        }
        done += std::size_t(w);
    }
    if (::lseek(fd, 0, SEEK_SET) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

}  // namespace

bool shell_safe_path(const std::string& path) {
    if (path.empty()) return false;
    for (char c : path)
        if (!std::isalnum(static_cast<unsigned char>(c)) && std::strchr("_.,+-@%=:/", c) == nullptr)
            return false;
    return true;
}

std::string sandbox_refuses_folder(const std::string& dir) {
    const fs::path d = canonical_or_self(dir);
    if (d == "/") return "it is the root folder, which holds everything";
    // Folders every user of the machine shares (other runs' work folders, other users' files).
    for (const char* shared : {"/tmp", "/var/tmp", "/dev/shm", "/home", "/srv"})
        if (d == canonical_or_self(shared))
            return std::string("it is ") + shared + ", which every user of the machine shares";
    for (const fs::path& h : home_folders()) {
        if (h == "/" || h.empty()) continue;
        if (d == h) return "it is the home folder " + h.string() + " (keys, tokens, other files)";
        if (within(h, d)) return "it holds the home folder " + h.string();
    }
    return "";
}

bool give_to_sandbox_user(const std::string& dir, std::string* why) {
    if (::geteuid() != 0) return true;
    if (::lchown(dir.c_str(), kSandboxUid, kSandboxGid) != 0) {
        if (why) *why = "cannot hand " + dir + " to the sandbox's user: " + std::strerror(errno);
        return false;
    }
    return true;
}

// [SECTION] the seccomp filter

namespace {

// The BPF program bwrap loads before it starts the program (and nvcc). The default is to allow:
// a CUDA program needs threads (clone), memory maps (mmap, mprotect, madvise, mbind),
// memfd_create, futexes, eventfds, and ioctl on /dev/nvidia* for the GPU backend, and an allow
// list would break the next runtime or driver release. Refused with EPERM (ENOSYS for clone3, so
// that the C library falls back to clone, whose flags can be read) is what no program of a CUDA
// course needs and what an attack on the grader or the kernel reaches for:
const char* const kRefused[] = {
    // the file system's view: unmount the fresh /tmp, remount / writable, bind over anything
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "move_mount",
    "open_tree",
    "mount_setattr",
    // other processes: ptrace (PTRACE_TRACEME too: a process that stops itself for a tracer that
    // never comes would hang its run until the wall-clock limit), their memory
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    // the kernel keyring (keys of the grader's session)
    "keyctl",
    "add_key",
    "request_key",
    // programs in the kernel, and performance counters (CUDA's profiler works through the
    // driver's ioctl, not perf events)
    "bpf",
    "perf_event_open",
    // new namespaces (a user namespace gives back every capability inside it), entering others
    "unshare",
    "setns",
    // the machine: modules, kexec, reboot, swap, the clock, the kernel log, accounting, quotas,
    // port I/O
    "init_module",
    "finit_module",
    "delete_module",
    "kexec_load",
    "kexec_file_load",
    "reboot",
    "swapon",
    "swapoff",
    "settimeofday",
    "clock_settime",
    "syslog",
    "acct",
    "quotactl",
    "quotactl_fd",
    "iopl",
    "ioperm",
    "vhangup",
    "uselib",
    // file handles bypass the view (open_by_handle_at reads any inode of a mounted file system)
    "open_by_handle_at",
    "name_to_handle_at",
    // userfaultfd stretches kernel races into reliable exploits; io_uring has had its share of
    // kernel bugs and no CUDA program uses it
    "userfaultfd",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    // watching the whole file system's events
    "fanotify_init",
};

// The filter as bwrap reads it, built once.
const std::string* seccomp_program(std::string* why) {
    static std::string program, error;
    static std::once_flag once;
    std::call_once(once, [] {
        scmp_filter_ctx ctx = ::seccomp_init(SCMP_ACT_ALLOW);
        if (!ctx) {
            error = "libseccomp could not start a filter";
            return;
        }
        int rc = 0;
        // A syscall of another ABI (int 0x80 on x86-64, x32 numbers) would get past a filter
        // written for the native one: the process is killed instead.
        rc |= ::seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
        for (const char* name : kRefused) {
            const int nr = ::seccomp_syscall_resolve_name(name);
            if (nr == __NR_SCMP_ERROR) continue;  // not on this architecture
            rc |= ::seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), nr, 0);
        }
        rc |= ::seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0);
        // clone with a namespace flag: the same as unshare.
        for (unsigned long flag : {CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET,
                                   CLONE_NEWIPC, CLONE_NEWUTS, CLONE_NEWCGROUP})
            rc |= ::seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone), 1,
                                     SCMP_A0(SCMP_CMP_MASKED_EQ, flag, flag));
        // Pushing characters into a terminal's input (TIOCSTI), or the console's (TIOCLINUX).
        for (unsigned long request : {TIOCSTI, TIOCLINUX})
            rc |= ::seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(ioctl), 1,
                                     SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, request));
        // personality() flags that switch off address-space randomisation or make data
        // executable; the query personality(0xffffffff) (bit 31 set) still answers.
        for (unsigned long flag : {ADDR_NO_RANDOMIZE, READ_IMPLIES_EXEC, ADDR_COMPAT_LAYOUT,
                                   MMAP_PAGE_ZERO, ADDR_LIMIT_3GB, ADDR_LIMIT_32BIT})
            rc |= ::seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(personality), 1,
                                     SCMP_A0(SCMP_CMP_MASKED_EQ, 0x80000000ul | flag, flag));
        if (rc != 0) {
            ::seccomp_release(ctx);
            error = "libseccomp refused a rule of the sandbox's filter";
            return;
        }
        int fd = ::memfd_create("cudalab-seccomp", MFD_CLOEXEC);
        if (fd < 0 || ::seccomp_export_bpf(ctx, fd) != 0 || ::lseek(fd, 0, SEEK_SET) != 0) {
            error = "cannot export the sandbox's seccomp filter";
        } else {
            char buf[4096];
            ssize_t n;
            while ((n = ::read(fd, buf, sizeof buf)) > 0) program.append(buf, std::size_t(n));
            if (program.empty()) error = "the sandbox's seccomp filter came out empty";
        }
        if (fd >= 0) ::close(fd);
        ::seccomp_release(ctx);
    });
    if (!error.empty()) {
        if (why) *why = error;
        return nullptr;
    }
    return &program;
}

// [SECTION] the view: an empty root and what is bound into it

// /etc files the dynamic loader, the C library and the host compiler read; nothing else of /etc
// (shadow, SSH host keys, the machine's configuration and any secret in it) exists inside.
// passwd and group are replaced by two lines each (root, and the sandbox's user).
const char* const kEtcFiles[] = {"ld.so.cache", "ld.so.conf",    "ld.so.conf.d",  "alternatives",
                                 "localtime",   "timezone",      "nsswitch.conf", "host.conf",
                                 "gai.conf",    "locale.alias",  "locale.conf",   "os-release",
                                 "lsb-release", "debian_version"};

const char kPasswd[] = "root:x:0:0:root:/root:/usr/sbin/nologin\n"
                       "nobody:x:65534:65534:nobody:/tmp:/usr/sbin/nologin\n";
const char kGroup[] = "root:x:0:\nnogroup:x:65534:\n";

// The folders of the system bound read-only: /usr, and /bin, /sbin, /lib* as links where they are
// links (merged /usr) or bound where they are folders.
void system_view(std::vector<std::string>& c, std::vector<fs::path>& visible) {
    c.insert(c.end(), {"--ro-bind", "/usr", "/usr"});
    visible.push_back("/usr");
    for (const char* top : {"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}) {
        std::error_code ec;
        const fs::file_status st = fs::symlink_status(top, ec);
        if (ec || !fs::exists(st)) continue;
        if (fs::is_symlink(st)) {
            const fs::path target = fs::read_symlink(top, ec);
            if (!ec) c.insert(c.end(), {"--symlink", target.string(), top});
        } else if (fs::is_directory(st)) {
            c.insert(c.end(), {"--ro-bind", top, top});
            visible.push_back(top);
        }
    }
}

// The CUDA Toolkit (nvcc, NVRTC, the headers), wherever it is installed: the folder of the nvcc
// cudalab would use, and the one it was built with.
std::vector<fs::path> toolkit_folders() {
    std::vector<fs::path> out;
    auto add = [&](const std::string& home) {
        if (home.empty()) return;
        std::error_code ec;
        const fs::path real = fs::canonical(home, ec);
        if (!ec && fs::is_directory(real, ec)) out.push_back(real);
    };
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
        if (const char* v = std::getenv(var); v && *v) add(v);
#ifdef CUDALAB_CUDA_INCLUDE_DIR
    add(fs::path(CUDALAB_CUDA_INCLUDE_DIR).parent_path().string());
#endif
    add("/usr/local/cuda");
    return out;
}

}  // namespace

std::vector<std::string> sandbox_environment() {
    std::vector<std::string> env;
    for (const std::string& kv : current_environment()) {
        const std::string key = kv.substr(0, kv.find('='));
        if (sandbox_keeps_variable(key)) env.push_back(kv);
    }
    // The system's folders: the grader's PATH may name folders that do not exist inside.
    set_env(env, "PATH", "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin");
    set_env(env, "HOME", "/tmp");
    set_env(env, "TMPDIR", "/tmp");
    return env;
}

bool sandbox_keeps_variable(const std::string& name) {
    // An allow list: what a C++ program's output and the C library's behaviour depend on, nothing
    // that could hold a secret (tokens, keys, the grader's CUDALAB_*, CUDA_*, NVIDIA_*, NVCC_*
    // settings). What the runner means the program to have it sets itself.
    static const char* exact[] = {
        "LANG",     "LANGUAGE",        "TERM", "TZ",   "COLUMNS",          "LINES",
        "NO_COLOR", "OMP_NUM_THREADS", "PATH", "HOME", "SOURCE_DATE_EPOCH"};
    for (const char* e : exact)
        if (name == e) return true;
    return name.rfind("LC_", 0) == 0;
}

// [SECTION] the probe

const SandboxSupport& sandbox_support() {
    static SandboxSupport s;
    static std::once_flag once;
    std::call_once(once, [] {
        // $CUDALAB_BWRAP names another bubblewrap (or a missing one, to try the refusal).
        const char* own = std::getenv("CUDALAB_BWRAP");
        s.bwrap = own && *own ? (::access(own, X_OK) == 0 ? std::string(own) : std::string())
                              : find_in_path("bwrap");
        s.prlimit = find_in_path("prlimit");
        s.setpriv = find_in_path("setpriv");
        s.as_root = ::geteuid() == 0;
        const std::string trusted =
            std::string("; only for trusted code: ") + kNoSandboxOption +
            " (`cudalab check`, `grade`) or `cudalab run` without --sandbox";
        if (s.bwrap.empty()) {
            s.why_not = "bubblewrap (bwrap) is not installed; install the Debian package "
                        "`bubblewrap` (scripts/setup.sh does)" +
                        trusted;
            return;
        }
        if (s.as_root && s.setpriv.empty()) {
            s.why_not =
                "running as root, the sandbox drops to an unprivileged user with util-linux "
                "`setpriv`, which is not installed (Debian package util-linux)" +
                trusted;
            return;
        }
        std::string why;
        if (!seccomp_program(&why)) {
            s.why_not = "the sandbox's seccomp filter could not be built (" + why + ")" + trusted;
            return;
        }
        ProcessSpec probe;
        SandboxSpec spec;
        s.ok = true;  // for sandbox_process; reset below when the probe fails
        if (!sandbox_process(s, spec, {"/bin/true"}, &probe, &why)) {
            s.ok = false;
            s.why_not = "the sandbox could not be set up: " + why + trusted;
            return;
        }
        probe.output = OutputMode::capture;
        probe.stdin_null = true;
        probe.limits.wall_seconds = 20;
        ProcessResult r = run_process(probe);
        if (r.outcome == Outcome::exited && r.exit_code == 0) return;
        s.ok = false;
        std::string said = r.err.empty() ? r.error : r.err;
        while (!said.empty() && (said.back() == '\n' || said.back() == ' ')) said.pop_back();
        if (said.size() > 500) said = said.substr(0, 500) + "...";
        s.why_not =
            "bubblewrap cannot create its namespaces on this machine (bwrap: " + said + "). " +
            (s.as_root ? std::string("As root it needs mount, PID and network namespaces (a "
                                     "container started without CAP_SYS_ADMIN has none)")
                       : std::string("It needs unprivileged user namespaces: enable them (sysctl "
                                     "kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 also "
                                     "kernel.apparmor_restrict_unprivileged_userns=0; in a "
                                     "container, run it with user namespaces allowed)")) +
            trusted;
    });
    return s;
}

// [SECTION] sandbox_process

bool sandbox_process(const SandboxSupport& s, const SandboxSpec& spec,
                     const std::vector<std::string>& argv, ProcessSpec* process, std::string* why) {
    if (!s.ok) {
        *why = s.why_not;
        return false;
    }
    const std::string* filter = seccomp_program(why);
    if (!filter) return false;
    auto fds = std::make_shared<Fds>();
    const int seccomp_fd = memory_file("cudalab-seccomp", *filter);
    const int passwd_fd = memory_file("cudalab-passwd", kPasswd);
    const int group_fd = memory_file("cudalab-group", kGroup);
    for (int fd : {seccomp_fd, passwd_fd, group_fd})
        if (fd >= 0) fds->fds.push_back(fd);
    if (seccomp_fd < 0 || passwd_fd < 0 || group_fd < 0) {
        *why = std::string("cannot make the sandbox's memory files: ") + std::strerror(errno);
        return false;
    }

    std::vector<std::string> c = {s.bwrap};
    if (s.as_root) {
        // No user namespace: as root, bwrap's sandbox would map root to root, whose files the
        // program could then read and write by ownership alone. bwrap keeps only what setpriv
        // needs to become 65534 (which drops those too, and the bounding set).
        c.insert(c.end(), {"--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts",
                           "--unshare-cgroup-try", "--cap-drop", "ALL", "--cap-add", "CAP_SETUID",
                           "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"});
    } else {
        c.insert(c.end(),
                 {"--unshare-all", "--unshare-user", "--uid", std::to_string(kSandboxUid), "--gid",
                  std::to_string(kSandboxGid), "--disable-userns", "--cap-drop", "ALL"});
    }
    c.insert(c.end(), {"--die-with-parent", "--new-session"});

    // The view: an empty root (bwrap's own tmpfs) with the system's folders, a few /etc files,
    // the toolkit and what the caller needs.
    std::vector<fs::path> visible;
    system_view(c, visible);
    c.insert(c.end(), {"--dir", "/etc"});
    for (const char* name : kEtcFiles) {
        const std::string p = std::string("/etc/") + name;
        c.insert(c.end(), {"--ro-bind-try", p, p});
    }
    c.insert(c.end(),
             {"--perms", "0644", "--ro-bind-data", std::to_string(passwd_fd), "/etc/passwd",
              "--perms", "0644", "--ro-bind-data", std::to_string(group_fd), "/etc/group"});
    for (const fs::path& t : toolkit_folders()) {
        bool shown = false;
        for (const fs::path& v : visible) shown = shown || within(t, v);
        if (!shown) {
            c.insert(c.end(), {"--ro-bind", t.string(), t.string()});
            visible.push_back(t);
        }
    }
    c.insert(c.end(), {"--proc", "/proc", "--dev", "/dev"});
    const std::uint64_t tmp = spec.tmp_bytes ? spec.tmp_bytes : (64ull << 20);
    c.insert(c.end(), {"--perms", "1777", "--size", std::to_string(tmp), "--tmpfs", "/tmp"});
    if (spec.gpu) {
        // The driver talks to the GPU through these, and reads the PCI topology from /sys.
        if (DIR* d = ::opendir("/dev")) {
            while (dirent* e = ::readdir(d)) {
                std::string n = e->d_name;
                if (n.rfind("nvidia", 0) == 0)
                    c.insert(c.end(), {"--dev-bind-try", "/dev/" + n, "/dev/" + n});
            }
            ::closedir(d);
        }
        c.insert(c.end(),
                 {"--dev-bind-try", "/dev/dri", "/dev/dri", "--ro-bind-try", "/sys", "/sys"});
    }

    // Hidden folders inside what is visible so far (a course under /usr/local) are covered
    // before anything is bound back from them; /tmp is a fresh tmpfs already.
    std::vector<fs::path> hidden;
    for (const std::string& h : spec.hidden) {
        const fs::path real = canonical_or_self(h);
        bool inside = false;
        for (const fs::path& v : visible) inside = inside || within(real, v);
        std::error_code ec;
        if (inside && fs::is_directory(real, ec)) {
            c.insert(c.end(), {"--perms", "0555", "--tmpfs", real.string()});
            hidden.push_back(real);
        }
    }
    auto shown_already = [&](const fs::path& p) {
        for (const fs::path& h : hidden)
            if (within(p, h)) return false;
        for (const fs::path& v : visible)
            if (within(p, v)) return true;
        return false;
    };
    // bwrap makes the folders above a bind's destination as root with mode 0700, which the
    // sandbox's user could not pass through: they are made first, open to it (read-only, as the
    // empty root they are on).
    std::vector<fs::path> made;
    auto make_parents = [&](const fs::path& dest) {
        fs::path at = "/";
        for (auto part = dest.begin(); part != dest.end(); ++part) {
            if (*part == "/") continue;
            if (std::next(part) == dest.end()) break;  // the destination itself
            at /= *part;
            bool exists = shown_already(at);
            for (const fs::path& h : hidden) exists = exists || at == h;
            for (const fs::path& m : made) exists = exists || at == m;
            if (exists) continue;
            c.insert(c.end(), {"--perms", "0755", "--dir", at.string()});
            made.push_back(at);
        }
    };
    auto bind = [&](const char* how, const std::string& source, const std::string& dest) {
        std::error_code ec;
        if (!fs::exists(source, ec)) {
            *why = "cannot show " + source + " to the sandboxed program: no such file or folder";
            return false;
        }
        make_parents(dest);
        c.insert(c.end(), {how, source, dest});
        return true;
    };
    for (const std::string& p : spec.read_only) {
        const fs::path real = canonical_or_self(p);
        if (shown_already(real)) continue;
        if (!bind("--ro-bind", real.string(), real.string())) return false;
    }
    for (const auto& [source, dest] : spec.read_only_at)
        if (!bind("--ro-bind", canonical_or_self(source).string(), dest)) return false;
    // The current folder before the writable ones: a later bind covers an earlier one, and a
    // writable folder inside a read-only current folder (a build's scratch folder in a cache under
    // it) must stay writable.
    if (!spec.cwd.empty()) {
        const std::string cwd = canonical_or_self(spec.cwd).string();
        if (std::string refused = sandbox_refuses_folder(cwd); !refused.empty()) {
            *why = "the sandbox will not show the program the folder " + cwd + ": " + refused +
                   ". Run it from a folder of its own";
            return false;
        }
        if (!bind(spec.readonly_cwd ? "--ro-bind" : "--bind", cwd, cwd)) return false;
    }
    for (const std::string& p : spec.writable) {
        const std::string real = canonical_or_self(p).string();
        if (!bind("--bind", real, real)) return false;
    }
    for (const auto& [source, dest] : spec.writable_at)
        if (!bind("--bind", canonical_or_self(source).string(), dest)) return false;
    for (const fs::path& h : hidden) c.insert(c.end(), {"--remount-ro", h.string()});
    c.insert(c.end(), {"--seccomp", std::to_string(seccomp_fd)});
    c.insert(c.end(),
             {"--chdir", spec.cwd.empty() ? "/tmp" : canonical_or_self(spec.cwd).string()});
    c.push_back("--");
    if (s.as_root)
        c.insert(c.end(), {s.setpriv, "--reuid=" + std::to_string(kSandboxUid),
                           "--regid=" + std::to_string(kSandboxGid), "--clear-groups",
                           "--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"});
    // RLIMIT_NPROC counts the processes of the program's user: inside a user namespace its own;
    // as root, every process of 65534 on the machine, other sandboxed programs' included. The
    // /proc watch counts the program's own and decides (exit 121, the limit named); the rlimit is
    // the backstop between two of its looks, set above it so that a program beside this one
    // cannot make this one's forks fail first (it then slept to the wall-clock limit instead).
    if (spec.tasks && !s.prlimit.empty())
        c.insert(c.end(),
                 {s.prlimit,
                  "--nproc=" + std::to_string(spec.tasks + std::max<std::uint64_t>(spec.tasks, 64)),
                  "--"});
    if (!spec.program_env.empty()) {
        c.push_back("/usr/bin/env");
        c.insert(c.end(), spec.program_env.begin(), spec.program_env.end());
    }
    c.insert(c.end(), argv.begin(), argv.end());

    process->argv = std::move(c);
    process->executable.clear();
    process->env = spec.env.empty() ? sandbox_environment() : spec.env;
    process->cwd.clear();  // bwrap --chdir
    process->inherit_fds = fds->fds;
    process->continue_stopped = true;
    process->keep_alive = fds;
    return true;
}

}  // namespace cudalab::programs
