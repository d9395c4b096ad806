// Lesson 02b — the host side of vector add. A program lesson (lessons/program_lesson.h): the
// learner's file is a whole program, run as `./program in.bin out.bin`. The lesson writes random
// a and b, runs it for a small and a larger n, compares out.bin with a + b computed here, and reads
// the runtime's report: no device allocation may be left unfreed. (Whether the program checks the
// launch's errors cannot be seen from a run that has none: that waits for the runtime's fault
// injection, issue 11's lesson 16.)
#include <algorithm>
#include <cstring>

#include "lessons/program_lesson.h"

namespace {

using cudalab::lessons::program_stderr;
using cudalab::lessons::ProgramRun;
using cudalab::lessons::ProgramSession;

bool run_and_compare(ProgramSession& s, const std::string& name, unsigned n,
                     const ProgramRun** run_out) {
    std::vector<float> a(n), b(n);
    std::uniform_real_distribution<float> dist(-100.f, 100.f);
    for (auto& x : a) x = dist(s.rng());
    for (auto& x : b) x = dist(s.rng());
    std::vector<unsigned char> file(4 + 8 * std::size_t(n));
    std::memcpy(file.data(), &n, 4);
    std::memcpy(file.data() + 4, a.data(), 4 * std::size_t(n));
    std::memcpy(file.data() + 4 + 4 * std::size_t(n), b.data(), 4 * std::size_t(n));
    std::remove((s.work_dir() + "/out.bin").c_str());
    if (!s.write_file("in.bin", file.data(), file.size())) {
        s.check(name, false, 1, "the lesson could not write in.bin in " + s.work_dir(),
                "free some space in the temporary folder");
        return false;
    }
    const ProgramRun& run = s.run({"in.bin", "out.bin"});
    *run_out = &run;
    const std::string what = "n = " + std::to_string(n) + ": ";
    if (!run.completed) {
        s.check(
            name, false, 1, what + run.failure + cudalab::lessons::run_details(run),
            "run it yourself with `cudalab run exercises/02b-host-program.cu -- in.bin out.bin`");
        return false;
    }
    const std::string faults = run.faults();
    if (run.exit_code != 0 || !faults.empty()) {
        s.check(name, false, 1,
                what + "the program exited with status " + std::to_string(run.exit_code) +
                    cudalab::lessons::run_details(run),
                "read the message above: CHECK names the call that failed and why");
        return false;
    }
    std::vector<unsigned char> bytes;
    if (!s.read_file("out.bin", &bytes) || bytes.size() != 4 * std::size_t(n)) {
        s.check(name, false, 1, what + "out.bin is missing or not n floats long",
                "write exactly the n floats of c to argv[2]");
        return false;
    }
    std::vector<float> c(n);
    std::memcpy(c.data(), bytes.data(), bytes.size());
    std::size_t bad = 0, first = 0;
    for (unsigned i = 0; i < n; ++i)
        if (!(c[i] == a[i] + b[i]) && bad++ == 0) first = i;  // one float addition: exact
    if (bad) {
        s.check(name, false, double(bad),
                what + std::to_string(bad) + " of " + std::to_string(n) +
                    " values of c are wrong; the first at index " + std::to_string(first) +
                    " (expected " + std::to_string(a[first] + b[first]) + ", got " +
                    std::to_string(c[first]) + ")",
                "the kernel is right: the device buffers must be filled from a and b before the "
                "launch (cudaMemcpy "
                "HostToDevice), and c copied back after it (cudaMemcpy DeviceToHost)");
        return false;
    }
    s.check(name, true, 0, what + "all " + std::to_string(n) + " values match", "");
    return true;
}

void run(ProgramSession& s) {
    const ProgramRun *small = nullptr, *large = nullptr;
    std::uniform_int_distribution<unsigned> small_n(1, 300), large_n(100000, 110000);
    run_and_compare(s, "c = a + b for a small n", small_n(s.rng()), &small);
    run_and_compare(s, "c = a + b for a larger n", large_n(s.rng()), &large);

    // Leaks: the emulated runtime lists the device allocations still held at exit.
    if (!large || !large->completed) {
        s.check("every device allocation is freed", false, 1,
                "not run: the program did not complete", "make it run first");
    } else if (large->exit_code != 0) {
        // A program that gave up at an error leaves its buffers to the system: the leak is not
        // the news, the error is (the check above names it).
        s.check("every device allocation is freed", false, 1,
                "not checked: the program exited with status " + std::to_string(large->exit_code) +
                    " before its end",
                "make it run to its end first (the checks above say what went wrong)");
    } else if (large->runtime.is_object() && large->runtime.contains("memory") &&
               large->runtime["memory"].is_object() &&
               large->runtime["memory"].value("peak_device_bytes", 0.0) == 0) {
        // Nothing allocated, nothing to free: no credit for a program that never used the GPU.
        s.check("every device allocation is freed", false, 1,
                "not measured: the program allocated no device memory",
                "cudaMalloc the device buffers, and cudaFree each before the program ends");
    } else if (large->runtime.is_object() && large->runtime.contains("leaks") &&
               large->runtime["leaks"].is_object()) {
        const auto& leaks = large->runtime["leaks"];
        const double count = leaks.contains("count") && leaks["count"].is_number()
                                 ? leaks["count"].get<double>()
                                 : 0;
        const double leaked = leaks.contains("bytes") && leaks["bytes"].is_number()
                                  ? leaks["bytes"].get<double>()
                                  : 0;
        // Where each was made: the runtime lists the first few ("N bytes at 0x... allocated at
        // file:line").
        std::string where;
        if (leaks.contains("first") && leaks["first"].is_array())
            for (const auto& l : leaks["first"])
                if (l.is_string() && where.size() < 600)
                    where += (where.empty() ? ": " : "; ") + l.get<std::string>();
        s.check("every device allocation is freed", count == 0, count,
                count == 0
                    ? "no device memory was left allocated at exit"
                    : std::to_string(int(count)) + " device allocation(s), " +
                          std::to_string((long long)leaked) + " bytes, were never freed" + where,
                "free each cudaMalloc'd buffer with cudaFree once you no longer need it");
    } else {
        // NVIDIA's runtime keeps no such list.
        s.check("every device allocation is freed", true, 0,
                "not checked on this backend (the emulated runtime counts leaks)", "");
    }

    // Error checking: the larger input again, with the first kernel made to fault as if it had
    // read an unmapped address (the emulated runtime's CUDALAB_INJECT, as lesson 16 does). A
    // program that checks its calls names cudaErrorIllegalAddress (or its sentence) and exits
    // with a non-zero status; one that does not writes whatever c held and exits with 0.
    const std::string check = "a fault in the kernel is caught and named";
    if (!large || !large->ok()) {
        s.check(check, false, 1, "not run: the program does not run right without a fault yet",
                "make it right first (the checks above say what is wrong)");
        return;
    }
    cudalab::lessons::RunSettings fault;
    fault.backend = "emu";
    fault.environment = {{"CUDALAB_INJECT", "illegal-address:1"}};
    const ProgramRun& run = s.run(large->args, fault);
    const std::string err = program_stderr(run.err);
    const bool named = err.find("cudaErrorIllegalAddress") != std::string::npos ||
                       err.find("illegal memory access") != std::string::npos;
    const std::string what = "with the kernel made to fault (CUDALAB_INJECT=illegal-address:1): ";
    if (!run.completed)
        s.check(check, false, 1, what + run.failure, "run it yourself with that setting");
    else if (run.exit_code == 0)
        s.check(check, false, 1,
                what + "the program exited with status 0" +
                    (named ? " after naming the error" : ", saying nothing of the fault"),
                "a kernel's fault comes back from the next call that waits for the GPU "
                "(cudaDeviceSynchronize, or the cudaMemcpy back): check its cudaError_t, print "
                "cudaGetErrorName and exit with a non-zero status");
    else if (!named)
        s.check(check, false, 1,
                what + "the program exited with status " + std::to_string(run.exit_code) +
                    " but its stderr does not name the error; it printed: " +
                    (err.empty() ? std::string("(nothing)") : err.substr(0, 300)),
                "print the error's name (cudaGetErrorName) or sentence (cudaGetErrorString): the "
                "runtime's own cudalab: lines do not count");
    else
        s.check(check, true, 0,
                what + "the program named the error and exited with status " +
                    std::to_string(run.exit_code),
                "");
}

}  // namespace

CUDALAB_PROGRAM_LESSON("02b-host-program", run);
