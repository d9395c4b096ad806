// A forked child has no CUDA context: its calls fail with cudaErrorInitializationError (as CUDA's
// do after fork) and say why, while the parent carries on with its device; a program the child
// execs would start a device of its own.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>

#include "check.h"

__global__ void fill(int* p, int v) { p[threadIdx.x] = v; }

int main()
{
    int* d = nullptr;
    CHECK(cudaMalloc(&d, 32 * sizeof(int)));
    const pid_t child = fork();
    if (child == 0) {
        int* mine = nullptr;
        const cudaError_t e = cudaMalloc(&mine, 64);
        std::printf("child: cudaMalloc -> %s\n", cudaGetErrorName(e));
        std::fflush(stdout);
        _exit(e == cudaErrorInitializationError ? 0 : 1);
    }
    int status = 0;
    waitpid(child, &status, 0);
    fill<<<1, 32>>>(d, 7);
    int h[32] = {};
    CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d));
    const bool ok = WIFEXITED(status) && WEXITSTATUS(status) == 0 && h[31] == 7;
    std::printf("fork_child: the child is refused, the parent carries on: %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
}
