// The compile helper (compile_helper.h): a request/response over pipes to a child process that
// runs NVRTC, watched for time and memory by the parent.
//
// [SECTION] The wire format
// [SECTION] Parent: start, feed, watch, read
// [SECTION] Child: limits, jail, compile
#include "compiler/compile_helper.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <nvrtc.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <system_error>

extern char** environ;

namespace cudalab::compiler {
namespace {

// ---------------------------------------------------------------------------------------------
// [SECTION] The wire format
// ---------------------------------------------------------------------------------------------

// Length-prefixed fields in the host's byte order (both ends are the same build).
constexpr std::uint64_t request_magic = 0x31514552434c4443ull;   // "CDLCREQ1"
constexpr std::uint64_t response_magic = 0x31535052434c4443ull;  // "CDLCRPS1"

class Out {
  public:
    void u64(std::uint64_t v) { bytes.append(reinterpret_cast<const char*>(&v), sizeof v); }
    void i64(std::int64_t v) { u64(static_cast<std::uint64_t>(v)); }
    void f64(double v) {
        std::uint64_t bits;
        std::memcpy(&bits, &v, sizeof bits);
        u64(bits);
    }
    void str(const std::string& s) {
        u64(s.size());
        bytes += s;
    }
    std::string bytes;
};

class In {
  public:
    explicit In(const std::string& bytes) : bytes_(bytes) {}
    std::uint64_t u64() {
        std::uint64_t v = 0;
        if (pos_ + sizeof v > bytes_.size()) {
            ok = false;
            return 0;
        }
        std::memcpy(&v, bytes_.data() + pos_, sizeof v);
        pos_ += sizeof v;
        return v;
    }
    std::int64_t i64() { return static_cast<std::int64_t>(u64()); }
    int i32() { return static_cast<int>(i64()); }
    double f64() {
        const std::uint64_t bits = u64();
        double v;
        std::memcpy(&v, &bits, sizeof v);
        return v;
    }
    std::string str() {
        const std::uint64_t n = u64();
        if (!ok || n > bytes_.size() - pos_) {
            ok = false;
            return {};
        }
        std::string s = bytes_.substr(pos_, n);
        pos_ += n;
        return s;
    }
    // A count of items that each take at least `min_bytes`: bounded by what is left to read.
    std::uint64_t count(std::uint64_t min_bytes) {
        const std::uint64_t n = u64();
        if (!ok || n > (bytes_.size() - pos_) / min_bytes) {
            ok = false;
            return 0;
        }
        return n;
    }
    bool ok = true;

