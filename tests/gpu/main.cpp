// The GPU test suite: its own executable, so that on a machine with no GPU it can stop before any
// test and tell ctest it was skipped (exit 77), with the reason visible in the test log.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>

#include "runtime/gpu_probe.h"

int main(int argc, char** argv) {
    std::string why;
    if (!cudalab::make_gpu_backend(&why)) {
        std::printf("SKIPPED: the GPU tests need a GPU: %s\n", why.c_str());
        return 77;
    }
    doctest::Context context(argc, argv);
    return context.run();
}
