// The shared-memory view: 32 bank columns. For the current warp instruction, a line from each
// lane to the bank its word lives in; banks asked for more than one distinct word turn red with
// the number of words (the wavefronts that bank needs). Below, shared memory as rows of 32 words,
// the words of this access lit with their lanes, the rest shaded by how often they were touched.
#include <imgui.h>

#include <algorithm>
#include <cmath>

#include "shell/theme.h"
#include "viewmodel/format.h"
#include "views/view_common.h"
#include "widgets/widgets.h"

namespace cudalab::gui {

namespace {

// The columns' sizes, shared by the banks and the rows of words below them.
struct SharedLayout {
    float label_w = 0, col_w = 0;
};

// No shared memory in this kernel: what the view would show.
void draw_shared_unused() {
    const float s = fonts().scale;
    ImGui::Dummy(ImVec2(0, spacing::block_gap * s));
    ImGui::PushTextWrapPos(0);
    ImGui::TextUnformatted("This kernel does not use shared memory.");
    text_dim("Shared memory is the block's own fast scratchpad (__shared__). It is split into 32 "
             "banks; a warp's "
             "request is served in one pass when its lanes touch different banks, or the same word "
             "of a bank. Lanes "
             "that want different words of one bank are served one word per pass: a bank conflict. "
             "In a kernel that "
             "uses shared memory, this view shows every access bank by bank.");
    ImGui::PopTextWrapPos();
}

// The access at the playhead in one line: its kind, lanes, wavefronts against the ideal; or, on a
// step that does not touch shared memory, buttons to the next access and the next conflict.
void draw_shared_summary(ViewContext& c) {
    const float s = fonts().scale;
    const auto& sm = c.views->shared;
    const auto& a = c.shared_access;
    if (!a.valid) {
        text_dim("This step does not touch shared memory.");
        ImGui::SameLine();
        if (ImGui::SmallButton("Next shared access \xE2\x86\x92")) {
            const Trace& t = c.views->trace();
            seek_next(c, [&](const WarpEvent& e) {
                return e.mem >= 0 && t.accesses[std::size_t(e.mem)].space == MemSpace::shared;
            });
        }
        ImGui::SameLine();
        if (sm.conflicted_requests > 0 && ImGui::SmallButton("Next conflict \xE2\x86\x92")) {
            const Trace& t = c.views->trace();
            seek_next(c, [&](const WarpEvent& e) {
                if (e.mem < 0) return false;
                const MemAccess& m = t.accesses[std::size_t(e.mem)];
                if (m.space != MemSpace::shared) return false;
                std::array<std::uint64_t, 32> ad{};
                for (int l = 0; l < 32; ++l) ad[std::size_t(l)] = m.address(l);
                return analysis::shared_access_cost(ad, m.mask, m.bytes_per_lane).conflicts() > 0;
            });
        }
    } else {
        const ImU32 verdict = a.cost.conflicts() == 0              ? colors::good
                              : a.cost.conflicts() <= a.cost.ideal ? colors::fair
                                                                   : colors::poor;
        ImGui::PushFont(fonts().ui_bold);
        ImGui::TextColored(
            ImGui::ColorConvertU32ToFloat4(a.op == MemOp::load ? colors::load : colors::store),
            "%s",
            a.op == MemOp::load    ? "LOAD"
            : a.op == MemOp::store ? "STORE"
                                   : "ATOMIC");
        ImGui::PopFont();
        ImGui::SameLine();
        ImGui::Text("%d lanes \xC3\x97 %u B", __builtin_popcount(a.mask), a.bytes_per_lane);
        ImGui::SameLine(0, spacing::tight_gap * s);
        ImGui::TextUnformatted("\xE2\x86\x92");
        ImGui::SameLine(0, spacing::tight_gap * s);
        ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(verdict), "%u wavefront%s (ideal %u): %s",
                           a.cost.wavefronts, a.cost.wavefronts == 1 ? "" : "s", a.cost.ideal,
                           a.cost.conflicts() == 0
                               ? "no bank conflict"
                               : (std::to_string(a.busiest_bank_words) + "-way bank conflict, " +
                                  std::to_string(a.cost.conflicts()) + " extra")
                                     .c_str());
        if (a.phases > 1)
            text_dim("%u-byte accesses run as %u phases of %u lanes each.", a.bytes_per_lane,
                     a.phases, 32 / a.phases);
    }
}

// Lanes on top, the 32 banks below, a line from each lane to its bank; a bank asked for several
// words is red with their number.
void draw_banks(const ViewContext& c, const SharedLayout& g) {
    const float s = fonts().scale;
    const auto& a = c.shared_access;
    ImGui::Dummy(ImVec2(0, spacing::line_gap * s));
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const float label_w = g.label_w, col_w = g.col_w;
    const ImVec2 p = ImGui::GetCursorScreenPos();
    ImFont* f = fonts().mono_small;
    auto col_x = [&](int i) { return p.x + label_w + float(i) * col_w; };
    // Lanes on top, banks below, a line from each lane to its bank.
    const float lane_y = p.y;
    const float lane_h = col_w * 0.8f;
    const float bank_y = lane_y + lane_h + 46 * s;
    dl->AddText(fonts().small, fonts().small->FontSize,
                ImVec2(p.x, lane_y + (lane_h - fonts().small->FontSize) * 0.5f), colors::text_dim,
                "lanes");
    dl->AddText(fonts().small, fonts().small->FontSize, ImVec2(p.x, bank_y + 2 * s),
                colors::text_dim, "banks");
    for (int l = 0; l < 32; ++l) {
        const bool on = a.valid && (a.mask >> l & 1);
        const ImVec2 la(col_x(l) + 1, lane_y), lz(col_x(l) + col_w - 2, lane_y + lane_h);
        dl->AddRectFilled(la, lz, on ? colors::accent : colors::track, 2 * s);
        if (col_w >= 14 * s && (l % (col_w >= 20 * s ? 1 : 4) == 0)) {
            char n[4];
            std::snprintf(n, sizeof n, "%d", l);
            const float tw = f->CalcTextSizeA(f->FontSize, 1e9f, 0, n).x;
            dl->AddText(
                f, f->FontSize,
                ImVec2(la.x + (col_w - 3 - tw) * 0.5f, la.y + (lane_h - f->FontSize) * 0.5f),
                on ? colors::ink : colors::text_faint, n);
        }
    }
    for (int b = 0; b < 32; ++b) {
        const std::size_t words = a.valid ? a.banks[std::size_t(b)].size() : 0;
        const ImU32 fill = words == 0 ? colors::track : words == 1 ? colors::bank_ok : colors::poor;
        const ImVec2 ba(col_x(b) + 1, bank_y), bz(col_x(b) + col_w - 2, bank_y + lane_h + 6 * s);
        dl->AddRectFilled(ba, bz, fill, 2 * s);
        char n[8];
        std::snprintf(n, sizeof n, "%d", b);
        const float tw = f->CalcTextSizeA(f->FontSize, 1e9f, 0, n).x;
        if (tw < col_w - 2 && (col_w >= 18 * s || b % 4 == 0))
            dl->AddText(
                f, f->FontSize,
                ImVec2(ba.x + (col_w - 3 - tw) * 0.5f, ba.y + (bz.y - ba.y - f->FontSize) * 0.5f),
                words ? colors::white : colors::text_faint, n);
        // How many distinct words this bank must serve: more than one is a conflict.
        if (words > 1) {
            char k[24];
            std::snprintf(k, sizeof k, "\xC3\x97%zu", words);
            ImFont* kf = fonts().ui_bold;
            const float kw = kf->CalcTextSizeA(kf->FontSize * 0.85f, 1e9f, 0, k).x;
            const float cx = col_x(b) + col_w * 0.5f;
            const ImVec2 ka(std::max(p.x + label_w - 4 * s, cx - kw * 0.5f - 4 * s), bz.y + 3 * s);
            dl->AddRectFilled(ka, ImVec2(ka.x + kw + 8 * s, ka.y + kf->FontSize * 0.85f + 4 * s),
                              colors::poor, 3 * s);
            dl->AddText(kf, kf->FontSize * 0.85f, ImVec2(ka.x + 4 * s, ka.y + 2 * s), colors::white,
                        k);
        }
    }
    if (a.valid)
        for (int l = 0; l < 32; ++l) {
            if (!(a.mask >> l & 1)) continue;
            const int bank = int((a.address[std::size_t(l)] / 4) % 32);
            const bool conflict = a.banks[std::size_t(bank)].size() > 1;
            dl->AddLine(ImVec2(col_x(l) + col_w * 0.5f, lane_y + lane_h),
                        ImVec2(col_x(bank) + col_w * 0.5f, bank_y),
                        conflict ? colors::conflict_line : colors::accent_line,
                        conflict ? 1.6f * s : 1.2f * s);
        }
    ImGui::Dummy(ImVec2(label_w + 32 * col_w,
                        bank_y + lane_h + 6 * s + fonts().ui_bold->FontSize + 14 * s - p.y));
}

// Shared memory, 128 bytes (one word per bank) a row, shaded by use; this access's words lit.
void draw_shared_rows(const ViewContext& c, const SharedLayout& g) {
    const float s = fonts().scale;
    const auto& sm = c.views->shared;
    const auto& a = c.shared_access;
    // Shared memory, 128 bytes (one word per bank) a row.
    const float label_w = g.label_w, col_w = g.col_w;
    ImFont* f = fonts().mono_small;
    ImGui::BeginChild("##shared_rows", ImVec2(0, 0), false, ImGuiWindowFlags_NoBackground);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    auto col_x = [&](int i) { return origin.x + label_w + float(i) * col_w; };
    const float row_h = std::max(col_w * 0.8f, 9 * s);
    const ImVec4 clip = clip_rect(dl);
    const std::uint64_t first_row = std::uint64_t(std::max(0.0f, (clip.y - origin.y) / row_h));
    const std::uint64_t last_row = std::min<std::uint64_t>(
        sm.rows, std::uint64_t(std::max(0.0f, (clip.w - origin.y) / row_h)) + 1);
    const bool lane_numbers = col_w >= f->CalcTextSizeA(f->FontSize, 1e9f, 0, "00").x + 3 * s;
    const std::size_t now = c.block()->begin + std::size_t(std::max<std::int64_t>(0, c.step()));
    std::uint64_t lit_lo = ~0ull, lit_hi = 0;
    for (std::uint64_t row = first_row; row < last_row; ++row) {
        const float y = origin.y + float(row) * row_h;
        char label[24];
        std::snprintf(label, sizeof label, "+%llu", static_cast<unsigned long long>(row * 128));
        dl->AddText(f, f->FontSize, ImVec2(origin.x, y + (row_h - f->FontSize) * 0.5f - 1),
                    colors::text_faint, label);
        for (int b = 0; b < 32; ++b) {
            const std::size_t w = std::size_t(row * 32 + std::uint64_t(b));
            const std::uint32_t t = w < sm.touches.size() ? sm.touches[w] : 0;
            const bool before = w < sm.first_event.size() && sm.first_event[w] <= now;
            ImU32 col =
                t && before
                    ? heat_color(float(t) / float(std::max<std::uint32_t>(1, sm.max_touches)))
                    : colors::cell_empty;
            const ImVec2 ca(col_x(b) + 1, y), cz(col_x(b) + col_w - 2, y + row_h - 2);
            dl->AddRectFilled(ca, cz, col);
        }
    }
    if (a.valid) {
        for (int b = 0; b < 32; ++b) {
            const bool conflict = a.banks[std::size_t(b)].size() > 1;
            for (const auto& bw : a.banks[std::size_t(b)]) {
                const std::uint64_t word = bw.word - sm.base / 4;
                const std::uint64_t row = word / 32;
                lit_lo = std::min(lit_lo, row);
                lit_hi = std::max(lit_hi, row);
                if (row < first_row || row >= last_row) continue;
                const float y = origin.y + float(row) * row_h;
                const ImVec2 ca(col_x(b) + 1, y), cz(col_x(b) + col_w - 2, y + row_h - 2);
                dl->AddRectFilled(ca, cz, a.op == MemOp::load ? colors::load : colors::store,
                                  2 * s);
                if (conflict)
                    dl->AddRect(ImVec2(ca.x - 1, ca.y - 1), ImVec2(cz.x + 1, cz.y + 1),
                                colors::poor, 2 * s, 0, 2 * s);
                if (lane_numbers) {
                    char n[4];
                    std::snprintf(n, sizeof n, "%d", __builtin_ctz(bw.lanes));
                    const float tw = f->CalcTextSizeA(f->FontSize, 1e9f, 0, n).x;
                    dl->AddText(f, f->FontSize,
                                ImVec2(ca.x + (cz.x - ca.x - tw) * 0.5f,
                                       ca.y + (cz.y - ca.y - f->FontSize) * 0.5f),
                                colors::ink, n);
                }
            }
        }
    }
    ImGui::Dummy(ImVec2(label_w + 32 * col_w, float(sm.rows) * row_h));
    if (c.follow && c.step_changed && lit_lo != ~0ull) {
        const float top = float(lit_lo) * row_h, bottom = float(lit_hi + 1) * row_h;
        if (top < ImGui::GetScrollY() || bottom > ImGui::GetScrollY() + ImGui::GetWindowHeight())
            ImGui::SetScrollY(std::max(0.0f, top - row_h));
    }
    ImGui::EndChild();
}

}  // namespace

void draw_shared_view(ViewContext& c) {
    const float s = fonts().scale;
    const auto& sm = c.views->shared;
    view_heading("Shared memory", "32 banks of 4-byte words: bank = (address / 4) mod 32");
    if (!sm.used) {
        draw_shared_unused();
        return;
    }
    if (!c.block()) {
        draw_no_trace("No block was traced in full.");
        return;
    }
    current_step_card(c);
    draw_shared_summary(c);
    SharedLayout g;
    g.label_w = 64 * s;
    g.col_w = std::clamp(std::floor((ImGui::GetContentRegionAvail().x - g.label_w - 4 * s) / 32.0f),
                         8 * s, 30 * s);
    draw_banks(c, g);
    draw_shared_rows(c, g);
}

}  // namespace cudalab::gui
