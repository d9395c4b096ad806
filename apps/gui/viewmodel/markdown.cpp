#include "viewmodel/markdown.h"

#include <md4c.h>

#include <cstdlib>

namespace cudalab::viewmodel {

namespace {

struct ListState {
    bool ordered = false;
    unsigned next = 1;
};

// md4c calls back for every block, span and piece of text; this builds the Document.
struct Builder {
    Document doc;
    Block current;
    bool open = false;        // `current` is being filled
    bool fresh_item = false;  // `current` is a list item with no text yet
    std::vector<ListState> lists;
    int quote = 0;
    int bold = 0, italic = 0, code = 0, link = 0;
    bool in_code_block = false;
    bool in_table = false;
    Block table;

    std::uint8_t style() const {
        std::uint8_t s = run_plain;
        if (bold) s |= run_bold;
        if (italic) s |= run_italic;
        if (code) s |= run_code;
        if (link) s |= run_link;
        return s;
    }

    void flush() {
        if (open && (current.kind != BlockKind::paragraph || !current.runs.empty() ||
                     !current.bullet.empty()))
            doc.blocks.push_back(std::move(current));
        current = Block{};
        open = false;
        fresh_item = false;
    }

    void start(BlockKind kind) {
        flush();
        current.kind = kind;
        current.indent = int(lists.size());
        current.quote = quote;
        open = true;
    }

    std::vector<Run>* runs() {
        if (in_table) {
            if (table.rows.empty() || table.rows.back().empty()) return nullptr;
            return &table.rows.back().back().runs;
        }
        if (!open) start(BlockKind::paragraph);
        return &current.runs;
    }

    void append(std::string_view text, std::uint8_t s) {
        std::vector<Run>* r = runs();
        if (!r || text.empty()) return;
        fresh_item = false;
        if (!r->empty() && r->back().style == s && !r->back().line_break)
            r->back().text.append(text);
        else r->push_back(Run{std::string(text), s, false});
    }

