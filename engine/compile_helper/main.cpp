// cudalab-compile: the child process that runs NVRTC for the compiler service (see
// engine/compiler/compile_helper.h). It reads one request on standard input and writes the result
// on standard output; it is started by cudalab, never by hand.
#include "compiler/compile_helper.h"

#if defined(__SANITIZE_ADDRESS__)
// In the AddressSanitizer build (docs/ci.md) the leak check at exit cannot run here: by then the
// helper is inside its Landlock sandbox, where LeakSanitizer cannot read /proc/self/task and
// fails the compile. The helper exits after one request, so a leak could not accumulate;
// AddressSanitizer's other checks stay on.
extern "C" const char* __asan_default_options() { return "detect_leaks=0"; }
#endif

int main() { return cudalab::compiler::serve_compile_request(); }
