// What the code panel's gutter shows next to each source line, from the analysis' per-line
// figures: how often the line ran (warp instructions), global sectors per request and how much of
// each sector was used, shared-memory bank conflicts, divergent branches. Each figure comes with a
// verdict (good / so-so / bad) the renderer turns into a colour.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/metrics.h"

namespace cudalab::viewmodel {

enum class Verdict : std::uint8_t { none, good, fair, poor };

struct LineAnnotation {
    std::uint32_t line = 0;
    bool ran = false;
    std::uint64_t warp_instructions = 0;
    double lane_utilisation = 1;  // active lanes / 32 per warp instruction
    bool has_global = false;
    double sectors_per_request = 0;
    double sector_efficiency = 1;  // requested bytes / (32 x sectors)
    Verdict memory = Verdict::none;
    bool has_shared = false;
    std::uint64_t bank_conflicts = 0;  // extra wavefronts
    double wavefronts_per_request = 0;
    Verdict banks = Verdict::none;
    std::uint64_t branches = 0, divergent_branches = 0;
    Verdict divergence = Verdict::none;
    double heat = 0;  // warp instructions relative to the busiest line, 0..1
};

struct CodeAnnotations {
    std::vector<LineAnnotation> lines;  // indexed by source line (entry 0 unused)
    bool any_global = false, any_shared = false, any_branches = false;
    const LineAnnotation* at(std::uint32_t line) const {
        return line < lines.size() && lines[line].ran ? &lines[line] : nullptr;
    }
    // A line's figures in words, for a tooltip.
    std::string describe(std::uint32_t line) const;
};

CodeAnnotations annotate(const analysis::KernelFigures& figures);

}  // namespace cudalab::viewmodel
