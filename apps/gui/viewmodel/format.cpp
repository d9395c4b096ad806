#include "viewmodel/format.h"

#include <cmath>
#include <cstdio>

namespace cudalab::viewmodel {

std::string compact_count(std::uint64_t n) {
    char buf[32];
    if (n < 1000) std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(n));
    else if (n < 10'000) std::snprintf(buf, sizeof buf, "%.1fk", double(n) / 1e3);
    else if (n < 1'000'000) std::snprintf(buf, sizeof buf, "%.0fk", double(n) / 1e3);
    else if (n < 10'000'000) std::snprintf(buf, sizeof buf, "%.1fM", double(n) / 1e6);
    else if (n < 1'000'000'000) std::snprintf(buf, sizeof buf, "%.0fM", double(n) / 1e6);
    else std::snprintf(buf, sizeof buf, "%.1fG", double(n) / 1e9);
    return buf;
}

std::string byte_count(std::uint64_t bytes) {
    char buf[32];
    if (bytes < 1024)
        std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
    else if (bytes < 1024ull * 1024)
        std::snprintf(buf, sizeof buf, "%.1f KB", double(bytes) / 1024.0);
    else if (bytes < 1024ull * 1024 * 1024)
        std::snprintf(buf, sizeof buf, "%.1f MB", double(bytes) / (1024.0 * 1024.0));
    else std::snprintf(buf, sizeof buf, "%.1f GB", double(bytes) / (1024.0 * 1024.0 * 1024.0));
    return buf;
}

std::string fixed(double value, int decimals) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
    return buf;
}

std::string percent(double fraction) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%.0f%%", std::round(fraction * 100.0));
    return buf;
}

}  // namespace cudalab::viewmodel
