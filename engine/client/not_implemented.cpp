// Every runtime and driver entry point cudalab does not implement (engine/cudart/entry_points.def
// lists them all; the implemented ones are strong definitions in client.cpp and win at link
// time). A program calling one gets cudaErrorNotSupported / CUDA_ERROR_NOT_SUPPORTED and one line
// on stderr naming the function, instead of "undefined symbol" at load time or a silently wrong
// result.
//
// This file deliberately includes no CUDA header: the stubs' signatures are not the real ones,
// which is harmless for C functions returning an integer status (callers pass arguments the stub
// ignores).
namespace cudalab::client {
int report_not_implemented(const char* function);
}

#define X(name)                                                                                    \
    extern "C" __attribute__((weak, visibility("default"))) int name() {                           \
        return ::cudalab::client::report_not_implemented(#name);                                   \
    }
#include "device/entry_points.def"
#undef X
