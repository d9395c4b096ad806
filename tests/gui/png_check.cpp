// Checks that a screenshot of cudalab-gui shows something: enough distinct colours, enough pixels
// that are not the window background, and content in each of the three columns (lesson, code,
// views), so a blank, black or half-drawn frame fails.
//
//   cudalab_gui_png_check FILE.png [--min-colors N] [--min-foreground F]
#include <stb_image.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <set>
#include <string>

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: %s FILE.png [--min-colors N] [--min-foreground F]\n", argv[0]);
        return 2;
    }
    int min_colors = 200;
    double min_foreground = 0.08;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--min-colors")) min_colors = std::atoi(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--min-foreground")) min_foreground = std::atof(argv[i + 1]);
    }
    int w = 0, h = 0, n = 0;
    unsigned char* px = stbi_load(argv[1], &w, &h, &n, 3);
    if (!px) {
        std::fprintf(stderr, "FAIL: cannot read %s: %s\n", argv[1], stbi_failure_reason());
        return 1;
    }
    std::set<unsigned> colors;
    std::size_t counts[3] = {0, 0, 0}, totals[3] = {0, 0, 0};
    auto at = [&](int x, int y) {
        const unsigned char* p = px + (std::size_t(y) * std::size_t(w) + std::size_t(x)) * 3;
        return unsigned(p[0]) << 16 | unsigned(p[1]) << 8 | unsigned(p[2]);
    };
    // The window background and the panels' backgrounds (theme.cpp) count as empty.
    const std::set<unsigned> empty = {0x181b21, 0x121419, 0x15171c, 0x14161b, 0x1b1e25, 0x000000};
    std::size_t foreground = 0;
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const unsigned c = at(x, y);
            colors.insert(c);
            const int column = x < w * 26 / 100 ? 0 : x < w * 60 / 100 ? 1 : 2;
            ++totals[column];
            if (!empty.count(c)) {
                ++foreground;
                ++counts[column];
            }
        }
    stbi_image_free(px);
    const double fraction = double(foreground) / double(std::size_t(w) * std::size_t(h));
    std::printf("%s: %dx%d, %zu distinct colours, %.1f%% foreground (lesson %.1f%%, code %.1f%%, "
                "views %.1f%%)\n",
                argv[1], w, h, colors.size(), 100 * fraction,
                100.0 * double(counts[0]) / double(totals[0]),
                100.0 * double(counts[1]) / double(totals[1]),
                100.0 * double(counts[2]) / double(totals[2]));
    bool ok = true;
    if (int(colors.size()) < min_colors) {
        std::printf("FAIL: fewer than %d distinct colours\n", min_colors);
        ok = false;
    }
    if (fraction < min_foreground) {
        std::printf("FAIL: less than %.0f%% of the pixels are drawn\n", 100 * min_foreground);
        ok = false;
    }
    for (int c = 0; c < 3; ++c)
        if (double(counts[c]) / double(totals[c]) < min_foreground / 4) {
            std::printf("FAIL: column %d (lesson, code, views) is nearly empty\n", c);
            ok = false;
        }
    return ok ? 0 : 1;
}
