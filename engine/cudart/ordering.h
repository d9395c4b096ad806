// What a GPU orders and what it does not: happens-before over streams, events, the legacy default
// stream, graph edges and the host's waits, and the bytes each piece of stream work touches, so
// that two accesses to the same bytes that nothing orders are reported as a race between streams
// (docs/runtime.md, "Races between streams").
//
// The runtime runs work when it is issued, in issue order: one valid order, so the bytes come out
// as in a correct program whatever the program forgot to order. The clocks here say what a GPU
// would be free to reorder. Every stream (and every node of a launched graph) is an agent with a
// counter; each piece of work is stamped with its agent's next count and carries a vector clock of
// everything ordered before it. Work B is ordered after work A when B's clock has reached A's
// count on A's agent. A shadow of memory keeps, per run of bytes, the last work that wrote it and
// the works that read it since; a new access checks them. The host is one more party: it never
// touches device memory itself, but its waits make later work ordered after earlier work.
//
// Device-to-host copies into page-locked memory are delivered when the host (or later work that
// is ordered after them) waits for them, not when issued: a host that reads the buffer without
// waiting sees what a GPU may leave there, the old bytes, and the copy is reported at exit.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "runtime/backend.h"

namespace cudalab::cudart {

struct Stream;
struct Event;
struct CallStack;

struct Clock {
    std::vector<std::uint32_t> at;  // by agent
    void join(const Clock& other);
    std::uint32_t of(std::uint32_t agent) const { return agent < at.size() ? at[agent] : 0; }
};

// One reported race: two pieces of work that touch the same bytes, at least one writing, with
// nothing ordering them. Or, with `second` < 0, a copy to the host the host never waited for.
struct StreamRace {
    std::string kind;  // "write-write", "write-read", "read-write", "use-after-free", "unwaited"
    std::string first, second;            // "kernel 'scale' in stream 2 at main.cu:41"
    std::string first_site, second_site;  // "main.cu:41" (empty when unknown)
    int first_stream = -1, second_stream = -1;
    int device = 0;
    std::uint64_t address = 0, bytes = 0;  // the first run of bytes both touch, and all of them
    std::string allocation;                // "the 4096-byte allocation made at main.cu:20"
    std::string fix;
    std::string message;  // the whole report, as printed
};

class Ordering {
  public:
    bool enabled = true;
    // While a graph's node runs: where the program made the node (else begin() takes the host's
    // call stack).
    const CallStack* node_site = nullptr;

    // [SECTION] Stream work
    // Starts a piece of work on `s` (after the host's issue and the legacy stream's rule); returns
    // its number (0 when off). `what`: "kernel 'scale'", "cudaMemcpyAsync (device to host)".
    std::uint32_t begin(Stream* s, const std::string& what);
    // The bytes the work touched.
    void touch(std::uint32_t op, std::uint64_t lo, std::uint64_t hi, bool write);
    void touch(std::uint32_t op, const std::vector<MemorySpan>& spans);
    // cudaFreeAsync's work: later work that reaches the bytes is a use after free.
    void free_range(std::uint32_t op, std::uint64_t lo, std::uint64_t hi);
    // Memory (re)allocated: what happened to its bytes before is no longer anyone's business.
    void forget(std::uint64_t lo, std::uint64_t hi);

    // [SECTION] Orderings
    void record_event(Event* e, Stream* s);  // e holds what s has done so far
    void stream_waits(Stream* s, const Event* e);
    void host_waits(Stream* s);  // cudaStreamSynchronize, a blocking copy, ...
    void host_waits(const Event* e);
    void host_waits_device(int device);
    // The host waited for the work begun last (a copy from pageable memory returns when done).
    void host_waits_work(std::uint32_t op);
    // A graph launch: node i's work runs with the launch's clock joined with its dependencies'.
    void begin_graph(Stream* s, int exec_id, std::size_t nodes);
    void begin_node(Stream* s, std::size_t node, const std::vector<std::size_t>& dependencies);
    void end_node(Stream* s, std::size_t node);
    void end_graph(Stream* s);

