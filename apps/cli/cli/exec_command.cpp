#include "cli/exec_command.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include "backends/factory.h"
#include "base/hardware.h"
#include "compiler/compiler.h"
#include "report/sanitize.h"
#include "runtime/runtime.h"
#include "trace/trace_io.h"

namespace fs = std::filesystem;
using namespace cudalab;

namespace cli {

namespace {

struct ArgSpec {
    std::string type;  // i32 u32 i64 u64 f32 f64
    bool buffer = false;
    std::size_t count = 0;
    std::string init;  // zeros | iota | file:PATH, or the scalar's text
    std::vector<std::uint8_t> bytes;
    DevicePtr ptr = 0;
};

std::size_t type_size(const std::string& t) {
    if (t == "i32" || t == "u32" || t == "f32") return 4;
    if (t == "i64" || t == "u64" || t == "f64") return 8;
    return 0;
}

// Each dimension in the CUDA limits (grid x < 2^31, y and z <= 65535; block x, y <= 1024, z <= 64,
// at most 1024 threads), the product in 64 bits: a launch that cannot exist is refused here.
bool parse_dim(const std::string& s, Dim3* d, bool block, std::string* err) {
    std::uint64_t v[3] = {1, 1, 1};
    std::size_t start = 0;
    int i = 0;
    static const std::uint64_t grid_max[3] = {hw::max_grid_x, hw::max_grid_yz, hw::max_grid_yz},
                               block_max[3] = {hw::max_threads_per_block, hw::max_threads_per_block,
                                               hw::max_block_z};
    while (start <= s.size()) {
        std::size_t end = s.find(',', start);
        if (end == std::string::npos) end = s.size();
        if (i >= 3) {
            *err = "at most 3 dimensions: '" + s + "'";
            return false;
        }
        const char* axis[3] = {"x", "y", "z"};
        auto x = parse_unsigned(s.substr(start, end - start), 1, (block ? block_max : grid_max)[i],
                                std::string(axis[i]) + " of '" + s + "'", err);
        if (!x) return false;
        v[i++] = *x;
        start = end + 1;
    }
    const std::uint64_t product = v[0] * v[1] * v[2];  // < 2^63 within the limits above
    if (block && product > 1024) {
        *err = "'" + s + "' is " + std::to_string(product) + " threads; a block has at most 1024";
        return false;
    }
    *d = Dim3{std::uint32_t(v[0]), std::uint32_t(v[1]), std::uint32_t(v[2])};
    return true;
}

template <class T> void append(std::vector<std::uint8_t>& out, T v) {
    std::uint8_t b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    out.insert(out.end(), b, b + sizeof(T));
}

bool scalar_bytes(const std::string& type, const std::string& text, std::vector<std::uint8_t>& out,
                  std::string* err) {
    const std::string what = type + " value";
    if (type == "i32") {
        auto v = parse_signed(text, INT32_MIN, INT32_MAX, what, err, true);
        if (!v) return false;
        append<std::int32_t>(out, std::int32_t(*v));
    } else if (type == "u32") {
        auto v = parse_unsigned(text, 0, UINT32_MAX, what, err, true);
        if (!v) return false;
        append<std::uint32_t>(out, std::uint32_t(*v));
    } else if (type == "i64") {
        auto v = parse_signed(text, INT64_MIN, INT64_MAX, what, err, true);
        if (!v) return false;
        append<std::int64_t>(out, *v);
    } else if (type == "u64") {
        auto v = parse_unsigned(text, 0, UINT64_MAX, what, err, true);
        if (!v) return false;
        append<std::uint64_t>(out, *v);
    } else {
        auto v = parse_real(text, type == "f32", what, err);
        if (!v) return false;
        if (type == "f32") append<float>(out, float(*v));
        else append<double>(out, *v);
    }
    return true;
}

// The spec's shape only (type, count, init); no memory is touched until every size is known.
bool parse_spec(const std::string& spec, ArgSpec* a, std::string* err) {
    auto colon = spec.find(':');
    if (colon == std::string::npos) {
        *err = "--arg " + spec + ": expected TYPE:VALUE or TYPE[N]:INIT";
        return false;
    }
    std::string head = spec.substr(0, colon), tail = spec.substr(colon + 1);
    auto br = head.find('[');
    a->type = head.substr(0, br);
    if (!type_size(a->type)) {
        *err = "--arg " + spec + ": unknown type '" + a->type + "' (i32 u32 i64 u64 f32 f64)";
        return false;
    }
    if (br == std::string::npos) {
        if (!scalar_bytes(a->type, tail, a->bytes, err)) {
            *err = "--arg " + spec + ": " + *err;
            return false;
        }
        return true;
    }
    a->buffer = true;
    if (head.back() != ']') {
        *err = "--arg " + spec + ": missing ']'";
        return false;
    }
    auto count = parse_unsigned(head.substr(br + 1, head.size() - br - 2), 1, UINT64_MAX / 8,
                                "element count", err);
    if (!count) {
        *err = "--arg " + spec + ": " + *err;
        return false;
    }
    a->count = std::size_t(*count);
    a->init = tail;
    if (tail != "zeros" && tail != "iota" && tail.rfind("file:", 0) != 0) {
        *err = "--arg " + spec + ": INIT must be zeros, iota or file:PATH";
        return false;
    }
    if (tail.rfind("file:", 0) == 0) {
        // Checked before a byte is read: a regular file of exactly the buffer's size (not
        // /dev/zero, a directory or a FIFO that never ends).
        const std::string path = tail.substr(5);
        std::error_code ec;
        const fs::file_status st = fs::status(path, ec);
        if (ec || !fs::exists(st)) {
            *err = "--arg " + spec + ": cannot read " + path + ": no such file";
            return false;
        }
        if (!fs::is_regular_file(st)) {
            *err = "--arg " + spec + ": " + path + " is not a regular file";
            return false;
        }
        const std::uint64_t size = fs::file_size(path, ec);
        const std::uint64_t want = std::uint64_t(a->count) * type_size(a->type);
        if (ec || size != want) {
            *err = "--arg " + spec + ": " + path + " holds " + std::to_string(size) +
                   " bytes, expected " + std::to_string(want);
            return false;
        }
    }
    return true;
}

// Fills a buffer argument on the device a chunk at a time, so that no second copy of a large
// buffer is ever held (the device allocation starts zeroed: `zeros` writes nothing).
bool fill_on_device(Backend& backend, const ArgSpec& a, std::string* err) {
    const std::size_t element = type_size(a.type);
    const std::size_t chunk_elements = std::size_t(1) << 18;
    std::vector<std::uint8_t> chunk;
    std::ifstream file;
    if (a.init.rfind("file:", 0) == 0) {
        file.open(a.init.substr(5), std::ios::binary);
        if (!file) {
            *err = "--arg: cannot read " + a.init.substr(5);
            return false;
        }
    } else if (a.init != "iota") {
        return true;
    }
    for (std::size_t first = 0; first < a.count; first += chunk_elements) {
        const std::size_t n = std::min(chunk_elements, a.count - first);
        chunk.clear();
        if (file.is_open()) {
            chunk.resize(n * element);
            if (!file.read(reinterpret_cast<char*>(chunk.data()), std::streamsize(chunk.size()))) {
                *err = "--arg: " + a.init.substr(5) + " ended early (it changed while being read?)";
                return false;
            }
        } else {
            for (std::size_t i = first; i < first + n; ++i) {
                if (a.type == "i32") append<std::int32_t>(chunk, std::int32_t(i));
                else if (a.type == "u32") append<std::uint32_t>(chunk, std::uint32_t(i));
                else if (a.type == "i64") append<std::int64_t>(chunk, std::int64_t(i));
                else if (a.type == "u64") append<std::uint64_t>(chunk, std::uint64_t(i));
                else if (a.type == "f32") append<float>(chunk, float(i));
                else append<double>(chunk, double(i));
            }
        }
        const Status st =
            backend.copy_to_device(a.ptr + first * element, chunk.data(), chunk.size());
        if (!st.ok()) {
            *err = st.message;
            return false;
        }
    }
    return true;
}

// An output path is checked before the run, so that a run is never wasted on a result that
// cannot be written (and a failure to write is never an exit 0).
bool writable_dir(const std::string& dir, std::string* err) {
    std::error_code ec;
    const fs::file_status st = fs::status(dir, ec);
    if (fs::exists(st) && !fs::is_directory(st)) {
        *err = "--out " + dir + " exists and is not a folder";
        return false;
    }
    if (!fs::exists(st) && !fs::create_directories(dir, ec)) {
        *err =
            "--out " + dir + ": cannot create the folder" + (ec ? " (" + ec.message() + ")" : "");
        return false;
    }
    if (::access(dir.c_str(), W_OK | X_OK) != 0) {
        *err = "--out " + dir + ": the folder is not writable";
        return false;
    }
    return true;
}

bool writable_file(const std::string& path, const std::string& flag, std::string* err) {
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (fs::exists(st)) {
        if (!fs::is_regular_file(st)) {
            *err = flag + " " + path + " exists and is not a regular file";
            return false;
        }
        if (::access(path.c_str(), W_OK) != 0) {
            *err = flag + " " + path + ": the file is not writable";
            return false;
        }
        return true;
    }
    const fs::path parent =
        fs::path(path).has_parent_path() ? fs::path(path).parent_path() : fs::path(".");
    if (!fs::is_directory(parent, ec) || ::access(parent.c_str(), W_OK | X_OK) != 0) {
        *err = flag + " " + path + ": its folder " + parent.string() +
               " does not exist or is not writable";
        return false;
    }
    return true;
}

}  // namespace

void add_limit_options(CLI::App* cmd, LimitFlags& f, bool per_check) {
    cmd->add_option("--budget", f.budget,
                    "emulator instruction budget (warp instructions per launch; default 50000000)");
    cmd->add_option(
        "--memory-limit", f.memory_mb,
        "emulator memory in MB, in total: globals, buffers, local frames (default 2048)");
    cmd->add_option("--printf-limit", f.printf_kb,
                    "device printf output per launch in KB (default 1024)");
    cmd->add_option("--time-limit", f.time_limit_s,
                    per_check ? "wall-clock seconds per lesson check (default 300)"
                              : "wall-clock seconds for the run (default 300)");
    cmd->add_option("--compile-time-limit", f.compile_time_limit_s,
                    "seconds one compile may take (default 60)");
    cmd->add_option("--compile-memory-limit", f.compile_memory_mb,
                    "MB of memory one compile may use (default 2048)");
    if (per_check)
        cmd->add_flag("--no-sandbox", f.no_sandbox,
                      "build and run program lessons without the sandbox: for trusted code only "
                      "(docs/grading.md)");
}

void add_exec_options(CLI::App* cmd, ExecArgs& a) {
    cmd->add_option("file", a.file, "the .cu file")->required();
    cmd->add_option("--kernel", a.kernel, "kernel name as written in the source")->required();
    cmd->add_option("--grid", a.grid, "grid size X[,Y[,Z]]")->required();
    cmd->add_option("--block", a.block, "block size X[,Y[,Z]]")->required();
    cmd->add_option("--shared", a.shared, "dynamic shared memory bytes");
    cmd->add_option("--cluster", a.cluster,
                    "thread block cluster size X[,Y[,Z]] (sm_90; at most 16 blocks, the grid a "
                    "whole number of clusters)");
    cmd->add_option("--arg", a.args,
                    "argument: TYPE:VALUE or TYPE[N]:zeros|iota|file:PATH (in order)");
    cmd->add_option("--backend", a.backend, "emu, gpu or auto")
        ->check(CLI::IsMember({"emu", "gpu", "auto"}));
    cmd->add_option("--out", a.out_dir, "write each buffer argument K to DIR/argK.bin");
    cmd->add_flag("--json", a.json, "print status, diagnostics, printf output and stats as JSON");
    cmd->add_option("--trace", a.trace_file, "write the trace to FILE (for cudalab gui)");
    cmd->add_flag("--its", a.its,
                  "independent thread scheduling: the paths of a divergent branch take turns, as "
                  "the lanes of a "
                  "Volta+ warp may, so code that relies on lockstep shows it");
    cmd->add_option("--its-seed", a.its_seed,
                    "with --its: the seed of the turns' order (default 1)");
    add_limit_options(cmd, a.limits, false);
}

int run_exec(const ExecArgs& a) {
    nlohmann::json j;
    // Learner bytes (file names, messages, printf) may be anything: the JSON is always valid.
    auto print_json = [](const nlohmann::json& value) {
        std::cout << value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    };
    auto usage = [&](const std::string& msg) {
        if (a.json)
            print_json(nlohmann::json{{"status", "error"}, {"error", report::safe_text(msg)}});
        else std::cerr << "cudalab exec: " << report::safe_text(msg) << "\n";
        return 2;
    };
    LaunchConfig cfg;
    std::string err;
    Limits limits;
    if (!parse_limits(a.limits, &limits, &err)) return usage(err);
    if (!parse_dim(a.grid, &cfg.grid, false, &err)) return usage("--grid: " + err);
    if (!parse_dim(a.block, &cfg.block, true, &err)) return usage("--block: " + err);
    if (!a.cluster.empty()) {
        if (!parse_dim(a.cluster, &cfg.cluster, false, &err)) return usage("--cluster: " + err);
        if (cfg.cluster.count() > hw::max_cluster_blocks)
            return usage("--cluster: '" + a.cluster + "' is " +
                         std::to_string(cfg.cluster.count()) + " blocks; a cluster has at most " +
                         std::to_string(hw::max_cluster_blocks));
        if (cfg.grid.x % cfg.cluster.x || cfg.grid.y % cfg.cluster.y || cfg.grid.z % cfg.cluster.z)
            return usage("--cluster: the grid " + cfg.grid.str() +
                         " is not a whole number of clusters of " + cfg.cluster.str());
        cfg.explicit_cluster = true;
    }
    const std::string shared_limit = std::to_string(hw::emulated.max_shared_per_block);
    auto shared = parse_unsigned(a.shared, 0, std::uint64_t(hw::emulated.max_shared_per_block),
                                 "--shared (bytes; an " + std::string(hw::emulated_arch) +
                                     " block has at most " + shared_limit + ")",
                                 &err);
    if (!shared) return usage(err);
    cfg.dynamic_shared_bytes = std::uint32_t(*shared);
    std::vector<ArgSpec> specs(a.args.size());
    for (std::size_t i = 0; i < a.args.size(); ++i)
        if (!parse_spec(a.args[i], &specs[i], &err)) return usage(err);
    emu::EmulatorOptions defaults;
    const std::uint64_t memory_limit =
        limits.memory_mb ? limits.memory_mb << 20 : defaults.memory_limit;
    std::uint64_t total = 0;
    for (const auto& sp : specs)
        if (sp.buffer)
            total += std::uint64_t(sp.count) * type_size(sp.type);  // each < 2^61: no overflow
    if (total > memory_limit)
        return usage("the buffers need " + std::to_string(total) +
                     " bytes; the emulator memory limit is " + std::to_string(memory_limit >> 20) +
                     " MB (raise it with --memory-limit)");
    if (!a.out_dir.empty() && !writable_dir(a.out_dir, &err)) return usage(err);
    if (!a.trace_file.empty() && !writable_file(a.trace_file, "--trace", &err)) return usage(err);

    compiler::Compiler compiler;
    compiler::CompileOptions copts;
    if (limits.compile_time_limit_s) copts.limits.seconds = limits.compile_time_limit_s;
    if (limits.compile_memory_mb) copts.limits.memory_mb = limits.compile_memory_mb;
    auto module = compiler.compile_file(a.file, copts);
    if (!module->ok) {
        if (a.json) {
            j["status"] = "compile_error";
            j["diagnostics"] = nlohmann::json::array();
            for (const auto& d : module->diagnostics)
                j["diagnostics"].push_back({{"file", report::safe_text(d.file)},
                                            {"line", d.line},
                                            {"column", d.column},
                                            {"severity", to_string(d.severity)},
                                            {"message", report::safe_text(d.message)}});
            print_json(j);
        } else {
            std::cerr << report::safe_text(module->error_text(), 4 * report::max_message_bytes);
        }
        return 2;
    }
    // The limits, given to the backend as it is made (to the GPU backend's shadow emulator as to
    // the emulator backend).
    BackendOptions o;
    if (limits.budget) o.instruction_budget = limits.budget;
    o.memory_limit = memory_limit;
    if (limits.printf_kb) o.printf_limit = limits.printf_kb << 10;
    if (a.its) {
        o.independent_scheduling = true;
        o.scheduling_seed = a.its_seed;
    }
    o.deadline =
        std::chrono::steady_clock::now() +
        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
            std::chrono::duration<double>(limits.time_limit_s ? limits.time_limit_s
                                                              : emu::default_time_limit_seconds));
    Status st;
    std::string note;
    auto backend = make_backend(a.backend, o, &st, &note);
    if (!backend) return usage(st.message);
    if (!note.empty() && !a.json) std::cerr << "cudalab exec: " << note << "\n";
    st = backend->load(module);
    if (st.code == StatusCode::kernel_fault) {  // a limit reached by the module itself: exit 1
        if (a.json)
            print_json(nlohmann::json{{"status", "fault"},
                                      {"diagnostics",
                                       {{{"severity", to_string(Severity::error)},
                                         {"message", report::safe_text(st.message)}}}}});
        else std::cerr << report::safe_text(st.message) << "\n";
        return 1;
    }
    if (!st.ok()) return usage(st.message);
    std::vector<KernelArg> kargs;
    for (auto& s : specs) {
        if (s.buffer) {
            st = backend->allocate(s.count * type_size(s.type), &s.ptr);
            if (!st.ok()) return usage(st.message);
            if (!fill_on_device(*backend, s, &err)) return usage(err);
            kargs.push_back(KernelArg::of(s.ptr));
        } else {
            KernelArg k;
            k.bytes = s.bytes;
            kargs.push_back(k);
        }
    }
    TraceOptions topt;
    topt.enabled = !a.trace_file.empty();
    topt.writers = false;  // no mismatch to explain here: buffers are held once
    LaunchResult r = backend->launch(a.kernel, cfg, kargs, topt);
    // With --json, printf output is a field of the JSON, so standard output stays one document.
    if (!a.json) std::cout << r.printf_output << std::flush;
    if (r.status.code == StatusCode::bad_usage) return usage(r.status.message);
    std::string write_error;
    if (!a.out_dir.empty()) {
        for (std::size_t i = 0; i < specs.size() && write_error.empty(); ++i) {
            if (!specs[i].buffer) continue;
            const fs::path file = fs::path(a.out_dir) / ("arg" + std::to_string(i) + ".bin");
            std::ofstream out(file, std::ios::binary | std::ios::trunc);
            const std::size_t bytes = specs[i].count * type_size(specs[i].type);
            std::vector<std::uint8_t> chunk;
            for (std::size_t at = 0; at < bytes && out;
                 at += chunk.size()) {  // a chunk at a time, as filled
                chunk.resize(std::min<std::size_t>(std::size_t(1) << 20, bytes - at));
                backend->copy_to_host(chunk.data(), specs[i].ptr + at, chunk.size());
                out.write(reinterpret_cast<const char*>(chunk.data()),
                          std::streamsize(chunk.size()));
            }
            out.close();
            if (!out) write_error = "cannot write " + file.string();
        }
    }
    if (!a.trace_file.empty() && r.trace && write_error.empty()) {
        std::string terr;
        if (!write_trace(*r.trace, a.trace_file, &terr)) write_error = terr;
    }
    const bool faulted = !r.status.ok();
    if (a.json) {
        j["status"] = faulted ? "fault" : "ok";
        j["backend"] = backend->name();
        j["diagnostics"] = nlohmann::json::array();
        if (faulted)
            j["diagnostics"].push_back({{"severity", to_string(Severity::error)},
                                        {"message", report::safe_text(r.status.message)}});
        for (const auto& w : r.warnings)
            j["diagnostics"].push_back(
                {{"severity", to_string(Severity::warning)}, {"message", report::safe_text(w)}});
        if (!write_error.empty())
            j["diagnostics"].push_back({{"severity", to_string(Severity::error)},
                                        {"message", report::safe_text(write_error)}});
        j["printf"] = report::safe_text(r.printf_output, report::max_printf_bytes);
        j["stats"] = {{"warp_instructions", r.stats.warp_instructions},
                      {"thread_instructions", r.stats.thread_instructions},
                      {"seconds", r.stats.seconds}};
        print_json(j);
    } else {
        for (const auto& w : r.warnings) std::cerr << "warning: " << report::safe_text(w) << "\n";
        if (faulted) std::cerr << report::safe_text(r.status.message) << "\n";
        if (!write_error.empty())
            std::cerr << "cudalab exec: " << report::safe_text(write_error) << "\n";
    }
    if (!write_error.empty()) return 2;
    return faulted ? 1 : 0;
}

}  // namespace cli
