#include "app.h"

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_internal.h>  // ClearActiveID: the editor takes text reloaded from disk

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <unistd.h>

#include "base/files.h"
#include "shell/theme.h"
#include "trace/trace_io.h"
#include "viewmodel/first_picture.h"
#include "viewmodel/format.h"
#include "viewmodel/header_fit.h"
#include "views/view_common.h"
#include "widgets/widgets.h"

namespace fs = std::filesystem;

namespace cudalab::gui {

using viewmodel::Clock;

namespace {

// how often the exercise file's time stamp is looked at (a stat() call)
constexpr double kPollSeconds = 0.025;

double ms(Clock::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

bool on_path(const std::string& program) {
    if (program.find('/') != std::string::npos) return ::access(program.c_str(), X_OK) == 0;
    const char* path = std::getenv("PATH");
    if (!path) return false;
    std::string p = path;
    std::size_t at = 0;
    while (at <= p.size()) {
        std::size_t end = p.find(':', at);
        if (end == std::string::npos) end = p.size();
        fs::path candidate = fs::path(p.substr(at, end - at)) / program;
        if (::access(candidate.c_str(), X_OK) == 0) return true;
        at = end + 1;
    }
    return false;
}

std::string read_text(const std::string& path) {
    std::string s;
    viewmodel::read_file(path, &s);
    return s;
}

}  // namespace

App::App(AppOptions options, lessons::Course course)
    : options_(std::move(options)), course_(std::move(course)) {
    progress_.set_course(course_.key);
    runner_ = std::make_unique<viewmodel::CheckRunner>(course_, [] { glfwPostEmptyEvent(); });
    open_block_ = options_.block;
    if (!options_.timeline_file.empty()) {
        trace_only_ = timeline_only_ = true;
        load_timeline_file();
    } else if (!options_.trace_file.empty()) {
        trace_only_ = true;
        load_trace_file();
    } else {
        const lessons::LessonInfo* l = course_.resolve(options_.lesson);  // an id or a number
        if (!l && !course_.lessons.empty()) l = &course_.lessons.front();
        if (l) open_lesson(*l);
    }
    view_.playback.set_speed(options_.speed);
    if (!options_.view.empty()) {
        if (auto v = view_from_name(options_.view)) active_view_ = *v;
        if (auto v = program_view_from_name(options_.view)) {
            program_view_ = *v;
            select_program_view_ = *v;
        }
    }
    select_view_ = active_view_;
}

App::~App() = default;

// [SECTION] Lessons, checks and outcomes ----------------------------------------------------------

void App::open_lesson(const lessons::LessonInfo& lesson) {
    // --source applies to the lesson it was given with, not to one opened later, nor (a trace's
    // source) to a lesson opened from a saved trace.
    if (!options_.trace_file.empty()) {
        options_.trace_file.clear();
        options_.source_file.clear();
    }
    options_.timeline_file.clear();
    timeline_only_ = false;
    if (!options_.source_file.empty() && lesson.id != options_.lesson) options_.source_file.clear();
    lesson_ = &lesson;
    // In the chosen language; a lesson not translated yet is shown in English under a one-line
    // note.
    const lessons::LessonText text = lessons::lesson_text(lesson, options_.lang);
    lesson_text_.set(viewmodel::parse_markdown(
        text.note.empty() ? text.markdown : "> " + text.note + "\n\n" + text.markdown));
    lesson_hints_ = text.hints;
    // the hints fall back on their own
    hints_lang_ = text.hints != lesson.hints ? options_.lang : "en";
    editor_ = Editor{};
    editor_.path = !options_.source_file.empty() ? options_.source_file
                   : options_.solution           ? lesson.solution_path
                                                 : lesson.exercise_path;
    editor_.read_only = options_.solution;
    editor_.disk_text = read_text(editor_.path);
    editor_.text = editor_.disk_text;
    editor_.stamp = viewmodel::stamp_of(editor_.path);
    outcome_.reset();
    launch_ = -1;
    chosen_launch_ = options_.launch;  // --launch applies to the lesson it was given with
    options_.launch = -1;
    launch_views_.clear();
    caption_.clear();
    view_.set_views(nullptr, std::nullopt);
    streams_ = StreamsViewContext{};
    trace_launch_ = 0;
    kernel_tab_ = false;
    if (!lesson.views.empty())
        if (auto v = view_from_name(lesson.views.front())) {
            active_view_ = *v;
            select_view_ = *v;
        }
    // A program lesson has no launches of cudalab's own: --launch N traces the program's launch N
    // (the runtime's number, as the streams view's card gives it) and opens the kernel views on it,
    // as "Open in the kernel views" does.
    if (lesson.is_program() && chosen_launch_ >= 0) {
        trace_launch_ = std::uint64_t(chosen_launch_) + 1;
        chosen_launch_ = -1;
        request_check("trace launch", Clock::now());
        return;
    }
    request_check("opened", Clock::now());
}

void App::request_check(const std::string& reason, Clock::time_point when) {
    if (!lesson_ || trace_only_) return;
    viewmodel::CheckRequest r;
    r.lesson = *lesson_;
    r.options.solution = options_.solution;
    r.options.source_path = options_.source_file;
    if (options_.seed) r.options.seed = *options_.seed;
    else if (trace_launch_ && outcome_ && outcome_->report.program)
        r.options.seed = outcome_->report.seed;  // the same inputs, so the same launches
    r.options.backend = options_.backend;
    if (open_block_) {
        // The first blocks as usual, and the one the learner asked to see.
        for (std::uint32_t b = 0; b < r.options.trace.auto_detail_blocks; ++b)
            r.options.trace.detail_blocks.push_back(b);
        r.options.trace.detail_blocks.push_back(*open_block_);
    }
    r.requested = when;
    r.reason = reason;
    r.launch = chosen_launch_;
    r.options.program_trace_launch = trace_launch_;
    runner_->request(std::move(r));
    checking_ = true;
}

void App::apply_outcome(viewmodel::CheckOutcome o) {
    checking_ = runner_->busy();
    if (!lesson_ || o.request.lesson.id != lesson_->id) return;  // a check of a lesson left since
    if (o.report.program) {
        streams_.timeline = o.streams;
        streams_.json = o.report.program_timeline;
        streams_.lesson = lesson_->id;
        streams_.show_copy_overlap = false;
        for (const auto& check : o.report.checks)
            if (check.name.find("copies overlap kernels") != std::string::npos)
                streams_.show_copy_overlap = true;
        // only the emulated runtime traces a launch
        streams_.can_trace = o.report.backend == "emu";
        if (o.request.options.program_trace_launch && o.request.reason == "trace launch") {
            const std::uint64_t n = o.request.options.program_trace_launch;
            if (o.views) {
                kernel_tab_ = true;
                // --view names a kernel view to open on (with --launch); else the grid.
                const auto asked = view_from_name(options_.view);
                select_view_ = asked ? *asked : ViewId::grid;
                notify("Launch " + std::to_string(n) + " of `" + o.report.program_timeline_run +
                       "`, traced: the grid, warps and memory views show it.");
            } else {
                notify("Launch " + std::to_string(n) + " could not be traced (see the Output tab).",
                       true);
            }
        } else if (!o.views) {
            kernel_tab_ = false;
        }
    }
    if (o.views) {
        launch_ = o.launch;
        launch_views_.assign(o.report.launches.size(), nullptr);
        if (launch_ >= 0 && launch_ < int(launch_views_.size()))
            launch_views_[std::size_t(launch_)] = o.views;
        if (chosen_launch_ >= int(o.report.launches.size())) {
            notify("There is no launch " + std::to_string(chosen_launch_ + 1) +
                       ": this lesson ran " + std::to_string(o.report.launches.size()) +
                       ". Showing " + o.report.launch_label(launch_) + ".",
                   true);
            chosen_launch_ = -1;
        }
        const std::int64_t previous_step = view_.step();
        const bool keep_step = !auto_step_ && view_.views && outcome_ &&
                               !trace_only_;  // the learner moved the playhead
        view_.set_views(o.views, open_block_);
        caption_.clear();
        if (!options_.find.empty()) {  // the first step of that kind at or after --step
            if (!seek_first(view_, options_.find, std::max<std::int64_t>(0, options_.step)))
                notify("No step of kind '" + options_.find + "' in this block.", true);
            options_.step = -1;
        } else if (options_.step >= 0) {
            view_.playback.seek(options_.step);
            options_.step = -1;
        } else if (keep_step) {
            view_.playback.seek(previous_step);
        } else {
            show_first_picture();
        }
        options_.find.clear();
        if (options_.play) {
            view_.playback.play();
            options_.play = false;
        }
    } else {
        launch_ = -1;
        launch_views_.clear();
    }
    const auto code = o.report.status.code;
    // Opening a lesson is not an attempt: the shipped exercise fails by design. The check run on
    // opening records a pass (work done elsewhere) but never a failure; saves and re-runs record
    // both.
    const bool opened = o.request.reason == "opened";
    passed_before_ = progress_.get(lesson_->id).state == lessons::LessonState::passed;
    if (!options_.solution && options_.source_file.empty() &&
        code != StatusCode::backend_unavailable && code != StatusCode::bad_usage &&
        (!opened || o.report.passed)) {
        progress_.record_check(lesson_->id, o.report.passed);
        std::string err;
        if (!progress_.save(&err)) notify("Progress not saved: " + err, true);
    }
    if (code == StatusCode::compile_error) select_lesson_tab_ = 0;
    PendingLatency l;
    l.requested = o.request.requested;
    l.finished = o.finished;
    l.applied = Clock::now();
    l.check_seconds = o.check_seconds;
    l.views_seconds = o.views_seconds;
    l.reason = o.request.reason;
    l.noticed_after_ms = l.reason == "changed on disk" ? noticed_after_ms_ : 0;
    latency_ = l;
    outcome_ = std::move(o);
}

void App::after_present() {
    if (!latency_) return;
    const auto now = Clock::now();
    // From the moment the file was written (its time stamp) when the change came from disk.
    const double total = ms(now - latency_->requested) + latency_->noticed_after_ms;
    char line[256];
    std::snprintf(
        line, sizeof line,
        "%.0f ms (noticed %.0f ms, compile+run+checks %.0f ms, views %.0f ms, UI %.0f ms)", total,
        latency_->noticed_after_ms, latency_->check_seconds * 1e3, latency_->views_seconds * 1e3,
        ms(now - latency_->finished));
    const bool edit = latency_->reason == "saved" || latency_->reason == "changed on disk" ||
                      latency_->reason == "reset";
    if (edit) last_latency_ = line;
    if (latency_->reason != "opened")
        std::printf("cudalab-gui: %s %s: %s -> redraw %s\n", lesson_ ? lesson_->id.c_str() : "",
                    latency_->reason.c_str(), edit ? "edit" : "request", line);
    else
        std::printf("cudalab-gui: %s opened: first check on screen after %s\n",
                    lesson_ ? lesson_->id.c_str() : "", line);
    std::fflush(stdout);
    latency_.reset();
}

// A check running is not a reason to draw continuously: it would take the CPU the check needs
// (under a software rasteriser, both cores). tick() reports when it finishes.
bool App::busy() const { return view_.playback.playing() || latency_.has_value(); }

bool App::wait_for_first_outcome(double seconds) {
    if (trace_only_) return true;
    auto o = runner_->wait(seconds);
    if (!o) return false;
    apply_outcome(std::move(*o));
    return true;
}

std::string App::status_line() const {
    if (!outcome_) return "no check finished";
    const auto& r = outcome_->report;
    int passed = 0;
    for (const auto& c : r.checks) passed += c.passed;
    return (lesson_ ? lesson_->id : std::string("?")) + ": " + std::to_string(passed) + " of " +
           std::to_string(r.checks.size()) + " checks passed" +
           (view_.views
                ? ", trace of " + std::to_string(view_.views->trace().events.size()) + " events"
                : "");
}

void App::load_trace_file() {
    auto trace = std::make_shared<Trace>();
    std::string err;
    if (!read_trace(options_.trace_file, trace.get(), &err)) {
        notify("Cannot read the trace: " + err, true);
        return;
    }
    std::string source;
    if (!options_.source_file.empty()) {
        source = read_text(options_.source_file);
        editor_.path = options_.source_file;
        editor_.text = editor_.disk_text = source;
        editor_.stamp = viewmodel::stamp_of(editor_.path);
    }
    editor_.read_only = true;
    view_.set_views(viewmodel::build_trace_views(trace, source, nullptr), options_.block);
    if (!options_.find.empty()) {
        if (!seek_first(view_, options_.find, std::max<std::int64_t>(0, options_.step)))
            notify("No step of kind '" + options_.find + "' in this block.", true);
    } else if (options_.step >= 0) view_.playback.seek(options_.step);
    else show_first_picture();
    if (options_.play) view_.playback.play();
}

// A whole program's timeline saved by `cudalab run --timeline`: the streams, graph and pages views,
// no checks (and no kernel traces: `cudalab run --trace` saves one launch for `--trace`).
void App::load_timeline_file() {
    std::string text;
    if (!viewmodel::read_file(options_.timeline_file, &text)) {
        notify("Cannot read the timeline " + options_.timeline_file, true);
        return;
    }
    auto t = std::make_shared<viewmodel::StreamsTimeline>();
    std::string error;
    if (!viewmodel::parse_streams_timeline(text, t.get(), &error)) {
        notify("Cannot read the timeline " + options_.timeline_file + ": " + error, true);
        return;
    }
    t->run = fs::path(options_.timeline_file).filename().string();
    streams_.timeline = std::move(t);
    streams_.json = std::move(text);
    streams_.lesson = fs::path(options_.timeline_file).stem().string();
    if (!options_.source_file.empty()) {
        editor_.path = options_.source_file;
        editor_.text = editor_.disk_text = read_text(options_.source_file);
        editor_.stamp = viewmodel::stamp_of(editor_.path);
    }
    editor_.read_only = true;
}

void App::select_launch(int index, bool chosen) {
    if (!outcome_ || index < 0 || index >= int(launch_views_.size())) return;
    if (chosen) chosen_launch_ = index;
    if (index == launch_) return;
    auto& v = launch_views_[std::size_t(index)];
    const auto& r = outcome_->report;
    if (!v && std::size_t(index) < r.launch_traces.size() && r.launch_traces[std::size_t(index)])
        v = viewmodel::build_trace_views(r.launch_traces[std::size_t(index)], outcome_->source,
                                         r.module.get(), std::string(hw::emulated_arch), &r.shapes);
    if (!v) {
        notify("Launch " + std::to_string(index + 1) + " was not traced.", true);
        return;
    }
    launch_ = index;
    view_.set_views(v, open_block_);
    show_first_picture();
}

void App::show_first_picture() {
    caption_.clear();
    caption_step_ = -1;
    auto_step_ = true;
    if (!view_.has_steps()) return;
    const viewmodel::FirstPicture p =
        viewmodel::first_picture(*view_.views, view_.detail_block, view_name(active_view_));
    view_.playback.pause();
    if (p.step >= 0) view_.playback.seek(p.step);
    caption_ = p.caption;
    // The hierarchy is the whole launch: say which failing figure of it the grader holds.
    if (active_view_ == ViewId::hierarchy && outcome_ && !trace_only_)
        for (const auto& c : outcome_->report.checks)
            if (!c.passed && c.launch == launch_ && c.kind == lessons::CheckKind::performance) {
                caption_ = "This launch is the one \"" + c.name +
                           "\" measured: " + viewmodel::fixed(c.value, 2) + ", needs " +
                           c.comparison + " " + viewmodel::fixed(c.threshold, 2) + ". " + p.caption;
                break;
            }
    caption_step_ = view_.step();
    caption_view_ = active_view_;
}

void App::notify(std::string message, bool error) {
    message_ = std::move(message);
    message_error_ = error;
    message_time_ = Clock::now();
    std::fprintf(error ? stderr : stdout, "cudalab-gui: %s\n", message_.c_str());
}

// [SECTION] The exercise file ---------------------------------------------------------------------

bool App::poll_files() {
    const auto now = Clock::now();
    if (std::chrono::duration<double>(now - last_poll_).count() < kPollSeconds) return false;
    last_poll_ = now;
    if (editor_.path.empty() || trace_only_) return false;
    const viewmodel::FileStamp stamp = viewmodel::stamp_of(editor_.path);
    if (stamp == editor_.stamp) return false;
    editor_.stamp = stamp;
    noticed_after_ms_ = std::max(0.0, std::chrono::duration<double, std::milli>(
                                          fs::file_time_type::clock::now() - stamp.modified)
                                          .count());
    std::string text = read_text(editor_.path);
    if (text == editor_.disk_text) return false;  // touched, not changed
    if (editor_.modified() && text != editor_.text) {
        editor_.conflict = true;
        editor_.disk_text = text;  // the check below runs the file on disk
    } else {
        ImGui::ClearActiveID();  // an active input would keep (and write back) its old copy
        editor_.text = editor_.disk_text = text;
        editor_.highlight_stale = true;
        editor_.conflict = false;
    }
    request_check("changed on disk", now);
    return true;
}

void App::save_editor() {
    if (editor_.read_only || editor_.path.empty()) {
        notify("This file is read-only here.", true);
        return;
    }
    std::string err;
    if (!write_file_atomically(editor_.path, editor_.text, &err)) {
        notify("Could not save " + editor_.path + ": " + err, true);
        return;
    }
    editor_.disk_text = editor_.text;
    editor_.stamp = viewmodel::stamp_of(editor_.path);
    editor_.conflict = false;
    request_check("saved", Clock::now());
}

void App::reveal_hint() {
    if (!lesson_ || lesson_->hints.empty()) return;
    const auto shown = progress_.get(lesson_->id).hints_shown;
    if (shown < int(lesson_->hints.size())) {
        progress_.reveal_hint(lesson_->id, int(lesson_->hints.size()));
        std::string err;
        if (!progress_.save(&err)) notify("Progress not saved: " + err, true);
    }
    select_lesson_tab_ = 1;
}

void App::open_in_editor(int line) {
    if (editor_.path.empty()) return;
    if (editor_.modified()) save_editor();
    auto cmd = viewmodel::editor_command(
        editor_.path, line, [](const char* v) { return std::getenv(v); }, on_path);
    if (!on_path(cmd[0])) {
        notify("No editor found: set $VISUAL or $EDITOR (tried " + cmd[0] + ").", true);
        return;
    }
    std::string err;
    if (!viewmodel::spawn_detached(cmd, &err)) notify("Could not open the editor: " + err, true);
    else
        notify("Opened " + fs::path(editor_.path).filename().string() + " with " + cmd[0] +
               "; saving there re-runs the checks here.");
}

void App::reset_exercise() {
    if (editor_.read_only || !lesson_) return;
    if (editor_.modified()) save_editor();  // so the backup holds the newest edits
    auto r = viewmodel::reset_exercise(editor_.path, std::time(nullptr));
    notify(r.message, !r.ok);
    if (r.changed) {
        ImGui::ClearActiveID();
        editor_.text = editor_.disk_text = read_text(editor_.path);
        editor_.stamp = viewmodel::stamp_of(editor_.path);
        editor_.highlight_stale = true;
        editor_.conflict = false;
        request_check("reset", Clock::now());
    }
}

// [SECTION] Frame -------------------------------------------------------------------------------

void App::handle_shortcuts(const std::vector<KeyPress>& keys) {
    const bool typing = ImGui::GetIO().WantTextInput;  // then plain keys belong to the editor
    auto& pb = view_.playback;
    for (const KeyPress& k : keys) {
        const bool ctrl = k.mods & GLFW_MOD_CONTROL, shift = k.mods & GLFW_MOD_SHIFT;
        if (ctrl && k.key == GLFW_KEY_S) save_editor();
        else if (ctrl && k.key == GLFW_KEY_R) request_check("re-run", Clock::now());
        else if (ctrl && k.key == GLFW_KEY_Q) quit_ = true;
        else if (k.key == GLFW_KEY_F1) reveal_hint();
        if (typing || ctrl) continue;
        const std::int64_t stride = shift ? 32 : 1;
        switch (k.key) {
        case GLFW_KEY_SPACE: pb.toggle(); break;
        case GLFW_KEY_RIGHT:
            pb.pause();
            pb.step(stride);
            break;
        case GLFW_KEY_LEFT:
            pb.pause();
            pb.step(-stride);
            break;
        case GLFW_KEY_HOME: pb.seek(0); break;
        case GLFW_KEY_END: pb.seek(std::int64_t(pb.steps()) - 1); break;
        case GLFW_KEY_B:
            if (view_.has_steps()) {
                const std::int64_t b =
                    view_.views->model.next_barrier(view_.detail_block, pb.position());
                if (b >= 0) {
                    pb.pause();
                    pb.seek(b);
                }
            }
            break;
        case GLFW_KEY_EQUAL:
        case GLFW_KEY_KP_ADD: pb.set_speed(pb.speed() * 2); break;
        case GLFW_KEY_MINUS:
        case GLFW_KEY_KP_SUBTRACT: pb.set_speed(pb.speed() / 2); break;
        default:
            if (k.key >= GLFW_KEY_1 && k.key < GLFW_KEY_1 + kViewCount)
                select_view_ = ViewId(k.key - GLFW_KEY_1);
        }
    }
}

bool App::tick() {
    bool changed = false;
    if (auto o = runner_->take()) {
        apply_outcome(std::move(*o));
        changed = true;
    }
    const bool was_checking = checking_;
    checking_ = runner_->busy();
    changed |= was_checking != checking_;
    changed |= poll_files();
    return changed;
}

void App::frame(const std::vector<KeyPress>& keys) {
    handle_shortcuts(keys);
    if (view_.playback.advance(ImGui::GetIO().DeltaTime)) {
    }
    view_.refresh();
    if (auto_step_ && view_.step() != caption_step_) auto_step_ = false;  // the learner moved it

    const float s = fonts().scale;
    ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos(vp->WorkPos);
    ImGui::SetNextWindowSize(vp->WorkSize);
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
    ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(0, 0));
    ImGui::Begin("##cudalab", nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                     ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus |
                     ImGuiWindowFlags_NoScrollWithMouse |
                     ImGuiWindowFlags_NoBackground);  // glClear paints it: one full-screen layer
                                                      // less for llvmpipe
    ImGui::PopStyleVar(2);

