// Short number texts for places with little room: gutters, tiles, tooltips.
#pragma once

#include <cstdint>
#include <string>

namespace cudalab::viewmodel {

// 999 -> "999", 1234 -> "1.2k", 45678 -> "46k", 12345678 -> "12M".
std::string compact_count(std::uint64_t n);
// 512 -> "512 B", 2048 -> "2.0 KB", 3500000 -> "3.3 MB" (binary units).
std::string byte_count(std::uint64_t bytes);
// Fixed decimals, trailing ".0" kept: fixed(4, 1) -> "4.0".
std::string fixed(double value, int decimals);
// 0.873 -> "87%".
std::string percent(double fraction);

}  // namespace cudalab::viewmodel
