// build_program(): nvcc in a supervised child, the content-addressed cache around it.
//
// [SECTION] options and files
// [SECTION] finding nvcc
// [SECTION] the cache key
// [SECTION] the cache folder
// [SECTION] build_program
#include "programs/build.h"

#include <cstdint>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include "programs/sandbox.h"
#include "programs/sha256.h"

namespace fs = std::filesystem;

namespace cudalab::programs {

// [SECTION] options and files

namespace {

const std::set<std::string>& value_options() {
    // From `nvcc --help` (CUDA 13.0): the options whose value may be the next argument.
    static const std::set<std::string> s = {"--output-file",
                                            "-o",
                                            "--pre-include",
                                            "-include",
                                            "--library",
                                            "-l",
                                            "--define-macro",
                                            "-D",
                                            "--undefine-macro",
                                            "-U",
                                            "--include-path",
                                            "-I",
                                            "--system-include",
                                            "-isystem",
                                            "--library-path",
                                            "-L",
                                            "--output-directory",
                                            "-odir",
                                            "--compiler-bindir",
                                            "-ccbin",
                                            "--archiver-binary",
                                            "-arbin",
                                            "--cudart",
                                            "-cudart",
                                            "--cudadevrt",
                                            "-cudadevrt",
                                            "--libdevice-directory",
                                            "-ldir",
                                            "--target-directory",
                                            "-target-dir",
                                            "--optimization-info",
                                            "-opt-info",
                                            "--optimize",
                                            "-O",
                                            "--Ofast-compile",
                                            "-Ofc",
                                            "--dopt",
                                            "-dopt",
                                            "--ftemplate-backtrace-limit",
                                            "-ftemplate-backtrace-limit",
                                            "--ftemplate-depth",
                                            "-ftemplate-depth",
                                            "--x",
                                            "-x",
                                            "--std",
                                            "-std",
                                            "--machine",
                                            "-m",
                                            "--compiler-options",
                                            "-Xcompiler",
                                            "--linker-options",
                                            "-Xlinker",
                                            "--archive-options",
                                            "-Xarchive",
                                            "--ptxas-options",
                                            "-Xptxas",
                                            "--nvlink-options",
                                            "-Xnvlink",
                                            "--static-global-template-stub",
                                            "-static-global-template-stub",
                                            "--device-entity-has-hidden-visibility",
                                            "-device-entity-has-hidden-visibility",
                                            "--threads",
                                            "-t",
                                            "--split-compile",
                                            "-split-compile",
                                            "--split-compile-extended",
                                            "-split-compile-extended",
                                            "--fdevice-time-trace",
                                            "-fdevice-time-trace",
                                            "--keep-dir",
                                            "-keep-dir",
                                            "--time",
                                            "-time",
                                            "--run-args",
                                            "-run-args",
                                            "--input-drive-prefix",
                                            "-idp",
                                            "--dependency-drive-prefix",
                                            "-ddp",
                                            "--drive-prefix",
                                            "-dp",
                                            "--dependency-target-name",
                                            "-MT",
                                            "--gpu-architecture",
                                            "-arch",
                                            "--gpu-code",
                                            "-code",
                                            "--generate-code",
                                            "-gencode",
                                            "--relocatable-device-code",
                                            "-rdc",
                                            "--maxrregcount",
                                            "-maxrregcount",
                                            "--ftz",
                                            "-ftz",
                                            "--prec-div",
                                            "-prec-div",
                                            "--prec-sqrt",
                                            "-prec-sqrt",
                                            "--fmad",
                                            "-fmad",
                                            "--default-stream",
                                            "-default-stream",
                                            "--Werror",
                                            "-Werror",
                                            "--diag-error",
                                            "-diag-error",
                                            "--diag-suppress",
                                            "-diag-suppress",
                                            "--diag-warn",
                                            "-diag-warn",
                                            "--host-linker-script",
                                            "-hls",
                                            "--brief-diagnostics",
                                            "-brief-diag",
                                            "--jump-table-density",
                                            "-jtd",
                                            "--device-stack-protector",
                                            "-device-stack-protector",
                                            "--frandom-seed",
                                            "-frandom-seed",
                                            "--sanitize",
                                            "-sanitize",
                                            "--options-file",
                                            "-optf",
                                            "-MF",
                                            "--dependency-output"};
    return s;
}

// An option's value, for the forms "-Ifoo", "-I foo", "--include-path=foo", "--include-path foo".
// Returns the values of `names` in order.
std::vector<std::string> option_values(const std::vector<std::string>& opts,
                                       std::initializer_list<const char*> names) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < opts.size(); ++i) {
        const std::string& o = opts[i];
        for (const char* n : names) {
            std::string name = n;
            if (o == name) {
                if (i + 1 < opts.size()) out.push_back(opts[i + 1]);
            } else if (o.rfind(name + "=", 0) == 0) {
                out.push_back(o.substr(name.size() + 1));
            } else if (name.size() == 2 && o.rfind(name, 0) == 0 && o.size() > 2 &&
                       name[1] != '-') {
                out.push_back(o.substr(2));  // -Ifoo, -lfoo, -Lfoo
            }
        }
    }
    return out;
}

