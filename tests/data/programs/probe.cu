// The program the tests of `cudalab run` build and run: one behaviour per first argument.
#include <cuda_runtime.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "probe_util.h"

__global__ void scale(float* x, float k, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= k;
}

int main(int argc, char** argv) {
    std::string what = argc > 1 ? argv[1] : "hello";
    if (what == "hello") { std::printf("hello from %s\n", PROBE_GREETING); return 0; }
    if (what == "args") { for (int i = 0; i < argc; ++i) std::printf("argv[%d]=%s\n", i, argv[i]); return 0; }
    if (what == "exit") return std::atoi(argv[2]);
    if (what == "devices") {
        int n = -1;
        cudaError_t e = cudaGetDeviceCount(&n);
        std::printf("devices %d (%s)\n", n, e == cudaSuccess ? "ok" : cudaGetErrorString(e));
        return e == cudaSuccess ? 0 : 1;
    }
    if (what == "launch") {
        float* d = nullptr;
        cudaMalloc(&d, 256 * sizeof(float));
        scale<<<1, 256>>>(d, 2.0f, 256);
        cudaDeviceSynchronize();
        std::printf("launched\n");
        if (argc > 2 && std::string(argv[2]) == "leak") return 0;
        cudaFree(d);
        return 0;
    }
    if (what == "segv") { std::printf("before the crash\n"); volatile int* p = nullptr; *p = 1; return 0; }
    if (what == "abort") std::abort();
    if (what == "loop") { std::printf("looping\n"); std::fflush(stdout); for (volatile unsigned long i = 0;; ++i) {} }
    if (what == "sleep") { sleep(1000); return 0; }
    if (what == "spam") { std::string line(1000, 'x'); for (;;) std::puts(line.c_str()); }
    if (what == "stderr") { std::fprintf(stderr, "to stderr\n"); std::printf("to stdout\n"); return 3; }
    if (what == "alloc") {
        std::vector<char*> blocks;
        for (;;) { char* b = static_cast<char*>(std::malloc(64 << 20)); std::memset(b, 1, 64 << 20); blocks.push_back(b); }
    }
    if (what == "fork") {
        for (int i = 0; i < 2000; ++i) if (fork() == 0) { sleep(1000); _exit(0); }
        std::printf("forked\n");
        sleep(1000);
        return 0;
    }
    if (what == "orphan") {
        // A grandchild that would outlive the program: cudalab must stop it.
        if (fork() == 0) { if (fork() == 0) { std::FILE* f = std::fopen(argv[2], "w"); std::fprintf(f, "%d\n", getpid()); std::fclose(f); sleep(1000); _exit(0); } _exit(0); }
        sleep(1);
        return 0;
    }
    if (what == "cwd") { char buf[4096]; std::printf("cwd %s\n", getcwd(buf, sizeof buf)); return 0; }
    if (what == "write") { std::FILE* f = std::fopen(argv[2], "w"); if (!f) { std::printf("cannot write %s\n", argv[2]); return 1; } std::fputs("written\n", f); std::fclose(f); std::printf("wrote %s\n", argv[2]); return 0; }
    if (what == "read") { std::FILE* f = std::fopen(argv[2], "r"); if (!f) { std::printf("cannot read %s\n", argv[2]); return 1; } char buf[256] = {}; std::fgets(buf, sizeof buf, f); std::printf("read %s", buf); return 0; }
    if (what == "env") { const char* v = std::getenv(argv[2]); std::printf("%s=%s\n", argv[2], v ? v : "(unset)"); return 0; }
    if (what == "net") {
        int s = socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(53);
        inet_pton(AF_INET, "1.1.1.1", &a.sin_addr);
        int rc = connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
        std::printf("connect %s\n", rc == 0 ? "ok" : std::strerror(errno));
        return 0;
    }
    if (what == "stdin") { char buf[256] = {}; if (std::fgets(buf, sizeof buf, stdin)) std::printf("got %s", buf); else std::printf("eof\n"); return 0; }
    std::fprintf(stderr, "probe: unknown behaviour '%s'\n", what.c_str());
    return 64;
}
