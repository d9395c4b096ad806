#include "viewmodel/check_runner.h"

#include "viewmodel/fault_lines.h"

#include "viewmodel/exercise_files.h"

namespace cudalab::viewmodel {

CheckRunner::CheckRunner(lessons::Course course, std::function<void()> on_finished)
    : course_(std::move(course)), on_finished_(std::move(on_finished)) {
    worker_ = std::thread([this] { run(); });
}

CheckRunner::~CheckRunner() {
    {
        std::lock_guard<std::mutex> lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    worker_.join();
}

std::uint64_t CheckRunner::request(CheckRequest r) {
    std::lock_guard<std::mutex> lock(mutex_);
    r.id = next_id_++;
    const std::uint64_t id = r.id;
    pending_ = std::move(r);
    wake_.notify_all();
    return id;
}

std::optional<CheckOutcome> CheckRunner::take() {
    std::lock_guard<std::mutex> lock(mutex_);
    std::optional<CheckOutcome> out = std::move(finished_);
    finished_.reset();
    return out;
}

std::optional<CheckOutcome> CheckRunner::wait(double timeout_seconds) {
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait_for(lock, std::chrono::duration<double>(timeout_seconds),
                   [&] { return finished_.has_value() && !pending_ && !running_; });
    std::optional<CheckOutcome> out = std::move(finished_);
    finished_.reset();
    return out;
}

bool CheckRunner::busy() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return running_ || pending_.has_value();
}

void CheckRunner::run() {
    for (;;) {
        CheckRequest r;
        {
            std::unique_lock<std::mutex> lock(mutex_);
            wake_.wait(lock, [&] { return stop_ || pending_.has_value(); });
            if (stop_) return;
            r = std::move(*pending_);
            pending_.reset();
            running_ = true;
        }
        CheckOutcome out;
        const auto started = Clock::now();
        const std::string path =
            r.options.source_path.empty()
                ? (r.options.solution ? r.lesson.solution_path : r.lesson.exercise_path)
                : r.options.source_path;
        read_file(path, &out.source);
        // The learner's own program on their own machine: in the sandbox where it can be made,
        // else as it is (`cudalab check` and `grade` refuse instead).
        lessons::CheckOptions options = r.options;
        options.sandbox = lessons::CheckOptions::Sandbox::optional;
        out.report = lessons::check_lesson(course_, r.lesson, options, compiler_);
        out.faults = fault_lines(out.report, path);
        const auto checked = Clock::now();
        out.check_seconds = std::chrono::duration<double>(checked - started).count();
        // The launch the grader measured, not merely the last: that is the one whose figures the
        // failing check quotes.
        const auto& traces = out.report.launch_traces;
        out.launch =
            r.launch >= 0 && r.launch < int(traces.size()) ? r.launch : out.report.focus_launch();
        if (out.launch >= 0 && out.launch < int(traces.size()) && traces[std::size_t(out.launch)])
            out.views = build_trace_views(traces[std::size_t(out.launch)], out.source,
                                          out.report.module.get(), std::string(hw::emulated_arch),
                                          &out.report.shapes);
        else if (out.report.last_trace)
            out.views =
                build_trace_views(out.report.last_trace, out.source, out.report.module.get(),
                                  std::string(hw::emulated_arch), &out.report.shapes);
        if (!out.report.program_timeline.empty()) {
            auto streams = std::make_shared<StreamsTimeline>();
            if (parse_streams_timeline(out.report.program_timeline, streams.get(),
                                       &out.streams_error)) {
                streams->run = out.report.program_timeline_run;
                out.streams = std::move(streams);
            }
        } else if (out.report.program && out.report.status.ok()) {
            out.streams_error =
                "the program's runs wrote no timeline the app can draw (the Output tab says why)";
        }
        out.finished = Clock::now();
        out.views_seconds = std::chrono::duration<double>(out.finished - checked).count();
        out.request = std::move(r);
        {
            std::lock_guard<std::mutex> lock(mutex_);
            finished_ = std::move(out);
            running_ = false;
        }
        done_.notify_all();
        if (on_finished_) on_finished_();
    }
}

}  // namespace cudalab::viewmodel
