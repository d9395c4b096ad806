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
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

int main(int argc, char** argv) {
    namespace fs = std::filesystem;
    std::vector<fs::path> inputs;
    for (int i = 1; i < argc; ++i) {
        std::error_code ec;
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
    return 0;
}
