// The shared-memory view's data: 32 banks of 4-byte words (bank = word mod 32). For the current
// warp instruction, which lanes reach which word in which bank, and how many wavefronts the
// access needs (from the analysis: distinct words per bank, per phase); over the whole trace, how
// often each word was touched.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/memory_rules.h"
#include "trace/trace.h"

namespace cudalab::viewmodel {

struct SharedModel {
    bool used = false;       // any traced shared access
    std::uint64_t base = 0;  // lowest touched address, rounded down to 128 bytes
    std::uint64_t rows = 0;  // 128-byte rows (one word per bank) up to the highest touched
    std::vector<std::uint32_t> touches;  // per word from base
    std::vector<std::uint32_t>
        first_event;  // per word: the first event (Trace::events) touching it
    std::uint32_t max_touches = 0;
    std::uint64_t conflicted_requests = 0;  // traced accesses with more wavefronts than ideal
    static SharedModel build(const Trace& trace);
};

struct BankWord {
    std::uint64_t word = 0;   // address / 4
    std::uint32_t lanes = 0;  // lanes that touch it
};

struct SharedAccessView {
    bool valid = false;
    MemOp op = MemOp::load;
    std::uint32_t bytes_per_lane = 4;
    std::uint32_t mask = 0;
    std::array<std::uint64_t, 32> address{};
    std::array<std::vector<BankWord>, 32> banks;  // distinct words per bank, ascending
    std::uint32_t phases = 1;                     // 8-byte accesses: 2 half-warp phases; 16-byte: 4
    std::uint32_t busiest_bank_words = 0;         // the most distinct words any bank serves
    analysis::SharedAccessCost cost;              // from the analysis (what the checks count)
    std::uint32_t source_line = 0;
    std::string instruction;
};

SharedAccessView shared_access_at(const Trace& trace, std::size_t event_index);

}  // namespace cudalab::viewmodel
