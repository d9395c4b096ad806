#include "base/hardware.h"

namespace cudalab::hw {

const ArchLimits* arch_limits(std::string_view arch) {
    for (const auto& a : arch_table)
        if (a.name == arch) return &a;
    return nullptr;
}

std::vector<std::string> known_archs() {
    std::vector<std::string> v;
    for (const auto& a : arch_table) v.emplace_back(a.name);
    return v;
}

}  // namespace cudalab::hw
