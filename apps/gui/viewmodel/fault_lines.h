// The lines of the learner's file that a run's failures name: a kernel fault
// ("exercises/02-vector-add.cu:12: error: ..."), a failed CUDA call of a whole program ("launched
// at 14-streams.cu:41"), a race between streams. The code panel marks them in the gutter as it
// marks compile errors, with the failure's words on hover.
#pragma once

#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "lessons/course.h"

namespace cudalab::viewmodel {

// `file_name`: the checked file's path; matched by its last component (the messages name it
// either way). One diagnostic per line named, the first words that named it, in line order.
std::vector<compiler::Diagnostic> fault_lines(const lessons::CheckReport& report,
                                              const std::string& file_name);

}  // namespace cudalab::viewmodel
