#include "cudart/ptx_link.h"

#include <cctype>
#include <map>
#include <set>

namespace cudalab::cudart {

namespace {

bool ident_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}

struct Statement {
    std::string text;
    std::string name;  // the symbol it declares or defines ("" for directives)
    bool is_extern = false, is_visible = false, is_weak = false, is_header = false;
};

// Splits module-scope text into statements: ';'-terminated declarations and directives, and
// function definitions ending at their body's closing brace. Comments are kept inside the text.
std::vector<Statement> statements(const std::string& ptx) {
    std::vector<Statement> out;
    std::size_t start = 0;
    int depth = 0;
    bool body = false;
    for (std::size_t i = 0; i < ptx.size(); ++i) {
        const char c = ptx[i];
        if (c == '/' && i + 1 < ptx.size() && ptx[i + 1] == '/') {
            i = ptx.find('\n', i);
            if (i == std::string::npos) break;
            continue;
        }
        if (c == '/' && i + 1 < ptx.size() && ptx[i + 1] == '*') {
            i = ptx.find("*/", i + 2);
            if (i == std::string::npos) break;
            ++i;
            continue;
        }
        if (c == '"') {
            i = ptx.find('"', i + 1);
            if (i == std::string::npos) break;
            continue;
        }
        bool end = false;
        if (c == '{') {
            // A brace at depth 0 opens a function body, unless it is a variable's initialiser.
            if (depth == 0) {
                const std::size_t eq = ptx.find('=', start);
                body = eq == std::string::npos || eq > i;
            }
            ++depth;
        } else if (c == '}') {
            --depth;
            if (depth == 0 && body) end = true;
        } else if (c == ';' && depth == 0) end = true;
        else if (c == '\n' && depth == 0) {
            // Directives without ';' (.version, .target, .address_size, .file) end at the line.
            std::size_t first = ptx.find_first_not_of(" \t\r\n", start);
            if (first != std::string::npos && first < i &&
                (ptx.compare(first, 8, ".version") == 0 || ptx.compare(first, 7, ".target") == 0 ||
                 ptx.compare(first, 13, ".address_size") == 0 ||
                 ptx.compare(first, 5, ".file") == 0))
                end = true;
        }
        if (!end) continue;
        Statement s;
        s.text = ptx.substr(start, i + 1 - start);
        start = i + 1;
        body = false;
        const std::size_t first = s.text.find_first_not_of(" \t\r\n");
        if (first == std::string::npos) continue;
        const std::string head = s.text.substr(first, 16);
        s.is_header = head.rfind(".version", 0) == 0 || head.rfind(".target", 0) == 0 ||
                      head.rfind(".address_size", 0) == 0;
        // Qualifiers before the body or initialiser.
        const std::size_t stop = s.text.find_first_of("{=");
        const std::string decl = s.text.substr(0, stop);
        s.is_extern = decl.find(".extern") != std::string::npos;
        s.is_visible = decl.find(".visible") != std::string::npos;
        s.is_weak =
            decl.find(".weak") != std::string::npos || decl.find(".common") != std::string::npos;
        std::size_t k = decl.find(".func");
        if (k == std::string::npos) k = decl.find(".entry");
        if (k != std::string::npos) {
            k = decl.find_first_not_of(" \t\r\n", decl.find(' ', k));
            if (k != std::string::npos && decl[k] == '(')
                k = decl.find_first_not_of(" \t\r\n", decl.find(')', k) + 1);
            std::size_t e = k;
            while (e < decl.size() && ident_char(decl[e])) ++e;
            if (k != std::string::npos) s.name = decl.substr(k, e - k);
        } else if (decl.find(".global") != std::string::npos ||
                   decl.find(".const") != std::string::npos ||
                   decl.find(".shared") != std::string::npos) {
            // The identifier before any [size] and the end of the declaration.
            std::size_t e = decl.find('[');
            if (e == std::string::npos) e = decl.find_last_not_of(" \t\r\n;") + 1;
            std::size_t b = e;
            while (b > 0 && std::isspace(static_cast<unsigned char>(decl[b - 1]))) --b;
            e = b;
            while (b > 0 && ident_char(decl[b - 1])) --b;
            s.name = decl.substr(b, e - b);
        }
        out.push_back(std::move(s));
    }
    if (start < ptx.size()) out.push_back(Statement{ptx.substr(start), {}});
    return out;
}

std::string rename(const std::string& text, const std::map<std::string, std::string>& names) {
    std::string out;
    out.reserve(text.size());
    for (std::size_t i = 0; i < text.size();) {
        if (ident_char(text[i]) && (i == 0 || !ident_char(text[i - 1]))) {
            std::size_t e = i;
            while (e < text.size() && ident_char(text[e])) ++e;
            const std::string word = text.substr(i, e - i);
            auto it = names.find(word);
            out += it == names.end() ? word : it->second;
            i = e;
        } else {
            out += text[i++];
        }
    }
    return out;
}

}  // namespace

std::string link_ptx(const std::vector<std::string>& units, std::string* error) {
    if (units.size() == 1) return units[0];
    std::vector<std::vector<Statement>> parsed;
    std::map<std::string, std::size_t> defined;  // visible name -> unit
    for (std::size_t u = 0; u < units.size(); ++u) {
        parsed.push_back(statements(units[u]));
        for (const Statement& s : parsed.back()) {
            if (s.name.empty() || s.is_extern || !s.is_visible) continue;
            auto [it, added] = defined.emplace(s.name, u);
            if (!added && !s.is_weak) {
                *error = "'" + s.name + "' is defined in two translation units";
                return {};
            }
        }
    }
    std::string out;
    std::set<std::string> declared;
    bool header_done = false;
    for (std::size_t u = 0; u < units.size(); ++u) {
        // Private symbols (neither visible nor extern) are renamed apart per unit.
        std::map<std::string, std::string> private_names;
        for (const Statement& s : parsed[u])
            if (!s.name.empty() && !s.is_extern && !s.is_visible && !s.is_weak)
                private_names[s.name] = s.name + "$u" + std::to_string(u);
        for (const Statement& s : parsed[u]) {
            if (s.is_header) {
                if (!header_done) out += s.text;
                continue;
            }
            if (s.is_extern && !s.name.empty()) {
                // Another unit defines it. A function defined in a later unit keeps its
                // declaration (once): a use of its address here (a device-side launch of a
                // kernel of another file) must name a function already declared.
                const auto d = defined.find(s.name);
                const bool function = s.text.find(".func") != std::string::npos ||
                                      s.text.find(".entry") != std::string::npos;
                if (d != defined.end() && (d->second < u || !function)) continue;
                if (!declared.insert(s.name).second) continue;  // vprintf, malloc...: declared once
            }
            if (s.is_weak && !s.name.empty() && !declared.insert("weak:" + s.name).second) continue;
            out += private_names.empty() ? s.text : rename(s.text, private_names);
        }
        header_done = true;
        out += "\n";
    }
    return out;
}

}  // namespace cudalab::cudart
