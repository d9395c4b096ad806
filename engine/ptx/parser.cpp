// PTX parser. Reads the subset of PTX ISA 9.0 that NVRTC emits for kernels (and hand-written PTX
// of the same shape) into flat records. Two passes per function: statements are decoded as they
// arrive; labels and callees are resolved when the function (or module) is complete.
//
// [SECTION] Text utilities
// [SECTION] Types and modifiers
// [SECTION] Operands
// [SECTION] Declarations
// [SECTION] Instructions
// [SECTION] Statement splitting and the driver

#include "ptx/parser.h"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string_view>
#include <unordered_map>

#include "ptx/matrix.h"

namespace cudalab::ptx {

namespace {

struct ParseError : std::runtime_error {
    std::uint32_t line;
    ParseError(std::uint32_t line, const std::string& what)
        : std::runtime_error(what), line(line) {}
};

// Well-formed PTX that the emulator cannot run (an opcode or modifier it does not know). It is
// recorded against the function that holds it (Function::unsupported) instead of failing the
// module, so that the module's other kernels still run; launching one that reaches it fails.
struct Unsupported : ParseError {
    using ParseError::ParseError;
};

// [SECTION] Text utilities ------------------------------------------------------------------------

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace((unsigned char)s.front())) s.remove_prefix(1);
    while (!s.empty() && std::isspace((unsigned char)s.back())) s.remove_suffix(1);
    return s;
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

// Splits on `sep` at nesting depth 0 of (), [], {}.
std::vector<std::string_view> split_top(std::string_view s, char sep) {
    std::vector<std::string_view> out;
    int depth = 0;
    size_t start = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        if (c == '(' || c == '[' || c == '{') ++depth;
        else if (c == ')' || c == ']' || c == '}') --depth;
        else if (c == sep && depth == 0) {
            out.push_back(trim(s.substr(start, i - start)));
            start = i + 1;
        }
    }
    std::string_view last = trim(s.substr(start));
    if (!last.empty() || !out.empty()) out.push_back(last);
    return out;
}

// Whitespace-separated words.
std::vector<std::string_view> words(std::string_view s) {
    std::vector<std::string_view> out;
    size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && std::isspace((unsigned char)s[i])) ++i;
        size_t j = i;
        while (j < s.size() && !std::isspace((unsigned char)s[j])) ++j;
        if (j > i) out.push_back(s.substr(i, j - i));
        i = j;
    }
    return out;
}

bool is_ident_char(char c) {
    return std::isalnum((unsigned char)c) || c == '_' || c == '$' || c == '%' || c == '.';
}

// [SECTION] Types and modifiers -------------------------------------------------------------------

const std::unordered_map<std::string_view, Type>& type_names() {
    static const std::unordered_map<std::string_view, Type> m = {
        {"b8", Type::b8},       {"b16", Type::b16},       {"b32", Type::b32},
        {"b64", Type::b64},     {"b128", Type::b128},     {"u8", Type::u8},
        {"u16", Type::u16},     {"u32", Type::u32},       {"u64", Type::u64},
        {"s8", Type::s8},       {"s16", Type::s16},       {"s32", Type::s32},
        {"s64", Type::s64},     {"f16", Type::f16},       {"f16x2", Type::f16x2},
        {"bf16", Type::bf16},   {"bf16x2", Type::bf16x2}, {"f32", Type::f32},
        {"f64", Type::f64},     {"pred", Type::pred},     {"u2", Type::u2},
        {"s2", Type::s2},       {"u4", Type::u4},         {"s4", Type::s4},
        {"u16x2", Type::u16x2}, {"s16x2", Type::s16x2},   {"tf32", Type::tf32},
    };
    return m;
}

const std::unordered_map<std::string_view, Cmp>& cmp_names() {
    static const std::unordered_map<std::string_view, Cmp> m = {
        {"eq", Cmp::eq},   {"ne", Cmp::ne},   {"lt", Cmp::lt},   {"le", Cmp::le},
        {"gt", Cmp::gt},   {"ge", Cmp::ge},   {"lo", Cmp::lo},   {"ls", Cmp::ls},
        {"hi", Cmp::hi},   {"hs", Cmp::hs},   {"equ", Cmp::equ}, {"neu", Cmp::neu},
        {"ltu", Cmp::ltu}, {"leu", Cmp::leu}, {"gtu", Cmp::gtu}, {"geu", Cmp::geu},
        {"num", Cmp::num}, {"nan", Cmp::nan},
    };
    return m;
}

const std::unordered_map<std::string_view, Rounding>& rounding_names() {
    static const std::unordered_map<std::string_view, Rounding> m = {
        {"rn", Rounding::rn},   {"rz", Rounding::rz},   {"rm", Rounding::rm},
        {"rp", Rounding::rp},   {"rni", Rounding::rni}, {"rzi", Rounding::rzi},
        {"rmi", Rounding::rmi}, {"rpi", Rounding::rpi}, {"rna", Rounding::rna},
    };
    return m;
}

const std::unordered_map<std::string_view, Space>& space_names() {
    static const std::unordered_map<std::string_view, Space> m = {
        {"global", Space::global},      {"shared", Space::shared},
        {"shared::cta", Space::shared}, {"local", Space::local},
        {"param", Space::param},        {"const", Space::constant},
        {"param::entry", Space::param}, {"param::func", Space::param},
    };
    return m;
}

const std::unordered_map<std::string_view, std::uint32_t>& flag_names() {
    static const std::unordered_map<std::string_view, std::uint32_t> m = {
        {"ftz", f_ftz},
        {"sat", f_sat},
        {"approx", f_approx},
        {"full", f_full},
        {"wide", f_wide},
        {"uni", f_uni},
        {"sync", f_sync},
        {"aligned", f_aligned},
        {"cc", f_cc},
        {"volatile", f_volatile},
        {"nc", f_nc},
        {"clamp", f_shift_clamp},
        {"l", f_shift_left},
        {"relu", f_relu},
        {"arrive", f_arrive},
        {"to", f_to},
        {"noftz", f_noftz},
        {"NaN", f_nan},
        {"satfinite", f_satfinite},
        {"shiftamt", f_shiftamt},
        {"parity", f_parity},
        {"noComplete", f_no_complete},
        {"expect_tx", f_expect_tx},
        {"noinc", f_noinc},
    };
    return m;
}

// Modifiers that only steer caches, memory ordering or scope. The emulator executes one access at a
// time in a fixed order, so they do not change results; accepting them is correct, not a shortcut.
bool is_ignorable_modifier(std::string_view m) {
    static const char* const names[] = {
        "ca",          "cg",      "cs",      "lu",      "cv",      "wb",        "wt",   "relaxed",
        "acquire",     "release", "acq_rel", "sc",      "cta",     "gpu",       "sys",  "gl",
        "cluster",     "weak",    "mmio",    "unified", "wrap",    "nanosleep", "mask", "sem",
        "release.gpu", "L2",      "level",   "ws",      "aligned", "oob",
    };
    if (starts_with(m, "L1::") || starts_with(m, "L2::") || starts_with(m, "level::")) return true;
    for (const char* n : names)
        if (m == n) return true;
    return false;
}

SubOp sub_op_of(Opcode op, std::string_view m) {
    if (op == Opcode::shfl) {
        if (m == "up") return SubOp::up;
        if (m == "down") return SubOp::down;
        if (m == "bfly") return SubOp::bfly;
        if (m == "idx") return SubOp::idx;
    }
    if (op == Opcode::vote) {
        if (m == "all") return SubOp::all;
        if (m == "any") return SubOp::any;
        if (m == "uni") return SubOp::uni;
        if (m == "ballot") return SubOp::ballot;
    }
    if (op == Opcode::prmt) {
        if (m == "f4e") return SubOp::prmt_f4e;
        if (m == "b4e") return SubOp::prmt_b4e;
        if (m == "rc8") return SubOp::prmt_rc8;
        if (m == "ecl") return SubOp::prmt_ecl;
        if (m == "ecr") return SubOp::prmt_ecr;
        if (m == "rc16") return SubOp::prmt_rc16;
    }
    if (m == "add" && (op == Opcode::vadd4 || op == Opcode::vsub4 || op == Opcode::vavrg4 ||
                       op == Opcode::vabsdiff4 || op == Opcode::vmin4 || op == Opcode::vmax4 ||
                       op == Opcode::vadd2 || op == Opcode::vsub2 || op == Opcode::vavrg2 ||
                       op == Opcode::vabsdiff2 || op == Opcode::vmin2 || op == Opcode::vmax2))
        return SubOp::add;  // the SIMD video instructions' secondary accumulate (9.7.17.2-3)
    if (op == Opcode::match) {
        if (m == "any") return SubOp::match_any;
        if (m == "all") return SubOp::match_all;
    }
    if (op == Opcode::atom || op == Opcode::red || op == Opcode::redux || op == Opcode::bar ||
        op == Opcode::barrier) {
        static const std::pair<const char*, SubOp> names[] = {
            {"add", SubOp::add}, {"min", SubOp::min},   {"max", SubOp::max},
            {"inc", SubOp::inc}, {"dec", SubOp::dec},   {"and", SubOp::and_},
            {"or", SubOp::or_},  {"xor", SubOp::xor_},  {"exch", SubOp::exch},
            {"cas", SubOp::cas}, {"popc", SubOp::popc},
        };
        for (auto& [n, s] : names)
            if (m == n) return s;
    }
    return SubOp::none;
}

