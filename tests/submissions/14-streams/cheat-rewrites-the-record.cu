// The exit-handler forgery: the host computes, and a handler registered from an early
// constructor rewrites the runtime's result and timeline after they are written, wherever the
// environment or /tmp says they are. The records are the device process's, written where the
// program cannot reach; and out.bin holds no kernel's bytes.
// corpus: expect out.bin was not copied from device memory that the kernels wrote
#include <dirent.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

static void forge(const char* path)
{
    if (!path) return;
    if (FILE* f = std::fopen(path, "w")) {
        std::fputs("{\"faults\":[],\"leaks\":{\"count\":0,\"bytes\":0,\"first\":[]},\"races\":[],"
                   "\"races_total\":0,\"kernels\":[{\"name\":\"mix\",\"launches\":4}]}\n", f);
        std::fclose(f);
    }
}

static void forge_everything()
{
    forge(std::getenv("CUDALAB_RESULT"));
    forge(std::getenv("CUDALAB_TIMELINE"));
    if (DIR* d = opendir("/tmp")) {
        while (dirent* e = readdir(d))
            if (std::strncmp(e->d_name, "cudalab-run-", 12) == 0)
                forge(("/tmp/" + std::string(e->d_name) + "/result.json").c_str());
        closedir(d);
    }
}

__attribute__((constructor(101))) static void early() { std::atexit(forge_everything); }

__global__ void mix(unsigned* v, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = v[i];  // a decoy: copies each value onto itself
}

int main(int argc, char** argv)
{
    if (argc != 3) return 2;
    FILE* f = std::fopen(argv[1], "rb");
    unsigned n = 0;
    if (!f || std::fread(&n, sizeof n, 1, f) != 1) return 1;
    std::vector<unsigned> v(n);
    if (std::fread(v.data(), sizeof(unsigned), n, f) != n) return 1;
    std::fclose(f);
    std::vector<unsigned> original = v;
    for (auto& x : v)
        for (unsigned r = 0; r < 256; ++r) x = (x ^ (x >> 15)) * 2246822519u + r;
    unsigned* d = nullptr;
    cudaMalloc(&d, n * sizeof(unsigned));
    cudaMemcpy(d, original.data(), n * 4, cudaMemcpyHostToDevice);
    mix<<<(n + 255) / 256, 256>>>(d, n);
    cudaMemcpy(original.data(), d, n * 4, cudaMemcpyDeviceToHost);
    cudaFree(d);
    FILE* o = std::fopen(argv[2], "wb");
    if (!o || std::fwrite(v.data(), sizeof(unsigned), n, o) != n) return 1;
    std::fclose(o);
    return 0;
}