  private:
    const std::string& bytes_;
    size_t pos_ = 0;
};

std::string encode_request(const std::string& source, const std::string& path,
                           const CompileOptions& options) {
    Out o;
    o.u64(request_magic);
    o.str(source);
    o.str(path);
    o.str(options.arch);
    o.u64(options.lineinfo ? 1 : 0);
    o.u64(options.extra_options.size());
    for (const std::string& option : options.extra_options) o.str(option);
    o.u64(options.headers.size());
    for (const auto& [name, text] : options.headers) {
        o.str(name);
        o.str(text);
    }
    o.u64(options.limits.memory_mb);
    o.f64(options.limits.seconds);
    return std::move(o.bytes);
}

std::string encode_result(const CompileResult& r) {
    Out o;
    o.u64(response_magic);
    o.u64(r.ok ? 1 : 0);
    o.str(r.source_path);
    o.str(r.ptx);
    o.str(r.log);
    o.f64(r.seconds);
    o.u64(r.diagnostics.size());
    for (const Diagnostic& d : r.diagnostics) {
        o.str(d.file);
        o.i64(d.line);
        o.i64(d.column);
        o.str(to_string(d.severity));
        o.str(d.message);
        o.str(d.context);
    }
    o.u64(r.kernels.size());
    for (const KernelResources& k : r.kernels) {
        o.str(k.source_name);
        o.str(k.mangled_name);
        for (int v : {k.registers, k.static_shared_bytes, k.barriers, k.stack_frame_bytes,
                      k.spill_store_bytes, k.spill_load_bytes, k.max_threads_per_block})
            o.i64(v);
        o.u64(k.resources_from_cubin ? 1 : 0);
    }
    return std::move(o.bytes);
}

bool decode_result(const std::string& bytes, CompileResult& r) {
    In in(bytes);
    if (in.u64() != response_magic) return false;
    r.ok = in.u64() != 0;
    r.source_path = in.str();
    r.ptx = in.str();
    r.log = in.str();
    r.seconds = in.f64();
    const std::uint64_t diagnostics = in.count(48);
    for (std::uint64_t i = 0; i < diagnostics && in.ok; ++i) {
        Diagnostic d;
        d.file = in.str();
        d.line = in.i32();
        d.column = in.i32();
        // The child's words, read back: anything unknown counts as an error.
        d.severity = severity_from_string(in.str()).value_or(Severity::error);
        d.message = in.str();
        d.context = in.str();
        r.diagnostics.push_back(std::move(d));
    }
    const std::uint64_t kernels = in.count(80);
    for (std::uint64_t i = 0; i < kernels && in.ok; ++i) {
        KernelResources k;
        k.source_name = in.str();
        k.mangled_name = in.str();
        for (int* v : {&k.registers, &k.static_shared_bytes, &k.barriers, &k.stack_frame_bytes,
                       &k.spill_store_bytes, &k.spill_load_bytes, &k.max_threads_per_block})
            *v = in.i32();
        k.resources_from_cubin = in.u64() != 0;
        r.kernels.push_back(std::move(k));
    }
    return in.ok;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Parent: start, feed, watch, read
// ---------------------------------------------------------------------------------------------

// The PTX of a real program is a few MB; more is not a kernel file's.
constexpr size_t max_response_bytes = size_t(512) << 20;
constexpr size_t kept_stderr_bytes = 4096;

std::shared_ptr<CompileResult> failed(const std::string& path, std::string message,
                                      bool limit_reached) {
    auto result = std::make_shared<CompileResult>();
    result->source_path = path;
    result->limit_reached = limit_reached;
    result->diagnostics.push_back(Diagnostic{path, 0, 0, Severity::error, std::move(message), {}});
    return result;
}

std::uint64_t resident_bytes(pid_t pid) {
    char name[64];
    std::snprintf(name, sizeof name, "/proc/%d/statm", static_cast<int>(pid));
    std::FILE* file = std::fopen(name, "r");
    if (!file) return 0;
    unsigned long long size = 0, resident = 0;
    const int read = std::fscanf(file, "%llu %llu", &size, &resident);
    std::fclose(file);
    if (read != 2) return 0;
    return resident * static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
}

struct Pipe {
    int fd[2] = {-1, -1};
    bool open() { return ::pipe2(fd, O_CLOEXEC) == 0; }
    void close_end(int which) {
        if (fd[which] >= 0) ::close(fd[which]);
        fd[which] = -1;
    }
    ~Pipe() {
        close_end(0);
        close_end(1);
    }
};

std::string format_seconds(double s) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", s);
    return text;
}

}  // namespace

bool landlock_available() {
#if defined(SYS_landlock_create_ruleset) && defined(LANDLOCK_CREATE_RULESET_VERSION)
    return ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION) >= 1;
#else
    return false;
#endif
}

std::string compile_helper_path() {
    std::error_code error;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
    if (!error) {
        const std::filesystem::path sibling = self.parent_path() / "cudalab-compile";
        if (::access(sibling.c_str(), X_OK) == 0) return sibling.string();
    }
#ifdef CUDALAB_COMPILE_HELPER
    if (::access(CUDALAB_COMPILE_HELPER, X_OK) == 0) return CUDALAB_COMPILE_HELPER;
#endif
    return {};
}