    draw_toolbar();

    const float status_h = std::round(26 * s);
    const float splitter_w = 6 * s;
    const float margin = 8 * s;
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const float body_h = avail.y - status_h - margin;
    const float total_w = avail.x - 2 * margin;
    ImGui::SetCursorPosX(margin);
    const float left_w = std::floor(total_w * left_fraction_);
    const float code_w = std::floor(total_w * code_fraction_);
    const float right_w = total_w - left_w - code_w - 2 * splitter_w;

    // The columns draw no background of their own: their panels do (each pixel filled once or
    // twice, which is what a software rasteriser's frame time is made of).
    const ImGuiWindowFlags column = ImGuiWindowFlags_NoScrollbar |
                                    ImGuiWindowFlags_NoScrollWithMouse |
                                    ImGuiWindowFlags_NoBackground;
    ImGui::BeginChild("##left", ImVec2(left_w, body_h), false, column);
    draw_lesson_panel();
    ImGui::EndChild();
    ImGui::SameLine(0, 0);
    vertical_splitter("##split_left", &left_fraction_, total_w, 0.16f, 0.5f, body_h);
    ImGui::SameLine(0, 0);
    ImGui::BeginChild("##code", ImVec2(code_w, body_h), false, column);
    draw_code_panel();
    ImGui::EndChild();
    ImGui::SameLine(0, 0);
    {
        float f = code_fraction_;
        if (vertical_splitter("##split_right", &f, total_w, 0.2f, 0.95f - left_fraction_ - 0.2f,
                              body_h))
            code_fraction_ = f;
    }
    ImGui::SameLine(0, 0);
    {
        const ImVec2 at = ImGui::GetCursorScreenPos();
        views_rect_[0] = at.x;
        views_rect_[1] = at.y;
        views_rect_[2] = right_w;
        views_rect_[3] = body_h;
    }
    ImGui::BeginChild("##views", ImVec2(right_w, body_h), false, column);
    draw_views_column();
    ImGui::EndChild();

