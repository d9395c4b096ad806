// Lessons in two languages (lessons/translation.h): choosing the language, falling back to English,
// the translation check the linter runs, the course's own translations, and the CLI's --lang.
#include <doctest/doctest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

#include "lessons/course.h"
#include "lessons/translation.h"
#include "support.h"
#ifdef CUDALAB_HAVE_GUI_MODEL
#include "viewmodel/wrap.h"
#endif

namespace fs = std::filesystem;
using namespace cudalab;
using namespace cudalab::lessons;
using test_support::run_cli;
using test_support::run_cli_stdout;

namespace {

// Sets environment variables for one scope and puts the old values back.
class ScopedEnv {
  public:
    ScopedEnv(std::initializer_list<std::pair<const char*, const char*>> values) {
        for (const auto& [name, value] : values) {
            const char* old = std::getenv(name);
            saved_.push_back({name, old ? std::optional<std::string>(old) : std::nullopt});
            if (value) ::setenv(name, value, 1);
            else ::unsetenv(name);
        }
    }
    ~ScopedEnv() {
        for (const auto& [name, old] : saved_) {
            if (old) ::setenv(name.c_str(), old->c_str(), 1);
            else ::unsetenv(name.c_str());
        }
    }

  private:
    std::vector<std::pair<std::string, std::optional<std::string>>> saved_;
};

void write(const fs::path& path, const std::string& text) {
    fs::create_directories(path.parent_path());
    std::ofstream(path) << text;
}

const char* kEnglish = R"(# Title

## The idea

Some text with a [link](docs/gui.md) and `code](not.a/link)`.

| a | b |
|---|---|
| 1 | 2 |

```cpp
int i = blockIdx.x;   // a comment
```

## Your task

Run it.
)";

const char* kChinese = R"(# 标题

## 思路

一些文字，带一个[链接](docs/gui.md)和 `code](not.a/link)`。

| 甲 | 乙 |
|---|---|
| 1 | 2 |

```cpp
int i = blockIdx.x;   // 注释
```

## 你的任务

运行它。
)";

// A course of one lesson in a temporary folder, with its English text and hints and optionally
// a Chinese text and hints.
struct TinyCourse {
    fs::path root;
    Course course;
    TinyCourse(const std::string& name, const char* zh_text, const std::string& zh_hints,
               const std::string& english = kEnglish) {
        root = test_support::temp_dir() / name;
        fs::remove_all(root);
        write(root / "lessons" / "01-one" / "lesson.md", english);
        if (zh_text) write(root / "lessons" / "01-one" / "lesson.zh.md", zh_text);
        write(root / "lessons" / "manifest.toml",
              "[[lesson]]\nid = \"01-one\"\ntitle = \"One\"\npart = \"I\"\nhints = [\"first\", "
              "\"second\"]\n" +
                  zh_hints);
        Status s = load_course(root.string(), &course);
        REQUIRE_MESSAGE(s.ok(), s.message);
    }
    std::vector<TranslationFinding> check() const {
        return check_translation(course, course.lessons.front(), "zh");
    }
};

std::string all_text(const std::vector<TranslationFinding>& findings) {
    std::string s;
    for (const auto& f : findings) s += f.text() + "\n";
    return s;
}

int errors(const std::vector<TranslationFinding>& findings) {
    int n = 0;
    for (const auto& f : findings) n += f.error;
    return n;
}

}  // namespace

