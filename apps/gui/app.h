// The cudalab app: one lesson open at a time, three columns (the lesson, the learner's code, the
// views of the last run) split by draggable splitters, a toolbar and a status bar. It asks the
// check worker to compile, run and check; it draws what comes back. It computes no metric itself.
//
// [SECTION] index of the app's files
//   app.cpp                   frame, layout, shortcuts, outcomes, file watching
//   panels/lesson_panel.cpp   lesson list with progress, text, hints, check results
//   panels/code_panel.cpp     the exercise: colours, line numbers, figures, errors, editing
//   panels/markdown_view.cpp  md4c document -> laid-out text
//   views/*.cpp               grid, warps, memory, shared, timeline, hierarchy, playback bar
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <imgui.h>

#include "lessons/course.h"
#include "lessons/progress.h"
#include "lessons/translation.h"  // the lesson text and hints in the chosen language
#include "panels/markdown_view.h"
#include "shell/window.h"
#include "viewmodel/check_runner.h"
#include "viewmodel/exercise_files.h"
#include "viewmodel/syntax.h"
#include "views/streams_view.h"
#include "views/view_context.h"

namespace cudalab::gui {

struct CodeLayout;  // panels/code_panel.cpp

struct AppOptions {
    std::string lesson = "01-threads";
    std::string view;           // the view to open; empty: the lesson's first
    std::string trace_file;     // view a saved trace instead of running a lesson
    std::string timeline_file;  // view a whole program's saved timeline (cudalab run --timeline)
    std::string source_file;    // with --trace: the kernel source it ran; with a lesson: check this
                                // file instead of the exercise (progress is not recorded)
    std::optional<std::uint32_t> block;  // trace this block in full and open it
    bool solution = false;               // check the reference solution (read-only)
    std::string backend = "emu";
    bool play = false;       // start playing
    double speed = 30;       // steps per second
    std::int64_t step = -1;  // start at this step
    std::string find;        // then go on to the first step of this kind (see seek_first)
    int launch = -1;  // show this launch (0-based); -1: the one the first failing check measured
    std::optional<std::uint64_t> seed;  // the lesson inputs' seed (--seed): the same run every time
    std::string lang = "en";  // lesson texts and hints: en or zh (--lang; lessons/translation.h)
};

struct Editor {
    std::string path;
    std::string text;       // what the learner sees and edits
    std::string disk_text;  // the file as last read or written
    viewmodel::FileStamp stamp;
    std::vector<viewmodel::HighlightedLine> lines;
    bool highlight_stale = true;
    bool read_only = false;
    bool conflict = false;  // changed on disk while modified here
    int cursor = 0;         // byte offset, while the editor is focused
    int previous_cursor = -1;
    std::uint32_t scroll_to_line = 0;
    bool modified() const { return text != disk_text; }
};

class App {
  public:
    App(AppOptions options, lessons::Course course);
    ~App();

    // Between frames: takes finished checks, watches the exercise file. True when the picture
    // changed (so an idle app draws a frame).
    bool tick();
    // One frame of UI, between Window::begin_frame() and end_frame(), with the keys pressed since
    // the last frame (for the shortcuts).
    void frame(const std::vector<KeyPress>& keys);
    // After the frame reached the screen: reports edit -> redraw latency.
    void after_present();
    // True when something animates (playback, a result waiting to be shown): no idle waiting.
    bool busy() const;
    // Blocks until the first check's outcome arrived (screenshots), up to `seconds`.
    bool wait_for_first_outcome(double seconds);
    bool quit_requested() const { return quit_; }
    std::string status_line() const;  // one line for the terminal after a --frames run
    // Where the views column was drawn in the last frame: x, y, width, height (window coordinates).
    const float* views_rect() const { return views_rect_; }

  private:
    // app.cpp
    void open_lesson(const lessons::LessonInfo& lesson);
    void request_check(const std::string& reason, viewmodel::Clock::time_point when);
    void apply_outcome(viewmodel::CheckOutcome outcome);
    bool poll_files();
    void handle_shortcuts(const std::vector<KeyPress>& keys);
    void save_editor();
    void reveal_hint();
    void open_in_editor(int line);
    void reset_exercise();
    void load_trace_file();
    void load_timeline_file();
    void draw_toolbar();
    void draw_status_bar();
    void draw_views_column();
    void draw_reset_popup();
    void notify(std::string message, bool error = false);
    // Shows launch `index` of the current outcome (building its views on first use); `chosen`:
    // the learner picked it, so later checks keep showing it.
    void select_launch(int index, bool chosen);
    // Seeks to the open view's most instructive step (viewmodel::first_picture) and keeps its
    // caption.
    void show_first_picture();
    void draw_launch_picker();
    void draw_caption();
    // A program lesson's column: the streams timeline, the graph, the pages, and the kernel views
    // of a launch traced on request.
    void draw_program_views();

