// Pieces several views draw: the heading line of a view, the card describing the current step,
// and the source line text of the trace's kernel.
#pragma once

#include <imgui.h>

#include <string>

#include "views/view_context.h"

namespace cudalab::gui {

// "Grid" + a dim subtitle on one line.
void view_heading(const char* title, const std::string& subtitle);
// The text of a 1-based source line of the kernel the trace ran ("" when unknown).
std::string source_line_text(const ViewContext& c, std::uint32_t line);
// A card: which step, which warp, which line (with its source) and PTX instruction.
void current_step_card(const ViewContext& c);
// Seeks to the first step at or after `from` of a kind: "global", "shared", "conflict" (a shared
// access with a bank conflict), "barrier", "divergence" (a branch that splits the warp), "exit".
// False when the kind is unknown or no step matches.
bool seek_first(ViewContext& c, const std::string& kind, std::int64_t from);
// Seeks to the next step (after the current) whose event satisfies `match`; false when none.
template <class F> bool seek_next(ViewContext& c, F match) {
    if (!c.has_steps()) return false;
    const auto* b = c.block();
    const auto& ev = c.views->trace().events;
    for (std::size_t s = std::size_t(c.step() + 1); s < b->steps(); ++s)
        if (match(ev[b->begin + s])) {
            c.playback.pause();
            c.playback.seek(std::int64_t(s));
            return true;
        }
    return false;
}

}  // namespace cudalab::gui
