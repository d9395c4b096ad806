#include "cli/run_command.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compiler/include_jail.h"
#include "programs/build.h"
#include "programs/runner.h"
#include "programs/sandbox.h"

namespace fs = std::filesystem;
using namespace cudalab::programs;

namespace cli {

namespace {

// [SECTION] usage

const char* kRunUsage = R"(usage:
  cudalab run [OPTIONS] PROG.cu [MORE.cu|.cpp|.o ...] [NVCC OPTIONS] [-- PROGRAM ARGS...]
  cudalab run [OPTIONS] --exe ./prog [PROGRAM ARGS...]

Builds a whole CUDA program with nvcc (cached: an unchanged program starts at once) and runs it
in the current folder, on the emulator or a GPU. Its output and exit code pass through.

options:
  --backend emu|gpu|auto   where it runs (default auto: a GPU if there is one, else the emulator)
  --devices N              number of emulated GPUs (on a GPU: the first N)
  --timeline FILE.json     write the timeline (API calls, copies, kernels per stream) for Perfetto
  --trace FILE             write a launch's full trace for `cudalab gui --trace FILE` (the
                           last launch, or the first that faulted; emulator only)
  --driver-version N       emulate an older CUDA driver, e.g. 12080 (emulator only)
  --races on|off           report work that streams, events and waits leave unordered (races
                           between streams, the host reading a copy it did not wait for), with
                           both lines and the fix (default on; emulator only)
  --budget N               emulator instruction budget per launch (emulator only)
  --exe PROGRAM            run a program built elsewhere (with nvcc -cudart shared for the
                           emulator); every argument after it is the program's
  --sandbox                run it (and nvcc) in the sandbox, for untrusted code: an unprivileged
                           user, no network, only the system, the toolkit and the current
                           folder visible (writable), a 256 MB /tmp, stricter default limits
                           (docs/grading.md); refused in the home folder or above it
  --sandbox-readonly-cwd   in the sandbox, the current folder is read-only too
  --time-limit SECONDS     wall-clock limit (default 120, 60 in the sandbox; 0: none)
                                                                            -> exit 124
  --memory-limit SIZE      resident memory of the program, in MB or with a unit (2G; default
                           3/4 of RAM, 4G in the sandbox; 0: none)          -> exit 125
  --output-limit SIZE      stdout and stderr together, in KB or with a unit (default none,
                           8M in the sandbox)                               -> exit 123
  --cpu-limit SECONDS      CPU time per process (default none, 60 in the sandbox)       -> 122
  --tasks-limit N          processes and threads (default none, 256 in the sandbox)     -> 121
  --file-size-limit SIZE   any one file it writes, in MB or with a unit (default none,
                           256M in the sandbox)                                         -> 120
  --compile-time-limit SECONDS nvcc's wall-clock limit (default 300)
  --compile-memory-limit SIZE  nvcc's resident memory, in MB or with a unit (default 3/4 of
                           RAM, at most 8G)
  --rebuild                build again even if the cache has it
  --json                   print one JSON report (build, run, the program's output) on stdout
  -v, --verbose            say what is built and how long it takes
nvcc options (-I -D -U -l -L -std= -rdc=true -O3 -Xcompiler ... and any other) pass through to
nvcc. Exit codes: the program's own; 2 could not build or start; 128+N killed by signal N.
)";

const char* kBuildUsage =
    R"(usage: cudalab build [-o FILE] [NVCC OPTIONS] PROG.cu [MORE.cu|.cpp|.o ...]

Builds a whole CUDA program as `cudalab run` does (nvcc -cudart shared -lineinfo -g, PTX for
sm_90-class devices, cached) and writes the executable to FILE (default: the first source's name
without its extension, in the current folder). Exit 0 built, 2 not built.
options: -o FILE, --compile-time-limit SECONDS, --compile-memory-limit SIZE, --rebuild, --json,
-v/--verbose
)";

// [SECTION] arguments

const char* kRunOptions[] = {"--backend",
                             "--devices",
                             "--timeline",
                             "--trace",
                             "--driver-version",
                             "--budget",
                             "--exe",
                             "--sandbox",
                             "--sandbox-readonly-cwd",
                             "--time-limit",
                             "--memory-limit",
                             "--output-limit",
                             "--cpu-limit",
                             "--tasks-limit",
                             "--compile-time-limit",
                             "--rebuild",
                             "--json",
                             "--verbose",
                             "--help",
                             "--file-size-limit",
                             "--compile-memory-limit",
                             "--races"};