const std::unordered_map<std::string_view, Opcode>& opcode_names() {
    static const std::unordered_map<std::string_view, Opcode> m = [] {
        std::unordered_map<std::string_view, Opcode> t;
        for (int i = 0; i < opcode_count; ++i) t[opcode_table[i].mnemonic] = Opcode(i);
        return t;
    }();
    return m;
}

const std::unordered_map<std::string_view, Special>& special_names() {
    static const std::unordered_map<std::string_view, Special> m = {
        {"%tid.x", Special::tid_x},
        {"%tid.y", Special::tid_y},
        {"%tid.z", Special::tid_z},
        {"%ntid.x", Special::ntid_x},
        {"%ntid.y", Special::ntid_y},
        {"%ntid.z", Special::ntid_z},
        {"%ctaid.x", Special::ctaid_x},
        {"%ctaid.y", Special::ctaid_y},
        {"%ctaid.z", Special::ctaid_z},
        {"%nctaid.x", Special::nctaid_x},
        {"%nctaid.y", Special::nctaid_y},
        {"%nctaid.z", Special::nctaid_z},
        {"%laneid", Special::laneid},
        {"%warpid", Special::warpid},
        {"%nwarpid", Special::nwarpid},
        {"%smid", Special::smid},
        {"%nsmid", Special::nsmid},
        {"%gridid", Special::gridid},
        {"%lanemask_eq", Special::lanemask_eq},
        {"%envreg0", Special::envreg0},
        {"%envreg1", Special::envreg1},
        {"%envreg2", Special::envreg2},
        {"%lanemask_lt", Special::lanemask_lt},
        {"%lanemask_le", Special::lanemask_le},
        {"%lanemask_gt", Special::lanemask_gt},
        {"%lanemask_ge", Special::lanemask_ge},
        {"%clock", Special::clock},
        {"%clock64", Special::clock64},
        {"%globaltimer", Special::globaltimer},
        {"%reserved_smem_offset_begin", Special::reserved_smem_begin},
        {"%reserved_smem_offset_end", Special::reserved_smem_end},
        {"%reserved_smem_offset_cap", Special::reserved_smem_cap},
        {"%reserved_smem_offset_0", Special::reserved_smem_0},
        {"%reserved_smem_offset_1", Special::reserved_smem_1},
        {"%globaltimer_lo", Special::globaltimer_lo},
        {"%globaltimer_hi", Special::globaltimer_hi},
        {"%dynamic_smem_size", Special::dynamic_smem_size},
        {"%total_smem_size", Special::total_smem_size},
        {"WARP_SZ", Special::warpsz},
        {"%cluster_ctarank", Special::cluster_ctarank},
        {"%cluster_nctarank", Special::cluster_nctarank},
        {"%cluster_ctaid.x", Special::cluster_ctaid_x},
        {"%cluster_ctaid.y", Special::cluster_ctaid_y},
        {"%cluster_ctaid.z", Special::cluster_ctaid_z},
        {"%cluster_nctaid.x", Special::cluster_nctaid_x},
        {"%cluster_nctaid.y", Special::cluster_nctaid_y},
        {"%cluster_nctaid.z", Special::cluster_nctaid_z},
        {"%clusterid.x", Special::clusterid_x},
        {"%clusterid.y", Special::clusterid_y},
        {"%clusterid.z", Special::clusterid_z},
        {"%nclusterid.x", Special::nclusterid_x},
        {"%nclusterid.y", Special::nclusterid_y},
        {"%nclusterid.z", Special::nclusterid_z},
        {"%is_explicit_cluster", Special::is_explicit_cluster},
    };
    return m;
}

// [SECTION] Operands ------------------------------------------------------------------------------

class FunctionParser;

std::uint64_t parse_integer(std::string_view s, std::uint32_t line, bool* ok = nullptr) {
    std::string t(s);
    bool neg = false;
    size_t i = 0;
    if (i < t.size() && (t[i] == '-' || t[i] == '+')) {
        neg = t[i] == '-';
        ++i;
    }
    if (!t.empty() && (t.back() == 'U' || t.back() == 'u')) t.pop_back();
    const char* begin = t.c_str() + i;
    char* end = nullptr;
    errno = 0;
    std::uint64_t v;
    if (t.size() > i + 1 && t[i] == '0' && (t[i + 1] == 'x' || t[i + 1] == 'X'))
        v = std::strtoull(begin + 2, &end, 16);
    else if (t.size() > i + 1 && t[i] == '0' && (t[i + 1] == 'b' || t[i + 1] == 'B'))
        v = std::strtoull(begin + 2, &end, 2);
    else if (t.size() > i + 1 && t[i] == '0') v = std::strtoull(begin, &end, 8);
    else v = std::strtoull(begin, &end, 10);
    bool good = end && *end == '\0' && end != begin && errno == 0;
    if (ok) {
        *ok = good;
        return neg ? ~v + 1 : v;
    }
    if (!good) throw ParseError(line, "bad number '" + std::string(s) + "'");
    return neg ? ~v + 1 : v;
}

// A value's bits as an immediate of a float instruction: f32 bits for .f32, f64 bits otherwise.
std::int64_t float_bits(double d, Type type) {
    std::int64_t out = 0;
    if (type == Type::f32) {
        const float f = float(d);
        std::uint32_t b;
        std::memcpy(&b, &f, 4);
        out = b;
    } else {
        std::memcpy(&out, &d, 8);
    }
    return out;
}

// An immediate: integer, 0fXXXXXXXX (f32 bits), 0dXXXXXXXXXXXXXXXX (f64 bits), or a decimal float.
// Returns the bits for an instruction of type `type`.
bool parse_immediate(std::string_view s, Type type, std::uint32_t line, std::int64_t* out) {
    if (s.empty()) return false;
    std::string_view body = s;
    bool neg = false;
    if (body[0] == '-') {
        neg = true;
        body.remove_prefix(1);
    }
    if (body.size() == 10 && (starts_with(body, "0f") || starts_with(body, "0F"))) {
        std::uint32_t bits =
            std::uint32_t(std::strtoul(std::string(body.substr(2)).c_str(), nullptr, 16));
        if (neg) bits ^= 0x80000000u;
        if (type == Type::f64) {  // f32 literal in an f64 instruction: widen
            *out = float_bits(double(std::bit_cast<float>(bits)), type);
        } else {
            *out = bits;
        }
        return true;
    }
    if (body.size() == 18 && (starts_with(body, "0d") || starts_with(body, "0D"))) {
        std::uint64_t bits = std::strtoull(std::string(body.substr(2)).c_str(), nullptr, 16);
        if (neg) bits ^= 0x8000000000000000ull;
        if (type == Type::f32) {  // f64 literal in an f32 instruction: round
            *out = float_bits(std::bit_cast<double>(bits), type);
        } else {
            *out = std::int64_t(bits);
        }
        return true;
    }
    if (!(std::isdigit((unsigned char)body[0]))) return false;
    bool is_float_text =
        body.find('.') != std::string_view::npos ||
        ((body.find('e') != std::string_view::npos || body.find('E') != std::string_view::npos) &&
         !starts_with(body, "0x") && !starts_with(body, "0X"));
    if (is_float_text) {
        *out = float_bits(std::strtod(std::string(s).c_str(), nullptr), type);
        return true;
    }
    std::uint64_t v = parse_integer(s, line);
    if (type_is_float(type)) {  // an integer literal in a float instruction means that value
        *out = float_bits(double(std::int64_t(v)), type);
        return true;
    }
    *out = std::int64_t(v);
    return true;
}

// [SECTION] Declarations --------------------------------------------------------------------------

struct Decl {
    Space space = Space::none;
    Type type = Type::none;
    std::uint32_t align = 0;
    std::string name;
    std::int64_t array = -1;   // -1: scalar; 0: [] (extern); n: [n]
    std::int64_t array2 = -1;  // second dimension, when given
    std::string init;          // text after '='
    bool is_extern = false;
    bool is_ptr = false;
    bool is_managed = false;      // .attribute(.managed): a __managed__ variable
    std::int64_t reg_count = -1;  // %r<17>
    bool is_list = false;         // more names follow, separated by commas
    std::string names;            // the text from the (first) name on
};

