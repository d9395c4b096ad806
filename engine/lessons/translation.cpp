#include "lessons/translation.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

namespace fs = std::filesystem;

namespace cudalab::lessons {

// [SECTION] Choosing the language

const std::vector<std::string>& known_languages() {
    static const std::vector<std::string> languages = {"en", "zh"};
    return languages;
}

std::string language_name(const std::string& lang) {
    if (lang == "en") return "English";
    if (lang == "zh") return "Chinese (Simplified)";
    return lang;
}

namespace {

bool known(const std::string& lang) {
    for (const auto& l : known_languages())
        if (l == lang) return true;
    return false;
}

std::string env(const char* name) {
    const char* v = std::getenv(name);
    return v ? v : "";
}

}  // namespace

LanguageChoice choose_language(const std::string& flag) {
    LanguageChoice c;
    if (!flag.empty()) {
        c.lang = flag;
        c.from = "--lang";
        return c;
    }
    if (const std::string v = env("CUDALAB_LANG"); !v.empty()) {
        if (known(v)) {
            c.lang = v;
            c.from = "CUDALAB_LANG";
            return c;
        }
        c.warning = "CUDALAB_LANG=" + v + " is not a language cudalab has (en, zh); ignoring it";
    }
    // POSIX: LC_ALL overrides LC_MESSAGES, which overrides LANG; an empty one counts as unset.
    for (const char* name : {"LC_ALL", "LC_MESSAGES", "LANG"}) {
        const std::string v = env(name);
        if (v.empty()) continue;
        c.lang = v.rfind("zh", 0) == 0 ? "zh" : "en";
        c.from = name;
        return c;
    }
    c.from = "default";
    return c;
}

// [SECTION] A lesson's text in a language

std::string translated_text_path(const LessonInfo& lesson, const std::string& lang) {
    if (lang == "en") return lesson.text_path;
    return (fs::path(lesson.text_path).parent_path() / ("lesson." + lang + ".md")).string();
}

const std::vector<std::string>* translated_hints(const LessonInfo& lesson,
                                                 const std::string& lang) {
    if (lang == "en") return &lesson.hints;
    auto it = lesson.translated_hints.find(lang);
    return it == lesson.translated_hints.end() ? nullptr : &it->second;
}

namespace {

bool read_file(const std::string& path, std::string* text) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return false;
    std::stringstream s;
    s << in.rdbuf();
    *text = s.str();
    return true;
}

// "lessons/05-coalescing/lesson.zh.md" for a note: the lesson's folder and the file.
std::string short_path(const std::string& path) {
    const fs::path p(path);
    return (p.parent_path().parent_path().filename() / p.parent_path().filename() / p.filename())
        .string();
}

}  // namespace

LessonText lesson_text(const LessonInfo& lesson, const std::string& lang) {
    LessonText t;
    t.lang = "en";
    t.path = lesson.text_path;
    t.hints = lesson.hints;
    std::string english;
    read_file(lesson.text_path, &english);
    t.markdown = english;
    if (lang == "en" || lang.empty()) return t;

    const std::string path = translated_text_path(lesson, lang);
    std::string translated;
    const bool have_text = read_file(path, &translated) && !translated.empty();
    const std::vector<std::string>* hints = translated_hints(lesson, lang);
    // Hints are shown one at a time by number: a list of another length would number them
    // differently from the English ones (and from the progress store), so it is not used.
    const bool have_hints = hints && hints->size() == lesson.hints.size();
    if (have_text) {
        t.lang = lang;
        t.path = path;
        t.markdown = translated;
    }
    if (have_hints) t.hints = *hints;
    if (!have_text && !have_hints) {
        t.note = "note: " + lesson.id + " has no " + language_name(lang) + " translation yet (" +
                 short_path(path) + "); showing English.";
    } else if (!have_text) {
        t.note = "note: " + lesson.id + " has no " + language_name(lang) + " text yet (" +
                 short_path(path) + "); showing the English text.";
    } else if (!have_hints) {
        t.note = "note: " + lesson.id + "'s hints have no " + language_name(lang) + " translation" +
                 (hints ? " of the right length" : "") + " (hints_" + lang +
                 " in the manifest); showing the English hints.";
    }
    return t;
}

// [SECTION] The translation check

namespace {

// The course's manifest, for messages: a course folder may keep it at its top (a course pack)
// or in lessons/ (the built-in course).
std::string manifest_of(const Course& course) {
    std::error_code ec;
    const fs::path top = fs::path(course.root) / "manifest.toml";
    return display_path(
        course,
        (fs::exists(top, ec) ? top : fs::path(course.root) / "lessons" / "manifest.toml").string());
}

std::string trim(const std::string& s) {
    const std::size_t a = s.find_first_not_of(" \t\r"), b = s.find_last_not_of(" \t\r");
    return a == std::string::npos ? "" : s.substr(a, b - a + 1);
}

// A code line without its `//` comment (outside string and character literals) and trailing blanks.
std::string strip_comment(const std::string& line) {
    char quote = 0;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quote) {
            if (c == '\\') ++i;
            else if (c == quote) quote = 0;
        } else if (c == '"' || c == '\'') {
            quote = c;
        } else if (c == '/' && i + 1 < line.size() && line[i + 1] == '/') {
            const std::size_t end = line.find_last_not_of(" \t", i == 0 ? 0 : i - 1);
            return i == 0 || end == std::string::npos ? "" : line.substr(0, end + 1);
        }
    }
    const std::size_t end = line.find_last_not_of(" \t\r");
    return end == std::string::npos ? "" : line.substr(0, end + 1);
}

