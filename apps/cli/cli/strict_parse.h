// Strict parsing of the command line's numbers: the whole text must be the number, in range, with
// no sign an unsigned value cannot have and no exponent an element count cannot have. A misuse is
// an error message (the caller exits 2), never a silent wrap, a truncation or an exception.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace cli {

// A decimal integer in [min, max] (hex with 0x when `allow_hex`); nullopt and *error otherwise.
std::optional<std::uint64_t> parse_unsigned(const std::string& text, std::uint64_t min,
                                            std::uint64_t max, const std::string& what,
                                            std::string* error, bool allow_hex = false);
std::optional<std::int64_t> parse_signed(const std::string& text, std::int64_t min,
                                         std::int64_t max, const std::string& what,
                                         std::string* error, bool allow_hex = false);
// A finite or infinite number (nan, inf allowed), all of the text; out of the type's range fails.
std::optional<double> parse_real(const std::string& text, bool single, const std::string& what,
                                 std::string* error);

// The limits flags shared by `check` and `exec` (docs/grading.md, "Limits"), as text until parsed.
struct LimitFlags {
    std::string budget;                // warp instructions per launch
    std::string memory_mb;             // emulator memory in total
    std::string printf_kb;             // device printf output per launch
    std::string time_limit_s;          // wall-clock per check (exec: per run)
    std::string compile_time_limit_s;  // one NVRTC compile
    std::string compile_memory_mb;     // one NVRTC compile
    bool no_sandbox = false;           // program lessons run unsandboxed (trusted code only)
};

struct Limits {
    std::uint64_t budget = 0;  // 0: the emulator's default
    std::uint64_t memory_mb = 0, printf_kb = 0;
    double time_limit_s = 0, compile_time_limit_s = 0;
    std::uint64_t compile_memory_mb = 0;
    bool no_sandbox = false;
};

// Parses every given flag; false (with *error naming the flag) on the first misuse.
bool parse_limits(const LimitFlags& flags, Limits* limits, std::string* error);

}  // namespace cli