// ".shared .align 4 .b8 name[1024] = {...}" and ".param .u64 .ptr .global .align 1 name".
Decl parse_decl(std::string_view text, std::uint32_t line) {
    Decl d;
    std::string_view init;
    if (auto eq = text.find('='); eq != std::string_view::npos) {
        init = trim(text.substr(eq + 1));
        text = trim(text.substr(0, eq));
    }
    d.init = std::string(init);
    // Variable attributes (PTX ISA 5.4.8), ".attribute(.managed)" and ".attribute(.unified(a, b))":
    // read here and taken out, so the words below are the declaration's own.
    std::string without_attributes;
    for (std::size_t at; (at = text.find(".attribute")) != std::string_view::npos;) {
        const std::size_t open = text.find('(', at);
        if (open == std::string_view::npos || trim(text.substr(at + 10, open - at - 10)).size())
            throw ParseError(line, "'.attribute' needs '(...)'");
        std::size_t close = open;
        for (int depth = 0; close < text.size(); ++close) {
            if (text[close] == '(') ++depth;
            if (text[close] == ')' && --depth == 0) break;
        }
        if (close >= text.size()) throw ParseError(line, "missing ')' after '.attribute('");
        for (std::string_view a : split_top(text.substr(open + 1, close - open - 1), ',')) {
            a = trim(a);
            if (a == ".managed") d.is_managed = true;
            else if (a.rfind(".unified", 0) !=
                     0)  // .unified(uuid): one address for host and device
                throw ParseError(line, "unknown variable attribute '" + std::string(a) + "'");
        }
        without_attributes += std::string(text.substr(0, at)) + " ";
        text = text.substr(close + 1);
    }
    if (!without_attributes.empty()) {
        without_attributes += std::string(text);
        text = without_attributes;
    }
    // ".reg.b32 f" (inline asm in the CUDA headers) is ".reg .b32 f": split attribute words at
    // dots.
    std::vector<std::string_view> ws;
    for (std::string_view w : words(text)) {
        if (w.size() < 2 || w[0] != '.' || w.find('.', 1) == std::string_view::npos) {
            ws.push_back(w);
            continue;
        }
        size_t start = 0;
        while (start < w.size()) {
            size_t next = w.find('.', start + 1);
            if (next == std::string_view::npos) next = w.size();
            ws.push_back(w.substr(start, next - start));
            start = next;
        }
    }
    for (size_t i = 0; i < ws.size(); ++i) {
        std::string_view w = ws[i];
        if (w == ".extern") d.is_extern = true;
        else if (w == ".visible" || w == ".weak" || w == ".common") {
        } else if (w == ".ptr") d.is_ptr = true;
        else if (w == ".align") {
            if (i + 1 >= ws.size()) throw ParseError(line, "'.align' needs a value");
            d.align = std::uint32_t(parse_integer(ws[++i], line));
        } else if (w[0] == '.') {
            std::string_view k = w.substr(1);
            if (auto t = type_names().find(k); t != type_names().end()) d.type = t->second;
            else if (k == "reg") d.space = Space::reg;
            else if (k == "global" && d.space == Space::none) d.space = Space::global;
            else if (k == "global" || k == "shared" || k == "local" || k == "const") {
                // .param .u64 .ptr .global: the pointee's space, an attribute only.
                if (d.space == Space::none)
                    d.space = k == "shared"  ? Space::shared
                              : k == "local" ? Space::local
                                             : Space::constant;
            } else if (k == "param") d.space = Space::param;
            else if (k == "v2" || k == "v4")
                throw ParseError(line,
                                 "vector declarations are not supported: " + std::string(text));
            else throw ParseError(line, "unknown declaration attribute '" + std::string(w) + "'");
        } else {
            // The name, possibly with [n], [n][m] or <n>.
            std::string rest;
            for (size_t j = i; j < ws.size(); ++j) rest += std::string(ws[j]);
            d.names = rest;
            size_t p = 0;
            while (p < rest.size() && is_ident_char(rest[p])) ++p;
            d.name = rest.substr(0, p);
            std::string_view tail = std::string_view(rest).substr(p);
            int dim = 0;
            while (!tail.empty()) {
                if (tail[0] == ',') {  // ".reg .u32 %r0, %r1": the caller reads the list
                    d.is_list = true;
                    break;
                }
                if (tail[0] == '<') {
                    auto close = tail.find('>');
                    if (close == std::string_view::npos) throw ParseError(line, "missing '>'");
                    d.reg_count = std::int64_t(parse_integer(tail.substr(1, close - 1), line));
                    tail.remove_prefix(close + 1);
                } else if (tail[0] == '[') {
                    auto close = tail.find(']');
                    if (close == std::string_view::npos) throw ParseError(line, "missing ']'");
                    std::string_view n = trim(tail.substr(1, close - 1));
                    std::int64_t v = n.empty() ? 0 : std::int64_t(parse_integer(n, line));
                    if (dim++ == 0) d.array = v;
                    else d.array2 = v;
                    tail.remove_prefix(close + 1);
                } else {
                    throw ParseError(line, "unexpected '" + std::string(tail) + "' in declaration");
                }
            }
            break;
        }
    }
    if (d.name.empty()) throw ParseError(line, "declaration without a name: " + std::string(text));
    return d;
}

constexpr std::uint64_t max_symbol_bytes = 1ull << 32;

std::uint64_t decl_size(const Decl& d, std::uint32_t line = 0) {
    std::uint64_t elem = std::uint64_t(type_bits(d.type) / 8);
    if (d.type == Type::pred) elem = 1;
    const std::uint64_t n = d.array < 0 ? 1 : std::uint64_t(d.array);
    const std::uint64_t m = d.array2 > 0 ? std::uint64_t(d.array2) : 1;
    if (n > max_symbol_bytes || m > max_symbol_bytes || elem * n * m > max_symbol_bytes)
        throw ParseError(line, "'" + d.name + "' is larger than 4 GB");
    return elem * n * m;
}

// Initialiser "{1, 2, 3}" or "5" into bytes of the element type; address items (module scope
// only) become relocations.
constexpr std::uint64_t max_initializer_bytes = 256u << 20;
std::vector<std::uint8_t> parse_initializer(const Decl& d, std::uint32_t line,
                                            std::vector<Relocation>* relocations) {
    std::vector<std::uint8_t> bytes;
    if (d.init.empty()) return bytes;
    std::string_view s = trim(d.init);
    if (!s.empty() && s.front() == '{') s = s.substr(1, s.size() - 2);
    int elem = std::max(1, type_bits(d.type) / 8);
    for (std::string_view item : split_top(s, ',')) {
        if (item.empty()) continue;
        if (item.front() == '{') {  // nested arrays: flatten
            Decl inner = d;
            inner.init = std::string(item);
            std::vector<Relocation> inner_relocations;
            auto more = parse_initializer(inner, line, relocations ? &inner_relocations : nullptr);
            for (Relocation& r : inner_relocations) {
                r.offset += bytes.size();
                relocations->push_back(std::move(r));
            }
            bytes.insert(bytes.end(), more.begin(), more.end());
            continue;
        }
        std::int64_t v = 0;
        if (!parse_immediate(item, d.type, line, &v)) {
            // An address: a function, a variable, generic(variable), each with an optional +offset.
            if (!relocations || elem != 8)
                throw ParseError(line, "unsupported initialiser '" + std::string(item) + "'");
            Relocation r;
            r.offset = bytes.size();
            std::string_view target = item;
            if (auto plus = target.find('+'); plus != std::string_view::npos) {
                r.addend = std::int64_t(parse_integer(trim(target.substr(plus + 1)), line));
                target = trim(target.substr(0, plus));
            }
            if (starts_with(target, "generic(") && target.back() == ')') {
                r.generic = true;
                target = trim(target.substr(8, target.size() - 9));
            }
            if (target.empty() || !std::all_of(target.begin(), target.end(), is_ident_char))
                throw ParseError(line, "unsupported initialiser '" + std::string(item) + "'");
            r.target = std::string(target);
            relocations->push_back(std::move(r));
            v = 0;
        }
        for (int b = 0; b < elem; ++b)
            bytes.push_back(b < 8 ? std::uint8_t(std::uint64_t(v) >> (8 * b))
                                  : 0);  // .b128: high half 0
        if (bytes.size() > max_initializer_bytes) throw ParseError(line, "initialiser too large");
    }
    bytes.resize(std::max<std::uint64_t>(
                     bytes.size(), std::min<std::uint64_t>(decl_size(d), max_initializer_bytes)),
                 0);
    return bytes;
}

Symbol symbol_from(const Decl& d, std::uint32_t line) {
    Symbol s;
    s.name = d.name;
    s.space = d.space;
    s.type = d.type;
    s.align = d.align ? d.align : std::max(1, type_bits(d.type) / 8);
    s.size = decl_size(d, line);
    s.is_extern = d.is_extern || d.array == 0;
    s.is_managed = d.is_managed;
    if (d.is_managed && d.space != Space::global)
        throw ParseError(line, "'.attribute(.managed)' is for .global variables only");
    s.init = parse_initializer(
        d, line, d.space == Space::global || d.space == Space::constant ? &s.relocations : nullptr);
    return s;
}

Param param_from(const Decl& d) {
    Param p;
    p.name = d.name;
    p.type = d.type;
    p.size = std::uint32_t(std::min<std::uint64_t>(decl_size(d), 1u << 20));
    p.align = d.align ? d.align : std::max<std::uint32_t>(1, p.size > 8 ? 8 : p.size);
    p.is_pointer_hint = d.is_ptr;
    return p;
}

// [SECTION] Instructions --------------------------------------------------------------------------

class FunctionParser {
  public:
    static constexpr std::int64_t max_registers = 1 << 20;

    FunctionParser(Module& module, Function& fn) : module_(module), fn_(fn) {}

    void declare(std::string_view text, std::uint32_t line) {
        Decl d = parse_decl(text, line);
        if (d.space == Space::reg) {
            if (d.reg_count >= 0) {
                if (d.reg_count > max_registers)
                    throw ParseError(line, "more than " + std::to_string(max_registers) +
                                               " registers declared");
                for (std::int64_t i = 0; i < d.reg_count; ++i)
                    add_register(d.name + std::to_string(i), d.type);
            } else {
                for (std::string_view name : split_top(d.names, ',')) {
                    if (name.empty() || !std::all_of(name.begin(), name.end(), is_ident_char))
                        throw ParseError(line, "bad register name '" + std::string(name) + "'");
                    add_register(std::string(name), d.type);
                }
            }
            if (fn_.register_names.size() > std::size_t(max_registers))
                throw ParseError(line, "more than " + std::to_string(max_registers) +
                                           " registers declared");
            return;
        }
        if (d.is_list)
            throw ParseError(line, "a list of names is supported in .reg declarations only: " +
                                       std::string(text));
        if (d.space == Space::param || d.space == Space::local || d.space == Space::shared ||
            d.space == Space::constant || d.space == Space::global) {
            Symbol s = symbol_from(d, line);
            fn_.locals.push_back(s);
            auto previous = local_names_.find(s.name);
            if (!scopes_.empty() && !declared_in_scope(scopes_.back().symbols, s.name))
                scopes_.back().symbols.push_back(
                    {s.name, previous == local_names_.end() ? -1 : previous->second});
            local_names_[s.name] = std::int32_t(fn_.locals.size() - 1);  // an inner scope shadows
            return;
        }
        throw ParseError(line, "unsupported declaration in function body: " + std::string(text));
    }

