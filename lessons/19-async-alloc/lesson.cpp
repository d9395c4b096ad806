// Lesson 19 — stream-ordered allocation. A program lesson (lessons/program_lesson.h): the
// learner's file is a whole program, run as `./program in.bin out.bin`. The lesson writes a
// random state, runs it twice (a few steps, then many), compares the final state and the
// per-step checksums with a CPU reference, and reads the larger run's API trace (the timeline's
// host row: no synchronising allocation calls in the loop) and the emulated runtime's memory
// figures (CUDALAB_RESULT "memory": the peak of device memory, and how often a memory pool had to
// take more memory from the device).
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "lessons/program_lesson.h"

namespace {

using cudalab::lessons::ProgramRun;
using cudalab::lessons::ProgramSession;

const char* kFixFirst = "make out.bin right first (the correctness checks above say what is wrong)";

// The exercise's step on the CPU (32-bit unsigned arithmetic wraps the same way on both).
unsigned reference_step(std::vector<unsigned>& v, unsigned step) {
    const std::size_t n = v.size();
    std::vector<unsigned> tmp(n);
    for (std::size_t i = 0; i < n; ++i)
        tmp[i] = v[(7ull * i + 1) % n] ^ (v[i] * 2654435761u + step);
    unsigned sum = 0;
    for (std::size_t i = 0; i < n; ++i) sum += v[i] = tmp[i] + (tmp[i] >> 11);
    return sum;
}

struct Figures {
    bool timeline = false, memory = false;
    double sync_allocations = 0;  // calls that allocate or free and wait for the device
    // stream-ordered allocations (calls, and graphs' allocation nodes run)
    double ordered_allocations = 0;
    double peak_bytes = 0, pool_reservations = 0;
};

// The runtime's memory figures (emulated runtime only).
bool memory_figures(const ProgramRun& run, Figures* f) {
    if (!run.runtime.is_object() || !run.runtime.contains("memory") ||
        !run.runtime["memory"].is_object())
        return false;
    const auto& m = run.runtime["memory"];
    auto number = [&m](const char* key) {
        return m.contains(key) && m[key].is_number() ? m[key].get<double>() : 0.0;
    };
    f->peak_bytes = number("peak_device_bytes");
    f->pool_reservations = number("pool_reservations");
    return true;
}

Figures read_figures(const ProgramRun& run) {
    Figures f;
    f.timeline = run.timeline_written;
    // cudaMalloc and cudaFree synchronise (cudaFree waits for the device's work); so do the
    // pinned and managed allocators. CUPTI's names carry a version suffix (cudaMalloc_v3020).
    static const char* const synchronising[] = {
        "cudaMalloc",        "cudaFree",        "cudaMallocHost", "cudaFreeHost", "cudaHostAlloc",
        "cudaMallocManaged", "cudaMallocPitch", "cudaMalloc3D",   "cuMemAlloc",   "cuMemFree"};
    for (const auto& e : run.timeline) {
        // The emulated runtime puts each stream-ordered allocation on its stream's row
        // (cudaMallocAsync where it is called, a graph's allocation node at every launch); CUPTI
        // has no such record, so on a GPU the calls are counted (a graph's allocations then come
        // from the emulated run).
        if (e.pid >= 1 && e.category == "alloc") ++f.ordered_allocations;
        if (e.pid != 0 || e.category != "api") continue;
        if (run.backend == "gpu" && (e.name.rfind("cudaMallocAsync", 0) == 0 ||
                                     e.name.rfind("cudaMallocFromPoolAsync", 0) == 0))
            ++f.ordered_allocations;
        const std::string name = e.name.substr(0, e.name.find("_v"));
        for (const char* s : synchronising)
            if (name == s) ++f.sync_allocations;
    }
    f.memory = memory_figures(run, &f);
    return f;
}

// Writes the state, runs the program (on `backend`, "" for the session's), compares. `quiet`: a
// run for figures only, recording no check.
bool run_and_compare(ProgramSession& s, const std::string& name, unsigned n, unsigned steps,
                     Figures* figures, const std::string& backend = "", bool quiet = false) {
    std::vector<unsigned> in(std::size_t(n) + 2);
    in[0] = n;
    in[1] = steps;
    std::uniform_int_distribution<unsigned> dist;
    for (unsigned i = 0; i < n; ++i) in[std::size_t(i) + 2] = dist(s.rng());
    std::remove((s.work_dir() + "/out.bin").c_str());
    auto fail = [&](double bad, const std::string& message, const std::string& advice) {
        if (!quiet) s.check(name, false, bad, message, advice);
        return false;
    };
    if (!s.write_file("in.bin", in.data(), in.size() * sizeof(unsigned)))
        return fail(1, "the lesson could not write in.bin in " + s.work_dir(),
                    "free some space in the temporary folder");
    cudalab::lessons::RunSettings settings;
    settings.backend = backend;
    const ProgramRun& run = s.run({"in.bin", "out.bin"}, settings);
    *figures = read_figures(run);
    const std::string what = "n = " + std::to_string(n) + ", " + std::to_string(steps) + " steps: ";
    if (!run.completed)
        return fail(1, what + run.failure + cudalab::lessons::run_details(run),
                    "run it yourself with `cudalab run exercises/19-async-alloc.cu -- in.bin "
                    "out.bin` (the input format is at "
                    "the top of the file) and look at what it prints; a program stopped at the "
                    "memory limit allocates more "
                    "in every step than it frees");
    const std::string faults = run.faults();
    if (run.exit_code != 0 || !faults.empty())
        return fail(1,
                    what + "the program exited with status " + std::to_string(run.exit_code) +
                        cudalab::lessons::run_details(run),
                    "every CUDA call must succeed: read the message above, and check each call's "
                    "cudaError_t (memory from "
                    "cudaMallocAsync is freed with cudaFreeAsync, and may be used only by work "
                    "issued after the allocation "
                    "in its stream, or ordered after it)");
    std::vector<unsigned char> bytes;
    if (!s.read_file("out.bin", &bytes))
        return fail(1, what + "the program wrote no out.bin",
                    "write the final state, then the checksums, to the file named by argv[2]");
    const std::size_t want = (std::size_t(n) + steps) * sizeof(unsigned);
    if (bytes.size() != want)
        return fail(1,
                    what + "out.bin has " + std::to_string(bytes.size()) + " bytes, not " +
                        std::to_string(want),
                    "write the n values of the state, then one checksum per step, nothing else");
    std::vector<unsigned> expected(in.begin() + 2, in.end()), sums(steps),
        out(std::size_t(n) + steps);
    for (unsigned k = 0; k < steps; ++k) sums[k] = reference_step(expected, k);
    std::memcpy(out.data(), bytes.data(), bytes.size());
    std::size_t bad = 0, first_bad = 0;
    for (unsigned i = 0; i < n; ++i)
        if (out[i] != expected[i] && bad++ == 0) first_bad = i;
    std::size_t bad_sums = 0, first_bad_sum = 0;
    for (unsigned k = 0; k < steps; ++k)
        if (out[std::size_t(n) + k] != sums[k] && bad_sums++ == 0) first_bad_sum = k;
    if (bad || bad_sums) {
        std::string m = what;
        if (bad)
            m += std::to_string(bad) + " of " + std::to_string(n) +
                 " state values differ, the first at index " + std::to_string(first_bad);
        if (bad_sums)
            m += std::string(bad ? "; " : "") + std::to_string(bad_sums) + " of " +
                 std::to_string(steps) + " checksums differ, the first of step " +
                 std::to_string(first_bad_sum);
        return fail(double(bad + bad_sums), m,
                    "memory from cudaMallocAsync holds whatever was there before: each step must "
                    "write its scratch buffers "
                    "before reading them; free a buffer only after the work that uses it is "
                    "issued, and read a step's "
                    "checksum only after its stream is synchronised");
    }
    if (!quiet)
        s.check(name, true, 0,
                what + "the state and all " + std::to_string(steps) + " checksums match", "");
    return true;
}

void run(ProgramSession& s) {
    Figures few, many;
    std::uniform_int_distribution<unsigned> small_n(1000, 1100), large_n(20000, 30000);
    run_and_compare(s, "out.bin is right after a few steps", small_n(s.rng()), 3, &few);
    const unsigned steps = 40, n = large_n(s.rng());
    const bool correct = run_and_compare(s, "out.bin is right after many steps", n, steps, &many);
    // The memory figures are the emulated runtime's: on a GPU the program runs once more on it.
    if (correct && s.backend() == "gpu") {
        Figures emulated;
        const bool ok = run_and_compare(s, "", n, steps, &emulated, "emu", true);
        many.memory = ok && emulated.memory;
        many.ordered_allocations = std::max(many.ordered_allocations, emulated.ordered_allocations);
        many.peak_bytes = emulated.peak_bytes;
        many.pool_reservations = emulated.pool_reservations;
    }
    if (correct && !many.timeline) s.log().push_back("the larger run wrote no timeline");
    if (correct && !many.memory)
        s.log().push_back("the larger run left no memory figures (CUDALAB_RESULT)");
    char text[300];

    // Scratch buffers allocated once before the loop and reused by every step wait for nothing
    // either: for this fixed-size workload that is as good a fix (lesson.md says when
    // stream-ordered allocation wins). Such a program makes no allocation per step at all; the
    // peak memory check below still fails one that takes every step's buffers up front.
    // A program that uses no device memory at all (the host does every step) hoists nothing.
    const bool on_device = many.peak_bytes > 0;
    const bool hoisted =
        on_device && many.ordered_allocations == 0 && many.sync_allocations / steps <= 0.25;
    const double ordered = hoisted ? 1.0 : many.ordered_allocations / steps;
    if (!on_device && many.memory)
        std::snprintf(text, sizeof text,
                      "no device memory was in use over %u steps: the steps did not run on the "
                      "GPU, so there are no scratch buffers to allocate well",
                      steps);
    else if (hoisted)
        std::snprintf(text, sizeof text,
                      "no allocation in the loop over %u steps: the scratch buffers are allocated "
                      "once and reused, which waits for the device no more than a stream-ordered "
                      "allocation per step (counted as 1 per step)",
                      steps);
    else
        std::snprintf(text, sizeof text,
                      "%.0f stream-ordered allocations over %u steps: %.2f per step",
                      many.ordered_allocations, steps, ordered);
    s.check_at_least("stream-ordered allocations per step", ordered, 1.0, text,
                     "take each step's scratch memory with cudaMallocAsync(&p, bytes, stream) (or "
                     "cudaMallocFromPoolAsync), in "
                     "the stream that uses it, and give it back with cudaFreeAsync(p, stream)",
                     correct && many.timeline, kFixFirst);

    const double per_step = many.sync_allocations / steps;
    std::snprintf(text, sizeof text,
                  "%.0f calls to cudaMalloc, cudaFree and the other synchronising allocators over "
                  "%u steps: %.2f per step",
                  many.sync_allocations, steps, per_step);
    s.check_at_most("synchronising allocations per step", per_step, 0.25, text,
                    "allocate the step's scratch buffers with cudaMallocAsync(&p, bytes, stream) "
                    "and free them with "
                    "cudaFreeAsync(p, stream): both are queued in the stream like a kernel, and "
                    "neither waits for the device",
                    correct && many.timeline, kFixFirst);

    const double state_bytes = double(n) * 4.0;
    const double peak = many.peak_bytes / state_bytes;
    std::snprintf(text, sizeof text,
                  "at most %.0f bytes of device memory were in use at once: %.2f times the state's "
                  "%.0f bytes",
                  many.peak_bytes, peak, state_bytes);
    s.check_at_most("peak device memory (times the state's size)", peak, 3.0, text,
                    "a step needs the state and one scratch copy of it: free every buffer of a "
                    "step in that step (cudaFreeAsync "
                    "returns it to the pool, and the next step's cudaMallocAsync takes it again) "
                    "rather than allocating "
                    "all the steps' buffers up front or letting them pile up",
                    correct && many.memory, kFixFirst);

    const double reserved = many.pool_reservations / steps;
    std::snprintf(
        text, sizeof text,
        "memory pools took memory from the device %.0f times over %u steps: %.2f per step",
        many.pool_reservations, steps, reserved);
    s.check_at_most(
        "pool growths per step", reserved, 0.25, text,
        "by default a pool gives back what it holds above its release threshold, 0 bytes, at every "
        "synchronisation, and must take it from the device again in the next step: set the default "
        "pool's "
        "cudaMemPoolAttrReleaseThreshold (cudaDeviceGetDefaultMemPool, cudaMemPoolSetAttribute) to "
        "UINT64_MAX, "
        "or at least to one step's scratch memory",
        correct && many.memory, kFixFirst);
}

}  // namespace

CUDALAB_PROGRAM_LESSON("19-async-alloc", run);
