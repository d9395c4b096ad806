// The views of a whole program's run (program lessons): the streams timeline, the DAG of its graph
// launches and the page map of its managed memory, drawn from viewmodel::StreamsTimeline.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "viewmodel/streams_model.h"

namespace cudalab::gui {

enum class ProgramView { streams, graph, pages };
constexpr int kProgramViewCount = 3;
const char* program_view_name(ProgramView v);   // "streams", "graph", "pages" (the --view argument)
const char* program_view_title(ProgramView v);  // the tab
std::optional<ProgramView> program_view_from_name(const std::string& name);

struct StreamsViewContext {
    std::shared_ptr<const viewmodel::StreamsTimeline> timeline;
    std::string json;    // the file as the runtime wrote it (what "Export" writes)
    std::string lesson;  // names the exported file
    // The visible time window (microseconds); reset to the whole run when the timeline changes.
    double view_start = 0, view_end = 0;
    const viewmodel::StreamsTimeline* fitted_for = nullptr;
    std::optional<std::size_t> selected;  // the item clicked last
    int graph = 0;                        // the graph launch the Graph tab draws
    std::string message;                  // the last export's outcome
    bool message_error = false;
    // Requests a view makes of the app: trace this kernel launch (the runtime's number).
    std::optional<std::uint64_t> trace_launch_request;
    bool can_trace = false;  // the app can re-run the lesson to trace a launch
    // The heading's "copies hidden behind kernels": for a lesson that grades it (a check about
    // copies overlapping kernels) and for a timeline file opened by itself; not for lessons where
    // overlap is no goal (02b, 15, 20), where a 0 % would read as a fault.
    bool show_copy_overlap = true;
};

void draw_streams_view(StreamsViewContext& c);
void draw_graph_view(StreamsViewContext& c);
void draw_pages_view(StreamsViewContext& c);

}  // namespace cudalab::gui
