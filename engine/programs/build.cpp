// build_program(): nvcc in a supervised child, the content-addressed cache around it.
//
// [SECTION] options and files
// [SECTION] finding nvcc
// [SECTION] the cache key
// [SECTION] the cache folder
// [SECTION] build_program
#include "programs/build.h"

#include <cstdint>
#include <sys/stat.h>
#include <unistd.h>

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
    for (const char* var : {"NVCC_PREPEND_FLAGS", "NVCC_APPEND_FLAGS", "NVCC_CCBIN", "CPATH",
                            "CPLUS_INCLUDE_PATH", "C_INCLUDE_PATH", "LIBRARY_PATH"}) {
        const char* v = std::getenv(var);
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
    ProcessSpec spec;
    spec.argv.push_back(r.nvcc);
    spec.argv.insert(spec.argv.end(), options.begin(), options.end());
    for (const auto& in : req.inputs) spec.argv.push_back(in);
    spec.argv.push_back("-o");
    spec.argv.push_back((tmp / "program").string());
    r.command = spec.argv;
    spec.env = current_environment();
    spec.cwd = cwd.string();
    if (req.sandbox) {
        // nvcc reads what the sources include: in the sandbox it sees what the program would (no
        // home folder, no network), so `#include "/home/grader/.ssh/id_rsa"` finds nothing to
        // print.
        const SandboxSupport& s = sandbox_support();
        if (!s.ok) {
            fs::remove_all(tmp, ec);
            r.failure = BuildFailure::bad_input;
            r.message = "--sandbox: " + s.why_not;
            return r;
        }
        SandboxSpec sb;
        sb.cwd = fs::weakly_canonical(cwd, ec).string();
        sb.readonly_cwd = true;
        sb.writable = {tmp.string()};
        sb.read_only = {fs::path(r.nvcc).parent_path().parent_path().string()};  // the toolkit
        // Each source and its folder, where its own "local.h" headers are found (outside the
        // current folder they would be hidden when they live under /tmp or the home folder).
        for (const auto& in : req.inputs) {
            const fs::path source = fs::weakly_canonical(resolve(in), ec);
            sb.read_only.push_back(source.string());
            sb.read_only.push_back(source.parent_path().string());
        }
        for (const auto& d : include_dirs)
            if (fs::is_directory(d, ec))
                sb.read_only.push_back(fs::weakly_canonical(d, ec).string());
        for (const auto& d : option_values(req.nvcc_options, {"-L", "--library-path"}))
            if (fs::is_directory(resolve(d), ec))
                sb.read_only.push_back(fs::weakly_canonical(resolve(d), ec).string());
        std::vector<std::string> env;
        for (const auto& e : spec.env)
            if (sandbox_keeps_variable(e.substr(0, e.find('=')))) env.push_back(e);
        spec.env = env;
        // nvcc's intermediate files go to the build's own writable folder: /tmp may be bound
        // read-only when a source lives directly in it.
        set_env(spec.env, "TMPDIR", tmp.c_str());
        spec.argv = sandbox_command(s, sb, spec.argv);
        spec.cwd.clear();
    }
    spec.limits = req.limits;
    spec.output = OutputMode::capture;
    spec.stdin_null = true;
    const auto nvcc_start = std::chrono::steady_clock::now();
    ProcessResult pr = run_process(spec);
    r.nvcc_seconds = seconds_since(nvcc_start);
    r.log = colon_line_numbers(pr.out + pr.err);
    if (pr.outcome != Outcome::exited || pr.exit_code != 0) {
        fs::remove_all(tmp, ec);
        if (pr.outcome == Outcome::exited) {
            r.failure = BuildFailure::compile_error;
            r.message =
                "nvcc failed (exit " + std::to_string(pr.exit_code) + ")" + cuda13_api_note(r.log);
        } else if (pr.outcome == Outcome::start_failed) {
            r.failure = BuildFailure::internal;
            r.message = pr.error;
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
    {
        std::ofstream(tmp / "build.log") << r.log;
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