bool read_whole(const fs::path& p, std::string* out) {
    std::ifstream in(p, std::ios::binary);
    if (!in) return false;
    std::ostringstream s;
    s << in.rdbuf();
    *out = s.str();
    return true;
}

// Identity of a tool or library without reading it: its real path, size and modification time.
std::string file_identity(const fs::path& p) {
    struct stat st {};
    std::error_code ec;
    fs::path real = fs::canonical(p, ec);
    if (ec || ::stat(real.c_str(), &st) != 0) return "missing:" + p.string();
    return real.string() + ":" + std::to_string(st.st_size) + ":" +
           std::to_string(st.st_mtim.tv_sec) + "." + std::to_string(st.st_mtim.tv_nsec);
}

std::string search_path(const std::string& name) {
    const char* path = std::getenv("PATH");
    if (!path) return "";
    std::stringstream in(path);
    std::string dir;
    while (std::getline(in, dir, ':')) {
        if (dir.empty()) dir = ".";
        fs::path p = fs::path(dir) / name;
        if (::access(p.c_str(), X_OK) == 0) return p.string();
    }
    return "";
}

}  // namespace

bool nvcc_option_takes_value(const std::string& option) {
    return value_options().count(option) != 0;
}

bool is_build_input(const std::string& path) {
    static const std::set<std::string> ext = {".cu", ".cpp", ".cc",  ".cxx",   ".c",     ".o",
                                              ".a",  ".so",  ".ptx", ".cubin", ".fatbin"};
    return ext.count(fs::path(path).extension().string()) != 0;
}

std::string colon_line_numbers(const std::string& log) {
    // cudafe++ and nvcc say "file(line): error: ..."; gcc already says "file:line:col: error: ...".
    static const std::regex paren(R"(^([^\s(][^()]*)\((\d+)\): )");
    std::istringstream in(log);
    std::ostringstream out;
    std::string line;
    while (std::getline(in, line))
        out << std::regex_replace(line, paren, "$1:$2: ", std::regex_constants::format_first_only)
            << "\n";
    return out.str();
}

std::vector<std::string> default_nvcc_options(const std::vector<std::string>& user) {
    std::vector<std::string> o = {"-cudart", "shared", "-lineinfo", "-g"};
    bool own_target = false;
    for (const auto& u : user)
        for (const char* t :
             {"-arch", "--gpu-architecture", "-code", "--gpu-code", "-gencode", "--generate-code"})
            if (u == t || u.rfind(std::string(t) + "=", 0) == 0) own_target = true;
    if (!own_target) {
        o.push_back("-arch=compute_90");
        o.push_back("-code=compute_90");
    }
    o.push_back("-compress-mode=none");
    return o;
}

Limits default_build_limits() {
    Limits l;
    l.wall_seconds = 300;
    std::uint64_t ram = physical_memory_bytes();
    l.memory_bytes = std::min<std::uint64_t>(8ull << 30, ram ? ram / 4 * 3 : 8ull << 30);
    l.output_bytes = 16ull << 20;
    l.file_bytes = 1ull << 30;  // no object file or program of a course comes near
    return l;
}

// [SECTION] finding nvcc