std::shared_ptr<CompileResult> compile_in_helper(const std::string& source, const std::string& path,
                                                 const CompileOptions& options) {
    const std::string helper = compile_helper_path();
    if (helper.empty())
        return failed(
            path,
            "cudalab's compile helper (cudalab-compile) was not found next to this program "
            "or in the build folder; rebuild cudalab",
            false);
    // A helper that dies before reading its request must not kill this process with SIGPIPE.
    static std::once_flag ignore_sigpipe;
    std::call_once(ignore_sigpipe, [] { ::signal(SIGPIPE, SIG_IGN); });

    Pipe in, out, err;
    if (!in.open() || !out.open() || !err.open())
        return failed(path, std::string("cannot start the compile helper: ") + std::strerror(errno),
                      false);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in.fd[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out.fd[1], 1);
    posix_spawn_file_actions_adddup2(&actions, err.fd[1], 2);
    // The submission's compiler gets no environment: nothing of the grader's can leak into it.
    std::vector<std::string> env_strings;
    if (const char* p = std::getenv("LD_LIBRARY_PATH"))
        env_strings.push_back(std::string("LD_LIBRARY_PATH=") + p);
    std::vector<char*> envp;
    for (std::string& e : env_strings) envp.push_back(e.data());
    envp.push_back(nullptr);
    std::string argv0 = helper;
    char* argv[] = {argv0.data(), nullptr};
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, helper.c_str(), &actions, nullptr, argv, envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (spawned != 0)
        return failed(path,
                      "cannot start the compile helper " + helper + ": " + std::strerror(spawned),
                      false);
    in.close_end(0);
    out.close_end(1);
    err.close_end(1);

    const std::string request = encode_request(source, path, options);
    for (size_t written = 0; written < request.size();) {
        const ssize_t n = ::write(in.fd[1], request.data() + written, request.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;  // the helper died; its status says why
        written += size_t(n);
    }
    in.close_end(1);

    const auto start = std::chrono::steady_clock::now();
    const std::uint64_t memory_limit = options.limits.memory_mb << 20;
    std::string response, errors;
    bool out_open = true, err_open = true;
    std::string stopped;  // why the parent killed it
    bool limit = false;
    char buffer[1 << 16];
    while (out_open || err_open) {
        pollfd fds[2] = {{out.fd[0], POLLIN, 0}, {err.fd[0], POLLIN, 0}};
        if (!out_open) fds[0].fd = -1;
        if (!err_open) fds[1].fd = -1;
        const int ready = ::poll(fds, 2, 20);
        if (ready < 0 && errno != EINTR) break;
        for (int k = 0; k < 2 && ready > 0; ++k) {
            if (fds[k].fd < 0 || !(fds[k].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            const ssize_t n = ::read(fds[k].fd, buffer, sizeof buffer);
            if (n <= 0) {
                if (n < 0 && errno == EINTR) continue;
                (k == 0 ? out_open : err_open) = false;
                continue;
            }
            if (k == 0) {
                response.append(buffer, size_t(n));
            } else {
                errors.append(buffer, size_t(n));
                if (errors.size() > 2 * kept_stderr_bytes)
                    errors.erase(0, errors.size() - kept_stderr_bytes);
            }
        }
        const double elapsed =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (stopped.empty() && options.limits.seconds > 0 && elapsed > options.limits.seconds) {
            stopped =
                "compile time limit reached: NVRTC was still compiling after " +
                format_seconds(options.limits.seconds) +
                " s (the limit; raise it with --compile-time-limit). Templates or macros that "
                "expand without end make the compiler run out of time";
            limit = true;
        }
        if (stopped.empty() && memory_limit && resident_bytes(pid) > memory_limit) {
            stopped = "compile memory limit reached: NVRTC used more than " +
                      std::to_string(options.limits.memory_mb) +
                      " MB (the limit; raise it with --compile-memory-limit). Templates or macros "
                      "that expand without end make the compiler run out of memory";
            limit = true;
        }
        if (stopped.empty() && response.size() > max_response_bytes)
            stopped = "the compiler's output is larger than " +
                      std::to_string(max_response_bytes >> 20) + " MB";
        if (!stopped.empty()) {
            ::kill(pid, SIGKILL);
            break;
        }
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!stopped.empty()) return failed(path, stopped, limit);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        std::string why = WIFSIGNALED(status)
                              ? std::string("stopped by signal ") + strsignal(WTERMSIG(status))
                              : "exit status " + std::to_string(WEXITSTATUS(status));
        // Out of address space under its own limit (a backstop for growth faster than the
        // parent's sampling) shows as an abort or a bad_alloc in the helper.
        if (errors.find("bad_alloc") != std::string::npos ||
            errors.find("out of memory") != std::string::npos ||
            (WIFSIGNALED(status) && (WTERMSIG(status) == SIGABRT || WTERMSIG(status) == SIGSEGV ||
                                     WTERMSIG(status) == SIGKILL)))
            return failed(path,
                          "compile memory limit reached: the compiler stopped (" + why +
                              ") when it ran out of the " +
                              std::to_string(options.limits.memory_mb) +
                              " MB it may use (raise it with --compile-memory-limit)",
                          true);
        if (WIFSIGNALED(status) && WTERMSIG(status) == SIGXCPU)
            return failed(path,
                          "compile time limit reached: the compiler used more than " +
                              format_seconds(options.limits.seconds) + " s of CPU time",
                          true);
        std::string tail = errors.size() > 600 ? errors.substr(errors.size() - 600) : errors;
        return failed(path,
                      "the compiler stopped abnormally (" + why + ")" +
                          (tail.empty() ? "" : ": " + tail),
                      false);
    }
    auto result = std::make_shared<CompileResult>();
    if (!decode_result(response, *result))
        return failed(path,
                      "the compile helper's answer could not be read (" +
                          std::to_string(response.size()) + " bytes)",
                      false);
    result->source_path = path;
    return result;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Child: limits, jail, compile
// ---------------------------------------------------------------------------------------------

namespace {

bool read_all(int fd, std::string& bytes) {
    char buffer[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n == 0) return true;
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        bytes.append(buffer, size_t(n));
        if (bytes.size() > (size_t(64) << 20)) return false;
    }
}

bool write_all(int fd, const std::string& bytes) {
    for (size_t written = 0; written < bytes.size();) {
        const ssize_t n = ::write(fd, bytes.data() + written, bytes.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        written += size_t(n);
    }
    return true;
}

// The folder of the loaded libnvrtc; NVRTC loads its builtins library from there on first use,
// so that is done now, before the jail closes.
std::string nvrtc_library_dir() {
    Dl_info info{};
    if (!::dladdr(reinterpret_cast<void*>(&nvrtcVersion), &info) || !info.dli_fname) return {};
    std::error_code error;
    const std::filesystem::path lib = std::filesystem::canonical(info.dli_fname, error);
    if (error) return {};
    const std::filesystem::path dir = lib.parent_path();
    for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind("libnvrtc-builtins.so", 0) == 0) {
            ::dlopen(entry.path().c_str(), RTLD_NOW | RTLD_GLOBAL);
            break;
        }
    }
    return dir.string();
}

// Landlock (Linux 5.13 and later): from here on this process may read files only beneath the given
// folders and may create, change or remove none. Returns false where the kernel does not offer it
// (the #include check and the empty working folder still hold).
bool restrict_reads_to(const std::vector<std::string>& dirs) {
#if defined(SYS_landlock_create_ruleset) && defined(LANDLOCK_ACCESS_FS_READ_FILE)
    const long abi =
        ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
    if (abi < 1) return false;
    landlock_ruleset_attr attr{};
    attr.handled_access_fs =
        LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_READ_FILE |
        LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_REMOVE_DIR |
        LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
        LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK |
        LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
    const int ruleset = int(::syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0));
    if (ruleset < 0) return false;
    for (const std::string& dir : dirs) {
        const int fd = ::open(dir.c_str(), O_PATH | O_CLOEXEC);
        if (fd < 0) continue;
        landlock_path_beneath_attr rule{};
        rule.allowed_access = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
        rule.parent_fd = fd;
        ::syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
        ::close(fd);
    }
    bool ok = ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
              ::syscall(SYS_landlock_restrict_self, ruleset, 0) == 0;
    ::close(ruleset);
    return ok;
#else
    (void)dirs;
    return false;
#endif
}

}  // namespace

