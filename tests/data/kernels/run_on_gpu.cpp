// Runs every kernel of manifest.txt on a real GPU, from the PTX corpus in ../ptx (the same PTX the
// emulator's tests run), and writes each kernel's output words to OUT_DIR/<kernel>.bin and the
// printf output of gpu=printf kernels to OUT_DIR/<kernel>.txt. tests/emulator_gpu_agreement_test.cpp
// compares the emulator with what it wrote (kept in h200/).
//
//   g++ -std=c++17 -O1 -I/usr/local/cuda/include tests/data/kernels/run_on_gpu.cpp -lcuda -o run_on_gpu
//   ./run_on_gpu tests/data OUT_DIR
#include <cuda.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "kernel_manifest.h"

#define CHECK(call)                                                                      \
    do {                                                                                 \
        CUresult r_ = (call);                                                            \
        if (r_ != CUDA_SUCCESS) {                                                        \
            const char* s_ = nullptr;                                                    \
            cuGetErrorString(r_, &s_);                                                   \
            std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, s_ ? s_ : "?"); \
            std::exit(1);                                                                \
        }                                                                                \
    } while (0)

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: run_on_gpu TEST_DATA_DIR OUT_DIR\n");
        return 2;
    }
    const std::string data = argv[1], out_dir = argv[2];
    CHECK(cuInit(0));
    CUdevice device;
    CHECK(cuDeviceGet(&device, 0));
    CUcontext context;
    CHECK(cuDevicePrimaryCtxRetain(&context, device));
    CHECK(cuCtxSetCurrent(context));
    std::map<std::string, CUmodule> modules;
    for (const auto& e : cudalab::kernels::read_manifest(data + "/kernels/manifest.txt")) {
        if (!modules.count(e.stem())) {
            std::ifstream f(data + "/ptx/" + e.stem() + ".ptx");
            std::stringstream ptx;
            ptx << f.rdbuf();
            CUmodule m;
            CHECK(cuModuleLoadData(&m, ptx.str().c_str()));
            modules[e.stem()] = m;
        }
        CUmodule m = modules[e.stem()];
        const auto input = cudalab::kernels::input_words(e.in_words);
        CUdeviceptr in, out;
        CHECK(cuMemAlloc(&in, e.in_words * 4));
        CHECK(cuMemAlloc(&out, e.out_words * 4));
        CHECK(cuMemcpyHtoD(in, input.data(), e.in_words * 4));
        CHECK(cuMemsetD8(out, 0, e.out_words * 4));
        void* args[] = {&in, &out};
        if (!e.first.empty()) {
            CUfunction f;
            CHECK(cuModuleGetFunction(&f, m, e.first.c_str()));
            CHECK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, nullptr, args, nullptr));
        }
        CUfunction f;
        CHECK(cuModuleGetFunction(&f, m, e.kernel.c_str()));
        std::printf("== %s\n", e.kernel.c_str());
        std::fflush(stdout);
        int saved_stdout = -1;
        if (e.gpu == "printf") {  // device printf reaches stdout at the synchronisation: catch it
            saved_stdout = dup(1);
            const int file = open((out_dir + "/" + e.kernel + ".txt").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            dup2(file, 1);
            close(file);
        }
        CHECK(cuLaunchKernel(f, e.grid.x, e.grid.y, e.grid.z, e.block.x, e.block.y, e.block.z, e.shared_bytes, nullptr,
                             args, nullptr));
        CHECK(cuCtxSynchronize());
        std::fflush(stdout);
        if (saved_stdout >= 0) {
            dup2(saved_stdout, 1);
            close(saved_stdout);
        }
        std::vector<std::uint32_t> result(e.out_words);
        CHECK(cuMemcpyDtoH(result.data(), out, e.out_words * 4));
        std::ofstream(out_dir + "/" + e.kernel + ".bin", std::ios::binary)
            .write(reinterpret_cast<const char*>(result.data()), std::streamsize(e.out_words * 4));
        CHECK(cuMemFree(in));
        CHECK(cuMemFree(out));
    }
    return 0;
}