std::string find_nvcc(std::string* looked_in) {
    std::vector<std::string> tried;
    auto try_dir = [&](const std::string& home) -> std::string {
        if (home.empty()) return "";
        fs::path p = fs::path(home) / "bin" / "nvcc";
        tried.push_back(p.string());
        return ::access(p.c_str(), X_OK) == 0 ? p.string() : "";
    };
    std::string found;
    if (const char* own = std::getenv("CUDALAB_NVCC"); own && *own) {
        // Named explicitly: that one or none.
        if (looked_in) *looked_in = own;
        return ::access(own, X_OK) == 0 ? std::string(own) : "";
    }
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
        if (found.empty() && std::getenv(var)) found = try_dir(std::getenv(var));
#ifdef CUDALAB_CUDA_INCLUDE_DIR
    if (found.empty()) found = try_dir(fs::path(CUDALAB_CUDA_INCLUDE_DIR).parent_path().string());
#endif
    if (found.empty()) found = try_dir("/usr/local/cuda");
    if (found.empty()) {
        found = search_path("nvcc");
        tried.push_back("nvcc in PATH");
    }
    if (looked_in) {
        looked_in->clear();
        std::set<std::string> seen;
        for (const auto& t : tried)
            if (seen.insert(t).second) *looked_in += (looked_in->empty() ? "" : ", ") + t;
    }
    return found;
}

// [SECTION] the cache key

namespace {

// Local headers a file includes, recursively: `#include "x"` from the including file's folder,
// then -I folders; `#include <x>` from -I folders only (the rest is the toolkit's or the system's,
// covered by nvcc's and the host compiler's identity).
void add_includes(const fs::path& file, const std::string& text,
                  const std::vector<fs::path>& include_dirs, std::set<fs::path>* seen, Sha256* h,
                  int depth) {
    static const std::regex inc(R"(^\s*#\s*include\s*([<"])([^">]+)[">])");
    if (depth > 64 || seen->size() > 4000) return;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (line.find("include") == std::string::npos) continue;
        std::smatch m;
        if (!std::regex_search(line, m, inc)) continue;
        std::vector<fs::path> dirs;
        if (m[1] == "\"") dirs.push_back(file.parent_path());
        dirs.insert(dirs.end(), include_dirs.begin(), include_dirs.end());
        for (const auto& d : dirs) {
            fs::path candidate = d / m[2].str();
            std::error_code ec;
            if (!fs::is_regular_file(candidate, ec)) continue;
            fs::path canon = fs::weakly_canonical(candidate, ec);
            if (!seen->insert(canon).second) break;
            std::string body;
            if (read_whole(canon, &body)) {
                h->field("header");
                h->field(canon.string());
                h->field(body);
                add_includes(canon, body, include_dirs, seen, h, depth + 1);
            }
            break;
        }
    }
}

}  // namespace

// [SECTION] the cache folder

std::string default_cache_dir() {
    if (const char* c = std::getenv("CUDALAB_CACHE_DIR"); c && *c) return c;
    if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x)
        return (fs::path(x) / "cudalab").string();
    if (const char* home = std::getenv("HOME"); home && *home)
        return (fs::path(home) / ".cache" / "cudalab").string();
    return (fs::temp_directory_path() / ("cudalab-cache-" + std::to_string(::getuid()))).string();
}

namespace {

// Keeps the most recently used builds; older ones go. Called after a fresh build only.
void prune_cache(const fs::path& programs, std::size_t keep) {
    std::error_code ec;
    std::vector<std::pair<fs::file_time_type, fs::path>> entries;
    for (const auto& e : fs::directory_iterator(programs, ec)) {
        if (!e.is_directory(ec)) continue;
        std::string name = e.path().filename().string();
        if (name.rfind("tmp-", 0) == 0) {
            // A build that died half way; gone after an hour.
            if (fs::file_time_type::clock::now() - e.last_write_time(ec) > std::chrono::hours(1))
                fs::remove_all(e.path(), ec);
            continue;
        }
        entries.emplace_back(e.last_write_time(ec), e.path());
    }
    if (entries.size() <= keep) return;
    std::sort(entries.begin(), entries.end(),
              [](const auto& a, const auto& b) { return a.first > b.first; });
    for (std::size_t i = keep; i < entries.size(); ++i) fs::remove_all(entries[i].second, ec);
}

}  // namespace

// [SECTION] build_program

namespace {

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
    if (from.empty()) return s;
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
    return s;
}