    // panels/lesson_panel.cpp
    void draw_lesson_panel();
    void draw_lesson_list();
    void draw_checks();
    void draw_hints();
    void draw_output();

    // panels/code_panel.cpp: the header, the gutter (a table of columns), the code
    void draw_code_panel();
    void draw_code_header();
    void layout_gutter(CodeLayout& l);
    void draw_gutter_header(const CodeLayout& l);
    void draw_code_editor(CodeLayout& l);
    void follow_caret(ImDrawList* dl, const CodeLayout& l, ImVec2 input_pos, ImVec2 text_origin,
                      float scroll_y, float view_h, float pad_y, bool active);
    void draw_gutter(const CodeLayout& l);
    void draw_gutter_line(const CodeLayout& l, int i, float y, bool hovered);

    AppOptions options_;
    lessons::Course course_;
    lessons::Progress progress_;
    std::unique_ptr<viewmodel::CheckRunner> runner_;
    const lessons::LessonInfo* lesson_ = nullptr;
    MarkdownView lesson_text_;
    std::vector<std::string>
        lesson_hints_;               // the open lesson's hints in options_.lang (or English)
    std::string hints_lang_ = "en";  // the language lesson_hints_ are in
    Editor editor_;

    std::optional<viewmodel::CheckOutcome> outcome_;  // the newest check
    int launch_ = -1;         // the launch the views show (index into report.launches)
    int chosen_launch_ = -1;  // picked by the learner (or --launch); -1: follow the checks
    std::vector<std::shared_ptr<const viewmodel::TraceViews>>
        launch_views_;  // built so far, per launch
    // The caption of the step the open view opened on; shown while the playhead stays there.
    std::string caption_;
    std::int64_t caption_step_ = -1;
    ViewId caption_view_ = ViewId::grid;
    bool auto_step_ = false;  // the playhead is where the app put it: a view switch may move it
    bool checking_ = false;
    bool passed_before_ = false;  // the lesson was passed before the newest check
    ViewContext view_;
    ViewId active_view_ = ViewId::grid;
    std::optional<ViewId> select_view_;  // set the tab on the next frame
    // Program lessons.
    StreamsViewContext streams_;
    ProgramView program_view_ = ProgramView::streams;
    std::optional<ProgramView> select_program_view_;
    bool kernel_tab_ = false;  // a kernel view (of a traced launch) is open, not a program view
    std::uint64_t trace_launch_ = 0;  // the runtime's launch number the next check traces (0: none)
    std::optional<std::uint32_t> open_block_;
    int lesson_tab_ = 0;  // 0 checks, 1 hints, 2 output
    std::optional<int> select_lesson_tab_;

    // Layout (fractions of the window; the splitters move them).
    float left_fraction_ = 0.245f;
    float code_fraction_ = 0.36f;
    float text_fraction_ = 0.60f;

    // Latency: set when an outcome is applied, reported after it is on screen.
    struct PendingLatency {
        viewmodel::Clock::time_point requested, finished, applied;
        double noticed_after_ms = 0;  // from the file's time stamp to the poll that saw it
        double check_seconds = 0, views_seconds = 0;
        std::string reason;
    };
    std::optional<PendingLatency> latency_;
    std::string last_latency_;
    viewmodel::Clock::time_point last_poll_{};
    double noticed_after_ms_ = 0;  // of the last change seen on disk
    std::string message_;
    bool message_error_ = false;
    viewmodel::Clock::time_point message_time_{};
    bool quit_ = false;
    bool confirm_reset_ = false;
    bool trace_only_ = false;     // --trace or --timeline: no lesson run
    bool timeline_only_ = false;  // --timeline: a program's timeline, no kernel trace
    float views_rect_[4] = {0, 0, 0, 0};
};

}  // namespace cudalab::gui
