// The host runs every step; a graph of ten empty kernels, instantiated once, is launched once per
// step, so the timeline shows graph launches and no direct ones. No kernel computed out.bin.
// corpus: expect out.bin was not copied from device memory that the kernels wrote
#include <cstdio>
#include <vector>

__global__ void nothing() {}

static unsigned stir(unsigned v, unsigned mul, unsigned add) { return (v ^ (v >> 13)) * mul + add; }

int main(int argc, char** argv)
{
    if (argc != 3) return 2;
    FILE* f = std::fopen(argv[1], "rb");
    unsigned header[2];
    if (!f || std::fread(header, sizeof(unsigned), 2, f) != 2) return 1;
    const unsigned n = header[0], steps = header[1];
    std::vector<unsigned> v(n);
    if (std::fread(v.data(), sizeof(unsigned), n, f) != n) return 1;
    std::fclose(f);
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal);
    for (int k = 0; k < 10; ++k) nothing<<<1, 32, 0, s>>>();
    cudaStreamEndCapture(s, &graph);
    cudaGraphInstantiate(&exec, graph, 0);
    for (unsigned step = 0; step < steps; ++step) {
        for (auto& x : v) {
            x = stir(x, 2654435761u, 1u);
            unsigned a = stir(x, 2246822519u, 3u), b = stir(x, 3266489917u, 5u);
            for (unsigned r = 0; r < 3; ++r) {
                a = stir(a, 668265263u + 2 * r, r);
                b = stir(b, 374761393u + 2 * r, r + 7);
            }
            x = a ^ ((b << 7) | (b >> 25));
        }
        cudaGraphLaunch(exec, s);
    }
    cudaStreamSynchronize(s);
    FILE* o = std::fopen(argv[2], "wb");
    if (!o || std::fwrite(v.data(), 4, n, o) != n) return 1;
    std::fclose(o);
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
    cudaStreamDestroy(s);
    return 0;
}
