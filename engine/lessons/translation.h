// Lesson texts and hints in more than one language (docs/translating.md).
//
// English is the course's own language: lessons/ID/lesson.md and the manifest's `hints`. A
// translation sits beside it: lessons/ID/lesson.LANG.md and `hints_LANG = [...]` in the lesson's
// manifest table (same number, same order). A lesson without a translation is shown in English
// with a one-line note; check messages and advice stay English.
//
// The translation check (check_translation) is what `cudalab lint` and the course-linter test
// call: a translation must keep the English text's structure (headings, code, tables, pictures
// and links) and its hints' count, so that a change to the English text that the translation has
// not followed is found.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "lessons/course.h"

namespace cudalab::lessons {

// [SECTION] Choosing the language

// The languages a lesson may be shown in; the first is the course's own.
const std::vector<std::string>& known_languages();   // {"en", "zh"}
std::string language_name(const std::string& lang);  // "English", "Chinese (Simplified)"

struct LanguageChoice {
    std::string lang = "en";
    std::string from;     // "--lang", "CUDALAB_LANG", "LC_ALL", "LC_MESSAGES", "LANG" or "default"
    std::string warning;  // set when CUDALAB_LANG names no known language (it is then ignored)
};

// `flag` is --lang's value ("" when not given; the caller has checked it is a known language).
// Otherwise $CUDALAB_LANG, otherwise the locale: the first of LC_ALL, LC_MESSAGES, LANG that is
// set and not empty (POSIX's order); a locale starting with "zh" is Chinese, any other English.
LanguageChoice choose_language(const std::string& flag);

// [SECTION] A lesson's text in a language

std::string translated_text_path(const LessonInfo& lesson,
                                 const std::string& lang);  // lessons/ID/lesson.LANG.md
const std::vector<std::string>* translated_hints(const LessonInfo& lesson, const std::string& lang);

struct LessonText {
    std::string lang;  // the language the text is in ("en" when it fell back)
    std::string path;  // the file it came from
    std::string markdown;
    std::vector<std::string> hints;
    // One line, set when the chosen language was asked for but this lesson has no translation
    // (or no translated hints), so English is shown: e.g. "note: 13-foo has no Chinese text yet
    // (lessons/13-foo/lesson.zh.md); showing English."
    std::string note;
};

// The lesson's text and hints in `lang`, falling back to English (with a note) for whatever has
// no translation. The text and the hints fall back separately.
LessonText lesson_text(const LessonInfo& lesson, const std::string& lang);

// [SECTION] The translation check

// The structure of a Markdown text that a translation keeps; each item remembers its line.
struct MarkdownOutline {
    struct Item {
        int line = 0;
        std::string what;  // "## heading", "code block (cpp)", "table 3 columns x 5 rows", "picture
                           // docs/x.png"
        std::string
            key;  // compared between languages: a heading's level and its section's code blocks,
                  // tables and links; code without comments; a table's shape; a link's target
    };
    std::vector<Item> headings;
    std::vector<Item> code_blocks;  // the code must be the same; `//` comments may be translated
    std::vector<Item> tables;
    std::vector<Item> links;  // link and picture targets, in order
};
MarkdownOutline outline_markdown(std::string_view markdown);

struct TranslationFinding {
    bool error = false;  // false: a warning (a lesson with no translation at all)
    std::string lesson;
    std::string file;  // the file to fix, relative to the course root when inside it
    int line = 0;      // 0: the file as a whole
    std::string message;
    std::string text() const;  // "lessons/05-coalescing/lesson.zh.md:12: error: ..."
};

// One lesson against its `lang` translation:
//   - no lesson.LANG.md and no hints_LANG: a warning (the lesson is shown in English);
//   - lesson.LANG.md without hints_LANG, or hints_LANG without lesson.LANG.md: an error (a
//     translation half done is a mistake, not a lesson still to be translated);
//   - a lesson.LANG.md whose headings (level and order), code blocks (code with `//` comments
//     left out), tables (columns and rows) or link and picture targets differ from lesson.md's,
//     or hints_LANG of another count than hints: an error, naming the first difference.
std::vector<TranslationFinding> check_translation(const Course& course, const LessonInfo& lesson,
                                                  const std::string& lang);
// Every lesson of the course, in every known language but English.
std::vector<TranslationFinding> check_translations(const Course& course);

}  // namespace cudalab::lessons
