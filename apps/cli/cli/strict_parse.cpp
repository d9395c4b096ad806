#include "cli/strict_parse.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>

namespace cli {

namespace {

// Digits only (after an optional 0x), no sign, no blanks: what strtoull would half-accept is
// refused.
std::optional<std::uint64_t> magnitude(const std::string& text, bool allow_hex) {
    std::size_t start = 0;
    int base = 10;
    if (allow_hex && text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
        start = 2;
        base = 16;
    }
    if (start >= text.size()) return std::nullopt;
    std::uint64_t value = 0;
    for (std::size_t i = start; i < text.size(); ++i) {
        const char c = text[i];
        int digit;
        if (c >= '0' && c <= '9') digit = c - '0';
        else if (base == 16 && c >= 'a' && c <= 'f') digit = c - 'a' + 10;
        else if (base == 16 && c >= 'A' && c <= 'F') digit = c - 'A' + 10;
        else return std::nullopt;
        if (value > (std::numeric_limits<std::uint64_t>::max() - std::uint64_t(digit)) /
                        std::uint64_t(base))
            return std::numeric_limits<std::uint64_t>::max();  // saturate: out of any range below
        value = value * std::uint64_t(base) + std::uint64_t(digit);
    }
    return value;
}

std::string shown(const std::string& text) {
    return text.size() > 40 ? text.substr(0, 40) + "..." : text;
}

}  // namespace

std::optional<std::uint64_t> parse_unsigned(const std::string& text, std::uint64_t min,
                                            std::uint64_t max, const std::string& what,
                                            std::string* error, bool allow_hex) {
    const auto v = magnitude(text, allow_hex);
    if (!v) {
        *error = what + ": '" + shown(text) + "' is not a whole number" +
                 (min == 0 ? " (0 or more)" : " (1 or more)");
        return std::nullopt;
    }
    if (*v < min || *v > max) {
        *error = what + ": " + shown(text) + " is out of range (" + std::to_string(min) + " to " +
                 std::to_string(max) + ")";
        return std::nullopt;
    }
    return v;
}

std::optional<std::int64_t> parse_signed(const std::string& text, std::int64_t min,
                                         std::int64_t max, const std::string& what,
                                         std::string* error, bool allow_hex) {
    const bool negative = !text.empty() && text[0] == '-';
    const std::string digits =
        negative || (!text.empty() && text[0] == '+') ? text.substr(1) : text;
    const auto v = magnitude(digits, allow_hex);
    if (!v) {
        *error = what + ": '" + shown(text) + "' is not a whole number";
        return std::nullopt;
    }
    const __int128 value = negative ? -static_cast<__int128>(*v) : static_cast<__int128>(*v);
    if (value < min || value > max) {
        *error = what + ": " + shown(text) + " is out of range (" + std::to_string(min) + " to " +
                 std::to_string(max) + ")";
        return std::nullopt;
    }
    return static_cast<std::int64_t>(value);
}

std::optional<double> parse_real(const std::string& text, bool single, const std::string& what,
                                 std::string* error) {
    if (text.empty() || text.find_first_of(" \t\n") != std::string::npos) {
        *error = what + ": '" + shown(text) + "' is not a number";
        return std::nullopt;
    }
    errno = 0;
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size()) {
        *error = what + ": '" + shown(text) + "' is not a number";
        return std::nullopt;
    }
    const double largest =
        single ? double(std::numeric_limits<float>::max()) : std::numeric_limits<double>::max();
    if ((errno == ERANGE && std::isinf(v)) || (std::isfinite(v) && std::fabs(v) > largest)) {
        *error = what + ": " + shown(text) + " is out of range for " + (single ? "f32" : "f64");
        return std::nullopt;
    }
    return v;
}

bool parse_limits(const LimitFlags& f, Limits* l, std::string* error) {
    l->no_sandbox = f.no_sandbox;
    if (!f.budget.empty()) {
        auto v = parse_unsigned(f.budget, 1, 1'000'000'000'000ull, "--budget", error);
        if (!v) return false;
        l->budget = *v;
    }
    if (!f.memory_mb.empty()) {
        auto v = parse_unsigned(f.memory_mb, 1, 1u << 20, "--memory-limit (MB)", error);
        if (!v) return false;
        l->memory_mb = *v;
    }
    if (!f.printf_kb.empty()) {
        auto v = parse_unsigned(f.printf_kb, 1, 1u << 20, "--printf-limit (KB)", error);
        if (!v) return false;
        l->printf_kb = *v;
    }
    if (!f.time_limit_s.empty()) {
        auto v = parse_unsigned(f.time_limit_s, 1, 86400, "--time-limit (seconds)", error);
        if (!v) return false;
        l->time_limit_s = double(*v);
    }
    if (!f.compile_time_limit_s.empty()) {
        auto v = parse_unsigned(f.compile_time_limit_s, 1, 86400, "--compile-time-limit (seconds)",
                                error);
        if (!v) return false;
        l->compile_time_limit_s = double(*v);
    }
    if (!f.compile_memory_mb.empty()) {
        auto v =
            parse_unsigned(f.compile_memory_mb, 64, 1u << 20, "--compile-memory-limit (MB)", error);
        if (!v) return false;
        l->compile_memory_mb = *v;
    }
    return true;
}

}  // namespace cli
