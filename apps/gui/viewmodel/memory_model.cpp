#include "viewmodel/memory_model.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <map>

#include "base/hardware.h"

namespace cudalab::viewmodel {

namespace {

constexpr std::uint64_t kMaxElementsKept = 16u << 20;  // per-element heat above this is dropped

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string_view source_line(std::string_view source, std::uint32_t line) {
    if (line == 0) return {};
    std::size_t at = 0;
    for (std::uint32_t l = 1; l < line; ++l) {
        at = source.find('\n', at);
        if (at == std::string_view::npos) return {};
        ++at;
    }
    std::size_t end = source.find('\n', at);
    return source.substr(at, end == std::string_view::npos ? std::string_view::npos : end - at);
}

struct Interval {
    std::uint64_t lo = ~0ull, hi = 0;               // [lo, hi)
    std::map<std::uint32_t, std::uint64_t> widths;  // bytes per lane -> accesses
    std::vector<std::uint32_t> pcs;
    bool loaded = false, stored = false, atomic = false;
};

// A PTX instruction's operands, as written: "add.s64 %rd8, %rd6, %rd7" -> {"%rd8", "%rd6", "%rd7"},
// brackets and offsets dropped ("[%rd4+8]" -> "%rd4").
std::vector<std::string> operands(const std::string& text, std::string* opcode) {
    std::string t = text;
    if (!t.empty() && t[0] == '@') t = t.substr(std::min(t.size(), t.find_first_of(" \t") + 1));
    std::size_t at = t.find_first_not_of(" \t");
    std::size_t end = t.find_first_of(" \t", at);
    *opcode = t.substr(at, end == std::string::npos ? std::string::npos : end - at);
    std::vector<std::string> out;
    if (end == std::string::npos) return out;
    std::string rest = t.substr(end);
    std::size_t start = 0;
    while (start <= rest.size()) {
        std::size_t comma = rest.find(',', start);
        std::string op =
            rest.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        op.erase(std::remove_if(op.begin(), op.end(),
                                [](char c) {
                                    return c == ' ' || c == '\t' || c == '[' || c == ']' ||
                                           c == ';';
                                }),
                 op.end());
        if (std::size_t plus = op.find('+');
            plus != std::string::npos && op.rfind("_param_", plus) == std::string::npos)
            op = op.substr(0, plus);
        out.push_back(op);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    return out;
}

int resolve_parameter(const Trace& t, std::uint32_t first_pc, std::uint32_t before,
                      const std::string& reg, int depth) {
    if (depth > 24 || reg.rfind("%rd", 0) != 0) return -1;
    for (std::uint32_t pc = before; pc-- > first_pc;) {
        std::string op;
        const std::vector<std::string> ops = operands(t.pcs[pc].text, &op);
        if (ops.empty() || ops[0] != reg || op.rfind("st", 0) == 0 || op.rfind("bra", 0) == 0)
            continue;
        if (op.rfind("ld.param", 0) == 0 && ops.size() >= 2) {
            const std::size_t p = ops[1].rfind("_param_");
            if (p == std::string::npos) return -1;
            return std::atoi(ops[1].c_str() + p + 7);
        }
        if (op.rfind("ld", 0) == 0) return -1;  // a pointer read from memory: not a parameter
        for (std::size_t i = 1; i < ops.size(); ++i) {
            const int r = resolve_parameter(t, first_pc, pc, ops[i], depth + 1);
            if (r >= 0) return r;
        }
        return -1;
    }
    return -1;
}

}  // namespace

int parameter_of_address(const Trace& trace, std::uint32_t pc) {
    if (pc >= trace.pcs.size()) return -1;
    std::string op;
    const std::vector<std::string> ops = operands(trace.pcs[pc].text, &op);
    // ld/atom: the address is the second operand; st/red: the first.
    const bool store = op.rfind("st", 0) == 0 || op.rfind("red", 0) == 0;
    const std::size_t index = store ? 0 : 1;
    if (ops.size() <= index) return -1;
    std::uint32_t first = pc;
    while (first > 0 && trace.pcs[first - 1].function == trace.pcs[pc].function) --first;
    return resolve_parameter(trace, first, pc, ops[index], 0);
}

std::vector<std::string> kernel_parameter_names(std::string_view source,
                                                const std::string& kernel) {
    std::vector<std::string> names;
    const std::string name = kernel.substr(0, kernel.find('<'));
    if (name.empty()) return names;
    std::size_t at = 0;
    while ((at = source.find(name, at)) != std::string_view::npos) {
        const bool starts = at == 0 || !ident_char(source[at - 1]);
        std::size_t open = at + name.size();
        if (!starts || (open < source.size() && ident_char(source[open]))) {
            at = open;
            continue;
        }
        while (open < source.size() && std::isspace(static_cast<unsigned char>(source[open])))
            ++open;
        // A definition or declaration with __global__ before it on the way back to the last ';' or
        // '}'.
        const std::size_t stmt = source.find_last_of(";}", at);
        const std::string_view head =
            source.substr(stmt == std::string_view::npos ? 0 : stmt,
                          at - (stmt == std::string_view::npos ? 0 : stmt));
        if (open >= source.size() || source[open] != '(' ||
            head.find("__global__") == std::string_view::npos) {
            at = open;
            continue;
        }
        int depth = 0;
        std::string param;
        for (std::size_t i = open + 1; i < source.size(); ++i) {
            const char c = source[i];
            if (c == '(' || c == '<' || c == '[') ++depth;
            if ((c == ')' || c == '>' || c == ']') && depth > 0) {
                --depth;
                param += c;
                continue;
            }
            if ((c == ',' || c == ')') && depth == 0) {
                std::string p = param.substr(0, param.find('='));
                // Drop array extents ("tile[33]", "(*tile)[33]"): the name is the last identifier
                // left.
                for (std::size_t lb; (lb = p.find('[')) != std::string::npos;)
                    p.erase(lb, p.find(']', lb) == std::string::npos ? std::string::npos
                                                                     : p.find(']', lb) - lb + 1);
                while (!p.empty() && !ident_char(p.back())) p.pop_back();
                std::size_t b = p.size();
                while (b > 0 && ident_char(p[b - 1])) --b;
                names.push_back(p.substr(b));
                param.clear();
                if (c == ')') return names;
                continue;
            }
            param += c;
        }
        return names;
    }
    return names;
}

IndexedNames indexed_names(std::string_view line) {
    IndexedNames out;
    // Drop a trailing // comment.
    if (std::size_t c = line.find("//"); c != std::string_view::npos) line = line.substr(0, c);
    // The assignment: the first '=' that is not part of ==, <=, >=, !=.
    std::size_t assign = std::string_view::npos;
    bool compound = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        if (line[i] != '=') continue;
        char prev = i ? line[i - 1] : ' ', next = i + 1 < line.size() ? line[i + 1] : ' ';
        if (next == '=') {
            ++i;
            continue;
        }
        if (prev == '=' || prev == '!' ||
            ((prev == '<' || prev == '>') && !(i >= 2 && line[i - 2] == prev)))
            continue;
        assign = i;
        compound = std::string_view("+-*/%&|^<>").find(prev) != std::string_view::npos;
        break;
    }
    int depth = 0;  // inside [...]: an index, so read even left of the assignment
    for (std::size_t i = 0; i < line.size(); ++i) {
        if (line[i] == '[') {
            ++depth;
            continue;
        }
        if (line[i] == ']') {
            depth = std::max(0, depth - 1);
            continue;
        }
        if (!(std::isalpha(static_cast<unsigned char>(line[i])) || line[i] == '_') ||
            (i && ident_char(line[i - 1])))
            continue;
        std::size_t j = i;
        while (j < line.size() && ident_char(line[j])) ++j;
        std::size_t k = j;
        while (k < line.size() && line[k] == ' ') ++k;
        if (k < line.size() && line[k] == '[') {
            std::string name(line.substr(i, j - i));
            if (assign != std::string_view::npos && i < assign && depth == 0) {
                out.stored.push_back(name);
                if (compound) out.loaded.push_back(name);
            } else {
                out.loaded.push_back(name);
            }
        }
        i = j - 1;
    }
    return out;
}

int MemoryModel::region_of(std::uint64_t address) const {
    auto it = std::upper_bound(regions.begin(), regions.end(), address,
                               [](std::uint64_t a, const MemoryRegion& r) { return a < r.begin; });
    if (it == regions.begin()) return -1;
    --it;
    return address < it->end ? int(it - regions.begin()) : -1;
}

MemoryModel MemoryModel::build(const Trace& trace, std::string_view source,
                               const std::vector<lessons::BufferShape>& shapes) {
    auto shape_of = [&](std::uint64_t address) -> const lessons::BufferShape* {
        for (const auto& sh : shapes)
            if (sh.contains(address) && sh.cols > 0 && sh.rows > 0) return &sh;
        return nullptr;
    };
    MemoryModel model;
    // 1. Address range of every global memory instruction (pc).
    std::map<std::uint32_t, Interval> by_pc;
    for (const WarpEvent& e : trace.events) {
        if (e.mem < 0) continue;
        const MemAccess& m = trace.accesses[std::size_t(e.mem)];
        if (m.space != MemSpace::global || m.mask == 0) continue;
        Interval& iv = by_pc[e.pc];
        std::uint32_t hi_offset = 0;
        for (int l = 0; l < 32; ++l)
            if (m.mask >> l & 1) hi_offset = std::max(hi_offset, m.offset[std::size_t(l)]);
        iv.lo = std::min(iv.lo, m.base);
        iv.hi = std::max(iv.hi, m.base + hi_offset + m.bytes_per_lane);
        iv.widths[m.bytes_per_lane] += 1;
        iv.loaded |= m.op == MemOp::load;
        iv.stored |= m.op == MemOp::store;
        iv.atomic |= m.op == MemOp::atomic;
    }
    // A buffer with a declared shape is shown whole, so that the traced block's accesses sit
    // where they fall in the image or matrix.
    for (auto& [pc, iv] : by_pc)
        if (const auto* sh = shape_of(iv.lo)) {
            iv.lo = std::min(iv.lo, sh->address);
            iv.hi = std::max(iv.hi, sh->address + sh->bytes);
        }
    // 2. Merge overlapping or touching ranges: each merged range is one buffer. (Allocations never
    //    touch: the emulator leaves a gap after each, as cudaMalloc's alignment does. One buffer
    //    read by two instructions over adjacent ranges, an unrolled loop's body and its
    //    remainder, must not show as two.)
    std::vector<Interval> merged;
    {
        std::vector<std::pair<std::uint32_t, Interval>> sorted(by_pc.begin(), by_pc.end());
        std::sort(sorted.begin(), sorted.end(),
                  [](auto& a, auto& b) { return a.second.lo < b.second.lo; });
        for (auto& [pc, iv] : sorted) {
            if (!merged.empty() && iv.lo <= merged.back().hi) {
                Interval& m = merged.back();
                m.hi = std::max(m.hi, iv.hi);
                for (auto& [w, n] : iv.widths) m.widths[w] += n;
                m.pcs.push_back(pc);
                m.loaded |= iv.loaded;
                m.stored |= iv.stored;
                m.atomic |= iv.atomic;
            } else {
                iv.pcs.push_back(pc);
                merged.push_back(iv);
            }
        }
    }
    for (Interval& iv : merged) {
        MemoryRegion r;
        r.first_address = iv.lo;
        r.begin = iv.lo / 128 * 128;
        r.end = (iv.hi + 127) / 128 * 128;
        std::uint64_t best = 0;
        for (auto& [w, n] : iv.widths)
            if (n > best && w > 0 && 128 % w == 0) {
                best = n;
                r.element_bytes = w;
            }
        r.loaded = iv.loaded;
        r.stored = iv.stored;
        r.atomic = iv.atomic;
        std::sort(iv.pcs.begin(), iv.pcs.end());
        for (std::uint32_t pc : iv.pcs) {
            std::uint32_t line = pc < trace.pcs.size() ? trace.pcs[pc].line : 0;
            if (line && std::find(r.source_lines.begin(), r.source_lines.end(), line) ==
                            r.source_lines.end())
                r.source_lines.push_back(line);
        }
        if (const auto* sh = shape_of(r.first_address); sh && sh->address == r.first_address) {
            r.element_bytes = sh->element_bytes;
            r.shape_kind = sh->kind;
            // Bins in rows of 32: one row per 32 banks' worth, legible as a heat map.
            r.shape_rows = sh->kind == lessons::ShapeKind::bins ? (sh->cols + 31) / 32 : sh->rows;
            r.shape_cols = sh->kind == lessons::ShapeKind::bins
                               ? std::min<std::uint32_t>(32, sh->cols)
                               : sh->cols;
            // the PTX parameter's name, found below, wins when there is one
            r.declared_name = sh->name;
            r.end = std::max(
                r.end,
                (sh->address + std::uint64_t(r.shape_rows) * r.shape_cols * r.element_bytes + 127) /
                    128 * 128);
        }
        if (r.elements() <= kMaxElementsKept) {
            r.touches.assign(r.elements(), 0);
            r.first_event.assign(r.elements(), kNoEvent);
        }
        model.regions.push_back(std::move(r));
    }
    // 3a. Names from the PTX: the parameter each instruction's address comes from.
    const std::vector<std::string> params = kernel_parameter_names(source, trace.kernel.name);
    for (auto& [pc, iv] : by_pc) {
        const int region = model.region_of(iv.lo);
        if (region < 0 || !model.regions[std::size_t(region)].name.empty()) continue;
        const int p = parameter_of_address(trace, pc);
        if (p >= 0 && std::size_t(p) < params.size() && !params[std::size_t(p)].empty())
            model.regions[std::size_t(region)].name = params[std::size_t(p)];
    }
    // 3b. Else from the source line: per line, the regions stored / loaded there, in pc order,
    //     against the arrays written / read on that line, in source order.
    std::map<std::uint32_t, std::vector<std::pair<int, MemOp>>>
        line_regions;  // line -> (region, op) in pc order
    for (auto& [pc, iv] : by_pc) {
        if (pc >= trace.pcs.size()) continue;
        int region = model.region_of(iv.lo);
        if (region < 0) continue;
        MemOp op = iv.stored ? MemOp::store : iv.atomic ? MemOp::atomic : MemOp::load;
        auto& list = line_regions[trace.pcs[pc].line];
        bool seen = false;
        for (auto& [r, o] : list)
            if (r == region && o == op) seen = true;
        if (!seen) list.emplace_back(region, op);
    }
    for (auto& [line, list] : line_regions) {
        IndexedNames names = indexed_names(source_line(source, line));
        std::vector<int> stores, loads;
        for (auto& [r, op] : list) (op == MemOp::load ? loads : stores).push_back(r);
        auto assign = [&](const std::vector<int>& regions, const std::vector<std::string>& arrays) {
            std::vector<std::string> distinct;
            for (const auto& a : arrays)
                if (std::find(distinct.begin(), distinct.end(), a) == distinct.end())
                    distinct.push_back(a);
            if (regions.size() != distinct.size()) return;
            for (std::size_t i = 0; i < regions.size(); ++i)
                if (model.regions[std::size_t(regions[i])].name.empty())
                    model.regions[std::size_t(regions[i])].name = distinct[i];
        };
        assign(stores, names.stored);
        assign(loads, names.loaded);
    }
    int unnamed = 0;
    for (MemoryRegion& r : model.regions)
        if (r.name.empty())
            r.name =
                !r.declared_name.empty() ? r.declared_name : "buffer " + std::to_string(++unnamed);
    // 4. Heat and first touch per element.
    for (std::size_t i = 0; i < trace.events.size(); ++i) {
        const WarpEvent& e = trace.events[i];
        if (e.mem < 0) continue;
        const MemAccess& m = trace.accesses[std::size_t(e.mem)];
        if (m.space != MemSpace::global) continue;
        int region = model.region_of(m.base);
        if (region < 0) continue;
        MemoryRegion& r = model.regions[std::size_t(region)];
        if (r.touches.empty()) continue;
        for (int l = 0; l < 32; ++l) {
            if (!(m.mask >> l & 1)) continue;
            std::uint64_t a = m.address(l);
            if (a < r.begin || a >= r.end) continue;
            std::size_t cell = std::size_t((a - r.begin) / r.element_bytes);
            std::uint32_t& t = r.touches[cell];
            ++t;
            r.max_touches = std::max(r.max_touches, t);
            if (r.first_event[cell] == kNoEvent) r.first_event[cell] = std::uint32_t(i);
        }
    }
    return model;
}

AccessView access_at(const Trace& trace, const MemoryModel& model, std::size_t event_index) {
    AccessView v;
    if (event_index >= trace.events.size()) return v;
    const WarpEvent& e = trace.events[event_index];
    if (e.pc < trace.pcs.size()) {
        v.source_line = trace.pcs[e.pc].line;
        v.instruction = trace.pcs[e.pc].text;
    }
    if (e.mem < 0) return v;
    const MemAccess& m = trace.accesses[std::size_t(e.mem)];
    v.valid = true;
    v.space = m.space;
    v.op = m.op;
    v.bytes_per_lane = m.bytes_per_lane;
    v.mask = m.mask;
    for (int l = 0; l < 32; ++l) v.address[std::size_t(l)] = (m.mask >> l & 1) ? m.address(l) : 0;
    if (m.space == MemSpace::global) {
        v.region = model.region_of(m.base);
        v.cost = analysis::global_access_cost(v.address, m.mask, m.bytes_per_lane);
        for (int l = 0; l < 32; ++l) {
            if (!(m.mask >> l & 1)) continue;
            const std::uint64_t sector = hw::sector_bytes;
            for (std::uint64_t s = v.address[std::size_t(l)] / sector;
                 s <= (v.address[std::size_t(l)] + m.bytes_per_lane - 1) / sector; ++s)
                v.sectors.push_back(s * sector);
        }
        std::sort(v.sectors.begin(), v.sectors.end());
        v.sectors.erase(std::unique(v.sectors.begin(), v.sectors.end()), v.sectors.end());
        for (std::uint64_t s : v.sectors)
            if (v.lines.empty() || v.lines.back() != s / hw::line_bytes * hw::line_bytes)
                v.lines.push_back(s / hw::line_bytes * hw::line_bytes);
    }
    return v;
}

}  // namespace cudalab::viewmodel