    ImGui::SetCursorPosY(ImGui::GetCursorPosY() + margin * 0.5f);
    draw_status_bar();
    draw_reset_popup();
    ImGui::End();

    if (view_.trace_block_request) {
        open_block_ = *view_.trace_block_request;
        view_.trace_block_request.reset();
        request_check("trace block " + std::to_string(*open_block_), Clock::now());
        notify("Tracing block " + std::to_string(*open_block_) +
               " in full: running the lesson again.");
    }
    if (view_.switch_view) {
        select_view_ = *view_.switch_view;
        view_.switch_view.reset();
    }
}

void App::draw_toolbar() {
    const float s = fonts().scale;
    const float h = std::round(44 * s);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float w = ImGui::GetContentRegionAvail().x;
    dl->AddRectFilled(p, ImVec2(p.x + w, p.y + h), colors::chrome);
    dl->AddLine(ImVec2(p.x, p.y + h - 1), ImVec2(p.x + w, p.y + h - 1), colors::border);

    // The mark: a 3 x 3 grid of blocks, one lit.
    const float cell = 6 * s, gap = 2 * s;
    const ImVec2 logo(p.x + 14 * s, p.y + (h - 3 * cell - 2 * gap) * 0.5f);
    for (int y = 0; y < 3; ++y)
        for (int x = 0; x < 3; ++x) {
            ImVec2 a(logo.x + float(x) * (cell + gap), logo.y + float(y) * (cell + gap));
            dl->AddRectFilled(a, ImVec2(a.x + cell, a.y + cell),
                              (x == 1 && y == 1) ? colors::accent : colors::logo_cell, 1.5f * s);
        }
    ImGui::SetCursorScreenPos(
        ImVec2(logo.x + 3 * cell + 2 * gap + 8 * s, p.y + (h - ImGui::GetFrameHeight()) * 0.5f));
    ImGui::AlignTextToFramePadding();
    ImGui::PushFont(fonts().h3);
    ImGui::TextUnformatted("cudalab");
    ImGui::PopFont();
    ImGui::SameLine(0, spacing::wide_gap * s);

    // Lesson picker.
    std::string current =
        timeline_only_ ? "timeline: " + fs::path(options_.timeline_file).filename().string()
        : trace_only_  ? "trace: " + fs::path(options_.trace_file).filename().string()
        : lesson_      ? lesson_->id + "  " + lesson_->title
                       : "no lesson";
    // Wide enough for the whole title where the window allows, leaving the status its shortest
    // chip (about 140 px) before the actions (about 330 px).
    const float actions_room = 470 * s;
    ImGui::SetNextItemWidth(std::max(
        100 * s,
        std::min({ImGui::CalcTextSize(current.c_str()).x + ImGui::GetFrameHeight() + 24 * s,
                  w * 0.36f, w - ImGui::GetCursorPosX() - actions_room})));
    if (ImGui::BeginCombo("##lesson", current.c_str(), ImGuiComboFlags_HeightLarge)) {
        for (const auto& l : course_.lessons) {
            const auto state = progress_.get(l.id).state;
            const char* mark = state == lessons::LessonState::passed   ? "\xE2\x9C\x93 "
                               : state == lessons::LessonState::failed ? "\xE2\x9C\x97 "
                                                                       : "   ";
            std::string label =
                std::string(mark) + l.id + "  " + l.title +
                (progress_.get(l.id).fails_now() ? "  (passed before, fails now)" : "");
            if (ImGui::Selectable(label.c_str(), lesson_ == &l) && lesson_ != &l) {
                trace_only_ = false;
                open_block_.reset();
                open_lesson(l);
            }
        }
        ImGui::EndCombo();
    }
    ImGui::SameLine(0, spacing::group_gap * s);

    // Status of the last check, in the room left before the actions (right-aligned): the
    // longest wording of the chip and of its detail that fit, never under a button
    // (viewmodel::fit_header_status).
    const char* labels[] = {"Re-run", "Hint", "Open in editor", "Reset\xE2\x80\xA6"};
    float total = 0;
    for (const char* l : labels)
        total += ImGui::CalcTextSize(l).x + 2 * ImGui::GetStyle().FramePadding.x +
                 spacing::button_gap * s;
    const float actions_x = std::max(0.0f, w - total - spacing::group_gap * s);
    std::vector<std::string> chips, details;
    ImU32 chip_bg = colors::chip_neutral, chip_fg = colors::text;
    if (checking_ && !outcome_) chips = {"checking\xE2\x80\xA6"};
    else if (outcome_) {
        const auto& r = outcome_->report;
        int passed = 0;
        for (const auto& c : r.checks) passed += c.passed;
        const std::string n = std::to_string(r.checks.size());
        chip_bg = colors::chip_fail;
        chip_fg = colors::chip_fail_text;
        if (r.status.code == StatusCode::compile_error)
            chips = {"\xE2\x9C\x97 does not compile", "\xE2\x9C\x97 compile"};
        else if (!r.status.ok()) chips = {"\xE2\x9C\x97 could not run", "\xE2\x9C\x97 run"};
        else if (r.passed) {
            chips = {"\xE2\x9C\x93 passed  " + std::to_string(passed) + "/" + n,
                     "\xE2\x9C\x93 " + std::to_string(passed) + "/" + n};
            chip_bg = colors::chip_pass;
            chip_fg = colors::chip_pass_text;
        } else {
            const std::string failed = std::to_string(r.checks.size() - std::size_t(passed));
            const std::string counts = "\xE2\x9C\x97 " + failed + " of " + n + " checks failed";
            // A lesson passed earlier stays passed, but the learner should know it fails now.
            // Another file (--source) is not the learner's exercise: its result says nothing of
            // the lesson's progress.
            if (passed_before_ && !options_.solution && options_.source_file.empty())
                chips.push_back(counts + " \xC2\xB7 passed before, fails now");
            chips.push_back(counts);
            chips.push_back("\xE2\x9C\x97 " + failed + "/" + n + " failed");
        }
        const std::string ms = viewmodel::fixed(outcome_->check_seconds * 1e3, 0) + " ms";
        if (checking_) details = {"re-checking\xE2\x80\xA6"};
        else if (r.status.code == StatusCode::compile_error)
            details = {std::to_string(r.diagnostics.size()) + " error" +
                       (r.diagnostics.size() == 1 ? "" : "s") + " \xC2\xB7 " + ms};
        else {
            const std::string backend = r.backend.empty() ? "not run" : r.backend;
            details = {
                backend + " \xC2\xB7 " +
                    (r.compile_cached
                         ? "compile cached (" + viewmodel::fixed(r.compiled_seconds * 1e3, 0) +
                               " ms when compiled)"
                         : "compiled in " + viewmodel::fixed(r.compile_seconds * 1e3, 0) + " ms") +
                    " \xC2\xB7 checked in " + ms,
                backend + " \xC2\xB7 checked in " + ms, backend};
        }
    } else if (trace_only_) {
        chips = {};
        details = {"viewing a saved trace (no checks)"};
    }
    ImFont* bold = fonts().ui_bold;
    const auto chip_width = [&](const std::string& t) {
        return bold->CalcTextSizeA(bold->FontSize, 1e9f, 0, t.c_str()).x + 16 * s;
    };
    const auto text_width = [](const std::string& t) { return ImGui::CalcTextSize(t.c_str()).x; };
    const float room = actions_x - ImGui::GetCursorPosX() - spacing::group_gap * s;
    if (chips.empty() && !details.empty()) {
        // No verdict (a saved trace): the detail alone, if it fits.
        if (text_width(details.front()) <= room) {
            ImGui::AlignTextToFramePadding();
            text_dim("%s", details.front().c_str());
        }
    } else {
        const auto fit = viewmodel::fit_header_status(chips, details, room, chip_width, text_width,
                                                      spacing::label_gap * s);
        if (fit.chip >= 0) {
            chip(chips[std::size_t(fit.chip)].c_str(), chip_bg, chip_fg);
            if (fit.detail >= 0) {
                ImGui::SameLine(0, spacing::label_gap * s);
                ImGui::AlignTextToFramePadding();
                text_dim("%s", details[std::size_t(fit.detail)].c_str());
            }
        }
    }

    // Actions, right-aligned.
    ImGui::SetCursorScreenPos(ImVec2(p.x + actions_x, p.y + (h - ImGui::GetFrameHeight()) * 0.5f));
    ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing, ImVec2(spacing::button_gap * s, 0));
    const bool can_run = lesson_ && !trace_only_;
    if (!can_run) ImGui::BeginDisabled();
    if (ImGui::Button("Re-run")) request_check("re-run", Clock::now());
    tooltip("Compile, run and check again (Ctrl+R)");
    ImGui::SameLine();
    if (ImGui::Button("Hint")) reveal_hint();
    tooltip("Show the next hint (F1)");
    ImGui::SameLine();
    if (ImGui::Button("Open in editor")) open_in_editor(int(view_.line));
    tooltip("Open the exercise in $VISUAL / $EDITOR (else xdg-open); saving there re-runs the "
            "checks here");
    ImGui::SameLine();
    if (editor_.read_only) ImGui::BeginDisabled();
    if (ImGui::Button("Reset\xE2\x80\xA6")) confirm_reset_ = true;
    tooltip("Put back the exercise as shipped; your version is kept as a .bak file");
    if (editor_.read_only) ImGui::EndDisabled();
    if (!can_run) ImGui::EndDisabled();
    ImGui::PopStyleVar();
    ImGui::SetCursorScreenPos(ImVec2(p.x, p.y + h + 8 * s));
}

