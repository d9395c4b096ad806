// Corpus (tests/submissions_test.cpp): the shipped program with the first call checked: it names the old driver, and still runs nowhere before sm_90.
// Lesson 18 — compatibility: one program for every GPU from sm_75 to sm_120.
//
// A whole program. The lesson runs it as   ./program in.bin out.bin
//   in.bin:  a 32-bit count n (1 or more), then n 32-bit unsigned values;
//   out.bin: the n values mix() makes of them.
// It runs it on emulated GPUs of several architectures (CUDALAB_DEVICE_ARCH: sm_75, sm_80, sm_86,
// sm_89, sm_90, sm_100, sm_120) and once with a driver older than the runtime
// (CUDALAB_DRIVER_VERSION=12080).
//
// The lesson builds this file with nvcc -arch=sm_90: the executable holds machine code for sm_90
// and PTX for compute_90, which no GPU older than sm_90 can use. As shipped, the launch fails on
// those with cudaErrorNoKernelImageForDevice, and the program does not even notice.
// TODO: make it run on every GPU (lessons/18-compatibility/lesson.md): compile the kernel at run
// time for the GPU that is there (NVRTC), load it with cuModuleLoadData and launch it with
// cuLaunchKernel; check every call and name the error on stderr. The lesson links -lnvrtc -lcuda.
#include <cstdio>
#include <cstdlib>

__global__ void mix(unsigned* data, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned v = data[i];
    for (unsigned r = 0; r < 64; ++r) v = (v ^ (v >> 13)) * 2654435761u + r;
    data[i] = v;
}

int main(int argc, char** argv)
{
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s in.bin out.bin\n", argv[0]);
        return 2;
    }
    FILE* f = std::fopen(argv[1], "rb");
    if (!f) { std::perror(argv[1]); return 1; }
    unsigned n = 0;
    if (std::fread(&n, sizeof n, 1, f) != 1 || n == 0) { std::fprintf(stderr, "%s: no count\n", argv[1]); return 1; }
    const size_t bytes = size_t(n) * sizeof(unsigned);
    unsigned* h = (unsigned*)std::malloc(bytes);
    if (!h || std::fread(h, sizeof(unsigned), n, f) != n) { std::fprintf(stderr, "%s: short file\n", argv[1]); return 1; }
    std::fclose(f);

    unsigned* d = nullptr;
    if (cudaError_t e = cudaMalloc(&d, bytes); e != cudaSuccess) {
        std::fprintf(stderr, "cudaMalloc: %s\n", cudaGetErrorName(e));
        return 1;
    }
    cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice);
    // Four batches, one launch each.
    const int threads = 256, batches = 4;
    const unsigned per = (n + batches - 1) / batches;
    for (int b = 0; b < batches; ++b) {
        const unsigned first = b * per;
        if (first >= n) break;
        const unsigned count = n - first < per ? n - first : per;
        mix<<<(count + threads - 1) / threads, threads>>>(d + first, int(count));
    }
    cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost);

    FILE* o = std::fopen(argv[2], "wb");
    if (!o || std::fwrite(h, sizeof(unsigned), n, o) != n) { std::perror(argv[2]); return 1; }
    std::fclose(o);
    cudaFree(d);
    std::free(h);
    std::printf("mixed %u values\n", n);
    return 0;
}