const char* kBuildOptions[] = {
    "--compile-time-limit", "--compile-memory-limit", "--rebuild", "--json", "--verbose", "--help"};

std::size_t edit_distance(const std::string& a, const std::string& b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diag = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diag = up;
        }
    }
    return row[b.size()];
}

// One of cudalab's options within two edits of `name` (a typo), or "".
std::string nearest_own_option(const std::string& name, bool build_only) {
    auto check = [&](auto& list) -> std::string {
        for (const char* o : list)
            if (edit_distance(name, o) <= 2) return o;
        return "";
    };
    std::string hit = check(kBuildOptions);
    if (hit.empty() && !build_only) hit = check(kRunOptions);
    return hit;
}

struct Args {
    bool build_only = false;
    std::vector<std::string> inputs, nvcc, program_args;
    std::string exe, output, backend = "auto", timeline, trace;
    int devices = 0;
    long driver_version = 0;
    std::uint64_t budget = 0;
    bool sandbox = false, readonly_cwd = false, json = false, verbose = false, rebuild = false;
    bool races = true;
    std::optional<double> time_limit, cpu_limit, compile_time_limit;
    std::optional<std::uint64_t> memory_limit, output_limit, tasks_limit, file_size_limit,
        compile_memory_limit;
};

struct UsageError {
    std::string message;
};

bool parse_uint(const std::string& s, std::uint64_t max, std::uint64_t* out) {
    std::uint64_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || s.empty() || v > max) return false;
    *out = v;
    return true;
}

bool parse_seconds(const std::string& s, double* out) {
    if (s.empty()) return false;
    char* end = nullptr;
    errno = 0;
    double v = std::strtod(s.c_str(), &end);
    if (errno || end != s.c_str() + s.size() || !std::isfinite(v) || v < 0 || v > 1e7) return false;
    *out = v;
    return true;
}