void App::draw_reset_popup() {
    if (confirm_reset_) {
        ImGui::OpenPopup("Reset exercise?");
        confirm_reset_ = false;
    }
    const float s = fonts().scale;
    ImGui::SetNextWindowSize(ImVec2(460 * s, 0));
    if (ImGui::BeginPopupModal("Reset exercise?", nullptr, ImGuiWindowFlags_NoResize)) {
        ImGui::PushTextWrapPos(0);
        ImGui::TextUnformatted(("Put " + fs::path(editor_.path).filename().string() +
                                " back as shipped? Your current version is kept next to it as a "
                                ".bak file with the date and time.")
                                   .c_str());
        ImGui::PopTextWrapPos();
        ImGui::Spacing();
        if (ImGui::Button("Reset", ImVec2(120 * s, 0))) {
            reset_exercise();
            ImGui::CloseCurrentPopup();
        }
        ImGui::SameLine();
        if (ImGui::Button("Cancel", ImVec2(120 * s, 0)) || ImGui::IsKeyPressed(GLFW_KEY_ESCAPE))
            ImGui::CloseCurrentPopup();
        ImGui::EndPopup();
    }
}

void App::draw_status_bar() {
    const float s = fonts().scale;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float w = ImGui::GetContentRegionAvail().x;
    const float h = ImGui::GetContentRegionAvail().y;
    dl->AddRectFilled(p, ImVec2(p.x + w, p.y + h), colors::chrome);
    dl->AddLine(p, ImVec2(p.x + w, p.y), colors::border);
    ImFont* f = fonts().small;
    const float ty = p.y + (h - f->FontSize) * 0.5f;
    const bool recent = std::chrono::duration<double>(Clock::now() - message_time_).count() < 12.0;
    std::string left = recent && !message_.empty()
                           ? message_
                           : "Space play/pause  \xC2\xB7  \xE2\x86\x90 \xE2\x86\x92 step  \xC2\xB7 "
                             " B next barrier  \xC2\xB7  1\xE2\x80\x93"
                             "6 views  \xC2\xB7  Ctrl+S save  \xC2\xB7  Ctrl+R re-run  \xC2\xB7  "
                             "F1 hint  \xC2\xB7  F12 picture";
    // The last edit's latency; while playing, the frame rate (idle, frames are drawn only on
    // change).
    std::string right;
    if (!last_latency_.empty())
        right = "edit \xE2\x86\x92 redraw " + last_latency_.substr(0, last_latency_.find(" ("));
    if (view_.playback.playing()) {
        char fps[48];
        std::snprintf(fps, sizeof fps, "%.0f fps", ImGui::GetIO().Framerate);
        right += (right.empty() ? "" : "  \xC2\xB7  ") + std::string(fps);
    }
    const float rw = f->CalcTextSizeA(f->FontSize, 1e9f, 0, right.c_str()).x;
    draw_text_clipped(dl, f, ImVec2(p.x + 12 * s, ty),
                      recent && message_error_      ? colors::poor
                      : recent && !message_.empty() ? colors::text
                                                    : colors::text_dim,
                      left, w - rw - 40 * s);
    dl->AddText(f, f->FontSize, ImVec2(p.x + w - rw - 12 * s, ty), colors::text_dim, right.c_str());
    ImGui::Dummy(ImVec2(w, h));
}