// nvcc's own folder: the program, nvcc's intermediate files and the links of plain names go
// there. In the sandbox it is /cudalab/build inside, and as root it belongs to the sandbox's
// user, who runs nvcc; its name always reaches nvcc's shell unchanged.
struct NvccFolder {
    fs::path real;
    std::string shown;  // its name for nvcc
    std::string error;
    bool outside = false;  // a folder of its own in /tmp (not inside the cache's build folder)
    NvccFolder(const fs::path& build, bool sandbox) {
        std::error_code ec;
        real = build / "nvcc";
        if (!sandbox && !shell_safe_path(real.string())) {
            // The cache's path has a space or a quote in it (a home folder's name).
            char name[] = "/tmp/cudalab-nvcc-XXXXXX";
            if (!::mkdtemp(name)) {
                error =
                    std::string("cannot create a folder for nvcc in /tmp: ") + std::strerror(errno);
                return;
            }
            real = name;
            outside = true;
        } else if (!fs::create_directory(real, ec)) {
            error = "cannot create " + real.string() + ": " + ec.message();
            return;
        }
        shown = sandbox ? "/cudalab/build" : real.string();
        if (sandbox) give_to_sandbox_user(real.string(), &error);
    }
    void remove() {
        std::error_code ec;
        if (outside && !real.empty()) fs::remove_all(real, ec);
        real.clear();
    }
    ~NvccFolder() { remove(); }
};