Args parse(int argc, char** argv) {
    Args a;
    a.build_only = std::string(argv[1]) == "build";
    std::vector<std::string> in(argv + 2, argv + argc);
    for (std::size_t i = 0; i < in.size(); ++i) {
        std::string arg = in[i];
        if (arg == "--") {
            if (a.build_only)
                throw UsageError{
                    "`cudalab build` takes no program arguments (nothing goes after --)"};
            a.program_args.assign(in.begin() + long(i) + 1, in.end());
            break;
        }
        // --name=value and --name value, for cudalab's own options.
        std::string name = arg, inline_value;
        bool has_inline = false;
        if (arg.rfind("--", 0) == 0 && arg.find('=') != std::string::npos) {
            name = arg.substr(0, arg.find('='));
            inline_value = arg.substr(arg.find('=') + 1);
            has_inline = true;
        }
        auto value = [&]() -> std::string {
            if (has_inline) return inline_value;
            if (i + 1 >= in.size()) throw UsageError{name + " needs a value"};
            return in[++i];
        };
        auto seconds = [&](std::optional<double>* out) {
            std::string v = value();
            double s;
            if (!parse_seconds(v, &s))
                throw UsageError{name + " " + v +
                                 ": not a number of seconds (0 or more; 0: no limit)"};
            *out = s;
        };
        // A plain number is in MB for memory and KB for output, as in `check` and `exec`.
        auto bytes = [&](std::optional<std::uint64_t>* out, int plain_shift, const char* example) {
            std::string v = value();
            std::uint64_t b;
            if (!parse_bytes(v, &b, plain_shift))
                throw UsageError{name + " " + v + ": not a size (" + example + "; 0: no limit)"};
            *out = b;
        };
        auto flag = [&]() {
            if (has_inline) throw UsageError{name + " takes no value"};
        };
        const bool run_only = !a.build_only;
        if (name == "-h" || name == "--help") throw UsageError{""};
        else if (name == "-v" || name == "--verbose") {
            flag();
            a.verbose = true;
        } else if (name == "--json") {
            flag();
            a.json = true;
        } else if (name == "--rebuild") {
            flag();
            a.rebuild = true;
        } else if (name == "--compile-time-limit") seconds(&a.compile_time_limit);
        else if (name == "--compile-memory-limit")
            bytes(&a.compile_memory_limit, 20, "MB, or with a unit: 512M, 4G");
        else if (a.build_only && name == "-o") a.output = value();
        else if (run_only && name == "--backend") {
            a.backend = value();
            if (a.backend != "emu" && a.backend != "gpu" && a.backend != "auto")
                throw UsageError{"--backend " + a.backend + ": emu, gpu or auto"};
        } else if (run_only && name == "--races") {
            const std::string v = value();
            if (v != "on" && v != "off") throw UsageError{"--races " + v + ": on or off"};
            a.races = v == "on";
        } else if (run_only && name == "--devices") {
            std::uint64_t n;
            std::string v = value();
            if (!parse_uint(v, 16, &n) || n == 0)
                throw UsageError{"--devices " + v + ": a number of GPUs from 1 to 16"};
            a.devices = int(n);
        } else if (run_only && name == "--timeline") a.timeline = value();
        else if (run_only && name == "--trace") a.trace = value();
        else if (run_only && name == "--driver-version") {
            std::uint64_t n;
            std::string v = value();
            if (!parse_uint(v, 999999, &n) || n < 1000)
                throw UsageError{"--driver-version " + v +
                                 ": a CUDA version number such as 12080 (12.8) or 13000"};
            a.driver_version = long(n);
        } else if (run_only && name == "--budget") {
            std::uint64_t n;
            std::string v = value();
            if (!parse_uint(v, UINT64_MAX, &n) || n == 0)
                throw UsageError{"--budget " + v + ": a positive number of instructions"};
            a.budget = n;
        } else if (run_only && name == "--sandbox") {
            flag();
            a.sandbox = true;
        } else if (run_only && name == "--sandbox-readonly-cwd") {
            flag();
            a.readonly_cwd = true;
        } else if (run_only && name == "--time-limit") seconds(&a.time_limit);
        else if (run_only && name == "--cpu-limit") seconds(&a.cpu_limit);
        else if (run_only && name == "--memory-limit")
            bytes(&a.memory_limit, 20, "MB, or with a unit: 512M, 4G");
        else if (run_only && name == "--output-limit")
            bytes(&a.output_limit, 10, "KB, or with a unit: 100k, 8M");
        else if (run_only && name == "--file-size-limit")
            bytes(&a.file_size_limit, 20, "MB, or with a unit: 64M, 1G");
        else if (run_only && name == "--tasks-limit") {
            std::uint64_t n;
            std::string v = value();
            if (!parse_uint(v, 1000000, &n))
                throw UsageError{"--tasks-limit " + v +
                                 ": a number of processes and threads (0: no limit)"};
            a.tasks_limit = n;
        } else if (run_only && name == "--exe") {
            a.exe = value();
            // Everything after the program is its own (as with `env` or `timeout`).
            std::size_t next = i + 1;
            if (next < in.size() && in[next] == "--") ++next;
            a.program_args.assign(in.begin() + long(next), in.end());
            break;
        } else if (arg.size() > 1 && arg[0] == '-') {
            // nvcc's: passed through, with its value when it takes one as the next argument. A
            // near miss of one of cudalab's own options is a typo, not an nvcc option.
            if (a.build_only)
                for (const char* o : kRunOptions)
                    if (name == o)
                        throw UsageError{name +
                                         " is an option of `cudalab run`, not of `cudalab build`"};
            if (arg.rfind("--", 0) == 0 && !nvcc_option_takes_value(name))
                if (std::string near = nearest_own_option(name, a.build_only); !near.empty())
                    throw UsageError{"unknown option " + name + " (did you mean " + near + "?)"};
            a.nvcc.push_back(arg);
            if (nvcc_option_takes_value(arg)) {
                if (i + 1 >= in.size()) throw UsageError{"nvcc option " + arg + " needs a value"};
                a.nvcc.push_back(in[++i]);
            }
        } else if (is_build_input(arg)) {
            a.inputs.push_back(arg);
        } else {
            throw UsageError{
                "'" + arg + "' is not a source file (.cu .cpp .cc .cxx .c .o .a .so)" +
                std::string(a.build_only ? "" : "; the program's own arguments go after --")};
        }
    }
    if (!a.exe.empty() && (!a.inputs.empty() || !a.nvcc.empty()))
        throw UsageError{"--exe runs a program built elsewhere: give either --exe PROGRAM or "
                         "sources to build, not both"};
    if (a.exe.empty() && a.inputs.empty())
        throw UsageError{"no program: give PROG.cu (and any more sources), or --exe PROGRAM"};
    return a;
}

// [SECTION] helpers