void App::draw_views_column() {
    if ((lesson_ && lesson_->is_program() && !trace_only_) || timeline_only_) {
        draw_program_views();
        return;
    }
    const float s = fonts().scale;
    const float bar_h = std::round(ImGui::GetFrameHeight() * 2 + 18 * s);
    draw_launch_picker();
    ImGui::PushStyleVar(ImGuiStyleVar_FramePadding,
                        ImVec2(spacing::tab_pad_x * s, spacing::tab_pad_y * s));
    if (ImGui::BeginTabBar("##viewtabs", ImGuiTabBarFlags_FittingPolicyScroll)) {
        for (int i = 0; i < kViewCount; ++i) {
            const ViewId v = ViewId(i);
            ImGuiTabItemFlags flags =
                (select_view_ && *select_view_ == v) ? ImGuiTabItemFlags_SetSelected : 0;
            if (ImGui::BeginTabItem(view_title(v), nullptr, flags)) {
                const bool switched = active_view_ != v;
                active_view_ = v;
                // A view opened on a playhead the learner has not moved starts on its own best
                // step.
                if (switched && auto_step_) show_first_picture();
                ImGui::EndTabItem();
            }
        }
        ImGui::EndTabBar();
    }
    ImGui::PopStyleVar();
    select_view_.reset();
    const float h = ImGui::GetContentRegionAvail().y - bar_h;
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding,
                        ImVec2(spacing::view_pad_x * s, spacing::view_pad_y * s));
    ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing,
                        ImVec2(spacing::item_x * s, spacing::item_y * s));
    ImGui::BeginChild("##view", ImVec2(0, h), true, ImGuiWindowFlags_AlwaysUseWindowPadding);
    if (!view_.views) {
        if (checking_) draw_no_trace("Compiling and running\xE2\x80\xA6");
        else if (outcome_ && outcome_->report.status.code == StatusCode::compile_error)
            draw_no_trace(
                "The exercise does not compile: nothing ran. The errors are marked in the code.");
        else if (outcome_ && outcome_->report.program)
            // A program lesson runs the learner's whole program in a child process: no launch of
            // cudalab's own to trace. Its timeline opens in Perfetto.
            draw_no_trace(
                ("This lesson runs your whole program (a program lesson): there are no kernel "
                 "views. See the checks; "
                 "for the timeline of copies and kernels per stream, run `cudalab run exercises/" +
                 outcome_->report.lesson +
                 ".cu --timeline t.json -- ARGS` and open t.json in ui.perfetto.dev.")
                    .c_str());
        else if (outcome_)
            draw_no_trace("The kernel did not complete a launch, so there is no trace to show. See "
                          "the checks for why.");
        else draw_no_trace("No trace yet.");
    } else {
        if (outcome_ && outcome_->report.status.code == StatusCode::compile_error) {
            ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(colors::fair));
            ImGui::TextWrapped(
                "The exercise does not compile: these views show the last run that did.");
            ImGui::PopStyleColor();
        }
        draw_caption();
        switch (active_view_) {
        case ViewId::grid: draw_grid_view(view_); break;
        case ViewId::warps: draw_warps_view(view_); break;
        case ViewId::memory: draw_memory_view(view_); break;
        case ViewId::shared: draw_shared_view(view_); break;
        case ViewId::timeline: draw_timeline_view(view_); break;
        case ViewId::hierarchy: draw_hierarchy_view(view_); break;
        }
    }
    ImGui::EndChild();
    ImGui::PopStyleVar(2);
    ImGui::Dummy(ImVec2(0, spacing::section_gap * s));
    draw_playback_bar(view_);
}

