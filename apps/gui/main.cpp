// cudalab-gui: the visual engine. `cudalab gui [options]` runs this program with the same
// arguments. With no display it says so and opens the terminal lesson (`cudalab learn ID`).
//
//   cudalab gui [--lesson ID] [--view
//   grid|warps|memory|shared|timeline|hierarchy|streams|graph|pages]
//               [--screenshot FILE.png --frames N] [--trace FILE [--source FILE.cu]] [--timeline
//               FILE.json]
//               [--launch N] [--block N] [--step N] [--find KIND] [--play [--speed N]] [--solution]
//               [--backend emu|gpu|auto] [--lang en|zh]
//
// Exit codes: 0 closed normally / screenshot written; 2 bad usage, no display for a screenshot,
// or the screenshot could not be written.
#include <CLI/CLI.hpp>
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <numeric>
#include <unistd.h>
#include <vector>

#include "app.h"
#include "lessons/course.h"
#include "lessons/progress.h"
#include "lessons/translation.h"
#include "shell/fonts.h"
#include "shell/window.h"

namespace fs = std::filesystem;
using namespace cudalab;

namespace {

std::string self_dir() {
    std::error_code ec;
    fs::path p = fs::read_symlink("/proc/self/exe", ec);
    return ec ? std::string(".") : p.parent_path().string();
}

// No display: the terminal lesson instead, by running the CLI (it sits next to this program).
int terminal_fallback(const std::string& why, const std::string& lesson, const std::string& lang) {
    // At a terminal, keep watching the exercise as the window would; in a script, check once.
    const bool interactive = ::isatty(0) && ::isatty(1);
    std::fprintf(stderr,
                 "cudalab gui: %s.\ncudalab gui: opening the lesson in the terminal instead "
                 "(cudalab learn %s%s).\n",
                 why.c_str(), lesson.c_str(), interactive ? " --watch" : "");
    std::fflush(stderr);
    const std::string cli = (fs::path(self_dir()) / "cudalab").string();
    std::vector<std::string> args = {cli, "learn", lesson};
    if (interactive) args.push_back("--watch");
    if (!lang.empty()) args.push_back("--lang=" + lang);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(cli.c_str(), argv.data());
    std::fprintf(stderr, "cudalab gui: could not run %s: %s\n", cli.c_str(), std::strerror(errno));
    return 2;
}

struct FrameStats {
    std::vector<double> ms;
    void add(double v) { ms.push_back(v); }
    double mean() const {
        return ms.empty() ? 0 : std::accumulate(ms.begin(), ms.end(), 0.0) / double(ms.size());
    }
    std::string summary() const {
        if (ms.empty()) return "no frames";
        std::vector<double> v = ms;
        std::sort(v.begin(), v.end());
        const double mean = std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
        auto pct = [&](double q) {
            return v[std::min(v.size() - 1, std::size_t(q * double(v.size() - 1) + 0.5))];
        };
        char buf[200];
        std::snprintf(buf, sizeof buf,
                      "%zu frames: mean %.2f ms (%.0f fps), median %.2f ms, 95th percentile %.2f "
                      "ms, worst %.2f ms",
                      v.size(), mean, 1000.0 / std::max(1e-9, mean), pct(0.5), pct(0.95), v.back());
        return buf;
    }
};

}  // namespace

