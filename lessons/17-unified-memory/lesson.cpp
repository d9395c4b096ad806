// Lesson 17 — unified memory. A program lesson (lessons/program_lesson.h): the learner's file is a
// whole program, run as `./program in.bin out.bin`, that keeps its data in managed memory and
// shares the work between a kernel and the host. The lesson compares out.bin with a CPU version
// and bounds the page migrations the emulated runtime counted (its managed paging,
// CUDALAB_MANAGED_PAGING, docs/runtime.md): pages moved on demand, because one side touched a
// page the other side had. Prefetched pages are not counted as migrations on demand.
//
// On `--backend gpu` the program runs on the GPU too: its values are checked there, and the
// migrations and page faults that CUPTI's unified memory counters recorded in its timeline are
// bounded as well (gpu_paging.h), beside the emulated runtime's count (the same program, run a
// second time): the driver moves pieces of 4 KB to 2 MB, so the GPU's figures are bytes and
// faults, not the emulator's 4 KB pages (lesson.md). Where CUPTI cannot count (some platforms and
// virtual machines) the emulated runtime's count is the bound, and the check says so.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "gpu_paging.h"
#include "lessons/program_lesson.h"

namespace {

using cudalab::lessons::ProgramRun;
using cudalab::lessons::ProgramSession;
using cudalab::lessons::RunSettings;

constexpr unsigned kTable = 4096;
constexpr int kRounds = 4;
// The least work a value of the GPU's share can take, in thread instructions (see run()).
constexpr double kMinInstructionsPerValue = 4;

// Checks one run's out.bin; true when right.
bool compare(ProgramSession& s, const std::string& check, const ProgramRun& run,
             const std::vector<unsigned>& expected, const std::string& where) {
    const std::string n = "n = " + std::to_string(expected.size()) + where + ": ";
    if (!run.completed)
        return s.check(check, false, 1, n + run.failure + cudalab::lessons::run_details(run),
                       "run it yourself: `cudalab run exercises/17-unified-memory.cu -- in.bin "
                       "out.bin` with any in.bin");
    const std::string faults = run.faults();
    if (run.exit_code != 0 || !faults.empty())
        return s.check(
            check, false, 1,
            n + "the program exited with status " + std::to_string(run.exit_code) +
                cudalab::lessons::run_details(run),
            "every CUDA call must succeed: read the message above. A prefetch takes a "
            "cudaMemLocation "
            "({cudaMemLocationTypeDevice, device} or {cudaMemLocationTypeHost, 0}) in CUDA 13");
    std::vector<unsigned char> bytes;
    if (!s.read_file("out.bin", &bytes))
        return s.check(check, false, 1, n + "the program wrote no out.bin",
                       "write the n values to argv[2]");
    if (bytes.size() != expected.size() * 4)
        return s.check(check, false, 1,
                       n + "out.bin has " + std::to_string(bytes.size()) + " bytes, not " +
                           std::to_string(expected.size() * 4),
                       "write exactly n 32-bit values");
    std::vector<unsigned> out(expected.size());
    std::memcpy(out.data(), bytes.data(), bytes.size());
    std::size_t bad = 0, first = 0;
    for (std::size_t i = 0; i < out.size(); ++i)
        if (out[i] != expected[i] && bad++ == 0) first = i;
    if (bad)
        return s.check(check, false, double(bad),
                       n + std::to_string(bad) + " values differ, the first at index " +
                           std::to_string(first),
                       "every value gets the 4 rounds, in order, on one side or the other: wait "
                       "for the kernel "
                       "(cudaDeviceSynchronize) before a round's values are used again, and let "
                       "the GPU's and the host's "
                       "shares together cover all n values exactly once");
    return s.check(check, true, 0, n + "all values match", "");
}

std::uint64_t counter(const ProgramRun& run, const char* key) {
    if (!run.runtime.is_object() || !run.runtime.contains("managed")) return 0;
    const auto& m = run.runtime["managed"];
    return m.is_object() && m.contains(key) && m[key].is_number_unsigned()
               ? m[key].get<std::uint64_t>()
               : 0;
}

void run(ProgramSession& s) {
    s.set_host_share("the host mixes its share of the values by design (the check above holds the "
                     "GPU to its share)");
    const unsigned n = std::uniform_int_distribution<unsigned>(250000, 300000)(s.rng());
    std::vector<unsigned> data(n), table(kTable);
    std::uniform_int_distribution<unsigned> dist;
    for (auto& v : data) v = dist(s.rng());
    for (auto& v : table) v = dist(s.rng());
    std::vector<unsigned> file;
    file.push_back(n);
    file.insert(file.end(), data.begin(), data.end());
    file.insert(file.end(), table.begin(), table.end());
    for (int r = 0; r < kRounds; ++r)
        for (auto& v : data) v = (v ^ table[v & (kTable - 1)]) * 2654435761u + unsigned(r);
    s.write_file("in.bin", file.data(), file.size() * 4);

    // The counting run: always on the emulated runtime, which counts pages.
    RunSettings emu;
    emu.backend = "emu";
    const ProgramRun& counted = s.run({"in.bin", "out.bin"}, emu);
    bool correct = compare(s, "out.bin is right", counted, data,
                           s.backend() == "gpu" ? " (emulated runtime)" : "");
    const ProgramRun* on_gpu = nullptr;
    bool correct_on_gpu = false;
    if (s.backend() == "gpu") {
        std::remove((s.work_dir() + "/out.bin").c_str());
        on_gpu = &s.run({"in.bin", "out.bin"});
        correct_on_gpu = compare(s, "out.bin is right on the GPU", *on_gpu, data, " (GPU)");
        correct = correct_on_gpu && correct;
    }

    // Managed memory, no copies, and the GPU does its share: the lesson is about letting pages move
    // well, not about copying, nor about leaving the work to the host.
    const std::string check = "the GPU does its share in managed memory";
    std::size_t managed = 0, copies = 0, kernels = 0;
    double threads = 0, warp_instructions = 0;
    for (const auto& e : counted.timeline) {
        if (e.pid >= 1 && e.category == "kernel") {
            ++kernels;
            if (e.args.is_object() && e.args.contains("warp_instructions")) {
                const auto& w = e.args["warp_instructions"];
                if (w.is_number()) warp_instructions += w.get<double>();
                else if (w.is_string())
                    warp_instructions += std::atof(w.get<std::string>().c_str());
            }
            unsigned g[3] = {0, 0, 0}, b[3] = {0, 0, 0};
            const auto text = [&](const char* key) {
                return e.args.is_object() && e.args.contains(key) && e.args[key].is_string()
                           ? e.args[key].get<std::string>()
                           : std::string();
            };
            if (std::sscanf(text("grid").c_str(), "(%u,%u,%u)", &g[0], &g[1], &g[2]) == 3 &&
                std::sscanf(text("block").c_str(), "(%u,%u,%u)", &b[0], &b[1], &b[2]) == 3)
                threads += double(g[0]) * g[1] * g[2] * b[0] * b[1] * b[2];
        }
        if (e.pid != 0 || e.category != "api") continue;
        managed += e.name.rfind("cudaMallocManaged", 0) == 0;
        copies += e.name.rfind("cudaMemcpy", 0) == 0;
    }
    const std::string calls = std::to_string(managed) + " cudaMallocManaged and " +
                              std::to_string(copies) + " cudaMemcpy calls, " +
                              std::to_string(kernels) + " launches of " +
                              std::to_string(std::uint64_t(threads)) + " threads in all";
    // The GPU's share is counted in work, not threads: a grid-stride loop takes several values per
    // thread. A value of the GPU's share costs a thread at least a load, the table's load, the
    // arithmetic and a store (the solution's kernel runs about 20 a value); a warp
    // instruction does the work of at most 32 threads.
    const double values_needed = double(kRounds) * n / 2;
    const double lane_instructions = warp_instructions * 32;
    char work[160];
    std::snprintf(work, sizeof work,
                  " (%.1f instructions per value for half the values of 4 rounds)",
                  lane_instructions / values_needed);
    if (!counted.timeline_written)
        s.check(check, false, 1, "the run wrote no timeline, so the calls cannot be read",
                "let the program exit normally (return from main)");
    else if (managed == 0 || copies)
        s.check(check, false, 1, calls,
                "keep the values and the table in cudaMallocManaged memory, as the exercise does, "
                "with no explicit copies: "
                "this lesson is about making the pages move well, and prefetches are its copies");
    else if (kernels < std::size_t(kRounds))
        s.check(check, false, 1, calls + ", fewer than one launch per round",
                "the GPU takes about seven eighths of the values each round, the host the rest: "
                "keep one launch (or more) per round");
    else if (lane_instructions < kMinInstructionsPerValue * values_needed)
        s.check(check, false, 1,
                calls + work + ": too little work for half the values in each of the 4 rounds",
                "the GPU takes about seven eighths of the values each round, the host the rest: "
                "keep the kernel doing its share, one thread per value or a grid-stride loop");
    else s.check(check, true, 0, calls + work, "");

    const std::uint64_t h2d = counter(counted, "host_to_device_pages"),
                        d2h = counter(counted, "device_to_host_pages");
    const std::uint64_t prefetched = counter(counted, "prefetched_bytes");
    const double pages = double(n) * 4 / 4096;
    char text[320];
    std::snprintf(text, sizeof text,
                  "%llu pages moved on demand (%llu to the device, %llu to the host) for %.0f "
                  "pages of values and 4 of table over %d "
                  "rounds; %.1f MB prefetched",
                  (unsigned long long)(h2d + d2h), (unsigned long long)h2d, (unsigned long long)d2h,
                  pages, kRounds, double(prefetched) / 1e6);
    std::string message = text;
    if (on_gpu) {
        // The emulated runtime's count, beside the GPU's own (below) or instead of it.
        const auto gpu = cudalab::lessons::unified_memory::gpu_paging(*on_gpu);
        message +=
            gpu.measured
                ? " (emulated runtime)"
                : " (emulated runtime; on the GPU the count was not measured: " + gpu.why_not + ")";
    }
    s.check_at_most("page migrations on demand", double(h2d + d2h), 4, message,
                    "each page a kernel touches first moves over on its own, and back when the "
                    "host touches it. Prefetch the "
                    "GPU's share to the device before the first launch and back to the host before "
                    "the host reads it "
                    "(cudaMemPrefetchAsync); advise the table read-mostly (cudaMemAdvise, "
                    "cudaMemAdviseSetReadMostly) so both "
                    "sides keep a copy; and cut the two shares on a page boundary (a multiple of "
                    "64 KB), or the page they "
                    "share moves twice per round",
                    correct && counted.runtime.is_object(),
                    "make out.bin right first (the check above says what is wrong)");
    if (on_gpu) cudalab::lessons::unified_memory::check_gpu_paging(s, *on_gpu, correct_on_gpu);
}

}  // namespace

CUDALAB_PROGRAM_LESSON("17-unified-memory", run);
