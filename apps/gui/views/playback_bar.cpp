// The playback bar under the views: to start, step back, play / pause, step, next barrier, the
// speed, which traced block is open, and a scrub bar over all of the block's steps with its
// barriers marked.
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "shell/theme.h"
#include "views/view_common.h"
#include "widgets/widgets.h"

namespace cudalab::gui {

void draw_playback_bar(ViewContext& c) {
    const float s = fonts().scale;
    auto& pb = c.playback;
    const bool enabled = c.has_steps() && pb.steps() > 0;
    ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing,
                        ImVec2(spacing::tight_gap * s, spacing::item_y * s));
    if (icon_button("##start", Icon::to_start, "First step (Home)", enabled)) pb.seek(0);
    ImGui::SameLine();
    if (icon_button("##back", Icon::step_back,
                    "Step back one warp instruction (\xE2\x86\x90, Shift: 32)", enabled)) {
        pb.pause();
        pb.step(-1);
    }
    ImGui::SameLine();
    if (pb.playing()) {
        if (icon_button("##pause", Icon::pause, "Pause (Space)", enabled)) pb.pause();
    } else if (icon_button("##play", Icon::play, "Play (Space)", enabled)) {
        pb.play();
    }
    ImGui::SameLine();
    if (icon_button("##step", Icon::step_forward,
                    "Step one warp instruction (\xE2\x86\x92, Shift: 32)", enabled)) {
        pb.pause();
        pb.step(1);
    }
    ImGui::SameLine();
    const std::int64_t barrier =
        enabled ? c.views->model.next_barrier(c.detail_block, pb.position()) : -1;
    if (icon_button("##barrier", Icon::next_barrier, "To the next barrier (B)", barrier >= 0)) {
        pb.pause();
        pb.seek(barrier);
    }
    ImGui::SameLine();
    if (icon_button("##end", Icon::to_end, "Last step (End)", enabled))
        pb.seek(std::int64_t(pb.steps()) - 1);
    ImGui::SameLine(0, spacing::group_gap * s);
    ImGui::SetNextItemWidth(150 * s);
    float speed = float(pb.speed());
    if (ImGui::SliderFloat("##speed", &speed, 1.0f, 5000.0f, "%.0f steps/s",
                           ImGuiSliderFlags_Logarithmic))
        pb.set_speed(speed);
    tooltip("Playback speed, in warp instructions per second (+ / -)");
    ImGui::SameLine(0, spacing::group_gap * s);
    if (c.views && !c.views->model.detail_blocks().empty()) {
        const auto& blocks = c.views->model.detail_blocks();
        std::string label = "block " + c.views->model.block_label(blocks[c.detail_block].block);
        ImGui::SetNextItemWidth(
            std::min(160 * s, std::max(90 * s, ImGui::GetContentRegionAvail().x)));
        if (ImGui::BeginCombo("##block", label.c_str())) {
            for (std::size_t i = 0; i < blocks.size(); ++i) {
                std::string item = "block " + c.views->model.block_label(blocks[i].block) + "  (" +
                                   std::to_string(blocks[i].steps()) + " steps)";
                if (ImGui::Selectable(item.c_str(), i == c.detail_block)) c.select_block(i);
            }
            ImGui::EndCombo();
        }
        tooltip("The traced block the views step through. Click a block in the grid view to trace "
                "another.");
    }
    // Scrub bar.
    const float w = ImGui::GetContentRegionAvail().x;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float h = ImGui::GetFrameHeight();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float track_y = p.y + h * 0.5f;
    dl->AddRectFilled(ImVec2(p.x, track_y - 3 * s), ImVec2(p.x + w, track_y + 3 * s), colors::track,
                      3 * s);
    if (enabled) {
        const float denom = float(std::max<std::size_t>(1, pb.steps() - 1));
        const float fx = p.x + w * float(std::max<std::int64_t>(0, pb.position())) / denom;
        dl->AddRectFilled(ImVec2(p.x, track_y - 3 * s), ImVec2(fx, track_y + 3 * s), colors::accent,
                          3 * s);
        for (std::size_t b : c.block()->barrier_steps) {
            const float x = p.x + w * float(b) / denom;
            dl->AddLine(ImVec2(x, track_y - 7 * s), ImVec2(x, track_y + 7 * s), colors::barrier,
                        2 * s);
        }
        dl->AddCircleFilled(ImVec2(fx, track_y), 7 * s, colors::white, 20);
    }
    ImGui::InvisibleButton("##scrub", ImVec2(w, h));
    if (enabled && ImGui::IsItemActive()) {
        const float t = std::clamp((ImGui::GetIO().MousePos.x - p.x) / w, 0.0f, 1.0f);
        pb.pause();
        pb.seek(std::int64_t(std::lround(t * float(pb.steps() - 1))));
    }
    if (enabled && ImGui::IsItemHovered()) {
        const float t = std::clamp((ImGui::GetIO().MousePos.x - p.x) / w, 0.0f, 1.0f);
        ImGui::SetTooltip("step %lld of %zu (now %lld); red marks are barriers",
                          static_cast<long long>(std::lround(t * float(pb.steps() - 1))) + 1,
                          pb.steps(), static_cast<long long>(pb.position() + 1));
    }
    ImGui::PopStyleVar();
}

}  // namespace cudalab::gui