TEST_CASE("the language: --lang, then CUDALAB_LANG, then LC_ALL, LC_MESSAGES and LANG") {
    {
        ScopedEnv env{{"CUDALAB_LANG", "zh"}, {"LC_ALL", "en_US.UTF-8"}};
        CHECK(choose_language("en").lang == "en");
        CHECK(choose_language("en").from == "--lang");
        CHECK(choose_language("").lang == "zh");
        CHECK(choose_language("").from == "CUDALAB_LANG");
    }
    {
        ScopedEnv env{{"CUDALAB_LANG", nullptr},
                      {"LC_ALL", "zh_CN.UTF-8"},
                      {"LC_MESSAGES", "C"},
                      {"LANG", "en_GB.UTF-8"}};
        CHECK(choose_language("").lang == "zh");
        CHECK(choose_language("").from == "LC_ALL");
    }
    {
        // An empty LC_ALL counts as unset (POSIX).
        ScopedEnv env{{"CUDALAB_LANG", nullptr},
                      {"LC_ALL", ""},
                      {"LC_MESSAGES", "en_US.UTF-8"},
                      {"LANG", "zh_CN.UTF-8"}};
        CHECK(choose_language("").lang == "en");
        CHECK(choose_language("").from == "LC_MESSAGES");
    }
    {
        ScopedEnv env{{"CUDALAB_LANG", nullptr},
                      {"LC_ALL", nullptr},
                      {"LC_MESSAGES", nullptr},
                      {"LANG", "zh_TW.UTF-8"}};
        CHECK(choose_language("").lang == "zh");
        CHECK(choose_language("").from == "LANG");
    }
    {
        ScopedEnv env{{"CUDALAB_LANG", nullptr},
                      {"LC_ALL", nullptr},
                      {"LC_MESSAGES", nullptr},
                      {"LANG", nullptr}};
        CHECK(choose_language("").lang == "en");
        CHECK(choose_language("").from == "default");
    }
    {
        ScopedEnv env{{"CUDALAB_LANG", "fr"}, {"LC_ALL", "zh_CN.UTF-8"}};
        const LanguageChoice c = choose_language("");
        CHECK(c.lang == "zh");
        CHECK(c.warning.find("CUDALAB_LANG=fr") != std::string::npos);
    }
}

TEST_CASE(
    "a Markdown outline: headings, code without comments, tables and links, with their lines") {
    const MarkdownOutline o = outline_markdown(kEnglish);
    REQUIRE(o.headings.size() == 3);
    CHECK(o.headings[0].line == 1);
    CHECK(o.headings[0].key == "1 code 0 tables 0 links 0");
    CHECK(o.headings[1].key == "2 code 1 tables 1 links 1");  // its section's
    CHECK(o.headings[2].line == 15);
    REQUIRE(o.code_blocks.size() == 1);
    CHECK(o.code_blocks[0].line == 11);
    CHECK(o.code_blocks[0].key == "cpp\nint i = blockIdx.x;\n");
    REQUIRE(o.tables.size() == 1);
    CHECK(o.tables[0].key == "2x2");
    REQUIRE(o.links.size() == 1);  // not the one inside `code`
    CHECK(o.links[0].key == "docs/gui.md");
    // A '#' line inside a code block is code, not a heading; `//` inside a string stays.
    const MarkdownOutline c =
        outline_markdown("```cpp\n#include <x>\nprintf(\"a//b\"); // c\n```\n");
    CHECK(c.headings.empty());
    REQUIRE(c.code_blocks.size() == 1);
    CHECK(c.code_blocks[0].key == "cpp\n#include <x>\nprintf(\"a//b\");\n");
}

TEST_CASE(
    "translation check: a faithful translation passes and its code comments may be translated") {
    TinyCourse t("zh-good", kChinese, "hints_zh = [\"第一\", \"第二\"]\n");
    const auto found = t.check();
    CHECK_MESSAGE(found.empty(), all_text(found));
    const LessonText text = lesson_text(t.course.lessons.front(), "zh");
    CHECK(text.lang == "zh");
    CHECK(text.note.empty());
    CHECK(text.markdown.find("## 思路") != std::string::npos);
    REQUIRE(text.hints.size() == 2);
    CHECK(text.hints[1] == "第二");
    // English asked for: English, whatever translation exists.
    CHECK(lesson_text(t.course.lessons.front(), "en").markdown.find("## The idea") !=
          std::string::npos);
}