std::vector<std::string> table_cells(const std::string& line) {
    std::vector<std::string> cells;
    std::size_t at = 1;
    while (at < line.size()) {
        std::size_t end = line.find('|', at);
        if (end == std::string::npos) end = line.size();
        cells.push_back(trim(line.substr(at, end - at)));
        at = end + 1;
    }
    if (!cells.empty() && cells.back().empty() && line.back() == '|') cells.pop_back();
    return cells;
}

}  // namespace

MarkdownOutline outline_markdown(std::string_view markdown) {
    MarkdownOutline o;
    std::istringstream in{std::string(markdown)};
    std::string line;
    int n = 0;
    bool in_code = false;
    MarkdownOutline::Item code, table;
    std::string code_key;
    int table_rows = 0;
    std::size_t table_columns = 0;
    auto end_table = [&] {
        if (table_rows == 0) return;
        table.what = "table of " + std::to_string(table_columns) + " columns and " +
                     std::to_string(table_rows) + " rows";
        table.key = std::to_string(table_columns) + "x" + std::to_string(table_rows);
        o.tables.push_back(table);
        table_rows = 0;
    };
    static const std::regex link(R"(\]\(([^)\s]+)[^)]*\))");
    while (std::getline(in, line)) {
        ++n;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.rfind("```", 0) == 0) {
            end_table();
            if (!in_code) {
                code = {};
                code.line = n;
                const std::string info = trim(line.substr(3));
                code.what = info.empty() ? "code block" : "code block (" + info + ")";
                code_key = info + "\n";
            } else {
                // Blank lines at the end are layout, not code.
                while (code_key.size() > 1 && code_key.back() == '\n' &&
                       code_key[code_key.size() - 2] == '\n')
                    code_key.pop_back();
                code.key = code_key;
                o.code_blocks.push_back(code);
            }
            in_code = !in_code;
            continue;
        }
        if (in_code) {
            code_key += strip_comment(line) + "\n";
            continue;
        }
        if (line.rfind("|", 0) == 0) {
            if (table_rows == 0) {
                table = {};
                table.line = n;
                table_columns = table_cells(line).size();
            }
            if (line.find_first_not_of("|-: ") != std::string::npos)
                ++table_rows;  // not the |---| rule
            continue;
        }
        end_table();
        if (line.rfind("#", 0) == 0) {
            const std::size_t level = line.find_first_not_of('#');
            if (level != std::string::npos && line[level] == ' ') {
                o.headings.push_back({n, line, std::to_string(level)});
                continue;
            }
        }
        // Link and picture targets, outside inline code.
        std::string prose;
        bool tick = false;
        for (char c : line) {
            if (c == '`') tick = !tick;
            else if (!tick) prose += c;
        }
        for (auto it = std::sregex_iterator(prose.begin(), prose.end(), link);
             it != std::sregex_iterator(); ++it)
            o.links.push_back({n, "link to " + (*it)[1].str(), (*it)[1].str()});
    }
    end_table();
    if (in_code) {
        code.key = code_key + "(not closed)";
        o.code_blocks.push_back(code);
    }
    // A heading's key is its level and what its section holds (code blocks, tables, links up to
    // the next heading), so that a section added to the English text is found where it was
    // added, not at the end: headings of one level are otherwise all alike.
    for (std::size_t h = 0; h < o.headings.size(); ++h) {
        const int from = o.headings[h].line,
                  to = h + 1 < o.headings.size() ? o.headings[h + 1].line : n + 1;
        auto count = [&](const std::vector<MarkdownOutline::Item>& items) {
            int c = 0;
            for (const auto& i : items) c += i.line > from && i.line < to;
            return std::to_string(c);
        };
        o.headings[h].key += " code " + count(o.code_blocks) + " tables " + count(o.tables) +
                             " links " + count(o.links);
    }
    return o;
}

std::string TranslationFinding::text() const {
    return file + (line > 0 ? ":" + std::to_string(line) : "") +
           (error ? ": error: " : ": warning: ") + message;
}

