// The #include check of the compile jail (include_jail.h).
//
// [SECTION] Reading the source as the preprocessor does
// [SECTION] Which names are allowed
// [SECTION] The scan
//
// The scan must never miss a directive the compiler sees; where it cannot tell (a backslash
// followed by spaces before the end of a line, which some compilers splice and others do not) it
// takes the reading that finds more directives, so the worst case is a needless error, never a
// file read.
#include "compiler/include_jail.h"

#include <cctype>
#include <cstring>
#include <filesystem>
#include <string_view>
#include <system_error>

#include "compiler/include_shims.h"

namespace cudalab::compiler {
namespace {

// ---------------------------------------------------------------------------------------------
// [SECTION] Reading the source as the preprocessor does
// ---------------------------------------------------------------------------------------------

// The source after line splicing (translation phase 2), each character with its physical line and
// column, so that messages point at what the learner wrote.
struct Spliced {
    std::string text;
    std::vector<std::pair<int, int>> where;  // per character of text: line, column (1-based)
};

Spliced splice(const std::string& source) {
    Spliced out;
    out.text.reserve(source.size());
    out.where.reserve(source.size());
    int line = 1, column = 1;
    for (size_t i = 0; i < source.size(); ++i) {
        const char c = source[i];
        if (c == '\\' && i + 1 < source.size() &&
            (source[i + 1] == '\n' ||
             (source[i + 1] == '\r' && i + 2 < source.size() && source[i + 2] == '\n'))) {
            i += source[i + 1] == '\r' ? 2 : 1;
            ++line;
            column = 1;
            continue;
        }
        out.text += c;
        out.where.emplace_back(line, column);
        if (c == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return out;
}

bool identifier_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' ||
           static_cast<unsigned char>(c) >= 0x80;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Which names are allowed
// ---------------------------------------------------------------------------------------------

bool inside(const std::filesystem::path& file, const std::filesystem::path& dir) {
    const std::string f = file.string(), d = dir.string();
    return f.size() > d.size() && f.compare(0, d.size(), d) == 0 && f[d.size()] == '/';
}

// Why `name` may not be included, or "" when it may.
std::string refusal(const std::string& name, const IncludePolicy& policy) {
    for (const std::string& known : policy.extra_names)
        if (name == known) return {};
    if (name.empty()) return "an empty file name";
    if (name.front() == '/') return "a file by absolute path";
    if (name.find('\\') != std::string::npos) return "a path with a backslash";
    for (char c : name) {
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.' && c != '/' &&
            c != '-' && c != '+')
            return "a name with characters no header of cudalab or the CUDA Toolkit has";
    }
    size_t start = 0;
    while (start <= name.size()) {
        size_t end = name.find('/', start);
        if (end == std::string::npos) end = name.size();
        const std::string_view part(name.data() + start, end - start);
        if (part == "..") return "a file outside its folder ('..')";
        if (part.empty() || part == ".") return "an unusual path";
        start = end + 1;
    }
    if (policy.any_relative_name) return {};
    for (const std::string& dir : policy.toolkit_dirs) {
        std::error_code error;
        const std::filesystem::path root = std::filesystem::canonical(dir, error);
        if (error) continue;
        const std::filesystem::path file = std::filesystem::canonical(root / name, error);
        if (error) continue;
        if (inside(file, root) && std::filesystem::is_regular_file(file, error)) return {};
    }
    return "a file that is not one of the headers cudalab provides";
}

// What the policy allows, for the message: a sample of the shims it allows (all of them would drown
// the message), every header the lesson ships (a learner must see that its own header is allowed)
// and the toolkit's headers when it allows those.
std::string allowed_list(const IncludePolicy& policy) {
    if (policy.any_relative_name)
        return "the system's and the CUDA Toolkit's headers, and headers of its own folder, each "
               "by a relative name";
    const auto is_shim = [](const std::string& name) {
        for (const IncludeShim& shim : include_shims())
            if (name == shim.name) return true;
        return false;
    };
    const auto allowed = [&](std::string_view name) {
        for (const std::string& known : policy.extra_names)
            if (known == name) return true;
        return false;
    };
    std::string list;
    const auto add = [&](const std::string& item) { list += (list.empty() ? "" : ", ") + item; };
    std::size_t shims = 0, shown = 0;
    for (const std::string& name : policy.extra_names) shims += is_shim(name);
    for (const char* name : {"cstdio", "cstdint", "cmath", "climits", "cassert", "cuda_runtime.h"})
        if (allowed(name)) {
            add("<" + std::string(name) + ">");
            ++shown;
        }
    if (shims > shown) add("the other standard headers cudalab provides");
    for (const std::string& name : policy.extra_names)
        if (!is_shim(name)) add("\"" + name + "\" (the lesson's)");
    if (!policy.toolkit_dirs.empty())
        add("the CUDA Toolkit's headers (<cuda_fp16.h>, <cooperative_groups.h>, ...)");
    return list.empty() ? "nothing" : list;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] The scan
// ---------------------------------------------------------------------------------------------

class Scanner {
  public:
    Scanner(const std::string& source, const std::string& path, const IncludePolicy& policy)
        : s_(splice(source)), path_(path), policy_(policy) {}

    std::vector<Diagnostic> run() {
        bool line_start = true;  // only whitespace and comments so far on this logical line
        while (i_ < s_.text.size() && diagnostics_.size() < 20) {
            const char c = s_.text[i_];
            if (c == '\n') {
                line_start = true;
                ++i_;
                continue;
            }
            if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
                ++i_;
                continue;
            }
            if (skip_comment()) continue;
            if (line_start && directive_hash()) {
                directive();
                line_start = false;
                continue;
            }
            line_start = false;
            if (c == '"' || c == '\'') {
                skip_quoted(c);
                continue;
            }
            if (std::isdigit(static_cast<unsigned char>(c)) ||
                (c == '.' && std::isdigit(static_cast<unsigned char>(at(i_ + 1))))) {
                skip_number();
                continue;
            }
            if (identifier_char(c)) {
                identifier_or_raw_string();
                continue;
            }
            ++i_;
        }
        return std::move(diagnostics_);
    }

  private:
    char at(size_t k) const { return k < s_.text.size() ? s_.text[k] : '\0'; }

    bool skip_comment() {
        if (at(i_) == '/' && at(i_ + 1) == '/') {
            while (i_ < s_.text.size() && s_.text[i_] != '\n') ++i_;
            return true;
        }
        if (at(i_) == '/' && at(i_ + 1) == '*') {
            const size_t end = s_.text.find("*/", i_ + 2);
            i_ = end == std::string::npos ? s_.text.size() : end + 2;
            return true;
        }
        return false;
    }

    void skip_blanks_on_line() {
        for (;;) {
            const char c = at(i_);
            if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
                ++i_;
            } else if (c == '/' && at(i_ + 1) == '*') {
                const size_t end = s_.text.find("*/", i_ + 2);
                i_ = end == std::string::npos ? s_.text.size() : end + 2;
            } else {
                return;
            }
        }
    }

