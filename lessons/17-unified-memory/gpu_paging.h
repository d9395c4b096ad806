// Lesson 17 on a GPU: the migrations and page faults that CUPTI's unified memory counters recorded
// in the run's timeline (engine/programs/cupti/: "page" and "page fault" events, and otherData's
// "unified_memory" saying whether they were measured), and the checks that bound them. A header
// of its own so that tests/program_lesson_test.cpp can check this logic on a timeline made by
// hand (no GPU there).
#pragma once

#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>

#include "lessons/program_lesson.h"

namespace cudalab::lessons::unified_memory {

// [SECTION] the bounds on a GPU
//
// Measured on an H200 (CUDA 13.0, driver 580; scripts/device/um-check.sh, seeds 1-3): the
// solution moved 28-36 KiB on demand (the table's first copy to the GPU, in the driver's pieces),
// the shipped exercise 2560-3968 KiB (its GPU share to the device on the kernel's faults and back
// on the host's, every round). The bound sits between, with room above the solution for the
// driver's run-to-run differences.
//
// Page faults are reported, not bounded: the solution took 6-14 (GPU faults plus CPU faults from
// the first launch on) and the exercise 12-18, because the driver moves a fault's neighbourhood
// in one go, so the fault count does not tell a program that prefetches from one that does not.
constexpr double kGpuOnDemandKiB = 512;  // bytes moved on demand, both ways, in KiB

// [SECTION] reading the timeline

struct GpuPaging {
    bool measured = false;  // the counters were on (otherData "unified_memory": "measured")
    std::string why_not;    // else why not, in words
    // Moved on demand: every migration but cudaMemPrefetchAsync's (faults' and the driver's own
    // speculative ones, which faults set off).
    std::uint64_t to_device_bytes = 0, to_host_bytes = 0;
    std::uint64_t prefetched_bytes = 0;  // cudaMemPrefetchAsync's, both ways
    std::uint64_t gpu_faults = 0;
    std::uint64_t cpu_faults = 0;  // from the first kernel's start on
    // Before the first kernel: the host filling fresh managed pages (reading in.bin), which every
    // program does the same, so not counted.
    std::uint64_t cpu_faults_before = 0;
};

inline GpuPaging gpu_paging(const ProgramRun& run) {
    GpuPaging p;
    if (!run.timeline_written) {
        p.why_not =
            "the GPU run wrote no timeline (it did not exit normally, or this cudalab has no "
            "libcudalab_cupti.so)";
        return p;
    }
    // The file comes from the learner's process: any field may be missing or of any type.
    const nlohmann::json j = nlohmann::json::parse(run.timeline_text, nullptr, false);
    std::string state;
    if (j.is_object() && j.contains("otherData") && j["otherData"].is_object() &&
        j["otherData"].contains("unified_memory") && j["otherData"]["unified_memory"].is_string())
        state = j["otherData"]["unified_memory"].get<std::string>();
    if (state != "measured") {
        p.why_not = state.empty() ? "the timeline does not say whether unified memory was counted "
                                    "(a libcudalab_cupti.so older than this lesson?)"
                                  : state;
        return p;
    }
    p.measured = true;
    std::uint64_t first_kernel = std::numeric_limits<std::uint64_t>::max();
    for (const auto& e : run.timeline)
        if (e.pid >= 1 && e.category == "kernel") first_kernel = std::min(first_kernel, e.start_ns);
    const auto number = [](const nlohmann::json& args, const char* key) {
        return args.is_object() && args.contains(key) && args[key].is_number_unsigned()
                   ? args[key].get<std::uint64_t>()
                   : std::uint64_t(0);
    };
    for (const auto& e : run.timeline) {
        if (e.category == "page") {
            const std::uint64_t bytes = number(e.args, "bytes");
            const bool prefetch =
                e.args.is_object() && e.args.contains("cause") && e.args["cause"] == "prefetch";
            if (prefetch) p.prefetched_bytes += bytes;
            else (e.name == "pages to device" ? p.to_device_bytes : p.to_host_bytes) += bytes;
        } else if (e.category == "page fault") {
            if (e.pid >= 1) ++p.gpu_faults;
            else ++(e.start_ns >= first_kernel ? p.cpu_faults : p.cpu_faults_before);
        }
    }
    return p;
}

// [SECTION] the checks

// "page migrations on demand on the GPU", from the run on the GPU
// (`correct`: its out.bin was right). Counters that were not available, or a run that wrote no
// timeline, add no checks but a line in the log, and the caller says so with the emulated
// runtime's count: a correct program never fails for what CUPTI could not count. The solution's
// run on the same machine has no such checks either, so the list stays the same for every
// submission (one that stops at a wrong result gets the solution's list, course.cpp). Returns
// whether the counts were measured.
inline bool check_gpu_paging(ProgramSession& s, const ProgramRun& run, bool correct) {
    const std::string migrations = "page migrations on demand on the GPU";
    const std::string advice_migrations =
        "on the GPU, too, pages move on demand when a kernel touches what the host has and back "
        "when the host touches them: prefetch the GPU's share to the device before the first "
        "launch and to the host before the host reads it (cudaMemPrefetchAsync), advise the table "
        "read-mostly, and cut the shares on a 64 KB boundary";
    const std::string fix_first = "make out.bin right on the GPU first (the check above says what "
                                  "is wrong)";
    const GpuPaging p = gpu_paging(run);
    if (!p.measured) {
        s.log().push_back("page migrations on the GPU: not measured (" + p.why_not +
                          "); the emulated runtime's count is the bound");
        return false;
    }
    char text[600];
    std::snprintf(text, sizeof text,
                  "%.0f KiB moved on demand on the GPU (%.0f KiB to the device, %.0f KiB to the "
                  "host), as CUPTI counted them; %.2f MB prefetched; %llu GPU page faults and %llu "
                  "CPU page faults from the first launch on (%llu CPU page faults before it, as "
                  "the host filled fresh managed pages)",
                  double(p.to_device_bytes + p.to_host_bytes) / 1024,
                  double(p.to_device_bytes) / 1024, double(p.to_host_bytes) / 1024,
                  double(p.prefetched_bytes) / 1e6, (unsigned long long)p.gpu_faults,
                  (unsigned long long)p.cpu_faults, (unsigned long long)p.cpu_faults_before);
    s.check_at_most(migrations, double(p.to_device_bytes + p.to_host_bytes) / 1024, kGpuOnDemandKiB,
                    text, advice_migrations, correct, fix_first);
    return true;
}

}  // namespace cudalab::lessons::unified_memory