    void label(std::string_view name) {
        fn_.labels[std::string(name)] = std::int32_t(fn_.code.size());
    }

    void instruction(std::string_view text, std::uint32_t line, std::uint32_t src_file,
                     std::uint32_t src_line) {
        Instruction in;
        in.ptx_line = line;
        in.file = src_file;
        in.line = src_line;
        in.text = std::string(text);
        std::string_view s = text;
        if (s[0] == '@') {  // guard predicate
            size_t sp = 1;
            while (sp < s.size() && !std::isspace((unsigned char)s[sp])) ++sp;
            std::string_view g = s.substr(1, sp - 1);
            if (!g.empty() && g[0] == '!') {
                in.guard_negated = true;
                g.remove_prefix(1);
            }
            in.guard = reg_index(g, line);
            s = trim(s.substr(sp));
        }
        size_t sp = 0;
        while (sp < s.size() && !std::isspace((unsigned char)s[sp])) ++sp;
        std::string_view mnemonic = s.substr(0, sp);
        std::string_view rest = trim(s.substr(sp));
        try {
            decode_mnemonic(in, mnemonic, line);
        } catch (const Unsupported& e) {
            // Its operands are not read: their forms may be ones only this instruction has.
            fn_.unsupported.push_back(
                {"ptx:" + std::to_string(line) + ": " + e.what(), line, src_file, src_line});
            return;
        }
        if (in.op == Opcode::call) {
            parse_call(in, rest, line);
        } else if (!rest.empty()) {
            auto parts = split_top(rest, ',');
            if (parts.size() > 6) throw ParseError(line, "too many operands");
            for (auto part : parts) in.operands[in.operand_count++] = operand(part, in, line);
        }
        fn_.code.push_back(std::move(in));
    }

    // Resolves branch targets once all labels are known.
    void finish() {
        for (Instruction& in : fn_.code) {
            if (in.op == Opcode::bra) {
                if (in.operand_count != 1 || in.operands[0].kind != OperandKind::label)
                    throw ParseError(in.ptx_line, "bra needs one label");
                auto it = fn_.labels.find(in.operands[0].name);
                if (it == fn_.labels.end())
                    throw ParseError(in.ptx_line, "unknown label '" + in.operands[0].name + "'");
                in.target = it->second;
            }
        }
    }

  private:
    // A register declared in a nested { } scope (inline asm in the CUDA headers declares
    // `.reg .u32 %r1, ...` that way) is a new register that hides an outer one of the same name
    // until the scope closes; a repeated declaration in the same scope is the same register.
    void add_register(std::string name, Type type) {
        auto it = fn_.registers.find(name);
        if (it != fn_.registers.end()) {
            if (scopes_.empty() || declared_in_scope(scopes_.back().registers, name)) return;
        }
        const std::int32_t index = std::int32_t(fn_.register_names.size());
        if (!scopes_.empty())
            scopes_.back().registers.push_back({name, it == fn_.registers.end() ? -1 : it->second});
        fn_.register_names.push_back(name);
        fn_.register_types.push_back(type);
        fn_.registers[std::move(name)] = index;
    }

    static bool declared_in_scope(const std::vector<std::pair<std::string, std::int32_t>>& list,
                                  const std::string& name) {
        for (const auto& entry : list)
            if (entry.first == name) return true;
        return false;
    }

  public:
    void open_scope() { scopes_.emplace_back(); }
    void close_scope() {
        if (scopes_.empty()) return;
        Scope& scope = scopes_.back();
        for (auto it = scope.registers.rbegin(); it != scope.registers.rend(); ++it) {
            if (it->second < 0) fn_.registers.erase(it->first);
            else fn_.registers[it->first] = it->second;
        }
        for (auto it = scope.symbols.rbegin(); it != scope.symbols.rend(); ++it) {
            if (it->second < 0) local_names_.erase(it->first);
            else local_names_[it->first] = it->second;
        }
        scopes_.pop_back();
    }

  private:
    std::int32_t reg_index(std::string_view name, std::uint32_t line) {
        auto it = fn_.registers.find(std::string(name));
        if (it == fn_.registers.end())
            throw ParseError(line, "undeclared register '" + std::string(name) + "'");
        return it->second;
    }