    // '#', the digraph '%:' or the trigraph '??=' where a directive may start.
    bool directive_hash() {
        start_ = i_;
        if (at(i_) == '#') {
            i_ += 1;
            return true;
        }
        if (at(i_) == '%' && at(i_ + 1) == ':') {
            i_ += 2;
            return true;
        }
        if (at(i_) == '?' && at(i_ + 1) == '?' && at(i_ + 2) == '=') {
            i_ += 3;
            return true;
        }
        return false;
    }

    std::string read_identifier() {
        std::string word;
        while (identifier_char(at(i_))) word += s_.text[i_++];
        return word;
    }

    void directive() {
        skip_blanks_on_line();
        const std::string word = read_identifier();
        if (word == "include" || word == "include_next" || word == "import" || word == "embed") {
            operand("#" + word);
        }
        // The rest of the line may still hold __has_include; the main loop reads it.
    }

    // Strings end at their quote or, unterminated, at the end of the line.
    void skip_quoted(char quote) {
        ++i_;
        while (i_ < s_.text.size() && s_.text[i_] != '\n') {
            if (s_.text[i_] == '\\') {
                i_ += 2;
                continue;
            }
            if (s_.text[i_++] == quote) return;
        }
    }

    // A preprocessing number, digit separators included (1'000'000 holds no character literal).
    void skip_number() {
        for (;;) {
            const char c = at(i_);
            if ((c == '+' || c == '-') && i_ > 0 && std::strchr("eEpP", s_.text[i_ - 1])) {
                ++i_;
            } else if (c == '\'' && identifier_char(at(i_ + 1))) {
                i_ += 2;
            } else if (identifier_char(c) || c == '.') {
                ++i_;
            } else {
                return;
            }
        }
    }

