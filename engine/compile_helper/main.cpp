// cudalab-compile: the child process that runs NVRTC for the compiler service (see
// engine/compiler/compile_helper.h). It reads one request on standard input and writes the result
// on standard output; it is started by cudalab, never by hand.
#include "compiler/compile_helper.h"

int main() { return cudalab::compiler::serve_compile_request(); }
