#include "cudart/work.h"
#include "cudart/cluster.h"
#include "cudart/executor.h"
#include "cudart/managed.h"
#include "cudart/program_link.h"
#include "cudart/program_memory.h"
#include "cudart/vmm.h"
#include "trace/trace_io.h"

#include <cuda_runtime_api.h>
#include <cxxabi.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

namespace cudalab::cudart {

namespace {

std::string hex(std::uint64_t v) {
    std::ostringstream s;
    s << "0x" << std::hex << v;
    return s.str();
}

std::string quoted(const std::string& s) { return json_string(s); }

// The engines the model schedules: the SMs, and the H200's three copy engines (DeviceModel).
enum Engine { compute = 0, copy_in = 1, copy_out = 2, copy_device = 3 };

}  // namespace

// [SECTION] Names and errors
// ------------------------------------------------------------------------

std::string kernel_display_name(const std::string& entry) {
    int status = 0;
    char* d = abi::__cxa_demangle(entry.c_str(), nullptr, nullptr, &status);
    std::string name = status == 0 && d ? d : entry;
    std::free(d);
    // Keep "ns::kernel<T>" without the parameter list.
    int depth = 0;
    for (std::size_t i = 0; i < name.size(); ++i) {
        if (name[i] == '<') ++depth;
        else if (name[i] == '>') --depth;
        else if (name[i] == '(' && depth == 0) return name.substr(0, i);
    }
    return name;
}

int error_for_fault(const std::string& message) {
    // The kind is on the first line ("file:line: error: KIND in kernel ..."); later lines quote
    // the learner's source, which may say anything.
    const std::string m = message.substr(0, message.find('\n'));
    if (m.find("assertion failed") != std::string::npos) return cudaErrorAssert;
    if (m.find("misaligned") != std::string::npos) return cudaErrorMisalignedAddress;
    if (m.find("instruction budget") != std::string::npos) return cudaErrorLaunchTimeout;
    if (m.find("unsupported instruction") != std::string::npos ||
        m.find("cannot run this code") != std::string::npos)
        return cudaErrorNotSupported;
    if (m.find(": trap") != std::string::npos || m.find("error: trap") != std::string::npos)
        return cudaErrorLaunchFailure;
    if (m.find("deadlock") != std::string::npos ||
        m.find("divergent __syncthreads") != std::string::npos)
        return cudaErrorLaunchTimeout;  // a GPU hangs until the watchdog or the user stops it
    if (m.find("race") != std::string::npos) return cudaErrorLaunchFailure;
    return cudaErrorIllegalAddress;
}

// [SECTION] The modelled timeline
// --------------------------------------------------------------------

double stream_ready(Stream* s) {
    Runtime& rt = Runtime::get();
    DeviceState& d = rt.devices[std::size_t(s->device)];
    double ready = s->tail;
    if (s->legacy) {
        // The legacy default stream waits for every blocking stream of its device...
        for (auto& other : d.streams)
            if (!(other->flags & cudaStreamNonBlocking)) ready = std::max(ready, other->tail);
        for (Stream* other : rt.streams)
            if (other->device == s->device && !(other->flags & cudaStreamNonBlocking))
                ready = std::max(ready, other->tail);
    } else if (!(s->flags & cudaStreamNonBlocking)) {
        // ... and every blocking stream waits for it.
        ready = std::max(ready, d.streams[0]->tail);
    }
    return ready;
}

void place(Stream* s, double start, double end, const std::string& name, const char* category,
           std::vector<std::pair<std::string, std::string>> args) {
    Runtime& rt = Runtime::get();
    s->tail = std::max(s->tail, end);
    if (rt.timeline.enabled) {
        if (!s->legacy && !s->per_thread)
            rt.timeline.name_stream(1 + s->device, s->id, "stream " + std::to_string(s->id));
        TimelineEvent e;
        e.name = name;
        e.category = category;
        e.process = 1 + s->device;
        e.thread = s->id;
        e.start_ns = start;
        e.end_ns = end;
        e.args = std::move(args);
        if (rt.graph_exec_running) {
            e.args.push_back({"graph_exec", std::to_string(rt.graph_exec_running)});
            e.args.push_back({"graph_node", std::to_string(rt.graph_node_running)});
        }
        rt.timeline.add(std::move(e));
    }
}

void record_page_moves(Runtime& rt, int device, double start, double end, const char* cause) {
    if (!rt.timeline.enabled) return;
    const auto moves = managed::take_moves();
    if (moves.empty()) return;
    constexpr int page_row = 99999;  // a row of its own beside the streams
    rt.timeline.name_stream(1 + device, page_row, "managed pages");
    for (const auto& m : moves) {
        TimelineEvent e;
        e.name = m.to_device ? "pages to device" : "pages to host";
        e.category = "page";
        e.process = 1 + device;
        e.thread = page_row;
        e.start_ns = start;
        e.end_ns = std::max(start, end);
        e.args = {{"allocation", quoted(hex(m.base))},
                  {"allocation_pages", std::to_string(m.allocation_pages)},
                  {"first_page", std::to_string(m.first)},
                  {"pages", std::to_string(m.count)},
                  {"bytes", std::to_string(m.count * managed::page_bytes)},
                  {"to", m.to_device ? "\"device\"" : "\"host\""},
                  {"cause", quoted(cause)}};
        rt.timeline.add(std::move(e));
    }
}

void wait_stream(Stream* s) {
    Runtime& rt = Runtime::get();
    rt.host_advance_to(stream_ready(s) + rt.model.sync_cost * 1e9);
    rt.ordering.host_waits(s);
    rt.flush_printf();
}

void wait_device(int device) {
    Runtime& rt = Runtime::get();
    double end = 0;
    for (auto& s : rt.devices[std::size_t(device)].streams) end = std::max(end, s->tail);
    for (Stream* s : rt.streams)
        if (s->device == device) end = std::max(end, s->tail);
    rt.host_advance_to(end + rt.model.sync_cost * 1e9);
    rt.ordering.host_waits_device(device);
    rt.flush_printf();
}

// [SECTION] Kernels
// ---------------------------------------------------------------------------------

namespace {

// Pointer-sized arguments that hold host addresses, for the fault message (the classic mistake:
// passing the host array to the kernel).
std::string host_pointer_arguments(const KernelWork& k) {
    Runtime& rt = Runtime::get();
    std::string found;
    std::ifstream maps(program::pid() ? "/proc/" + std::to_string(program::pid()) + "/maps"
                                      : std::string("/proc/self/maps"));
    std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
    std::string line;
    while (std::getline(maps, line)) {
        std::uint64_t lo = 0, hi = 0;
        if (std::sscanf(line.c_str(), "%lx-%lx", &lo, &hi) == 2) ranges.push_back({lo, hi});
    }
    for (std::size_t i = 0; i < k.args.size(); ++i) {
        if (k.args[i].bytes.size() != 8) continue;
        std::uint64_t v;
        std::memcpy(&v, k.args[i].bytes.data(), 8);
        if (!v || rt.record_of(reinterpret_cast<void*>(v))) continue;
        for (auto [lo, hi] : ranges)
            if (v >= lo && v < hi) {
                found += "\n  note: argument " + std::to_string(i) + " (" + hex(v) +
                         ") is an address in host memory (malloc, new, a local array): a kernel "
                         "cannot read it; "
                         "cudaMalloc a device buffer, cudaMemcpy the data into it and pass that";
                break;
            }
    }
    return found;
}

double kernel_seconds(Function& f, const LaunchResult& r, const LaunchConfig& c, bool in_graph) {
    const DeviceModel& m = Runtime::get().model;
    double bytes = 0, replays = 0;
    if (r.trace) {
        for (const auto& pc : r.trace->per_pc) {
            bytes += double(pc.sectors) * 32.0;
            // Shared-memory bank conflicts: every wavefront past the ideal is a replay.
            if (pc.shared_wavefronts > pc.shared_ideal_wavefronts)
                replays += double(pc.shared_wavefronts - pc.shared_ideal_wavefronts);
        }
        ++f.traced_launches;
        // The kernel's figures for the result file (lessons read them, e.g. constant-cache
        // requests per constant load).
        f.traced_warp_instructions += r.stats.warp_instructions;
        for (std::size_t i = 0; i < r.trace->per_pc.size(); ++i) {
            const PcCounters& pc = r.trace->per_pc[i];
            f.constant_loads += pc.constant_loads;
            f.constant_requests += pc.constant_requests;
            if (i < r.trace->pcs.size() && r.trace->pcs[i].opcode.rfind("ld", 0) == 0) {
                f.global_load_requests += pc.requests;
                f.global_load_sectors += pc.sectors;
            }
        }
        if (r.stats.warp_instructions) {
            f.bytes_per_warp_instruction = bytes / double(r.stats.warp_instructions);
            f.replays_per_warp_instruction = replays / double(r.stats.warp_instructions);
        }
    } else {
        bytes = f.bytes_per_warp_instruction * double(r.stats.warp_instructions);
        replays = f.replays_per_warp_instruction * double(r.stats.warp_instructions);
    }
    const double blocks = double(c.grid.count());
    const double sms = std::min<double>(m.sm_count, std::max(1.0, blocks));
    // A bank-conflicted shared access replays: one more shared-memory wavefront per conflict, and
    // an SM's shared memory serves one wavefront a cycle.
    const double issue =
        double(r.stats.warp_instructions) / (sms * m.warp_instructions_per_sm_cycle * m.clock_hz) +
        replays / (sms * m.clock_hz);
    const double memory = bytes / m.hbm_bandwidth;
    // A block's warps issue one after another at best, so a kernel is never shorter than its
    // longest block's instructions spread over the SM's schedulers.
    return std::max(issue, memory) + (in_graph ? m.graph_node_latency : m.launch_latency) * 0.5 +
           1.0e-6;
}

int run_kernel(Stream* s, const KernelWork& k, const char* api, bool in_graph) {
    Runtime& rt = Runtime::get();
    Function* f = k.function;
    const std::string name = kernel_display_name(f->entry);
    std::string error;
    emu::Emulator* e = rt.emulator_for(*f->module, s->device, &error);
    if (!e) {
        rt.say_once("module:" + error, "cannot run kernel '" + name + "': " + error);
        return f->module->images.ptx.empty() || f->module->no_image
                   ? cudaErrorNoKernelImageForDevice
                   : cudaErrorInvalidPtx;
    }
    const DeviceModel& m = rt.model;
    if (k.config.dynamic_shared_bytes > std::uint32_t(f->max_dynamic_shared)) {
        rt.warn(std::string(api) + ": kernel '" + name + "' asks for " +
                std::to_string(k.config.dynamic_shared_bytes) +
                " bytes of dynamic shared memory; above 48 KB a kernel must first allow it with "
                "cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes) "
                "(now " +
                std::to_string(f->max_dynamic_shared) + ")");
        return cudaErrorInvalidValue;
    }
    // Thread block clusters: the launch's dimensions, or the kernel's __cluster_dims__.
    LaunchConfig launch_config = k.config;
    if (cudaError_t ce = check_cluster_launch(rt, *f, launch_config, api, name)) return ce;
    if (k.cooperative) {
        const std::uint64_t threads = k.config.block.count();
        const std::uint64_t per_sm =
            threads ? std::min<std::uint64_t>(m.max_blocks_per_sm, m.max_threads_per_sm / threads)
                    : 0;
        if (k.config.grid.count() > per_sm * std::uint64_t(m.sm_count))
            return cudaErrorCooperativeLaunchTooLarge;
    }
    // The modelled duration needs the bytes a kernel moves, which only a traced launch counts.
    // Tracing costs about a fifth of the speed, so a kernel's first launches are traced and later
    // ones reuse their bytes per warp instruction (a kernel's access pattern rarely changes
    // between launches; 300 launches of matrixMul would otherwise take a third longer).
    TraceOptions trace;
    trace.enabled = f->traced_launches < 2;
    trace.auto_detail_blocks = 0;
    trace.max_events = 0;
    trace.writers = false;
    // Faults injected on purpose (CUDALAB_INJECT), before the kernel runs.
    const std::uint64_t injected_at = ++rt.kernel_launches;
    if (rt.inject("launch-config", injected_at)) {
        rt.warn(std::string(api) + ": kernel '" + name + "' (launch #" +
                std::to_string(injected_at) +
                ") refused as an invalid configuration, injected by CUDALAB_INJECT=launch-config:" +
                std::to_string(injected_at) +
                "; CUDA 13 returns cudaErrorInvalidValue from the launch and from "
                "cudaGetLastError, and the device carries on");
        return cudaErrorInvalidValue;
    }
    if (rt.inject("illegal-address", injected_at)) {
        const double start =
            std::max(stream_ready(s), rt.issue_time() + (in_graph ? 0.0 : m.launch_latency * 1e9));
        place(s, start, start + m.launch_latency * 1e9, name, "kernel",
              {{"grid", quoted(k.config.grid.str())},
               {"block", quoted(k.config.block.str())},
               {"injected", "\"illegal-address\""}});
        std::string message =
            "kernel '" + name + "' (launch #" + std::to_string(injected_at) +
            ") read an unmapped address, injected by CUDALAB_INJECT=illegal-address:" +
            std::to_string(injected_at);
        const std::string site = caller_site();
        if (!site.empty()) message += "\n  launched at " + site;
        rt.warn(message + "; CUDA reports it as cudaErrorIllegalAddress at the next synchronising "
                          "call, and every call after (the context is lost)");
        rt.set_sticky(s->device, cudaErrorIllegalAddress, message);
        return cudaSuccess;
    }
    const std::uint64_t launch_number = ++rt.launches;
    const bool keep_trace = !rt.trace_path.empty() && !rt.trace_kept &&
                            (rt.trace_launch == 0 || rt.trace_launch == launch_number);
    if (keep_trace) trace = TraceOptions{};  // full detail for the first blocks, writers recorded
    const auto started = std::chrono::steady_clock::now();
    // Pages the host moved since the last look (stamped now: the runtime sees them only here).
    record_page_moves(rt, s->device, rt.issue_time(), rt.issue_time(), "host touch");
    const std::uint32_t op = rt.ordering.begin(s, "kernel '" + name + "'");
    managed::enter_device();
    link::registered_in();
    LaunchConfig config = launch_config;
    config.cooperative = k.cooperative;
    // The device's printf buffer (cudaDeviceSetLimit(cudaLimitPrintfFifoSize)); what does not fit
    // is lost, as on a GPU, and the kernel runs on. Held in memory here, so capped.
    const std::uint64_t fifo = rt.devices[std::size_t(s->device)].printf_fifo;
    e->options().printf_limit = std::min<std::uint64_t>(fifo, max_printf_fifo_bytes);
    e->options().printf_overflow_drops = true;
    if (!e->options().error_text)
        e->options().error_text = [](int code, bool name) -> std::string {
            return name ? cudaGetErrorName(cudaError_t(code))
                        : cudaGetErrorString(cudaError_t(code));
        };
    e->options().device_pending_launch_limit =
        std::uint32_t(rt.devices[std::size_t(s->device)].pending_launch_count);
    LaunchResult r;
    {
        LetOthersIn meanwhile;  // queued: the program's next launches are queued while this runs
        r = e->launch(f->entry, name, config, k.args, trace);
    }
    managed::leave_device();
    link::registered_out();
    rt.ordering.touch(op, r.footprint);
    if (rt.provenance.enabled()) {
        // What this kernel wrote is now the kernel's; what it wrote into memory the host reaches
        // directly (mapped, managed) reached the host as it stands now.
        const int who = rt.provenance.kernel_index(name);
        rt.provenance.kernel_wrote(r.footprint, who);
        for (const MemorySpan& span : r.footprint) {
            if (!span.write) continue;
            const MemoryRecord* rec = rt.record_of(reinterpret_cast<const void*>(span.lo));
            if (!rec || !rec->mapped) continue;
            const std::uint64_t hi = std::min(span.hi, rec->base + rec->size);
            if (const void* local = program::local_view(span.lo, hi - span.lo))
                rt.provenance.delivered_by_kernel(span.lo, static_cast<const std::uint8_t*>(local),
                                                  hi - span.lo, who);
        }
    }
    ++f->launches;
    f->warp_instructions += r.stats.warp_instructions;
    (void)started;  // the call's whole time leaves the host clock (ApiCall)
    if (r.status.code == StatusCode::bad_usage) {
        // Configuration errors are the launch's own result, not sticky (as cudaLaunchKernel).
        rt.warn(std::string(api) + ": " + r.status.message);
        const bool config = r.status.message.find("invalid configuration") != std::string::npos &&
                            r.status.message.find("parameter") == std::string::npos &&
                            r.status.message.find("passes") == std::string::npos;
        // CUDA 13 reports every invalid launch configuration as cudaErrorInvalidValue (measured on
        // an H200 with CUDA 13.0: blocks over 1024 threads, empty grids, gridDim.y over 65535).
        (void)config;
        return cudaErrorInvalidValue;
    }
    if (r.status.code == StatusCode::compile_error) {
        // The kernel holds (or calls) an instruction the emulator cannot run: this launch's own
        // result, not sticky, so the program's other kernels still run (docs/emulator.md).
        rt.warn(std::string(api) + ": " + r.status.message);
        return cudaErrorNotSupported;
    }
    if (keep_trace && r.trace) {
        std::string error;
        if (!write_trace(*r.trace, rt.trace_path, &error))
            rt.say_once("trace-write", "cannot write the trace: " + error);
        // A chosen launch, or one that faulted, is the one worth keeping.
        if (rt.trace_launch || !r.status.ok()) rt.trace_kept = true;
    }
    rt.pending_printf += r.printf_output;
    if (r.printf_dropped_bytes) {
        const std::uint64_t kept = e->options().printf_limit;
        rt.warn("kernel '" + name + "' printed more with printf than the device's printf buffer " +
                "holds (" + std::to_string(kept) + " bytes" +
                (kept < fifo ? ", the most cudalab keeps" : "") + "): as on a GPU, " +
                std::to_string(r.printf_dropped_bytes) +
                " bytes of its output were lost and the kernel ran on (no error). Print less (a "
                "few threads, or a summary), or make the buffer larger before the first launch: "
                "cudaDeviceSetLimit(cudaLimitPrintfFifoSize, bytes)");
    }
    const double start =
        std::max({stream_ready(s), rt.issue_time() + (in_graph ? 0.0 : m.launch_latency * 1e9),
                  k.config.grid.count() >= std::uint64_t(m.sm_count)
                      ? rt.devices[std::size_t(s->device)].engine_free[compute]
                      : 0.0});
    const double end = start + kernel_seconds(*f, r, k.config, in_graph) * 1e9;
    if (k.config.grid.count() >= std::uint64_t(m.sm_count))
        rt.devices[std::size_t(s->device)].engine_free[compute] = end;
    record_page_moves(rt, s->device, start, end, "kernel touch");
    place(s, start, end, name, "kernel",
          {{"grid", quoted(k.config.grid.str())},
           {"block", quoted(k.config.block.str())},
           {"dynamic_shared", std::to_string(k.config.dynamic_shared_bytes)},
           {"warp_instructions", std::to_string(r.stats.warp_instructions)},
           {"graph", in_graph ? "true" : "false"},
           // The launch's number, for CUDALAB_TRACE_LAUNCH (the app offers to trace it).
           {"launch", std::to_string(launch_number)}});
    if (!r.status.ok()) {
        const int code = error_for_fault(r.status.message);
        std::string site = caller_site();
        std::string message =
            r.status.message + host_pointer_arguments(k) + vmm::fault_note(r.status.message);
        if (!site.empty()) message += "\n  launched at " + site;
        rt.flush_printf();
        if (code == cudaErrorAssert) {
            // The line a GPU itself prints for a failed device assert (programs' tests look for
            // it).
            std::smatch where, block, cond;
            const std::string& m = r.status.message;
            if (std::regex_search(m, where,
                                  std::regex("^([^\\n]*):(\\d+): error: assertion failed")) &&
                std::regex_search(
                    m, block,
                    std::regex(
                        "block \\((\\d+),(\\d+),(\\d+)\\), thread \\((\\d+),(\\d+),(\\d+)\\)")) &&
                std::regex_search(m, cond, std::regex("assert\\((.*)\\) failed(?: in ([^\\n]*))?")))
                std::fprintf(
                    stderr,
                    "%s:%s: %s: block: [%s,%s,%s], thread: [%s,%s,%s] Assertion `%s` failed.\n",
                    where[1].str().c_str(), where[2].str().c_str(),
                    cond[2].matched ? cond[2].str().c_str() : name.c_str(), block[1].str().c_str(),
                    block[2].str().c_str(), block[3].str().c_str(), block[4].str().c_str(),
                    block[5].str().c_str(), block[6].str().c_str(), cond[1].str().c_str());
        }
        rt.warn("kernel '" + name + "' stopped with an error; CUDA reports it as " +
                cudaGetErrorName(cudaError_t(code)) +
                " at the next synchronising call, and every call after (the context is lost):\n" +
                message);
        rt.set_sticky(s->device, code, message);
    }
    return cudaSuccess;
}

// [SECTION] Copies and sets
// -------------------------------------------------------------------------

struct Side {
    bool device = false;  // emulated device memory (not host memory reached by mapping)
    bool pinned = false;  // page-locked host memory
    int device_of = -1;
};

Side classify(const void* p) {
    Runtime& rt = Runtime::get();
    Side side;
    if (const MemoryRecord* r = rt.record_of(p)) {
        side.device = r->kind == MemoryKind::device || r->kind == MemoryKind::pool ||
                      r->kind == MemoryKind::managed;
        side.pinned = r->kind == MemoryKind::pinned_host || r->kind == MemoryKind::registered_host;
        side.device_of = r->device;
    } else if (const emu::Allocation* a = rt.memory->find(reinterpret_cast<std::uint64_t>(p), 1);
               a && !a->host) {
        side.device = true;  // a module's __device__ variable, the device heap
        side.device_of = rt.current_device();
    } else if (reinterpret_cast<std::uint64_t>(p) >= emu::global_base &&
               reinterpret_cast<std::uint64_t>(p) < emu::global_base + (1ull << 40)) {
        side.device = true;  // in the device's address range but in no allocation:
                             // check_device_range says why
    }
    return side;
}

// Checks that [p, p+bytes) of emulated device memory is inside one live allocation.
int check_device_range(const void* p, std::uint64_t bytes, const char* what, const char* api) {
    Runtime& rt = Runtime::get();
    const auto a = reinterpret_cast<std::uint64_t>(p);
    const emu::Allocation* alloc = rt.memory->find(a, 1);
    if (!alloc) {
        if (a >= emu::global_base && a < emu::global_base + (1ull << 40))
            rt.warn(std::string(api) + ": the " + what + " " + hex(a) +
                    " is not in any device allocation (freed, or never allocated)");
        return cudaErrorInvalidValue;
    }
    if (alloc->freed) {
        rt.warn(std::string(api) + ": the " + what + " " + hex(a) +
                " is in memory that was already freed (use after cudaFree)");
        return cudaErrorInvalidValue;
    }
    if (bytes > alloc->size - (a - alloc->base)) {
        const MemoryRecord* rec = rt.record_of(p);
        rt.warn(std::string(api) + ": the copy of " + std::to_string(bytes) + " bytes runs " +
                std::to_string(bytes - (alloc->size - (a - alloc->base))) +
                " bytes past the end of the " + what + "'s allocation (" +
                std::to_string(alloc->size) + " bytes" +
                [&] {
                    std::string site = rec ? site_of(rec->allocated_at) : std::string();
                    return site.empty() ? std::string() : ", allocated at " + site;
                }() +
                ")");
        return cudaErrorInvalidValue;
    }
    return cudaSuccess;
}

// When `p` is in the host's copy of a __constant__ or __device__ variable (what the variable's
// name means in host code), how to reach the GPU's copy instead; "" otherwise.
std::string symbol_note(const void* p, bool to_device) {
    Runtime& rt = Runtime::get();
    auto it = rt.variables.upper_bound(p);
    if (it == rt.variables.begin()) return "";
    --it;
    const auto* base = static_cast<const std::uint8_t*>(it->first);
    if (static_cast<const std::uint8_t*>(p) >= base + it->second->size) return "";
    const std::string& name = it->second->name;
    const char* what = it->second->constant ? "__constant__" : "__device__";
    return std::string("; it is the host's copy of the ") + what + " variable '" + name + "': " +
           (to_device ? "copy into the GPU's with cudaMemcpyToSymbol(" + name + ", src, bytes)"
                      : "copy from the GPU's with cudaMemcpyFromSymbol(dst, " + name + ", bytes)");
}

// A host address of a copy the program's process does not have (a freed or made-up pointer): on a
// GPU the copy would fault in the program; here the call fails and says where.
int bad_host_address(const void* p, const char* api) {
    Runtime::get().warn(std::string(api) + ": the host address " +
                        hex(reinterpret_cast<std::uint64_t>(p)) +
                        " is not memory of this program (freed, or never allocated)");
    return cudaErrorInvalidValue;
}

int run_copy(Stream* s, const Copy3D& c, const char* api, bool in_graph) {
    Runtime& rt = Runtime::get();
    const Side src = classify(c.src), dst = classify(c.dst);
    const std::uint64_t rows = c.height * c.depth;
    const std::uint64_t total = c.width * rows;
    if (total == 0) return cudaSuccess;
    // The direction named must fit the pointers (cudaMemcpyDefault infers it).
    const bool src_host = !src.device, dst_host = !dst.device;
    const auto span = [&](std::uint64_t pitch, std::uint64_t slice) {
        return (c.depth - 1) * slice + (c.height - 1) * pitch + c.width;
    };
    if ((c.kind == cudaMemcpyHostToDevice || c.kind == cudaMemcpyDeviceToDevice) && dst_host &&
        !(rt.record_of(c.dst) && rt.record_of(c.dst)->mapped)) {
        rt.warn(std::string(api) + ": the destination " +
                hex(reinterpret_cast<std::uint64_t>(c.dst)) +
                " is not device memory, but the copy's kind says it is" + [&] {
                    const std::string note = symbol_note(c.dst, true);
                    const std::string vmm =
                        vmm::fault_note(hex(reinterpret_cast<std::uint64_t>(c.dst)));
                    return !note.empty()  ? note
                           : !vmm.empty() ? vmm
                                          : "; was it allocated with cudaMalloc?";
                }());
        return cudaErrorInvalidValue;
    }
    if ((c.kind == cudaMemcpyDeviceToHost || c.kind == cudaMemcpyDeviceToDevice) && src_host &&
        !(rt.record_of(c.src) && rt.record_of(c.src)->mapped)) {
        rt.warn(std::string(api) + ": the source " + hex(reinterpret_cast<std::uint64_t>(c.src)) +
                " is not device memory, but the copy's kind says it is" + [&] {
                    const std::string note = symbol_note(c.src, false);
                    const std::string vmm =
                        vmm::fault_note(hex(reinterpret_cast<std::uint64_t>(c.src)));
                    return !note.empty()  ? note
                           : !vmm.empty() ? vmm
                                          : "; was it allocated with cudaMalloc?";
                }());
        return cudaErrorInvalidValue;
    }
    const MemoryRecord* src_rec = rt.record_of(c.src);
    const MemoryRecord* dst_rec = rt.record_of(c.dst);
    const bool src_emulated = src.device && !(src_rec && src_rec->kind == MemoryKind::managed);
    const bool dst_emulated = dst.device && !(dst_rec && dst_rec->kind == MemoryKind::managed);
    if (src_emulated) {
        if (int e = check_device_range(c.src, span(c.src_pitch, c.src_slice), "source", api))
            return e;
    }
    if (dst_emulated) {
        if (int e = check_device_range(c.dst, span(c.dst_pitch, c.dst_slice), "destination", api))
            return e;
    }
    // The race check: the bytes each side touches, except pageable host memory, which the copy
    // is done with when the call returns (the host waits until it is staged or delivered).
    const bool pageable_src = src_host && !src.pinned && !(src_rec && src_rec->mapped);
    const bool pageable_dst = dst_host && !dst.pinned && !(dst_rec && dst_rec->mapped);
    const char* kind_text = src_host && dst_host ? "host to host"
                            : src_host           ? "host to device"
                            : dst_host           ? "device to host"
                                                 : "device to device";
    const std::uint32_t op = rt.ordering.begin(s, std::string(api) + " (" + kind_text + ")");
    // A copy from the device into page-locked memory that the host does not wait for arrives
    // when the host (or later work ordered after it) waits for it: read before, the buffer holds
    // its old bytes, as it can on a GPU (ordering.h).
    const bool host_waits_for_it = src_host ? !src.pinned : dst_host ? !dst.pinned : false;
    const bool deferred = op && src_emulated && dst_host && !pageable_dst && !host_waits_for_it;
    std::vector<std::uint8_t> row;
    for (std::uint64_t z = 0; z < c.depth; ++z)
        for (std::uint64_t y = 0; y < c.height; ++y) {
            const std::uint8_t* from = c.src + z * c.src_slice + y * c.src_pitch;
            std::uint8_t* to = c.dst + z * c.dst_slice + y * c.dst_pitch;
            const auto from_at = reinterpret_cast<std::uint64_t>(from);
            const auto to_at = reinterpret_cast<std::uint64_t>(to);
            if (!pageable_src) rt.ordering.touch(op, from_at, from_at + c.width, false);
            if (!pageable_dst) rt.ordering.touch(op, to_at, to_at + c.width, true);
            // The bytes move without the runtime's lock on the device thread (the program's
            // next launches are queued meanwhile); what tracks them takes it back.
            if (deferred) {
                std::vector<std::uint8_t> bytes(c.width);
                {
                    LetOthersIn meanwhile;
                    rt.memory->copy_out(bytes.data(), from_at, c.width);
                }
                rt.provenance.delivered(to_at, bytes.data(), c.width, from_at);
                rt.ordering.defer(op, to, std::move(bytes));
            } else if (src_emulated && dst_emulated) {
                row.resize(c.width);
                {
                    LetOthersIn meanwhile;
                    rt.memory->copy_out(row.data(), from_at, c.width);
                    rt.memory->copy_in(to_at, row.data(), c.width);
                }
                rt.provenance.copied_on_device(from_at, to_at, c.width);
            } else if (src_emulated) {
                // Host memory is the program's (program_memory.h).
                row.resize(c.width);
                rt.memory->copy_out(row.data(), reinterpret_cast<std::uint64_t>(from), c.width);
                if (!program::write(to, row.data(), c.width)) return bad_host_address(to, api);
                rt.provenance.delivered(to_at, row.data(), c.width, from_at);
            } else if (dst_emulated) {
                row.resize(c.width);
                bool read = false;
                {
                    LetOthersIn meanwhile;
                    read = program::read(from, row.data(), c.width);
                    if (read)
                        rt.memory->copy_in(reinterpret_cast<std::uint64_t>(to), row.data(),
                                           c.width);
                }
                if (!read) return bad_host_address(from, api);
                rt.provenance.host_wrote(to_at, to_at + c.width);
            } else {
                row.resize(c.width);
                if (!program::read(from, row.data(), c.width)) return bad_host_address(from, api);
                if (!program::write(to, row.data(), c.width)) return bad_host_address(to, api);
            }
        }
    // Time: which link, which engine, and whether the host waits.
    const DeviceModel& m = rt.model;
    const char* direction = "DtoD";
    double bandwidth = m.device_copy;
    int engine = copy_device;
    bool host_waits = false;
    const bool peer = src.device && dst.device && src.device_of != dst.device_of &&
                      src.device_of >= 0 && dst.device_of >= 0;
    if (src_host && dst_host) {
        direction = "HtoH";
        bandwidth = 10e9;
        host_waits = true;
    } else if (src_host) {
        direction = "HtoD";
        engine = copy_in;
        bandwidth = src.pinned ? m.pcie_pinned : m.pcie_pageable;
        host_waits = !src.pinned;
    } else if (dst_host) {
        direction = "DtoH";
        engine = copy_out;
        bandwidth = dst.pinned ? m.pcie_pinned : m.pcie_pageable;
        host_waits = !dst.pinned;
    } else if (peer) {
        direction = "PtoP";
        engine = copy_out;
        bandwidth = m.nvlink;
    }
    DeviceState& d = rt.devices[std::size_t(s->device)];
    std::vector<std::pair<std::string, std::string>> args{
        {"bytes", std::to_string(total)},
        {"pinned", (src.pinned || dst.pinned) ? "true" : "false"},
        {"graph", in_graph ? "true" : "false"}};
    double start = 0, end = 0;
    const auto has_peer = [&](int a, int b) {
        return rt.devices[std::size_t(a)].peers.count(b) > 0;
    };
    if (peer && !has_peer(src.device_of, dst.device_of) &&
        !has_peer(dst.device_of, src.device_of)) {
        // Without peer access the driver stages the copy through host memory: a copy to the host
        // on the source device's PCIe link, then one to the destination device on its own (two
        // legs on the timeline, each at PCIe's speed), as CUDA does for cudaMemcpyPeer between
        // devices that have not enabled peer access.
        DeviceState& from = rt.devices[std::size_t(src.device_of)];
        DeviceState& to = rt.devices[std::size_t(dst.device_of)];
        const double leg = (m.copy_latency + double(total) / m.pcie_pinned) * 1e9;
        const double first =
            std::max({stream_ready(s), rt.issue_time(), from.engine_free[copy_out]});
        from.engine_free[copy_out] = first + leg;
        const double second = std::max(first + leg, to.engine_free[copy_in]);
        to.engine_free[copy_in] = second + leg;
        args.push_back({"src_device", std::to_string(src.device_of)});
        args.push_back({"dst_device", std::to_string(dst.device_of)});
        args.push_back({"staged", "true"});
        place(s, first, first + leg, "memcpy PtoP staged (DtoH leg)", "memcpy", args);
        place(s, second, second + leg, "memcpy PtoP staged (HtoD leg)", "memcpy", args);
        return cudaSuccess;
    }
    if (peer) {
        // A peer copy holds the sending device's link and the receiving device's, whichever
        // device's stream it was issued in (an H200's NVLink carries 450 GB/s each way in all,
        // to every peer together).
        DeviceState& from = rt.devices[std::size_t(src.device_of)];
        DeviceState& to = rt.devices[std::size_t(dst.device_of)];
        start = std::max(
            {stream_ready(s), rt.issue_time(), from.nvlink_send_free, to.nvlink_receive_free});
        end = start + (m.copy_latency + double(total) / bandwidth) * 1e9;
        from.nvlink_send_free = to.nvlink_receive_free = end;
        args.push_back({"src_device", std::to_string(src.device_of)});
        args.push_back({"dst_device", std::to_string(dst.device_of)});
    } else {
        start = std::max({stream_ready(s), rt.issue_time(), d.engine_free[engine]});
        end = start + (m.copy_latency + double(total) / bandwidth) * 1e9;
        d.engine_free[engine] = end;
    }
    place(s, start, end, std::string("memcpy ") + direction, "memcpy", args);
    if (host_waits && !in_graph) {
        rt.host_advance_to(end);
        // The host has the bytes when the call returns (the device's side may still be in flight
        // for a copy to the device, but nothing the host can see).
        if (dst_host) rt.ordering.host_waits_work(op);
    }
    return cudaSuccess;
}

int run_set(Stream* s, const Set3D& w, const char* api, bool in_graph) {
    Runtime& rt = Runtime::get();
    const std::uint64_t row_bytes = w.width * w.element;
    if (row_bytes == 0 || w.height == 0 || w.depth == 0) return cudaSuccess;
    const Side dst = classify(w.dst);
    const MemoryRecord* rec = rt.record_of(w.dst);
    const bool emulated = dst.device && !(rec && rec->kind == MemoryKind::managed);
    if (!dst.device && !(rec && rec->mapped)) {
        rt.warn(
            std::string(api) + ": " + hex(reinterpret_cast<std::uint64_t>(w.dst)) +
            " is not device memory (cudaMemset sets device memory; use memset for host memory)" +
            vmm::fault_note(hex(reinterpret_cast<std::uint64_t>(w.dst))));
        return cudaErrorInvalidValue;
    }
    const std::uint64_t span = (w.depth - 1) * w.slice + (w.height - 1) * w.pitch + row_bytes;
    if (emulated)
        if (int e = check_device_range(w.dst, span, "destination", api)) return e;
    std::vector<std::uint8_t> row(row_bytes);
    for (std::uint64_t i = 0; i < w.width; ++i)
        std::memcpy(row.data() + i * w.element, &w.value, w.element);
    const std::uint32_t op = rt.ordering.begin(s, std::string(api));
    for (std::uint64_t z = 0; z < w.depth; ++z)
        for (std::uint64_t y = 0; y < w.height; ++y) {
            std::uint8_t* to = w.dst + z * w.slice + y * w.pitch;
            const auto to_at = reinterpret_cast<std::uint64_t>(to);
            rt.ordering.touch(op, to_at, to_at + row_bytes, true);
            if (emulated)
                rt.memory->copy_in(reinterpret_cast<std::uint64_t>(to), row.data(), row_bytes);
            else program::write(to, row.data(), row_bytes);
            rt.provenance.host_wrote(to_at, to_at + row_bytes);
        }
    const double total = double(row_bytes * w.height * w.depth);
    const double start = std::max(stream_ready(s), rt.issue_time());
    const double end = start + (1.0e-6 + total / rt.model.hbm_bandwidth) * 1e9;
    place(s, start, end, "memset", "memset", {{"bytes", std::to_string(std::uint64_t(total))}});
    return cudaSuccess;
}

}  // namespace

// [SECTION] Issue and run
// ---------------------------------------------------------------------------

int run_work(Stream* s, const Work& w, const char* api, bool in_graph) {
    Runtime& rt = Runtime::get();
    // A graph's node is named by where it was made (Ordering::begin).
    rt.ordering.node_site = in_graph && w.made_at.depth ? &w.made_at : nullptr;
    struct Reset {
        Ordering& o;
        ~Reset() { o.node_site = nullptr; }
    } reset{rt.ordering};
    switch (w.kind) {
    case Work::Kind::kernel: return run_kernel(s, w.kernel, api, in_graph);
    case Work::Kind::copy: return run_copy(s, w.copy, api, in_graph);
    case Work::Kind::set: return run_set(s, w.set, api, in_graph);
    case Work::Kind::host: {
        const double start = std::max(stream_ready(s), rt.issue_time());
        // Copies the function is ordered after are delivered before it runs (begin).
        rt.ordering.begin(s, "host function");
        rt.flush_printf();
        // A stream callback is the runtime's wrapper (it passes the stream and status); any other
        // function is the program's, run on its thread.
        if (w.host_fn == &run_stream_callback) w.host_fn(w.host_data);
        else link::run_host_function(w.host_fn, w.host_data);
        // Modelled, like the host's clock: the function's real time would make the timeline
        // depend on the machine. What it takes on a GPU's runtime thread is its own business.
        place(s, start, start + rt.model.host_function_cost * 1e9, "host function", "host");
        return cudaSuccess;
    }
    case Work::Kind::event_record: {
        // An idle stream records "now": the event cannot complete before it was issued.
        const double t = std::max(stream_ready(s), in_graph ? 0.0 : rt.issue_time());
        w.event->recorded = true;
        w.event->time = t;
        w.event->device = s->device;
        rt.ordering.begin(s, "cudaEventRecord");
        rt.ordering.record_event(w.event, s);
        s->tail = std::max(s->tail, t);
        // An instant on the stream's row (the timeline's viewers draw events as marks).
        place(s, t, t, "event record", "event",
              {{"event", quoted(hex(reinterpret_cast<std::uint64_t>(w.event)))}});
        return cudaSuccess;
    }
    case Work::Kind::event_wait:
        rt.ordering.stream_waits(s, w.event);
        if (w.event->recorded) {
            s->tail = std::max(s->tail, w.event->time);
            place(s, s->tail, s->tail, "event wait", "event",
                  {{"event", quoted(hex(reinterpret_cast<std::uint64_t>(w.event)))}});
        }
        return cudaSuccess;
    case Work::Kind::child_graph: {
        std::vector<GraphNode*> order;
        if (!topological_order(*w.child, &order)) return cudaErrorInvalidValue;
        for (GraphNode* n : order)
            if (int e = run_work(s, n->work, api, true)) return e;
        return cudaSuccess;
    }
    case Work::Kind::prefetch: {
        rt.ordering.begin(s, "cudaMemPrefetchAsync");
        const double start = std::max(stream_ready(s), rt.issue_time());
        const double end =
            start + (rt.model.copy_latency + double(w.bytes) / rt.model.pcie_pinned) * 1e9;
        place(s, start, end, w.target_device < 0 ? "prefetch to host" : "prefetch to device",
              "memcpy", {{"bytes", std::to_string(w.bytes)}});
        return cudaSuccess;
    }
    case Work::Kind::alloc: {
        // A graph's allocation node: the memory was reserved when the node was made
        // (api_memory.cpp); from here until a free, it is allocated.
        graph_memory_allocates(w.pointer);
        if (const MemoryRecord* r = w.pointer ? rt.record_of(w.pointer) : nullptr)
            rt.ordering.forget(r->base, r->base + r->size);  // the whole block a free node frees
        const double start = std::max(stream_ready(s), in_graph ? 0.0 : rt.issue_time());
        place(s, start, start + 500.0, "graph allocation", "alloc",
              {{"bytes", std::to_string(w.bytes)}});
        return cudaSuccess;
    }
    case Work::Kind::free: {
        if (const MemoryRecord* r = rt.record_of(w.pointer)) {
            const std::uint32_t op = rt.ordering.begin(s, std::string(api));
            rt.ordering.free_range(op, r->base, r->base + r->size);
        }
        return stream_ordered_free(w.pointer, api);
    }
    case Work::Kind::conditional: return run_conditional(s, w, api);
    case Work::Kind::empty: return cudaSuccess;
    }
    return cudaSuccess;
}

namespace {

// Whether `w` can be queued for the device thread (executor.h): its call could not fail later
// than it does now, and running it needs nothing of the program during the call.
// Where one side of a queued copy or set is: device memory of `device` holding [p, p+bytes), or
// page-locked host memory (cudaMallocHost, cudaHostAlloc) holding it. Anything else (pageable,
// managed, registered, another device's, a bad range) runs in its call, which says what is wrong.
enum class Place { device, pinned, other };
Place place_of(const void* p, std::uint64_t bytes, int device) {
    Runtime& rt = Runtime::get();
    const MemoryRecord* r = rt.record_of(p);
    if (!r) return Place::other;
    const auto at = reinterpret_cast<std::uint64_t>(p);
    if (at < r->base || bytes > r->size - (at - r->base)) return Place::other;
    if (r->kind == MemoryKind::pinned_host) return Place::pinned;
    if ((r->kind != MemoryKind::device && r->kind != MemoryKind::pool) || r->device != device)
        return Place::other;
    const emu::Allocation* a = rt.memory->find(at, 1);
    return a && !a->freed && bytes <= a->size - (at - a->base) ? Place::device : Place::other;
}

bool copy_may_run_later(Stream* s, const Copy3D& c) {
    if (c.width == 0 || c.height == 0 || c.depth == 0) return false;
    const auto span = [&](std::uint64_t pitch, std::uint64_t slice) {
        return (c.depth - 1) * slice + (c.height - 1) * pitch + c.width;
    };
    const Place from = place_of(c.src, span(c.src_pitch, c.src_slice), s->device);
    const Place to = place_of(c.dst, span(c.dst_pitch, c.dst_slice), s->device);
    if (from == Place::other || to == Place::other) return false;
    if (from == Place::pinned && to == Place::pinned) return false;
    const int kind = from == Place::pinned ? cudaMemcpyHostToDevice
                     : to == Place::pinned ? cudaMemcpyDeviceToHost
                                           : cudaMemcpyDeviceToDevice;
    return c.kind == cudaMemcpyDefault || c.kind == kind;
}

bool set_may_run_later(Stream* s, const Set3D& w) {
    const std::uint64_t row = w.width * w.element;
    if (row == 0 || w.height == 0 || w.depth == 0) return false;
    const std::uint64_t span = (w.depth - 1) * w.slice + (w.height - 1) * w.pitch + row;
    return place_of(w.dst, span, s->device) == Place::device;
}

bool may_run_later(Stream* s, const Work& w) {
    Runtime& rt = Runtime::get();
    if (!rt.injections.empty() || managed::any() || link::registered_copies()) return false;
    if (w.kind == Work::Kind::event_record || w.kind == Work::Kind::event_wait) return true;
    if (w.kind == Work::Kind::host) return link::host_function_thread();
    if (w.kind == Work::Kind::copy) return copy_may_run_later(s, w.copy);
    if (w.kind == Work::Kind::set) return set_may_run_later(s, w.set);
    if (w.kind != Work::Kind::kernel) return false;
    const KernelWork& k = w.kernel;
    const Function* f = k.function;
    Module& module = *f->module;
    // A module not yet loaded for this device is loaded in the call (the device thread may be
    // running another of its kernels meanwhile).
    if (!module.load_error.empty() || module.per_device.size() <= std::size_t(s->device) ||
        !module.per_device[std::size_t(s->device)])
        return false;
    const emu::Emulator& e = *module.per_device[std::size_t(s->device)];
    if (k.config.dynamic_shared_bytes > std::uint32_t(f->max_dynamic_shared) || k.cooperative)
        return false;
    // Cluster dimensions from the launch or set at run time: the runtime's checks of them
    // (api_cluster.cpp: the portable size, the kernel's required shape) answer at the launch.
    if (k.config.explicit_cluster || f->required_cluster[0] || f->required_cluster[1] ||
        f->required_cluster[2])
        return false;
    return e.check_launch(f->entry, f->entry, k.config, k.args).ok();
}

}  // namespace

int issue(Stream* s, Work w, const char* api) {
    if (s->capture_status == cudaStreamCaptureStatusActive && s->capture_graph) {
        auto node = std::make_unique<GraphNode>();
        node->owner = s->capture_graph;
        node->dependencies = s->capture_frontier;
        switch (w.kind) {
        case Work::Kind::kernel: node->type = cudaGraphNodeTypeKernel; break;
        case Work::Kind::copy: node->type = cudaGraphNodeTypeMemcpy; break;
        case Work::Kind::set: node->type = cudaGraphNodeTypeMemset; break;
        case Work::Kind::host: node->type = cudaGraphNodeTypeHost; break;
        case Work::Kind::event_record: node->type = cudaGraphNodeTypeEventRecord; break;
        case Work::Kind::event_wait: node->type = cudaGraphNodeTypeWaitEvent; break;
        case Work::Kind::child_graph: node->type = cudaGraphNodeTypeGraph; break;
        case Work::Kind::alloc: node->type = cudaGraphNodeTypeMemAlloc; break;
        case Work::Kind::free: node->type = cudaGraphNodeTypeMemFree; break;
        case Work::Kind::conditional: node->type = cudaGraphNodeTypeConditional; break;
        default: node->type = cudaGraphNodeTypeEmpty; break;
        }
        node->work = std::move(w);
        node->work.made_at = CallStack::here();
        GraphNode* raw = node.get();
        s->capture_graph->nodes.push_back(std::move(node));
        s->capture_frontier = {raw};
        return cudaSuccess;
    }
    Executor& device = Executor::get();
    if (device.enabled() && Executor::queue_allowed() && may_run_later(s, w)) {
        Runtime& rt = Runtime::get();
        QueuedWork q;
        q.stream = s;
        q.api = api;
        q.issue_time = rt.issue_time();
        q.device = rt.current_device();
        q.stack = CallStack::here();
        q.call = Timeline::issuing;
        if (w.kind == Work::Kind::copy && rt.ordering.enabled &&
            place_of(w.copy.dst, 1, s->device) == Place::pinned) {
            // A copy into page-locked memory is kept until the host waits for it (ordering.h):
            // from now, as if it had run in this call.
            const Copy3D& c = w.copy;
            for (std::uint64_t z = 0; z < c.depth; ++z)
                for (std::uint64_t y = 0; y < c.height; ++y) {
                    std::uint8_t* row = c.dst + z * c.dst_slice + y * c.dst_pitch;
                    rt.ordering.expect(row, c.width);
                    q.expected.push_back(row);
                }
        }
        q.work = std::move(w);
        device.push(std::move(q));
        return cudaSuccess;
    }
    device.drain();  // runs in its call, after what was queued before it
    return run_work(s, w, api, false);
}

bool topological_order(const Graph& g, std::vector<GraphNode*>* order) {
    std::map<const GraphNode*, int> state;  // 0 new, 1 visiting, 2 done
    bool ok = true;
    std::function<void(GraphNode*)> visit = [&](GraphNode* n) {
        int& st = state[n];
        if (st == 2) return;
        if (st == 1) {
            ok = false;
            return;
        }
        st = 1;
        for (GraphNode* d : n->dependencies) visit(d);
        state[n] = 2;
        order->push_back(n);
    };
    for (const auto& n : g.nodes) visit(n.get());
    return ok;
}

}  // namespace cudalab::cudart
