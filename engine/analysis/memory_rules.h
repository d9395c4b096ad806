// The memory rules of docs/design.md as pure functions of one warp instruction's per-lane
// addresses. The emulator calls them while it runs (to keep counters for every block) and the
// analysis calls them over detail traces; both backends' traces are judged by the same code.
#pragma once

#include <array>
#include <cstdint>

namespace cudalab::analysis {

struct GlobalAccessCost {
    std::uint32_t sectors = 0;          // distinct 32-byte sectors touched
    std::uint32_t lines = 0;            // distinct 128-byte lines touched
    std::uint32_t requested_bytes = 0;  // bytes the active lanes asked for
};

// Coalescing (CUDA Best Practices Guide; Nsight Compute sectors/request): one request per warp
// memory instruction; sectors = distinct 32-byte segments touched by the active lanes' bytes.
GlobalAccessCost global_access_cost(const std::array<std::uint64_t, 32>& address,
                                    std::uint32_t mask, std::uint32_t bytes_per_lane);

struct SharedAccessCost {
    std::uint32_t wavefronts = 0;  // passes the shared-memory pipeline needs
    std::uint32_t ideal = 0;       // the minimum for this access width
    std::uint32_t conflicts() const { return wavefronts - ideal; }
};

// Banks: 32 banks of 4 bytes, bank = (address / 4) mod 32; lanes reading the same word broadcast.
// Per phase, wavefronts = max over banks of distinct words; 8-byte accesses run as 2 half-warp
// phases, 16-byte ones as 4 quarter-warp phases.
SharedAccessCost shared_access_cost(const std::array<std::uint64_t, 32>& address,
                                    std::uint32_t mask, std::uint32_t bytes_per_lane);

// The constant cache (CUDA C++ Programming Guide, "Constant Memory"): a warp's request is split
// into as many requests as there are distinct addresses among its active lanes, served one after
// another; lanes reading one address share a single request (a broadcast). Returns that count
// (0 for an empty mask).
std::uint32_t constant_access_requests(const std::array<std::uint64_t, 32>& address,
                                       std::uint32_t mask);

}  // namespace cudalab::analysis