namespace {

// The first difference between two lists of one kind of item, as a finding on the translation.
void compare(const std::vector<MarkdownOutline::Item>& english,
             const std::vector<MarkdownOutline::Item>& translated, const char* kind,
             const std::string& english_file, const std::string& file, const std::string& lesson,
             std::vector<TranslationFinding>* out) {
    const std::size_t n = std::min(english.size(), translated.size());
    for (std::size_t i = 0; i < n; ++i) {
        if (english[i].key == translated[i].key) continue;
        std::string why = std::string(kind) + " " + std::to_string(i + 1) + " differs from " +
                          english_file + ":" + std::to_string(english[i].line) + ": '" +
                          translated[i].what + "' where the English has '" + english[i].what + "'";
        if (std::string(kind) == "code block")
            why = "code block " + std::to_string(i + 1) + " is not the code of " + english_file +
                  ":" + std::to_string(english[i].line) + " (only `//` comments may be translated)";
        out->push_back({true, lesson, file, translated[i].line, why});
        return;
    }
    if (english.size() == translated.size()) return;
    TranslationFinding f{true, lesson, file, 0, ""};
    f.message = "has " + std::to_string(translated.size()) + " " + kind +
                (translated.size() == 1 ? "" : "s") + ", " + english_file + " has " +
                std::to_string(english.size());
    if (english.size() > translated.size()) {
        const auto& missing = english[translated.size()];
        f.message += " (the first missing: " + english_file + ":" + std::to_string(missing.line) +
                     " '" + missing.what + "')";
    } else {
        f.line = translated[english.size()].line;
        f.message += " (the first extra: '" + translated[english.size()].what + "')";
    }
    out->push_back(std::move(f));
}

}  // namespace

std::vector<TranslationFinding> check_translation(const Course& course, const LessonInfo& lesson,
                                                  const std::string& lang) {
    std::vector<TranslationFinding> out;
    if (lang == "en") return out;
    const std::string path = translated_text_path(lesson, lang);
    const std::string file = display_path(course, path);
    const std::string english_file = fs::path(lesson.text_path).filename().string();
    std::error_code ec;
    const bool have_text = fs::exists(path, ec);
    const std::vector<std::string>* hints = translated_hints(lesson, lang);
    const std::string manifest = manifest_of(course);
    const std::string name = language_name(lang);

    if (!have_text && !hints) {
        out.push_back({false, lesson.id, file, 0,
                       "no " + name + " translation of " + lesson.id + " (neither " +
                           fs::path(path).filename().string() + " nor hints_" + lang + " in " +
                           manifest + "); it is shown in English"});
        return out;
    }
    if (hints && hints->size() != lesson.hints.size())
        out.push_back({true, lesson.id, manifest, 0,
                       lesson.id + ": hints_" + lang + " has " + std::to_string(hints->size()) +
                           " hints, hints has " + std::to_string(lesson.hints.size()) +
                           " (the same hints, in the same order)"});
    if (!hints)
        out.push_back({true, lesson.id, manifest, 0,
                       lesson.id + " has " + file + " but no hints_" + lang + " (translate its " +
                           std::to_string(lesson.hints.size()) + " hints too)"});
    if (hints)
        for (std::size_t i = 0; i < hints->size(); ++i)
            if (trim((*hints)[i]).empty())
                out.push_back(
                    {true, lesson.id, manifest, 0,
                     lesson.id + ": hints_" + lang + " " + std::to_string(i + 1) + " is empty"});
    if (!have_text) {
        out.push_back({true, lesson.id, file, 0,
                       "missing: " + lesson.id + " has hints_" + lang + " but no " +
                           fs::path(path).filename().string() + " (translate lesson.md too)"});
        return out;
    }
    std::string english, translated;
    if (!read_file(lesson.text_path, &english)) {
        out.push_back({true, lesson.id, display_path(course, lesson.text_path), 0,
                       "cannot read the English text"});
        return out;
    }
    if (!read_file(path, &translated) || translated.empty()) {
        out.push_back({true, lesson.id, file, 0, "empty or unreadable"});
        return out;
    }
    const MarkdownOutline e = outline_markdown(english), t = outline_markdown(translated);
    compare(e.headings, t.headings, "heading", english_file, file, lesson.id, &out);
    compare(e.code_blocks, t.code_blocks, "code block", english_file, file, lesson.id, &out);
    compare(e.tables, t.tables, "table", english_file, file, lesson.id, &out);
    compare(e.links, t.links, "link", english_file, file, lesson.id, &out);
    return out;
}

std::vector<TranslationFinding> check_translations(const Course& course) {
    std::vector<TranslationFinding> out;
    for (const auto& lesson : course.lessons)
        for (const auto& lang : known_languages()) {
            auto found = check_translation(course, lesson, lang);
            out.insert(out.end(), found.begin(), found.end());
        }
    // hints_XX for a language cudalab does not know is a typo (hints_cn) or a language to add.
    for (const auto& lesson : course.lessons)
        for (const auto& [lang, hints] : lesson.translated_hints)
            if (!known(lang))
                out.push_back({true, lesson.id, manifest_of(course), 0,
                               lesson.id + ": hints_" + lang +
                                   " is for a language cudalab does not know (en, zh)"});
    return out;
}

}  // namespace cudalab::lessons
