// The fonts: DejaVu from the system (Debian: fonts-dejavu-core), never copied into the repo,
// rasterised at the UI scale so text stays crisp on HiDPI screens. $CUDALAB_FONT_DIR overrides
// the folder. Without the fonts, ImGui's built-in font is used and a warning says so.
#pragma once

#include <string>

namespace cudalab::gui {

// Builds the font atlas into fonts(). Returns false (with a warning) when it fell back.
bool load_fonts(float scale, std::string* warning);

// Chinese lesson texts (--lang zh): before load_fonts, the texts the app will show (every
// lesson's lesson.zh.md and hints_zh, the app's own Chinese strings). load_fonts then merges Noto
// Sans CJK SC (Debian: fonts-noto-cjk; $CUDALAB_CJK_FONT=FILE[:INDEX] overrides, else fontconfig,
// else Debian's path) into the fonts: the body text and code fonts get the common simplified
// characters (GB2312's about 2500) plus every character of `texts`, the others only what `texts`
// use, which keeps the atlas small. Without a CJK font: a one-line note, and the text shows as
// '?' boxes.
void set_cjk_texts(std::string texts);

// What the CJK merge did, for the status line and --frames output: "Noto Sans CJK SC
// (/usr/share/.../NotoSansCJK-Regular.ttc:2), 3120 glyphs, atlas 2048x2048"; empty when not asked.
const std::string& cjk_font_summary();

}  // namespace cudalab::gui
