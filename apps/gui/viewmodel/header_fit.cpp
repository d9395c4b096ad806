#include "viewmodel/header_fit.h"

namespace cudalab::viewmodel {

HeaderStatus fit_header_status(const std::vector<std::string>& chips,
                               const std::vector<std::string>& details, float available,
                               const std::function<float(const std::string&)>& chip_width,
                               const std::function<float(const std::string&)>& detail_width,
                               float gap) {
    HeaderStatus out;
    for (std::size_t i = 0; i < chips.size(); ++i) {
        const float w = chip_width(chips[i]);
        if (w <= available) {
            out.chip = int(i);
            out.width = w;
            break;
        }
    }
    if (out.chip < 0) return out;
    for (std::size_t i = 0; i < details.size(); ++i) {
        if (details[i].empty()) continue;
        const float w = out.width + gap + detail_width(details[i]);
        if (w <= available) {
            out.detail = int(i);
            out.width = w;
            break;
        }
    }
    return out;
}

}  // namespace cudalab::viewmodel
