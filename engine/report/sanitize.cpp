#include "report/sanitize.h"

#include <algorithm>

namespace cudalab::report {

namespace {

// The length of the UTF-8 sequence starting at s[i] if it is well-formed (shortest form, no
// surrogates, at most U+10FFFF), else 0.
std::size_t utf8_sequence(std::string_view s, std::size_t i, char32_t* code) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
    const unsigned char b0 = byte(i);
    if (b0 < 0x80) {
        *code = b0;
        return 1;
    }
    std::size_t n;
    char32_t c, min;
    if ((b0 & 0xe0) == 0xc0) {
        n = 2;
        c = b0 & 0x1f;
        min = 0x80;
    } else if ((b0 & 0xf0) == 0xe0) {
        n = 3;
        c = b0 & 0x0f;
        min = 0x800;
    } else if ((b0 & 0xf8) == 0xf0) {
        n = 4;
        c = b0 & 0x07;
        min = 0x10000;
    } else return 0;
    if (i + n > s.size()) return 0;
    for (std::size_t k = 1; k < n; ++k) {
        if ((byte(i + k) & 0xc0) != 0x80) return 0;
        c = (c << 6) | (byte(i + k) & 0x3f);
    }
    if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) return 0;
    *code = c;
    return n;
}

}  // namespace

std::string safe_text(std::string_view text, std::size_t max_bytes) {
    std::string out;
    out.reserve(std::min(text.size(), max_bytes) + 8);
    std::size_t i = 0;
    while (i < text.size()) {
        char32_t code = 0;
        const std::size_t n = utf8_sequence(text, i, &code);
        std::string_view piece;
        if (n == 0) piece = "\xef\xbf\xbd";  // U+FFFD for a byte that is not UTF-8
        else if (code == '\n' || code == '\t') piece = text.substr(i, 1);
        else if (code < 0x20 || code == 0x7f) piece = " ";  // escapes would redraw a terminal
        else if (code >= 0x80 && code < 0xa0) piece = " ";  // C1 controls
        else if (code == 0xfffe || code == 0xffff) piece = "\xef\xbf\xbd";
        else piece = text.substr(i, n);
        if (out.size() + piece.size() > max_bytes) {
            out += "\n...(" + std::to_string(text.size() - i) + " more bytes cut)";
            return out;
        }
        out += piece;
        i += n == 0 ? 1 : n;
    }
    return out;
}

lessons::CheckReport sanitized(const lessons::CheckReport& report) {
    lessons::CheckReport r = report;
    auto fix = [](std::string& s, std::size_t max = max_message_bytes) { s = safe_text(s, max); };
    fix(r.lesson, 256);
    fix(r.title, 1024);
    fix(r.source, 4096);
    fix(r.backend, 256);
    fix(r.backend_note);
    fix(r.status.message, 4 * max_message_bytes);
    if (r.diagnostics.size() > max_diagnostics) r.diagnostics.resize(max_diagnostics);
    for (auto& d : r.diagnostics) {
        fix(d.file, 4096);
        fix(d.message);
        fix(d.context);
    }
    for (auto& c : r.checks) {
        fix(c.name, 1024);
        fix(c.comparison, 16);
        fix(c.message, 4 * max_message_bytes);
        fix(c.advice);
        for (auto& m : c.mismatches) {
            fix(m.where, 1024);
            fix(m.expected, 1024);
            fix(m.actual, 1024);
        }
    }
    for (auto& l : r.launches) fix(l.kernel, 1024);
    if (r.log.size() > max_log_lines) {
        const std::size_t cut = r.log.size() - max_log_lines;
        r.log.resize(max_log_lines);
        r.log.push_back("...(" + std::to_string(cut) + " more lines cut)");
    }
    for (auto& line : r.log) fix(line);
    fix(r.printf_output, max_printf_bytes);
    return r;
}

}  // namespace cudalab::report
