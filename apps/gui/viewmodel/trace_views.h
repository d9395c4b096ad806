// Everything the views draw from one trace, built once when the trace changes (on the check
// worker, off the UI thread): the step index, the grid, the buffers, shared memory, the figures
// per line and for the whole kernel. Immutable once built; the UI holds it by shared_ptr.
#pragma once

#include <memory>
#include <string>

#include "analysis/metrics.h"
#include "base/hardware.h"
#include "compiler/compiler.h"
#include "lessons/lesson.h"
#include "viewmodel/code_annotations.h"
#include "viewmodel/grid_model.h"
#include "viewmodel/hierarchy_model.h"
#include "viewmodel/memory_model.h"
#include "viewmodel/shared_model.h"
#include "viewmodel/trace_model.h"

namespace cudalab::viewmodel {

struct TraceViews {
    explicit TraceViews(std::shared_ptr<const Trace> t) : model(std::move(t)) {}
    TraceModel model;
    GridModel grid;
    MemoryModel memory;
    SharedModel shared;
    analysis::KernelFigures figures;
    CodeAnnotations annotations;
    HierarchyFigures hierarchy;
    std::string source;  // the kernel source the trace ran (for names and the code panel)
    double build_seconds = 0;
    const Trace& trace() const { return model.trace(); }
};

// `module` may be null (a trace loaded from a file): then there is no occupancy.
// `shapes` (optional): the buffer shapes the lesson declared; a buffer drawn with one is drawn in
// its shape (an image as an image, bins as a heat map).
std::shared_ptr<const TraceViews>
build_trace_views(std::shared_ptr<const Trace> trace, std::string source,
                  const compiler::CompileResult* module,
                  const std::string& arch = std::string(hw::emulated_arch),
                  const std::vector<lessons::BufferShape>* shapes = nullptr);

}  // namespace cudalab::viewmodel
