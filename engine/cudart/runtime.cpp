// The runtime's state (state.h): construction from the environment, lookups, the modelled
// clock, sticky errors, messages, and what is written when the program exits.
#include <cxxabi.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>

#include "compiler/kernel_names.h"
#include "cudart/device_runtime.h"
#include "cudart/executor.h"
#include "cudart/managed.h"
#include "cudart/program_link.h"
#include "cudart/program_memory.h"
#include "cudart/state.h"
#include "cudart/work.h"

namespace cudalab::cudart {

namespace {

double wall_ns() {
    return double(std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now().time_since_epoch())
                      .count());
}

// A positive integer from the environment, or `fallback`; a bad value is said and ignored.
long long env_int(const char* name, long long fallback, long long low, long long high) {
    const char* v = std::getenv(name);
    if (!v || !*v) return fallback;
    char* end = nullptr;
    errno = 0;
    long long x = std::strtoll(v, &end, 10);
    if (errno || *end || x < low || x > high) {
        std::fprintf(stderr,
                     "cudalab: ignoring %s=%s (expected a whole number from %lld to %lld)\n", name,
                     v, low, high);
        return fallback;
    }
    return x;
}

}  // namespace

const DeviceModel& device_model() {
    static const DeviceModel model = [] {
        DeviceModel m;
        // CUDALAB_DEVICE_ARCH=75 (or sm_75): the emulated GPU reports that compute capability and
        // takes only the kernel images such a GPU takes (lesson 18). Its figures stay the H200's.
        if (const char* v = std::getenv("CUDALAB_DEVICE_ARCH"); v && *v) {
            std::string text = v;
            if (text.rfind("sm_", 0) == 0) text = text.substr(3);
            static const int known[] = {75, 80, 86, 87, 89, 90, 100, 103, 110, 120, 121};
            int arch = 0;
            for (int k : known)
                if (text == std::to_string(k)) arch = k;
            if (arch) {
                m.major = arch / 10;
                m.minor = arch % 10;
                m.name =
                    "NVIDIA GPU sm_" + std::to_string(arch) + " (cudalab emulated, H200 figures)";
            } else {
                std::fprintf(stderr,
                             "cudalab: ignoring CUDALAB_DEVICE_ARCH=%s (expected one of 75 80 86 "
                             "87 89 90 100 103 110 120 121)\n",
                             v);
            }
        }
        return m;
    }();
    return model;
}

Runtime& Runtime::get() {
    // never destroyed before the program's own atexit work
    static Runtime* runtime = new Runtime();
    return *runtime;
}

