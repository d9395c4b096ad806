#include "analysis/memory_rules.h"

#include <algorithm>
#include <bit>

#include "base/hardware.h"

namespace cudalab::analysis {

namespace {
// The memory geometry of base/hardware.h, as the counting below uses it.
constexpr std::uint64_t kSector = hw::sector_bytes;
constexpr std::uint64_t kSectorsPerLine = hw::line_bytes / hw::sector_bytes;
constexpr std::uint32_t kBanks = hw::shared_banks;
constexpr std::uint64_t kBankBytes = hw::bank_bytes;
static_assert(kBanks <= 32, "one bit per bank in a 32-bit mask below");
}  // namespace

GlobalAccessCost global_access_cost(const std::array<std::uint64_t, 32>& address,
                                    std::uint32_t mask, std::uint32_t bytes_per_lane) {
    GlobalAccessCost cost;
    // Common case first: the warp's bytes span at most 64 sectors (2 KB), so a bitmap relative to
    // the lowest sector counts them without sorting.
    std::uint64_t lo = ~0ull, hi = 0;
    for (std::uint32_t m = mask; m; m &= m - 1) {
        const int lane = __builtin_ctz(m);
        lo = std::min(lo, address[size_t(lane)]);
        hi = std::max(hi, address[size_t(lane)] + bytes_per_lane - 1);
    }
    if (mask && hi / kSector - lo / kSector < 64) {
        const std::uint64_t first = lo / kSector;
        std::uint64_t bits = 0;
        for (std::uint32_t m = mask; m; m &= m - 1) {
            const int lane = __builtin_ctz(m);
            cost.requested_bytes += bytes_per_lane;
            for (std::uint64_t s = address[size_t(lane)] / kSector;
                 s <= (address[size_t(lane)] + bytes_per_lane - 1) / kSector; ++s)
                bits |= 1ull << (s - first);
        }
        cost.sectors = std::uint32_t(__builtin_popcountll(bits));
        // Lines: groups of kSectorsPerLine sectors, counted from the absolute line boundary.
        std::uint64_t prev_line = ~0ull;
        for (std::uint64_t b = bits; b; b &= b - 1) {
            const std::uint64_t line =
                (first + std::uint64_t(__builtin_ctzll(b))) / kSectorsPerLine;
            if (line != prev_line) {
                ++cost.lines;
                prev_line = line;
            }
        }
        return cost;
    }
    // A lane's bytes can straddle sector boundaries when misaligned; each lane touches at most
    // ceil(bytes/kSector)+1 sectors. Collect sector ids, then count distinct ones.
    std::uint64_t sectors[32 * 2];
    int n = 0;
    for (int lane = 0; lane < 32; ++lane) {
        if (!(mask >> lane & 1)) continue;
        cost.requested_bytes += bytes_per_lane;
        std::uint64_t first = address[size_t(lane)] / kSector;
        std::uint64_t last = (address[size_t(lane)] + bytes_per_lane - 1) / kSector;
        for (std::uint64_t s = first; s <= last && n < 64; ++s) sectors[n++] = s;
    }
    std::sort(sectors, sectors + n);
    std::uint64_t prev_line = ~0ull;
    for (int i = 0; i < n; ++i) {
        if (i > 0 && sectors[i] == sectors[i - 1]) continue;
        ++cost.sectors;
        std::uint64_t line = sectors[i] / kSectorsPerLine;
        if (line != prev_line) {
            ++cost.lines;
            prev_line = line;
        }
    }
    return cost;
}

SharedAccessCost shared_access_cost(const std::array<std::uint64_t, 32>& address,
                                    std::uint32_t mask, std::uint32_t bytes_per_lane) {
    SharedAccessCost cost;
    if (mask == 0) return cost;
    if (bytes_per_lane <= 4) {
        // The common case first: every active lane in a bank of its own is one wavefront.
        std::uint32_t banks = 0;
        for (std::uint32_t m = mask; m; m &= m - 1)
            banks |= 1u << (address[std::size_t(__builtin_ctz(m))] / kBankBytes % kBanks);
        if (std::popcount(banks) == std::popcount(mask)) {
            cost.wavefronts = cost.ideal = 1;
            return cost;
        }
    }
    const int phases = bytes_per_lane >= 16 ? 4 : bytes_per_lane == 8 ? 2 : 1;
    const int lanes_per_phase = 32 / phases;
    const std::uint32_t words_per_lane =
        std::max<std::uint32_t>(1, bytes_per_lane / std::uint32_t(kBankBytes));
    for (int phase = 0; phase < phases; ++phase) {
        // Distinct words per bank within this phase.
        std::uint64_t words[kBanks][32];  // per bank, up to one word per lane
        int counts[kBanks] = {};
        bool any = false;
        for (int lane = phase * lanes_per_phase; lane < (phase + 1) * lanes_per_phase; ++lane) {
            if (!(mask >> lane & 1)) continue;
            any = true;
            for (std::uint32_t w = 0; w < words_per_lane; ++w) {
                std::uint64_t word = address[size_t(lane)] / kBankBytes + w;
                int bank = int(word % kBanks);
                bool seen = false;
                for (int k = 0; k < counts[bank]; ++k)
                    if (words[bank][k] == word) {
                        seen = true;
                        break;
                    }
                if (!seen && counts[bank] < 32) words[bank][counts[bank]++] = word;
            }
        }
        if (!any) continue;
        cost.wavefronts += std::uint32_t(*std::max_element(counts, counts + kBanks));
        cost.ideal += 1;
    }
    return cost;
}

std::uint32_t constant_access_requests(const std::array<std::uint64_t, 32>& address,
                                       std::uint32_t mask) {
    std::uint64_t seen[32];
    std::uint32_t distinct = 0;
    for (std::uint32_t m = mask; m; m &= m - 1) {
        const std::uint64_t a = address[std::size_t(__builtin_ctz(m))];
        if (std::find(seen, seen + distinct, a) == seen + distinct) seen[distinct++] = a;
    }
    return distinct;
}

}  // namespace cudalab::analysis