TEST_CASE("translation check: no translation at all is a warning, and the text falls back to "
          "English with a note") {
    TinyCourse t("zh-none", nullptr, "");
    const auto found = t.check();
    REQUIRE(found.size() == 1);
    CHECK_FALSE(found[0].error);
    CHECK(found[0].text().find("lessons/01-one/lesson.zh.md: warning: no Chinese (Simplified) "
                               "translation of 01-one") == 0);
    const LessonText text = lesson_text(t.course.lessons.front(), "zh");
    CHECK(text.lang == "en");
    CHECK(text.markdown.find("## The idea") != std::string::npos);
    CHECK(text.hints == t.course.lessons.front().hints);
    CHECK(text.note.find("01-one has no Chinese (Simplified) translation yet") !=
          std::string::npos);
    CHECK(text.note.find('\n') == std::string::npos);
}

TEST_CASE("translation check: a text without hints, or hints without a text, is an error") {
    {
        TinyCourse t("zh-text-only", kChinese, "");
        const auto found = t.check();
        CHECK(errors(found) == 1);
        CHECK(all_text(found).find("no hints_zh") != std::string::npos);
        // The text is shown in Chinese, the hints in English, with a note.
        const LessonText text = lesson_text(t.course.lessons.front(), "zh");
        CHECK(text.lang == "zh");
        CHECK(text.hints.front() == "first");
        CHECK(text.note.find("hints") != std::string::npos);
    }
    {
        TinyCourse t("zh-hints-only", nullptr, "hints_zh = [\"第一\", \"第二\"]\n");
        const auto found = t.check();
        CHECK(errors(found) == 1);
        CHECK(all_text(found).find("but no lesson.zh.md") != std::string::npos);
    }
}

TEST_CASE("translation check: another number of hints is an error, and those hints are not shown") {
    TinyCourse t("zh-hint-count", kChinese, "hints_zh = [\"第一\"]\n");
    const auto found = t.check();
    REQUIRE(errors(found) == 1);
    CHECK(found[0].file == "lessons/manifest.toml");
    CHECK(found[0].message.find("hints_zh has 1 hints, hints has 2") != std::string::npos);
    CHECK(lesson_text(t.course.lessons.front(), "zh").hints.front() == "first");
}

TEST_CASE("translation check: a heading, code block, table or link that differs is an error at its "
          "line") {
    const std::string good = kChinese;
    auto replaced = [&](const std::string& from, const std::string& to) {
        std::string s = good;
        const auto at = s.find(from);
        REQUIRE(at != std::string::npos);
        return s.replace(at, from.size(), to);
    };
    struct Case {
        const char* name;
        std::string text;
        const char* expect;
    } cases[] = {
        {"level", replaced("## 思路", "### 思路"), "lesson.zh.md:3: error: heading 2 differs"},
        {"missing heading", replaced("## 你的任务\n", ""), "has 2 headings, lesson.md has 3"},
        {"code", replaced("blockIdx.x;", "blockIdx.y;"),
         "lesson.zh.md:11: error: code block 1 is not the code of lesson.md:11"},
        {"table", replaced("| 1 | 2 |\n", ""), "table 1 differs"},
        {"link", replaced("(docs/gui.md)", "(docs/other.md)"), "link 1 differs"},
    };
    for (const auto& c : cases) {
        CAPTURE(c.name);
        TinyCourse t(std::string("zh-") + (c.name[0] == 'm' ? "missing" : c.name), c.text.c_str(),
                     "hints_zh = [\"第一\", \"第二\"]\n");
        const auto found = t.check();
        CHECK(errors(found) >= 1);
        CHECK_MESSAGE(all_text(found).find(c.expect) != std::string::npos, all_text(found));
    }
}

TEST_CASE("translation check: a section added to the English text is found where it was added") {
    std::string english = kEnglish;
    english.insert(english.find("## Your task"), "## Extra\n\n```cpp\nint x;\n```\n\n");
    TinyCourse t("zh-section", kChinese, "hints_zh = [\"第一\", \"第二\"]\n", english);
    const std::string found = all_text(t.check());
    CHECK_MESSAGE(found.find("lesson.zh.md:15: error: heading 3 differs from lesson.md:15: '## "
                             "你的任务' where the English has "
                             "'## Extra'") != std::string::npos,
                  found);
    CHECK(found.find("has 1 code block, lesson.md has 2") != std::string::npos);
}