// A program lesson runs the learner's whole program in a child process: what the app shows is its
// timeline (streams, graph, pages); a kernel launch picked there is traced by running the lesson
// again (same seed, so the same inputs) and opens in the kernel views beside them.
void App::draw_program_views() {
    const float s = fonts().scale;
    ImGui::PushStyleVar(ImGuiStyleVar_FramePadding,
                        ImVec2(spacing::tab_pad_x * s, spacing::tab_pad_y * s));
    if (ImGui::BeginTabBar("##programtabs", ImGuiTabBarFlags_FittingPolicyScroll)) {
        for (int i = 0; i < kProgramViewCount; ++i) {
            const ProgramView v = ProgramView(i);
            const ImGuiTabItemFlags flags = select_program_view_ && *select_program_view_ == v
                                                ? ImGuiTabItemFlags_SetSelected
                                                : 0;
            if (ImGui::BeginTabItem(program_view_title(v), nullptr, flags)) {
                program_view_ = v;
                kernel_tab_ = false;
                ImGui::EndTabItem();
            }
        }
        // The traced launch's views (a kernel of the program, picked in the Streams tab).
        if (view_.views)
            for (ViewId v :
                 {ViewId::grid, ViewId::warps, ViewId::memory, ViewId::shared, ViewId::timeline}) {
                const ImGuiTabItemFlags flags =
                    select_view_ && *select_view_ == v ? ImGuiTabItemFlags_SetSelected : 0;
                if (ImGui::BeginTabItem(view_title(v), nullptr, flags)) {
                    active_view_ = v;
                    kernel_tab_ = true;
                    ImGui::EndTabItem();
                }
            }
        ImGui::EndTabBar();
    }
    ImGui::PopStyleVar();
    select_view_.reset();
    select_program_view_.reset();
    const float bar_h =
        kernel_tab_ && view_.views ? std::round(ImGui::GetFrameHeight() * 2 + 18 * s) : 0;
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding,
                        ImVec2(spacing::view_pad_x * s, spacing::view_pad_y * s));
    ImGui::PushStyleVar(ImGuiStyleVar_ItemSpacing,
                        ImVec2(spacing::item_x * s, spacing::item_y * s));
    ImGui::BeginChild("##view", ImVec2(0, ImGui::GetContentRegionAvail().y - bar_h), true,
                      ImGuiWindowFlags_AlwaysUseWindowPadding);
    if (kernel_tab_ && view_.views) {
        text_dim("launch %llu of `%s`, traced in full",
                 static_cast<unsigned long long>(trace_launch_),
                 outcome_ ? outcome_->report.program_timeline_run.c_str() : "");
        draw_caption();
        switch (active_view_) {
        case ViewId::grid: draw_grid_view(view_); break;
        case ViewId::warps: draw_warps_view(view_); break;
        case ViewId::memory: draw_memory_view(view_); break;
        case ViewId::shared: draw_shared_view(view_); break;
        case ViewId::timeline: draw_timeline_view(view_); break;
        case ViewId::hierarchy: draw_hierarchy_view(view_); break;
        }
    } else if (!streams_.timeline) {
        if (timeline_only_)
            draw_no_trace(("The timeline " + options_.timeline_file +
                           " could not be read (see the status bar).")
                              .c_str());
        else if (checking_ && !outcome_)
            draw_no_trace("Building and running your program\xE2\x80\xA6");
        else if (outcome_ && outcome_->report.status.code == StatusCode::compile_error)
            draw_no_trace(
                "The program does not compile: nothing ran. The errors are marked in the code.");
        else if (outcome_ && !outcome_->streams_error.empty())
            draw_no_trace(
                ("No timeline to show: " + outcome_->streams_error + ". See the checks.").c_str());
        else draw_no_trace("No timeline yet.");
    } else {
        switch (program_view_) {
        case ProgramView::streams: draw_streams_view(streams_); break;
        case ProgramView::graph: draw_graph_view(streams_); break;
        case ProgramView::pages: draw_pages_view(streams_); break;
        }
    }
    ImGui::EndChild();
    ImGui::PopStyleVar(2);
    if (bar_h > 0) {
        ImGui::Dummy(ImVec2(0, spacing::section_gap * s));
        draw_playback_bar(view_);
    }
    if (streams_.trace_launch_request) {
        trace_launch_ = *streams_.trace_launch_request;
        streams_.trace_launch_request.reset();
        notify("Tracing launch " + std::to_string(trace_launch_) +
               ": running the lesson again with the same inputs\xE2\x80\xA6");
        request_check("trace launch", Clock::now());
    }
}

