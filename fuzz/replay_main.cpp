// Replays fuzz inputs through a fuzzer's entry function without libFuzzer, so the seed corpora are
// checked by ctest in every build (g++ included) and, in the sanitized build of ./test.sh, under
// AddressSanitizer and UndefinedBehaviorSanitizer (docs/ci.md). Arguments are files or folders
// (each regular file in a folder is one input); an input that breaks an invariant aborts in the
// entry function, which fails the test. It fails too when it found no input at all, so a moved
// corpus cannot pass silently.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

// `--random COUNT`: COUNT inputs of 0-511 bytes more, made by a fixed-seed generator (splitmix64),
// the same on every run and host: a deterministic stress test of targets whose every input is
// meaningful (emu_memory_fuzz), which the sanitized build runs like the seeds.
int replay_random(unsigned long count) {
    std::uint64_t state = 0x5eed;
    auto next = [&] {
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    };
    std::vector<std::uint8_t> bytes;
    for (unsigned long i = 0; i < count; ++i) {
        bytes.resize(std::size_t(next() % 512));
        for (std::uint8_t& b : bytes) b = std::uint8_t(next());
        LLVMFuzzerTestOneInput(bytes.data(), bytes.size());
    }
    std::printf("fuzz replay: %lu random inputs, no invariant broken\n", count);
    return 0;
}

int main(int argc, char** argv) {
    namespace fs = std::filesystem;
    std::vector<fs::path> inputs;
    unsigned long random = 0;
    for (int i = 1; i < argc; ++i) {
        std::error_code ec;
        if (std::string(argv[i]) == "--random" && i + 1 < argc) {
            random = std::strtoul(argv[++i], nullptr, 10);
            continue;
        }
        const fs::path arg = argv[i];
        if (fs::is_directory(arg, ec)) {
            for (const fs::directory_entry& e : fs::directory_iterator(arg, ec))
                if (e.is_regular_file()) inputs.push_back(e.path());
        } else if (fs::is_regular_file(arg, ec)) {
            inputs.push_back(arg);
        } else {
            std::fprintf(stderr,
                         "fuzz replay: %s is neither a file nor a folder; check the test's "
                         "arguments in tests/CMakeLists.txt\n",
                         argv[i]);
            return 2;
        }
    }
    if (inputs.empty()) {
        std::fprintf(stderr, "fuzz replay: no inputs found in the arguments given; the corpus has "
                             "moved or is empty\n");
        return 2;
    }
    std::sort(inputs.begin(), inputs.end());  // a stable order, so a failure is reproducible
    for (const fs::path& p : inputs) {
        std::ifstream in(p, std::ios::binary);
        const std::string bytes((std::istreambuf_iterator<char>(in)),
                                std::istreambuf_iterator<char>());
        if (!in.good() && !in.eof()) {
            std::fprintf(stderr, "fuzz replay: cannot read %s\n", p.c_str());
            return 2;
        }
        std::fprintf(stderr, "fuzz replay: %s (%zu bytes)\n", p.c_str(), bytes.size());
        LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    }
    std::printf("fuzz replay: %zu inputs, no invariant broken\n", inputs.size());
    return random ? replay_random(random) : 0;
}
