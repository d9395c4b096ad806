#include "viewmodel/trace_views.h"

#include <chrono>

namespace cudalab::viewmodel {

std::shared_ptr<const TraceViews>
build_trace_views(std::shared_ptr<const Trace> trace, std::string source,
                  const compiler::CompileResult* module, const std::string& arch,
                  const std::vector<lessons::BufferShape>* shapes) {
    if (!trace) return nullptr;
    const auto started = std::chrono::steady_clock::now();
    auto v = std::make_shared<TraceViews>(trace);
    v->source = std::move(source);
    v->grid = GridModel::build(*trace);
    v->memory = shapes ? MemoryModel::build(*trace, v->source, *shapes)
                       : MemoryModel::build(*trace, v->source);
    v->shared = SharedModel::build(*trace);
    v->figures = analysis::analyze(*trace);
    v->annotations = annotate(v->figures);
    const compiler::KernelResources* resources = nullptr;
    if (module) {
        resources = module->kernel(trace->kernel.entry);
        if (!resources) resources = module->kernel(trace->kernel.name);
    }
    v->hierarchy = hierarchy_figures(v->figures, trace->kernel, resources, arch);
    v->build_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return v;
}

}  // namespace cudalab::viewmodel