// The launches of the lesson's last check, each with its shape and the checks that measured it.
// The views, the code's figures and --find all follow the one picked here.
void App::draw_launch_picker() {
    if (!outcome_ || launch_views_.size() < 1 || trace_only_) return;
    const float s = fonts().scale;
    const auto& r = outcome_->report;
    auto checks_of = [&](int launch, int* failed) {
        int n = 0;
        *failed = 0;
        for (const auto& c : r.checks)
            if (c.launch == launch) {
                ++n;
                *failed += !c.passed;
            }
        return n;
    };
    auto summary = [&](int launch) {
        int failed = 0;
        const int n = checks_of(launch, &failed);
        if (n == 0) return std::string("no checks");
        if (failed)
            return "\xE2\x9C\x97 " + std::to_string(failed) + " of " + std::to_string(n) +
                   " check" + (n == 1 ? "" : "s") + " failed";
        return "\xE2\x9C\x93 " + std::to_string(n) + " check" + (n == 1 ? "" : "s") + " passed";
    };
    ImGui::AlignTextToFramePadding();
    text_dim("Launch");
    ImGui::SameLine(0, spacing::item_x * s);
    const std::string current =
        launch_ >= 0 ? r.launch_shape(launch_) + "  \xC2\xB7  " + summary(launch_) : "none";
    ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x);
    if (ImGui::BeginCombo("##launch", current.c_str(), ImGuiComboFlags_HeightLarge)) {
        for (int i = 0; i < int(r.launches.size()); ++i) {
            ImGui::PushID(i);
            const std::string label = r.launch_shape(i) + "  \xC2\xB7  " + summary(i);
            if (ImGui::Selectable(label.c_str(), i == launch_)) select_launch(i, true);
            ImGui::Indent(18 * s);
            for (const auto& c : r.checks) {
                if (c.launch != i) continue;
                ImGui::PushStyleColor(
                    ImGuiCol_Text,
                    ImGui::ColorConvertU32ToFloat4(c.passed ? colors::text_dim : colors::poor));
                ImGui::Text("%s %s", c.passed ? "\xE2\x9C\x93" : "\xE2\x9C\x97", c.name.c_str());
                ImGui::PopStyleColor();
            }
            ImGui::Unindent(18 * s);
            ImGui::PopID();
        }
        ImGui::EndCombo();
    }
    tooltip("The lesson runs the kernel several times; each check measured one launch. The views, "
            "the figures beside the "
            "code and the step search show the launch picked here (cudalab gui --launch N).");
    ImGui::Dummy(ImVec2(0, spacing::row_gap * s));
}