    // [SECTION] Copies to the host, delivered when waited for
    // Keeps the bytes of a device-to-host copy (the work `op`) until it is waited for.
    void defer(std::uint32_t op, std::uint8_t* to, std::vector<std::uint8_t> bytes);
    // A copy to `to` is queued for the device thread (executor.h): its place among the deferred
    // copies is held, and its pages protected, from now, as if it had run in its call; defer()
    // fills it. forget_expected(): the copy ran without deferring (or failed).
    void expect(std::uint8_t* to, std::uint64_t bytes);
    void forget_expected(std::uint8_t* to);
    // Delivers whatever the host now waits for; at exit, reports what it never did.
    void deliver_waited();
    // Between calls the pages awaiting a copy are protected, so that the host's own read (or
    // write) of them is seen (a fault the handler records and lets through to the old bytes) and
    // reported with its line. enter_call(): a call begins (unprotect; report what the host did);
    // leave_call(): it ends (protect what still awaits its copy).
    void enter_call();
    void leave_call();
    // The program touched protected bytes (its library saw the fault in its own process).
    void program_accessed(std::uintptr_t address, bool write, void* const* frames, int depth);
    // The host frees (or unregisters) [lo, hi) with copies into it it never waited for.
    void unwaited(const char* when, std::uint64_t lo, std::uint64_t hi);
    void finish();

    // [SECTION] Reports
    const std::vector<StreamRace>& races() const { return races_; }
    std::uint64_t race_count() const { return race_count_; }

  private:
    struct Op {
        std::uint32_t agent = 0, count = 0;
        Clock clock;  // everything ordered before it, itself included
        std::string what;
        int stream = -1, device = 0;
        void* frames[12] = {};  // the host's call stack when issued (resolved for messages only)
        int depth = 0;
        int graph_exec = 0, graph_node = -1;
        bool free = false;
    };
    struct Segment {
        std::uint64_t hi = 0;
        std::uint32_t write = 0;           // the last op that wrote these bytes (0: none)
        std::vector<std::uint32_t> reads;  // ops that read them since
    };
    static constexpr std::uint32_t expected_op = 0xffffffffu;  // queued, not yet run
    struct Deferred {
        std::uint32_t op;
        std::uint8_t* to;
        std::vector<std::uint8_t> bytes;  // (an expected copy's: zeros of its size)
    };
    bool any_expected() const;
    struct GraphRun {
        Clock base;
        std::vector<Clock> node_clocks;
        std::uint32_t first_agent = 0;
        int exec_id = 0;
        int node = -1;
    };

    bool ordered(std::uint32_t before, std::uint32_t after) const;
    std::uint32_t agent_of(Stream* s);
    Clock& clock_of(Stream* s);
    void apply_legacy_rule(Stream* s, Clock& c);
    void check(std::uint32_t op, std::uint64_t lo, std::uint64_t hi, bool write);
    void report(const char* kind, std::uint32_t first, std::uint32_t second, std::uint64_t lo,
                std::uint64_t hi);
    std::string describe(std::uint32_t op, std::string* site) const;
    void report_unwaited(const Deferred& d, const char* when);
    void report_host_accesses();
    void set_protection(bool on);
    void deliver_before(std::uint32_t op);
    std::map<std::uint64_t, Segment>::iterator split(std::uint64_t at);

    std::vector<Op> ops_ = std::vector<Op>(1);  // [0]: none
    Clock host_;
    std::uint32_t agents_ = 0;
    std::map<std::uint64_t, Segment> shadow_;  // by first byte
    std::vector<Deferred> deferred_;
    std::map<std::tuple<int, int, std::size_t>, std::uint32_t> node_agents_;  // exec, stream, node
    Clock current_;  // the clock of the work begun last
    std::uint32_t current_op_ = 0;
    std::vector<GraphRun> graphs_;  // launches in progress (a child graph nests)
    std::vector<StreamRace> races_;
    std::uint64_t race_count_ = 0;
    std::map<std::string, std::size_t> reported_;  // (sites, kind) -> index into races_
    bool overflowed_ = false;
    bool protected_ = false;
    mutable std::map<std::string, std::string> sites_;  // call stack (raw frames) -> file:line
};

}  // namespace cudalab::cudart
