// The GPU test suite: its own executable, so that on a machine with no GPU it can stop before any
// test and tell ctest it was skipped (exit 77), with the reason visible in the test log.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <cstdio>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include "backends/factory.h"

namespace {

// Whether a GPU is usable, asked in a child process: starting the CUDA driver here would change
// what NVRTC reports for the rest of this process (no ptxas resource report after cuInit).
bool gpu_present(std::string* why) {
    int fds[2];
    if (pipe(fds) != 0) return false;
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        std::string reason;
        bool ok = cudalab::make_gpu_backend(&reason) != nullptr;
        if (!ok && write(fds[1], reason.data(), reason.size()) < 0) _exit(2);
        _exit(ok ? 0 : 1);
    }
    close(fds[1]);
    char buf[512];
    ssize_t n;
    while ((n = read(fds[0], buf, sizeof buf)) > 0) why->append(buf, std::size_t(n));
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

int main(int argc, char** argv) {
    std::string why;
    if (!gpu_present(&why)) {
        std::printf("SKIPPED: the GPU tests need a GPU: %s\n", why.c_str());
        return 77;
    }
    doctest::Context context(argc, argv);
    return context.run();
}