// One line under the view's tabs: what the step the view opened on shows. Gone once the
// playhead moves, since it would describe another step.
void App::draw_caption() {
    if (caption_.empty() || caption_view_ != active_view_ || view_.step() != caption_step_) return;
    const float s = fonts().scale;
    ImDrawList* dl = ImGui::GetWindowDrawList();
    const ImVec2 p = ImGui::GetCursorScreenPos();
    const float w = ImGui::GetContentRegionAvail().x;
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + w - 12 * s);
    const ImVec2 size = ImGui::CalcTextSize(caption_.c_str(), nullptr, false, w - 20 * s);
    dl->AddRectFilled(p, ImVec2(p.x + w, p.y + size.y + 8 * s), colors::caption, 4 * s);
    dl->AddRectFilled(p, ImVec2(p.x + 3 * s, p.y + size.y + 8 * s), colors::accent, 4 * s,
                      ImDrawFlags_RoundCornersLeft);
    ImGui::SetCursorScreenPos(ImVec2(p.x + 10 * s, p.y + 4 * s));
    ImGui::TextUnformatted(caption_.c_str());
    ImGui::PopTextWrapPos();
    ImGui::SetCursorScreenPos(ImVec2(p.x, p.y + size.y + 12 * s));
    ImGui::Dummy(ImVec2(0, 0));
}

}  // namespace cudalab::gui
