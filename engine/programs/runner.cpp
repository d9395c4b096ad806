// run_program(): backend choice, the child's environment, the sandbox, the runtime's report.
//
// [SECTION] locating the libraries
// [SECTION] probing for a GPU
// [SECTION] limits and exit codes
// [SECTION] run_program
#include "programs/runner.h"

#include <cstdint>
#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "base/safe_files.h"
#include "programs/elf_info.h"
#include "programs/sandbox.h"

namespace fs = std::filesystem;

namespace cudalab::programs {

// [SECTION] locating the libraries

std::string self_dir() {
    std::error_code ec;
    fs::path self = fs::read_symlink("/proc/self/exe", ec);
    return ec ? fs::current_path().string() : self.parent_path().string();
}

std::string find_emulated_runtime(const std::string& override_dir, std::string* looked_in) {
    std::string dir = override_dir;
    if (dir.empty())
        if (const char* e = std::getenv("CUDALAB_CUDART_DIR"); e && *e) dir = e;
    if (dir.empty()) dir = (fs::path(self_dir()) / "cudart-emu").string();
    std::error_code ec;
    fs::path abs = fs::absolute(dir, ec);
    if (looked_in) *looked_in = (abs / "libcudart.so.13").string();
    return fs::exists(abs / "libcudart.so.13", ec) ? abs.string() : "";
}

std::string find_cupti_library(const std::string& override_path, std::string* looked_in) {
    std::string p = override_path;
    if (p.empty())
        if (const char* e = std::getenv("CUDALAB_CUPTI_LIB"); e && *e) p = e;
    if (p.empty()) p = (fs::path(self_dir()) / "libcudalab_cupti.so").string();
    std::error_code ec;
    fs::path abs = fs::absolute(p, ec);
    if (looked_in) *looked_in = abs.string();
    return fs::exists(abs, ec) ? abs.string() : "";
}

// [SECTION] probing for a GPU

bool gpu_available(std::string* why_not, int* devices) {
    // dlopen alone does not initialise the driver; its absence is the common, quick answer.
    void* lib = ::dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!lib) {
        if (why_not) *why_not = "no CUDA driver (libcuda.so.1 not found)";
        return false;
    }
    // cudalab's own libcuda.so.1 (an LD_LIBRARY_PATH that names build/cudart-emu) is no GPU.
    link_map* map = nullptr;
    if (::dlinfo(lib, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name) {
        std::error_code ec;
        std::string emu = find_emulated_runtime("", nullptr);
        if (!emu.empty() && fs::equivalent(fs::path(map->l_name).parent_path(), emu, ec)) {
            if (why_not)
                *why_not = "the libcuda.so.1 found is cudalab's emulated one (" +
                           std::string(map->l_name) + "), not NVIDIA's driver";
            ::dlclose(lib);
            return false;
        }
    }
    ::dlclose(lib);
    // cuInit in a child: a driver that hangs or crashes, or leaves state behind, stays there.
    int fds[2];
    if (::pipe(fds) != 0) {
        if (why_not) *why_not = "cannot probe the GPU (pipe)";
        return false;
    }
    pid_t pid = ::fork();
    if (pid == 0) {
        ::close(fds[0]);
        int answer[2] = {-1, 0};  // device count, CUresult
        void* l = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        using Init = int (*)(unsigned);
        using Count = int (*)(int*);
        auto init = l ? reinterpret_cast<Init>(::dlsym(l, "cuInit")) : nullptr;
        auto count = l ? reinterpret_cast<Count>(::dlsym(l, "cuDeviceGetCount")) : nullptr;
        if (init && count) {
            answer[1] = init(0);
            if (answer[1] == 0) answer[1] = count(&answer[0]);
        }
        ssize_t ignored = ::write(fds[1], answer, sizeof answer);
        (void)ignored;
        ::_exit(0);
    }
    ::close(fds[1]);
    if (pid < 0) {
        ::close(fds[0]);
        if (why_not) *why_not = "cannot probe the GPU (fork)";
        return false;
    }
    int answer[2] = {-1, -1};
    bool got = false;
    for (int i = 0; i < 2000 && !got; ++i) {  // 20 s at most
        int status;
        if (::waitpid(pid, &status, WNOHANG) == pid) {
            got = ::read(fds[0], answer, sizeof answer) == sizeof answer;
            pid = -1;
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (pid > 0) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
    }
    ::close(fds[0]);
    if (!got) {
        if (why_not) *why_not = "the CUDA driver did not answer (cuInit hung or crashed)";
        return false;
    }
    if (answer[1] != 0) {
        if (why_not)
            *why_not = "the CUDA driver found no usable GPU (cuInit/cuDeviceGetCount error " +
                       std::to_string(answer[1]) + ")";
        return false;
    }
    if (answer[0] <= 0) {
        if (why_not) *why_not = "the CUDA driver reports no GPU";
        return false;
    }
    if (devices) *devices = answer[0];
    return true;
}

// [SECTION] limits and exit codes

Limits default_run_limits(bool sandbox) {
    Limits l;
    // Two minutes: NVIDIA's samples size their work for the GPU (simpleStreams: 21 launches of
    // 16 M threads and 2.5 GB of copies), which takes about a minute on the emulator on a 2-core
    // machine (docs/runtime.md, "How long NVIDIA's samples take"). Graded runs (the sandbox) keep
    // one minute.
    l.wall_seconds = sandbox ? 60 : 120;
    std::uint64_t ram = physical_memory_bytes();
    std::uint64_t three_quarters = ram ? ram / 4 * 3 : (8ull << 30);
    if (sandbox) {
        l.cpu_seconds = 60;
        l.memory_bytes = std::min<std::uint64_t>(4ull << 30, three_quarters);
        l.output_bytes = 8ull << 20;
        l.tasks = 256;
        l.file_bytes = 256ull << 20;
    } else {
        // Enough for any course program; stops one that would take the machine into swap.
        l.memory_bytes = three_quarters;
    }
    return l;
}

int run_exit_code(const RunResult& r) {
    if (!r.started) return 2;
    const ProcessResult& p = r.process;
    switch (p.outcome) {
    case Outcome::exited: return p.exit_code;
    case Outcome::signaled: return 128 + p.signal;
    case Outcome::task_limit: return 121;
    case Outcome::cpu_limit: return 122;
    case Outcome::output_limit: return 123;
    case Outcome::wall_limit: return 124;
    case Outcome::memory_limit: return 125;
    case Outcome::file_size_limit: return 120;
    case Outcome::interrupted: return 128 + (p.signal ? p.signal : SIGINT);
    case Outcome::start_failed: return 2;
    }
    return 2;
}

std::string run_summary(const RunResult& r, bool run_flags) {
    int code = run_exit_code(r);
    std::string tail = " (exit " + std::to_string(code) + ")";
    if (!r.started) return "cudalab: " + r.message;
    const ProcessResult& p = r.process;
    switch (p.outcome) {
    case Outcome::exited: return "";
    case Outcome::signaled: {
        const char* name = ::strsignal(p.signal);
        std::string what = "cudalab: the program was killed by signal " + std::to_string(p.signal) +
                           " (" + (name ? name : "?") + ")";
        if (p.signal == SIGSEGV)
            what += ": it accessed memory it does not own (on the host side: check host pointers "
                    "and array bounds)";
        if (p.signal == SIGKILL)
            what += "; if nobody killed it, the system may have run out of memory";
        return what + tail;
    }
    case Outcome::start_failed: return "cudalab: " + p.error + tail;
    case Outcome::interrupted:
        return "cudalab: the program was stopped (cudalab got signal " + std::to_string(p.signal) +
               ")" + tail;
    default: {
        std::string how = "cudalab: the program was stopped at the " + p.limit_text();
        if (p.outcome == Outcome::wall_limit)
            how += "; an endless loop, or a wait that never ends? (raise it with --time-limit "
                   "SECONDS)";
        if (p.outcome == Outcome::memory_limit)
            how += " (peak " + format_bytes(p.peak_memory_bytes) +
                   "; raise it with --memory-limit SIZE)";
        // The flags named are `cudalab run`'s; `cudalab check` has --time-limit and
        // --memory-limit only (a lesson's run takes its CPU-time limit from its wall-clock limit).
        if (p.outcome == Outcome::output_limit)
            how += run_flags ? " (raise it with --output-limit SIZE)"
                             : " (print less: a lesson's check keeps this much of its output)";
        if (p.outcome == Outcome::cpu_limit)
            how += run_flags ? " (raise it with --cpu-limit SECONDS)"
                             : " (raise it with --time-limit SECONDS, which sets it too)";
        if (p.outcome == Outcome::task_limit)
            how += run_flags ? " (raise it with --tasks-limit N)"
                             : " (a lesson's program needs few threads: look for a loop that "
                               "starts threads or processes)";
        if (p.outcome == Outcome::file_size_limit)
            how += run_flags ? ": a write went past it (raise it with --file-size-limit SIZE)"
                             : ": a write went past it (a lesson's program writes small files)";
        return how + tail;
    }
    }
    return "";
}

nlohmann::json run_json(const RunResult& r) {
    nlohmann::json j;
    j["started"] = r.started;
    if (!r.started) {
        j["error"] = r.message;
        j["exit_code"] = run_exit_code(r);
        return j;
    }
    const ProcessResult& p = r.process;
    j["backend"] = r.backend;
    if (!r.backend_reason.empty()) j["backend_reason"] = r.backend_reason;
    j["outcome"] = outcome_name(p.outcome);
    j["exit_code"] = run_exit_code(r);
    if (p.outcome == Outcome::exited) j["program_exit_code"] = p.exit_code;
    if (p.signal) j["signal"] = p.signal;
    if (!p.limit_text().empty()) j["limit"] = p.limit_text();
    j["wall_seconds"] = p.wall_seconds;
    j["cpu_seconds"] = p.cpu_seconds;
    j["peak_memory_bytes"] = p.peak_memory_bytes;
    j["peak_tasks"] = p.peak_tasks;
    j["output_bytes"] = p.output_bytes;
    j["limits"] = {{"wall_seconds", p.limits.wall_seconds},
                   {"cpu_seconds", p.limits.cpu_seconds},
                   {"memory_bytes", p.limits.memory_bytes},
                   {"output_bytes", p.limits.output_bytes},
                   {"tasks", p.limits.tasks}};
    j["runtime"] = r.runtime;
    j["timeline_written"] = r.timeline_written;
    if (!r.notes.empty()) j["notes"] = r.notes;
    std::string summary = run_summary(r);
    if (!summary.empty()) j["message"] = summary.substr(std::string("cudalab: ").size());
    return j;
}

// [SECTION] run_program

namespace {

RunResult refuse(const std::string& why) {
    RunResult r;
    r.message = why;
    return r;
}

std::string prepend_path(const char* existing, const std::string& dir) {
    return existing && *existing ? dir + ":" + existing : dir;
}

// A private folder for the files the runtime writes back (its result, and in the sandbox the
// timeline and trace), removed afterwards. Its descriptor, taken before the run, is how the files
// are reached afterwards: the program may have replaced any of them (base/safe_files.h).
struct ScratchDir {
    fs::path path;
    OpenDir dir;
    ScratchDir() {
        std::random_device rd;
        std::error_code ec;
        for (int i = 0; i < 8 && path.empty(); ++i) {
            fs::path p = fs::temp_directory_path(ec) /
                         ("cudalab-run-" + std::to_string(::getpid()) + "-" + std::to_string(rd()));
            if (::mkdir(p.c_str(), 0700) == 0) path = p;
        }
        if (!path.empty() && !dir.open(path.string())) {
            fs::remove_all(path, ec);
            path.clear();
        }
    }
    ~ScratchDir() {
        std::error_code ec;
        if (!path.empty()) fs::remove_all(path, ec);
    }
};

// The two ends of the program's first connection to the device process: socket pair whose ends
// each child keeps across exec (ProcessSpec::inherit_fds) and cudalab closes once both have them.
struct DeviceLink {
    int program_end = -1, device_end = -1;
    bool open() {
        int pair[2];
        if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) return false;
        program_end = pair[0];
        device_end = pair[1];
        return true;
    }
    void close_program_end() {
        if (program_end >= 0) ::close(program_end);
        program_end = -1;
    }
    ~DeviceLink() {
        close_program_end();
        if (device_end >= 0) ::close(device_end);
    }
};

}  // namespace

RunResult run_program(const RunRequest& req) {
    if (req.backend != "emu" && req.backend != "gpu" && req.backend != "auto")
        return refuse("unknown backend '" + req.backend + "' (emu, gpu or auto)");
    std::error_code ec;
    fs::path cwd = req.cwd.empty() ? fs::current_path() : fs::path(req.cwd);
    fs::path exe = fs::absolute(fs::path(req.executable).is_absolute() ? fs::path(req.executable)
                                                                       : cwd / req.executable,
                                ec);
    if (!fs::exists(exe, ec)) return refuse(req.executable + ": no such file");
    if (!fs::is_regular_file(exe, ec)) return refuse(req.executable + ": not a file");
    if (::access(exe.c_str(), X_OK) != 0)
        return refuse(req.executable + ": not executable (chmod +x it?)");

    RunResult r;
    // The backend.
    const bool emu_only = !req.trace.empty() || req.driver_version != 0 || req.budget != 0;
    std::string backend = req.backend, why_no_gpu;
    if (backend == "auto") {
        if (emu_only) {
            backend = "emu";
            r.backend_reason =
                "an emulator-only option (--trace, --driver-version, --budget) was given";
        } else if (gpu_available(&why_no_gpu)) {
            backend = "gpu";
            r.backend_reason = "a CUDA driver and a GPU were found";
        } else {
            backend = "emu";
            r.backend_reason = why_no_gpu;
        }
    } else if (backend == "gpu") {
        if (emu_only)
            return refuse("--trace, --driver-version and --budget are the emulator's; use them "
                          "with --backend emu");
        if (!gpu_available(&why_no_gpu))
            return refuse("--backend gpu: " + why_no_gpu +
                          "; --backend emu runs the program on the emulator");
    }
    r.backend = backend;

    // In the sandbox the program's environment starts from the allow list, and every CUDALAB_* or
    // CUDA_* setting below is one the runner means it to have: none is inherited from cudalab's.
    std::vector<std::string> env = req.sandbox ? sandbox_environment() : current_environment();
    // On the emulator the device is a process of its own (engine/device/protocol.h), started
    // here outside the sandbox: its settings and the records' paths are in its environment,
    // never in the program's.
    std::vector<std::string> device_env = current_environment();
    const bool emulated = backend == "emu";
    // The scratch folder: the records, written by the device process (or, on a GPU, by the
    // CUPTI library in the program, where the sandbox lets it write).
    ScratchDir program_scratch, device_scratch;
    if (program_scratch.path.empty() || device_scratch.path.empty())
        return refuse("cannot create a temporary folder in " +
                      fs::temp_directory_path(ec).string());
    // The device process writes into a folder of its own that the program never sees (neither
    // bound into its sandbox nor given to its user): nothing there is the program's doing.
    ScratchDir& scratch = emulated ? device_scratch : program_scratch;
    // In the sandbox the records are written into the scratch folder, copied out afterwards.
    auto out_path = [&](const std::string& user_path, const char* name) -> std::string {
        if (user_path.empty()) return "";
        return req.sandbox ? (scratch.path / name).string() : fs::absolute(user_path, ec).string();
    };
    const std::string timeline_path = out_path(req.timeline, "timeline.json");
    const std::string trace_path = out_path(req.trace, "trace");
    const std::string result_path = (scratch.path / "result.json").string();
    // Settings meant for the runtime go to whichever process holds it.
    auto runtime_setting = [&](const char* key, const char* value) {
        set_env(emulated ? device_env : env, key, value);
    };
    std::vector<std::string> read_only{exe.string()};

    if (backend == "emu") {
        std::string looked;
        std::string dir = find_emulated_runtime(req.cudart_dir, &looked);
        if (dir.empty())
            return refuse("the emulated CUDA runtime is not built: no " + looked +
                          " (build cudalab with `cmake --build build`, or set CUDALAB_CUDART_DIR "
                          "to its folder)");
        if (!req.built_by_cudalab) {
            ElfInfo info;
            std::string err;
            if (!read_elf_info(exe.string(), &info, &err)) return refuse(err);
            if (info.is_elf && !info.needs_cudart() && info.has_cuda_fatbin)
                return refuse(req.executable + " is linked with the static CUDA runtime (nvcc's "
                                               "default), which the emulator cannot replace. "
                                               "Rebuild it with the shared runtime: nvcc -cudart "
                                               "shared ... (in a Makefile, add -cudart shared "
                                               "to NVCCFLAGS; with CMake, set "
                                               "CMAKE_CUDA_RUNTIME_LIBRARY=Shared or the target's "
                                               "CUDA_RUNTIME_LIBRARY property to Shared), or run "
                                               "it on a GPU with --backend gpu");
        }
        set_env(env, "LD_LIBRARY_PATH", prepend_path(get_env(env, "LD_LIBRARY_PATH"), dir).c_str());
        // By soname the preload also satisfies a DT_NEEDED libcudart.so.13 that a RUNPATH would
        // otherwise resolve to the toolkit's copy.
        set_env(env, "LD_PRELOAD",
                (dir + "/libcudart.so.13" +
                 (get_env(env, "LD_PRELOAD") ? std::string(":") + get_env(env, "LD_PRELOAD") : ""))
                    .c_str());
        if (req.devices > 0)
            runtime_setting("CUDALAB_DEVICES", std::to_string(req.devices).c_str());
        if (!trace_path.empty()) runtime_setting("CUDALAB_TRACE", trace_path.c_str());
        if (!trace_path.empty() && req.trace_launch)
            runtime_setting("CUDALAB_TRACE_LAUNCH", std::to_string(req.trace_launch).c_str());
        if (req.driver_version)
            runtime_setting("CUDALAB_DRIVER_VERSION", std::to_string(req.driver_version).c_str());
        if (req.budget) runtime_setting("CUDALAB_BUDGET", std::to_string(req.budget).c_str());
        read_only.push_back(dir);
    } else {
        if (req.devices > 0 && !get_env(env, "CUDA_VISIBLE_DEVICES")) {
            // On real GPUs, --devices N shows the program the first N of them.
            std::string list;
            for (int i = 0; i < req.devices; ++i) list += (i ? "," : "") + std::to_string(i);
            set_env(env, "CUDA_VISIBLE_DEVICES", list.c_str());
        }
        if (!timeline_path.empty()) {
            std::string looked;
            std::string lib = find_cupti_library(req.cupti_library, &looked);
            if (lib.empty())
                return refuse("--timeline on a GPU needs cudalab's CUPTI library, not found at " +
                              looked + " (build cudalab, or set CUDALAB_CUPTI_LIB)");
            set_env(env, "CUDA_INJECTION64_PATH", lib.c_str());
            read_only.push_back(lib);
        }
    }
    if (!timeline_path.empty()) runtime_setting("CUDALAB_TIMELINE", timeline_path.c_str());
    runtime_setting("CUDALAB_RESULT", result_path.c_str());
    for (const auto& [name, value] : req.environment) {
        if (name.rfind("CUDALAB_", 0) == 0) runtime_setting(name.c_str(), value.c_str());
        else set_env(env, name.c_str(), value.c_str());
    }
    // The program's end of its first connection to the device.
    DeviceLink device_link;
    if (emulated) {
        if (!device_link.open())
            return refuse("cannot create the connection to the emulated device");
        set_env(env, "CUDALAB_DEVICE_FD", std::to_string(device_link.program_end).c_str());
        // cudalab's own settings for the runtime are the device's: none reaches the program.
        for (auto it = env.begin(); it != env.end();)
            it = it->rfind("CUDALAB_", 0) == 0 && it->rfind("CUDALAB_DEVICE_FD=", 0) != 0
                     ? env.erase(it)
                     : it + 1;
    }
    // A file left by an earlier run must not pass for this one's.
    if (!req.sandbox)
        for (const auto& p : {timeline_path, trace_path})
            if (!p.empty()) fs::remove(p, ec);

    ProcessSpec spec;
    spec.limits = req.limits;
    spec.output = req.output;
    spec.stdin_null = req.stdin_null;
    spec.cwd = cwd.string();
    std::vector<std::string> argv{req.argv0.empty() ? exe.string() : req.argv0};
    argv.insert(argv.end(), req.args.begin(), req.args.end());
    if (req.sandbox) {
        const SandboxSupport& s = sandbox_support();
        if (!s.ok) return refuse("--sandbox: " + s.why_not);
        std::string why;
        // As root the program runs as 65534: on a GPU the CUPTI library in the program writes
        // the timeline, in a folder of its.
        if (!emulated && !give_to_sandbox_user(scratch.path.string(), &why)) return refuse(why);
        SandboxSpec sb;
        sb.cwd = fs::weakly_canonical(cwd, ec).string();
        sb.readonly_cwd = req.sandbox_readonly_cwd;
        sb.read_only = read_only;
        if (!emulated) sb.writable = {scratch.path.string()};
        sb.gpu = backend == "gpu";
        sb.tasks = req.limits.tasks;
        std::vector<std::string> inner{exe.string()};  // bwrap 0.8 cannot set argv[0]
        inner.insert(inner.end(), req.args.begin(), req.args.end());
        sb.hidden = req.sandbox_hidden;
        // The tmpfs's pages are no process's resident memory: its size stays within the memory
        // limit.
        sb.tmp_bytes = std::min<std::uint64_t>(
            256ull << 20, req.limits.memory_bytes ? req.limits.memory_bytes : 256ull << 20);
        for (const auto& e : env) {
            std::string key = e.substr(0, e.find('='));
            if (key == "LD_PRELOAD" || key == "LD_LIBRARY_PATH") sb.program_env.push_back(e);
            else sb.env.push_back(e);
        }
        if (!sandbox_process(s, sb, inner, &spec, &why)) return refuse("--sandbox: " + why);
    } else {
        spec.argv = argv;
        spec.executable = exe.string();
        spec.env = env;
    }

    r.command = spec.argv;
    std::thread device_thread;
    ProcessResult device_result;
    if (emulated) {
        spec.inherit_fds.push_back(device_link.program_end);
        // Two trees side by side: neither supervision counts, limits or kills the other's.
        spec.siblings = std::make_shared<SiblingTrees>();
        ProcessSpec d;
        d.siblings = spec.siblings;
        d.stdin_null = true;
        d.executable =
            (fs::path(find_emulated_runtime(req.cudart_dir, nullptr)) / "cudalab-device").string();
        d.argv = {d.executable, std::to_string(device_link.device_end)};
        d.inherit_fds = {device_link.device_end};
        d.env = device_env;
        d.cwd = scratch.path.string();
        d.output = OutputMode::capture;
        // The emulation runs here now: the program's CPU and memory limits bind it as well, and
        // it outlives the program only as long as writing the records takes.
        d.limits.cpu_seconds = req.limits.cpu_seconds;
        d.limits.memory_bytes = req.limits.memory_bytes;
        d.limits.output_bytes = req.limits.output_bytes ? req.limits.output_bytes : 16u << 20;
        d.limits.wall_seconds = req.limits.wall_seconds > 0 ? req.limits.wall_seconds + 60 : 0;
        device_thread = std::thread([d = std::move(d), &device_result] {
            device_result = run_process(d);
            if (device_result.outcome == Outcome::start_failed) d.siblings->add(-1);
        });
        // The device is started before the program, so the program's supervision knows it.
        std::unique_lock lock(spec.siblings->mutex);
        spec.siblings->started.wait_for(lock, std::chrono::seconds(30),
                                        [&] { return !spec.siblings->roots.empty(); });
    }
    r.process = run_process(spec);
    if (emulated) {
        // The program has gone: its end of the connection with it. The device writes the records
        // and exits.
        spec.inherit_fds.clear();
        device_link.close_program_end();
        device_thread.join();
        ProcessResult& p = r.process;
        // What the device said after the program had gone (the leak note) follows the program's.
        if (spec.output == OutputMode::capture) {
            p.out += device_result.out;
            p.err += device_result.err;
        } else {
            std::fwrite(device_result.out.data(), 1, device_result.out.size(), stdout);
            std::fflush(stdout);
            std::fwrite(device_result.err.data(), 1, device_result.err.size(), stderr);
        }
        // The device ran out of the program's CPU time or memory (emulation and device memory are
        // the program's use of the GPU): the run ends at that limit, named as the program's.
        const bool device_limit = device_result.outcome == Outcome::cpu_limit ||
                                  device_result.outcome == Outcome::memory_limit ||
                                  device_result.outcome == Outcome::wall_limit;
        if (device_limit && (p.outcome == Outcome::exited || p.outcome == Outcome::signaled)) {
            p.outcome = device_result.outcome;
            p.limits = device_result.limits;
            if (device_result.outcome == Outcome::wall_limit)
                p.limits.wall_seconds = req.limits.wall_seconds;
            p.exit_code = -1;
            p.signal = 0;
            r.notes.push_back("the emulated device reached the " + device_result.limit_text() +
                              " while it ran the program's CUDA work");
        } else if (device_result.outcome != Outcome::exited || device_result.exit_code != 0)
            r.notes.push_back("the emulated device process ended badly (" +
                              std::string(outcome_name(device_result.outcome)) +
                              (device_result.outcome == Outcome::exited
                                   ? " with status " + std::to_string(device_result.exit_code)
                               : device_result.limit_text().empty()
                                   ? std::string()
                                   : ": " + device_result.limit_text()) +
                              "); its records may be incomplete");
    }
    if (r.process.outcome == Outcome::start_failed) return refuse(r.process.error);
    r.started = true;
    ProcessResult& p = r.process;
    if (req.sandbox && p.outcome == Outcome::exited && p.exit_code > 128 &&
        p.exit_code < 128 + 65) {
        // bwrap exits with 128+N when the program is killed by signal N (its own exit status
        // above 128 reads the same; programs rarely use those).
        p.outcome = Outcome::signaled;
        p.signal = p.exit_code - 128;
        p.exit_code = -1;
        if (p.limits.cpu_seconds > 0 &&
            (p.signal == SIGXCPU || (p.signal == SIGKILL && p.cpu_seconds >= p.limits.cpu_seconds)))
            p.outcome = Outcome::cpu_limit;
        else if (p.limits.file_bytes > 0 && p.signal == SIGXFSZ)
            p.outcome = Outcome::file_size_limit;
    }

    // What the runtime wrote, read as a file the program may have replaced: no link followed, a
    // regular file only (a FIFO must not block the grader), capped before it is read, its JSON
    // depth bounded before it is parsed. A refusal is a note; the file's bytes never are.
    std::string text, why;
    const ReadOutcome got =
        read_file_beneath(scratch.dir.fd(), "result.json", max_result_file_bytes,
                          "the runtime's result file", &text, &why);
    if (got == ReadOutcome::ok) {
        r.runtime = parse_json_bounded(text, max_json_depth, max_result_file_bytes / 8,
                                       "the runtime's result file", &why);
        if (r.runtime.is_discarded()) {
            r.runtime = nullptr;
            r.notes.push_back(why);
            r.file_refused = why;
        }
    } else if (got != ReadOutcome::missing) {
        r.notes.push_back(why);
        if (got == ReadOutcome::refused) r.file_refused = why;
    }
    if (req.sandbox) {
        // Copied out of the scratch folder by the same rules, to a new file renamed over the
        // destination: a link the program left there is replaced, never written through.
        auto copy_out = [&](const char* name, const std::string& to, const char* what) {
            std::string reason;
            const ReadOutcome c =
                copy_file_beneath(scratch.dir.fd(), name, req.output_file_cap, what, to, &reason);
            if (c != ReadOutcome::ok && c != ReadOutcome::missing) r.notes.push_back(reason);
            if (c == ReadOutcome::refused && r.file_refused.empty()) r.file_refused = reason;
            return c == ReadOutcome::ok;
        };
        if (!req.timeline.empty())
            r.timeline_written = copy_out("timeline.json", req.timeline, "the timeline");
        if (!req.trace.empty()) copy_out("trace", req.trace, "the trace");
    } else if (!timeline_path.empty()) {
        r.timeline_written = fs::exists(timeline_path, ec);
    }
    if (!req.timeline.empty() && !r.timeline_written)
        r.notes.push_back("no timeline was written to " + req.timeline +
                          (r.process.outcome == Outcome::exited
                               ? ""
                               : " (the program did not reach its normal exit)"));
    return r;
}

}  // namespace cudalab::programs
