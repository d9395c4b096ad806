// Lesson 14: computes mix() on the host and never touches the GPU. out.bin is right, but there is
// no copy or kernel to overlap: it must not pass.
#include <cstdio>
#include <vector>

int main(int argc, char** argv)
{
    if (argc != 3) return 2;
    FILE* f = std::fopen(argv[1], "rb");
    if (!f) return 1;
    unsigned n = 0;
    if (std::fread(&n, sizeof n, 1, f) != 1) return 1;
    std::vector<unsigned> v(n);
    if (std::fread(v.data(), sizeof(unsigned), n, f) != n) return 1;
    std::fclose(f);
    for (auto& x : v)
        for (unsigned r = 0; r < 256; ++r) x = (x ^ (x >> 15)) * 2246822519u + r;
    FILE* o = std::fopen(argv[2], "wb");
    if (!o || std::fwrite(v.data(), sizeof(unsigned), n, o) != n) return 1;
    std::fclose(o);
    return 0;
}
