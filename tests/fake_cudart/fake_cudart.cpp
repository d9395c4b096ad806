// A stand-in for the emulated CUDA runtime, for the tests of `cudalab run` only. Like the real one
// it is two halves: this libcudart.so.13 (the soname and symbol version nvcc-built programs ask
// for) keeps "device" memory on the host, runs no kernel and tells its device (fake_device.cpp,
// started by `cudalab run` as cudalab-device) what the program did, one line per event, over the
// connection CUDALAB_DEVICE_FD names; the device writes the files the real one writes
// (CUDALAB_RESULT, CUDALAB_TIMELINE) from the CUDALAB_* settings it was given. So the tests see
// which settings reached which process. Every entry point it lacks makes the program fail to
// start, which is what a test would notice.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

int device_fd() {
    static const int fd = [] {
        const char* v = std::getenv("CUDALAB_DEVICE_FD");
        return v && *v ? std::atoi(v) : -1;
    }();
    return fd;
}

void tell(const char* line) {
    if (device_fd() >= 0) (void)!::write(device_fd(), line, std::strlen(line));
}

// The device's settings, as it answers "settings?": "DEVICES DRIVER".
int setting(int which) {
    static int values[2] = {-1, -1};
    if (values[0] < 0) {
        values[0] = 1;
        values[1] = 13000;
        tell("settings?\n");
        char line[64] = {};
        std::size_t got = 0;
        while (device_fd() >= 0 && got + 1 < sizeof line) {
            const ssize_t k = ::read(device_fd(), line + got, 1);
            if (k <= 0 || line[got] == '\n') break;
            ++got;
        }
        std::sscanf(line, "%d %d", &values[0], &values[1]);
    }
    return values[which];
}

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
    tell("launch\n");
    return 0;
}
int __cudaGetKernel(void** kernel, const void* func) {
    *kernel = const_cast<void*>(func);
    return 0;
}
int cudaLaunchKernel(const void*, unsigned long long, unsigned, unsigned long long, unsigned,
                     void**, std::size_t, void*) {
    tell("launch\n");
    return 0;
}
int cudaGetDeviceCount(int* n) {
    *n = setting(0);
    return 0;
}
int cudaMalloc(void** p, std::size_t n) {
    *p = std::malloc(n ? n : 1);
    tell("malloc\n");
    return 0;
}
int cudaFree(void* p) {
    if (p) {
        std::free(p);
        tell("free\n");
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
    *v = setting(1);
    return 0;
}

}  // extern "C"