    void decode_mnemonic(Instruction& in, std::string_view mnemonic, std::uint32_t line) {
        std::vector<std::string_view> parts;
        size_t start = 0;
        for (size_t i = 0; i <= mnemonic.size(); ++i) {
            if (i == mnemonic.size() || mnemonic[i] == '.') {
                // "shared::cta" and "L1::no_allocate" contain dots? No: '::' only. Keep as one
                // part.
                parts.push_back(mnemonic.substr(start, i - start));
                start = i + 1;
            }
        }
        size_t first_modifier = 1;
        auto& ops = opcode_names();
        if (parts.size() >= 2) {
            std::string two = std::string(parts[0]) + "." + std::string(parts[1]);
            if (auto it = ops.find(two); it != ops.end() && two != "cvt.rn") {
                in.op = it->second;
                first_modifier = 2;
            }
        }
        if (first_modifier == 1) {
            auto it = ops.find(parts[0]);
            if (it == ops.end()) {
                // A word of PTX's shape (letters, digits, '_', '.', "::") is an instruction the
                // emulator does not know; anything else is malformed text.
                const bool word =
                    !parts[0].empty() && std::isalpha((unsigned char)parts[0][0]) &&
                    std::all_of(mnemonic.begin(), mnemonic.end(), [](char c) {
                        return std::isalnum((unsigned char)c) || c == '_' || c == '.' || c == ':';
                    });
                if (!word)
                    throw ParseError(line, "malformed instruction '" + std::string(mnemonic) + "'");
                throw Unsupported(line, "unknown instruction '" + std::string(mnemonic) + "'");
            }
            in.op = it->second;
        }
        std::vector<Type> types;
        const bool is_compare = in.op == Opcode::setp || in.op == Opcode::set;
        const bool is_matrix = in.op == Opcode::wmma_load || in.op == Opcode::wmma_store ||
                               in.op == Opcode::wmma_mma || in.op == Opcode::mma ||
                               in.op == Opcode::ldmatrix || in.op == Opcode::stmatrix ||
                               in.op == Opcode::movmatrix;
        const bool is_texture = in.op == Opcode::tex || in.op == Opcode::tld4 ||
                                in.op == Opcode::txq || in.op == Opcode::suld ||
                                in.op == Opcode::sust || in.op == Opcode::sured ||
                                in.op == Opcode::suq;
        int layouts = 0;  // .row/.col seen: the first is A's (or wmma.load/store's), the second B's
        for (size_t i = first_modifier; i < parts.size(); ++i) {
            std::string_view m = parts[i];
            if (auto t = type_names().find(m); t != type_names().end()) {
                types.push_back(t->second);
                continue;
            }
            if (is_matrix && matrix_modifier(in, m, layouts)) continue;
            if (is_texture && texture_modifier(in, m, mnemonic, line)) continue;
            if (is_compare) {
                if (auto c = cmp_names().find(m); c != cmp_names().end() && in.cmp == Cmp::none) {
                    in.cmp = c->second;
                    continue;
                }
                if (m == "and") {
                    in.bool_op = SubOp::and_;
                    continue;
                }
                if (m == "or") {
                    in.bool_op = SubOp::or_;
                    continue;
                }
                if (m == "xor") {
                    in.bool_op = SubOp::xor_;
                    continue;
                }
            }
            if (in.op == Opcode::testp) {
                static const std::pair<const char*, SubOp> properties[] = {
                    {"finite", SubOp::testp_finite}, {"infinite", SubOp::testp_infinite},
                    {"number", SubOp::testp_number}, {"notanumber", SubOp::testp_notanumber},
                    {"normal", SubOp::testp_normal}, {"subnormal", SubOp::testp_subnormal},
                };
                bool found = false;
                for (auto& [name, property] : properties)
                    if (m == name) {
                        in.sub = property;
                        found = true;
                    }
                if (found) continue;
            }
            if (SubOp so = sub_op_of(in.op, m); so != SubOp::none && in.sub == SubOp::none) {
                in.sub = so;
                continue;
            }
            if (m == "hi") {
                in.flags |= f_hi;
                continue;
            }
            if (m == "lo") {
                in.flags |= f_lo;
                continue;
            }
            if (auto r = rounding_names().find(m); r != rounding_names().end()) {
                in.rounding = r->second;
                continue;
            }
            if (auto sp = space_names().find(m); sp != space_names().end()) {
                in.space = sp->second;
                continue;
            }
            if (m == "v2") {
                in.vector = 2;
                continue;
            }
            if (m == "v4") {
                in.vector = 4;
                continue;
            }
            if (m == "v8") {
                in.vector = 8;
                continue;
            }
            if (m == "r" && in.op == Opcode::shf)
                continue;  // shf.r: right is the default (no f_shift_left)
            if (auto f = flag_names().find(m); f != flag_names().end()) {
                in.flags |= f->second;
                continue;
            }
            if (in.op == Opcode::bar || in.op == Opcode::barrier) {
                if (m == "red") {
                    in.flags |= f_red;
                    continue;
                }
            }
            // fence.proxy.*, and fence.mbarrier_init.release.cluster (after initialising an
            // mbarrier other blocks of the cluster use): orderings the emulator always has.
            if (in.op == Opcode::fence &&
                (m == "proxy" || m == "alias" || m == "async" || m == "mbarrier_init"))
                continue;
            if (in.op == Opcode::cp_async) {
                // cp.async.commit_group / wait_group / wait_all / mbarrier.arrive; the copy itself
                // names its state spaces (.shared.global), which the handler knows.
                static const std::pair<const char*, SubOp> forms[] = {
                    {"commit_group", SubOp::cp_commit_group},
                    {"wait_group", SubOp::cp_wait_group},
                    {"wait_all", SubOp::cp_wait_all},
                    {"mbarrier", SubOp::cp_mbarrier_arrive},
                };
                bool found = false;
                for (auto& [name, form] : forms)
                    if (m == name) {
                        in.sub = form;
                        found = true;
                    }
                if (found) continue;
                if (m == "bulk") {
                    if (in.sub == SubOp::none) in.sub = SubOp::cp_bulk;
                    continue;
                }
                if (m == "prefetch" && in.sub == SubOp::cp_bulk) {
                    in.sub = SubOp::cp_bulk_prefetch;
                    continue;
                }
                if (m == "bulk_group" || m == "read") continue;  // bulk_group, wait_group.read
                if (m == "tensor")
                    throw Unsupported(line, "cp.async.bulk.tensor (copies of tensor tiles through "
                                            "a tensor map) is not implemented by the emulator: '" +
                                                std::string(mnemonic) + "'");
            }
            if (in.op == Opcode::griddepcontrol && (m == "wait" || m == "launch_dependents"))
                continue;  // dependent grids start after their primary ends: both are no-ops
            // barrier.cluster.arrive / .wait: f_arrive marks the arrive, its absence the wait.
            if (in.op == Opcode::barrier_cluster && m == "wait") continue;
            if (m == "shared::cluster") {
                in.space = Space::shared;
                in.flags |= f_cluster;
                continue;
            }
            // A copy to every block of a cluster at once (cp.async.bulk ... .multicast::cluster):
            // not a cache hint to skip, and not implemented.
            if (starts_with(m, "multicast"))
                throw Unsupported(line, "multicast to the blocks of a cluster is not implemented "
                                        "by the emulator: '" +
                                            std::string(mnemonic) + "'");
            if (is_ignorable_modifier(m)) continue;
            if (m.find("::") != std::string_view::npos) {
                auto sp = space_names().find(m);
                if (sp != space_names().end()) {
                    in.space = sp->second;
                    continue;
                }
                if (starts_with(m, "shared")) {
                    in.space = Space::shared;
                    continue;
                }
                continue;  // cache hints such as L1::no_allocate
            }
            throw Unsupported(line, "unknown modifier '." + std::string(m) + "' in '" +
                                        std::string(mnemonic) + "'");
        }
        if (!types.empty()) {
            in.type = types[0];
            in.type2 = types.size() > 1 ? types[1] : types[0];
            in.type3 = types.size() > 2 ? types[2] : in.type2;
        }
        if (is_matrix) matrix_types(in, types, mnemonic, line);
        if ((in.op == Opcode::ld || in.op == Opcode::st || in.op == Opcode::ldu ||
             in.op == Opcode::atom || in.op == Opcode::red || in.op == Opcode::prefetch ||
             in.op == Opcode::mbarrier_init || in.op == Opcode::mbarrier_inval ||
             in.op == Opcode::mbarrier_expect_tx || in.op == Opcode::mbarrier_complete_tx ||
             in.op == Opcode::mbarrier_arrive || in.op == Opcode::mbarrier_arrive_drop ||
             in.op == Opcode::mbarrier_test_wait || in.op == Opcode::mbarrier_try_wait ||
             in.op == Opcode::wmma_load || in.op == Opcode::wmma_store ||
             in.op == Opcode::ldmatrix || in.op == Opcode::stmatrix) &&
            in.space == Space::none)
            in.space = Space::generic;
        if (in.op == Opcode::cp_async && in.sub == SubOp::cp_bulk) {
            // The destination's state space comes first: .shared::cluster.global (global to
            // shared), .global.shared::cta (shared to global), .shared::cluster.shared::cta.
            const auto bulk = mnemonic.find(".bulk.");
            const auto global = mnemonic.find(".global", bulk);
            const auto shared = mnemonic.find(".shared", bulk);
            if (global != std::string_view::npos && global < shared) in.flags |= f_bulk_to_global;
            else if (shared != std::string_view::npos &&
                     mnemonic.find(".shared", shared + 1) != std::string_view::npos)
                in.flags |= f_bulk_from_shared;
        }
        if (in.vector > 4)
            throw Unsupported(line, "vectors of more than 4 elements are not supported");
    }

    // A modifier of the texture and surface instructions (9.7.10, 9.7.11): the geometry, the
    // level-of-detail form, tld4's component, the surface boundary mode, txq's and suq's query,
    // sured's operation. Forms CUDA never emits for its texture and surface objects are refused
    // by name.
    static bool texture_modifier(Instruction& in, std::string_view m, std::string_view mnemonic,
                                 std::uint32_t line) {
        TextureForm& t = in.texture;
        static const std::pair<const char*, TexGeometry> geometries[] = {
            {"1d", TexGeometry::d1},      {"2d", TexGeometry::d2},   {"3d", TexGeometry::d3},
            {"a1d", TexGeometry::a1d},    {"a2d", TexGeometry::a2d}, {"cube", TexGeometry::cube},
            {"acube", TexGeometry::acube}};
        for (auto& [name, g] : geometries)
            if (m == name && in.op != Opcode::txq && in.op != Opcode::suq) {
                t.geometry = g;
                return true;
            }
        if (m == "2dms" || m == "a2dms")
            throw Unsupported(line, "multisample textures (." + std::string(m) +
                                        ") are not supported by the emulator (CUDA makes none): '" +
                                        std::string(mnemonic) + "'");
        if (in.op == Opcode::tex) {
            if (m == "base") return true;
            if (m == "level") {
                t.lod = TextureForm::Lod::level;
                return true;
            }
            if (m == "grad") {
                t.lod = TextureForm::Lod::grad;
                return true;
            }
        }
        if (in.op == Opcode::tld4 && m.size() == 1) {
            const auto at = std::string_view("rgba").find(m[0]);
            if (at != std::string_view::npos) {
                t.component = std::int8_t(at);
                return true;
            }
        }
        if (in.op == Opcode::suld || in.op == Opcode::sust || in.op == Opcode::sured) {
            if (m == "b") return true;
            if (m == "p")
                throw Unsupported(line, "formatted surface access (." + std::string(m) +
                                            ") is not supported by the emulator: '" +
                                            std::string(mnemonic) + "'");
            if (m == "trap") {
                t.clamp = TextureForm::Clamp::trap;
                return true;
            }
            if (m == "clamp") {
                t.clamp = TextureForm::Clamp::clamp;
                return true;
            }
            if (m == "zero") {
                t.clamp = TextureForm::Clamp::zero;
                return true;
            }
        }
        if (in.op == Opcode::sured) {
            static const std::pair<const char*, SubOp> ops[] = {{"add", SubOp::add},
                                                                {"min", SubOp::min},
                                                                {"max", SubOp::max},
                                                                {"and", SubOp::and_},
                                                                {"or", SubOp::or_}};
            for (auto& [name, op] : ops)
                if (m == name) {
                    in.sub = op;
                    return true;
                }
        }
        if (in.op == Opcode::txq || in.op == Opcode::suq) {
            if (in.op == Opcode::txq && m == "level" && t.query.empty()) {
                t.query_level = true;
                return true;
            }
            static const char* queries[] = {"width",         "height",
                                            "depth",         "channel_data_type",
                                            "channel_order", "normalized_coords",
                                            "array_size",    "num_mipmap_levels",
                                            "num_samples",   "force_unnormalized_coords",
                                            "filter_mode",   "addr_mode_0",
                                            "addr_mode_1",   "addr_mode_2",
                                            "memory_layout"};
            for (const char* q : queries)
                if (m == q) {
                    t.query = q;
                    return true;
                }
        }
        return false;
    }

    // A modifier of the matrix instructions (9.7.14): the matrix of wmma.load/store, layouts,
    // the shape, ldmatrix's count and .trans.
    static bool matrix_modifier(Instruction& in, std::string_view m, int& layouts) {
        ptx::MatrixForm& f = in.matrix;
        if ((in.op == Opcode::wmma_load || in.op == Opcode::wmma_store) && m.size() == 1 &&
            (m == "a" || m == "b" || m == "c" || m == "d")) {
            f.matrix = m[0];
            return true;
        }
        if (m == "row" || m == "col") {
            (layouts++ == 0 ? f.a_col : f.b_col) = m == "col";
            return true;
        }
        if (m == "trans") {
            f.trans = true;
            return true;
        }
        if (m == "x1" || m == "x2" || m == "x4") {
            f.count = std::uint8_t(m[1] - '0');
            return true;
        }
        if (m.size() >= 4 && m[0] == 'm' && std::isdigit((unsigned char)m[1])) {
            // m<M>n<N>[k<K>]
            unsigned values[3] = {0, 0, 0};
            const char letters[3] = {'m', 'n', 'k'};
            size_t at = 0;
            int part = 0;
            for (; part < 3 && at < m.size(); ++part) {
                if (m[at] != letters[part]) return false;
                ++at;
                if (at >= m.size() || !std::isdigit((unsigned char)m[at])) return false;
                while (at < m.size() && std::isdigit((unsigned char)m[at]))
                    values[part] = values[part] * 10 + unsigned(m[at++] - '0');
                if (values[part] > 255) return false;
            }
            if (at != m.size() || part < 2) return false;
            f.m = std::uint8_t(values[0]);
            f.n = std::uint8_t(values[1]);
            f.k = std::uint8_t(values[2]);
            return true;
        }
        return false;
    }

