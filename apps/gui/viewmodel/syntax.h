// Syntax colouring of CUDA C++ for the code panel: the source cut into lines and tokens, each with
// a kind the renderer maps to a colour. A lexer, not a parser: comments (also across lines),
// strings, numbers, preprocessor lines, C++ keywords, types and CUDA's own words.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace cudalab::viewmodel {

enum class TokenKind : std::uint8_t {
    text,     // identifiers, spaces
    keyword,  // if, for, return, ...
    type,     // int, float, unsigned, dim3, ...
    cuda,     // __global__, __shared__, __syncthreads, threadIdx, blockDim, ...
    number,
    string,  // "..." and '...'
    comment,
    preprocessor,  // #include ...
    todo,          // TODO inside a comment
    punctuation,
};

struct Token {
    std::uint32_t begin = 0;  // byte offsets within the line
    std::uint32_t end = 0;
    TokenKind kind = TokenKind::text;
};

struct HighlightedLine {
    std::uint32_t offset = 0;   // where the line starts in the source
    std::uint32_t length = 0;   // without the newline
    std::vector<Token> tokens;  // cover the line in order, without gaps
};

std::vector<HighlightedLine> highlight(std::string_view source);

}  // namespace cudalab::viewmodel
