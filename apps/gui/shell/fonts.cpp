#include "shell/fonts.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <vector>

#include "shell/theme.h"

namespace fs = std::filesystem;

namespace cudalab::gui {

namespace {

// Latin, Greek, punctuation, arrows, maths, box drawing, shapes and dingbats (✓ ✗): what lesson
// texts and the UI's symbols use.
// Pairs of first and last code point, ending in 0.
// clang-format off
const ImWchar kTextRanges[] = {
    0x0020, 0x00FF,  0x0100, 0x017F,  0x0370, 0x03FF,  0x2000, 0x206F,  0x2070, 0x209F,
    0x20A0, 0x20CF,  0x2100, 0x214F,  0x2190, 0x21FF,  0x2200, 0x22FF,  0x2300, 0x23FF,
    0x2500, 0x257F,  0x2580, 0x259F,  0x25A0, 0x25FF,  0x2600, 0x26FF,  0x2700, 0x27BF,  0,
};
const ImWchar kCodeRanges[] = {
    0x0020, 0x00FF,  0x0100, 0x017F,  0x2000, 0x206F,  0x2190, 0x21FF,  0x2200, 0x22FF,
    0x2500, 0x257F,  0,
};
// clang-format on

std::string font_dir() {
    if (const char* d = std::getenv("CUDALAB_FONT_DIR"); d && *d) return d;
    for (const char* d : {"/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/dejavu",
                          "/usr/share/fonts/TTF", "/usr/local/share/fonts/dejavu"})
        if (fs::exists(fs::path(d) / "DejaVuSans.ttf")) return d;
    return "/usr/share/fonts/truetype/dejavu";
}

// [SECTION] Chinese (CJK) glyphs

std::string g_cjk_texts;
bool g_cjk_wanted = false;
std::string g_cjk_summary;

struct CjkFile {
    std::string path;
    int index = 0;
};

// Runs fc-match for `pattern` and keeps its answer only when the font covers Simplified Chinese:
// fc-match always answers with some font (DejaVu when no CJK font is installed).
std::optional<CjkFile> fc_match(const std::string& pattern) {
    const std::string command =
        "fc-match -f '%{file}\\n%{index}\\n%{lang}\\n' '" + pattern + "' 2>/dev/null";
    FILE* pipe = ::popen(command.c_str(), "r");
    if (!pipe) return std::nullopt;
    std::string out;
    char buf[4096];
    while (std::size_t n = std::fread(buf, 1, sizeof buf, pipe)) out.append(buf, n);
    ::pclose(pipe);
    const std::size_t a = out.find('\n'), b = a == std::string::npos ? a : out.find('\n', a + 1);
    if (b == std::string::npos) return std::nullopt;
    CjkFile f{out.substr(0, a), std::atoi(out.substr(a + 1, b - a - 1).c_str())};
    std::string langs = "|";  // "|aa|af|...|zh-cn|...|": a token per language
    langs.append(out, b + 1, out.find('\n', b + 1) - b - 1);
    langs += '|';
    std::error_code ec;
    if (langs.find("|zh-cn|") == std::string::npos || !fs::exists(f.path, ec)) return std::nullopt;
    return f;
}

std::optional<CjkFile> find_cjk_font(bool bold) {
    std::error_code ec;
    if (const char* e = std::getenv("CUDALAB_CJK_FONT"); e && *e) {
        const std::string v = e;
        CjkFile f{v, 0};
        const std::size_t colon = v.rfind(':');
        if (colon != std::string::npos && colon + 1 < v.size() &&
            v.find_first_not_of("0123456789", colon + 1) == std::string::npos) {
            f.path = v.substr(0, colon);
            f.index = std::atoi(v.c_str() + colon + 1);
        }
        if (fs::exists(f.path, ec)) return f;
        return std::nullopt;
    }
    if (auto f = fc_match(std::string("Noto Sans CJK SC:lang=zh-cn") + (bold ? ":bold" : "")))
        return f;
    // No fontconfig tools: where Debian's fonts-noto-cjk puts them (SC is face 2 of the
    // collection).
    const char* name = bold ? "NotoSansCJK-Bold.ttc" : "NotoSansCJK-Regular.ttc";
    for (const char* d : {"/usr/share/fonts/opentype/noto", "/usr/share/fonts/noto-cjk",
                          "/usr/share/fonts/google-noto-cjk"})
        if (fs::exists(fs::path(d) / name, ec)) return CjkFile{(fs::path(d) / name).string(), 2};
    return std::nullopt;
}

// A font collection read once and shared by every font it is merged into (ImGui would otherwise
// read the 20 MB file again for each).
struct CjkFace {
    CjkFile file;
    std::vector<char> bytes;
};

bool load_face(const CjkFile& file, CjkFace* face) {
    if (face->file.path == file.path && face->file.index == file.index && !face->bytes.empty())
        return true;
    std::ifstream in(file.path, std::ios::binary);
    face->bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    face->file = file;
    return !face->bytes.empty();
}

// The glyph ranges the CJK faces are merged with; they must live until the atlas is built.
struct CjkRanges {
    ImVector<ImWchar> all;       // the common simplified set and every character the texts use
    ImVector<ImWchar> used;      // the characters the texts use
    ImVector<ImWchar> headings;  // the characters of the texts' headings
};

void build_ranges(const std::string& texts, CjkRanges* r) {
    // CJK punctuation (、。「」…) and the full-width forms (，：（）…) with every set; general
    // punctuation (“ ” — …) comes from DejaVu, which has it.
    static const ImWchar punctuation[] = {0x3000, 0x303F, 0xFF00, 0xFF65, 0};
    std::string headings;
    for (std::size_t at = 0; at < texts.size();) {
        std::size_t end = texts.find('\n', at);
        if (end == std::string::npos) end = texts.size();
        if (texts.compare(at, 1, "#") == 0) headings += texts.substr(at, end - at) + "\n";
        at = end + 1;
    }
    ImFontGlyphRangesBuilder all, used, head;
    for (auto* b : {&all, &used, &head}) b->AddRanges(punctuation);
    all.AddRanges(ImGui::GetIO().Fonts->GetGlyphRangesChineseSimplifiedCommon());
    all.AddText(texts.c_str());
    used.AddText(texts.c_str());
    head.AddText(headings.c_str());
    *r = CjkRanges{};
    all.BuildRanges(&r->all);
    used.BuildRanges(&r->used);
    head.BuildRanges(&r->headings);
}

std::size_t range_glyphs(const ImVector<ImWchar>& r) {
    std::size_t n = 0;
    for (int k = 0; k + 1 < r.Size; k += 2) n += std::size_t(r[k + 1] - r[k] + 1);
    return n;
}

}  // namespace

void set_cjk_texts(std::string texts) {
    g_cjk_texts = std::move(texts);
    g_cjk_wanted = true;
}

const std::string& cjk_font_summary() { return g_cjk_summary; }

bool load_fonts(float scale, std::string* warning) {
    ImGuiIO& io = ImGui::GetIO();
    io.Fonts->Clear();
    Fonts& f = fonts();
    f.scale = scale;
    const std::string dir = font_dir();
    auto path = [&](const char* name) { return (fs::path(dir) / name).string(); };
    for (const char* required :
         {"DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSans-Oblique.ttf",
          "DejaVuSans-BoldOblique.ttf", "DejaVuSansMono.ttf", "DejaVuSansMono-Bold.ttf"}) {
        if (!fs::exists(path(required))) {
            if (warning)
                *warning = "cudalab-gui: " + path(required) +
                           " not found (install fonts-dejavu-core, or set CUDALAB_FONT_DIR); using "
                           "ImGui's built-in font";
            ImFontConfig cfg;
            cfg.SizePixels = 13.0f * scale;
            ImFont* d = io.Fonts->AddFontDefault(&cfg);
            f.ui = f.ui_bold = f.ui_italic = f.ui_bold_italic = f.small = f.mono = f.mono_bold =
                f.mono_small = f.h1 = f.h2 = f.h3 = d;
            return false;
        }
    }
    // Chinese: found and read before the fonts are added, because ImGui merges a face into the
    // font added just before it.
    static CjkFace cjk_regular, cjk_bold;
    static CjkRanges cjk_ranges;
    bool cjk = false;
    std::string cjk_note;
    if (g_cjk_wanted) {
        const auto regular = find_cjk_font(false);
        const auto bold = find_cjk_font(true);
        if (!regular) {
            cjk_note = "cudalab-gui: note: no Chinese font found (install fonts-noto-cjk, or set "
                       "CUDALAB_CJK_FONT=FILE[:INDEX]); "
                       "Chinese text shows as '?'";
        } else if (!load_face(*regular, &cjk_regular)) {
            cjk_note =
                "cudalab-gui: note: cannot read " + regular->path + "; Chinese text shows as '?'";
        } else {
            cjk = true;
            if (!bold || !load_face(*bold, &cjk_bold)) cjk_bold = cjk_regular;
            build_ranges(g_cjk_texts, &cjk_ranges);
        }
        g_cjk_summary = cjk ? "" : "no Chinese font";
    }
    enum class Cjk { all, used, headings };
    ImFontConfig cfg;
    cfg.OversampleH = 2;
    cfg.OversampleV = 1;
    cfg.PixelSnapH = false;
    auto add = [&](const char* name, float size, const ImWchar* ranges, Cjk which = Cjk::used) {
        ImFont* font = io.Fonts->AddFontFromFileTTF(path(name).c_str(), std::round(size * scale),
                                                    &cfg, ranges);
        if (cjk && font) {
            const bool bold = std::string(name).find("Bold") != std::string::npos;
            CjkFace& face = bold ? cjk_bold : cjk_regular;
            const ImVector<ImWchar>& r = which == Cjk::all    ? cjk_ranges.all
                                         : which == Cjk::used ? cjk_ranges.used
                                                              : cjk_ranges.headings;
            ImFontConfig m;
            m.MergeMode = true;
            // ImGui copies font data it does not own, once per font: 20 MB for each of the 11
            // merges. Lent as "owned" instead, so the one copy in `face` serves them all; it is
            // taken back right after the build below, so ImGui never frees it.
            m.FontDataOwnedByAtlas = true;
            m.FontNo = face.file.index;
            // ideographs are dense already; oversampling them would double the atlas
            m.OversampleH = 1;
            m.OversampleV = 1;
            m.PixelSnapH = true;
            // At one pixel size Noto CJK's ideographs come out a fifth smaller than DejaVu's
            // letters (its ascent and descent span more of the em); enlarged to match. The
            // baseline stays DejaVu's: ImGui places merged glyphs on the font they join.
            io.Fonts->AddFontFromMemoryTTF(face.bytes.data(), int(face.bytes.size()),
                                           std::round(size * scale * 1.18f), &m, r.Data);
        }
        return font;
    };
    f.ui = add("DejaVuSans.ttf", 15.0f, kTextRanges, Cjk::all);  // first: ImGui's default font
    f.ui_bold = add("DejaVuSans-Bold.ttf", 15.0f, kTextRanges);
    f.ui_italic = add("DejaVuSans-Oblique.ttf", 15.0f, kTextRanges);
    f.ui_bold_italic = add("DejaVuSans-BoldOblique.ttf", 15.0f, kTextRanges);
    f.small = add("DejaVuSans.ttf", 12.5f, kTextRanges);
    f.mono = add("DejaVuSansMono.ttf", 14.0f, kCodeRanges,
                 Cjk::all);  // the editor: a learner may type Chinese comments
    f.mono_bold = add("DejaVuSansMono-Bold.ttf", 14.0f, kCodeRanges);
    f.mono_small = add("DejaVuSansMono.ttf", 11.5f, kCodeRanges);
    f.h1 = add("DejaVuSans-Bold.ttf", 24.0f, kTextRanges, Cjk::headings);
    f.h2 = add("DejaVuSans-Bold.ttf", 19.0f, kTextRanges, Cjk::headings);
    f.h3 = add("DejaVuSans-Bold.ttf", 16.5f, kTextRanges, Cjk::headings);
    if (cjk) {
        io.Fonts->Build();
        for (ImFontConfig& c : io.Fonts->ConfigData)
            if (c.FontData == cjk_regular.bytes.data() || c.FontData == cjk_bold.bytes.data()) {
                c.FontData = nullptr;  // the atlas is built: nothing reads the font data again
                c.FontDataSize = 0;
                c.FontDataOwnedByAtlas = false;
            }
        // 40 MB that the built atlas no longer needs.
        cjk_regular.bytes = std::vector<char>();
        cjk_bold.bytes = std::vector<char>();
        int glyphs = 0;
        for (const ImFont* font : io.Fonts->Fonts) glyphs += font->Glyphs.Size;
        char summary[700];
        std::snprintf(summary, sizeof summary,
                      "Chinese font %s:%d merged (%zu characters and punctuation from the texts); "
                      "%d glyphs in 11 fonts, atlas %dx%d",
                      cjk_regular.file.path.c_str(), cjk_regular.file.index,
                      range_glyphs(cjk_ranges.used), glyphs, io.Fonts->TexWidth,
                      io.Fonts->TexHeight);
        g_cjk_summary = summary;
    }
    if (!cjk_note.empty()) {
        if (warning) *warning = cjk_note;
        return false;
    }
    return true;
}

}  // namespace cudalab::gui
