// A lesson's Markdown text as blocks of styled runs, parsed once with md4c, ready for a renderer
// to lay out and draw. Supports what lessons use: headings, paragraphs, bullet and numbered lists
// (nested), fenced and indented code blocks, tables, block quotes, rules; inside text: emphasis,
// strong, inline code, links (shown as text), hard breaks and entities.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cudalab::viewmodel {

// Style bits of a run of text; they combine (bold | italic).
enum RunStyle : std::uint8_t {
    run_plain = 0,
    run_bold = 1,
    run_italic = 2,
    run_code = 4,
    run_link = 8,
};

struct Run {
    std::string text;
    std::uint8_t style = run_plain;
    bool line_break = false;  // a hard break (two spaces or a backslash at the end of a line)
};

enum class BlockKind { heading, paragraph, code, table, rule };

struct TableCell {
    std::vector<Run> runs;
};

struct Block {
    BlockKind kind = BlockKind::paragraph;
    int level = 0;                             // heading: 1..6
    int indent = 0;                            // list nesting depth: 0 outside lists
    std::string bullet;                        // the first paragraph of a list item: "•" or "3."
    int quote = 0;                             // block-quote depth
    std::vector<Run> runs;                     // heading, paragraph
    std::string code;                          // code block: the text, without the final newline
    std::string language;                      // code block: the info string ("cpp")
    std::vector<std::vector<TableCell>> rows;  // table: the first row is the header
};

struct Document {
    std::vector<Block> blocks;
};

Document parse_markdown(std::string_view markdown);

// The text of runs without styles (for tests and plain-text copies).
std::string plain_text(const std::vector<Run>& runs);

}  // namespace cudalab::viewmodel
