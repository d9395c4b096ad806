#include "viewmodel/first_picture.h"

#include <array>
#include <cstdarg>
#include <cstdio>
#include <map>
#include <set>

#include "analysis/memory_rules.h"
#include "base/hardware.h"

namespace cudalab::viewmodel {

namespace {

std::array<std::uint64_t, 32> lane_addresses(const MemAccess& m) {
    std::array<std::uint64_t, 32> a{};
    for (int l = 0; l < 32; ++l) a[std::size_t(l)] = m.address(l);
    return a;
}

const MemAccess* access_of(const Trace& t, const WarpEvent& e, MemSpace space) {
    if (e.mem < 0 || std::size_t(e.mem) >= t.accesses.size()) return nullptr;
    const MemAccess& m = t.accesses[std::size_t(e.mem)];
    return m.space == space ? &m : nullptr;
}

std::uint32_t line_of(const Trace& t, const WarpEvent& e) {
    return e.kind != EventKind::barrier_release && e.pc < t.pcs.size() ? t.pcs[e.pc].line : 0;
}

bool divergent_branch(const WarpEvent& e) {
    return e.kind == EventKind::branch && e.taken != 0 && e.taken != e.active;
}

__attribute__((format(printf, 1, 2))) std::string format(const char* fmt, ...) {
    char buf[400];
    va_list args;
    va_start(args, fmt);
    std::vsnprintf(buf, sizeof buf, fmt, args);
    va_end(args);
    return buf;
}

// The worst global access of the line that moves the most sectors in the open block: the access
// the memory checks count against the kernel. On a line of atomics, the request whose lanes
// collide on the fewest addresses (they are served one after another).
FirstPicture worst_access(const TraceViews& v, std::size_t block) {
    const Trace& t = v.trace();
    const BlockEvents& b = v.model.detail_blocks()[block];
    struct LineTraffic {
        std::uint64_t sectors = 0, ideal = 0;
        bool writes = false;  // stores or atomics: the result
    };
    std::map<std::uint32_t, LineTraffic> by_line;
    for (std::size_t s = 0; s < b.steps(); ++s) {
        const WarpEvent& e = t.events[b.begin + s];
        if (const MemAccess* m = access_of(t, e, MemSpace::global)) {
            const auto cost =
                analysis::global_access_cost(lane_addresses(*m), m->mask, m->bytes_per_lane);
            LineTraffic& l = by_line[line_of(t, e)];
            l.sectors += cost.sectors;
            l.ideal += std::max<std::uint32_t>(1, (cost.requested_bytes + hw::sector_bytes - 1) /
                                                      hw::sector_bytes);
            l.writes |= m->op != MemOp::load;
        }
    }
    FirstPicture p;
    if (by_line.empty()) return p;  // the view says there is no global access
    auto hottest = [&](bool writes_only) {
        std::uint32_t hot = 0;
        std::uint64_t most = 0;
        for (const auto& [line, l] : by_line)
            if ((!writes_only || l.writes) && l.sectors > most) {
                most = l.sectors;
                hot = line;
            }
        return hot;
    };
    std::uint32_t hot_line = hottest(false);
    // Every access of the busiest line is as cheap as it can be: then the result's writes are the
    // more telling picture (a transpose's stores in short rows, a histogram's few global updates).
    // (A line whose lanes share addresses moves fewer sectors than that: its reuse is the picture.)
    if (by_line[hot_line].sectors == by_line[hot_line].ideal && !by_line[hot_line].writes)
        if (const std::uint32_t w = hottest(true)) hot_line = w;
    std::int64_t best = -1;
    analysis::GlobalAccessCost best_cost;
    std::uint32_t best_lanes = 0, best_distinct = 0;
    bool atomic = false;
    for (std::size_t s = 0; s < b.steps(); ++s) {
        const WarpEvent& e = t.events[b.begin + s];
        const MemAccess* m = access_of(t, e, MemSpace::global);
        if (!m || line_of(t, e) != hot_line) continue;
        const auto addresses = lane_addresses(*m);
        const auto cost = analysis::global_access_cost(addresses, m->mask, m->bytes_per_lane);
        const std::uint32_t lanes = std::uint32_t(__builtin_popcount(m->mask));
        std::set<std::uint64_t> distinct;
        for (int l = 0; l < 32; ++l)
            if (m->mask >> l & 1) distinct.insert(addresses[std::size_t(l)]);
        const bool is_atomic = m->op == MemOp::atomic;
        // Atomics: the most lanes per address; loads and stores: the most sectors.
        // (Ties: the request with more lanes, the fuller picture.)
        const std::uint32_t mine = lanes * best_distinct,
                            theirs = best_lanes * std::uint32_t(distinct.size());
        const bool better =
            best < 0 || (is_atomic ? mine > theirs || (mine == theirs && lanes > best_lanes)
                                   : cost.sectors > best_cost.sectors);
        if (better) {
            best = std::int64_t(s);
            best_cost = cost;
            best_lanes = lanes;
            best_distinct = std::uint32_t(distinct.size());
            atomic = is_atomic;
        }
    }
    p.step = best;
    const WarpEvent& e = t.events[b.begin + std::size_t(best)];
    const MemAccess& m = t.accesses[std::size_t(e.mem)];
    const std::uint32_t ideal = std::max<std::uint32_t>(
        1, (best_cost.requested_bytes + hw::sector_bytes - 1) / hw::sector_bytes);
    const char* verb = m.op == MemOp::load ? "reads" : "writes";
    if (atomic && best_distinct == best_lanes)
        p.caption = format("Line %u: warp %u's %u atomic updates each go to an address of their "
                           "own: no lane waits for "
                           "another. The cells glow by how often the traced block hit them.",
                           hot_line, unsigned(e.warp), best_lanes);
    else if (atomic)
        p.caption =
            format("Line %u: warp %u's %u atomic updates land on %u different addresses; lanes on "
                   "the same one "
                   "wait for each other. The cells glow by how often the traced block hit them.",
                   hot_line, unsigned(e.warp), best_lanes, best_distinct);
    else if (best_cost.sectors > ideal)
        p.caption = format("Line %u moves the most sectors: here warp %u %s %u B with %u lanes and "
                           "touches %u sectors, "
                           "where %u would do. The lit cells are its lanes.",
                           hot_line, unsigned(e.warp), verb, best_cost.requested_bytes, best_lanes,
                           best_cost.sectors, ideal);
    else
        p.caption = format("Line %u moves the most sectors: warp %u %s %u B with %u lanes in %u "
                           "sector%s, the fewest "
                           "possible: neighbouring lanes, neighbouring cells.",
                           hot_line, unsigned(e.warp), verb, best_cost.requested_bytes, best_lanes,
                           best_cost.sectors, best_cost.sectors == 1 ? "" : "s");
    return p;
}

FirstPicture first_split(const TraceViews& v, std::size_t block) {
    FirstPicture p;
    const Trace& t = v.trace();
    const BlockEvents& b = v.model.detail_blocks()[block];
    p.step = find_step(v, block, "divergence");
    if (p.step >= 0) {
        const WarpEvent& e = t.events[b.begin + std::size_t(p.step)];
        const auto warps = v.model.warps_at(block, p.step);
        const WarpState& w = warps[e.warp];
        const unsigned running = unsigned(__builtin_popcount(e.active));
        const unsigned waiting = unsigned(__builtin_popcount(w.lanes & ~w.exited & ~e.active));
        p.caption = format("The first split: warp %u runs line %u with %u lane%s while %u wait%s "
                           "for the other side of "
                           "the branch. Both sides take the warp's time.",
                           unsigned(e.warp), line_of(t, e), running, running == 1 ? "" : "s",
                           waiting, waiting == 1 ? "s" : "");
        return p;
    }
    p.step = find_step(v, block, "barrier");
    if (p.step >= 0) {
        p.caption = "No warp of this block splits at a branch. Here the warps meet at "
                    "__syncthreads(): each waits until "
                    "the last arrives.";
        return p;
    }
    p.step = find_step(v, block, "global");
    p.caption = "No warp of this block splits at a branch: all 32 lanes of a warp run every "
                "instruction together.";
    return p;
}

FirstPicture first_conflict(const TraceViews& v, std::size_t block) {
    FirstPicture p;
    const Trace& t = v.trace();
    const BlockEvents& b = v.model.detail_blocks()[block];
    p.step = find_step(v, block, "conflict");
    if (p.step >= 0) {
        const WarpEvent& e = t.events[b.begin + std::size_t(p.step)];
        const MemAccess& m = t.accesses[std::size_t(e.mem)];
        const auto cost = analysis::shared_access_cost(lane_addresses(m), m.mask, m.bytes_per_lane);
        p.caption = format("The first bank conflict: line %u needs %u wavefronts where %u would "
                           "do; the lanes stacked in "
                           "one bank are served one after another.",
                           line_of(t, e), cost.wavefronts, cost.ideal);
        return p;
    }
    // No conflict: the access whose neighbouring lanes are furthest apart, the one that would
    // conflict without care (a padded tile's column), else the first.
    std::int64_t widest = -1;
    std::uint64_t widest_stride = 0;
    for (std::size_t s = 0; s < b.steps(); ++s) {
        const MemAccess* m = access_of(t, t.events[b.begin + s], MemSpace::shared);
        if (!m || __builtin_popcount(m->mask) < 2) continue;
        const int l0 = __builtin_ctz(m->mask), l1 = __builtin_ctz(m->mask & ~(1u << l0));
        const std::uint64_t a0 = m->address(l0), a1 = m->address(l1);
        const std::uint64_t stride = (a1 > a0 ? a1 - a0 : a0 - a1) / std::uint64_t(l1 - l0);
        if (widest < 0 || stride > widest_stride) {
            widest = std::int64_t(s);
            widest_stride = stride;
        }
    }
    p.step = widest >= 0 ? widest : find_step(v, block, "shared");
    if (p.step >= 0) {
        const WarpEvent& e = t.events[b.begin + std::size_t(p.step)];
        if (widest >= 0 && widest_stride > 4)
            p.caption = format("Line %u: neighbouring lanes are %llu bytes apart, yet each lands "
                               "in its own bank: one pass, "
                               "no conflict.",
                               line_of(t, e), static_cast<unsigned long long>(widest_stride));
        else
            p.caption = format("Line %u: the lanes reach shared memory in distinct banks (or share "
                               "a word): one pass, no "
                               "conflict.",
                               line_of(t, e));
        return p;
    }
    return p;  // the view says the kernel uses no shared memory
}

FirstPicture first_barrier(const TraceViews& v, std::size_t block) {
    FirstPicture p;
    p.step = find_step(v, block, "barrier");
    if (p.step >= 0) {
        p.caption = "The first __syncthreads(): warps that arrived early wait (grey) until the "
                    "block's last warp gets "
                    "there; the marks on the strip are the barriers.";
        return p;
    }
    p.step = find_step(v, block, "divergence");
    p.caption =
        "No barrier in this block: each warp runs on its own; the strip shows which warp ran when.";
    return p;
}

}  // namespace

bool is_step_kind(const std::string& kind) {
    return kind == "global" || kind == "shared" || kind == "conflict" || kind == "barrier" ||
           kind == "divergence" || kind == "exit";
}

std::int64_t find_step(const TraceViews& views, std::size_t block, const std::string& kind,
                       std::int64_t from) {
    const auto& blocks = views.model.detail_blocks();
    if (block >= blocks.size() || !is_step_kind(kind)) return -1;
    const Trace& t = views.trace();
    const BlockEvents& b = blocks[block];
    for (std::size_t s = std::size_t(std::max<std::int64_t>(0, from)); s < b.steps(); ++s) {
        const WarpEvent& e = t.events[b.begin + s];
        bool match = false;
        if (kind == "global") match = access_of(t, e, MemSpace::global) != nullptr;
        else if (kind == "shared") match = access_of(t, e, MemSpace::shared) != nullptr;
        else if (kind == "conflict") {
            if (const MemAccess* m = access_of(t, e, MemSpace::shared))
                match = analysis::shared_access_cost(lane_addresses(*m), m->mask, m->bytes_per_lane)
                            .conflicts() > 0;
        } else if (kind == "barrier") match = e.kind == EventKind::barrier_release;
        else if (kind == "exit") match = e.kind == EventKind::exit;
        else if (kind == "divergence" && divergent_branch(e)) {
            // The branch only decides; the split shows at the warp's next instruction, which runs
            // one side's lanes while the others wait.
            for (std::size_t n = s + 1; n < b.steps(); ++n) {
                const WarpEvent& next = t.events[b.begin + n];
                if (next.kind == EventKind::barrier_release || next.warp != e.warp) continue;
                if (next.active != e.active) return std::int64_t(n);
                break;  // the warp went on whole (both sides empty): not a visible split
            }
        }
        if (match) return std::int64_t(s);
    }
    return -1;
}

FirstPicture first_picture(const TraceViews& views, std::size_t block, const std::string& view) {
    if (block >= views.model.detail_blocks().size()) return {};
    if (view == "warps") return first_split(views, block);
    if (view == "shared") return first_conflict(views, block);
    if (view == "timeline") return first_barrier(views, block);
    if (view == "grid") {
        FirstPicture p = find_step(views, block, "divergence") >= 0 ? first_split(views, block)
                                                                    : worst_access(views, block);
        const unsigned warps = views.model.warps_per_block();
        const unsigned blocks = views.model.block_count();
        p.caption = format("%u block%s of %u threads (%u warp%s each); the outlined block is "
                           "traced step by step, its "
                           "threads coloured by what they do now.",
                           blocks, blocks == 1 ? "" : "s", views.model.threads_per_block(), warps,
                           warps == 1 ? "" : "s");
        return p;
    }
    // memory, hierarchy
    FirstPicture p = worst_access(views, block);
    if (view == "hierarchy" && p.step >= 0) {
        const auto& f = views.figures.total;
        p.caption = format("Over the whole launch: loads move %.1f sectors per request, stores "
                           "%.1f (32 neighbouring "
                           "floats need 4).",
                           f.load_sectors_per_request(), f.store_sectors_per_request());
    }
    return p;
}

}  // namespace cudalab::viewmodel
