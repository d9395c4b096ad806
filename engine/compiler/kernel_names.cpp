// Kernels are found by the name the learner wrote whether or not they are extern "C": the PTX
// lists entries by their mangled names, and the Itanium demangler (the one g++ uses, and the ABI
// NVRTC mangles with) turns them back into source names.
#include "compiler/kernel_names.h"

#include "compiler/compiler.h"

#include <cstdlib>
#include <cxxabi.h>
#include <memory>

namespace cudalab::compiler {
namespace {

bool is_identifier_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '$' || c == '%';
}

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// The PTX with // and /* */ comments blanked out (NVRTC writes "// .globl name" before entries).
std::string without_comments(std::string_view ptx) {
    std::string out(ptx);
    for (size_t i = 0; i + 1 < out.size(); ++i) {
        if (out[i] == '"') {  // string literals hold no comments; skip to the closing quote
            const size_t close = out.find('"', i + 1);
            i = close == std::string::npos ? out.size() : close;
        } else if (out[i] == '/' && out[i + 1] == '/') {
            for (; i < out.size() && out[i] != '\n'; ++i) out[i] = ' ';
        } else if (out[i] == '/' && out[i + 1] == '*') {
            size_t end = out.find("*/", i + 2);
            end = end == std::string::npos ? out.size() : end + 2;
            for (; i < end; ++i) {
                if (out[i] != '\n') out[i] = ' ';
            }
            --i;
        }
    }
    return out;
}

// Whether `directive` occurs at `pos` as a whole token.
bool directive_at(std::string_view text, size_t pos, std::string_view directive) {
    if (text.compare(pos, directive.size(), directive) != 0) return false;
    if (pos > 0 && !is_space(text[pos - 1])) return false;
    size_t end = pos + directive.size();
    return end == text.size() || !is_identifier_char(text[end]);
}

// "256, 1, 1" -> 256; stops at the first character that is not part of the list.
int product_of_dimensions(std::string_view text, size_t pos) {
    long long product = 1;
    bool any = false;
    while (pos < text.size()) {
        while (pos < text.size() && (is_space(text[pos]) || text[pos] == ',')) ++pos;
        if (pos >= text.size() || text[pos] < '0' || text[pos] > '9') break;
        long long value = 0;
        while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
            value = value * 10 + (text[pos] - '0');
            if (value > (1LL << 31)) value = 1LL << 31;  // nonsense; keep the arithmetic bounded
            ++pos;
        }
        product *= value;
        if (product > (1LL << 31)) product = 1LL << 31;
        any = true;
    }
    return any ? static_cast<int>(product) : 0;
}

}  // namespace

std::vector<PtxEntry> ptx_entries(std::string_view ptx) {
    const std::string text = without_comments(ptx);
    const std::string_view view(text);
    std::vector<PtxEntry> entries;
    for (size_t pos = view.find(".entry"); pos != std::string_view::npos;
         pos = view.find(".entry", pos + 1)) {
        if (!directive_at(view, pos, ".entry")) continue;
        size_t begin = pos + 6;
        while (begin < view.size() && is_space(view[begin])) ++begin;
        size_t end = begin;
        while (end < view.size() && is_identifier_char(view[end])) ++end;
        if (end == begin) continue;
        PtxEntry entry;
        entry.mangled_name = std::string(view.substr(begin, end - begin));
        // Performance-tuning directives sit between the parameter list and the body.
        const size_t body = view.find('{', end);
        const std::string_view header =
            view.substr(end, body == std::string_view::npos ? std::string_view::npos : body - end);
        for (std::string_view directive : {".maxntid", ".reqntid"}) {
            const size_t at = header.find(directive);
            if (at != std::string_view::npos && directive_at(header, at, directive)) {
                entry.max_threads_per_block = product_of_dimensions(header, at + directive.size());
                break;
            }
        }
        entries.push_back(std::move(entry));
    }
    return entries;
}

std::string source_name_of(const std::string& mangled) {
    if (mangled.rfind("_Z", 0) != 0) return mangled;  // extern "C": the name is the source name
    int status = 0;
    std::unique_ptr<char, decltype(&std::free)> demangled(
        abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status), &std::free);
    if (status != 0 || !demangled) return mangled;
    std::string name(demangled.get());

    // Drop the parameter list: the parenthesis matching the final ')', found by walking back so
    // that parentheses inside template arguments or "(anonymous namespace)" are left alone.
    if (!name.empty() && name.back() == ')') {
        int depth = 0;
        for (size_t i = name.size(); i-- > 0;) {
            if (name[i] == ')') ++depth;
            else if (name[i] == '(' && --depth == 0) {
                name.resize(i);
                break;
            }
        }
    }
    // A function template's mangling encodes its return type, which the demangler prints first.
    if (name.rfind("void ", 0) == 0) name.erase(0, 5);
    return name;
}

std::string unqualified_name(std::string_view source_name) {
    // Remove template argument lists (balanced <>), then keep what follows the last "::".
    std::string plain;
    int depth = 0;
    for (char c : source_name) {
        if (c == '<') ++depth;
        else if (c == '>' && depth > 0) --depth;
        else if (depth == 0) plain += c;
    }
    const size_t scope = plain.rfind("::");
    return scope == std::string::npos ? plain : plain.substr(scope + 2);
}

}  // namespace cudalab::compiler