std::string dump(const nlohmann::json& j) {
    return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json build_json(const BuildResult& b) {
    nlohmann::json j;
    j["ok"] = b.ok();
    j["cached"] = b.cached;
    j["seconds"] = b.seconds;
    j["nvcc_seconds"] = b.nvcc_seconds;
    if (!b.key.empty()) j["key"] = b.key;
    if (!b.executable.empty()) j["executable"] = b.executable;
    j["log"] = b.log;
    if (!b.ok()) j["error"] = b.message;
    return j;
}

// The name the program sees as argv[0]: where a Makefile would have put it, next to its source.
std::string program_name(const std::string& first_source) {
    fs::path p = fs::path(first_source).replace_extension();
    std::string s = p.string();
    if (!p.has_parent_path()) s = "./" + s;
    return s;
}

BuildResult do_build(const Args& a) {
    BuildRequest req;
    req.inputs = a.inputs;
    req.nvcc_options = a.nvcc;
    req.use_cache = !a.rebuild;
    req.sandbox = a.sandbox;
    req.limits = default_build_limits();
    if (a.compile_time_limit) req.limits.wall_seconds = *a.compile_time_limit;
    if (a.compile_memory_limit) req.limits.memory_bytes = *a.compile_memory_limit;
    if (a.verbose)
        std::cerr << "cudalab: building " << a.inputs.front() << (a.inputs.size() > 1 ? " ..." : "")
                  << "\n";
    BuildResult b = build_program(req);
    if (a.verbose) {
        if (b.cached)
            std::cerr << "cudalab: built before (cache " << b.key.substr(0, 12) << "), "
                      << int(b.seconds * 1000) << " ms\n";
        else if (!b.command.empty()) {
            std::cerr << "cudalab:";
            for (const auto& c : b.command) std::cerr << " " << c;
            std::cerr << "\ncudalab: nvcc took " << b.nvcc_seconds << " s\n";
        }
    }
    if (!a.json) {
        if (!b.ok()) {
            std::cerr << b.log;
            if (!b.log.empty() && b.log.back() != '\n') std::cerr << "\n";
            std::cerr << "cudalab: " << b.message << "\n";
        } else if (!b.cached && !b.log.empty()) {
            std::cerr << b.log;  // nvcc's warnings, once
        }
    }
    return b;
}

}  // namespace

// [SECTION] the verbs

