// Draws a lesson's Markdown (viewmodel::Document) with Dear ImGui: proportional text in several
// fonts, wrapped across style changes, inline code on a tinted background, code blocks with
// syntax colours, tables, lists and quotes. Laid out once per width, then only the visible
// pieces are drawn each frame.
#pragma once

#include <imgui.h>

#include <string>
#include <vector>

#include "viewmodel/markdown.h"

namespace cudalab::gui {

class MarkdownView {
  public:
    void set(viewmodel::Document document);
    // Draws at the cursor, `width` wide; reserves the height it takes.
    void draw(float width);
    bool empty() const { return document_.blocks.empty(); }

  private:
    struct Piece {
        ImFont* font;
        ImU32 color;
        ImVec2 pos;
        std::string text;
        float clip_right = 0;  // code blocks: where the box ends (0: no clipping)
    };
    struct Box {
        ImVec2 min, max;
        ImU32 color;
        float rounding;
        bool outline;
    };
    void layout(float width);
    float layout_runs(const std::vector<viewmodel::Run>& runs, float x0, float x1, float y,
                      ImFont* base, ImU32 base_color, bool measure_only, float* natural_width);

    viewmodel::Document document_;
    float laid_out_width_ = -1;
    float height_ = 0;
    std::vector<Box> boxes_;
    std::vector<Piece> pieces_;
};

}  // namespace cudalab::gui
