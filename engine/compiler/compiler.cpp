// The compiler service: one NVRTC call per distinct (source, path, options), with the include
// shims, ptxas' resource report, diagnostics at the learner's file:line:column and an in-memory
// cache in front.
//
// [SECTION] NVRTC options
// [SECTION] One NVRTC compilation
// [SECTION] Cache and Compiler
// [SECTION] CompileResult queries
#include "compiler/compiler.h"

#include "base/hardware.h"

#include "compiler/compile_helper.h"
#include "compiler/diagnostics.h"
#include "compiler/include_jail.h"
#include "compiler/include_shims.h"
#include "compiler/kernel_names.h"
#include <cstdlib>

#include "compiler/cubin_resources.h"
#include "compiler/ptxas_report.h"

#include <nvrtc.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <future>
#include <list>
#include <mutex>
#include <system_error>
#include <unordered_map>
#include <vector>

namespace cudalab::compiler {
namespace {

// A learner edits one file for a while and autograding compiles each submission once, so a few
// hundred results cover any session; the bound keeps a long-lived process from growing forever.
constexpr size_t cache_capacity = 256;

// Larger than any kernel file; guards against pointing the tool at a data file.
constexpr long max_source_bytes = 16L << 20;

// Static __shared__ declarations are limited to 48 KB per block on every architecture (more needs
// dynamic shared memory and an opt-in at launch).
constexpr int max_static_shared_bytes = int(hw::default_shared_per_block);

// NVRTC needs a file name; a learner's buffer may have none.
constexpr const char* unnamed_program = "kernel.cu";

Diagnostic file_error(const std::string& path, int line, int column, std::string message,
                      std::string context = {}) {
    return Diagnostic{path, line, column, Severity::error, std::move(message), std::move(context)};
}

// ---------------------------------------------------------------------------------------------
// [SECTION] NVRTC options
// ---------------------------------------------------------------------------------------------

// The toolkit's include directories, so that headers NVRTC can parse (<cuda_fp16.h>,
// <cooperative_groups.h>, <cuda/std/...>) resolve. CMake may pass a ;-separated list, and CUDA 13
// keeps libcu++ (needed by cooperative groups) in the cccl subfolder.
}  // namespace

std::vector<std::string> toolkit_include_dirs() {
    std::vector<std::string> dirs;
#ifdef CUDALAB_CUDA_INCLUDE_DIR
    const std::string listed = CUDALAB_CUDA_INCLUDE_DIR;
    size_t pos = 0;
    while (pos <= listed.size()) {
        size_t end = listed.find(';', pos);
        if (end == std::string::npos) end = listed.size();
        if (end > pos) dirs.push_back(listed.substr(pos, end - pos));
        pos = end + 1;
    }
    const size_t listed_count = dirs.size();
    for (size_t i = 0; i < listed_count; ++i) {
        std::error_code error;
        const std::filesystem::path cccl = std::filesystem::path(dirs[i]) / "cccl";
        bool known = false;
        for (const std::string& dir : dirs) known = known || std::filesystem::path(dir) == cccl;
        if (!known && std::filesystem::is_directory(cccl, error)) dirs.push_back(cccl.string());
    }
#endif
    return dirs;
}

namespace {

bool has_option_prefix(const std::vector<std::string>& options, std::string_view prefix) {
    for (const std::string& option : options) {
        if (option.compare(0, prefix.size(), prefix) == 0) return true;
    }
    return false;
}

std::vector<std::string> nvrtc_options(const CompileOptions& options) {
    static const std::vector<std::string> include_dirs = toolkit_include_dirs();
    std::vector<std::string> args;
    args.push_back("--gpu-architecture=" + options.arch);
    // NVRTC rejects a second -std, so a learner's own choice in extra_options wins.
    if (!has_option_prefix(options.extra_options, "-std") &&
        !has_option_prefix(options.extra_options, "--std")) {
        args.push_back("-std=c++17");
    }
    if (options.lineinfo) args.push_back("-lineinfo");
    // ptxas runs (and reports) only for a real architecture; compute_XX stops at PTX.
    if (options.arch.compare(0, 3, "sm_") == 0) args.push_back("-Xptxas=-v");
    args.push_back(std::string("--pre-include=") + prelude_shim_name);
    for (const std::string& dir : include_dirs) args.push_back("-I" + dir);
    args.insert(args.end(), options.extra_options.begin(), options.extra_options.end());
    return args;
}

std::string supported_architectures() {
    int count = 0;
    if (nvrtcGetNumSupportedArchs(&count) != NVRTC_SUCCESS || count <= 0) return {};
    std::vector<int> archs(static_cast<size_t>(count));
    if (nvrtcGetSupportedArchs(archs.data()) != NVRTC_SUCCESS) return {};
    std::string list;
    for (int arch : archs) list += (list.empty() ? "sm_" : ", sm_") + std::to_string(arch);
    return list;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] One NVRTC compilation
// ---------------------------------------------------------------------------------------------

class NvrtcProgram {
  public:
    NvrtcProgram() = default;
    NvrtcProgram(const NvrtcProgram&) = delete;
    NvrtcProgram& operator=(const NvrtcProgram&) = delete;
    ~NvrtcProgram() {
        if (handle) nvrtcDestroyProgram(&handle);
    }
    nvrtcProgram handle = nullptr;
};

std::string program_log(nvrtcProgram program) {
    size_t size = 0;
    if (nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size == 0) return {};
    std::string log(size, '\0');
    if (nvrtcGetProgramLog(program, log.data()) != NVRTC_SUCCESS) return {};
    while (!log.empty() && log.back() == '\0') log.pop_back();
    return log;
}

std::string program_ptx(nvrtcProgram program) {
    size_t size = 0;
    if (nvrtcGetPTXSize(program, &size) != NVRTC_SUCCESS || size <= 1) return {};
    std::string ptx(size, '\0');
    if (nvrtcGetPTX(program, ptx.data()) != NVRTC_SUCCESS) return {};
    while (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();
    return ptx;
}

// Kernels in PTX order, each with what ptxas reported for it.
std::vector<KernelResources> collect_kernels(const std::string& ptx, const PtxasReport& report) {
    std::vector<KernelResources> kernels;
    for (const PtxEntry& entry : ptx_entries(ptx)) {
        const auto found = report.entries.find(entry.mangled_name);
        KernelResources kernel = found != report.entries.end() ? found->second : KernelResources{};
        kernel.mangled_name = entry.mangled_name;
        kernel.source_name = source_name_of(entry.mangled_name);
        kernel.max_threads_per_block = entry.max_threads_per_block;
        kernels.push_back(std::move(kernel));
    }
    // When ptxas failed there may be no PTX, but its report still names the kernels.
    if (kernels.empty()) {
        for (const auto& [mangled, resources] : report.entries) {
            KernelResources kernel = resources;
            kernel.source_name = source_name_of(mangled);
            kernels.push_back(std::move(kernel));
        }
    }
    return kernels;
}

// A failure must always come with a reason. ptxas rejects oversized static shared memory without
// printing an error through NVRTC (verified with NVRTC 13.0), so that case is named here.
void explain_silent_failure(CompileResult& result, nvrtcResult status) {
    for (const Diagnostic& diagnostic : result.diagnostics) {
        if (diagnostic.severity == Severity::error) return;
    }
    for (const KernelResources& kernel : result.kernels) {
        if (kernel.static_shared_bytes > max_static_shared_bytes) {
            result.diagnostics.push_back(file_error(
                result.source_path, 0, 0,
                "kernel '" + kernel.source_name + "' declares " +
                    std::to_string(kernel.static_shared_bytes) +
                    " bytes of static __shared__ memory; a block may declare at most " +
                    std::to_string(max_static_shared_bytes) +
                    " bytes statically (use extern __shared__ and a dynamic size for more)"));
        }
    }
    if (result.diagnostics.empty() || result.diagnostics.back().severity != Severity::error) {
        result.diagnostics.push_back(file_error(result.source_path, 0, 0,
                                                std::string("NVRTC failed (") +
                                                    nvrtcGetErrorString(status) +
                                                    ") without a diagnostic; its log follows",
                                                result.log));
    }
}

// libcu++ (<cuda/std/...>, cooperative groups) defines the <climits> and <cstdint> macros and
// INFINITY under NVRTC without #ifndef; after a shim the spelling differs (the value does not)
// and EDG warns inside the toolkit header. The clash is cudalab's, not the learner's: drop it.
void drop_shim_macro_clashes(std::vector<Diagnostic>& diagnostics, const std::string& path) {
    auto clash = [&path](const Diagnostic& diagnostic) {
        if (diagnostic.severity != Severity::warning || diagnostic.file == path) return false;
        if (diagnostic.message.rfind("incompatible redefinition of macro", 0) != 0) return false;
        for (const IncludeShim& shim : include_shims()) {
            if (diagnostic.message.find(std::string(" of ") + shim.name + ")") != std::string::npos)
                return true;
        }
        return false;
    };
    std::erase_if(diagnostics, clash);
}

// The NUL would silently end the source NVRTC sees (it takes a C string).
// A 0xFF byte (Latin-1 'ÿ', or half of a UTF-16 byte order mark) silently ends it too: NVRTC
// compiles the file as if it stopped there (seen with NVRTC 13.0), so the kernels after it vanish.
bool reject_nul_byte(const std::string& source, CompileResult& result) {
    const size_t nul = source.find_first_of(std::string_view("\0\xff", 2));
    if (nul == std::string::npos) return false;
    int line = 1;
    size_t line_start = 0;
    for (size_t i = 0; i < nul; ++i) {
        if (source[i] == '\n') {
            ++line;
            line_start = i + 1;
        }
    }
    result.diagnostics.push_back(
        file_error(result.source_path, line, static_cast<int>(nul - line_start) + 1,
                   source[nul] == '\0'
                       ? "the file contains a NUL byte; is it a binary file?"
                       : "the file contains the byte 0xFF, which the compiler takes for the end "
                         "of the file; save the file as UTF-8 (is it Latin-1 or UTF-16?)"));
    return true;
}

std::shared_ptr<CompileResult> run_nvrtc(const std::string& source, const std::string& path,
                                         const CompileOptions& options) {
    auto result = std::make_shared<CompileResult>();
    result->source_path = path;
    if (reject_nul_byte(source, *result)) return result;

    // Messages are mapped back to `path`. No folder: nothing is found relative to it.
    const std::string program_name = nvrtc_program_name(path);
    const std::vector<std::string> args = nvrtc_options(options);
    std::vector<const char*> arg_pointers;
    for (const std::string& arg : args) arg_pointers.push_back(arg.c_str());
    std::vector<const char*> header_texts;
    std::vector<const char*> header_names;
    for (const IncludeShim& shim : include_shims()) {
        header_texts.push_back(shim.text);
        header_names.push_back(shim.name);
    }
    for (const auto& [name, text] : options.headers) {
        header_texts.push_back(text.c_str());
        header_names.push_back(name.c_str());
    }

    const auto start = std::chrono::steady_clock::now();
    NvrtcProgram program;
    nvrtcResult status = nvrtcCreateProgram(&program.handle, source.c_str(), program_name.c_str(),
                                            static_cast<int>(header_texts.size()),
                                            header_texts.data(), header_names.data());
    if (status != NVRTC_SUCCESS) {
        result->diagnostics.push_back(file_error(path, 0, 0,
                                                 std::string("NVRTC could not create a program: ") +
                                                     nvrtcGetErrorString(status)));
        return result;
    }
    status = nvrtcCompileProgram(program.handle, static_cast<int>(arg_pointers.size()),
                                 arg_pointers.data());
    result->log = program_log(program.handle);
    result->ptx = program_ptx(program.handle);
    result->seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

    const PtxasReport report = parse_ptxas_report(result->log);
    result->diagnostics =
        parse_nvrtc_log(report.front_end_log, LogSource{program_name, path, source});
    drop_shim_macro_clashes(result->diagnostics, path);
    // A host-only header is the usual cause of a missing include in a kernel file: say so.
    for (Diagnostic& d : result->diagnostics)
        if (d.message.find("cannot open source file") != std::string::npos)
            d.context += std::string(d.context.empty() ? "" : "\n") +
                         "  note: a kernel file is compiled for the GPU only; it can include "
                         "<cstdio>, <cstdint>, <cmath>, "
                         "<cuda_runtime.h>, <cuda_fp16.h> and the like, not host headers such as "
                         "<vector> or <iostream>";
    // Thread block clusters exist from sm_90 on: the front end's words for them on an older target
    // ("__cluster_dims__ is not supported", "no member cluster_group", ptxas on mapa or
    // barrier.cluster) do not say that the target is the cause.
    const int target_sm =
        options.arch.compare(0, 3, "sm_") == 0 || options.arch.compare(0, 8, "compute_") == 0
            ? std::atoi(options.arch.c_str() + options.arch.find('_') + 1)
            : 0;
    auto about_clusters = [](const std::string& text) {
        return text.find("cluster") != std::string::npos || text.find("mapa") != std::string::npos;
    };
    const std::string cluster_note =
        "  note: thread block clusters (__cluster_dims__, cooperative_groups::this_cluster(), "
        "distributed shared memory, cluster barriers) need sm_90 or later; this file is compiled "
        "for " +
        options.arch;
    bool noted = false;
    if (target_sm > 0 && target_sm < 90)
        for (Diagnostic& d : result->diagnostics)
            if (!noted && about_clusters(d.message)) {
                d.context += std::string(d.context.empty() ? "" : "\n") + cluster_note;
                noted = true;
            }
    for (const PtxasMessage& message : report.messages) {
        Diagnostic diagnostic{path, 0, 0, message.severity, "ptxas: " + message.text, {}};
        if (target_sm > 0 && target_sm < 90 && !noted && about_clusters(message.text)) {
            diagnostic.context = cluster_note;
            noted = true;
        }
        result->diagnostics.push_back(std::move(diagnostic));
    }
    result->kernels = collect_kernels(result->ptx, report);
    result->ok = status == NVRTC_SUCCESS && !result->ptx.empty();
    // No ptxas report in the log (see cubin_resources.h): read the cubin instead.
    if (result->ok && report.entries.empty() && options.arch.compare(0, 3, "sm_") == 0) {
        std::size_t size = 0;
        if (nvrtcGetCUBINSize(program.handle, &size) == NVRTC_SUCCESS && size > 0) {
            std::vector<char> cubin(size);
            if (nvrtcGetCUBIN(program.handle, cubin.data()) == NVRTC_SUCCESS) {
                const int sm = std::atoi(options.arch.c_str() + 3);
                const auto from_cubin = cubin_resources(cubin, sm);
                for (KernelResources& k : result->kernels) {
                    auto it = from_cubin.find(k.mangled_name);
                    if (it == from_cubin.end()) continue;
                    k.registers = it->second.registers;
                    k.static_shared_bytes = it->second.static_shared_bytes;
                    k.barriers = it->second.barriers;
                    k.stack_frame_bytes = it->second.stack_frame_bytes;
                    k.resources_from_cubin = true;
                }
            }
        }
    }

    if (status == NVRTC_ERROR_INVALID_OPTION) {
        const std::string archs = supported_architectures();
        if (!archs.empty() && !result->diagnostics.empty()) {
            std::string& context = result->diagnostics.front().context;
            context += (context.empty() ? "" : "\n") + std::string("  requested ") + options.arch +
                       "; supported: " + archs;
        }
    }
    if (!result->ok) explain_silent_failure(*result, status);
    return result;
}

// The jail: the #include check here, then NVRTC in the helper process (compile_helper.h).
std::shared_ptr<CompileResult> jailed_compile(const std::string& source, const std::string& path,
                                              const CompileOptions& options) {
    IncludePolicy policy;
    static const std::vector<std::string> dirs = toolkit_include_dirs();
    policy.toolkit_dirs = dirs;
    for (const IncludeShim& shim : include_shims()) policy.extra_names.push_back(shim.name);
    for (const auto& header : options.headers) policy.extra_names.push_back(header.first);
    std::vector<Diagnostic> refused = check_includes(source, path, policy);
    if (!refused.empty()) {
        auto result = std::make_shared<CompileResult>();
        result->source_path = path;
        result->diagnostics = std::move(refused);
        return result;
    }
    if (!options.limits.isolate) return run_nvrtc(source, path, options);
    return compile_in_helper(source, path, options);
}

std::shared_ptr<CompileResult> internal_failure(const std::string& path, const std::string& what) {
    auto result = std::make_shared<CompileResult>();
    result->source_path = path;
    result->diagnostics.push_back(
        file_error(path, 0, 0, "cudalab's compiler service failed: " + what));
    return result;
}

// Length-prefixed fields, so that no two different inputs give the same key.
std::string cache_key(const std::string& source, const std::string& path,
                      const CompileOptions& options) {
    std::string key;
    auto field = [&key](std::string_view value) {
        key += std::to_string(value.size());
        key += ':';
        key.append(value);
    };
    field(options.arch);
    field(options.lineinfo ? "lineinfo" : "");
    for (const std::string& option : options.extra_options) field(option);
    for (const auto& [name, text] : options.headers) {
        field(name);
        field(text);
    }
    key += options.limits.isolate ? "|isolated" : "|in-process";
    key += '|';
    field(path);
    field(source);
    return key;
}

}  // namespace

std::string nvrtc_program_name(const std::string& path) {
    std::string name = path.empty() ? std::string(unnamed_program)
                                    : std::filesystem::path(path).filename().string();
    for (char& c : name)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' && c != '-')
            c = '_';
    if (name.empty() || name[0] == '.') name = unnamed_program;
    return name;
}

std::shared_ptr<CompileResult> compile_in_process(const std::string& source,
                                                  const std::string& path,
                                                  const CompileOptions& options) {
    return run_nvrtc(source, path, options);
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Cache and Compiler
// ---------------------------------------------------------------------------------------------

using ResultPtr = std::shared_ptr<const CompileResult>;

// Results by key with least-recently-used eviction. A compile of a key already in flight is
// waited for rather than repeated (autograding may submit the same file from several threads).
struct Compiler::Cache {
    struct Entry {
        ResultPtr result;  // the copy marked from_cache, handed out on every hit
        std::list<std::string>::iterator recency;
    };
    std::mutex mutex;
    std::unordered_map<std::string, Entry> entries;
    std::list<std::string> recency;  // most recently used first
    std::unordered_map<std::string, std::shared_future<ResultPtr>> in_flight;
};

Compiler::Compiler() : cache_(std::make_unique<Cache>()) {}
Compiler::~Compiler() = default;

std::shared_ptr<const CompileResult> Compiler::compile(const std::string& source,
                                                       const std::string& path,
                                                       const CompileOptions& options) {
    const std::string key = cache_key(source, path, options);
    std::promise<ResultPtr> promise;
    std::shared_future<ResultPtr> pending;
    {
        std::lock_guard lock(cache_->mutex);
        if (auto found = cache_->entries.find(key); found != cache_->entries.end()) {
            cache_->recency.splice(cache_->recency.begin(), cache_->recency, found->second.recency);
            return found->second.result;
        }
        if (auto found = cache_->in_flight.find(key); found != cache_->in_flight.end()) {
            pending = found->second;
        } else {
            cache_->in_flight.emplace(key, promise.get_future().share());
        }
    }
    if (pending.valid()) return pending.get();

    std::shared_ptr<CompileResult> fresh;
    try {
        fresh = jailed_compile(source, path, options);
    } catch (const std::exception& error) {
        fresh = internal_failure(path, error.what());
    } catch (...) {
        fresh = internal_failure(path, "unknown exception");
    }
    auto cached = std::make_shared<CompileResult>(*fresh);
    fresh->compiled_seconds = fresh->seconds;
    cached->from_cache = true;
    cached->seconds = 0;
    cached->compiled_seconds = fresh->seconds;
    {
        std::lock_guard lock(cache_->mutex);
        if (!cached->limit_reached) {
            cache_->recency.push_front(key);
            cache_->entries[key] = Cache::Entry{cached, cache_->recency.begin()};
        }
        while (cache_->entries.size() > cache_capacity) {
            cache_->entries.erase(cache_->recency.back());
            cache_->recency.pop_back();
        }
        cache_->in_flight.erase(key);
    }
    promise.set_value(cached);
    return fresh;
}

std::shared_ptr<const CompileResult> Compiler::compile_file(const std::string& path,
                                                            const CompileOptions& options) {
    auto cannot_read = [&path](const std::string& why) {
        auto result = std::make_shared<CompileResult>();
        result->source_path = path;
        result->diagnostics.push_back(file_error(path, 0, 0, "cannot read " + path + ": " + why));
        return result;
    };
    std::error_code error;
    if (std::filesystem::is_directory(path, error)) return cannot_read("it is a directory");
    // A FIFO would block the read for ever, a device never end; a link to a system file would
    // put that file's lines in the compiler's messages. Only a regular file outside the system's
    // special folders is read.
    const std::filesystem::path real = std::filesystem::canonical(path, error);
    if (!error && !std::filesystem::is_regular_file(real, error))
        return cannot_read("it is not a regular file");
    if (!error) {
        const std::string r = real.string();
        for (const char* special : {"/proc/", "/sys/", "/dev/", "/etc/", "/run/"})
            if (r.rfind(special, 0) == 0)
                return cannot_read("it is (a link to) " + r + ", a system file, not a kernel file");
    }
    std::FILE* file = std::fopen(path.c_str(), "rb");
    if (!file) return cannot_read(std::error_code(errno, std::generic_category()).message());
    std::string source;
    char buffer[1 << 16];
    size_t count = 0;
    while ((count = std::fread(buffer, 1, sizeof buffer, file)) > 0) {
        source.append(buffer, count);
        if (static_cast<long>(source.size()) > max_source_bytes) {
            std::fclose(file);
            return cannot_read("larger than " + std::to_string(max_source_bytes >> 20) +
                               " MB; is it a kernel file?");
        }
    }
    const bool failed = std::ferror(file) != 0;
    std::fclose(file);
    if (failed) return cannot_read("read error");
    return compile(source, path, options);
}

std::string Compiler::nvrtc_version() const {
    int major = 0;
    int minor = 0;
    if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "NVRTC (unknown version)";
    return "NVRTC " + std::to_string(major) + "." + std::to_string(minor);
}

// ---------------------------------------------------------------------------------------------
// [SECTION] CompileResult queries
// ---------------------------------------------------------------------------------------------

const KernelResources* CompileResult::kernel(const std::string& name) const {
    for (const KernelResources& k : kernels) {
        if (k.source_name == name || k.mangled_name == name) return &k;
    }
    // "scale" for the one instantiation scale<float>, "add" for ns::add: accepted when unique.
    const KernelResources* match = nullptr;
    for (const KernelResources& k : kernels) {
        if (unqualified_name(k.source_name) != name) continue;
        if (match) return nullptr;  // ambiguous: the caller must spell it out
        match = &k;
    }
    return match;
}

std::string CompileResult::mangled_name(const std::string& name) const {
    const KernelResources* found = kernel(name);
    return found ? found->mangled_name : std::string();
}

std::string CompileResult::error_text() const {
    std::string text;
    for (const Diagnostic& diagnostic : diagnostics) {
        if (diagnostic.severity == Severity::error) text += format_diagnostic(diagnostic);
    }
    if (text.empty() && !ok) text = source_path + ": error: compilation failed\n";
    return text;
}

}  // namespace cudalab::compiler
