// NVRTC's front end (EDG) reports, verified with NVRTC 13.0:
//   ex.cu(3): error: identifier "y" is undefined
//     <TAB>x[i] = y + 1;
//     <TAB>       ^
//   <blank line>
// The source line is echoed verbatim behind a two-space indent, tabs kept, and the caret line
// mirrors it, so the caret's offset past the indent is the byte column. Some messages put extra
// lines ("argument types are: ...") before the echo and "detected during instantiation" after
// the caret; all of them belong to the context. Warnings read "warning #177-D: ...", a missing
// header "catastrophic error: ...", and bad options "nvrtc: error: ...".
//
// The log is untrusted text as long as the learner's longest line, so it is scanned by hand:
// no std::regex, whose recursive matcher can exhaust the stack on a long line.
#include "compiler/diagnostics.h"

#include <climits>
#include <cstdint>

namespace cudalab::compiler {
namespace {

bool starts_with(std::string_view text, std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
}

std::string_view without_cr(std::string_view line) {
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return line;
}

std::string_view trim_right(std::string_view text) {
    while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
        text.remove_suffix(1);
    return text;
}

std::vector<std::string_view> split_lines(std::string_view text) {
    std::vector<std::string_view> lines;
    size_t pos = 0;
    while (pos < text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        lines.push_back(without_cr(text.substr(pos, end - pos)));
        pos = end + 1;
    }
    return lines;
}

struct Header {
    std::string_view file;  // empty when the line names no file
    int line = 0;
    Severity severity = Severity::error;
    std::string_view message;
};

// "error: msg", "catastrophic error: msg", "warning #177-D: msg" at the start of `text`.
bool parse_severity(std::string_view text, Header& header) {
    static constexpr struct {
        std::string_view word;
        Severity severity;
    } kinds[] = {{"catastrophic error", Severity::error},
                 {"error", Severity::error},
                 {"warning", Severity::warning},
                 {"remark", Severity::remark},
                 {"note", Severity::remark}};
    for (const auto& kind : kinds) {
        if (!starts_with(text, kind.word)) continue;
        std::string_view rest = text.substr(kind.word.size());
        if (starts_with(rest, " #")) {  // the diagnostic number, e.g. " #177-D"
            size_t end = 2;
            while (end < rest.size() && rest[end] != ':' && rest[end] != ' ') ++end;
            rest.remove_prefix(end);
        }
        if (!starts_with(rest, ": ")) continue;
        header.severity = kind.severity;
        header.message = rest.substr(2);
        return true;
    }
    return false;
}

// "<file>(<line>): <severity>: <message>". The file name may itself hold "): ", so every
// occurrence is tried from the left until one is preceded by "(<digits>".
bool parse_header(std::string_view line, Header& header) {
    // Headers start in column 1; echoed source lines are indented and may quote anything.
    if (line.empty() || line[0] == ' ' || line[0] == '\t') return false;
    for (size_t close = line.find("): "); close != std::string_view::npos;
         close = line.find("): ", close + 1)) {
        size_t open = close;
        while (open > 0 && line[open - 1] >= '0' && line[open - 1] <= '9') --open;
        if (open == close || open < 2 || line[open - 1] != '(') continue;
        if (!parse_severity(line.substr(close + 3), header)) continue;
        int64_t number = 0;
        for (size_t i = open; i < close; ++i) {
            number = number * 10 + (line[i] - '0');
            if (number > INT_MAX) number = INT_MAX;
        }
        header.file = line.substr(0, open - 1);
        header.line = static_cast<int>(number);
        return true;
    }
    // A diagnostic with no position: "nvrtc: error: ..." or a bare "error: ...".
    std::string_view rest = line;
    if (starts_with(rest, "nvrtc: ")) rest.remove_prefix(7);
    if (parse_severity(rest, header)) {
        header.file = {};
        header.line = 0;
        return true;
    }
    return false;
}

// A line made of blanks and exactly one '^'.
bool is_caret_line(std::string_view line) {
    size_t carets = 0;
    for (char c : line) {
        if (c == '^') ++carets;
        else if (c != ' ' && c != '\t') return false;
    }
    return carets == 1;
}

// Line `number` (1-based) of `source`, without its line ending; empty when out of range.
std::string_view source_line(std::string_view source, int number) {
    size_t pos = 0;
    for (int line = 1; line < number; ++line) {
        pos = source.find('\n', pos);
        if (pos == std::string_view::npos) return {};
        ++pos;
    }
    if (number < 1 || pos > source.size()) return {};
    size_t end = source.find('\n', pos);
    if (end == std::string_view::npos) end = source.size();
    return without_cr(source.substr(pos, end - pos));
}

constexpr size_t column_wrap = 65536;

// The 1-based byte column of the caret, or 0 when the context holds no caret or it is ambiguous.
int caret_column(const std::vector<std::string_view>& context, std::string_view original_line) {
    for (size_t i = 1; i < context.size(); ++i) {
        if (!is_caret_line(context[i])) continue;
        const std::string_view echo = trim_right(context[i - 1]);
        const std::string_view original = trim_right(original_line);
        // The echo is indent + source line; measure the indent when the source is known.
        size_t indent = 2;
        if (!original.empty() && echo.size() >= original.size() &&
            echo.substr(echo.size() - original.size()) == original) {
            indent = echo.size() - original.size();
        }
        const size_t caret = context[i].find('^');
        const size_t column = caret >= indent ? caret - indent + 1 : 1;
        // EDG keeps columns in 16 bits (a caret on byte 800040 is drawn at 13608): past that
        // the true column is ambiguous, and unknown is better than wrong.
        if (column + column_wrap <= original.size() + 1) return 0;
        return static_cast<int>(column);
    }
    return 0;
}

bool is_summary_line(std::string_view line) {
    return line.find("detected in the compilation of") != std::string_view::npos ||
           starts_with(line, "Compilation terminated") || starts_with(line, "Remark: ");
}

}  // namespace

std::vector<Diagnostic> parse_nvrtc_log(std::string_view log, const LogSource& source) {
    const std::vector<std::string_view> lines = split_lines(log);
    std::vector<Diagnostic> diagnostics;
    size_t i = 0;
    while (i < lines.size()) {
        Header header;
        if (!parse_header(lines[i], header)) {
            ++i;
            continue;
        }
        // The context runs to the blank line that ends every EDG diagnostic.
        std::vector<std::string_view> context;
        size_t next = i + 1;
        Header unused;
        while (next < lines.size() && !trim_right(lines[next]).empty() &&
               !is_summary_line(lines[next]) && !parse_header(lines[next], unused)) {
            context.push_back(lines[next]);
            ++next;
        }
        Diagnostic diagnostic;
        const bool in_learner_file = header.file.empty() || header.file == source.program_name;
        diagnostic.file =
            in_learner_file ? std::string(source.learner_path) : std::string(header.file);
        diagnostic.line = header.line;
        diagnostic.severity = header.severity;
        diagnostic.message = std::string(trim_right(header.message));
        for (size_t c = 0; c < context.size(); ++c) {
            if (c > 0) diagnostic.context += '\n';
            diagnostic.context.append(context[c]);
        }
        const std::string_view original = in_learner_file && header.line > 0
                                              ? source_line(source.source, header.line)
                                              : std::string_view{};
        diagnostic.column = caret_column(context, original);
        diagnostics.push_back(std::move(diagnostic));
        i = next;
    }
    return diagnostics;
}

std::string format_diagnostic(const Diagnostic& diagnostic) {
    std::string text = diagnostic.file;
    if (diagnostic.line > 0) {
        text += ':' + std::to_string(diagnostic.line);
        if (diagnostic.column > 0) text += ':' + std::to_string(diagnostic.column);
    }
    text += std::string(": ") + to_string(diagnostic.severity) + ": " + diagnostic.message + '\n';
    if (!diagnostic.context.empty()) text += diagnostic.context + '\n';
    return text;
}

}  // namespace cudalab::compiler
