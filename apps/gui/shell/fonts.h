// The fonts: DejaVu from the system (Debian: fonts-dejavu-core), never copied into the repo,
// rasterised at the UI scale so text stays crisp on HiDPI screens. $CUDALAB_FONT_DIR overrides
// the folder. Without the fonts, ImGui's built-in font is used and a warning says so.
#pragma once

#include <string>

namespace cudalab::gui {

// Builds the font atlas into fonts(). Returns false (with a warning) when it fell back.
bool load_fonts(float scale, std::string* warning);

}  // namespace cudalab::gui