TEST_CASE("course linter: every lesson's Chinese text and hints keep the English structure") {
    Course course;
    Status s = load_course(find_course_root(), &course);
    REQUIRE_MESSAGE(s.ok(), s.message);
    int translated = 0;
    for (const auto& f : check_translations(course)) {
        // A lesson nobody has translated yet is a warning: it is shown in English.
        if (f.error) FAIL_CHECK(f.text());
        else MESSAGE(f.text());
    }
    for (const auto& l : course.lessons) translated += fs::exists(translated_text_path(l, "zh"));
    CHECK(translated >= 1);
}

TEST_CASE(
    "cudalab show and hint --lang zh print the Chinese text and an unknown language exits 2") {
    auto shown = run_cli_stdout("show 05-coalescing --lang zh");
    CHECK(shown.exit_code == 0);
    CHECK(shown.output.find("合并访问") != std::string::npos);
    CHECK(shown.output.find("The idea") == std::string::npos);
    // Before the command too, and from the environment.
    CHECK(run_cli_stdout("--lang zh show 05-coalescing").output == shown.output);
    CHECK(test_support::run_command("CUDALAB_LANG=zh " CUDALAB_CLI " show 05-coalescing", false)
              .output == shown.output);
    CHECK(test_support::run_command(
              "CUDALAB_LANG= LC_ALL=zh_CN.UTF-8 " CUDALAB_CLI " show 05-coalescing", false)
              .output == shown.output);
    // --lang wins over the environment.
    CHECK(test_support::run_command("CUDALAB_LANG=zh " CUDALAB_CLI " show 05-coalescing --lang en",
                                    false)
              .output.find("The idea") != std::string::npos);
    auto hint = run_cli("hint 05-coalescing 1 --lang zh");
    CHECK(hint.exit_code == 0);
    CHECK(hint.output.find("提示 1 / 3") != std::string::npos);
    CHECK(run_cli("show 05-coalescing --lang fr").exit_code == 2);
    CHECK(run_cli("--lang fr show 05-coalescing").exit_code == 2);
}

TEST_CASE(
    "cudalab show --lang zh of a lesson with no translation: English, after a one-line note") {
    TinyCourse t("zh-cli-fallback", nullptr, "");
    auto r = test_support::run_command(
        "CUDALAB_ROOT=" + t.root.string() + " " CUDALAB_CLI " show 01-one --lang zh", false);
    CHECK(r.exit_code == 0);
    CHECK(r.output.rfind("note: 01-one has no Chinese (Simplified) translation yet "
                         "(lessons/01-one/lesson.zh.md); showing English.\n",
                         0) == 0);
    CHECK(r.output.find("The idea") != std::string::npos);
}

#ifdef CUDALAB_HAVE_GUI_MODEL
TEST_CASE("wrapping Chinese: between characters but never before closing punctuation and English "
          "at spaces") {
    using cudalab::viewmodel::wrap_text;
    // Every code point is one unit wide.
    auto width = [](const char* b, const char* e) {
        float n = 0;
        for (const char* p = b; p < e; ++p) n += (static_cast<unsigned char>(*p) & 0xC0) != 0x80;
        return n;
    };
    CHECK(wrap_text("one two three", 8, width) == std::vector<std::string>{"one two", "three"});
    CHECK(wrap_text("线程束是三十二个线程", 4, width) ==
          std::vector<std::string>{"线程束是", "三十二个", "线程"});
    // "，" stays with the character before it, even past the width.
    CHECK(wrap_text("一二三，四五", 3, width) == std::vector<std::string>{"一二", "三，四", "五"});
    // An opening mark goes with what follows it.
    CHECK(wrap_text("一二（三）", 3, width) == std::vector<std::string>{"一二", "（三）"});
    // Latin words inside Chinese stay whole.
    CHECK(wrap_text("调用 __syncthreads() 之后", 8, width) ==
          std::vector<std::string>{"调用", "__syncthreads()", "之后"});
    CHECK(wrap_text("a\nb", 10, width) == std::vector<std::string>{"a", "b"});
}
#endif
