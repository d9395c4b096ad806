// Lesson 18 — compatibility. A program lesson (lessons/program_lesson.h): the learner's file is a
// whole program, built with the manifest's nvcc options (-arch=sm_90 -lnvrtc -lcuda),
// and run as `./program in.bin out.bin` on emulated GPUs of every architecture CUDA 13 supports
// from sm_75 to sm_120 (CUDALAB_DEVICE_ARCH: the device reports that compute capability and takes
// only the kernel images such a GPU takes) and once with a driver older than the runtime
// (CUDALAB_DRIVER_VERSION=12080). The performance check reads the runtime's count of modules the
// driver API loaded: compiling at run time once per run, not once per launch.
//
// The architecture runs always use the emulated runtime (a GPU is the architecture it is); on
// `--backend gpu` one more run checks the values on the GPU that is there.
#include <cstdio>
#include <cstring>

#include "lessons/program_lesson.h"

namespace {

using cudalab::lessons::excerpt;
using cudalab::lessons::program_stderr;
using cudalab::lessons::ProgramRun;
using cudalab::lessons::ProgramSession;
using cudalab::lessons::RunSettings;

const int kArchs[] = {75, 80, 86, 89, 90, 100, 120};

unsigned mix_reference(unsigned v) {
    for (unsigned r = 0; r < 64; ++r) v = (v ^ (v >> 13)) * 2654435761u + r;
    return v;
}

struct Input {
    std::vector<unsigned> expected;
};

Input write_input(ProgramSession& s) {
    const unsigned n = std::uniform_int_distribution<unsigned>(30000, 40000)(s.rng());
    std::vector<unsigned> file(std::size_t(n) + 1);
    file[0] = n;
    Input in;
    in.expected.resize(n);
    std::uniform_int_distribution<unsigned> dist;
    for (unsigned i = 0; i < n; ++i) {
        file[i + 1] = dist(s.rng());
        in.expected[i] = mix_reference(file[i + 1]);
    }
    std::remove((s.work_dir() + "/out.bin").c_str());
    s.write_file("in.bin", file.data(), file.size() * 4);
    return in;
}

// "" when the run exited 0 with the right out.bin, else what went wrong.
std::string verdict(ProgramSession& s, const ProgramRun& run, const Input& in) {
    if (!run.completed) return run.failure + cudalab::lessons::run_details(run);
    if (run.exit_code != 0 || !run.faults().empty())
        return "the program exited with status " + std::to_string(run.exit_code) +
               cudalab::lessons::run_details(run);
    std::vector<unsigned char> bytes;
    if (!s.read_file("out.bin", &bytes)) return "the program wrote no out.bin";
    if (bytes.size() != in.expected.size() * 4)
        return "out.bin has " + std::to_string(bytes.size()) + " bytes, not " +
               std::to_string(in.expected.size() * 4);
    std::vector<unsigned> out(in.expected.size());
    std::memcpy(out.data(), bytes.data(), bytes.size());
    std::size_t bad = 0;
    for (std::size_t i = 0; i < out.size(); ++i) bad += out[i] != in.expected[i];
    if (bad)
        return std::to_string(bad) + " of " + std::to_string(out.size()) +
               " values are wrong (the program exited with status 0: did a launch fail without "
               "anyone checking? its stderr: " +
               excerpt(run.err) + ")";
    // The GPU did the work: kernels of at least one thread per value ran.
    double threads = 0;
    for (const auto& e : run.timeline) {
        if (e.pid < 1 || e.category != "kernel" || !e.args.is_object()) continue;
        unsigned g[3] = {0, 0, 0}, b[3] = {0, 0, 0};
        const auto text = [&](const char* key) {
            return e.args.contains(key) && e.args[key].is_string() ? e.args[key].get<std::string>()
                                                                   : std::string();
        };
        if (std::sscanf(text("grid").c_str(), "(%u,%u,%u)", &g[0], &g[1], &g[2]) == 3 &&
            std::sscanf(text("block").c_str(), "(%u,%u,%u)", &b[0], &b[1], &b[2]) == 3)
            threads += double(g[0]) * g[1] * g[2] * b[0] * b[1] * b[2];
    }
    if (threads < double(in.expected.size()))
        return "the values are right, but kernels of only " +
               std::to_string(std::uint64_t(threads)) + " threads ran for " +
               std::to_string(in.expected.size()) + " values: the GPU must do the mixing";
    return "";
}

// The advice for a program that is wrong on some architecture, from what its first failing run
// shows: a kernel name the module does not hold, a kernel that faulted (cuLaunchKernel given the
// arguments instead of pointers to them), or no image for the GPU.
std::string arch_advice(const ProgramRun& run) {
    const std::string text = run.err + "\n" + run.faults();
    if (text.find("CUDA_ERROR_NOT_FOUND") != std::string::npos ||
        text.find("named symbol not found") != std::string::npos)
        return "cuModuleGetFunction found no kernel of that name: NVRTC compiles the string as "
               "C++, so a kernel not declared extern \"C\" has a mangled name (_Z3mixPji). "
               "Declare it extern \"C\" __global__ in the string, or ask NVRTC for the lowered "
               "name (nvrtcAddNameExpression, nvrtcGetLoweredName)";
    if (text.find("is not an address of this program") != std::string::npos)
        return "cuLaunchKernel's kernelParams is an array of pointers to the arguments (void* "
               "args[] = {&d, &count}), not the arguments themselves: the driver reads each "
               "argument through its pointer, so a value given there is read as an address (on a "
               "GPU the program crashes there)";
    if (!run.faults().empty())
        return "a kernel faulted: if it was launched with cuLaunchKernel, its kernelParams is an "
               "array of pointers to the arguments (void* args[] = {&d, &count}), not the "
               "arguments themselves; a value given there is read as the address of one";
    // The driver reads each argument through its pointer on the host: values given instead of
    // pointers crash the program before any kernel runs.
    if (!run.completed && run.failure.find("signal 11") != std::string::npos)
        return "the program crashed on the host: if it launches with cuLaunchKernel, its "
               "kernelParams is an array of pointers to the arguments (void* args[] = {&d, "
               "&count}), not the arguments themselves; the driver reads each argument through "
               "its pointer, so a value given there is read as an address. Otherwise look for a "
               "host pointer or index that is wrong";
    return "built with -arch=sm_90 the program holds sm_90 machine code and compute_90 PTX: a "
           "GPU older than sm_90 can run neither (cudaErrorNoKernelImageForDevice, from "
           "cudaGetLastError after the launch). Give the executable what every GPU needs (a "
           "`// nvcc: -gencode ...` line: machine code per architecture plus PTX for the "
           "newest), or compile the kernel when the program runs, for the GPU that is there "
           "(NVRTC, cuModuleLoadData, cuLaunchKernel)";
}

void run(ProgramSession& s) {
    // 1. Every architecture.
    std::string advice;
    std::string failed, first_failure;
    int passed = 0;
    std::uint64_t loads_on_90 = 0;
    bool measured = false;
    for (int arch : kArchs) {
        const Input in = write_input(s);
        RunSettings settings;
        settings.backend = "emu";
        settings.environment = {{"CUDALAB_DEVICE_ARCH", std::to_string(arch)}};
        const ProgramRun& run = s.run({"in.bin", "out.bin"}, settings);
        const std::string why = verdict(s, run, in);
        if (why.empty()) ++passed;
        else {
            failed += (failed.empty() ? "sm_" : ", sm_") + std::to_string(arch);
            if (first_failure.empty()) {
                first_failure = "on sm_" + std::to_string(arch) + ": " + why;
                advice = arch_advice(run);
            }
        }
        if (arch == 90 && why.empty() && run.runtime.is_object() &&
            run.runtime.contains("driver_module_loads") &&
            run.runtime["driver_module_loads"].is_number_unsigned()) {
            loads_on_90 = run.runtime["driver_module_loads"].get<std::uint64_t>();
            measured = true;
        }
    }
    const bool everywhere = failed.empty();
    if (everywhere)
        s.check("out.bin is right on every GPU from sm_75 to sm_120", true, 0,
                "right on sm_75, sm_80, sm_86, sm_89, sm_90, sm_100 and sm_120", "");
    else
        s.check("out.bin is right on every GPU from sm_75 to sm_120", false,
                double(std::size(kArchs) - passed),
                "wrong or failed on " + failed + "; " + first_failure, advice);
    if (s.backend() == "gpu") {
        const Input in = write_input(s);
        const std::string why = verdict(s, s.run({"in.bin", "out.bin"}), in);
        s.check("out.bin is right on this machine's GPU", why.empty(), 1,
                why.empty() ? "right on the GPU" : why, "read the message above");
    }

    // 2. A driver older than the runtime.
    {
        const std::string check = "a driver older than the runtime is named and ends the program";
        write_input(s);
        RunSettings settings;
        settings.backend = "emu";
        settings.driver_version = 12080;
        const ProgramRun& run = s.run({"in.bin", "out.bin"}, settings);
        const std::string err = program_stderr(run.err);
        const bool named = err.find("cudaErrorInsufficientDriver") != std::string::npos ||
                           err.find("CUDA_ERROR_UNSUPPORTED_PTX_VERSION") != std::string::npos;
        std::vector<unsigned char> out;
        if (!run.completed)
            s.check(check, false, 1, "with a CUDA 12.8 driver: " + run.failure,
                    "run it yourself with CUDALAB_DRIVER_VERSION=12080");
        else if (!named)
            s.check(
                check, false, 1,
                "with a CUDA 12.8 driver (CUDALAB_DRIVER_VERSION=12080) the program's stderr names "
                "neither "
                "cudaErrorInsufficientDriver nor CUDA_ERROR_UNSUPPORTED_PTX_VERSION (exit status " +
                    std::to_string(run.exit_code) + "); it printed: " + excerpt(err),
                "a CUDA 13 runtime needs a CUDA 13 driver: every runtime call that needs the "
                "device returns "
                "cudaErrorInsufficientDriver. Check "
                "the first one and print cudaGetErrorName(err)");
        else if (run.exit_code == 0 || s.read_file("out.bin", &out))
            s.check(check, false, 1,
                    "with a CUDA 12.8 driver the program named the error but exited with status " +
                        std::to_string(run.exit_code) + (out.empty() ? "" : " and wrote out.bin"),
                    "nothing can run on this machine until its driver is updated: exit with a "
                    "non-zero status, writing nothing");
        else
            s.check(check, true, 0,
                    "with a CUDA 12.8 driver the program named the error and exited with status " +
                        std::to_string(run.exit_code),
                    "");
    }

    // 3. Compile once.
    s.check_at_most(
        "the kernel is compiled and loaded once per run", double(loads_on_90), 1,
        std::to_string(loads_on_90) +
            " modules loaded with cuModuleLoadData in the run on sm_90 (4 launches)",
        "compiling with NVRTC and loading the PTX costs tens of milliseconds on a GPU: do it once, "
        "before the loop, "
        "and launch the one CUfunction as often as needed",
        everywhere && measured,
        "make the program right on every architecture first (the check above says what is wrong)");
}

}  // namespace

CUDALAB_PROGRAM_LESSON("18-compatibility", run);
