// Happens-before over streams and the shadow of who touched which bytes (ordering.h).
#include "cudart/ordering.h"
#include "cudart/executor.h"
#include "cudart/program_link.h"
#include "cudart/program_memory.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <sys/mman.h>
#include <ucontext.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <sstream>

#include "cudart/state.h"

namespace cudalab::cudart {

namespace {

// Bounds: a program past them is not checked further (said once), rather than the runtime's
// memory growing without end.
constexpr std::size_t max_ops = 4'000'000;
constexpr std::uint32_t max_agents = 16384;
constexpr std::size_t max_segments = 4'000'000;
constexpr std::size_t max_races_kept = 64;

std::string hex(std::uint64_t v) {
    std::ostringstream s;
    s << "0x" << std::hex << v;
    return s.str();
}

std::string allocation_text(std::uint64_t address);
void mark(const StreamRace& r, int stream, int device, bool host);

// [SECTION] The host's own accesses to memory awaiting a copy
//
// A fixed table the signal handler reads (it may not allocate or lock): the protected runs of
// pages, and the accesses it saw, taken by the next call.

constexpr std::size_t page = 4096;
constexpr int max_runs = 1024, max_seen = 64;
struct Run {
    std::uintptr_t lo = 0, hi = 0;
};
Run runs[max_runs];
std::atomic<int> run_count{0};
struct Seen {
    std::uintptr_t address = 0;
    bool write = false;
    void* frames[16] = {};
    int depth = 0;
};
Seen seen[max_seen];
std::atomic<int> seen_count{0};
struct sigaction previous_handler;
std::once_flag handler_installed;

void on_fault(int sig, siginfo_t* info, void* context) {
    const auto a = reinterpret_cast<std::uintptr_t>(info->si_addr);
    const int n = run_count.load(std::memory_order_acquire);
    for (int i = 0; i < n; ++i) {
        if (a < runs[i].lo || a >= runs[i].hi) continue;
        const int k = seen_count.fetch_add(1);
        if (k < max_seen) {
            Seen& s = seen[k];
            s.address = a;
            const auto* uc = static_cast<const ucontext_t*>(context);
#if defined(__x86_64__)
            s.write = (uc->uc_mcontext.gregs[REG_ERR] & 2) != 0;
            // The faulting instruction first (site_of() steps back one byte from each frame).
            s.frames[1] = reinterpret_cast<void*>(uc->uc_mcontext.gregs[REG_RIP] + 1);
#else
            (void)uc;
#endif
            void* frames[16];
            const int depth = ::backtrace(frames, 16);
            // frames: this handler, the signal trampoline, the faulting function, its callers.
            int out = 2;
            for (int f = 3; f < depth && out < 16; ++f) s.frames[out++] = frames[f];
            s.depth = out;
        }
        // Let the access through to the bytes there now (the old ones): the next call protects
        // the page again.
        ::mprotect(reinterpret_cast<void*>(a & ~(page - 1)), page, PROT_READ | PROT_WRITE);
        return;
    }
    if (previous_handler.sa_flags & SA_SIGINFO) {
        if (previous_handler.sa_sigaction) return previous_handler.sa_sigaction(sig, info, context);
    } else if (previous_handler.sa_handler != SIG_DFL && previous_handler.sa_handler != SIG_IGN) {
        return previous_handler.sa_handler(sig);
    }
    ::signal(SIGSEGV, SIG_DFL);  // not ours: the access faults again, with the default action
}

void install_handler() {
    std::call_once(handler_installed, [] {
        void* warm[2];
        ::backtrace(warm, 2);  // loads what backtrace() needs now, not inside the handler
        struct sigaction sa;
        std::memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_fault;
        sa.sa_flags = SA_SIGINFO | SA_NODEFER;
        sigemptyset(&sa.sa_mask);
        ::sigaction(SIGSEGV, &sa, &previous_handler);
    });
}

// The frames of the program itself: system libraries (libc's memcpy, stdio) are skipped so that
// the line named is the program's.
CallStack program_frames(const Seen& s) {
    CallStack c;
    c.frames[0] = s.frames[0];
    c.depth = 1;
    for (int i = 1; i < s.depth && c.depth < 12; ++i) {
        if (program::pid() == 0) {
            Dl_info info{};
            if (s.frames[i] && ::dladdr(s.frames[i], &info) && info.dli_fname &&
                (std::strncmp(info.dli_fname, "/lib", 4) == 0 ||
                 std::strncmp(info.dli_fname, "/usr/lib", 8) == 0))
                continue;
        }
        c.frames[c.depth++] = s.frames[i];
    }
    return c;
}

}  // namespace

void Clock::join(const Clock& other) {
    if (other.at.size() > at.size()) at.resize(other.at.size(), 0);
    for (std::size_t i = 0; i < other.at.size(); ++i) at[i] = std::max(at[i], other.at[i]);
}

// [SECTION] Agents and clocks

std::uint32_t Ordering::agent_of(Stream* s) {
    if (s->agent < 0) s->agent = std::int32_t(agents_++);
    return std::uint32_t(s->agent);
}

Clock& Ordering::clock_of(Stream* s) { return s->order; }

// The legacy default stream waits for the work issued before to every blocking stream of its
// device, and every blocking stream waits for the legacy stream's (per-thread default streams
// count as blocking). Non-blocking streams take no part.
void Ordering::apply_legacy_rule(Stream* s, Clock& c) {
    Runtime& rt = Runtime::get();
    DeviceState& d = rt.devices[std::size_t(s->device)];
    if (s->legacy) {
        for (auto& other : d.streams)
            if (other.get() != s && !(other->flags & cudaStreamNonBlocking)) c.join(other->order);
        for (Stream* other : rt.streams)
            if (other->device == s->device && !(other->flags & cudaStreamNonBlocking))
                c.join(other->order);
    } else if (!(s->flags & cudaStreamNonBlocking)) {
        c.join(d.streams[0]->order);
    }
}

bool Ordering::ordered(std::uint32_t before, std::uint32_t after) const {
    (void)after;  // the clock of `after` is the current work's: the last one begun
    const Op& b = ops_[before];
    return current_.of(b.agent) >= b.count;
}

std::uint32_t Ordering::begin(Stream* s, const std::string& what) {
    if (!enabled) return 0;
    if (ops_.size() >= max_ops || agents_ >= max_agents) {
        if (!overflowed_) {
            overflowed_ = true;
            Runtime::get().warn("the race check between streams stopped after " +
                                std::to_string(ops_.size()) + " operations and " +
                                std::to_string(agents_) +
                                " streams and graph nodes (its limit); later work is not checked");
        }
        enabled = false;
        return 0;
    }
    Runtime& rt = Runtime::get();
    Clock& c = clock_of(s);
    c.join(host_);  // the host issued it after everything the host waited for
    apply_legacy_rule(s, c);
    const std::uint32_t agent =
        s->agent_override >= 0 ? std::uint32_t(s->agent_override) : agent_of(s);
    if (c.at.size() <= agent) c.at.resize(agent + 1, 0);
    Op op;
    op.agent = agent;
    op.count = ++c.at[agent];
    op.what = what;
    op.stream = s->id;
    op.device = s->device;
    if (node_site) {
        std::memcpy(op.frames, node_site->frames, sizeof op.frames);
        op.depth = node_site->depth;
    } else {
        const CallStack here = CallStack::here();  // the program's, for the call served
        std::memcpy(op.frames, here.frames, sizeof op.frames);
        op.depth = here.depth;
    }
    op.graph_exec = rt.graph_exec_running;
    op.graph_node = rt.graph_node_running;
    ops_.push_back(std::move(op));
    current_ = c;
    current_op_ = std::uint32_t(ops_.size() - 1);
    deliver_before(current_op_);
    return current_op_;
}

// [SECTION] The shadow

std::map<std::uint64_t, Ordering::Segment>::iterator Ordering::split(std::uint64_t at) {
    auto it = shadow_.upper_bound(at);
    if (it == shadow_.begin()) return it;
    auto prev = std::prev(it);
    if (prev->first == at) return prev;
    if (prev->second.hi <= at) return it;
    Segment right = prev->second;
    prev->second.hi = at;
    return shadow_.emplace_hint(it, at, std::move(right));
}

void Ordering::touch(std::uint32_t op, const std::vector<MemorySpan>& spans) {
    for (const MemorySpan& sp : spans) touch(op, sp.lo, sp.hi, sp.write);
}

void Ordering::touch(std::uint32_t op, std::uint64_t lo, std::uint64_t hi, bool write) {
    if (!enabled || !op || op != current_op_ || hi <= lo) return;
    if (shadow_.size() >= max_segments) {
        Runtime::get().warn("the race check between streams stopped: the memory it follows is in " +
                            std::to_string(shadow_.size()) + " pieces (its limit)");
        enabled = false;
        return;
    }
    split(lo);
    split(hi);
    // Fill the gaps, so that every byte of [lo, hi) has its segment.
    std::uint64_t at = lo;
    for (auto it = shadow_.lower_bound(lo); at < hi;) {
        if (it == shadow_.end() || it->first > at) {
            const std::uint64_t end = it == shadow_.end() ? hi : std::min(hi, it->first);
            it = shadow_.emplace_hint(it, at, Segment{end, 0, {}});
        }
        Segment& seg = it->second;
        if (seg.write && seg.write != op) {
            const Op& w = ops_[seg.write];
            if (w.free && ordered(seg.write, op)) {
                // (A graph frees its own memory at every launch, and gets it back at the next.)
                if (!ops_[op].free) report("use-after-free", seg.write, op, it->first, seg.hi);
            } else if (!ordered(seg.write, op))
                report(write ? "write-write" : "write-read", seg.write, op, it->first, seg.hi);
        }
        if (write) {
            for (std::uint32_t r : seg.reads)
                if (r != op && !ordered(r, op)) report("read-write", r, op, it->first, seg.hi);
            seg.write = op;
            seg.reads.clear();
        } else {
            seg.reads.erase(
                std::remove_if(seg.reads.begin(), seg.reads.end(),
                               [&](std::uint32_t r) { return r == op || ordered(r, op); }),
                seg.reads.end());
            seg.reads.push_back(op);
        }
        at = seg.hi;
        ++it;
    }
    // Merge runs left the same (a kernel writing a whole buffer leaves one segment).
    auto it = shadow_.lower_bound(lo);
    if (it != shadow_.begin()) --it;
    while (it != shadow_.end() && it->first < hi) {
        auto next = std::next(it);
        if (next == shadow_.end()) break;
        if (it->second.hi == next->first && it->second.write == next->second.write &&
            it->second.reads == next->second.reads) {
            it->second.hi = next->second.hi;
            shadow_.erase(next);
        } else {
            it = next;
        }
    }
}

void Ordering::free_range(std::uint32_t op, std::uint64_t lo, std::uint64_t hi) {
    if (!enabled || !op) return;
    ops_[op].free = true;  // before touch(): a free after a free is not a use after free
    touch(op, lo, hi, true);
}

void Ordering::forget(std::uint64_t lo, std::uint64_t hi) {
    if (hi <= lo || shadow_.empty()) return;
    split(lo);
    split(hi);
    shadow_.erase(shadow_.lower_bound(lo), shadow_.lower_bound(hi));
}

// [SECTION] Orderings

void Ordering::record_event(Event* e, Stream* s) { e->order = clock_of(s); }

void Ordering::stream_waits(Stream* s, const Event* e) { clock_of(s).join(e->order); }

void Ordering::host_waits(Stream* s) {
    Clock c = clock_of(s);
    // Waiting for the legacy stream waits for what it waits for (the model's stream_ready).
    if (s->legacy) apply_legacy_rule(s, c);
    host_.join(c);
    deliver_waited();
}

void Ordering::host_waits(const Event* e) {
    host_.join(e->order);
    deliver_waited();
}

void Ordering::host_waits_device(int device) {
    Runtime& rt = Runtime::get();
    for (auto& s : rt.devices[std::size_t(device)].streams) host_.join(s->order);
    for (Stream* s : rt.streams)
        if (s->device == device) host_.join(s->order);
    deliver_waited();
}

void Ordering::host_waits_work(std::uint32_t op) {
    if (!op) return;
    if (op == current_op_) host_.join(current_);
    deliver_waited();
}

void Ordering::begin_graph(Stream* s, int exec_id, std::size_t nodes) {
    GraphRun g;
    g.base = clock_of(s);
    g.base.join(host_);
    apply_legacy_rule(s, g.base);
    g.node_clocks.resize(nodes);
    g.exec_id = exec_id;
    graphs_.push_back(std::move(g));
}

void Ordering::begin_node(Stream* s, std::size_t node, const std::vector<std::size_t>& deps) {
    if (graphs_.empty()) return;
    GraphRun& g = graphs_.back();
    Clock c = g.base;
    for (std::size_t d : deps)
        if (d < g.node_clocks.size()) c.join(g.node_clocks[d]);
    s->order = std::move(c);
    // Each node is an agent of its own, per graph, node and stream: launches of one graph into
    // one stream are ordered, into two streams not.
    const auto key = std::make_tuple(g.exec_id, s->id, node);
    auto [it, added] = node_agents_.emplace(key, agents_);
    if (added) ++agents_;
    s->agent_override = std::int32_t(it->second);
}

void Ordering::end_node(Stream* s, std::size_t node) {
    if (graphs_.empty()) return;
    GraphRun& g = graphs_.back();
    if (node < g.node_clocks.size()) g.node_clocks[node] = s->order;
    s->agent_override = -1;
}

void Ordering::end_graph(Stream* s) {
    if (graphs_.empty()) return;
    GraphRun& g = graphs_.back();
    Clock c = g.base;
    for (const Clock& n : g.node_clocks) c.join(n);
    s->order = std::move(c);
    graphs_.pop_back();
}

// [SECTION] Copies to the host

void Ordering::defer(std::uint32_t op, std::uint8_t* to, std::vector<std::uint8_t> bytes) {
    for (Deferred& d : deferred_)
        if (d.op == expected_op && d.to == to && d.bytes.size() == bytes.size()) {
            d.op = op;
            d.bytes = std::move(bytes);
            return;
        }
    deferred_.push_back({op, to, std::move(bytes)});
}

void Ordering::expect(std::uint8_t* to, std::uint64_t bytes) {
    deferred_.push_back({expected_op, to, std::vector<std::uint8_t>(bytes)});
}

void Ordering::forget_expected(std::uint8_t* to) {
    for (auto it = deferred_.begin(); it != deferred_.end(); ++it)
        if (it->op == expected_op && it->to == to) {
            deferred_.erase(it);
            return;
        }
}

bool Ordering::any_expected() const {
    for (const Deferred& d : deferred_)
        if (d.op == expected_op) return true;
    return false;
}

void Ordering::deliver_before(std::uint32_t op) {
    if (deferred_.empty()) return;
    // In issue order, so that two copies to the same bytes leave the later one's.
    std::vector<Deferred> left;
    for (Deferred& d : deferred_) {
        if (d.op != op && d.op != expected_op && ordered(d.op, op))
            program::write(d.to, d.bytes.data(), d.bytes.size());
        else left.push_back(std::move(d));
    }
    deferred_.swap(left);
}

void Ordering::deliver_waited() {
    if (deferred_.empty()) return;
    std::vector<Deferred> left;
    for (Deferred& d : deferred_) {
        if (d.op == expected_op) {
            left.push_back(std::move(d));
            continue;
        }
        const Op& o = ops_[d.op];
        if (host_.of(o.agent) >= o.count) program::write(d.to, d.bytes.data(), d.bytes.size());
        else left.push_back(std::move(d));
    }
    deferred_.swap(left);
}

void Ordering::unwaited(const char* when, std::uint64_t lo, std::uint64_t hi) {
    std::vector<Deferred> left;
    for (Deferred& d : deferred_) {
        const auto at = reinterpret_cast<std::uint64_t>(d.to);
        if (at + d.bytes.size() <= lo || at >= hi || d.op == expected_op) {
            left.push_back(std::move(d));
            continue;
        }
        report_unwaited(d, when);
        // Delivered now: what the host reads from here on is what a GPU would have left.
        program::write(d.to, d.bytes.data(), d.bytes.size());
    }
    deferred_.swap(left);
}

void Ordering::program_accessed(std::uintptr_t address, bool write, void* const* frames,
                                int depth) {
    const int k = seen_count.fetch_add(1);
    if (k >= max_seen) return;
    Seen& s = seen[k];
    s.address = address;
    s.write = write;
    s.depth = std::min(depth, 16);
    for (int i = 0; i < s.depth; ++i) s.frames[i] = frames[i];
}

void Ordering::set_protection(bool on) {
    if (on == protected_) return;
    // Served for a program in another process: its view is protected, and its library reports
    // the accesses (program_accessed) with its next call.
    const bool elsewhere = program::pid() != 0;
    const auto protect = [elsewhere](const Run& r, int prot) {
        if (elsewhere) link::protect_in_program(reinterpret_cast<void*>(r.lo), r.hi - r.lo, prot);
        else ::mprotect(reinterpret_cast<void*>(r.lo), r.hi - r.lo, prot);
    };
    if (!on) {
        for (int i = 0; i < run_count.load(); ++i) protect(runs[i], PROT_READ | PROT_WRITE);
        run_count.store(0, std::memory_order_release);
        protected_ = false;
        return;
    }
    if (deferred_.empty()) return;
    if (!elsewhere) install_handler();
    // Page runs covering the bytes awaited (page-locked memory is whole pages: host_allocate).
    std::vector<Run> wanted;
    for (const Deferred& d : deferred_) {
        const auto lo = reinterpret_cast<std::uintptr_t>(d.to) & ~(page - 1);
        const auto hi =
            (reinterpret_cast<std::uintptr_t>(d.to) + d.bytes.size() + page - 1) & ~(page - 1);
        wanted.push_back({lo, hi});
    }
    std::sort(wanted.begin(), wanted.end(), [](const Run& a, const Run& b) { return a.lo < b.lo; });
    int n = 0;
    for (const Run& r : wanted) {
        if (n && r.lo <= runs[n - 1].hi) runs[n - 1].hi = std::max(runs[n - 1].hi, r.hi);
        else if (n < max_runs) runs[n++] = r;
    }
    run_count.store(n, std::memory_order_release);
    for (int i = 0; i < n; ++i) protect(runs[i], PROT_NONE);
    protected_ = true;
}

void Ordering::enter_call() {
    if (!protected_ && seen_count.load() == 0) return;
    // The host touched bytes a queued copy will deliver: that copy runs first, so that the
    // touch is told against it.
    if (seen_count.load() > 0 && any_expected()) Executor::get().drain();
    set_protection(false);
    report_host_accesses();
}

void Ordering::leave_call() {
    if (enabled && !deferred_.empty()) set_protection(true);
}

void Ordering::report_host_accesses() {
    const int n = std::min(seen_count.exchange(0), max_seen);
    for (int i = 0; i < n; ++i) {
        const Seen& h = seen[i];
        const Deferred* d = nullptr;
        for (const Deferred& x : deferred_) {
            const auto at = reinterpret_cast<std::uintptr_t>(x.to);
            if (h.address >= at && h.address < at + x.bytes.size()) d = &x;
        }
        if (!d) continue;  // another part of a page that awaits a copy
        const Op& o = ops_[d->op];
        std::string copy_site, host_site = site_of(program_frames(h));
        StreamRace race;
        race.kind = h.write ? "host-write" : "host-read";
        race.first = describe(d->op, &copy_site);
        race.first_site = copy_site;
        race.first_stream = o.stream;
        race.second = std::string("the host ") + (h.write ? "writes" : "reads") +
                      (host_site.empty() ? "" : " at " + host_site);
        race.second_site = host_site;
        race.device = o.device;
        race.address = h.address;
        race.bytes = 1;
        race.allocation = allocation_text(h.address);
        const std::string key = race.kind + "|" + o.what + "|" + copy_site + "|" + host_site;
        if (reported_.count(key)) continue;
        ++race_count_;
        if (races_.size() >= max_races_kept) {
            reported_.emplace(key, races_.size() + race_count_);
            continue;
        }
        race.fix = "wait for the copy before the host " +
                   std::string(h.write ? "writes" : "reads") +
                   " the buffer: cudaStreamSynchronize on its stream, or cudaEventSynchronize on "
                   "an event recorded after it";
        race.message =
            race.second + " byte " + hex(h.address) +
            (race.allocation.empty() ? "" : " of " + race.allocation) + " before " + race.first +
            " has delivered it: nothing made the host wait for the copy, "
            "so on a GPU the " +
            (h.write ? "copy may overwrite what the host writes" : "host may read the old bytes") +
            " (it does here).\n  fix: " + race.fix;
        Runtime::get().warn(race.message);
        mark(race, o.stream, o.device, true);
        reported_.emplace(key, races_.size());
        races_.push_back(std::move(race));
    }
}

void Ordering::finish() {
    set_protection(false);
    report_host_accesses();
    // The program ends with copies to the host it never waited for: it may have read those bytes
    // before they arrived (or not read them at all).
    for (Deferred& d : deferred_) {
        if (d.op == expected_op) continue;  // cannot be: the queue is empty at the end
        report_unwaited(d, "before it ended");
        program::write(d.to, d.bytes.data(), d.bytes.size());
    }
    deferred_.clear();
}

// [SECTION] Reports

namespace {

// A mark on the timeline where the race shows (the app draws it on the stream's row, Perfetto as
// an instant): at the second operation's issue, on its stream; the host's row for the host.
void mark(const StreamRace& r, int stream, int device, bool host) {
    Runtime& rt = Runtime::get();
    if (!rt.timeline.enabled) return;
    TimelineEvent e;
    e.name = "race: " + r.kind;
    e.category = "race";
    e.process = host ? 0 : 1 + device;
    e.thread = host ? 0 : stream;
    e.start_ns = e.end_ns = host ? rt.host_now() : rt.issue_time();
    e.args = {{"kind", json_string(r.kind)},
              {"first", json_string(r.first)},
              {"second", json_string(r.second)},
              {"fix", json_string(r.fix)}};
    rt.timeline.add(std::move(e));
}

}  // namespace

std::string Ordering::describe(std::uint32_t op, std::string* site) const {
    const Op& o = ops_[op];
    // site_of() runs addr2line: once per distinct call stack, not once per race found (a racy
    // loop reports the same pair of lines thousands of times).
    const std::string key(reinterpret_cast<const char*>(o.frames),
                          sizeof(void*) * std::size_t(std::max(o.depth, 0)));
    auto cached = sites_.find(key);
    if (cached == sites_.end()) {
        CallStack stack;
        std::memcpy(stack.frames, o.frames, sizeof o.frames);
        stack.depth = o.depth;
        cached = sites_.emplace(key, site_of(stack)).first;
    }
    *site = cached->second;
    std::string text = o.what;
    if (o.graph_exec)
        text += " (node " + std::to_string(o.graph_node) + " of graph launch " +
                std::to_string(o.graph_exec) + ")";
    text += o.stream == 0 ? " in the default stream" : " in stream " + std::to_string(o.stream);
    if (Runtime::get().device_count > 1) text += " of device " + std::to_string(o.device);
    if (!site->empty()) text += " at " + *site;
    return text;
}

namespace {

std::string allocation_text(std::uint64_t address) {
    Runtime& rt = Runtime::get();
    const MemoryRecord* r = rt.record_of(reinterpret_cast<const void*>(address));
    if (!r) return "";
    std::string kind = r->kind == MemoryKind::pinned_host       ? "page-locked host"
                       : r->kind == MemoryKind::registered_host ? "registered host"
                       : r->kind == MemoryKind::managed         ? "managed"
                                                                : "device";
    std::string text =
        "the " + std::to_string(r->size) + "-byte " + kind + " allocation at " + hex(r->base);
    const std::string site = site_of(r->allocated_at);
    if (!site.empty()) text += " (made at " + site + ")";
    return text;
}

const char* verb_of(const std::string& what, bool write) {
    if (what.rfind("cudaFreeAsync", 0) == 0) return "frees";
    return write ? "writes" : "reads";
}

}  // namespace

void Ordering::report(const char* kind, std::uint32_t first, std::uint32_t second, std::uint64_t lo,
                      std::uint64_t hi) {
    const Op& a = ops_[first];
    const Op& b = ops_[second];
    // One report per pair of call sites and kind; later ones add their bytes.
    std::string site_a, site_b;
    StreamRace race;
    race.first = describe(first, &site_a);
    race.second = describe(second, &site_b);
    const std::string key = std::string(kind) + "|" + a.what + "|" + site_a + "|" +
                            std::to_string(a.stream) + "|" + b.what + "|" + site_b + "|" +
                            std::to_string(b.stream);
    if (auto it = reported_.find(key); it != reported_.end()) {
        if (it->second < races_.size()) races_[it->second].bytes += hi - lo;
        return;
    }
    ++race_count_;
    if (races_.size() >= max_races_kept) {
        reported_.emplace(key, races_.size() + race_count_);  // counted, not kept
        return;
    }
    race.kind = kind;
    race.first_site = site_a;
    race.second_site = site_b;
    race.first_stream = a.stream;
    race.second_stream = b.stream;
    race.device = b.device;
    race.address = lo;
    race.bytes = hi - lo;
    race.allocation = allocation_text(lo);
    const std::string k = kind;
    const bool first_writes = k != "read-write";
    const bool second_writes = k == "write-write" || k == "read-write";
    const std::string bytes_text =
        "byte " + hex(lo) + (race.allocation.empty() ? "" : " of " + race.allocation);
    std::string head, fix;
    if (k == "use-after-free") {
        head = "use after cudaFreeAsync: " + race.second + " " + verb_of(b.what, second_writes) +
               " " + bytes_text + ", which " + race.first + " freed before it";
        fix = "free the memory after the last work that uses it: issue cudaFreeAsync after " +
              b.what + (site_b.empty() ? "" : " at " + site_b) +
              ", in its stream (or in a stream that waits for it)";
    } else {
        head = "race between streams: " + race.first + " " + verb_of(a.what, first_writes) + " " +
               bytes_text + ", and " + race.second + " " + verb_of(b.what, second_writes) +
               " it, with nothing ordering the two: a GPU may run them in either order or at once";
        const std::string after = a.what + (site_a.empty() ? "" : " at " + site_a);
        const std::string before = b.what + (site_b.empty() ? "" : " at " + site_b);
        if (a.graph_exec && a.graph_exec == b.graph_exec && a.stream == b.stream)
            fix = "add an edge from node " + std::to_string(a.graph_node) + " to node " +
                  std::to_string(b.graph_node) +
                  " of the graph (a dependency when adding the node, or "
                  "cudaGraphAddDependencies), or capture them in one stream";
        else if (a.stream == b.stream && a.device == b.device)
            fix = "order them: make the second one's stream wait for the first one's work";
        else
            fix = "record an event in " +
                  std::string(a.stream == 0 ? "the default stream"
                                            : "stream " + std::to_string(a.stream)) +
                  " after " + after + " (cudaEventRecord) and make " +
                  std::string(b.stream == 0 ? "the default stream"
                                            : "stream " + std::to_string(b.stream)) +
                  " wait for it (cudaStreamWaitEvent) before " + before +
                  "; or synchronise the first stream before issuing the second";
    }
    race.fix = fix;
    race.message = head + ".\n  fix: " + fix;
    Runtime::get().warn(race.message);
    mark(race, b.stream, b.device, false);
    reported_.emplace(key, races_.size());
    races_.push_back(std::move(race));
}

void Ordering::report_unwaited(const Deferred& d, const char* when) {
    const Op& o = ops_[d.op];
    std::string site;
    StreamRace race;
    race.kind = "unwaited";
    race.first = describe(d.op, &site);
    race.first_site = site;
    race.first_stream = o.stream;
    race.device = o.device;
    race.address = reinterpret_cast<std::uint64_t>(d.to);
    race.bytes = d.bytes.size();
    race.allocation = allocation_text(race.address);
    const std::string key = std::string("unwaited|") + o.what + "|" + site + "|" + when;
    if (auto it = reported_.find(key); it != reported_.end()) {
        if (it->second < races_.size()) races_[it->second].bytes += d.bytes.size();
        return;
    }
    ++race_count_;
    if (races_.size() >= max_races_kept) {
        reported_.emplace(key, races_.size() + race_count_);
        return;
    }
    const std::string stream =
        o.stream == 0 ? "the default stream" : "stream " + std::to_string(o.stream);
    race.fix = "wait for the copy before the host reads the buffer: cudaStreamSynchronize(" +
               std::string(o.stream == 0 ? "0" : "the stream") +
               "), or cudaEventSynchronize on an event recorded after it";
    race.message = "the host did not wait for " + race.first + " " + when + ": its " +
                   std::to_string(d.bytes.size()) + " bytes to " + hex(race.address) +
                   (race.allocation.empty() ? "" : " (" + race.allocation + ")") +
                   " arrive at some time after the call returns, on a GPU as here, so what the "
                   "host read of them before was the old contents.\n  fix: " +
                   race.fix;
    Runtime::get().warn(race.message);
    mark(race, o.stream, o.device, true);
    reported_.emplace(key, races_.size());
    races_.push_back(std::move(race));
}

}  // namespace cudalab::cudart
