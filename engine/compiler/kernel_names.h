// Finding kernels in NVRTC's PTX and naming them the way the learner wrote them.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cudalab::compiler {

struct PtxEntry {
    std::string mangled_name;       // as the .entry directive spells it
    int max_threads_per_block = 0;  // product of .maxntid (or .reqntid) dimensions, 0 when none
};

// Every .entry in the PTX, in order of appearance. Text inside comments is ignored.
std::vector<PtxEntry> ptx_entries(std::string_view ptx);

// The name without namespaces and template arguments: "ns::scale<float>" -> "scale". Lets a lesson
// ask for "scale" when the learner's file holds one instantiation or wraps it in a namespace.
std::string unqualified_name(std::string_view source_name);

}  // namespace cudalab::compiler
