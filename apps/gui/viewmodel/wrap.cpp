#include "viewmodel/wrap.h"

namespace cudalab::viewmodel {

namespace {

// Decodes the UTF-8 code point at p (an invalid byte decodes as itself); *len gets its length.
char32_t decode(const char* p, const char* end, int* len) {
    const unsigned char c = static_cast<unsigned char>(*p);
    int n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 1;
    if (end - p < n) n = 1;
    char32_t cp = n == 1 ? c : n == 2 ? (c & 0x1Fu) : n == 3 ? (c & 0x0Fu) : (c & 0x07u);
    for (int i = 1; i < n; ++i) {
        const unsigned char k = static_cast<unsigned char>(p[i]);
        if ((k & 0xC0) != 0x80) {
            *len = 1;
            return c;
        }
        cp = (cp << 6) | (k & 0x3Fu);
    }
    *len = n;
    return cp;
}

// Punctuation that may not start a line (it closes or ends something) or end one (it opens).
bool closing(char32_t c) {
    switch (c) {
    case U'，':
    case U'。':
    case U'、':
    case U'；':
    case U'：':
    case U'！':
    case U'？':
    case U'）':
    case U'」':
    case U'』':
    case U'》':
    case U'〉':
    case U'】':
    case U'”':
    case U'’':
    case U'…':
    case U'—':
    case U'·':
    case U',':
    case U'.':
    case U';':
    case U':':
    case U'!':
    case U'?':
    case U')':
    case U']': return true;
    default: return false;
    }
}
bool opening(char32_t c) {
    switch (c) {
    case U'（':
    case U'「':
    case U'『':
    case U'《':
    case U'〈':
    case U'【':
    case U'“':
    case U'‘': return true;
    default: return false;
    }
}

}  // namespace

bool is_cjk(char32_t c) {
    return (c >= 0x2E80 && c <= 0x9FFF) || (c >= 0xAC00 && c <= 0xD7AF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0xFE30 && c <= 0xFE4F) ||
           (c >= 0xFF00 && c <= 0xFFEF) || (c >= 0x20000 && c <= 0x3FFFF) || c == U'“' ||
           c == U'”' || c == U'‘' || c == U'’' || c == U'…' || c == U'—';
}

const char* unit_end(const char* p, const char* end) {
    if (p >= end) return end;
    int len = 0;
    char32_t c = decode(p, end, &len);
    const char* q = p + len;
    if (is_cjk(c)) {
        // An opening mark keeps the next piece with it.
        if (opening(c) && q < end && *q != ' ') return unit_end(q, end);
    } else {
        // Latin: up to a space or a Chinese character, and closing punctuation after it.
        while (q < end && *q != ' ' && *q != '\n') {
            c = decode(q, end, &len);
            if (is_cjk(c) && !closing(c)) break;
            q += len;
        }
        return q;
    }
    // Closing punctuation stays with the character before it.
    while (q < end) {
        c = decode(q, end, &len);
        if (!closing(c)) break;
        q += len;
    }
    return q;
}

std::vector<std::string> wrap_text(const std::string& text, float width,
                                   const std::function<float(const char*, const char*)>& measure) {
    std::vector<std::string> lines;
    const char* p = text.data();
    const char* const end = p + text.size();
    std::string line;
    float line_w = 0;
    while (p < end) {
        if (*p == '\n') {
            lines.push_back(line);
            line.clear();
            line_w = 0;
            ++p;
            continue;
        }
        const char* sp = p;
        while (sp < end && *sp == ' ') ++sp;
        const std::string spaces(p, sp);
        if (sp >= end) break;
        if (*sp == '\n') {
            p = sp;
            continue;
        }
        const char* u = unit_end(sp, end);
        const float w = measure(sp, u);
        const float space_w =
            spaces.empty() ? 0 : measure(spaces.data(), spaces.data() + spaces.size());
        if (!line.empty() && line_w + space_w + w > width) {
            lines.push_back(line);
            line.assign(sp, u);
            line_w = w;
        } else {
            if (!line.empty()) line += spaces;
            line.append(sp, u);
            line_w += (line.size() > std::size_t(u - sp) ? space_w : 0) + w;
        }
        p = u;
    }
    if (!line.empty() || lines.empty()) lines.push_back(line);
    return lines;
}

}  // namespace cudalab::viewmodel
