#include "gpu/driver_api.h"

#include <dlfcn.h>
#include <mutex>

namespace cudalab::gpu {

std::string Driver::error_text(CUresult r) const {
    const char* name = nullptr;
    const char* text = nullptr;
    if (cuGetErrorName) cuGetErrorName(r, &name);
    if (cuGetErrorString) cuGetErrorString(r, &text);
    std::string s = name ? name : "CUDA error " + std::to_string(int(r));
    if (text) s += std::string(": ") + text;
    return s;
}

const Driver* driver(std::string* why) {
    static Driver d;
    static std::string failure;
    static bool loaded = false;
    static std::once_flag once;
    std::call_once(once, [] {
        d.library = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!d.library) {
            failure = "no CUDA driver (libcuda.so.1 not found)";
            return;
        }
        bool ok = true;
#define CUDALAB_LOAD(member, symbol, fallback)                                                     \
    {                                                                                              \
        void* f = dlsym(d.library, symbol);                                                        \
        if (!f && fallback[0]) f = dlsym(d.library, fallback);                                     \
        if (!f) {                                                                                  \
            failure = std::string("the CUDA driver lacks ") + symbol;                              \
            ok = false;                                                                            \
        } else d.member = reinterpret_cast<decltype(d.member)>(f);                                 \
    }
        CUDALAB_DRIVER_FUNCTIONS(CUDALAB_LOAD)
#undef CUDALAB_LOAD
        if (!ok) return;
        d.cuLaunchKernelEx =
            reinterpret_cast<decltype(d.cuLaunchKernelEx)>(dlsym(d.library, "cuLaunchKernelEx"));
        CUresult r = d.cuInit(0);
        if (r != CUDA_SUCCESS) {
            failure = "the CUDA driver did not initialise (" + d.error_text(r) + ")";
            return;
        }
        int count = 0;
        if (d.cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
            failure = "the CUDA driver found no GPU";
            return;
        }
        loaded = true;
    });
    if (!loaded) {
        if (why) *why = failure;
        return nullptr;
    }
    return &d;
}

}  // namespace cudalab::gpu
