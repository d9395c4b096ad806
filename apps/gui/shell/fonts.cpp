#include "shell/fonts.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>

#include "shell/theme.h"

namespace fs = std::filesystem;

namespace cudalab::gui {

namespace {

// Latin, Greek, punctuation, arrows, maths, box drawing, shapes and dingbats (✓ ✗): what lesson
// texts and the UI's symbols use.
const ImWchar kTextRanges[] = {
    0x0020, 0x00FF, 0x0100, 0x017F, 0x0370, 0x03FF, 0x2000, 0x206F, 0x2070, 0x209F, 0x20A0, 0x20CF,
    0x2100, 0x214F, 0x2190, 0x21FF, 0x2200, 0x22FF, 0x2300, 0x23FF, 0x2500, 0x257F, 0x2580, 0x259F,
    0x25A0, 0x25FF, 0x2600, 0x26FF, 0x2700, 0x27BF, 0,
};
const ImWchar kCodeRanges[] = {
    0x0020, 0x00FF, 0x0100, 0x017F, 0x2000, 0x206F, 0x2190, 0x21FF, 0x2200, 0x22FF, 0x2500, 0x257F, 0,
};

std::string font_dir() {
    if (const char* d = std::getenv("CUDALAB_FONT_DIR"); d && *d) return d;
    for (const char* d : {"/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/dejavu", "/usr/share/fonts/TTF",
                          "/usr/local/share/fonts/dejavu"})
        if (fs::exists(fs::path(d) / "DejaVuSans.ttf")) return d;
    return "/usr/share/fonts/truetype/dejavu";
}

}  // namespace

bool load_fonts(float scale, std::string* warning) {
    ImGuiIO& io = ImGui::GetIO();
    io.Fonts->Clear();
    Fonts& f = fonts();
    f.scale = scale;
    const std::string dir = font_dir();
    auto path = [&](const char* name) { return (fs::path(dir) / name).string(); };
    for (const char* required : {"DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSans-Oblique.ttf",
                                 "DejaVuSans-BoldOblique.ttf", "DejaVuSansMono.ttf", "DejaVuSansMono-Bold.ttf"}) {
        if (!fs::exists(path(required))) {
            if (warning) *warning = "cudalab-gui: " + path(required) + " not found (install fonts-dejavu-core, or set CUDALAB_FONT_DIR); using ImGui's built-in font";
            ImFontConfig cfg;
            cfg.SizePixels = 13.0f * scale;
            ImFont* d = io.Fonts->AddFontDefault(&cfg);
            f.ui = f.ui_bold = f.ui_italic = f.ui_bold_italic = f.small = f.mono = f.mono_bold = f.mono_small = f.h1 = f.h2 = f.h3 = d;
            return false;
        }
    }
    ImFontConfig cfg;
    cfg.OversampleH = 2;
    cfg.OversampleV = 1;
    cfg.PixelSnapH = false;
    auto add = [&](const char* name, float size, const ImWchar* ranges) {
        return io.Fonts->AddFontFromFileTTF(path(name).c_str(), std::round(size * scale), &cfg, ranges);
    };
    f.ui = add("DejaVuSans.ttf", 15.0f, kTextRanges);  // first: ImGui's default font
    f.ui_bold = add("DejaVuSans-Bold.ttf", 15.0f, kTextRanges);
    f.ui_italic = add("DejaVuSans-Oblique.ttf", 15.0f, kTextRanges);
    f.ui_bold_italic = add("DejaVuSans-BoldOblique.ttf", 15.0f, kTextRanges);
    f.small = add("DejaVuSans.ttf", 12.5f, kTextRanges);
    f.mono = add("DejaVuSansMono.ttf", 14.0f, kCodeRanges);
    f.mono_bold = add("DejaVuSansMono-Bold.ttf", 14.0f, kCodeRanges);
    f.mono_small = add("DejaVuSansMono.ttf", 11.5f, kCodeRanges);
    f.h1 = add("DejaVuSans-Bold.ttf", 24.0f, kTextRanges);
    f.h2 = add("DejaVuSans-Bold.ttf", 19.0f, kTextRanges);
    f.h3 = add("DejaVuSans-Bold.ttf", 16.5f, kTextRanges);
    return true;
}

}  // namespace cudalab::gui