    // The types of mma and wmma.mma (D, A, B, C; wmma.mma of f16 names D and C only); an
    // instruction of a form the emulator does not implement is refused here, when the PTX is read.
    static void matrix_types(Instruction& in, const std::vector<Type>& types,
                             std::string_view mnemonic, std::uint32_t line) {
        ptx::MatrixForm& f = in.matrix;
        auto refuse = [&](const std::string& why) {
            throw Unsupported(line, "'" + std::string(mnemonic) + "': " + why +
                                        " (docs/emulator.md, \"Tensor cores\", lists what is)");
        };
        if (in.op == Opcode::wmma_mma || in.op == Opcode::mma) {
            if (types.size() == 4) {
                f.d = types[0];
                f.a = types[1];
                f.b = types[2];
                f.c = types[3];
            } else if (types.size() == 2 && in.op == Opcode::wmma_mma) {
                f.d = types[0];
                f.a = f.b = Type::f16;
                f.c = types[1];
            } else {
                refuse("unexpected types");
            }
        }
        if (!tensor_form_supported(in)) refuse("this shape or type is not implemented");
    }

    Operand operand(std::string_view s, const Instruction& in, std::uint32_t line) {
        Operand o;
        s = trim(s);
        if (s.empty()) throw ParseError(line, "empty operand");
        if (s == "_") {
            o.kind = OperandKind::sink;
            return o;
        }
        if (s.front() == '[') {
            if (s.back() != ']') throw ParseError(line, "missing ']' in '" + std::string(s) + "'");
            const std::string_view inside = trim(s.substr(1, s.size() - 2));
            const auto parts = split_top(inside, ',');
            if (parts.size() == 2 && trim(parts[1]).size() >= 2 && trim(parts[1]).front() == '{') {
                // A texture or surface operand: [handle, {coordinates}] (9.7.10, 9.7.11).
                address(o, trim(parts[0]), line);
                const Operand coords = operand(parts[1], in, line);
                std::copy(std::begin(coords.vec), std::end(coords.vec), std::begin(o.vec));
                o.vec_count = coords.vec_count;
                return o;
            }
            address(o, inside, line);
            return o;
        }
        if (s.front() == '{') {
            o.kind = OperandKind::vector;
            auto items = split_top(s.substr(1, s.size() - 2), ',');
            if (items.size() > size_t(ptx::max_vector_registers))
                throw ParseError(line, "vector of more than " +
                                           std::to_string(ptx::max_vector_registers) +
                                           " registers");
            for (auto item : items) {
                o.vec[o.vec_count++] = item == "_" ? -1 : reg_index(item, line);
            }
            return o;
        }
        if (auto bar = s.find('|'); bar != std::string_view::npos) {  // d|p destinations
            o.kind = OperandKind::vector;
            const auto d = trim(s.substr(0, bar));
            o.vec[0] = d == "_" && in.op == Opcode::elect ? -1 : reg_index(d, line);
            auto p = trim(s.substr(bar + 1));
            o.vec[1] = p == "_" ? -1 : reg_index(p, line);
            o.vec_count = 2;
            return o;
        }
        if (s.front() == '!') {
            o = operand(s.substr(1), in, line);
            o.negate = true;
            return o;
        }
        if (s.front() == '%' || s == "WARP_SZ") {
            if (auto it = fn_.registers.find(std::string(s)); it != fn_.registers.end()) {
                o.kind = OperandKind::reg;
                o.reg = it->second;
                return o;
            }
            if (auto sp = special_names().find(s); sp != special_names().end()) {
                o.kind = OperandKind::special;
                o.special = sp->second;
                return o;
            }
            throw ParseError(line, "undeclared register '" + std::string(s) + "'");
        }
        if (auto it = fn_.registers.find(std::string(s));
            it != fn_.registers.end()) {  // inline asm: __$temp3
            o.kind = OperandKind::reg;
            o.reg = it->second;
            return o;
        }
        std::int64_t v;
        if ((std::isdigit((unsigned char)s[0]) || s[0] == '-') &&
            parse_immediate(s, in.type, line, &v)) {
            o.kind = OperandKind::imm;
            o.value = v;
            return o;
        }
        // A name: a branch target, or a symbol used as a value (its address).
        if (in.op == Opcode::bra || in.op == Opcode::brx) {
            o.kind = OperandKind::label;
            o.name = std::string(s);
            return o;
        }
        std::string name(s);
        std::int64_t offset = 0;
        if (auto plus = s.find('+'); plus != std::string_view::npos) {
            name = std::string(trim(s.substr(0, plus)));
            offset = std::int64_t(parse_integer(trim(s.substr(plus + 1)), line));
        }
        if (!resolve_symbol(o, name)) throw ParseError(line, "unknown symbol '" + name + "'");
        o.kind = OperandKind::symbol;
        o.value = offset;
        return o;
    }

    void address(Operand& o, std::string_view s, std::uint32_t line) {
        o.kind = OperandKind::address;
        std::string_view base = s;
        std::int64_t offset = 0;
        for (size_t i = 1; i < s.size(); ++i) {
            if (s[i] == '+' || (s[i] == '-' && s[i - 1] != '+')) {
                base = trim(s.substr(0, i));
                std::string_view off = trim(s.substr(s[i] == '+' ? i + 1 : i));
                offset = std::int64_t(parse_integer(off, line));
                break;
            }
        }
        o.value = offset;
        if (base.empty()) throw ParseError(line, "empty address");
        if (base[0] == '%' || fn_.registers.count(std::string(base))) {
            o.reg = reg_index(base, line);
            return;
        }
        if (std::isdigit((unsigned char)base[0])) {  // [immediate]
            o.value += std::int64_t(parse_integer(base, line));
            return;
        }
        if (!resolve_symbol(o, std::string(base)) || o.scope == Operand::code_scope)
            throw ParseError(line, "unknown symbol '" + std::string(base) + "' in address");
    }

    bool resolve_symbol(Operand& o, const std::string& name) {
        if (auto it = local_names_.find(name); it != local_names_.end()) {
            o.scope = Operand::function_scope;
            o.symbol = it->second;
            return true;
        }
        for (size_t i = 0; i < fn_.params.size(); ++i)
            if (fn_.params[i].name == name) {
                o.scope = Operand::param_scope;
                o.symbol = std::int32_t(i);
                return true;
            }
        for (size_t i = 0; i < fn_.returns.size(); ++i)
            if (fn_.returns[i].name == name) {
                o.scope = Operand::return_scope;
                o.symbol = std::int32_t(i);
                return true;
            }
        for (size_t i = 0; i < module_.globals.size(); ++i)
            if (module_.globals[i].name == name) {
                o.scope = Operand::module_scope;
                o.symbol = std::int32_t(i);
                return true;
            }
        for (const Function& f : module_.functions)
            // a function's address; its index is settled once the module is read
            if (f.name == name) {
                o.scope = Operand::code_scope;
                o.name = name;
                return true;
            }
        return false;
    }

    // call.uni (retval0), vprintf, (param0, param1);   call _Z3fooi, (param0);   call.uni foo;
    void parse_call(Instruction& in, std::string_view rest, std::uint32_t line) {
        auto parts = split_top(rest, ',');
        size_t i = 0;
        auto is_list = [&](size_t k) {
            return k < parts.size() && !parts[k].empty() && parts[k].front() == '(';
        };
        auto symbol_list = [&](std::string_view list, std::vector<std::int32_t>& out) {
            list = trim(list);
            if (list.size() < 2 || list.front() != '(' || list.back() != ')')
                throw ParseError(line, "call: expected '(...)'");
            for (auto item : split_top(list.substr(1, list.size() - 2), ',')) {
                if (item.empty()) continue;
                auto it = local_names_.find(std::string(item));
                if (it == local_names_.end())
                    throw ParseError(line, "call: unknown parameter '" + std::string(item) + "'");
                out.push_back(it->second);
            }
        };
        if (is_list(i)) symbol_list(parts[i++], in.call_results);
        if (i >= parts.size() || parts[i].empty()) throw ParseError(line, "call without a callee");
        Operand callee;
        callee.kind = OperandKind::label;
        callee.name = std::string(parts[i++]);
        if (is_list(i)) symbol_list(parts[i++], in.call_args);
        if (fn_.registers.count(callee.name)) {
            // call through a function pointer: `call (r), %rd8, (p), prototype_0;`
            callee.kind = OperandKind::reg;
            callee.reg = fn_.registers.at(callee.name);
            if (i < parts.size() && !parts[i].empty() && parts[i].front() != '(')
                ++i;  // the prototype
        } else if (callee.name[0] == '%') {
            throw ParseError(line, "call: undeclared register '" + callee.name + "'");
        }
        if (i < parts.size())
            throw ParseError(line, "call: unexpected '" + std::string(parts[i]) + "'");
        Operand results, args;
        results.kind = args.kind = OperandKind::vector;
        in.operands[0] = results;
        in.operands[1] = callee;
        in.operands[2] = args;
        in.operand_count = 3;
    }