int serve_compile_request() {
    // A helper whose parent died (killed mid-compile) stops too, instead of compiling on alone.
    const pid_t parent = ::getppid();
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) return 3;
    std::string bytes;
    if (!read_all(0, bytes)) return 3;
    In in(bytes);
    if (in.u64() != request_magic) return 3;
    const std::string source = in.str();
    const std::string path = in.str();
    CompileOptions options;
    options.arch = in.str();
    options.lineinfo = in.u64() != 0;
    const std::uint64_t extra = in.count(8);
    for (std::uint64_t i = 0; i < extra && in.ok; ++i) options.extra_options.push_back(in.str());
    const std::uint64_t headers = in.count(16);
    for (std::uint64_t i = 0; i < headers && in.ok; ++i) {
        std::string name = in.str();
        options.headers.emplace_back(std::move(name), in.str());
    }
    options.limits.memory_mb = in.u64();
    options.limits.seconds = in.f64();
    if (!in.ok) return 3;
    bytes.clear();
    bytes.shrink_to_fit();

    // Backstops for what the parent samples: address space (NVRTC reserves more than it touches,
    // hence the margin), CPU time, no core dumps, no files written.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    // A sanitized build (CUDALAB_SANITIZE, docs/ci.md) has terabytes of shadow memory reserved
    // already, so any address-space limit would fail NVRTC's first allocation; the parent's
    // sampling of resident memory still bounds the helper.
    constexpr bool limit_address_space = false;
#else
    constexpr bool limit_address_space = true;
#endif
    if (limit_address_space && options.limits.memory_mb) {
        const rlim_t space = rlim_t(options.limits.memory_mb + 4096) << 20;
        rlimit r{space, space};
        ::setrlimit(RLIMIT_AS, &r);
    }
    if (options.limits.seconds > 0) {
        const rlim_t cpu = rlim_t(options.limits.seconds) + 5;
        rlimit r{cpu, cpu + 1};
        ::setrlimit(RLIMIT_CPU, &r);
    }
    rlimit none{0, 0};
    ::setrlimit(RLIMIT_CORE, &none);
    ::setrlimit(RLIMIT_FSIZE, &none);

    std::vector<std::string> readable = toolkit_include_dirs();
    if (!readable.empty() && ::chdir(readable.front().c_str()) != 0) {
        if (::chdir("/") != 0) return 3;
    }
    const std::string lib = nvrtc_library_dir();
    if (!lib.empty()) readable.push_back(lib);
    restrict_reads_to(readable);

    std::shared_ptr<CompileResult> result;
    try {
        result = compile_in_process(source, path, options);
    } catch (const std::bad_alloc&) {
        std::fputs("out of memory (bad_alloc)\n", stderr);
        return 4;
    }
    return write_all(1, encode_result(*result)) ? 0 : 3;
}

}  // namespace cudalab::compiler
