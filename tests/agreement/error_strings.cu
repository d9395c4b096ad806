// Every cudaError_t and CUresult code from 0 to 1100 with its name and string, as the runtime and
// driver in use give them: run against NVIDIA's libraries on a GPU and against cudalab's emulated
// runtime, and compare (docs/runtime.md).
//   nvcc -cudart shared error_strings.cu -o error_strings -lcuda && ./error_strings
// error_strings_h200.txt is its output on an H200 (driver 580.159.04, CUDA 13.0, 2026-12-02);
// run_error_strings.py compares the emulated runtime with it.
#include <cstdio>
#include <cuda.h>
#include <cuda_runtime.h>

int main() {
    for (int c = 0; c <= 1100; ++c) {
        const char* name = cudaGetErrorName(cudaError_t(c));
        const char* text = cudaGetErrorString(cudaError_t(c));
        std::printf("runtime %d\t%s\t%s\n", c, name ? name : "(null)", text ? text : "(null)");
    }
    for (int c = 0; c <= 1100; ++c) {
        const char* name = nullptr;
        const char* text = nullptr;
        const CUresult rn = cuGetErrorName(CUresult(c), &name);
        const CUresult rs = cuGetErrorString(CUresult(c), &text);
        std::printf("driver %d\t%d %s\t%d %s\n", c, int(rn), name ? name : "(null)", int(rs),
                    text ? text : "(null)");
    }
    return 0;
}
