#include "cudart/managed.h"
#include "cudart/program_link.h"
#include "cudart/program_memory.h"

#include <signal.h>
#include <sys/mman.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

namespace cudalab::cudart::managed {

namespace {

// Regions live in a fixed table so that the fault handler can read it without locks.
struct Region {
    std::atomic<std::uintptr_t> base{0};
    std::uint64_t bytes = 0;
    std::atomic<std::uint8_t>* on_device = nullptr;  // per page
    std::uint8_t* read_mostly = nullptr;             // per page
    std::uint8_t* reported = nullptr;                // per page: its home at the last take_moves()
};
constexpr int max_regions = 4096;
Region regions[max_regions];
std::atomic<int> live{0};  // regions in use
std::atomic<bool> device_phase{false};
std::atomic<std::uint64_t> h2d{0}, d2h{0}, prefetched{0};
struct sigaction previous;
std::once_flag installed;
std::mutex table_mutex;

Region* region_of(std::uintptr_t a) {
    for (auto& r : regions) {
        const std::uintptr_t b = r.base.load(std::memory_order_acquire);
        if (b && a >= b && a < b + r.bytes) return &r;
    }
    return nullptr;
}

void protect_page(const Region& r, std::uint64_t page, int prot) {
    ::mprotect(reinterpret_cast<void*>(r.base.load() + page * page_bytes), page_bytes, prot);
}

// Applies the protection of the current phase to every page of a region, in runs: in this
// process's view, and (in the host's phase) in the program's, where the host's touches happen
// (the device process serves a program in another process; program_link.h).
void apply(const Region& r) {
    const std::uint64_t pages = r.bytes / page_bytes;
    const bool device = device_phase.load();
    const bool program_elsewhere = program::pid() != 0;
    std::uint64_t run = 0;
    int run_prot = -1;
    for (std::uint64_t p = 0; p <= pages; ++p) {
        int prot = -1;
        if (p < pages) {
            const bool here = r.read_mostly[p] || (r.on_device[p].load() != 0) == device;
            prot = here ? PROT_READ | PROT_WRITE : PROT_NONE;
        }
        if (prot != run_prot) {
            if (run_prot >= 0 && p > run) {
                void* at = reinterpret_cast<void*>(r.base.load() + run * page_bytes);
                const std::uint64_t bytes = (p - run) * page_bytes;
                if (!program_elsewhere) {
                    ::mprotect(at, bytes, run_prot);
                } else if (device) {
                    // Kernels run here: their touches of host pages fault here.
                    ::mprotect(at, bytes, run_prot);
                } else {
                    // The host's touches happen in the program; this process's own reads (a copy,
                    // the provenance of what a kernel wrote) are not the host's.
                    ::mprotect(at, bytes, PROT_READ | PROT_WRITE);
                    link::protect_in_program(at, bytes, run_prot);
                }
            }
            run = p;
            run_prot = prot;
        }
    }
}

void on_fault(int sig, siginfo_t* info, void* context) {
    const auto a = reinterpret_cast<std::uintptr_t>(info->si_addr);
    Region* r = region_of(a);
    if (!r) {
        // Not ours: let the previous handler (or the default action) deal with it.
        if (previous.sa_flags & SA_SIGINFO) {
            if (previous.sa_sigaction) return previous.sa_sigaction(sig, info, context);
        } else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
            return previous.sa_handler(sig);
        }
        ::signal(SIGSEGV, SIG_DFL);
        return;  // the access faults again, now with the default action
    }
    const std::uint64_t page = (a - r->base.load()) / page_bytes;
    const std::uint8_t want = device_phase.load() ? 1 : 0;
    if (r->on_device[page].exchange(want) != want) (want ? h2d : d2h).fetch_add(1);
    protect_page(*r, page, PROT_READ | PROT_WRITE);
}

void install() {
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    ::sigaction(SIGSEGV, &sa, &previous);
}

}  // namespace

bool enabled() {
    static const bool on = [] {
        const char* v = std::getenv("CUDALAB_MANAGED_PAGING");
        return !(v && std::strcmp(v, "0") == 0);
    }();
    return on;
}

