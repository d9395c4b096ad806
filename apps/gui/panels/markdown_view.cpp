#include "panels/markdown_view.h"

#include <algorithm>
#include <cmath>

#include "shell/theme.h"
#include "viewmodel/syntax.h"
#include "viewmodel/wrap.h"
#include "widgets/widgets.h"

namespace cudalab::gui {

using viewmodel::Block;
using viewmodel::BlockKind;
using viewmodel::Run;

namespace {

ImFont* font_for(std::uint8_t style, ImFont* base) {
    const Fonts& f = fonts();
    if (style & viewmodel::run_code) return f.mono;
    if (base != f.ui) return base;  // headings keep their font
    const bool bold = style & viewmodel::run_bold, italic = style & viewmodel::run_italic;
    if (bold && italic) return f.ui_bold_italic;
    if (bold) return f.ui_bold;
    if (italic) return f.ui_italic;
    return f.ui;
}

float sum(const std::vector<float>& v) {
    float t = 0;
    for (float x : v) t += x;
    return t;
}

float text_width(ImFont* font, const char* b, const char* e) {
    return font->CalcTextSizeA(font->FontSize, 1e9f, 0.0f, b, e).x;
}

}  // namespace

void MarkdownView::set(viewmodel::Document document) {
    document_ = std::move(document);
    laid_out_width_ = -1;
}

// Lays out runs from (x0, y) wrapping at x1; returns the y below the last line. With
// measure_only, nothing is recorded and natural_width receives the unwrapped width.
float MarkdownView::layout_runs(const std::vector<Run>& runs, float x0, float x1, float y,
                                ImFont* base, ImU32 base_color, bool measure_only,
                                float* natural_width) {
    const float s = fonts().scale;
    const float line_h = std::round(base->FontSize * 1.42f);
    float x = x0;
    float widest = 0;
    bool line_empty = true;
    for (const Run& run : runs) {
        if (run.line_break) {
            y += line_h;
            x = x0;
            line_empty = true;
            continue;
        }
        ImFont* font = font_for(run.style, base);
        const bool code = run.style & viewmodel::run_code;
        ImU32 color = code                                ? colors::md_code
                      : (run.style & viewmodel::run_link) ? colors::info
                                                          : base_color;
        if ((run.style & viewmodel::run_bold) && !code && base == fonts().ui)
            color = colors::text_strong;
        const float baseline_shift = std::round((base->FontSize - font->FontSize) * 0.55f);
        const char* p = run.text.c_str();
        const char* end = p + run.text.size();
        while (p < end) {
            // A word and the spaces after it; in Chinese, a character (viewmodel::unit_end).
            const char* w = *p == ' ' ? p : viewmodel::unit_end(p, end);
            const char* sp = w;
            while (sp < end && *sp == ' ') ++sp;
            const float word_w = text_width(font, p, w);
            const float full_w = text_width(font, p, sp);
            if (!line_empty && x + word_w > x1) {
                y += line_h;
                x = x0;
                line_empty = true;
                if (w == p) {
                    p = sp;
                    continue;
                }  // no leading spaces on a new line
            }
            if (!measure_only && w > p) {
                if (code) {
                    // One tinted box over a code span's words and the spaces between them.
                    const float pad = 3 * s;
                    const bool more = sp < end;
                    boxes_.push_back({ImVec2(x - pad * 0.6f, y + baseline_shift - 1 * s),
                                      ImVec2(x + (more ? full_w : word_w + pad * 0.6f),
                                             y + baseline_shift + font->FontSize + 2 * s),
                                      colors::md_code_box, more ? 0.0f : 3 * s, false});
                }
                // Chinese is laid out a character at a time: a character that follows the last
                // piece directly, in its font and colour, joins it (one draw call, not one each).
                Piece* last = pieces_.empty() ? nullptr : &pieces_.back();
                if (!code && last && last->font == font && last->color == color &&
                    last->pos.y == y + baseline_shift &&
                    std::fabs(
                        last->pos.x +
                        text_width(font, last->text.data(), last->text.data() + last->text.size()) -
                        x) < 0.01f)
                    last->text.append(p, w);
                else
                    pieces_.push_back(
                        {font, color, ImVec2(x, y + baseline_shift), std::string(p, w)});
            }
            x += full_w + (code && sp > w ? 0 : 0);
            widest = std::max(widest, x - x0);
            line_empty = false;
            p = sp;
        }
    }
    if (natural_width) *natural_width = widest;
    return y + (line_empty && x == x0 ? 0 : line_h);
}

void MarkdownView::layout(float width) {
    boxes_.clear();
    pieces_.clear();
    const Fonts& f = fonts();
    const float s = f.scale;
    const float indent_step = 20 * s;
    const float para_gap = 8 * s;
    float y = 2 * s;
    for (std::size_t bi = 0; bi < document_.blocks.size(); ++bi) {
        const Block& b = document_.blocks[bi];
        const float quote_x = float(b.quote) * 14 * s;
        const float x0 = quote_x + float(b.indent) * indent_step;
        const float y_start = y;
        switch (b.kind) {
        case BlockKind::heading: {
            ImFont* font = b.level == 1 ? f.h1 : b.level == 2 ? f.h2 : f.h3;
            if (bi > 0) y += (b.level <= 2 ? 14 : 8) * s;
            ImU32 color = b.level == 1 ? colors::white : colors::heading;
            y = layout_runs(b.runs, x0, width, y, font, color, false, nullptr);
            if (b.level <= 2) {
                boxes_.push_back({ImVec2(x0, y + 1 * s), ImVec2(width, y + 2 * s),
                                  b.level == 1 ? colors::accent : colors::border, 0, false});
                y += 8 * s;
            } else {
                y += 3 * s;
            }
            break;
        }
        case BlockKind::paragraph: {
            float text_x = x0;
            if (!b.bullet.empty()) {
                ImFont* bf = b.bullet.size() > 3 || b.bullet.back() == '.' ? f.ui : f.ui_bold;
                const float bw =
                    text_width(bf, b.bullet.c_str(), b.bullet.c_str() + b.bullet.size());
                pieces_.push_back({bf, b.bullet.back() == '.' ? colors::text_dim : colors::accent,
                                   ImVec2(x0 - bw - 6 * s + indent_step * 0.5f, y), b.bullet});
                text_x = x0 + indent_step * 0.5f;
            }
            y = layout_runs(b.runs, text_x, width, y, f.ui, colors::text, false, nullptr);
            // Items of one list sit closer together than paragraphs.
            const bool next_is_item = bi + 1 < document_.blocks.size() &&
                                      !document_.blocks[bi + 1].bullet.empty() &&
                                      document_.blocks[bi + 1].indent > 0;
            y += (b.bullet.empty() || !next_is_item) ? para_gap : 2 * s;
            break;
        }
        case BlockKind::code: {
            const float pad = 8 * s;
            const auto lines = viewmodel::highlight(b.code);
            const float line_h = std::round(f.mono->FontSize * 1.3f);
            const float top = y;
            y += pad;
            for (const auto& hl : lines) {
                float x = x0 + pad;
                const char* line = b.code.c_str() + hl.offset;
                for (const auto& t : hl.tokens) {
                    pieces_.push_back({f.mono, token_color(t.kind), ImVec2(x, y),
                                       std::string(line + t.begin, line + t.end), width - pad});
                    x += text_width(f.mono, line + t.begin, line + t.end);
                }
                y += line_h;
            }
            y += pad;
            boxes_.push_back({ImVec2(x0, top), ImVec2(width, y), colors::md_quote, 5 * s, false});
            boxes_.push_back(
                {ImVec2(x0, top), ImVec2(x0 + 3 * s, y), colors::accent_line, 0, false});
            y += para_gap;
            break;
        }
        case BlockKind::table: {
            const std::size_t cols =
                b.rows.empty()
                    ? 0
                    : std::max_element(b.rows.begin(), b.rows.end(), [](auto& a, auto& c) {
                          return a.size() < c.size();
                      })->size();
            if (cols == 0) break;
            const float cell_pad = 7 * s;
            std::vector<float> natural(cols, 0);
            for (std::size_t r = 0; r < b.rows.size(); ++r)
                for (std::size_t c = 0; c < b.rows[r].size(); ++c) {
                    float w = 0;
                    layout_runs(b.rows[r][c].runs, 0, 1e9f, 0, r == 0 ? f.ui_bold : f.ui,
                                colors::text, true, &w);
                    natural[c] = std::max(natural[c], w + 2 * cell_pad);
                }
            const float avail = width - x0;
            float total = 0;
            for (float w : natural) total += w;
            std::vector<float> widths = natural;
            if (total > avail) {
                // Shrink the wide columns first: each keeps at least an even share or its natural
                // width.
                const float fair_share = avail / float(cols);
                float fixed = 0, flexible = 0;
                for (float w : natural) (w <= fair_share ? fixed : flexible) += w;
                for (std::size_t c = 0; c < cols; ++c)
                    widths[c] = natural[c] <= fair_share ? natural[c]
                                                         : natural[c] / flexible * (avail - fixed);
            }
            y += 2 * s;
            for (std::size_t r = 0; r < b.rows.size(); ++r) {
                float x = x0;
                float row_bottom = y;
                const std::size_t box_index = boxes_.size();
                for (std::size_t c = 0; c < b.rows[r].size(); ++c) {
                    float bottom =
                        layout_runs(b.rows[r][c].runs, x + cell_pad, x + widths[c] - cell_pad,
                                    y + cell_pad * 0.6f, r == 0 ? f.ui_bold : f.ui,
                                    r == 0 ? colors::text_strong : colors::text, false, nullptr);
                    row_bottom = std::max(row_bottom, bottom + cell_pad * 0.4f);
                    x += widths[c];
                }
                const float right = x0 + sum(widths);
                ImU32 bg =
                    r == 0 ? colors::table_header : (r % 2 ? colors::table_row_alt : colors::panel);
                boxes_.insert(boxes_.begin() + std::ptrdiff_t(box_index),
                              Box{ImVec2(x0, y), ImVec2(right, row_bottom), bg, 0, false});
                y = row_bottom;
            }
            boxes_.push_back({ImVec2(x0, y_start + 2 * s), ImVec2(x0 + sum(widths), y),
                              colors::border, 3 * s, true});
            y += para_gap + 4 * s;
            break;
        }
        case BlockKind::rule:
            y += 6 * s;
            boxes_.push_back({ImVec2(x0, y), ImVec2(width, y + 1 * s), colors::border, 0, false});
            y += 8 * s;
            break;
        }
        if (b.quote > 0)
            boxes_.push_back({ImVec2(quote_x - 10 * s, y_start),
                              ImVec2(quote_x - 7 * s, y - para_gap), colors::text_faint, 0, false});
    }
    height_ = y;
    laid_out_width_ = width;
}

void MarkdownView::draw(float width) {
    width = std::floor(width);
    if (width != laid_out_width_) layout(width);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec4 clip = clip_rect(dl);
    for (const Box& b : boxes_) {
        ImVec2 a(origin.x + b.min.x, origin.y + b.min.y), c(origin.x + b.max.x, origin.y + b.max.y);
        if (c.y < clip.y || a.y > clip.w) continue;
        if (b.outline) dl->AddRect(a, c, b.color, b.rounding);
        else dl->AddRectFilled(a, c, b.color, b.rounding);
    }
    for (const Piece& p : pieces_) {
        ImVec2 at(origin.x + p.pos.x, origin.y + p.pos.y);
        if (at.y + p.font->FontSize < clip.y || at.y > clip.w) continue;
        if (p.clip_right > 0) {
            if (at.x > origin.x + p.clip_right) continue;
            const ImVec4 fine(clip.x, clip.y, std::min(clip.z, origin.x + p.clip_right), clip.w);
            dl->AddText(p.font, p.font->FontSize, at, p.color, p.text.c_str(),
                        p.text.c_str() + p.text.size(), 0.0f, &fine);
        } else {
            dl->AddText(p.font, p.font->FontSize, at, p.color, p.text.c_str(),
                        p.text.c_str() + p.text.size());
        }
    }
    ImGui::Dummy(ImVec2(width, height_));
}

}  // namespace cudalab::gui
