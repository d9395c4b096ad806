// `cudalab run` benchmark (issue "Whole CUDA programs", section Speed): how long a 50-line program
// takes from the command to its exit, cold (nvcc builds it) and cached (the build is found by
// content), and where the time goes: nvcc alone, the cache look-up, starting and watching the
// child, the program itself on the emulated runtime. Prints each measurement beside its goal.
//
//   build/cudalab_program_bench [PROGRAM.cu] [--runs N]
// The program defaults to tests/programs/vector_add.cu; builds go to a temporary cache.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "programs/build.h"
#include "programs/process.h"

namespace fs = std::filesystem;
using namespace cudalab::programs;
using Clock = std::chrono::steady_clock;

namespace {

struct Timed {
    double seconds = 0;
    int exit_code = -1;
    std::string out;
};

// Runs a command line through the shell; its stdout is kept, stderr dropped.
Timed timed(const std::string& command) {
    Timed t;
    auto start = Clock::now();
    FILE* p = ::popen((command + " 2>/dev/null").c_str(), "r");
    if (!p) return t;
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) t.out.append(buf, n);
    int status = ::pclose(p);
    t.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    t.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return t;
}

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

std::string quote(const std::string& s) { return "'" + s + "'"; }

void row(const char* what, double seconds, const char* goal) {
    std::printf("  %-52s %9.3f s   %s\n", what, seconds, goal);
}

}  // namespace

int main(int argc, char** argv) {
    std::string program = std::string(CUDALAB_SOURCE_DIR) + "/tests/programs/vector_add.cu";
    int runs = 5;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--runs" && i + 1 < argc) runs = std::max(1, std::atoi(argv[++i]));
        else program = a;
    }
    const std::string cli = CUDALAB_CLI;
    fs::path scratch =
        fs::temp_directory_path() / ("cudalab-program-bench-" + std::to_string(::getpid()));
    fs::create_directories(scratch);
    std::string looked;
    std::string nvcc = find_nvcc(&looked);
    if (nvcc.empty()) {
        std::printf("no nvcc (looked for %s): nothing to measure\n", looked.c_str());
        return 1;
    }
    std::printf("cudalab run benchmark: %s, %d runs each (medians), %ld CPUs\n", program.c_str(),
                runs, ::sysconf(_SC_NPROCESSORS_ONLN));

    // nvcc alone, with the options cudalab uses.
    std::vector<double> nvcc_times;
    for (int i = 0; i < runs; ++i) {
        std::string cmd = nvcc;
        for (const auto& o : default_nvcc_options({})) cmd.append(" ").append(o);
        cmd.append(" ")
            .append(quote(program))
            .append(" -o ")
            .append(quote((scratch / "nvcc_alone").string()));
        Timed t = timed(cmd);
        if (t.exit_code != 0) {
            std::printf("nvcc failed: %s\n", cmd.c_str());
            return 1;
        }
        nvcc_times.push_back(t.seconds);
    }

    // Cold: an empty cache every time.
    std::vector<double> cold, cold_nvcc;
    for (int i = 0; i < runs; ++i) {
        fs::path cache = scratch / ("cold-" + std::to_string(i));
        Timed t = timed("CUDALAB_CACHE_DIR=" + quote(cache.string()) + " " + cli + " run --json " +
                        quote(program) + " </dev/null");
        if (t.exit_code != 0) {
            std::printf("cudalab run failed (exit %d):\n%s\n", t.exit_code, t.out.c_str());
            return 1;
        }
        cold.push_back(t.seconds);
        cold_nvcc.push_back(nlohmann::json::parse(t.out)["build"]["nvcc_seconds"].get<double>());
    }

    // Cached: the same cache, the program unchanged.
    fs::path cache = scratch / "warm";
    std::string env = "CUDALAB_CACHE_DIR=" + quote(cache.string()) + " ";
    timed(env + cli + " run " + quote(program) + " </dev/null >/dev/null");
    std::vector<double> warm, lookup, program_run, plain_start;
    for (int i = 0; i < runs * 2; ++i) {
        Timed t = timed(env + cli + " run " + quote(program) + " </dev/null >/dev/null");
        warm.push_back(t.seconds);
        Timed j = timed(env + cli + " run --json " + quote(program) + " </dev/null");
        auto report = nlohmann::json::parse(j.out);
        lookup.push_back(report["build"]["seconds"].get<double>());
        program_run.push_back(report["run"]["wall_seconds"].get<double>());
        // cudalab's own start, the supervisor and a child that does nothing.
        plain_start.push_back(timed(cli + " run --exe /bin/true </dev/null").seconds);
    }

    std::printf("\n  %-52s %11s   %s\n", "measurement", "time", "goal");
    row("nvcc alone (-cudart shared, PTX for compute_90)", median(nvcc_times), "");
    row("cudalab run, cold (nvcc builds it)", median(cold), "<= 2 s");
    row("  of which nvcc", median(cold_nvcc), "");
    row("cudalab run, cached (unchanged program)", median(warm), "<= 0.3 s");
    row("  of which the cache look-up (hashing sources)", median(lookup), "");
    row("  of which the program on the emulated runtime", median(program_run), "");
    row("cudalab run --exe /bin/true (start and supervise)", median(plain_start), "");
    std::error_code ec;
    fs::remove_all(scratch, ec);
    return 0;
}