    void hard_break() {
        std::vector<Run>* r = runs();
        if (!r) return;
        r->push_back(Run{"", style(), true});
    }
};

std::string attribute(const MD_ATTRIBUTE& a) { return std::string(a.text, a.size); }

std::string decode_entity(std::string_view e) {
    if (e == "&amp;") return "&";
    if (e == "&lt;") return "<";
    if (e == "&gt;") return ">";
    if (e == "&quot;") return "\"";
    if (e == "&apos;") return "'";
    if (e == "&nbsp;") return "\xC2\xA0";
    if (e == "&times;") return "\xC3\x97";
    if (e == "&hellip;") return "\xE2\x80\xA6";
    if (e == "&mdash;") return "\xE2\x80\x94";
    if (e == "&ndash;") return "\xE2\x80\x93";
    if (e.size() > 3 && e[1] == '#') {
        unsigned long cp = (e[2] == 'x' || e[2] == 'X')
                               ? std::strtoul(std::string(e.substr(3)).c_str(), nullptr, 16)
                               : std::strtoul(std::string(e.substr(2)).c_str(), nullptr, 10);
        std::string out;
        if (cp == 0 || cp > 0x10FFFF) return "\xEF\xBF\xBD";
        if (cp < 0x80) out += char(cp);
        else if (cp < 0x800) {
            out += char(0xC0 | (cp >> 6));
            out += char(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out += char(0xE0 | (cp >> 12));
            out += char(0x80 | ((cp >> 6) & 0x3F));
            out += char(0x80 | (cp & 0x3F));
        } else {
            out += char(0xF0 | (cp >> 18));
            out += char(0x80 | ((cp >> 12) & 0x3F));
            out += char(0x80 | ((cp >> 6) & 0x3F));
            out += char(0x80 | (cp & 0x3F));
        }
        return out;
    }
    return std::string(e);
}

int enter_block(MD_BLOCKTYPE type, void* detail, void* user) {
    Builder& b = *static_cast<Builder*>(user);
    switch (type) {
    case MD_BLOCK_DOC: break;
    case MD_BLOCK_QUOTE:
        b.flush();
        ++b.quote;
        break;
    case MD_BLOCK_UL:
        b.flush();
        b.lists.push_back({false, 1});
        break;
    case MD_BLOCK_OL: {
        b.flush();
        auto* d = static_cast<MD_BLOCK_OL_DETAIL*>(detail);
        b.lists.push_back({true, d->start});
        break;
    }
    case MD_BLOCK_LI: {
        b.start(BlockKind::paragraph);
        ListState& l = b.lists.empty() ? (b.lists.push_back({}), b.lists.back()) : b.lists.back();
        b.current.bullet = l.ordered ? std::to_string(l.next++) + "." : "\xE2\x80\xA2";  // "•"
        b.fresh_item = true;
        break;
    }
    case MD_BLOCK_HR:
        b.start(BlockKind::rule);
        b.flush();
        break;
    case MD_BLOCK_H:
        b.start(BlockKind::heading);
        b.current.level = int(static_cast<MD_BLOCK_H_DETAIL*>(detail)->level);
        break;
    case MD_BLOCK_CODE: {
        b.start(BlockKind::code);
        auto* d = static_cast<MD_BLOCK_CODE_DETAIL*>(detail);
        b.current.language = attribute(d->info);
        b.in_code_block = true;
        break;
    }
    case MD_BLOCK_HTML: b.start(BlockKind::paragraph); break;
    case MD_BLOCK_P:
        if (b.open && b.fresh_item) break;  // the list item's first paragraph keeps its bullet
        b.start(BlockKind::paragraph);
        break;
    case MD_BLOCK_TABLE:
        b.flush();
        b.in_table = true;
        b.table = Block{};
        b.table.kind = BlockKind::table;
        b.table.indent = int(b.lists.size());
        b.table.quote = b.quote;
        break;
    case MD_BLOCK_THEAD:
    case MD_BLOCK_TBODY: break;
    case MD_BLOCK_TR: b.table.rows.emplace_back(); break;
    case MD_BLOCK_TH:
    case MD_BLOCK_TD:
        if (!b.table.rows.empty()) b.table.rows.back().emplace_back();
        break;
    }
    return 0;
}

int leave_block(MD_BLOCKTYPE type, void* detail, void* user) {
    Builder& b = *static_cast<Builder*>(user);
    switch (type) {
    case MD_BLOCK_QUOTE:
        b.flush();
        --b.quote;
        break;
    case MD_BLOCK_UL:
    case MD_BLOCK_OL:
        b.flush();
        if (!b.lists.empty()) b.lists.pop_back();
        break;
    case MD_BLOCK_LI: b.flush(); break;
    case MD_BLOCK_H:
    case MD_BLOCK_P:
    case MD_BLOCK_HTML: b.flush(); break;
    case MD_BLOCK_CODE:
        while (!b.current.code.empty() && b.current.code.back() == '\n') b.current.code.pop_back();
        b.in_code_block = false;
        b.flush();
        break;
    case MD_BLOCK_TABLE:
        b.in_table = false;
        b.doc.blocks.push_back(std::move(b.table));
        b.table = Block{};
        break;
    default: break;
    }
    return 0;
}

int enter_span(MD_SPANTYPE type, void*, void* user) {
    Builder& b = *static_cast<Builder*>(user);
    switch (type) {
    case MD_SPAN_EM: ++b.italic; break;
    case MD_SPAN_STRONG: ++b.bold; break;
    case MD_SPAN_CODE: ++b.code; break;
    case MD_SPAN_A: ++b.link; break;
    default: break;
    }
    return 0;
}

int leave_span(MD_SPANTYPE type, void*, void* user) {
    Builder& b = *static_cast<Builder*>(user);
    switch (type) {
    case MD_SPAN_EM: --b.italic; break;
    case MD_SPAN_STRONG: --b.bold; break;
    case MD_SPAN_CODE: --b.code; break;
    case MD_SPAN_A: --b.link; break;
    default: break;
    }
    return 0;
}

int text(MD_TEXTTYPE type, const MD_CHAR* data, MD_SIZE size, void* user) {
    Builder& b = *static_cast<Builder*>(user);
    std::string_view t(data, size);
    if (b.in_code_block) {
        b.current.code.append(t);
        return 0;
    }
    switch (type) {
    case MD_TEXT_NORMAL:
    case MD_TEXT_CODE: b.append(t, b.style()); break;
    case MD_TEXT_BR: b.hard_break(); break;
    case MD_TEXT_SOFTBR: b.append(" ", b.style()); break;
    case MD_TEXT_ENTITY: b.append(decode_entity(t), b.style()); break;
    case MD_TEXT_NULLCHAR: b.append("\xEF\xBF\xBD", b.style()); break;
    case MD_TEXT_HTML: break;  // raw HTML is not shown
    default: b.append(t, b.style()); break;
    }
    return 0;
}

}  // namespace

Document parse_markdown(std::string_view markdown) {
    Builder b;
    MD_PARSER parser{};
    parser.abi_version = 0;
    parser.flags =
        MD_FLAG_TABLES | MD_FLAG_STRIKETHROUGH | MD_FLAG_PERMISSIVEAUTOLINKS | MD_FLAG_NOHTML;
    parser.enter_block = enter_block;
    parser.leave_block = leave_block;
    parser.enter_span = enter_span;
    parser.leave_span = leave_span;
    parser.text = text;
    md_parse(markdown.data(), MD_SIZE(markdown.size()), &parser, &b);
    b.flush();
    return std::move(b.doc);
}

std::string plain_text(const std::vector<Run>& runs) {
    std::string s;
    for (const Run& r : runs) s += r.line_break ? "\n" : r.text;
    return s;
}

}  // namespace cudalab::viewmodel