Runtime::Runtime() : model(device_model()), memory(std::make_shared<emu::DeviceMemory>()) {
    start_ns_ = wall_ns();
    device_count = int(env_int("CUDALAB_DEVICES", 1, 0, 16));
    driver_version = int(env_int("CUDALAB_DRIVER_VERSION", 13000, 1000, 99999));
    // Whole programs' kernels are larger than a lesson's: an endless loop is still stopped with
    // its line (cudaErrorLaunchTimeout), after about half a minute of emulation rather than one
    // second; `cudalab run --time-limit` bounds the whole run.
    instruction_budget = std::uint64_t(env_int("CUDALAB_BUDGET", 2'000'000'000ll, 0, (1ll << 62)));
    {
        // Three quarters of the machine's memory unless told (CUDALAB_MEMORY_LIMIT, in MB).
        const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
        const long long machine_mb =
            pages > 0 && page > 0 ? (long long)pages * page / 4 * 3 >> 20 : 4096;
        memory_limit = std::uint64_t(env_int("CUDALAB_MEMORY_LIMIT", machine_mb, 64, 1ll << 40))
                       << 20;
    }
    if (const char* t = std::getenv("CUDALAB_TRACE"); t && *t) trace_path = t;
    trace_launch = std::uint64_t(env_int("CUDALAB_TRACE_LAUNCH", 0, 0, 1ll << 62));
    if (const char* h = std::getenv("CUDALAB_HOST_CLOCK"); h && *h) {
        if (std::strcmp(h, "free") == 0) free_host = true;
        else if (std::strcmp(h, "measured") == 0) measured_host = true;
        else if (std::strcmp(h, "modelled") != 0)
            std::fprintf(stderr,
                         "cudalab: ignoring CUDALAB_HOST_CLOCK=%s (expected modelled, free or "
                         "measured)\n",
                         h);
    }
    if (const char* r = std::getenv("CUDALAB_STREAM_RACES"))
        ordering.enabled = !(std::strcmp(r, "0") == 0 || std::strcmp(r, "off") == 0);
    if (const char* r = std::getenv("CUDALAB_RACECHECK"))
        detect_races = std::strcmp(r, "0") != 0 && *r;
    if (const char* v = std::getenv("CUDALAB_PROVENANCE"); v && *v) {
        // Output files to vouch for when the program has gone (provenance.h): absolute paths.
        std::vector<std::string> files;
        std::string all = v;
        for (std::size_t at = 0; at <= all.size();) {
            const std::size_t colon = std::min(all.find(':', at), all.size());
            if (colon > at && all[at] == '/') files.push_back(all.substr(at, colon - at));
            at = colon + 1;
        }
        provenance.set_files(std::move(files));
    }
    if (const char* v = std::getenv("CUDALAB_INJECT"); v && *v) {
        // "fault:N[,fault:N...]"; a bad item is said and ignored, like the other settings.
        std::string all = v;
        std::size_t at = 0;
        while (at <= all.size()) {
            const std::size_t comma = std::min(all.find(',', at), all.size());
            const std::string item = all.substr(at, comma - at);
            at = comma + 1;
            if (item.empty()) continue;
            const std::size_t colon = item.find(':');
            Injection inj;
            inj.fault = item.substr(0, colon);
            char* end = nullptr;
            const std::string count = colon == std::string::npos ? "" : item.substr(colon + 1);
            errno = 0;
            const unsigned long long n = count.empty() ? 0 : std::strtoull(count.c_str(), &end, 10);
            const bool known = inj.fault == "malloc" || inj.fault == "launch-config" ||
                               inj.fault == "illegal-address";
            if (!known || count.empty() || errno || *end || n == 0 || count[0] == '-') {
                std::fprintf(stderr,
                             "cudalab: ignoring '%s' in CUDALAB_INJECT (expected malloc:N, "
                             "launch-config:N or illegal-address:N, N from 1)\n",
                             item.c_str());
                continue;
            }
            inj.at = n;
            injections.push_back(inj);
        }
    }
    devices.resize(std::size_t(device_count));
    for (int d = 0; d < device_count; ++d) {
        DeviceState& dev = devices[std::size_t(d)];
        dev.ordinal = d;
        auto legacy = std::make_unique<Stream>();
        legacy->id = 0;
        legacy->device = d;
        legacy->legacy = true;
        dev.streams.push_back(std::move(legacy));
    }
    if (const char* t = std::getenv("CUDALAB_TIMELINE"); t && *t) {
        timeline.enabled = true;
        timeline.path = t;
        for (int d = 0; d < device_count; ++d)
            timeline.name_stream(1 + d, 0, "default stream (legacy)");
    }
    // The device process writes the records when the program has gone (server.cpp); a runtime
    // used in-process (tests) at exit.
    if (program::pid() == 0) std::atexit([] { Runtime::get().~Runtime(); });
    owner_pid_ = ::getpid();
    // A run stopped at its wall-clock limit gets SIGTERM first: end through exit() so that the
    // timeline and the result file are still written (only when asked for, and only if the
    // program has not taken SIGTERM for itself).
    if (program::pid() == 0 && (timeline.enabled || std::getenv("CUDALAB_RESULT"))) {
        struct sigaction current {};
        if (::sigaction(SIGTERM, nullptr, &current) == 0 && current.sa_handler == SIG_DFL)
            ::signal(SIGTERM, [](int) { std::exit(143); });
    }
}

Runtime::~Runtime() {
    static bool done = false;  // called once, from atexit
    if (done) return;
    done = true;
    // A forked child of the program inherits this state: the files belong to the process that
    // made the calls.
    if (::getpid() != owner_pid_) return;
    std::lock_guard lock(mutex);
    flush_printf();
    ordering.finish();
    std::vector<std::string> leaks;
    std::uint64_t leaked_bytes = 0;
    for (const auto& [base, r] : allocations) {
        if (r.kind != MemoryKind::device && r.kind != MemoryKind::managed) continue;
        if (r.module_variable) continue;
        leaked_bytes += r.size;
        if (leaks.size() < 5)
            leaks.push_back(
                std::to_string(r.size) + " bytes at 0x" +
                [&] {
                    std::ostringstream s;
                    s << std::hex << base;
                    return s.str();
                }() +
                [&] {
                    std::string site = site_of(r.allocated_at);
                    return site.empty() ? std::string() : " allocated at " + site;
                }());
    }
    std::size_t leak_count = 0;
    for (const auto& [base, r] : allocations)
        leak_count +=
            !r.module_variable && (r.kind == MemoryKind::device || r.kind == MemoryKind::managed);
    const char* leak_setting = std::getenv("CUDALAB_LEAKS");
    if (leak_count && !(leak_setting && std::strcmp(leak_setting, "0") == 0)) {
        char head[256];
        std::snprintf(
            head, sizeof head,
            "cudalab: note: %zu device allocation%s (%llu bytes) %s never freed (cudaFree "
            "them; CUDALAB_LEAKS=0 silences this):\n",
            leak_count, leak_count == 1 ? "" : "s", (unsigned long long)leaked_bytes,
            leak_count == 1 ? "was" : "were");
        std::string text = head;
        for (const auto& l : leaks) text += "  " + l + "\n";
        link::emit(2, text);
    }
    if (timeline.enabled) {
        record_page_moves(*this, 0, host_now(), host_now(), "host touch");  // the last host phase's
        const managed::Counters paged = managed::counters();
        timeline.counters = {{"managed_host_to_device_pages", paged.host_to_device_pages},
                             {"managed_device_to_host_pages", paged.device_to_host_pages},
                             {"managed_prefetched_bytes", paged.prefetched_bytes}};
        std::string error;
        if (!timeline.write(&error)) std::fprintf(stderr, "cudalab: %s\n", error.c_str());
    }
    if (const char* path = std::getenv("CUDALAB_RESULT"); path && *path) {
        std::ofstream f(path, std::ios::trunc);
        f << "{\"faults\":[";
        bool first = true;
        for (const auto& d : devices) {
            if (!d.sticky_error) continue;
            f << (first ? "" : ",") << "{\"device\":" << d.ordinal
              << ",\"error\":" << d.sticky_error << ",\"message\":" << json_string(d.sticky_message)
              << "}";
            first = false;
        }
        f << "],\"leaks\":{\"count\":" << leak_count << ",\"bytes\":" << leaked_bytes
          << ",\"first\":[";
        for (std::size_t i = 0; i < leaks.size(); ++i) f << (i ? "," : "") << json_string(leaks[i]);
        const managed::Counters paged = managed::counters();
        f << "]},\"managed\":{\"page_bytes\":" << managed::page_bytes
          << ",\"host_to_device_pages\":" << paged.host_to_device_pages
          << ",\"device_to_host_pages\":" << paged.device_to_host_pages
          << ",\"prefetched_bytes\":" << paged.prefetched_bytes << "},\"injected\":[";
        for (std::size_t i = 0; i < injections.size(); ++i)
            f << (i ? "," : "") << "{\"fault\":" << json_string(injections[i].fault)
              << ",\"at\":" << injections[i].at
              << ",\"fired\":" << (injections[i].fired ? "true" : "false") << "}";
        f << "],\"device_arch\":" << model.arch()
          << ",\"driver_module_loads\":" << driver_module_loads << ",\"unsupported\":[";
        first = true;
        for (const auto& key : said_) {
            if (key.rfind("unsupported:", 0) != 0) continue;
            f << (first ? "" : ",") << json_string(key.substr(12));
            first = false;
        }
        // Per kernel (by name; a name launched from two modules is summed): launches and warp
        // instructions of all launches, memory counters of the traced ones (the first two).
        f << "],\"kernels\":[";
        std::map<std::string, Function> by_name;
        for (const auto& [key, fn] : functions) {
            if (!fn->launches) continue;
            Function& k = by_name[kernel_display_name(fn->entry)];
            k.launches += fn->launches;
            k.traced_launches += fn->traced_launches;
            k.warp_instructions += fn->warp_instructions;
            k.traced_warp_instructions += fn->traced_warp_instructions;
            k.global_load_requests += fn->global_load_requests;
            k.global_load_sectors += fn->global_load_sectors;
            k.constant_loads += fn->constant_loads;
            k.constant_requests += fn->constant_requests;
        }
        first = true;
        for (const auto& [name, k] : by_name) {
            f << (first ? "" : ",") << "{\"name\":" << json_string(name)
              << ",\"launches\":" << k.launches << ",\"warp_instructions\":" << k.warp_instructions
              << ",\"traced_launches\":" << k.traced_launches
              << ",\"traced_warp_instructions\":" << k.traced_warp_instructions
              << ",\"global_load_requests\":" << k.global_load_requests
              << ",\"global_load_sectors\":" << k.global_load_sectors
              << ",\"constant_loads\":" << k.constant_loads
              << ",\"constant_requests\":" << k.constant_requests << "}";
            first = false;
        }
        f << "],\"memory\":{\"peak_device_bytes\":" << peak_device_bytes
          << ",\"pool_reservations\":" << pool_reservations
          << ",\"pool_reserved_bytes\":" << pool_reserved_bytes
          << ",\"graph_allocations\":" << graph_allocations << "}";
        // Races between streams (ordering.h): the first ones in full, and how many in all.
        f << ",\"races_total\":" << ordering.race_count() << ",\"races\":[";
        first = true;
        for (const StreamRace& r : ordering.races()) {
            f << (first ? "" : ",") << "{\"kind\":" << json_string(r.kind)
              << ",\"first\":" << json_string(r.first)
              << ",\"first_site\":" << json_string(r.first_site)
              << ",\"first_stream\":" << r.first_stream << ",\"second\":" << json_string(r.second)
              << ",\"second_site\":" << json_string(r.second_site)
              << ",\"second_stream\":" << r.second_stream << ",\"device\":" << r.device
              << ",\"address\":" << r.address << ",\"bytes\":" << r.bytes
              << ",\"allocation\":" << json_string(r.allocation)
              << ",\"fix\":" << json_string(r.fix) << ",\"message\":" << json_string(r.message)
              << "}";
            first = false;
        }
        f << "]";
        // Whether the output files hold what kernels computed (provenance.h).
        if (provenance.enabled()) {
            f << ",\"provenance\":[";
            first = true;
            for (const auto& v : provenance.verify()) {
                f << (first ? "" : ",") << "{\"file\":" << json_string(v.file)
                  << ",\"read\":" << (v.read ? "true" : "false") << ",\"bytes\":" << v.bytes
                  << ",\"from_device\":" << (v.from_device ? "true" : "false")
                  << ",\"matched\":" << v.matched << ",\"why\":" << json_string(v.why)
                  << ",\"kernels\":[";
                for (std::size_t i = 0; i < v.kernels.size(); ++i)
                    f << (i ? "," : "") << json_string(v.kernels[i]);
                f << "]}";
                first = false;
            }
            f << "]";
        }
        f << "}\n";
    }
    std::fflush(stdout);
}

int& Runtime::current_device() {
    thread_local int device = 0;
    return device;
}

int& Runtime::last_error() {
    thread_local int error = 0;
    return error;
}

Stream* Runtime::per_thread_stream(int device) {
    thread_local std::map<int, Stream*> mine;
    auto it = mine.find(device);
    if (it != mine.end()) return it->second;
    auto s = std::make_unique<Stream>();
    s->id = next_stream_id++;
    s->device = device;
    s->per_thread = true;
    Stream* raw = s.get();
    timeline.name_stream(1 + device, raw->id, "per-thread default stream");
    devices[std::size_t(device)].streams.push_back(std::move(s));
    mine[device] = raw;
    return raw;
}

emu::Emulator* Runtime::emulator_for(Module& module, int device, std::string* error) {
    if (!module.load_error.empty()) {
        *error = module.load_error;
        return nullptr;
    }
    if (module.per_device.size() < devices.size()) module.per_device.resize(devices.size());
    auto& slot = module.per_device[std::size_t(device)];
    if (!slot) {
        // Loading places the module's variables in device memory, which a queued kernel may be
        // using on the device thread: that finishes first.
        Executor::get().drain();
        emu::EmulatorOptions options;
        if (instruction_budget) options.instruction_budget = instruction_budget;
        options.detect_races = detect_races;
        options.num_sms = std::uint32_t(model.sm_count);
        // A whole program's memory is its own business (cudaMalloc refuses what the device model
        // or the machine cannot hold); the emulator's grading limit would stop honest programs.
        options.memory_limit = memory_limit;
        options.record_footprint = ordering.enabled || provenance.enabled();
        // __managed__ variables live in managed memory the host reaches at the same address.
        options.place_managed = [&module](const std::string& name, std::uint64_t size,
                                          bool* fresh) {
            return place_managed_variable(module, name, size, fresh);
        };
        auto e = std::make_unique<emu::Emulator>(options, memory);
        Status s = e->load(device_runtime::prepare(module.ptx), module.source_path);
        if (!s.ok()) {
            module.load_error = s.message;
            *error = s.message;
            return nullptr;
        }
        slot = std::move(e);
    }
    return slot.get();
}

Stream* Runtime::stream(void* handle) {
    const auto h = reinterpret_cast<std::uintptr_t>(handle);
    const int device = current_device();
    if (h == 0 || h == 1) return legacy_stream(device);  // 0 and cudaStreamLegacy
    if (h == 2) return per_thread_stream(device);        // cudaStreamPerThread
    auto* s = static_cast<Stream*>(handle);
    if (streams.count(s)) return s;
    for (auto& d : devices)
        for (auto& own : d.streams)
            if (own.get() == s) return s;
    return nullptr;
}

const MemoryRecord* Runtime::record_of(const void* pointer) const {
    const auto p = reinterpret_cast<std::uint64_t>(pointer);
    auto it = allocations.upper_bound(p);
    if (it == allocations.begin()) return nullptr;
    --it;
    if (p >= it->second.base && p < it->second.base + std::max<std::uint64_t>(it->second.size, 1))
        return &it->second;
    return nullptr;
}

bool Runtime::is_device_pointer(const void* pointer) const {
    const MemoryRecord* r = record_of(pointer);
    return r && (r->kind == MemoryKind::device || r->kind == MemoryKind::pool);
}

double Runtime::host_now() const {
    if (free_host) return waited_ns_;
    if (!measured_host) return spent_ns_ + waited_ns_;
    // Measured: inside a call the clock stands still but for the call's modelled costs (ApiCall).
    const double wall = call_wall_start > 0 ? call_wall_start : wall_ns();
    return wall - start_ns_ - emulation_ns_ + waited_ns_ + spent_ns_;
}

double Runtime::measured_ns() const { return wall_ns() - start_ns_; }

void Runtime::host_advance_to(double t) {
    const double now = host_now();
    if (t > now) waited_ns_ += t - now;
}

void Runtime::host_spend(double seconds) {
    if (!free_host) spent_ns_ += seconds * 1e9;
}

void Runtime::set_sticky(int device, int error, const std::string& message) {
    DeviceState& d = devices[std::size_t(device)];
    if (d.sticky_error) return;
    d.sticky_error = error;
    d.sticky_message = message;
}

Injection* Runtime::inject(const char* fault, std::uint64_t count) {
    for (auto& i : injections)
        if (!i.fired && i.at == count && i.fault == fault) {
            i.fired = true;
            return &i;
        }
    return nullptr;
}

namespace {

// A message's later lines are indented, so that every line of it reads as the runtime's and not
// the program's (lesson 16 tells them apart): "cudalab: first line", then "  more".
std::string indent_continuations(const std::string& message) {
    std::string out;
    out.reserve(message.size() + 16);
    for (std::size_t i = 0; i < message.size(); ++i) {
        out += message[i];
        if (message[i] == '\n' && i + 1 < message.size() && message[i + 1] != ' ') out += "  ";
    }
    return out;
}

}  // namespace

void Runtime::say_once(const std::string& key, const std::string& message) {
    if (!said_.insert(key).second) return;
    warn(message);
}

void Runtime::warn(const std::string& message) {
    const std::string text = "cudalab: " + indent_continuations(message) + "\n";
    if (Executor::running()) held_ += text;  // the device thread has no call to say it in
    else link::emit(2, text);
}

void Runtime::say_held() {
    if (held_.empty()) return;
    link::emit(2, held_);
    held_.clear();
}

double Runtime::issue_time() const {
    if (const QueuedWork* w = Executor::running()) return w->issue_time;
    return call_time;
}

void Runtime::flush_printf() {
    if (pending_printf.empty() || Executor::running()) return;
    link::emit(1, pending_printf);
    pending_printf.clear();
}

// [SECTION] Where the program called from
// ----------------------------------------------------------

CallStack CallStack::here() {
    // Queued work: the call that issued it.
    if (const QueuedWork* w = Executor::running()) return w->stack;
    // Served for a program: the program's stack, sent with its call (the device process's own
    // frames say nothing about the program).
    if (const CallStack* program_stack = link::caller_stack()) return *program_stack;
    CallStack s;
    s.depth = ::backtrace(s.frames, 12);
    return s;
}

std::string caller_site() { return site_of(CallStack::here()); }

namespace {

struct Mapping {
    std::uint64_t lo = 0, hi = 0, offset = 0;
    std::string path;
};

// The program's mapped files (its /proc/PID/maps), to name the file and offset of a return
// address. The last reading is kept: races and leaks found when the program has gone are named
// with the files it had.
std::vector<Mapping> program_mappings() {
    static std::mutex mutex;
    static std::vector<Mapping> kept;
    const int pid = program::pid();
    std::ifstream maps(pid ? "/proc/" + std::to_string(pid) + "/maps"
                           : std::string("/proc/self/maps"));
    std::lock_guard lock(mutex);
    if (!maps) return kept;
    std::vector<Mapping> out;
    std::string line;
    while (std::getline(maps, line)) {
        Mapping m;
        char perms[8] = {};
        unsigned long long lo = 0, hi = 0, offset = 0;
        int path_at = 0;
        if (std::sscanf(line.c_str(), "%llx-%llx %7s %llx %*s %*s %n", &lo, &hi, perms, &offset,
                        &path_at) < 4)
            continue;
        m.lo = lo;
        m.hi = hi;
        m.offset = offset;
        if (path_at > 0 && std::size_t(path_at) < line.size()) m.path = line.substr(path_at);
        out.push_back(std::move(m));
    }
    if (!out.empty()) kept = out;
    return kept;
}

}  // namespace

void remember_program_files() { program_mappings(); }

std::string site_of(const CallStack& stack) {
    void* const* frames = stack.frames;
    const int n = stack.depth;
    if (n <= 0) return {};
    const std::vector<Mapping> maps = program_mappings();
    const auto mapping_of = [&](std::uint64_t a) -> const Mapping* {
        for (const auto& m : maps)
            if (a >= m.lo && a < m.hi && !m.path.empty() && m.path[0] == '/') return &m;
        return nullptr;
    };
    // Frames in the CUDA library itself (the first frame's file) are not the program's.
    const Mapping* own = mapping_of(reinterpret_cast<std::uint64_t>(frames[0]));
    const std::string library = own ? own->path : std::string();
    bool after_stub = false;
    for (int i = 1; i < n; ++i) {
        const auto address = reinterpret_cast<std::uint64_t>(frames[i]);
        const Mapping* m = mapping_of(address);
        if (!m || m->path == library) continue;
        // The system's libraries (libc's memcpy under a host access) are not the program's lines.
        if (m->path.rfind("/lib", 0) == 0 || m->path.rfind("/usr/lib", 0) == 0) continue;
        // Where the file is loaded: its mapping at file offset 0.
        std::uint64_t base = m->lo - m->offset;
        for (const auto& other : maps)
            if (other.path == m->path && other.offset == 0) {
                base = other.lo;
                break;
            }
        const std::uint64_t offset = address - base - 1;
        // The file as the program sees it (its root), or, once it has gone, at the same path
        // here (the sandbox shows the program its own files at their own paths).
        std::string file = link::program_path(m->path);
        if (::access(file.c_str(), R_OK) != 0) file = m->path;
        if (file.find('\'') != std::string::npos) return {};
        std::string command = "addr2line -C -f -e '" + file + "' 0x" + [&] {
            std::ostringstream s;
            s << std::hex << offset;
            return s.str();
        }() + " 2>/dev/null";
        FILE* p = ::popen(command.c_str(), "r");
        if (!p) return {};
        char function[1024] = {}, where[4096] = {};
        const bool got =
            std::fgets(function, sizeof function, p) && std::fgets(where, sizeof where, p);
        ::pclose(p);
        if (!got) return {};
        std::string fn(function), loc(where);
        while (!fn.empty() && (fn.back() == '\n' || fn.back() == '\r')) fn.pop_back();
        while (!loc.empty() && (loc.back() == '\n' || loc.back() == '\r')) loc.pop_back();
        if (auto d = loc.find(" (discriminator"); d != std::string::npos) loc.resize(d);
        // The kernel's host-side wrapper (named like the kernel) calls the stub: go one further.
        if (fn.find("__device_stub") != std::string::npos) {
            after_stub = true;
            continue;
        }
        if (after_stub) {
            after_stub = false;
            continue;
        }
        if (loc.rfind("??", 0) == 0) return fn == "??" ? std::string() : "in " + fn;
        // Inline wrappers of the CUDA headers (the cudaLaunchKernel templates): the caller is next.
        if (loc.find("/include/cuda") != std::string::npos ||
            loc.find("/include/crt/") != std::string::npos || loc.rfind("cuda_runtime", 0) == 0)
            continue;
        if (auto slash = loc.rfind('/'); slash != std::string::npos) loc = loc.substr(slash + 1);
        return loc;
    }
    return {};
}

}  // namespace cudalab::cudart
