#include "viewmodel/shared_model.h"

#include <algorithm>

namespace cudalab::viewmodel {

namespace {
constexpr std::uint64_t kMaxRows = 1u << 16;  // 8 MB of shared memory: more than any SM has
}

SharedModel SharedModel::build(const Trace& trace) {
    SharedModel m;
    std::uint64_t lo = ~0ull, hi = 0;
    for (const WarpEvent& e : trace.events) {
        if (e.mem < 0) continue;
        const MemAccess& a = trace.accesses[std::size_t(e.mem)];
        if (a.space != MemSpace::shared || a.mask == 0) continue;
        m.used = true;
        for (int l = 0; l < 32; ++l) {
            if (!(a.mask >> l & 1)) continue;
            lo = std::min(lo, a.address(l));
            hi = std::max(hi, a.address(l) + a.bytes_per_lane);
        }
        // The emulator's counters cover every block: an instruction whose accesses all took
        // the ideal wavefronts there has no conflict in the traced blocks either. Only the rest
        // are costed one by one (a large trace holds 100 000s of shared accesses).
        if (e.pc < trace.per_pc.size()) {
            const PcCounters& pc = trace.per_pc[e.pc];
            if (pc.shared_wavefronts > 0 && pc.shared_wavefronts == pc.shared_ideal_wavefronts)
                continue;
        }
        auto cost = analysis::shared_access_cost(
            [&] {
                std::array<std::uint64_t, 32> ad{};
                for (int l = 0; l < 32; ++l) ad[std::size_t(l)] = a.address(l);
                return ad;
            }(),
            a.mask, a.bytes_per_lane);
        if (cost.conflicts() > 0) ++m.conflicted_requests;
    }
    if (!m.used) return m;
    m.base = lo / 128 * 128;
    m.rows = std::min<std::uint64_t>(kMaxRows, (hi - m.base + 127) / 128);
    m.touches.assign(std::size_t(m.rows * 32), 0);
    m.first_event.assign(std::size_t(m.rows * 32), ~0u);
    for (std::size_t i = 0; i < trace.events.size(); ++i) {
        const WarpEvent& e = trace.events[i];
        if (e.mem < 0) continue;
        const MemAccess& a = trace.accesses[std::size_t(e.mem)];
        if (a.space != MemSpace::shared) continue;
        for (int l = 0; l < 32; ++l) {
            if (!(a.mask >> l & 1)) continue;
            for (std::uint32_t w = 0; w < std::max<std::uint32_t>(1, a.bytes_per_lane / 4); ++w) {
                std::uint64_t word = (a.address(l) - m.base) / 4 + w;
                if (word >= m.touches.size()) continue;
                m.max_touches = std::max(m.max_touches, ++m.touches[std::size_t(word)]);
                if (m.first_event[std::size_t(word)] == ~0u)
                    m.first_event[std::size_t(word)] = std::uint32_t(i);
            }
        }
    }
    return m;
}

SharedAccessView shared_access_at(const Trace& trace, std::size_t event_index) {
    SharedAccessView v;
    if (event_index >= trace.events.size()) return v;
    const WarpEvent& e = trace.events[event_index];
    if (e.pc < trace.pcs.size()) {
        v.source_line = trace.pcs[e.pc].line;
        v.instruction = trace.pcs[e.pc].text;
    }
    if (e.mem < 0) return v;
    const MemAccess& m = trace.accesses[std::size_t(e.mem)];
    if (m.space != MemSpace::shared) return v;
    v.valid = true;
    v.op = m.op;
    v.bytes_per_lane = m.bytes_per_lane;
    v.mask = m.mask;
    v.phases = m.bytes_per_lane >= 16 ? 4 : m.bytes_per_lane == 8 ? 2 : 1;
    for (int l = 0; l < 32; ++l) v.address[std::size_t(l)] = (m.mask >> l & 1) ? m.address(l) : 0;
    v.cost = analysis::shared_access_cost(v.address, m.mask, m.bytes_per_lane);
    const std::uint32_t words_per_lane = std::max<std::uint32_t>(1, m.bytes_per_lane / 4);
    for (int l = 0; l < 32; ++l) {
        if (!(m.mask >> l & 1)) continue;
        for (std::uint32_t w = 0; w < words_per_lane; ++w) {
            const std::uint64_t word = v.address[std::size_t(l)] / 4 + w;
            auto& bank = v.banks[std::size_t(word % 32)];
            auto it = std::find_if(bank.begin(), bank.end(),
                                   [&](const BankWord& b) { return b.word == word; });
            if (it == bank.end()) bank.push_back({word, 1u << l});
            else it->lanes |= 1u << l;
        }
    }
    for (auto& bank : v.banks) {
        std::sort(bank.begin(), bank.end(),
                  [](const BankWord& a, const BankWord& b) { return a.word < b.word; });
        v.busiest_bank_words =
            std::max<std::uint32_t>(v.busiest_bank_words, std::uint32_t(bank.size()));
    }
    return v;
}

}  // namespace cudalab::viewmodel
