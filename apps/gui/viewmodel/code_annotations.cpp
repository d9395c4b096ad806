#include "viewmodel/code_annotations.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "base/hardware.h"
#include "viewmodel/format.h"

namespace cudalab::viewmodel {

CodeAnnotations annotate(const analysis::KernelFigures& figures) {
    CodeAnnotations a;
    std::uint32_t max_line = 0;
    std::uint64_t busiest = 0;
    for (const auto& lf : figures.lines) {
        max_line = std::max(max_line, lf.line);
        busiest = std::max(busiest, lf.figures.warp_instructions);
    }
    a.lines.resize(std::size_t(max_line) + 1);
    for (const auto& lf : figures.lines) {
        if (lf.line == 0) continue;  // instructions with no source line (the prelude)
        const analysis::Figures& f = lf.figures;
        LineAnnotation& l = a.lines[lf.line];
        l.line = lf.line;
        l.ran = f.warp_instructions > 0;
        l.warp_instructions = f.warp_instructions;
        l.lane_utilisation = f.branch_efficiency();
        l.heat =
            busiest ? std::log1p(double(f.warp_instructions)) / std::log1p(double(busiest)) : 0;
        const std::uint64_t requests = f.global_load_requests + f.global_store_requests;
        const std::uint64_t sectors = f.global_load_sectors + f.global_store_sectors;
        const std::uint64_t bytes = f.global_load_bytes + f.global_store_bytes;
        if (requests > 0) {
            l.has_global = true;
            a.any_global = true;
            l.sectors_per_request = double(sectors) / double(requests);
            l.sector_efficiency =
                sectors ? double(bytes) / (double(hw::sector_bytes) * double(sectors)) : 1.0;
            l.memory = l.sector_efficiency >= 0.85   ? Verdict::good
                       : l.sector_efficiency >= 0.45 ? Verdict::fair
                                                     : Verdict::poor;
        }
        if (f.shared_requests > 0) {
            l.has_shared = true;
            a.any_shared = true;
            l.bank_conflicts = f.bank_conflicts();
            l.wavefronts_per_request = double(f.shared_wavefronts) / double(f.shared_requests);
            const double extra = double(f.bank_conflicts()) /
                                 double(std::max<std::uint64_t>(1, f.shared_ideal_wavefronts));
            l.banks = f.bank_conflicts() == 0 ? Verdict::good
                      : extra <= 1.0          ? Verdict::fair
                                              : Verdict::poor;
        }
        if (f.branches > 0) {
            a.any_branches = true;
            l.branches = f.branches;
            l.divergent_branches = f.divergent_branches;
            const double share = double(f.divergent_branches) / double(f.branches);
            l.divergence = f.divergent_branches == 0 ? Verdict::good
                           : share <= 0.1            ? Verdict::fair
                                                     : Verdict::poor;
        }
    }
    return a;
}

std::string CodeAnnotations::describe(std::uint32_t line) const {
    const LineAnnotation* l = at(line);
    if (!l) return "line " + std::to_string(line) + ": no instructions ran here";
    std::ostringstream s;
    s << "line " << line << ": " << l->warp_instructions << " warp instructions, "
      << percent(l->lane_utilisation) << " of lanes active on average";
    if (l->has_global)
        s << "\nglobal memory: " << fixed(l->sectors_per_request, 1) << " sectors per request, "
          << percent(l->sector_efficiency) << " of each " << hw::sector_bytes
          << "-byte sector used";
    if (l->has_shared)
        s << "\nshared memory: " << fixed(l->wavefronts_per_request, 1)
          << " wavefronts per request, " << l->bank_conflicts
          << " bank conflicts (extra wavefronts)";
    if (l->branches)
        s << "\nbranches: " << l->branches << " warp branches, " << l->divergent_branches
          << " split the warp";
    return s.str();
}

}  // namespace cudalab::viewmodel