    struct Scope {  // what a nested { } declared, with what each name meant before it (-1: nothing)
        std::vector<std::pair<std::string, std::int32_t>> registers, symbols;
    };
    Module& module_;
    Function& fn_;
    std::unordered_map<std::string, std::int32_t> local_names_;
    std::vector<Scope> scopes_;
};

// Function header: ".visible .entry name(.param ...)" or ".func (.param .b32 r) name(.param ...)"
// followed by performance directives.
void parse_function_header(Module& module, Function& fn, std::string_view text,
                           std::uint32_t line) {
    std::string_view s = trim(text);
    auto ws = words(s);
    size_t pos = 0;
    bool is_entry = false, found = false;
    for (; pos < s.size();) {
        while (pos < s.size() && std::isspace((unsigned char)s[pos])) ++pos;
        size_t end = pos;
        while (end < s.size() && !std::isspace((unsigned char)s[end]) && s[end] != '(') ++end;
        std::string_view w = s.substr(pos, end - pos);
        pos = end;
        if (w == ".entry") {
            is_entry = true;
            found = true;
            break;
        }
        if (w == ".func") {
            found = true;
            break;
        }
        if (w == ".visible" || w == ".extern" || w == ".weak") {
            if (w == ".extern") fn.is_extern = true;
            continue;
        }
        throw ParseError(line, "unexpected '" + std::string(w) + "' before .entry/.func");
    }
    if (!found) throw ParseError(line, "expected .entry or .func");
    fn.is_entry = is_entry;
    std::string_view rest = trim(s.substr(pos));
    auto read_list = [&](std::string_view& r, std::vector<Param>& out) {
        r = trim(r);
        if (r.empty() || r.front() != '(') return;
        int depth = 0;
        size_t close = 0;
        for (size_t i = 0; i < r.size(); ++i) {
            if (r[i] == '(') ++depth;
            if (r[i] == ')' && --depth == 0) {
                close = i;
                break;
            }
        }
        if (close == 0) throw ParseError(line, "unterminated parameter list");
        for (auto item : split_top(r.substr(1, close - 1), ',')) {
            if (item.empty()) continue;
            Decl d = parse_decl(item, line);
            if (d.space != Space::param && d.space != Space::reg)
                throw ParseError(line, "expected .param in parameter list: " + std::string(item));
            out.push_back(param_from(d));
        }
        r = trim(r.substr(close + 1));
    };
    if (!is_entry) read_list(rest, fn.returns);
    size_t n = 0;
    while (n < rest.size() && is_ident_char(rest[n]) && rest[n] != '.') ++n;
    fn.name = std::string(rest.substr(0, n));
    if (fn.name.empty()) throw ParseError(line, "function without a name");
    rest = trim(rest.substr(n));
    read_list(rest, fn.params);
    std::uint32_t offset = 0;
    for (Param& p : fn.params) {
        offset = (offset + p.align - 1) / p.align * p.align;
        p.offset = offset;
        offset += p.size;
    }
    fn.param_bytes = offset;
    offset = 0;
    for (Param& p : fn.returns) {
        offset = (offset + p.align - 1) / p.align * p.align;
        p.offset = offset;
        offset += p.size;
    }
    fn.return_bytes = offset;
    // Performance directives (".maxntid 256, 1, 1" ...), separated by whitespace/newlines.
    auto dirs = words(rest);
    for (size_t i = 0; i < dirs.size(); ++i) {
        std::string_view d = dirs[i];
        auto read_dims = [&](std::uint32_t* out, int max) {
            std::string joined;
            while (i + 1 < dirs.size() && dirs[i + 1][0] != '.') joined += std::string(dirs[++i]);
            int k = 0;
            for (auto v : split_top(joined, ','))
                if (!v.empty() && k < max) out[k++] = std::uint32_t(parse_integer(v, line));
            for (; k < max; ++k) out[k] = out[k] ? out[k] : 1;
        };
        if (d == ".maxntid") read_dims(fn.maxntid, 3);
        else if (d == ".reqntid") read_dims(fn.reqntid, 3);
        else if (d == ".minnctapersm") read_dims(&fn.minnctapersm, 1);
        else if (d == ".maxnreg") read_dims(&fn.maxnreg, 1);
        // Clusters (sm_90, __cluster_dims__): the launch must form clusters of exactly this shape.
        else if (d == ".reqnctapercluster") read_dims(fn.reqnctapercluster, 3);
        else if (d == ".explicitcluster") fn.explicit_cluster = true;
        else if (d == ".maxclusterrank") read_dims(&fn.maxclusterrank, 1);
        else if (d == ".maxnctapersm" || d == ".noreturn" || d == ".pragma") {
            while (i + 1 < dirs.size() && dirs[i + 1][0] != '.') ++i;
        } else throw ParseError(line, "unknown function directive '" + std::string(d) + "'");
    }
    (void)module;
}

// [SECTION] Statement splitting and the driver ----------------------------------------------------

class Parser {
  public:
    explicit Parser(const std::string& text) : text_(text) {}

    Module run() {
        strip_comments();
        size_t pos = 0;
        std::uint32_t line = 1;
        while (pos < clean_.size()) {
            size_t end = clean_.find('\n', pos);
            if (end == std::string::npos) end = clean_.size();
            line_text(std::string_view(clean_).substr(pos, end - pos), line);
            pos = end + 1;
            ++line;
        }
        if (!pending_blank_)
            throw ParseError(pending_line_,
                             "unterminated statement: " + std::string(trim(pending_)));
        if (section_depth_ != 0) throw ParseError(line, "unterminated .section");
        if (current_) throw ParseError(line, "unterminated function body");
        // A function declared first and defined later appears twice; its definition counts.
        for (size_t i = 0; i < module_.functions.size(); ++i) {
            auto [it, fresh] =
                module_.function_index.emplace(module_.functions[i].name, std::int32_t(i));
            if (!fresh && !module_.functions[i].is_extern) it->second = std::int32_t(i);
        }
        for (Function& fn : module_.functions) resolve_calls(fn);
        return std::move(module_);
    }

    // The source line (.loc) of the statement being read, inside a function; 0 elsewhere.
    std::uint32_t source_line() const { return current_ ? loc_line_ : 0; }
    // The file that line is in (.file): the learner's, or a header inlined into it. NVRTC puts
    // the .file directives after the code, so they are looked for in the text.
    std::string source_file(const std::string& text) const {
        if (!current_) return {};
        const std::string key = ".file\t" + std::to_string(loc_file_) + " \"";
        const size_t at = text.find(key);
        if (at == std::string::npos) return {};
        const size_t start = at + key.size(), end = text.find('"', start);
        return end == std::string::npos ? std::string() : text.substr(start, end - start);
    }

  private:
    void strip_comments() {
        clean_.reserve(text_.size());
        bool in_block = false, in_string = false;
        for (size_t i = 0; i < text_.size(); ++i) {
            char c = text_[i];
            if (in_block) {
                if (c == '*' && i + 1 < text_.size() && text_[i + 1] == '/') {
                    in_block = false;
                    ++i;
                } else if (c == '\n') clean_ += '\n';
                continue;
            }
            if (in_string) {
                clean_ += c;
                if (c == '"') in_string = false;
                continue;
            }
            if (c == '"') {
                in_string = true;
                clean_ += c;
                continue;
            }
            if (c == '/' && i + 1 < text_.size() && text_[i + 1] == '/') {
                while (i < text_.size() && text_[i] != '\n') ++i;
                clean_ += '\n';
                continue;
            }
            if (c == '/' && i + 1 < text_.size() && text_[i + 1] == '*') {
                in_block = true;
                ++i;
                continue;
            }
            clean_ += c;
        }
    }

