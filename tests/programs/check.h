// Shared helpers for the test programs in tests/programs/ (no helper_cuda.h).
// CHECK(call) stops the program with exit code 1, naming the file, line, call and error, when a
// runtime call does not return cudaSuccess; EXPECT(cond, ...) does the same for a result check.
#pragma once
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(call)                                                                              \
    do {                                                                                         \
        cudaError_t check_err_ = (call);                                                         \
        if (check_err_ != cudaSuccess) {                                                         \
            std::fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,      \
                         cudaGetErrorName(check_err_), cudaGetErrorString(check_err_));          \
            std::exit(1);                                                                        \
        }                                                                                        \
    } while (0)

// Checks that a call returned one particular error code (for programs that test error paths).
#define CHECK_IS(call, expected)                                                                 \
    do {                                                                                         \
        cudaError_t check_err_ = (call);                                                         \
        if (check_err_ != (expected)) {                                                          \
            std::fprintf(stderr, "%s:%d: %s returned %s, expected %s\n", __FILE__, __LINE__,    \
                         #call, cudaGetErrorName(check_err_), cudaGetErrorName(expected));       \
            std::exit(1);                                                                        \
        }                                                                                        \
    } while (0)

// Launch check: the launch itself (configuration) and, in debug style, nothing more; the
// kernel's own faults surface at the next synchronising call, which programs CHECK.
#define CHECK_LAUNCH() CHECK(cudaGetLastError())

#define EXPECT(cond, ...)                                                                        \
    do {                                                                                         \
        if (!(cond)) {                                                                           \
            std::fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);       \
            std::fprintf(stderr, __VA_ARGS__);                                                   \
            std::fprintf(stderr, "\n");                                                          \
            std::exit(1);                                                                        \
        }                                                                                        \
    } while (0)
