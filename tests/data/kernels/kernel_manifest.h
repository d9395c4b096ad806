// Reads manifest.txt: how each kernel of this folder is launched, and the inputs it gets. Shared by
// the emulator's tests (tests/emulator_*_test.cpp) and the GPU runner (run_on_gpu.cpp), so both
// launch the same kernels on the same inputs. Header-only, standard C++ only.
#pragma once

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace cudalab::kernels {

struct Dim {
    std::uint32_t x = 1, y = 1, z = 1;
};

struct ManifestEntry {
    std::string file;       // "integer.cu"
    std::string kernel;     // extern "C" name
    Dim grid, block;
    std::uint32_t shared_bytes = 0;
    std::uint32_t in_words = 0, out_words = 0;
    std::string gpu = "exact";  // exact, approx, printf, order
    std::string first;          // a kernel to run first on the same buffers (1 block of 32 threads)
    std::string options;        // extra NVRTC options
    std::string stem() const { return file.substr(0, file.rfind('.')); }
};

inline Dim parse_dim(const std::string& text) {
    Dim d;
    std::uint32_t* parts[3] = {&d.x, &d.y, &d.z};
    std::istringstream in(text);
    std::string item;
    for (int i = 0; i < 3 && std::getline(in, item, ','); ++i) *parts[i] = std::uint32_t(std::stoul(item));
    return d;
}

inline std::vector<ManifestEntry> read_manifest(const std::string& path) {
    std::vector<ManifestEntry> entries;
    std::ifstream file(path);
    std::string line;
    while (std::getline(file, line)) {
        if (line.empty() || line[0] == '#') continue;
        std::istringstream in(line);
        ManifestEntry e;
        std::string grid, block;
        if (!(in >> e.file >> e.kernel >> grid >> block >> e.shared_bytes >> e.in_words >> e.out_words)) continue;
        e.grid = parse_dim(grid);
        e.block = parse_dim(block);
        std::string extra;
        while (in >> extra) {
            if (extra.rfind("gpu=", 0) == 0) e.gpu = extra.substr(4);
            else if (extra.rfind("first=", 0) == 0) e.first = extra.substr(6);
            else if (extra.rfind("opts=", 0) == 0) e.options = extra.substr(5);
        }
        entries.push_back(e);
    }
    return entries;
}

// The input words: word i is the low 32 bits of splitmix64(seed + i).
inline std::vector<std::uint32_t> input_words(std::uint32_t count, std::uint64_t seed = 2024) {
    std::vector<std::uint32_t> words(count);
    for (std::uint32_t i = 0; i < count; ++i) {
        std::uint64_t z = seed + i + 0x9e3779b97f4a7c15ull;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        words[i] = std::uint32_t(z ^ (z >> 31));
    }
    return words;
}

}  // namespace cudalab::kernels
