// A stand-in for the emulated CUDA runtime, for the tests of `cudalab run` only: it has the
// libcudart.so.13 soname and symbol version that nvcc-built programs ask for, keeps "device"
// memory on the host, runs no kernel (it counts launches), and writes the files the real one
// writes at exit (CUDALAB_RESULT, CUDALAB_TIMELINE) from the CUDALAB_* settings it was given, so
// the tests see what reached the program. Every entry point it lacks makes the program fail to
// start, which is what a test would notice.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

int g_launches = 0;
int g_live_allocations = 0;

struct AtExit {
    ~AtExit() {
        if (const char* path = std::getenv("CUDALAB_RESULT")) {
            if (FILE* f = std::fopen(path, "w")) {
                const char* devices = std::getenv("CUDALAB_DEVICES");
                const char* driver = std::getenv("CUDALAB_DRIVER_VERSION");
                const char* budget = std::getenv("CUDALAB_BUDGET");
                std::fprintf(f,
                             "{\"faults\":[],\"leaks\":[%s],\"unsupported\":[],\"fake\":true,"
                             "\"launches\":%d,"
                             "\"devices\":\"%s\",\"driver_version\":\"%s\",\"budget\":\"%s\","
                             "\"trace\":\"%s\"}\n",
                             g_live_allocations ? "{\"count\":1}" : "", g_launches,
                             devices ? devices : "", driver ? driver : "", budget ? budget : "",
                             std::getenv("CUDALAB_TRACE") ? "set" : "");
                std::fclose(f);
            }
        }
        if (const char* path = std::getenv("CUDALAB_TIMELINE")) {
            if (FILE* f = std::fopen(path, "w")) {
                std::fprintf(f,
                             "{\"traceEvents\":[{\"name\":\"fake\",\"ph\":\"X\",\"ts\":0,\"dur\":1,"
                             "\"pid\":0,\"tid\":0,\"args\":{\"launches\":%d}}]}\n",
                             g_launches);
                std::fclose(f);
            }
        }
    }
} g_at_exit;

}  // namespace

extern "C" {

void** __cudaRegisterFatBinary(void*) {
    static void* handle = nullptr;
    return &handle;
}
void __cudaRegisterFatBinaryEnd(void**) {}
void __cudaUnregisterFatBinary(void**) {}
void __cudaRegisterFunction(void**, const char*, char*, const char*, int, void*, void*, void*,
                            void*, int*) {}
void __cudaRegisterVar(void**, char*, char*, const char*, int, std::size_t, int, int) {}
char __cudaInitModule(void**) { return 0; }
unsigned __cudaPushCallConfiguration(unsigned long long, unsigned, unsigned long long, unsigned,
                                     std::size_t, void*) {
    return 0;
}
int __cudaPopCallConfiguration(void*, void*, std::size_t*, void*) { return 0; }
int __cudaLaunchKernel(const void*, unsigned long long, unsigned, unsigned long long, unsigned,
                       void**, std::size_t, void*) {
    ++g_launches;
    return 0;
}
int __cudaGetKernel(void** kernel, const void* func) {
    *kernel = const_cast<void*>(func);
    return 0;
}
int cudaLaunchKernel(const void*, unsigned long long, unsigned, unsigned long long, unsigned,
                     void**, std::size_t, void*) {
    ++g_launches;
    return 0;
}
int cudaGetDeviceCount(int* n) {
    const char* d = std::getenv("CUDALAB_DEVICES");
    *n = d ? std::atoi(d) : 1;
    return 0;
}
int cudaMalloc(void** p, std::size_t n) {
    *p = std::malloc(n ? n : 1);
    ++g_live_allocations;
    return 0;
}
int cudaFree(void* p) {
    if (p) {
        std::free(p);
        --g_live_allocations;
    }
    return 0;
}
int cudaMemcpy(void* d, const void* s, std::size_t n, int) {
    std::memcpy(d, s, n);
    return 0;
}
int cudaDeviceSynchronize() { return 0; }
int cudaGetLastError() { return 0; }
const char* cudaGetErrorString(int) { return "fake runtime error"; }
int cudaDriverGetVersion(int* v) {
    const char* d = std::getenv("CUDALAB_DRIVER_VERSION");
    *v = d ? std::atoi(d) : 13000;
    return 0;
}

}  // extern "C"
