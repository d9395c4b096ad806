#include "viewmodel/syntax.h"

#include <algorithm>
#include <array>
#include <cctype>

namespace cudalab::viewmodel {

namespace {

constexpr std::array<std::string_view, 36> kKeywords = {
    "if",        "else",          "for",    "while",     "do",       "return",
    "break",     "continue",      "switch", "case",      "default",  "goto",
    "struct",    "class",         "union",  "enum",      "template", "typename",
    "namespace", "using",         "const",  "constexpr", "static",   "extern",
    "inline",    "volatile",      "sizeof", "typedef",   "true",     "false",
    "nullptr",   "static_assert", "auto",   "public",    "private",  "operator"};
constexpr std::array<std::string_view, 28> kTypes = {
    "void",    "bool",     "char",     "short",    "int",      "long",    "float",
    "double",  "unsigned", "signed",   "size_t",   "int8_t",   "int16_t", "int32_t",
    "int64_t", "uint8_t",  "uint16_t", "uint32_t", "uint64_t", "dim3",    "float2",
    "float4",  "int2",     "int4",     "half",     "uint",     "__half",  "double2"};
constexpr std::array<std::string_view, 36> kCuda = {
    "__global__",    "__device__",        "__host__",         "__shared__",     "__constant__",
    "__restrict__",  "__launch_bounds__", "__forceinline__",  "__noinline__",   "__syncthreads",
    "__syncwarp",    "__shfl_sync",       "__shfl_down_sync", "__shfl_up_sync", "__shfl_xor_sync",
    "__ballot_sync", "__any_sync",        "__all_sync",       "__activemask",   "__ldg",
    "__threadfence", "atomicAdd",         "atomicSub",        "atomicMax",      "atomicMin",
    "atomicCAS",     "atomicExch",        "threadIdx",        "blockIdx",       "blockDim",
    "gridDim",       "warpSize",          "printf",           "__popc",         "__clz",
    "__fmaf_rn"};

template <std::size_t N>
bool contains(const std::array<std::string_view, N>& list, std::string_view w) {
    return std::find(list.begin(), list.end(), w) != list.end();
}

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// A comment's text, with each TODO marked.
void comment_tokens(std::string_view line, std::uint32_t begin, std::uint32_t end,
                    std::vector<Token>& out) {
    std::uint32_t at = begin;
    for (;;) {
        std::size_t t = line.substr(0, end).find("TODO", at);
        if (t == std::string_view::npos) break;
        if (t > at) out.push_back({at, std::uint32_t(t), TokenKind::comment});
        out.push_back({std::uint32_t(t), std::uint32_t(t + 4), TokenKind::todo});
        at = std::uint32_t(t + 4);
    }
    if (at < end) out.push_back({at, end, TokenKind::comment});
}

}  // namespace

std::vector<HighlightedLine> highlight(std::string_view source) {
    std::vector<HighlightedLine> lines;
    bool in_block_comment = false;
    std::size_t offset = 0;
    while (offset <= source.size()) {
        std::size_t nl = source.find('\n', offset);
        std::size_t end = nl == std::string_view::npos ? source.size() : nl;
        std::string_view line = source.substr(offset, end - offset);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        HighlightedLine hl;
        hl.offset = std::uint32_t(offset);
        hl.length = std::uint32_t(line.size());
        std::vector<Token>& t = hl.tokens;
        std::uint32_t i = 0;
        const std::uint32_t n = std::uint32_t(line.size());
        std::size_t first = line.find_first_not_of(" \t");
        const bool preprocessor =
            !in_block_comment && first != std::string_view::npos && line[first] == '#';
        while (i < n) {
            if (in_block_comment) {
                std::size_t close = line.find("*/", i);
                std::uint32_t stop = close == std::string_view::npos ? n : std::uint32_t(close + 2);
                comment_tokens(line, i, stop, t);
                i = stop;
                if (close != std::string_view::npos) in_block_comment = false;
                continue;
            }
            const char c = line[i];
            if (c == '/' && i + 1 < n && line[i + 1] == '/') {
                comment_tokens(line, i, n, t);
                break;
            }
            if (c == '/' && i + 1 < n && line[i + 1] == '*') {
                std::size_t close = line.find("*/", i + 2);
                std::uint32_t stop = close == std::string_view::npos ? n : std::uint32_t(close + 2);
                comment_tokens(line, i, stop, t);
                i = stop;
                in_block_comment = close == std::string_view::npos;
                continue;
            }
            if (preprocessor) {
                // The directive and its argument; a trailing comment is still a comment.
                std::size_t cm = line.find("//", i);
                std::size_t cb = line.find("/*", i);
                std::uint32_t stop = std::uint32_t(std::min({std::size_t(n), cm, cb}));
                t.push_back({i, stop, TokenKind::preprocessor});
                i = stop;
                continue;
            }
            if (c == '"' || c == '\'') {
                std::uint32_t j = i + 1;
                while (j < n && line[j] != c) j += (line[j] == '\\') ? 2 : 1;
                j = std::min(n, j + 1);
                t.push_back({i, j, TokenKind::string});
                i = j;
                continue;
            }
            if (std::isdigit(static_cast<unsigned char>(c)) ||
                (c == '.' && i + 1 < n && std::isdigit(static_cast<unsigned char>(line[i + 1])))) {
                std::uint32_t j = i + 1;
                while (j < n && (ident_char(line[j]) || line[j] == '.' ||
                                 ((line[j] == '+' || line[j] == '-') &&
                                  (line[j - 1] == 'e' || line[j - 1] == 'E'))))
                    ++j;
                t.push_back({i, j, TokenKind::number});
                i = j;
                continue;
            }
            if (ident_start(c)) {
                std::uint32_t j = i + 1;
                while (j < n && ident_char(line[j])) ++j;
                std::string_view w = line.substr(i, j - i);
                TokenKind k = contains(kCuda, w)       ? TokenKind::cuda
                              : contains(kTypes, w)    ? TokenKind::type
                              : contains(kKeywords, w) ? TokenKind::keyword
                                                       : TokenKind::text;
                t.push_back({i, j, k});
                i = j;
                continue;
            }
            if (c == ' ' || c == '\t') {
                std::uint32_t j = i + 1;
                while (j < n && (line[j] == ' ' || line[j] == '\t')) ++j;
                t.push_back({i, j, TokenKind::text});
                i = j;
                continue;
            }
            t.push_back({i, i + 1, TokenKind::punctuation});
            ++i;
        }
        // Merge neighbours of one kind so the renderer draws fewer pieces.
        std::vector<Token> merged;
        for (const Token& k : t) {
            if (!merged.empty() && merged.back().kind == k.kind && merged.back().end == k.begin)
                merged.back().end = k.end;
            else merged.push_back(k);
        }
        hl.tokens = std::move(merged);
        lines.push_back(std::move(hl));
        if (nl == std::string_view::npos) break;
        offset = nl + 1;
    }
    return lines;
}

}  // namespace cudalab::viewmodel
