#include "viewmodel/fault_lines.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace cudalab::viewmodel {

namespace {

// Every "NAME:LINE" in `text` (NAME preceded by a path separator, a space, a quote or the start),
// with the line of text it sits in.
void scan(const std::string& text, const std::string& name, std::map<int, std::string>* found) {
    if (name.empty()) return;
    for (std::size_t at = text.find(name); at != std::string::npos;
         at = text.find(name, at + name.size())) {
        const char before = at ? text[at - 1] : ' ';
        if (!(before == '/' || before == ' ' || before == '\'' || before == '"' || before == '(' ||
              before == '\n' || at == 0))
            continue;
        std::size_t p = at + name.size();
        if (p >= text.size() || text[p] != ':') continue;
        ++p;
        int line = 0;
        std::size_t digits = 0;
        while (p < text.size() && std::isdigit(static_cast<unsigned char>(text[p])) && digits < 7) {
            line = line * 10 + (text[p] - '0');
            ++p;
            ++digits;
        }
        if (!digits || line <= 0 || found->count(line)) continue;
        // The error's words after "x.cu:23: " (the line is the gutter's), or the whole line of
        // text when the name comes late in it ("... launched at x.cu:40").
        const std::size_t start = text.rfind('\n', at);
        const std::size_t line_start = start == std::string::npos ? 0 : start + 1;
        const bool error_here = text.compare(p, 8, ": error:") == 0;
        const std::size_t from = error_here ? p + 2 : line_start;
        const std::size_t end = std::min(text.find('\n', at), text.size());
        std::string words = text.substr(from, end - from);
        if (words.size() > 300) words = words.substr(0, 297) + "...";
        (*found)[line] = words;
    }
}

}  // namespace

std::vector<compiler::Diagnostic> fault_lines(const lessons::CheckReport& report,
                                              const std::string& file_name) {
    std::vector<compiler::Diagnostic> out;
    if (report.status.code == StatusCode::compile_error) return out;  // shown as diagnostics
    const std::size_t slash = file_name.find_last_of('/');
    const std::string name = slash == std::string::npos ? file_name : file_name.substr(slash + 1);
    std::map<int, std::string> found;
    if (!report.status.ok()) scan(report.status.message, name, &found);
    for (const auto& c : report.checks)
        if (!c.passed) {
            scan(c.message, name, &found);
            scan(c.advice, name, &found);
        }
    for (const auto& [line, words] : found) {
        compiler::Diagnostic d;
        d.file = file_name;
        d.line = line;
        d.severity = Severity::error;
        d.message = words;
        out.push_back(std::move(d));
    }
    return out;
}

}  // namespace cudalab::viewmodel
