#include "cli/exec_command.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "compiler/compiler.h"
#include "emulator/emu_backend.h"
#include "runtime/runtime.h"
#include "trace/trace_io.h"

namespace fs = std::filesystem;
using namespace cudalab;

namespace cli {

namespace {

struct ArgSpec {
    std::string type;         // i32 u32 i64 u64 f32 f64
    bool buffer = false;
    std::size_t count = 0;
    std::string init;         // zeros | iota | file:PATH, or the scalar's text
    std::vector<std::uint8_t> bytes;
    DevicePtr ptr = 0;
};

std::size_t type_size(const std::string& t) {
    if (t == "i32" || t == "u32" || t == "f32") return 4;
    if (t == "i64" || t == "u64" || t == "f64") return 8;
    return 0;
}

bool parse_dim(const std::string& s, Dim3* d, std::string* err) {
    std::uint32_t v[3] = {1, 1, 1};
    std::stringstream in(s);
    std::string part;
    int i = 0;
    while (std::getline(in, part, ',')) {
        if (i >= 3) { *err = "at most 3 dimensions: '" + s + "'"; return false; }
        try {
            std::size_t used;
            unsigned long x = std::stoul(part, &used);
            if (used != part.size() || x == 0 || x > 0x7fffffff) throw std::invalid_argument(part);
            v[i++] = std::uint32_t(x);
        } catch (const std::exception&) {
            *err = "'" + s + "' is not X[,Y[,Z]] of positive integers";
            return false;
        }
    }
    if (i == 0) { *err = "empty dimension"; return false; }
    *d = Dim3{v[0], v[1], v[2]};
    return true;
}

template <class T> void append(std::vector<std::uint8_t>& out, T v) {
    std::uint8_t b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    out.insert(out.end(), b, b + sizeof(T));
}

bool scalar_bytes(const std::string& type, const std::string& text, std::vector<std::uint8_t>& out, std::string* err) {
    try {
        std::size_t used = 0;
        if (type == "i32") { long long v = std::stoll(text, &used, 0); append<std::int32_t>(out, std::int32_t(v)); }
        else if (type == "u32") { unsigned long long v = std::stoull(text, &used, 0); append<std::uint32_t>(out, std::uint32_t(v)); }
        else if (type == "i64") { long long v = std::stoll(text, &used, 0); append<std::int64_t>(out, v); }
        else if (type == "u64") { unsigned long long v = std::stoull(text, &used, 0); append<std::uint64_t>(out, v); }
        else if (type == "f32") { float v = std::stof(text, &used); append<float>(out, v); }
        else if (type == "f64") { double v = std::stod(text, &used); append<double>(out, v); }
        if (used != text.size()) throw std::invalid_argument(text);
    } catch (const std::exception&) {
        *err = "'" + text + "' is not a valid " + type;
        return false;
    }
    return true;
}

bool parse_spec(const std::string& spec, ArgSpec* a, std::string* err) {
    auto colon = spec.find(':');
    if (colon == std::string::npos) { *err = "--arg " + spec + ": expected TYPE:VALUE or TYPE[N]:INIT"; return false; }
    std::string head = spec.substr(0, colon), tail = spec.substr(colon + 1);
    auto br = head.find('[');
    a->type = head.substr(0, br);
    if (!type_size(a->type)) { *err = "--arg " + spec + ": unknown type '" + a->type + "' (i32 u32 i64 u64 f32 f64)"; return false; }
    if (br == std::string::npos) return scalar_bytes(a->type, tail, a->bytes, err);
    a->buffer = true;
    if (head.back() != ']') { *err = "--arg " + spec + ": missing ']'"; return false; }
    try {
        a->count = std::stoul(head.substr(br + 1, head.size() - br - 2));
    } catch (const std::exception&) {
        *err = "--arg " + spec + ": bad element count";
        return false;
    }
    if (a->count == 0) { *err = "--arg " + spec + ": a buffer needs at least one element"; return false; }
    std::size_t bytes = a->count * type_size(a->type);
    if (bytes > (std::size_t(8) << 30)) { *err = "--arg " + spec + ": buffer larger than 8 GB"; return false; }
    a->init = tail;
    if (tail == "zeros") a->bytes.assign(bytes, 0);
    else if (tail == "iota") {
        for (std::size_t i = 0; i < a->count; ++i) {
            if (a->type == "i32") append<std::int32_t>(a->bytes, std::int32_t(i));
            else if (a->type == "u32") append<std::uint32_t>(a->bytes, std::uint32_t(i));
            else if (a->type == "i64") append<std::int64_t>(a->bytes, std::int64_t(i));
            else if (a->type == "u64") append<std::uint64_t>(a->bytes, std::uint64_t(i));
            else if (a->type == "f32") append<float>(a->bytes, float(i));
            else append<double>(a->bytes, double(i));
        }
    } else if (tail.rfind("file:", 0) == 0) {
        std::string path = tail.substr(5);
        std::ifstream in(path, std::ios::binary);
        if (!in) { *err = "--arg " + spec + ": cannot read " + path; return false; }
        a->bytes.assign(std::istreambuf_iterator<char>(in), {});
        if (a->bytes.size() != bytes) {
            *err = "--arg " + spec + ": " + path + " holds " + std::to_string(a->bytes.size()) + " bytes, expected " + std::to_string(bytes);
            return false;
        }
    } else {
        *err = "--arg " + spec + ": INIT must be zeros, iota or file:PATH";
        return false;
    }
    return true;
}

}  // namespace

void add_exec_options(CLI::App* cmd, ExecArgs& a) {
    cmd->add_option("file", a.file, "the .cu file")->required();
    cmd->add_option("--kernel", a.kernel, "kernel name as written in the source")->required();
    cmd->add_option("--grid", a.grid, "grid size X[,Y[,Z]]")->required();
    cmd->add_option("--block", a.block, "block size X[,Y[,Z]]")->required();
    cmd->add_option("--shared", a.shared, "dynamic shared memory bytes");
    cmd->add_option("--arg", a.args, "argument: TYPE:VALUE or TYPE[N]:zeros|iota|file:PATH (in order)");
    cmd->add_option("--backend", a.backend, "emu, gpu or auto")->check(CLI::IsMember({"emu", "gpu", "auto"}));
    cmd->add_option("--out", a.out_dir, "write each buffer argument K to DIR/argK.bin");
    cmd->add_flag("--json", a.json, "print status, diagnostics and stats as JSON");
    cmd->add_option("--trace", a.trace_file, "write the trace to FILE (for cudalab gui)");
    cmd->add_option("--budget", a.budget, "emulator instruction budget (warp instructions per launch; default 50000000)");
}

int run_exec(const ExecArgs& a) {
    nlohmann::json j;
    auto usage = [&](const std::string& msg) {
        if (a.json) std::cout << nlohmann::json{{"status", "error"}, {"error", msg}}.dump(2) << "\n";
        else std::cerr << "cudalab exec: " << msg << "\n";
        return 2;
    };
    LaunchConfig cfg;
    std::string err;
    if (!parse_dim(a.grid, &cfg.grid, &err)) return usage("--grid: " + err);
    if (!parse_dim(a.block, &cfg.block, &err)) return usage("--block: " + err);
    cfg.dynamic_shared_bytes = a.shared;
    std::vector<ArgSpec> specs(a.args.size());
    for (std::size_t i = 0; i < a.args.size(); ++i)
        if (!parse_spec(a.args[i], &specs[i], &err)) return usage(err);

    compiler::Compiler compiler;
    auto module = compiler.compile_file(a.file);
    if (!module->ok) {
        if (a.json) {
            j["status"] = "compile_error";
            j["diagnostics"] = nlohmann::json::array();
            for (const auto& d : module->diagnostics)
                j["diagnostics"].push_back({{"file", d.file}, {"line", d.line}, {"column", d.column}, {"severity", d.severity}, {"message", d.message}});
            std::cout << j.dump(2) << "\n";
        } else {
            std::cerr << module->error_text();
        }
        return 2;
    }
    Status st;
    std::string note;
    auto backend = make_backend(a.backend, &st, &note);
    if (!backend) return usage(st.message);
    if (!note.empty() && !a.json) std::cerr << "cudalab exec: " << note << "\n";
    if (a.budget)
        if (auto* emu = dynamic_cast<emu::EmuBackend*>(backend.get())) emu->emulator().options().instruction_budget = a.budget;
    st = backend->load(module);
    if (!st.ok()) return usage(st.message);
    std::vector<KernelArg> kargs;
    for (auto& s : specs) {
        if (s.buffer) {
            st = backend->allocate(s.bytes.size(), &s.ptr);
            if (st.ok()) st = backend->copy_to_device(s.ptr, s.bytes.data(), s.bytes.size());
            if (!st.ok()) return usage(st.message);
            kargs.push_back(KernelArg::of(s.ptr));
        } else {
            KernelArg k;
            k.bytes = s.bytes;
            kargs.push_back(k);
        }
    }
    TraceOptions topt;
    topt.enabled = !a.trace_file.empty();
    LaunchResult r = backend->launch(a.kernel, cfg, kargs, topt);
    // With --json, stdout is one JSON document: device printf goes into it, not before it.
    if (!a.json) std::cout << r.printf_output << std::flush;
    if (r.status.code == StatusCode::bad_usage) return usage(r.status.message);
    if (!a.out_dir.empty()) {
        std::error_code ec;
        fs::create_directories(a.out_dir, ec);
        for (std::size_t i = 0; i < specs.size(); ++i) {
            if (!specs[i].buffer) continue;
            std::vector<std::uint8_t> host(specs[i].bytes.size());
            backend->copy_to_host(host.data(), specs[i].ptr, host.size());
            std::ofstream out(fs::path(a.out_dir) / ("arg" + std::to_string(i) + ".bin"), std::ios::binary);
            out.write(reinterpret_cast<const char*>(host.data()), std::streamsize(host.size()));
        }
    }
    if (!a.trace_file.empty() && r.trace) {
        std::string terr;
        if (!write_trace(*r.trace, a.trace_file, &terr)) std::cerr << "cudalab exec: " << terr << "\n";
    }
    const bool faulted = !r.status.ok();
    if (a.json) {
        j["status"] = faulted ? "fault" : "ok";
        j["backend"] = backend->name();
        j["diagnostics"] = nlohmann::json::array();
        if (faulted) j["diagnostics"].push_back({{"severity", "error"}, {"message", r.status.message}});
        for (const auto& w : r.warnings) j["diagnostics"].push_back({{"severity", "warning"}, {"message", w}});
        j["printf"] = r.printf_output;
        j["stats"] = {{"warp_instructions", r.stats.warp_instructions},
                      {"thread_instructions", r.stats.thread_instructions},
                      {"seconds", r.stats.seconds}};
        std::cout << j.dump(2) << "\n";
    } else {
        for (const auto& w : r.warnings) std::cerr << "warning: " << w << "\n";
        if (faulted) std::cerr << r.status.message << "\n";
    }
    return faulted ? 1 : 0;
}

}  // namespace cli
