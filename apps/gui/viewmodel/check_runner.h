// Runs lesson checks on a worker thread so the UI never waits for a compile or a run. One request
// at a time is pending: asking again while a check runs replaces the pending request (the newest
// edit wins), it does not queue every keystroke. The worker also builds the trace's view data.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "compiler/compiler.h"
#include "lessons/course.h"
#include "viewmodel/streams_model.h"
#include "viewmodel/trace_views.h"

namespace cudalab::viewmodel {

using Clock = std::chrono::steady_clock;

struct CheckRequest {
    lessons::LessonInfo lesson;
    lessons::CheckOptions options;
    Clock::time_point requested{};  // when the edit / click happened, for the latency figure
    std::string reason;             // "saved", "changed on disk", "re-run", ...
    int launch = -1;       // the launch to show (index into the report's launches); -1: the
                           // one the first failing check measured (CheckReport::focus_launch)
    std::uint64_t id = 0;  // set by the runner
};

struct CheckOutcome {
    CheckRequest request;
    lessons::CheckReport report;
    std::shared_ptr<const TraceViews>
        views;        // of `launch`; null when nothing ran (compile error, fault before a launch)
    int launch = -1;  // which launch `views` shows (index into report.launches)
    // A program lesson's streams timeline (its run's timeline file); null when it wrote none.
    std::shared_ptr<const StreamsTimeline> streams;
    std::string streams_error;  // why there is none, or why it is incomplete
    std::string source;         // the file's text as checked
    // Lines of the file a failure names (a kernel fault, a failed call, a race): marked in the
    // gutter as compile errors are (fault_lines.h).
    std::vector<compiler::Diagnostic> faults;
    double check_seconds = 0;  // compile + run + checks
    double views_seconds = 0;  // building the view data
    Clock::time_point finished{};
};

class CheckRunner {
  public:
    // `on_finished` (optional) is called on the worker thread after each check: the app wakes its
    // event loop with it, so a result is drawn as soon as it exists.
    explicit CheckRunner(lessons::Course course, std::function<void()> on_finished = nullptr);
    ~CheckRunner();
    CheckRunner(const CheckRunner&) = delete;
    CheckRunner& operator=(const CheckRunner&) = delete;

    std::uint64_t request(CheckRequest request);
    std::optional<CheckOutcome> take();  // the newest finished outcome, if any (non-blocking)
    std::optional<CheckOutcome> wait(double timeout_seconds);
    bool busy() const;
    const lessons::Course& course() const { return course_; }

  private:
    void run();

    lessons::Course course_;
    std::function<void()> on_finished_;
    compiler::Compiler compiler_;
    mutable std::mutex mutex_;
    std::condition_variable wake_, done_;
    std::optional<CheckRequest> pending_;
    std::optional<CheckOutcome> finished_;
    bool running_ = false;
    bool stop_ = false;
    std::uint64_t next_id_ = 1;
    std::thread worker_;
};

}  // namespace cudalab::viewmodel
