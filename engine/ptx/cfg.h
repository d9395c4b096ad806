// Control-flow facts the emulator needs: for every branch, the pc where its diverged lanes meet
// again, the immediate post-dominator of the branch's basic block (the classic SIMT reconvergence
// point). A branch whose paths only meet at the function's end gets code.size().
#pragma once

#include "ptx/module.h"

namespace cudalab::ptx {

void compute_reconvergence(Function& fn);

}  // namespace cudalab::ptx