int main(int argc, char** argv) {
    CLI::App cli{"cudalab-gui: the lesson, your kernel and what it did, drawn"};
    gui::AppOptions options;
    std::string screenshot, crop;
    int frames = 0;
    int width = 1600, height = 1000;
    float scale = 0;
    double exit_after = 0;
    std::int64_t block = -1;
    int launch = 0;
    std::uint64_t seed = 0;
    cli.add_option("--lesson,lesson", options.lesson, "lesson id (default 01-threads)");
    cli.add_option("--view", options.view,
                   "view to open: grid, warps, memory, shared, timeline, hierarchy; for a "
                   "program lesson streams, graph, pages")
        ->check(CLI::IsMember({"grid", "warps", "memory", "shared", "timeline", "hierarchy",
                               "streams", "graph", "pages"}));
    cli.add_option("--screenshot", screenshot, "render, write this PNG and exit (needs --frames)");
    cli.add_option("--crop", crop, "with --screenshot: 'views' keeps only the views column")
        ->check(CLI::IsMember({"views"}));
    cli.add_option("--frames", frames,
                   "frames to render before the screenshot / exiting (prints frame times)");
    cli.add_option("--trace", options.trace_file,
                   "view a trace saved by `cudalab exec --trace` instead of a lesson");
    cli.add_option("--timeline", options.timeline_file,
                   "view a whole program's timeline saved by `cudalab run --timeline` (streams, "
                   "graph, pages) instead of a lesson");
    cli.add_option("--source", options.source_file,
                   "with --lesson: check this file instead of the exercise (progress is not "
                   "recorded); with --trace: the "
                   "kernel source it ran");
    cli.add_option("--launch", launch,
                   "show launch N of the lesson (1-based, as the check report numbers them); "
                   "default: the launch the first "
                   "failing check measured; a program lesson: trace the program's launch N and "
                   "open the kernel views on it")
        ->check(CLI::PositiveNumber);
    auto* seed_option = cli.add_option(
        "--seed", seed, "seed of the lesson's random inputs (default: new ones each run)");
    cli.add_option("--block", block, "trace this block (linear id) in full and open it");
    cli.add_option("--step", options.step, "start at this step of the open block (0-based)");
    cli.add_option("--find", options.find,
                   "then go to the first step of a kind: global, shared, conflict, barrier, "
                   "divergence, exit")
        ->check(CLI::IsMember({"global", "shared", "conflict", "barrier", "divergence", "exit"}));
    cli.add_flag("--play", options.play, "start playing");
    cli.add_option("--speed", options.speed, "playback speed in steps per second (default 30)");
    cli.add_flag("--solution", options.solution,
                 "check and show the reference solution (read-only)");
    cli.add_option("--backend", options.backend,
                   "emu (default: the views need its trace), gpu or auto")
        ->check(CLI::IsMember({"emu", "gpu", "auto"}));
    cli.add_option("--width", width, "window width in screen coordinates (default 1600)");
    cli.add_option("--height", height, "window height (default 1000)");
    cli.add_option("--scale", scale, "UI scale (default: the monitor's content scale)");
    cli.add_option("--exit-after", exit_after, "close after this many seconds (for measurements)");
    std::string lang;
    cli.add_option(
           "--lang", lang,
           "language of lesson texts and hints: en or zh (default: $CUDALAB_LANG, else the locale)")
        ->check(CLI::IsMember({"en", "zh"}))
        // `cudalab --lang zh gui ... --lang en`: the last
        ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
    std::string course_dir;
    cli.add_option("--course", course_dir,
                   "read the course in DIR instead of the built-in one (default: $CUDALAB_COURSE)");
    try {
        cli.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        int rc = cli.exit(e);
        return rc == 0 ? 0 : 2;
    }
    // As `cudalab --course DIR`: the course is found through $CUDALAB_COURSE wherever it is loaded.
    if (!course_dir.empty()) {
        std::error_code ec;
        const std::filesystem::path abs = std::filesystem::absolute(course_dir, ec);
        ::setenv("CUDALAB_COURSE",
                 (ec ? std::filesystem::path(course_dir) : abs).lexically_normal().string().c_str(),
                 1);
    }
    if (block >= 0) options.block = std::uint32_t(block);
    options.launch = launch - 1;
    if (seed_option->count() > 0) options.seed = seed;
    if (!screenshot.empty() && frames <= 0) frames = 3;

    lessons::Course course;
    Status st = lessons::load_course(lessons::find_course_root(), &course);
    if (!st.ok() && options.trace_file.empty()) {
        std::fprintf(stderr, "cudalab gui: cannot read the course: %s\n", st.message.c_str());
        return 2;
    }
    if (options.trace_file.empty() && !options.source_file.empty() &&
        !fs::exists(options.source_file)) {
        std::fprintf(stderr, "cudalab gui: --source %s: no such file\n",
                     options.source_file.c_str());
        return 2;
    }
    if (options.trace_file.empty() && !course.resolve(options.lesson)) {
        std::fprintf(stderr, "cudalab gui: no lesson '%s'. The lessons are: %s\n",
                     options.lesson.c_str(), course.ids().c_str());
        return 2;
    }

    const lessons::LanguageChoice language = lessons::choose_language(lang);
    if (!language.warning.empty())
        std::fprintf(stderr, "cudalab gui: warning: %s\n", language.warning.c_str());
    options.lang = language.lang;
    if (options.lang == "zh") {
        // The font atlas holds only the Chinese characters it needs: those of every lesson's
        // Chinese text and hints (any lesson may be opened), the app's own, and a common set.
        std::string texts = "提示 / ";
        for (const auto& l : course.lessons) {
            const lessons::LessonText t = lessons::lesson_text(l, "zh");
            if (t.lang == "zh") texts += t.markdown + "\n";
            for (const auto& h : t.hints) texts += h + "\n";
        }
        gui::set_cjk_texts(std::move(texts));
    }

    gui::Window window;
    gui::WindowOptions wo;
    wo.width = width;
    wo.height = height;
    wo.scale = scale;
    wo.vsync = frames == 0;  // measured runs draw as fast as they can
    wo.title = "cudalab";
    std::string why;
    if (!window.open(wo, &why)) {
        if (!screenshot.empty() || frames > 0) {
            std::fprintf(
                stderr,
                "cudalab gui: %s; cannot render (run under xvfb-run for a virtual display)\n",
                why.c_str());
            return 2;
        }
        return terminal_fallback(why, options.lesson, lang);
    }
    if (frames > 0) std::printf("cudalab-gui: renderer %s\n", window.renderer().c_str());
    if (frames > 0 && !gui::cjk_font_summary().empty())
        std::printf("cudalab-gui: %s\n", gui::cjk_font_summary().c_str());

    gui::App app(options, course);
    if (frames > 0 && !app.wait_for_first_outcome(120))
        std::fprintf(stderr, "cudalab gui: the first check did not finish in time\n");

    using clock = std::chrono::steady_clock;
    const auto started = clock::now();
    FrameStats stats, ui_ms, render_ms, present_ms;
    double vertices = 0;
    int frame = 0;
    auto last = clock::now();
    auto ms_since = [](clock::time_point a, clock::time_point b) {
        return std::chrono::duration<double, std::milli>(b - a).count();
    };
    int settle = 3;  // frames still to draw after the last input (ImGui settles hover and layout)
    auto last_drawn = clock::now();
    while (!window.should_close() && !app.quit_requested()) {
        if (exit_after > 0 &&
            std::chrono::duration<double>(clock::now() - started).count() > exit_after)
            break;
        // Idle when nothing moves: wait for input (waking 40 times a second to watch the file; a
        // finished check wakes it at once), and draw only when something changed, a little after
        // input, or twice a second.
        const bool measured = frames > 0;
        // Animating: at most 60 frames a second even without vsync (Xvfb, some drivers).
        const double since_drawn = std::chrono::duration<double>(clock::now() - last_drawn).count();
        const double wait = measured     ? 0
                            : app.busy() ? std::max(0.0, 1.0 / 60.0 - since_drawn)
                                         : 0.025;
        const bool input = window.wait_for_input(wait);
        const bool changed = app.tick();
        if (input || changed) settle = 3;
        if (!measured && !app.busy() && settle == 0 &&
            std::chrono::duration<double>(clock::now() - last_drawn).count() < 0.5)
            continue;
        settle = std::max(0, settle - 1);
        last_drawn = clock::now();
        const auto t0 = clock::now();
        window.begin_frame();
        const std::vector<gui::KeyPress> keys = window.take_key_presses();
        app.frame(keys);
        const auto t1 = clock::now();
        window.end_frame();
        if (frames > 0) window.finish();  // measured runs: charge the rasteriser to its frame
        const auto t2 = clock::now();
        ++frame;
        const bool last_frame = frames > 0 && frame >= frames;
        if (std::any_of(keys.begin(), keys.end(),
                        [](const gui::KeyPress& k) { return k.key == GLFW_KEY_F12; })) {
            // F12: a picture of this frame, in the working directory.
            char name[64];
            const std::time_t now_t = std::time(nullptr);
            std::strftime(name, sizeof name, "cudalab-%Y%m%d-%H%M%S.png", std::localtime(&now_t));
            std::string err;
            if (window.save_png(name, &err)) std::printf("cudalab-gui: wrote %s\n", name);
            else std::fprintf(stderr, "cudalab gui: %s\n", err.c_str());
            std::fflush(stdout);
        }
        if (last_frame && !screenshot.empty()) {
            std::string err;
            if (!window.save_png(screenshot, &err, crop == "views" ? app.views_rect() : nullptr)) {
                std::fprintf(stderr, "cudalab gui: %s\n", err.c_str());
                return 2;
            }
        }
        window.present();
        app.after_present();
        const auto now = clock::now();
        if (frames > 0 && frame > 1) {
            stats.add(ms_since(last, now));
            ui_ms.add(ms_since(t0, t1));
            render_ms.add(ms_since(t1, t2));
            present_ms.add(ms_since(t2, now));
            vertices += window.last_vertex_count();
        }
        last = now;
        if (last_frame) break;
    }
    if (frames > 0) {
        std::printf("cudalab-gui: %s\n", app.status_line().c_str());
        std::printf("cudalab-gui: frame time over %s\n", stats.summary().c_str());
        if (!ui_ms.ms.empty())
            std::printf("cudalab-gui: per frame: UI %.2f ms, drawing %.2f ms, presenting %.2f ms; "
                        "%.0f vertices\n",
                        ui_ms.mean(), render_ms.mean(), present_ms.mean(),
                        vertices / double(ui_ms.ms.size()));
        if (!screenshot.empty()) std::printf("cudalab-gui: wrote %s\n", screenshot.c_str());
    }
    return 0;
}