int run_program_command(int argc, char** argv) {
    const bool build_only = std::string(argv[1]) == "build";
    Args a;
    try {
        a = parse(argc, argv);
    } catch (const UsageError& e) {
        if (e.message.empty()) {
            std::cout << (build_only ? kBuildUsage : kRunUsage);
            return 0;
        }
        std::cerr << "cudalab " << argv[1] << ": " << e.message << "\n(cudalab " << argv[1]
                  << " --help for the options)\n";
        return 2;
    }

    if (a.sandbox) {
        // The program may read and write the current folder: never the home folder or one
        // above it (keys, authorized_keys, every other file of the user's).
        std::error_code ec;
        const std::string here = fs::current_path(ec).string();
        if (std::string why = sandbox_refuses_folder(here); !why.empty()) {
            std::cerr << "cudalab run: --sandbox shows the program the current folder, and " << here
                      << " is not one to show: " << why << ". Run it from a folder of its own.\n";
            return 2;
        }
        // nvcc's include rule in the sandbox, as for program lessons: no absolute path, '..' or
        // macro, refused before nvcc reads a file (`#include "/dev/zero"` would never end).
        cudalab::compiler::IncludePolicy policy;
        policy.any_relative_name = true;
        bool refused = false;
        for (const auto& in : a.inputs) {
            struct stat st {};
            if (::stat(in.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (4 << 20))
                continue;  // the build says what is wrong with it
            std::ifstream file(in, std::ios::binary);
            const std::string text((std::istreambuf_iterator<char>(file)),
                                   std::istreambuf_iterator<char>());
            for (const auto& d : cudalab::compiler::check_includes(text, in, policy)) {
                std::cerr << d.file << ":" << d.line << ":" << d.column << ": error: " << d.message
                          << "\n";
                refused = true;
            }
        }
        if (refused) return 2;
    }

    nlohmann::json report;
    if (build_only) {
        BuildResult b = do_build(a);
        std::string out = a.output.empty() ? fs::path(a.inputs.front()).stem().string() : a.output;
        if (b.ok()) {
            std::error_code ec;
            fs::path tmp = out + ".cudalab-tmp";
            fs::copy_file(b.executable, tmp, fs::copy_options::overwrite_existing, ec);
            if (!ec)
                fs::permissions(tmp,
                                fs::perms::owner_all | fs::perms::group_read |
                                    fs::perms::group_exec | fs::perms::others_read |
                                    fs::perms::others_exec,
                                ec);
            if (!ec) fs::rename(tmp, out, ec);
            if (ec) {
                fs::remove(tmp, ec);
                b.failure = BuildFailure::internal;
                b.message = "cannot write " + out + ": " + ec.message();
                if (!a.json) std::cerr << "cudalab: " << b.message << "\n";
            } else if (!a.json) {
                std::cerr << "cudalab: built " << out
                          << (b.cached ? " (unchanged: from the cache)" : "") << "\n";
            }
        }
        if (a.json) {
            report["build"] = build_json(b);
            if (b.ok()) report["output"] = out;
            std::cout << dump(report) << "\n";
        }
        return b.ok() ? 0 : 2;
    }

    RunRequest req;
    if (a.exe.empty()) {
        BuildResult b = do_build(a);
        if (a.json) report["build"] = build_json(b);
        if (!b.ok()) {
            if (a.json) std::cout << dump(report) << "\n";
            return 2;
        }
        req.executable = b.executable;
        req.argv0 = program_name(a.inputs.front());
        req.built_by_cudalab = true;
    } else {
        req.executable = a.exe;
        req.argv0 = a.exe;  // as the shell would give it
    }
    req.args = a.program_args;
    req.backend = a.backend;
    req.devices = a.devices;
    req.timeline = a.timeline;
    req.trace = a.trace;
    req.driver_version = a.driver_version;
    req.budget = a.budget;
    req.sandbox = a.sandbox;
    req.sandbox_readonly_cwd = a.readonly_cwd;
    if (a.sandbox)
        // The emulated runtime's own settings (docs/runtime.md), passed on by name: nothing else
        // of cudalab's environment reaches a sandboxed program.
        for (const char* name :
             {"CUDALAB_LEAKS", "CUDALAB_RACECHECK", "CUDALAB_MANAGED_PAGING", "CUDALAB_DEVICE_ARCH",
              "CUDALAB_HOST_CLOCK", "CUDALAB_STREAM_RACES"})
            if (const char* v = std::getenv(name)) req.environment.emplace_back(name, v);
    if (!a.races) req.environment.push_back({"CUDALAB_STREAM_RACES", "0"});
    req.limits = default_run_limits(a.sandbox);
    if (a.time_limit) req.limits.wall_seconds = *a.time_limit;
    if (a.cpu_limit) req.limits.cpu_seconds = *a.cpu_limit;
    if (a.memory_limit) req.limits.memory_bytes = *a.memory_limit;
    if (a.output_limit) req.limits.output_bytes = *a.output_limit;
    if (a.tasks_limit) req.limits.tasks = *a.tasks_limit;
    if (a.file_size_limit) req.limits.file_bytes = *a.file_size_limit;
    if (a.json) {
        req.output = OutputMode::capture;
        // The report holds the output: keep it bounded even without a limit of the user's.
        if (!req.limits.output_bytes) req.limits.output_bytes = 64ull << 20;
    }
    RunResult r = run_program(req);
    if (a.verbose && !r.command.empty()) {
        std::cerr << "cudalab: started";
        for (const auto& c : r.command) std::cerr << " " << c;
        std::cerr << "\n";
    }
    if (a.verbose && r.started) {
        std::cerr << "cudalab: ran on " << r.backend
                  << (r.backend_reason.empty() ? "" : " (" + r.backend_reason + ")") << " in "
                  << r.process.wall_seconds << " s\n";
    }
    int code = run_exit_code(r);
    if (a.json) {
        report["run"] = run_json(r);
        // Races between streams, one object each (docs/runtime.md, "Races between streams").
        report["races"] = nlohmann::json::array();
        if (r.runtime.is_object() && r.runtime.contains("races") && r.runtime["races"].is_array())
            report["races"] = r.runtime["races"];
        report["stdout"] = r.process.out;
        report["stderr"] = r.process.err;
        report["exit_code"] = code;
        std::cout << dump(report) << "\n";
        return code;
    }
    std::string summary = run_summary(r);
    if (!summary.empty()) std::cerr << summary << "\n";
    for (const auto& n : r.notes) std::cerr << "cudalab: " << n << "\n";
    return code;
}

}  // namespace cli