// Copies the regular file `from` (not a link, a FIFO or a device: nvcc's folder was writable by
// the sandboxed nvcc) to a new file `to`.
bool copy_regular_file(const fs::path& from, const fs::path& to, mode_t mode, std::string* why) {
    const int in = ::open(from.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    struct stat st {};
    if (in < 0 || ::fstat(in, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (in >= 0) ::close(in);
        *why = from.string() + " is not a regular file";
        return false;
    }
    const int out = ::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    bool ok = out >= 0;
    char buf[1 << 16];
    while (ok) {
        const ssize_t n = ::read(in, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            ok = n == 0;
            break;
        }
        for (ssize_t done = 0; ok && done < n;) {
            const ssize_t w = ::write(out, buf + done, std::size_t(n - done));
            if (w < 0 && errno == EINTR) continue;
            ok = w > 0;
            done += w > 0 ? w : 0;
        }
    }
    if (ok) ok = ::fchmod(out, mode) == 0;
    if (!ok) *why = "cannot copy the program to " + to.string() + ": " + std::strerror(errno);
    ::close(in);
    if (out >= 0) ::close(out);
    return ok;
}

// nvcc's error for a call written for CUDA 12 whose signature CUDA 13 changed names only the
// types ("no suitable constructor exists to convert from \"int\" to \"cudaMemLocation\""):
// what changed, for the build's message. "" when the log shows no such call.
std::string cuda13_api_note(const std::string& log) {
    if (log.find("\"cudaMemLocation\"") == std::string::npos) return "";
    return "; CUDA 13 takes the device of cudaMemPrefetchAsync and cudaMemAdvise as a "
           "cudaMemLocation, not an int: cudaMemPrefetchAsync(p, bytes, "
           "cudaMemLocation{cudaMemLocationTypeDevice, device}, 0 /* flags */, stream), "
           "cudaMemAdvise(p, bytes, advice, cudaMemLocation{cudaMemLocationTypeDevice, device}) "
           "(cudaMemLocationTypeHost for the host)";
}

}  // namespace

BuildResult build_program(const BuildRequest& req) {
    BuildResult r;
    const auto start = std::chrono::steady_clock::now();
    auto seconds_since = [](auto t0) {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    fs::path cwd = req.cwd.empty() ? fs::current_path() : fs::path(req.cwd);
    auto resolve = [&](const std::string& p) {
        return fs::path(p).is_absolute() ? fs::path(p) : cwd / p;
    };

    if (req.inputs.empty()) {
        r.failure = BuildFailure::bad_input;
        r.message = "no source file to build (give one or more .cu/.cpp files)";
        return r;
    }
    for (std::size_t i = 0; i < req.nvcc_options.size(); ++i) {
        const std::string& o = req.nvcc_options[i];
        std::string cudart;
        if (o == "-cudart" || o == "--cudart")
            cudart = i + 1 < req.nvcc_options.size() ? req.nvcc_options[i + 1] : "";
        else if (o.rfind("-cudart=", 0) == 0 || o.rfind("--cudart=", 0) == 0)
            cudart = o.substr(o.find('=') + 1);
        else if (o == "-o" || o == "--output-file" || o.rfind("--output-file=", 0) == 0) {
            r.failure = BuildFailure::bad_input;
            r.message = "the output file is cudalab's to choose here (`cudalab build -o FILE` "
                        "writes it where you want)";
            return r;
        } else continue;
        if (cudart != "shared") {
            r.failure = BuildFailure::bad_input;
            r.message = "-cudart " + cudart +
                        ": cudalab builds with the shared CUDA runtime (-cudart shared), the only "
                        "one the emulator can replace";
            return r;
        }
    }

    std::string looked;
    r.nvcc = find_nvcc(&looked);
    if (r.nvcc.empty()) {
        r.failure = BuildFailure::no_nvcc;
        r.message = "nvcc (the CUDA Toolkit's compiler) was not found; looked for " + looked +
                    ". Install the CUDA Toolkit, or set CUDA_HOME to its folder (e.g. "
                    "CUDA_HOME=/usr/local/cuda-13.0)";
        return r;
    }

    std::vector<std::string> options = default_nvcc_options(req.nvcc_options);
    options.insert(options.end(), req.nvcc_options.begin(), req.nvcc_options.end());

    // The key.
    Sha256 h;
    h.field("cudalab-program-build-v1");
    h.field(file_identity(r.nvcc));
    std::vector<std::string> ccbin =
        option_values(req.nvcc_options, {"-ccbin", "--compiler-bindir"});
    std::string host_cxx = ccbin.empty() ? search_path("g++") : ccbin.back();
    h.field(host_cxx.empty() ? "no-host-compiler" : file_identity(host_cxx));
    // In the sandbox nvcc gets none of these (sandbox_environment()).
    h.field(req.sandbox ? "sandboxed" : "trusted");
    for (const char* var : {"NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS", "NVCC_CCBIN", "CPATH",
                            "CPLUS_INCLUDE_PATH", "C_INCLUDE_PATH", "LIBRARY_PATH"}) {
        const char* v = req.sandbox ? nullptr : std::getenv(var);
        h.field(std::string(var) + "=" + (v ? v : "<unset>"));
    }
    for (const auto& o : options) h.field(o);
    std::vector<fs::path> include_dirs;
    for (const auto& d :
         option_values(req.nvcc_options, {"-I", "--include-path", "-isystem", "--system-include"}))
        include_dirs.push_back(resolve(d));
    std::set<fs::path> seen;
    for (const auto& in : req.inputs) {
        fs::path p = resolve(in);
        std::error_code ec;
        if (!fs::is_regular_file(p, ec)) {
            r.failure = BuildFailure::bad_input;
            r.message = in + ": no such file";
            return r;
        }
        std::string body;
        if (!read_whole(p, &body)) {
            r.failure = BuildFailure::bad_input;
            r.message = in + ": cannot read it";
            return r;
        }
        h.field("input");
        h.field(in);  // as given: __FILE__ and nvcc's messages carry it
        h.field(body);
        add_includes(p, body, include_dirs, &seen, &h, 0);
    }
    // Libraries linked with -l from -L folders (and the -L folders themselves, by name).
    std::vector<std::string> lib_dirs = option_values(req.nvcc_options, {"-L", "--library-path"});
    for (const auto& lib : option_values(req.nvcc_options, {"-l", "--library"}))
        for (const auto& d : lib_dirs)
            for (const char* suffix : {".so", ".a"}) {
                fs::path p = resolve(d) / ("lib" + lib + suffix);
                std::error_code ec;
                if (fs::exists(p, ec)) h.field(file_identity(p));
            }
    r.key = h.hex();

    fs::path cache =
        req.cache_dir.empty() ? fs::path(default_cache_dir()) : fs::path(req.cache_dir);
    fs::path programs = cache / "programs";
    fs::path entry = programs / r.key;
    fs::path exe = entry / "program";
    r.executable = exe.string();
    std::error_code ec;
    if (req.use_cache && ::access(exe.c_str(), X_OK) == 0) {
        r.cached = true;
        // Mark it used, for pruning.
        fs::last_write_time(entry, fs::file_time_type::clock::now(), ec);
        read_whole(entry / "build.log", &r.log);
        r.seconds = seconds_since(start);
        return r;
    }

    fs::create_directories(programs, ec);
    std::random_device rd;
    fs::path tmp = programs / ("tmp-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
    if (ec || !fs::create_directories(tmp, ec)) {
        r.failure = BuildFailure::internal;
        r.message = "cannot create the build cache folder " + tmp.string() + " (" + ec.message() +
                    "); set CUDALAB_CACHE_DIR to a writable folder";
        return r;
    }
    NvccFolder work(tmp, req.sandbox);
    if (!work.error.empty()) {
        fs::remove_all(tmp, ec);
        r.failure = BuildFailure::internal;
        r.message = work.error;
        return r;
    }
    // nvcc runs its steps through sh with the file names in them, in double quotes: a source
    // named `$(touch x).cu`, or one in such a folder, would run `touch x` (nvcc resolves links
    // to the real name first). So nvcc sees only names that no shell reads as anything but a
    // name: a source whose real path is not one is copied under a plain name into nvcc's folder,
    // and its folder is searched with -I (through a link of a plain name, or in the sandbox bound
    // at one), as the including file's folder would be.
    SandboxSpec sb;
    std::vector<std::string> sources, extra_options;
    std::vector<std::pair<std::string, std::string>> shown_as;  // nvcc's name -> the learner's
    for (std::size_t i = 0; i < req.inputs.size(); ++i) {
        const std::string& in = req.inputs[i];
        const fs::path real = fs::weakly_canonical(resolve(in), ec);
        const fs::path folder = real.parent_path();
        // The home folder (a submission saved directly in it) is never shown: the file alone.
        const bool show_folder = sandbox_refuses_folder(folder.string()).empty();
        std::string path = real.string(), dir = folder.string();
        if (!shell_safe_path(path)) {
            const std::string ext = shell_safe_path(real.extension().string())
                                        ? real.extension().string()
                                        : std::string(".cu");
            const fs::path copy = work.real / ("source" + std::to_string(i) + ext);
            std::string why;
            if (!copy_regular_file(real, copy, 0644, &why)) {
                fs::remove_all(tmp, ec);
                r.failure = BuildFailure::bad_input;
                r.message = in + ": cannot copy it under a plain name for nvcc (" + why + ")";
                return r;
            }
            path = work.shown + "/" + copy.filename().string();
        } else if (req.sandbox && !show_folder) {
            sb.read_only.push_back(path);
        }
        if (show_folder && !shell_safe_path(dir)) {
            if (req.sandbox) {
                const std::string inside = "/cudalab/src" + std::to_string(i);
                sb.read_only_at.push_back({dir, inside});
                dir = inside;
            } else {
                const fs::path link = work.real / ("folder" + std::to_string(i));
                fs::create_symlink(dir, link, ec);
                dir = link.string();
            }
        } else if (show_folder && req.sandbox) {
            sb.read_only.push_back(dir);
        }
        if (path != real.string() && show_folder)
            extra_options.insert(extra_options.end(), {"-I", dir});
        sources.push_back(path);
        shown_as.push_back({path, in});
    }

    ProcessSpec spec;
    spec.argv.push_back(r.nvcc);
    spec.argv.insert(spec.argv.end(), options.begin(), options.end());
    spec.argv.insert(spec.argv.end(), extra_options.begin(), extra_options.end());
    spec.argv.insert(spec.argv.end(), sources.begin(), sources.end());
    spec.argv.push_back("-o");
    spec.argv.push_back(work.shown + "/program");
    r.command = spec.argv;
    spec.env = current_environment();
    spec.cwd = cwd.string();
    if (req.sandbox) {
        // nvcc reads what the sources include: in the sandbox it sees what the program would (an
        // empty root with the system, the toolkit and the sources' folders), so
        // `#include "/home/grader/.ssh/id_rsa"` or "/etc/shadow" finds nothing to print.
        const SandboxSupport& s = sandbox_support();
        if (!s.ok) {
            fs::remove_all(tmp, ec);
            r.failure = BuildFailure::bad_input;
            r.message = "--sandbox: " + s.why_not;
            return r;
        }
        // The current folder, for relative -I and -L options, unless it is one the sandbox
        // never shows (the home folder): then nvcc starts in its own folder.
        const std::string here = fs::weakly_canonical(cwd, ec).string();
        if (sandbox_refuses_folder(here).empty()) {
            sb.cwd = here;
            sb.readonly_cwd = true;
        }
        sb.writable_at = {{work.real.string(), work.shown}};
        sb.read_only.push_back(fs::path(r.nvcc).parent_path().parent_path().string());
        for (const auto& d : include_dirs)
            if (fs::is_directory(d, ec))
                sb.read_only.push_back(fs::weakly_canonical(d, ec).string());
        for (const auto& d : option_values(req.nvcc_options, {"-L", "--library-path"}))
            if (fs::is_directory(resolve(d), ec))
                sb.read_only.push_back(fs::weakly_canonical(resolve(d), ec).string());
        sb.read_only.insert(sb.read_only.end(), req.sandbox_read_only.begin(),
                            req.sandbox_read_only.end());
        sb.hidden = req.sandbox_hidden;
        sb.env = sandbox_environment();
        // nvcc's intermediate files go to its own writable folder, not the sandbox's small /tmp.
        set_env(sb.env, "TMPDIR", work.shown.c_str());
        std::string why;
        if (!sandbox_process(s, sb, spec.argv, &spec, &why)) {
            fs::remove_all(tmp, ec);
            r.failure = BuildFailure::bad_input;
            r.message = "--sandbox: " + why;
            return r;
        }
    } else {
        set_env(spec.env, "TMPDIR", work.shown.c_str());
    }
    spec.limits = req.limits;
    spec.output = OutputMode::capture;
    spec.stdin_null = true;
    const auto nvcc_start = std::chrono::steady_clock::now();
    ProcessResult pr = run_process(spec);
    r.nvcc_seconds = seconds_since(nvcc_start);
    std::string log = pr.out + pr.err;
    // The names nvcc was given are the build's; messages name the files as the learner gave them.
    for (const auto& [given, learner] : shown_as) log = replace_all(log, given, learner);
    r.log = colon_line_numbers(log);
    if (pr.outcome != Outcome::exited || pr.exit_code != 0) {
        fs::remove_all(tmp, ec);
        if (pr.outcome == Outcome::exited) {
            r.failure = BuildFailure::compile_error;
            r.message =
                "nvcc failed (exit " + std::to_string(pr.exit_code) + ")" + cuda13_api_note(r.log);
        } else if (pr.outcome == Outcome::start_failed) {
            r.failure = BuildFailure::internal;
            r.message = pr.error;
        } else if (pr.outcome == Outcome::wall_limit) {
            r.failure = BuildFailure::limit;
            r.message = "compile time limit reached: nvcc was still compiling after " +
                        pr.limit_text().substr(std::string("wall-clock limit of ").size()) +
                        " (--compile-time-limit)";
        } else if (pr.outcome == Outcome::memory_limit) {
            r.failure = BuildFailure::limit;
            r.message = "compile memory limit reached: nvcc used more than " +
                        format_bytes(req.limits.memory_bytes) + " (--compile-memory-limit)";
        } else if (!pr.limit_text().empty()) {
            r.failure = BuildFailure::limit;
            r.message = "nvcc was stopped at the build's " + pr.limit_text();
        } else {
            r.failure = BuildFailure::compile_error;
            r.message = "nvcc was killed by signal " + std::to_string(pr.signal);
        }
        r.seconds = seconds_since(start);
        return r;
    }
    // The program nvcc wrote (as the sandbox's user, in a folder of its) becomes cudalab's own
    // file; a link or anything but a regular file there is refused.
    if (!copy_regular_file(work.real / "program", tmp / "program", 0755, &r.message)) {
        fs::remove_all(tmp, ec);
        r.failure = BuildFailure::internal;
        return r;
    }
    work.remove();
    {
        std::ofstream(tmp / "build.log") << r.log;  // cudalab's own folder
        std::ofstream cmd(tmp / "command.txt");
        for (const auto& a : r.command) cmd << a << "\n";
    }
    // Publish atomically; a concurrent build of the same program may have won the race, which is
    // fine: its result is the same.
    if (fs::exists(entry, ec)) fs::remove_all(entry, ec);
    fs::rename(tmp, entry, ec);
    if (ec) {
        fs::remove_all(tmp, ec);
        if (::access(exe.c_str(), X_OK) != 0) {
            r.failure = BuildFailure::internal;
            r.message = "cannot move the build into the cache at " + entry.string();
            return r;
        }
    }
    prune_cache(programs, 100);
    r.seconds = seconds_since(start);
    return r;
}

}  // namespace cudalab::programs
