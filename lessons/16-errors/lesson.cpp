// Lesson 16 — errors. A program lesson (lessons/program_lesson.h): the learner's file is a whole
// program, run as `./program in.bin out.bin`. The lesson runs it once as it is, then once under
// each fault the emulated runtime injects on demand (CUDALAB_INJECT, docs/runtime.md):
//   malloc:1            the first cudaMalloc fails: recoverable, the program must say so and finish
//   right; launch-config:K     launch K is refused as an invalid configuration: recoverable,
//   likewise; illegal-address:K   kernel K faults: sticky, the program must say so and exit
//   non-zero with no out.bin.
// "Say so" is the error's name (cudaGetErrorName) on the program's stderr; the runtime's own lines
// ("cudalab: ...") do not count. The injected runs always use the emulated runtime: NVIDIA's
// injects nothing. The performance check counts the clean run's synchronising calls: checking a
// launch must not mean waiting for it.
#include <algorithm>
#include <cstring>

#include "lessons/program_lesson.h"

namespace {

using cudalab::lessons::excerpt;
using cudalab::lessons::program_stderr;
using cudalab::lessons::ProgramRun;
using cudalab::lessons::ProgramSession;
using cudalab::lessons::RunSettings;
using cudalab::lessons::runtime_stderr;

constexpr int kSteps = 16;

std::vector<unsigned> reference(std::vector<unsigned> x) {
    std::vector<unsigned> y(x.size());
    const std::size_t n = x.size();
    for (int s = 0; s < kSteps; ++s) {
        for (std::size_t i = 0; i < n; ++i)
            y[i] = (x[i] ^ (x[i + 1 < n ? i + 1 : 0] >> 3)) * 2654435761u + unsigned(s);
        x.swap(y);
    }
    return x;
}

bool fired(const ProgramRun& run) {
    if (!run.runtime.is_object() || !run.runtime.contains("injected") ||
        !run.runtime["injected"].is_array())
        return false;
    for (const auto& i : run.runtime["injected"])
        if (i.is_object() && i.contains("fired") && i["fired"].is_boolean() &&
            i["fired"].get<bool>())
            return true;
    return false;
}

struct Input {
    std::vector<unsigned> values;
    std::vector<unsigned> expected;
};

Input write_input(ProgramSession& s, unsigned n) {
    Input in;
    in.values.resize(n);
    std::uniform_int_distribution<unsigned> dist;
    for (auto& v : in.values) v = dist(s.rng());
    in.expected = reference(in.values);
    std::vector<unsigned> file(std::size_t(n) + 1);
    file[0] = n;
    std::memcpy(file.data() + 1, in.values.data(), std::size_t(n) * 4);
    std::remove((s.work_dir() + "/out.bin").c_str());
    s.write_file("in.bin", file.data(), file.size() * 4);
    return in;
}

// What is wrong with out.bin ("" when it holds the expected values).
std::string compare(ProgramSession& s, const Input& in) {
    std::vector<unsigned char> bytes;
    if (!s.read_file("out.bin", &bytes)) return "the program wrote no out.bin";
    const std::size_t n = in.expected.size();
    if (bytes.size() != n * 4)
        return "out.bin has " + std::to_string(bytes.size()) + " bytes, not " +
               std::to_string(n * 4);
    std::vector<unsigned> out(n);
    std::memcpy(out.data(), bytes.data(), bytes.size());
    std::size_t bad = 0, first = 0;
    for (std::size_t i = 0; i < n; ++i)
        if (out[i] != in.expected[i] && bad++ == 0) first = i;
    if (bad)
        return std::to_string(bad) + " of " + std::to_string(n) +
               " values in out.bin are wrong, the first at index " + std::to_string(first);
    return "";
}

// Faults that never happen (their call numbers are far past the program's), added to every run:
// a program that looks for the fault's name in its environment instead of checking its calls
// gives itself away in the run without faults.
std::string with_decoys(const std::string& inject) {
    std::string all = inject;
    for (const char* fault : {"malloc", "launch-config", "illegal-address"})
        if (inject.rfind(fault, 0) != 0)
            all += std::string(all.empty() ? "" : ",") + fault + ":1000000";
    return all;
}

const char* kRunIt = "run it yourself: `cudalab run exercises/16-errors.cu -- in.bin out.bin` with "
                     "any in.bin (a count, then the values), "
                     "and with the fault: CUDALAB_INJECT=... in front";

// One injected fault that CUDA lets a program recover from: the program must name it and finish
// right.
bool recoverable(ProgramSession& s, const std::string& check, const std::string& inject,
                 const std::string& name, const std::string& what, const std::string& advice) {
    const Input in = write_input(s, std::uniform_int_distribution<unsigned>(20000, 30000)(s.rng()));
    RunSettings settings;
    settings.backend = "emu";
    settings.environment = {{"CUDALAB_INJECT", with_decoys(inject)}};
    const ProgramRun& run = s.run({"in.bin", "out.bin"}, settings);
    const std::string when = "with " + what + " (CUDALAB_INJECT=" + inject + "): ";
    if (!run.completed)
        return s.check(check, false, 1, when + run.failure + cudalab::lessons::run_details(run),
                       kRunIt);
    if (!fired(run))
        return s.check(check, false, 1,
                       when + "the fault never happened: the program made fewer such calls than "
                              "the lesson's solution",
                       "allocate the two buffers with cudaMalloc and run the 16 steps as 16 "
                       "launches, as the exercise does");
    const std::string err = program_stderr(run.err);
    if (err.find(name) == std::string::npos)
        return s.check(check, false, 1,
                       when + "the program's stderr does not name " + name + " (exit status " +
                           std::to_string(run.exit_code) + "); it printed: " + excerpt(err),
                       "check the call's cudaError_t and print cudaGetErrorName(err) on stderr; " +
                           advice);
    // What the runtime said besides the injected fault (and the leak note an early exit leaves):
    // another error of the program's own, e.g. cudaFree on pinned memory, is the cause to name.
    std::string other;
    {
        const std::string said = runtime_stderr(run.err);
        bool keep = false;
        for (std::size_t at = 0; at < said.size();) {
            const std::size_t nl = std::min(said.find('\n', at), said.size());
            const std::string line = said.substr(at, nl - at);
            at = nl + 1;
            if (line.rfind("cudalab:", 0) == 0)
                keep = line.find("CUDALAB_INJECT") == std::string::npos &&
                       line.find("never freed") == std::string::npos;
            if (keep) other += line + "\n";
        }
    }
    if (run.exit_code != 0 && !other.empty())
        return s.check(check, false, 1,
                       when + "the program named " + name + ", then stopped (exit status " +
                           std::to_string(run.exit_code) +
                           ") after another error of its own; the runtime says: " + excerpt(other) +
                           "; its stderr: " + excerpt(err),
                       "fix what the runtime names first: it is the program's mistake, not the "
                       "injected fault (which is recoverable)");
    if (run.exit_code != 0)
        return s.check(check, false, 1,
                       when + "the program named " + name + " but gave up (exit status " +
                           std::to_string(run.exit_code) +
                           "): this error is not sticky, the device still works",
                       advice + "; if a later check stopped the program with the same error, the "
                                "failed call had left it as the "
                                "last error: clear the error with cudaGetLastError() once handled");
    const std::string wrong = compare(s, in);
    if (!wrong.empty())
        return s.check(check, false, 1, when + "the program carried on but " + wrong,
                       advice + "; and clear the error with cudaGetLastError() once handled, or "
                                "the next check reports it again");
    return s.check(check, true, 0,
                   when + "the program named " + name + ", recovered, and out.bin is right", "");
}

void run(ProgramSession& s) {
    // 1. No fault: the values must be right (on the session's backend, a GPU included).
    const Input clean =
        write_input(s, std::uniform_int_distribution<unsigned>(50000, 60000)(s.rng()));
    RunSettings decoys;
    decoys.environment = {{"CUDALAB_INJECT", with_decoys("")}};
    const ProgramRun& first = s.run({"in.bin", "out.bin"}, decoys);
    bool correct = false;
    {
        const std::string check = "out.bin is right when nothing fails";
        const std::string n = "n = " + std::to_string(clean.values.size()) + ": ";
        if (!first.completed)
            s.check(check, false, 1, n + first.failure + cudalab::lessons::run_details(first),
                    kRunIt);
        else if (first.exit_code != 0 || !first.faults().empty())
            s.check(check, false, 1,
                    n + "the program exited with status " + std::to_string(first.exit_code) +
                        (first.faults().empty() ? "" : "; the runtime reports: " + first.faults()) +
                        cudalab::lessons::run_details(first),
                    "with no fault injected every call must succeed: read the message above");
        else if (const std::string wrong = compare(s, clean); !wrong.empty())
            s.check(check, false, 1, n + wrong,
                    "the kernel and the 16 steps are right as shipped: keep them");
        else correct = s.check(check, true, 0, n + "all values match", "");
    }
    // How often the clean run waited for the GPU.
    int syncs = 0, launches = 0;
    for (const auto& e : first.timeline) {
        if (e.pid >= 1 && e.category == "kernel") ++launches;
        if (e.pid != 0 || e.category != "api") continue;
        for (const char* name :
             {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize"})
            if (e.name.rfind(name, 0) == 0) ++syncs;
    }

    // 2. The faults.
    recoverable(s, "a failing cudaMalloc is named and recovered from", "malloc:1",
                "cudaErrorMemoryAllocation", "the first cudaMalloc failing",
                "out of memory is recoverable: take another path (smaller pieces, or "
                "cudaHostAlloc(..., cudaHostAllocMapped) "
                "and cudaHostGetDevicePointer: kernels can use mapped host memory) and carry on");
    const unsigned k = std::uniform_int_distribution<unsigned>(2, kSteps)(s.rng());
    recoverable(s, "an invalid launch configuration is named and recovered from",
                "launch-config:" + std::to_string(k), "cudaErrorInvalidValue",
                "launch " + std::to_string(k) + " refused as an invalid configuration",
                "a refused launch ran nothing and left the device fine: check cudaGetLastError() "
                "right after every launch, "
                "and on cudaErrorInvalidValue (CUDA 13's code for a bad configuration) launch that "
                "step again with a "
                "plain configuration");
    {
        const std::string check = "an illegal address in a kernel is named and ends the program";
        const unsigned j = std::uniform_int_distribution<unsigned>(1, kSteps)(s.rng());
        write_input(s, std::uniform_int_distribution<unsigned>(20000, 30000)(s.rng()));
        RunSettings settings;
        settings.backend = "emu";
        settings.environment = {
            {"CUDALAB_INJECT", with_decoys("illegal-address:" + std::to_string(j))}};
        const ProgramRun& run = s.run({"in.bin", "out.bin"}, settings);
        const std::string when =
            "with kernel " + std::to_string(j) +
            " of 16 faulting (CUDALAB_INJECT=illegal-address:" + std::to_string(j) + "): ";
        const std::string err = program_stderr(run.err);
        std::vector<unsigned char> out;
        if (!run.completed)
            s.check(check, false, 1, when + run.failure + cudalab::lessons::run_details(run),
                    kRunIt);
        else if (!fired(run))
            s.check(check, false, 1,
                    when + "the fault never happened: the program made fewer than " +
                        std::to_string(j) + " launches",
                    "run the 16 steps as 16 launches, as the exercise does");
        else if (err.find("cudaErrorIllegalAddress") == std::string::npos)
            s.check(check, false, 1,
                    when +
                        "the program's stderr does not name cudaErrorIllegalAddress (exit status " +
                        std::to_string(run.exit_code) + "); it printed: " + excerpt(err),
                    "a fault inside a kernel is asynchronous: the launch succeeds, and the error "
                    "comes back from the next "
                    "synchronising call (cudaMemcpy, cudaDeviceSynchronize). Check that call and "
                    "print cudaGetErrorName(err)");
        else if (run.exit_code == 0)
            s.check(check, false, 1, when + "the program named the error but exited with status 0",
                    "an illegal address is sticky: the context is lost and every later call fails "
                    "the same way. Nothing "
                    "can be recovered in this process: exit with a non-zero status");
        else if (s.read_file("out.bin", &out))
            s.check(check, false, 1,
                    when + "the program exited with status " + std::to_string(run.exit_code) +
                        " but wrote out.bin",
                    "after a sticky error the results are garbage: stop before writing out.bin");
        else
            s.check(check, true, 0,
                    when + "the program named cudaErrorIllegalAddress and exited with status " +
                        std::to_string(run.exit_code),
                    "");
    }

    // 3. Performance: checking errors must not serialise the host and the GPU.
    const bool measured = correct && first.timeline_written;
    s.check_at_most(
        "error checks do not wait for every launch", double(syncs), 2,
        std::to_string(syncs) +
            " synchronising calls (cudaDeviceSynchronize, cudaStreamSynchronize, "
            "cudaEventSynchronize) for " +
            std::to_string(launches) + " launches",
        "cudaGetLastError() after a launch returns its configuration errors at once without "
        "waiting; a fault "
        "inside a kernel comes back from the next synchronising call anyway (the cudaMemcpy back). "
        "Synchronising "
        "after every launch makes the host wait for each kernel before it can queue the next",
        measured, "make out.bin right first (the correctness checks above say what is wrong)");
}

}  // namespace

CUDALAB_PROGRAM_LESSON("16-errors", run);