void add(void* base, std::uint64_t bytes) {
    if (!enabled()) return;
    std::call_once(installed, install);
    std::lock_guard lock(table_mutex);
    for (auto& r : regions) {
        if (r.base.load()) continue;
        const std::uint64_t pages = (bytes + page_bytes - 1) / page_bytes;
        r.bytes = pages * page_bytes;
        r.on_device = new std::atomic<std::uint8_t>[pages];
        for (std::uint64_t p = 0; p < pages; ++p) r.on_device[p] = 0;
        r.read_mostly = new std::uint8_t[pages]();
        r.reported = new std::uint8_t[pages]();
        r.base.store(reinterpret_cast<std::uintptr_t>(base), std::memory_order_release);
        ++live;
        return;
    }
}

bool any() { return live.load() > 0; }

void remove(void* base) {
    std::lock_guard lock(table_mutex);
    for (auto& r : regions) {
        if (r.base.load() != reinterpret_cast<std::uintptr_t>(base)) continue;
        ::mprotect(base, r.bytes, PROT_READ | PROT_WRITE);
        r.base.store(0);
        --live;
        delete[] r.on_device;
        delete[] r.read_mostly;
        delete[] r.reported;
        r.on_device = nullptr;
        r.read_mostly = nullptr;
        r.reported = nullptr;
        return;
    }
}

void enter_device() {
    if (!enabled()) return;
    std::lock_guard lock(table_mutex);
    device_phase = true;
    for (auto& r : regions)
        if (r.base.load()) apply(r);
}

void leave_device() {
    if (!enabled()) return;
    std::lock_guard lock(table_mutex);
    device_phase = false;
    for (auto& r : regions)
        if (r.base.load()) apply(r);
}

void prefetch(const void* base, std::uint64_t bytes, int device) {
    if (!enabled()) return;
    std::lock_guard lock(table_mutex);
    const auto a = reinterpret_cast<std::uintptr_t>(base);
    Region* r = region_of(a);
    if (!r) return;
    const std::uint64_t first = (a - r->base.load()) / page_bytes;
    const std::uint64_t last = std::min<std::uint64_t>(
        r->bytes / page_bytes, (a - r->base.load() + bytes + page_bytes - 1) / page_bytes);
    for (std::uint64_t p = first; p < last; ++p)
        if (r->on_device[p].exchange(device >= 0 ? 1 : 0) != (device >= 0 ? 1 : 0))
            prefetched += page_bytes;
    apply(*r);
}

void read_mostly(const void* base, std::uint64_t bytes, bool on) {
    if (!enabled()) return;
    std::lock_guard lock(table_mutex);
    const auto a = reinterpret_cast<std::uintptr_t>(base);
    Region* r = region_of(a);
    if (!r) return;
    const std::uint64_t first = (a - r->base.load()) / page_bytes;
    const std::uint64_t last = std::min<std::uint64_t>(
        r->bytes / page_bytes, (a - r->base.load() + bytes + page_bytes - 1) / page_bytes);
    for (std::uint64_t p = first; p < last; ++p) r->read_mostly[p] = on;
    apply(*r);
}

void host_touched(std::uintptr_t address) {
    if (!enabled()) return;
    std::lock_guard lock(table_mutex);
    Region* r = region_of(address);
    if (!r) return;
    const std::uint64_t page = (address - r->base.load()) / page_bytes;
    if (r->on_device[page].exchange(0) != 0) d2h.fetch_add(1);
    if (!device_phase.load()) protect_page(*r, page, PROT_READ | PROT_WRITE);
}

Counters counters() { return {h2d.load(), d2h.load(), prefetched.load()}; }

std::vector<PageMove> take_moves() {
    std::vector<PageMove> moves;
    if (!enabled()) return moves;
    std::lock_guard lock(table_mutex);
    for (auto& r : regions) {
        const std::uintptr_t base = r.base.load();
        if (!base) continue;
        const std::uint64_t pages = r.bytes / page_bytes;
        for (std::uint64_t p = 0; p < pages; ++p) {
            const std::uint8_t now = r.on_device[p].load();
            if (now == r.reported[p]) continue;
            r.reported[p] = now;
            if (!moves.empty() && moves.back().base == base &&
                moves.back().to_device == bool(now) && moves.back().first + moves.back().count == p)
                ++moves.back().count;
            else moves.push_back({base, pages, p, 1, bool(now)});
        }
    }
    return moves;
}

}  // namespace cudalab::cudart::managed