    void line_text(std::string_view raw, std::uint32_t line) {
        std::string_view t = trim(raw);
        if (t.empty()) return;
        if (section_depth_ > 0) {
            skip_section(t, line);
            return;
        }
        if (pending_blank_) {
            // Directives that end at the end of the line rather than at ';'.
            if (starts_with(t, ".loc") && t.size() > 4 && std::isspace((unsigned char)t[4])) {
                loc(t, line);
                return;
            }
            if (starts_with(t, ".file") && t.size() > 5 && std::isspace((unsigned char)t[5])) {
                file(t, line);
                return;
            }
            if (starts_with(t, ".version")) {
                module_.version = std::string(trim(t.substr(8)));
                return;
            }
            if (starts_with(t, ".target")) {
                module_.target = std::string(trim(t.substr(7)));
                return;
            }
            if (starts_with(t, ".address_size")) {
                module_.address_size = int(parse_integer(trim(t.substr(13)), line));
                if (module_.address_size != 64)
                    throw ParseError(line, "only .address_size 64 is supported");
                return;
            }
            if (starts_with(t, ".section")) {
                // Debug sections (.debug_str for inlined functions with -lineinfo, DWARF with -G)
                // carry nothing the emulator needs: skip to the closing brace.
                if (current_) throw ParseError(line, ".section inside a function body");
                const size_t open = t.find('{');
                section_depth_ = -1;  // its '{' is still to come
                if (open != std::string_view::npos) skip_section(t.substr(open), line);
                return;
            }
        }
        if (section_depth_ < 0) {
            skip_section(t, line);
            return;
        }
        for (char c : t) {
            if (pending_blank_ && !std::isspace((unsigned char)c)) pending_line_ = line;
            if (pending_has_equals_ && (c == '{' || c == '}')) {
                pending_ += c;
                pending_blank_ = false;
                continue;
            }
            if (c == ';') {
                if (operand_braces_ != 0)
                    throw ParseError(line,
                                     "unbalanced '{' in '" + std::string(trim(pending_)) + "'");
                flush_statement(';');
            } else if (c == '{') {
                // Inside a function, '{' after the start of an instruction opens a vector operand
                // ({%r1, %r2}); otherwise it opens a block (a function body or a nested scope).
                if (current_ && !pending_blank_) {
                    pending_ += c;
                    ++operand_braces_;
                    continue;
                }
                flush_statement('{');
            } else if (c == '}') {
                if (operand_braces_ > 0) {
                    pending_ += c;
                    --operand_braces_;
                    continue;
                }
                if (!pending_blank_) throw ParseError(line, "missing ';' before '}'");
                pending_.clear();
                close_brace(line);
            } else if (c == ':' && current_ && operand_braces_ == 0 && is_label(pending_)) {
                current_parser_->label(trim(pending_));
                pending_.clear();
                pending_blank_ = true;
            } else {
                if (pending_.size() > max_statement_bytes)
                    throw ParseError(pending_line_, "statement longer than " +
                                                        std::to_string(max_statement_bytes) +
                                                        " bytes");
                pending_ += c;
                if (c == '=') pending_has_equals_ = true;
                if (!std::isspace((unsigned char)c)) pending_blank_ = false;
            }
        }
        if (!pending_blank_) pending_ += ' ';
    }

    // Skips the body of a .section; section_depth_ counts its open braces (-1: before the first).
    void skip_section(std::string_view t, std::uint32_t line) {
        size_t i = 0;
        if (section_depth_ < 0) {
            if (t.front() != '{') throw ParseError(line, "expected '{' after .section");
            section_depth_ = 0;
        }
        for (; i < t.size(); ++i) {
            if (t[i] == '{') ++section_depth_;
            else if (t[i] == '}' && --section_depth_ == 0) break;
        }
        if (section_depth_ == 0 && i + 1 < t.size() && !trim(t.substr(i + 1)).empty())
            throw ParseError(line, "unexpected text after the end of a .section");
    }

    void flush_statement(char terminator) {
        std::string text = std::move(pending_);
        pending_.clear();
        pending_blank_ = true;
        pending_has_equals_ = false;
        operand_braces_ = 0;
        statement(trim(text), pending_line_, terminator);
    }

    static bool is_label(const std::string& s) {
        std::string_view t = trim(s);
        if (t.empty()) return false;
        for (char c : t)
            if (!(std::isalnum((unsigned char)c) || c == '_' || c == '$')) return false;
        return true;
    }

    void loc(std::string_view t, std::uint32_t line) {
        auto parts = words(t.substr(4));
        if (parts.size() < 2) throw ParseError(line, "bad .loc");
        loc_file_ = std::uint32_t(parse_integer(parts[0], line));
        std::string_view ln = parts[1];
        if (!ln.empty() && ln.back() == ',') ln.remove_suffix(1);
        loc_line_ = std::uint32_t(parse_integer(ln, line));
        if (current_ && current_->first_line == 0 && loc_line_ != 0)
            current_->first_line = loc_line_;
    }

    void file(std::string_view t, std::uint32_t line) {
        auto rest = trim(t.substr(5));
        size_t sp = 0;
        while (sp < rest.size() && !std::isspace((unsigned char)rest[sp])) ++sp;
        std::uint32_t index = std::uint32_t(parse_integer(rest.substr(0, sp), line));
        std::string_view name = trim(rest.substr(sp));
        auto q1 = name.find('"');
        auto q2 = name.find('"', q1 + 1);
        if (q1 == std::string_view::npos || q2 == std::string_view::npos)
            throw ParseError(line, "bad .file");
        module_.files[index] = std::string(name.substr(q1 + 1, q2 - q1 - 1));
    }

    void statement(std::string_view s, std::uint32_t line, char terminator) {
        if (current_) {
            if (terminator == '{') {
                if (!s.empty())
                    throw ParseError(line, "unexpected '{' after '" + std::string(s) + "'");
                ++depth_;
                current_parser_->open_scope();
                return;
            }
            if (s.empty()) return;
            if (s[0] == '.') {
                if (starts_with(s, ".pragma") || starts_with(s, ".callprototype"))
                    return;  // prototypes: types only
                if (starts_with(s, ".reg") || starts_with(s, ".local") ||
                    starts_with(s, ".shared") || starts_with(s, ".param") ||
                    starts_with(s, ".const") || starts_with(s, ".global") ||
                    starts_with(s, ".align")) {
                    current_parser_->declare(s, line);
                    return;
                }
                throw ParseError(line, "unknown directive '" + std::string(words(s)[0]) + "'");
            }
            current_parser_->instruction(s, line, loc_file_, loc_line_);
            return;
        }
        if (s.empty()) return;
        if (starts_with(s, ".pragma")) return;
        auto ws = words(s);
        bool is_function = false;
        for (auto w : ws) {
            if (w == ".entry" || w == ".func" || starts_with(w, ".entry") ||
                starts_with(w, ".func")) {
                is_function = true;
                break;
            }
            if (w[0] != '.') break;
        }
        if (is_function) {
            module_.functions.emplace_back();
            Function& fn = module_.functions.back();
            fn.ptx_line = line;
            parse_function_header(module_, fn, s, line);
            if (terminator == '{') {
                current_ = &fn;
                current_index_ = module_.functions.size() - 1;
                current_parser_ = std::make_unique<FunctionParser>(module_, fn);
                depth_ = 1;
                loc_line_ = 0;
            } else {
                fn.is_extern = true;  // a declaration: .extern .func vprintf(...);
            }
            return;
        }
        if (terminator == '{')
            throw ParseError(line, "unexpected '{' after '" + std::string(s) + "'");
        // Module-scope variable.
        Decl d = parse_decl(s, line);
        if (d.space != Space::global && d.space != Space::constant && d.space != Space::shared)
            throw ParseError(line, "unsupported module-scope declaration: " + std::string(s));
        module_.globals.push_back(symbol_from(d, line));
    }

    void close_brace(std::uint32_t line) {
        if (!current_) throw ParseError(line, "unmatched '}'");
        if (--depth_ > 0) {
            current_parser_->close_scope();
            return;
        }
        current_parser_->finish();
        current_ = nullptr;
        current_parser_.reset();
    }

    void resolve_calls(Function& fn) {
        for (Instruction& in : fn.code) {
            for (int k = 0; k < in.operand_count; ++k) {  // function addresses (function pointers)
                Operand& o = in.operands[k];
                if (o.kind != OperandKind::symbol || o.scope != Operand::code_scope) continue;
                o.symbol = module_.function_index.at(o.name);
            }
            if (in.op != Opcode::call || in.operands[1].kind == OperandKind::reg) continue;
            const std::string& callee = in.operands[1].name;
            auto it = module_.function_index.find(callee);
            if (it == module_.function_index.end())
                throw ParseError(in.ptx_line, "call to unknown function '" + callee + "'");
            in.target = it->second;
        }
    }

    const std::string& text_;
    std::string clean_;
    Module module_;
    static constexpr size_t max_statement_bytes = 64u << 20;
    std::string pending_;
    bool pending_blank_ = true;        // pending_ holds only whitespace
    bool pending_has_equals_ = false;  // an initialiser: its braces belong to the statement
    int operand_braces_ = 0;           // open '{' of a vector operand
    int section_depth_ = 0;  // > 0: inside a skipped .section; -1: its '{' is still to come
    std::uint32_t pending_line_ = 1;
    Function* current_ = nullptr;
    size_t current_index_ = 0;
    std::unique_ptr<FunctionParser> current_parser_;
    int depth_ = 0;
    std::uint32_t loc_file_ = 0, loc_line_ = 0;
};

}  // namespace

ParseResult parse(const std::string& ptx_text) {
    ParseResult r;
    Parser parser(ptx_text);
    try {
        r.module = parser.run();
        r.ok = true;
    } catch (const ParseError& e) {
        r.error = "ptx:" + std::to_string(e.line) + ": " + e.what();
        r.error_line = e.line;
        r.source_line = parser.source_line();
        r.source_file = parser.source_file(ptx_text);
    } catch (const std::exception& e) {
        r.error = std::string("ptx: ") + e.what();
    }
    return r;
}

// Type helpers ------------------------------------------------------------------------------------

const char* type_name(Type t) {
    static const char* names[] = {"none", "b8",    "b16",  "b32",    "b64",   "b128",  "u8",
                                  "u16",  "u32",   "u64",  "s8",     "s16",   "s32",   "s64",
                                  "f16",  "f16x2", "bf16", "bf16x2", "f32",   "f64",   "pred",
                                  "u2",   "s2",    "u4",   "s4",     "u16x2", "s16x2", "tf32"};
    return names[int(t)];
}

const char* op_class_name(OpClass c) {
    static const char* names[] = {"arith",  "logic",   "compare", "convert", "move",   "memory",
                                  "atomic", "control", "barrier", "warp",    "tensor", "special"};
    return names[int(c)];
}

const Function* Module::find(const std::string& name) const {
    auto it = function_index.find(name);
    return it == function_index.end() ? nullptr : &functions[it->second];
}

}  // namespace cudalab::ptx
