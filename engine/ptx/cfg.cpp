#include "ptx/cfg.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace cudalab::ptx {

namespace {

bool ends_block(const Instruction& in) {
    return in.op == Opcode::bra || in.op == Opcode::brx || in.op == Opcode::ret ||
           in.op == Opcode::exit || in.op == Opcode::trap;
}

struct Bitset {
    std::vector<std::uint64_t> words;
    explicit Bitset(size_t n = 0, bool all = false) : words((n + 63) / 64, all ? ~0ull : 0ull) {}
    void set(size_t i) { words[i / 64] |= 1ull << (i % 64); }
    bool test(size_t i) const { return words[i / 64] >> (i % 64) & 1; }
    size_t count() const {
        size_t c = 0;
        for (auto w : words) c += size_t(__builtin_popcountll(w));
        return c;
    }
    bool operator==(const Bitset& o) const { return words == o.words; }
};

}  // namespace

void compute_reconvergence(Function& fn) {
    const int n = int(fn.code.size());
    if (n == 0) return;
    // Basic blocks.
    std::vector<char> leader(size_t(n) + 1, 0);
    leader[0] = 1;
    for (int pc = 0; pc < n; ++pc) {
        const Instruction& in = fn.code[size_t(pc)];
        if (in.op == Opcode::bra && in.target >= 0) leader[size_t(in.target)] = 1;
        if (ends_block(in) && pc + 1 <= n) leader[size_t(pc) + 1] = 1;
    }
    std::vector<int> block_start, block_of(size_t(n), 0);
    for (int pc = 0; pc < n; ++pc) {
        if (leader[size_t(pc)]) block_start.push_back(pc);
        block_of[size_t(pc)] = int(block_start.size()) - 1;
    }
    const int blocks = int(block_start.size());
    const int exit_node = blocks;  // virtual exit
    std::vector<std::vector<int>> succ(size_t(blocks) + 1);
    for (int b = 0; b < blocks; ++b) {
        int end = (b + 1 < blocks ? block_start[size_t(b) + 1] : n) - 1;
        const Instruction& last = fn.code[size_t(end)];
        auto fallthrough = [&] {
            succ[size_t(b)].push_back(end + 1 < n ? block_of[size_t(end) + 1] : exit_node);
        };
        if (last.op == Opcode::bra) {
            succ[size_t(b)].push_back(
                last.target >= 0 && last.target < n ? block_of[size_t(last.target)] : exit_node);
            if (last.guard >= 0) fallthrough();
        } else if (last.op == Opcode::ret || last.op == Opcode::exit || last.op == Opcode::trap) {
            succ[size_t(b)].push_back(exit_node);
            if (last.guard >= 0) fallthrough();
        } else {
            fallthrough();
        }
    }
    // Post-dominator sets, iterated to a fixed point.
    const size_t nodes = size_t(blocks) + 1;
    std::vector<Bitset> pdom(nodes, Bitset(nodes, true));
    pdom[size_t(exit_node)] = Bitset(nodes);
    pdom[size_t(exit_node)].set(size_t(exit_node));
    bool changed = true;
    while (changed) {
        changed = false;
        for (int b = blocks - 1; b >= 0; --b) {
            Bitset next(nodes, true);
            if (succ[size_t(b)].empty()) next = Bitset(nodes);  // no way out (infinite loop)
            for (int s : succ[size_t(b)])
                for (size_t w = 0; w < next.words.size(); ++w)
                    next.words[w] &= pdom[size_t(s)].words[w];
            next.set(size_t(b));
            if (!(next == pdom[size_t(b)])) {
                pdom[size_t(b)] = next;
                changed = true;
            }
        }
    }
    // Immediate post-dominator: the strict post-dominator that all the others post-dominate.
    auto ipdom = [&](int b) {
        size_t strict = pdom[size_t(b)].count() - 1;
        for (size_t d = 0; d < nodes; ++d) {
            if (int(d) == b || !pdom[size_t(b)].test(d)) continue;
            if (pdom[d].count() == strict) return int(d);
        }
        return exit_node;
    };
    for (int pc = 0; pc < n; ++pc) {
        Instruction& in = fn.code[size_t(pc)];
        if (in.op != Opcode::bra) continue;
        int d = ipdom(block_of[size_t(pc)]);
        in.reconverge = d == exit_node ? n : block_start[size_t(d)];
    }
}

}  // namespace cudalab::ptx