    void identifier_or_raw_string() {
        const size_t start = i_;
        const std::string word = read_identifier();
        if ((word == "R" || word == "u8R" || word == "uR" || word == "UR" || word == "LR") &&
            at(i_) == '"') {
            const size_t open = s_.text.find('(', i_ + 1);
            if (open == std::string::npos || open - i_ > 17) {
                ++i_;  // not a valid raw string: read on as ordinary text
                return;
            }
            const std::string close = ")" + s_.text.substr(i_ + 1, open - i_ - 1) + "\"";
            const size_t end = s_.text.find(close, open + 1);
            i_ = end == std::string::npos ? s_.text.size() : end + close.size();
            return;
        }
        if (word == "__has_include" || word == "__has_include_next" || word == "__has_embed") {
            start_ = start;
            skip_blanks_on_line();
            // Without parentheses (`defined(__has_include)`) it probes nothing.
            if (at(i_) == '(') {
                ++i_;
                operand(word);
            }
        }
    }

    // The header name after #include or inside __has_include( ).
    void operand(const std::string& what) {
        skip_blanks_on_line();
        const char open = at(i_);
        if (open != '<' && open != '"') {
            report(what + " with a macro or no file name: a submission must name each header "
                          "it includes as <name> or \"name\"");
            return;
        }
        const char close = open == '<' ? '>' : '"';
        const size_t end = s_.text.find_first_of(std::string(1, close) + "\n", i_ + 1);
        if (end == std::string::npos || s_.text[end] != close) {
            report(what + ": the file name is not closed on its line");
            return;
        }
        const std::string name = s_.text.substr(i_ + 1, end - i_ - 1);
        i_ = end + 1;
        const std::string why = refusal(name, policy_);
        if (why.empty()) return;
        const std::string shown = std::string(1, open) + name + std::string(1, close);
        report(what + " " + shown + " is not allowed: it names " + why +
               (policy_.any_relative_name ? ". A program may include only "
                                          : ". A submission may include only the headers cudalab "
                                            "provides: ") +
               allowed_list(policy_));
    }

    void report(std::string message) {
        const auto [line, column] =
            start_ < s_.where.size() ? s_.where[start_] : std::pair<int, int>{0, 0};
        Diagnostic d{path_, line, column, Severity::error, std::move(message), {}};
        diagnostics_.push_back(std::move(d));
    }

    Spliced s_;
    const std::string& path_;
    const IncludePolicy& policy_;
    size_t i_ = 0;
    size_t start_ = 0;
    std::vector<Diagnostic> diagnostics_;
};

}  // namespace

std::vector<Diagnostic> check_includes(const std::string& source, const std::string& path,
                                       const IncludePolicy& policy) {
    return Scanner(source, path, policy).run();
}

}  // namespace cudalab::compiler
