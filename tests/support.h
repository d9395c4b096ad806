// Helpers shared by the test files: running the cudalab CLI as a course script would, and
// temporary files.
#pragma once

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#include <doctest/doctest.h>

#include "programs/build.h"

namespace test_support {

// Whether the toolkit's nvcc is there; when it is not, the calling test says it is skipped, and
// why, and returns (whole programs and program lessons are built with nvcc).
inline bool have_nvcc() {
    std::string looked;
    if (!cudalab::programs::find_nvcc(&looked).empty()) return true;
    MESSAGE("SKIPPED: no nvcc (looked for " << looked
                                            << "): whole programs need the CUDA toolkit's nvcc");
    return false;
}

struct CommandResult {
    int exit_code = -1;
    std::string output;  // stdout and stderr together
};

// Runs a shell command, capturing stdout (and stderr too, unless told not to).
inline CommandResult run_command(const std::string& command, bool with_stderr = true) {
    CommandResult r;
    std::string cmd = command + (with_stderr ? " 2>&1" : " 2>/dev/null");
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return r;
    std::array<char, 4096> buf;
    std::size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.output.append(buf.data(), n);
    int status = pclose(p);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return r;
}

// Runs `cudalab ARGS` from the project root (the ctest working directory).
inline CommandResult run_cli(const std::string& args) {
    return run_command(std::string(CUDALAB_CLI) + " " + args);
}

// Runs `cudalab ARGS` capturing stdout only (for JSON/XML parsing).
inline CommandResult run_cli_stdout(const std::string& args) {
    return run_command(std::string(CUDALAB_CLI) + " " + args, false);
}

inline std::filesystem::path temp_dir() {
    auto d =
        std::filesystem::temp_directory_path() / ("cudalab-test-" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
}

inline std::string write_temp(const std::string& name, const std::string& contents) {
    auto path = temp_dir() / name;
    std::ofstream(path) << contents;
    return path.string();
}

inline std::string read_file(const std::string& path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

}  // namespace test_support
